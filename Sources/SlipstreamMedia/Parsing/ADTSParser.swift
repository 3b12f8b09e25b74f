/// The AAC-in-ADTS stage of `AudioStreamParser`: each ADTS frame (header, CRC and all of its
/// raw data blocks) is one packet. ADTS states no totals, so the duration is a running count.
package struct ADTSParser: Sendable {
    private var sync = FrameSync<ADTSHeader>()

    /// Handles the bytes at the window's front.
    package mutating func step(_ window: UnsafeRawBufferPointer, isFinal: Bool, state: inout StreamState) -> ParseStep {
        switch sync.next(window, isFinal: isFinal, state: &state, size: { header, _ in .bytes(header.frameLength) }) {
        case .step(let step):
            return step
        case .frame(let header, let size, let isNewFormat):
            if isNewFormat { state.setFormat(header.format) }
            return .packet(size: size, frames: header.frameCount)
        }
    }

    /// After a discontinuity: the next frame must be confirmed.
    package mutating func resynchronise() {
        sync.loseSync()
    }
}
