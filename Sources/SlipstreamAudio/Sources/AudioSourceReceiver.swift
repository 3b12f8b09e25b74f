/// Where a connection's bytes go. Called on the source's thread, one call at a time, in order.
package protocol AudioSourceReceiver: AnyObject, Sendable {
    /// The connection's answer, before any byte; `.stop` refuses it.
    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision
    /// `bytes` (valid only during the call) at stream offset `offset`.
    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision
    /// Metadata found beside the bytes.
    func sourceFound(_ metadata: AudioSourceMetadata)
    /// The connection ended: nil when every byte asked for was delivered, else why not.
    func sourceEnded(_ error: AudioStreamerError?)
}
