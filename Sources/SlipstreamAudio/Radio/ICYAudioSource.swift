import Synchronization

/// A source that takes the ICY metadata out of a radio stream (`ICYMetadataFilter`) before its
/// receiver sees the bytes, and tells what it says on the side channel: the station's headers
/// (`.station`) when a connection answers, each title (`.title`) at the audio offset it starts
/// at. Wraps the source that asked for the metadata (`Icy-MetaData: 1`); an answer without
/// `icy-metaint` passes through untouched.
///
/// Offsets are of the audio alone: the receiver (the parser, the raw tap, `--save`) never sees
/// a metadata byte. The filter's state belongs to one connection: each answer starts it anew
/// (a reconnected live stream starts with a full interval of audio).
package final class ICYAudioSource: AudioSource {
    private let inner: any AudioSource

    /// A source filtering what `inner` delivers.
    package init(_ inner: any AudioSource) {
        self.inner = inner
    }

    package var location: AudioLocation { inner.location }

    package func open(_ request: AudioSourceRequest, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        inner.open(request, receiver: Receiver(receiver))
    }

    /// One connection's filter between the inner source and the receiver. Called on the inner
    /// source's thread, one call at a time (`AudioSourceReceiver`): its state is that thread's.
    private final class Receiver: AudioSourceReceiver {
        private struct State {
            var filter: ICYMetadataFilter?
            /// The answer's offset: the audio offsets count from it.
            var base: Int64 = 0
            /// Bytes at the start of the next delivery that were consumed before a `.pause`
            /// (the inner source offers the paused bytes again from their first).
            var consumedBeforePause = 0
        }

        private let receiver: any AudioSourceReceiver
        // Unchecked: only the inner source's calls touch it, one at a time.
        nonisolated(unsafe) private var state = State()

        init(_ receiver: any AudioSourceReceiver) {
            self.receiver = receiver
        }

        func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
            state = State()
            if let interval = answer.headers["icy-metaint"].flatMap({ Int(Substring($0).trimmingSpaces()) }), interval > 0 {
                state.filter = ICYMetadataFilter(interval: interval)
            }
            state.base = answer.offset
            var answer = answer
            // A stream with metadata blocks has no end: it is live even when a server sends a
            // length, and its length would count the blocks.
            if state.filter != nil { (answer.isLive, answer.totalSize) = (true, nil) }
            if let station = StationInfo(headers: answer.headers) { receiver.sourceFound(.station(station)) }
            return receiver.sourceOpened(answer)
        }

        func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
            guard state.filter != nil else { return receiver.sourceReceived(bytes, at: offset) }
            var index = min(state.consumedBeforePause, bytes.count)
            state.consumedBeforePause -= index
            while index < bytes.count {
                let base = state.base
                let receiver = self.receiver
                let (start, count) = state.filter!.scan(bytes, from: index) { block, audioOffset in
                    let metadata = ICYMetadata(block)
                    if let title = metadata.title {
                        receiver.sourceFound(.title(StreamTitle(title: title, url: metadata.url), offset: base + audioOffset))
                    }
                }
                index = start
                guard count > 0 else { break }
                let audio = UnsafeRawBufferPointer(rebasing: bytes[start..<start + count])
                let decision = receiver.sourceReceived(audio, at: base + state.filter!.audioOffset)
                guard case .proceed = decision else {
                    if case .pause = decision { state.consumedBeforePause = start }
                    return decision
                }
                state.filter!.audioTaken(count)
                index += count
            }
            return .proceed
        }

        func sourceFound(_ metadata: AudioSourceMetadata) {
            receiver.sourceFound(metadata)
        }

        func sourceEnded(_ error: AudioStreamerError?) {
            receiver.sourceEnded(error)
        }
    }
}
