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
    /// source's thread, one call at a time (`AudioSourceReceiver`); its state is behind a lock
    /// that is never held while the receiver is called (a call may lead anywhere).
    private final class Receiver: AudioSourceReceiver {
        private struct State {
            var filter: ICYMetadataFilter?
            /// The answer's offset: the audio offsets count from it.
            var base: Int64 = 0
            /// Bytes at the start of the next delivery that were consumed before a `.pause`
            /// (the inner source offers the paused bytes again from their first).
            var consumedBeforePause = 0
        }

        /// What one scan found: the titles of the blocks before the audio run, where the run
        /// starts in the input, how many of its bytes are there, and its stream offset.
        private struct Run {
            var titles: [AudioSourceMetadata] = []
            var start: Int
            var count: Int
            var offset: Int64
        }

        private let receiver: any AudioSourceReceiver
        private let state = Mutex(State())

        init(_ receiver: any AudioSourceReceiver) {
            self.receiver = receiver
        }

        func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
            var fresh = State()
            if let interval = answer.headers["icy-metaint"].flatMap({ Int(Substring($0).trimmingSpaces()) }), interval > 0 {
                fresh.filter = ICYMetadataFilter(interval: interval)
            }
            fresh.base = answer.offset
            var answer = answer
            // A stream with metadata blocks has no end: it is live even when a server sends a
            // length, and its length would count the blocks.
            if fresh.filter != nil { (answer.isLive, answer.totalSize) = (true, nil) }
            state.withLock { $0 = fresh }
            if let station = StationInfo(headers: answer.headers) { receiver.sourceFound(.station(station)) }
            return receiver.sourceOpened(answer)
        }

        func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
            let resumed = state.withLock { state -> Int? in
                guard state.filter != nil else { return nil }
                let index = min(state.consumedBeforePause, bytes.count)
                state.consumedBeforePause -= index
                return index
            }
            guard var index = resumed else { return receiver.sourceReceived(bytes, at: offset) }
            while index < bytes.count {
                let run = scan(bytes, from: index)
                for title in run.titles { receiver.sourceFound(title) }
                index = run.start
                guard run.count > 0 else { break }
                let audio = UnsafeRawBufferPointer(rebasing: bytes[run.start..<run.start + run.count])
                let decision = receiver.sourceReceived(audio, at: run.offset)
                guard case .proceed = decision else {
                    if case .pause = decision { state.withLock { $0.consumedBeforePause = run.start } }
                    return decision
                }
                state.withLock { $0.filter?.audioTaken(run.count) }
                index += run.count
            }
            return .proceed
        }

        /// Scans `bytes` from `index` to the next run of audio (`ICYMetadataFilter.scan`).
        private func scan(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Run {
            state.withLock { state in
                var titles: [AudioSourceMetadata] = []
                let base = state.base
                let found = state.filter?.scan(bytes, from: index) { block, audioOffset in
                    let metadata = ICYMetadata(block)
                    if let title = metadata.title {
                        titles.append(.title(StreamTitle(title: title, url: metadata.url), offset: base + audioOffset))
                    }
                }
                return Run(
                    titles: titles, start: found?.start ?? bytes.count, count: found?.audioCount ?? 0,
                    offset: base + (state.filter?.audioOffset ?? 0))
            }
        }

        func sourceFound(_ metadata: AudioSourceMetadata) {
            receiver.sourceFound(metadata)
        }

        func sourceEnded(_ error: AudioStreamerError?) {
            receiver.sourceEnded(error)
        }
    }
}
