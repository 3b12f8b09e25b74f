/// In front of a connection's receiver while its response may be a playlist (a stream's first
/// bytes, before any audio was found): it holds the answer and the first bytes only until
/// `PlaylistIntake` can tell, then hands everything on as it came (audio: the usual path, at the
/// cost of one check of the first slice), or reads the playlist whole (bounded) and gives it to
/// the network side instead. The answer the player already opened is the one read: a stream
/// costs no second request.
final class PlaylistProbe: AudioSourceReceiver {
    private let receiver: ConnectionReceiver
    private let network: NetworkSide
    // Unchecked: a source calls its receiver on its own thread, one call at a time, in order
    // (`AudioSourceReceiver`), and only those calls touch these.
    /// The answer, held until the bytes tell what they are.
    nonisolated(unsafe) private var answer: AudioSourceAnswer?
    nonisolated(unsafe) private var intake: PlaylistIntake?
    /// Bytes held while checking, still to hand on before the next slice.
    nonisolated(unsafe) private var held: [UInt8] = []
    /// Everything goes straight on to the receiver.
    nonisolated(unsafe) private var isForwarding = false

    init(receiver: ConnectionReceiver, network: NetworkSide) {
        self.receiver = receiver
        self.network = network
    }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        guard answer.offset == 0 else {
            isForwarding = true
            return receiver.sourceOpened(answer)
        }
        self.answer = answer
        intake = PlaylistIntake(contentType: answer.contentType, name: answer.effectiveURL ?? network.source.location.text)
        return .proceed
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        if isForwarding { return handOn(bytes, at: offset) }
        guard var intake, let answer else { return .stop }
        let step = intake.take(bytes)
        self.intake = intake
        switch step {
        case .hold:
            return .proceed
        case .collect:
            network.playlistBytesArrived(bytes.count, receiver: receiver)
            return .proceed
        case .tooLarge:
            network.foundPlaylist(.failure(Playlist.tooLarge), receiver: receiver)
            return .stop
        case .forward(let head):
            isForwarding = true
            held = head
            guard case .proceed = receiver.sourceOpened(answer) else { return .stop }
            return handOn(bytes, at: offset)
        }
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {
        receiver.sourceFound(metadata)
    }

    func sourceEnded(_ error: AudioStreamerError?) {
        guard !isForwarding, error == nil, var intake, let answer else {
            receiver.sourceEnded(error)
            return
        }
        switch intake.end() {
        case .forward(let head):
            isForwarding = true
            held = head
            guard case .proceed = receiver.sourceOpened(answer) else { return }
            // Nothing to pause for: the queue is empty while no format is known.
            if !held.isEmpty, case .stop = handOn(UnsafeRawBufferPointer(start: nil, count: 0), at: Int64(held.count)) { return }
            receiver.sourceEnded(nil)
        case .playlist(let format, let body):
            let location = network.source.location
            let base = answer.effectiveURL.map(AudioLocation.url) ?? location
            network.foundPlaylist(
                .success(PlaylistDocument(format: format, bytes: body, location: location, base: base)), receiver: receiver)
        }
    }

    /// Hands on the held bytes (from the answer's offset), then `bytes`; a pause keeps what
    /// was not taken (the source offers `bytes` again, the held bytes go first again).
    private func handOn(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        if !held.isEmpty {
            let decision = held.withUnsafeBytes { receiver.sourceReceived($0, at: offset - Int64(held.count)) }
            guard case .proceed = decision else { return decision }
            held = []
        }
        return bytes.isEmpty ? .proceed : receiver.sourceReceived(bytes, at: offset)
    }
}
