/// Playlists: a URL or file that turns out to be a playlist (the network side's probe read it
/// whole) is followed: its entries are tried in order, each with a network side of its own,
/// until one gives audio. An entry that fails before that (refused, an HTTP error, not audio,
/// no data within the inactivity timeout, a live response that ended) is skipped, told as
/// `.playlistEntrySkipped`; once an entry gave audio, its failures follow the usual reconnect
/// rules (a live stream's included). All of it runs on the control queue.
extension AudioStreamer {
    /// The network side `network` read a playlist whole (or found it too large).
    func networkFoundPlaylist(_ document: Result<PlaylistDocument, PlaylistError>, from network: NetworkSide) {
        controlQueue.async { [self] in follow(document, from: network) }
    }

    /// Whether the control queue takes `input` here instead of the state machine: the failure
    /// of a playlist's entry before it gave any audio (the entry is skipped), or of an entry
    /// skipped already (a late report: dropped). Called on the control queue.
    func takesPlaylistFailure(_ input: PlayerStateMachine.Input) -> Bool {
        let error: AudioStreamerError
        switch input {
        case .connectionFailed(let failure), .fatal(let failure), .liveStreamEnded(let failure): error = failure
        default: return false
        }
        guard error.code != .output, let current = control.withLock({ $0.isPlaying ? $0.playlist?.walk.current : nil }),
            queue.withLock({ $0.newestFormat == nil })
        else { return false }
        if let named = error.url ?? error.path, named != current.text { return true }
        skipCurrentEntry(error)
        return true
    }

    /// Follows the playlist the current network side read: the root's entries, or the current
    /// entry's (which a playlist that cannot be followed skips).
    private func follow(_ document: Result<PlaylistDocument, PlaylistError>, from network: NetworkSide) {
        let place = network.source.location
        let walk = control.withLock { control in
            control.network === network && control.isPlaying ? control.playlist?.walk ?? PlaylistWalk(root: location) : nil
        }
        guard var walk else { return }
        do throws(PlaylistError) {
            try walk.follow(try document.get())
        } catch {
            // An HLS playlist is one stream, not a list of them: its segments are played.
            if error.code == .hls, case .success(let hls) = document, case .url(let url) = hls.location, case .url(let base) = hls.base {
                return startHLS(url, document: HLSAudioSource.Document(bytes: hls.bytes, base: base))
            }
            let failure = AudioStreamerError(playlistError: error, at: place)
            guard walk.current != nil else { return send(.fatal(failure)) }
            return skipCurrentEntry(failure)
        }
        control.withLock { $0.playlist = PlayerPlaylist(walk: walk, lastFailure: $0.playlist?.lastFailure) }
        startNextEntry()
    }

    /// Tells of the current entry's failure and goes on to the next.
    private func skipCurrentEntry(_ failure: AudioStreamerError) {
        guard
            let current = control.withLock({ control in
                control.playlist?.lastFailure = failure
                return control.playlist?.walk.current
            })
        else { return }
        emit(.playlistEntrySkipped(url: current.text, failure))
        startNextEntry()
    }

    /// Opens the next entry that points somewhere (telling of those that do not), or, when
    /// none is left, stops with an error saying how many were tried.
    private func startNextEntry() {
        guard var playlist = control.withLock({ $0.playlist }) else { return }
        while let entry = playlist.walk.next() {
            switch entry.location {
            case .success(let place):
                control.withLock { $0.playlist = playlist }
                return start(entry, at: place)
            case .failure(let error):
                let failure = AudioStreamerError(playlistError: error, entry: entry)
                playlist.lastFailure = failure
                emit(.playlistEntrySkipped(url: entry.text, failure))
            }
        }
        control.withLock { $0.playlist = playlist }
        send(.fatal(playlist.failure(root: location)))
    }

    /// Plays `entry` from `place`: a network side of its own replaces the current one, and the
    /// stream starts over (nothing of the one before reached the queue).
    private func start(_ entry: PlaylistWalk.Entry, at place: AudioLocation) {
        replaceNetwork(
            with: makeNetworkSide(for: place, recorder: control.withLock { $0.recorder }),
            announcing: .playlistEntryStarted(url: place.text, title: entry.entry.title))
    }

    /// Plays the HLS stream at `url` (its playlist as read: `document`) in place of the
    /// network side that read the playlist.
    private func startHLS(_ url: String, document: HLSAudioSource.Document) {
        // Segments are fetched ahead within the buffer's seconds (a limit in bytes or none:
        // within `HLSFetchMachine.segmentsAhead` segments).
        let lookahead: Double? = if case .seconds(let seconds) = configuration.bufferLimit { seconds } else { nil }
        let source = HLSAudioSource(
            template: makeAudioRequest(url, configuration: configuration, loginOrigins: nil), engine: engine ?? .shared,
            document: document, loginOrigins: location.origins, selection: configuration.hlsVariant,
            lookahead: lookahead, kept: configuration.keptHLS)
        replaceNetwork(with: makeNetworkSide(reading: source, recorder: control.withLock { $0.recorder }), announcing: nil)
    }

    /// Makes `network` the current network side, tells `event`, and connects it: the stream
    /// starts over (nothing of the one before reached the queue).
    private func replaceNetwork(with network: NetworkSide, announcing event: AudioStreamerEvent?) {
        let old = control.withLock { control -> NetworkSide? in
            defer {
                control.network = network
                control.properties = AudioStreamProperties()
                control.canSeekNetwork = false
                control.expectingSince = MonotonicTime.now()
            }
            return control.network
        }
        old?.stop()
        queue.withLock { $0.producerReplaced() }
        if let event { emit(event) }
        network.connect(from: 0)
    }
}

/// A player's way through a playlist: the walk, and the failure of the last entry skipped.
struct PlayerPlaylist: Sendable {
    var walk: PlaylistWalk
    var lastFailure: AudioStreamerError?

    /// The error when no entry is left: the last failure's code, how many entries were tried.
    func failure(root: AudioLocation) -> AudioStreamerError {
        let tried = walk.tried == 1 ? "its one entry could not be played" : "none of the \(walk.tried) entries tried could be played"
        return AudioStreamerError(
            lastFailure?.code ?? .noAudioData, "\(root): a playlist; " + tried + (lastFailure.map { " (the last: \($0.message))" } ?? ""),
            underlying: lastFailure, url: root.url, path: root.path, retryable: false)
    }
}

extension PlayerControlState {
    /// Whether playback has not ended (a playlist is followed only then).
    fileprivate var isPlaying: Bool { !machine.state.isFinal }
}

extension AudioStreamerError {
    /// The player's view of a playlist that cannot be followed, read from `place`.
    init(playlistError error: PlaylistError, at place: AudioLocation) {
        let code: Code = error.code == .noEntries ? .noAudioData : .unsupportedFormat
        self.init(code, "\(place): \(error.message)", underlying: error, url: place.url, path: place.path, retryable: false)
    }

    /// The player's view of an entry that points nowhere it can go.
    init(playlistError error: PlaylistError, entry: PlaylistWalk.Entry) {
        self.init(.unsupportedFormat, "\(entry.text): \(error.message)", underlying: error, url: entry.text, retryable: false)
    }
}
