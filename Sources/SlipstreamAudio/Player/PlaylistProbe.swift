import Synchronization

/// In front of a connection's receiver while its response may be a playlist (a stream's first
/// bytes, before any audio was found): it holds the answer and the first bytes only until
/// `PlaylistIntake` can tell, then hands everything on as it came (audio: the usual path, at the
/// cost of one check of the first slice), or reads the playlist whole (bounded) and gives it to
/// the network side instead. The answer the player already opened is the one read: a stream
/// costs no second request.
final class PlaylistProbe: AudioSourceReceiver {
    /// Where the probe is.
    private enum Phase {
        /// No answer yet.
        case opening
        /// The answer is held until the bytes tell what they are.
        case checking(AudioSourceAnswer, PlaylistIntake)
        /// Everything goes straight on to the receiver; `held`: bytes still to hand on first.
        case forwarding(held: [UInt8])
    }

    /// What a delivery does, as the phase says.
    private enum Turn {
        /// No answer came: the bytes are refused.
        case refuse
        /// Hands the bytes on, after these held ones.
        case handOn(held: [UInt8])
        /// The intake took the bytes and said this, of the answer held.
        case check(PlaylistIntake.Step, AudioSourceAnswer)
    }

    private let receiver: ConnectionReceiver
    private let network: NetworkSide
    /// A source calls its receiver one call at a time (`AudioSourceReceiver`); the lock is never
    /// held while the receiver or the network side is called (a call may lead anywhere).
    private let phase = Mutex(Phase.opening)

    init(receiver: ConnectionReceiver, network: NetworkSide) {
        self.receiver = receiver
        self.network = network
    }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        guard answer.offset == 0 else {
            phase.withLock { $0 = .forwarding(held: []) }
            return receiver.sourceOpened(answer)
        }
        let intake = PlaylistIntake(contentType: answer.contentType, name: answer.effectiveURL ?? network.source.location.text)
        phase.withLock { $0 = .checking(answer, intake) }
        return .proceed
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        let turn = phase.withLock { phase -> Turn in
            switch phase {
            case .opening:
                return .refuse
            case .forwarding(let held):
                return .handOn(held: held)
            case .checking(let answer, var intake):
                phase = .opening  // The intake's buffer is not shared while it grows.
                let step = intake.take(bytes)
                phase = if case .forward(let head) = step { .forwarding(held: head) } else { .checking(answer, intake) }
                return .check(step, answer)
            }
        }
        switch turn {
        case .refuse:
            return .stop
        case .handOn(let held):
            return handOn(held, then: bytes, at: offset)
        case .check(.hold, _):
            return .proceed
        case .check(.collect, _):
            network.playlistBytesArrived(bytes.count, receiver: receiver)
            return .proceed
        case .check(.tooLarge, _):
            network.foundPlaylist(.failure(Playlist.tooLarge), receiver: receiver)
            return .stop
        case .check(.forward(let held), let answer):
            guard case .proceed = receiver.sourceOpened(answer) else { return .stop }
            return handOn(held, then: bytes, at: offset)
        }
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {
        receiver.sourceFound(metadata)
    }

    func sourceEnded(_ error: AudioStreamerError?) {
        let checked = phase.withLock { phase -> (PlaylistIntake.End, AudioSourceAnswer)? in
            guard error == nil, case .checking(let answer, var intake) = phase else { return nil }
            let end = intake.end()
            if case .forward(let head) = end { phase = .forwarding(held: head) }
            return (end, answer)
        }
        guard let (end, answer) = checked else {
            receiver.sourceEnded(error)
            return
        }
        switch end {
        case .forward(let held):
            guard case .proceed = receiver.sourceOpened(answer) else { return }
            // Nothing to pause for: the queue is empty while no format is known.
            if !held.isEmpty, case .stop = handOn(held, then: UnsafeRawBufferPointer(start: nil, count: 0), at: Int64(held.count)) {
                return
            }
            receiver.sourceEnded(nil)
        case .playlist(let format, let body):
            let location = network.source.location
            let base = answer.effectiveURL.map(AudioLocation.url) ?? location
            network.foundPlaylist(
                .success(PlaylistDocument(format: format, bytes: body, location: location, base: base)), receiver: receiver)
        }
    }

    /// Hands on `held` (the bytes held, from the answer's offset), then `bytes`; a pause keeps
    /// what was not taken (the source offers `bytes` again, the held bytes go first again).
    private func handOn(_ held: [UInt8], then bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        if !held.isEmpty {
            let decision = held.withUnsafeBytes { receiver.sourceReceived($0, at: offset - Int64(held.count)) }
            guard case .proceed = decision else { return decision }
            phase.withLock { $0 = .forwarding(held: []) }
        }
        return bytes.isEmpty ? .proceed : receiver.sourceReceived(bytes, at: offset)
    }
}
