/// The network side's part in playlists: a probe in front of the connections whose response may
/// be one, and what it reports.
extension NetworkSide {
    /// The receiver a connection from `offset` gets: `receiver` itself, or, while the stream's
    /// first bytes may be a playlist's (a connection from the start, no audio format found
    /// yet), a `PlaylistProbe` in front of it.
    func receiver(_ receiver: ConnectionReceiver, from offset: Int64, state: State) -> any AudioSourceReceiver {
        offset == 0 && state.format == nil ? PlaylistProbe(receiver: receiver, network: self) : receiver
    }

    /// Bytes of a playlist being read: counted as received, so that the inactivity timeout
    /// sees them (nothing is queued: there is no format yet, so the queue never pauses them).
    func playlistBytesArrived(_ count: Int, receiver: ConnectionReceiver) {
        guard receiver.isCurrent.load(ordering: .relaxed) else { return }
        _ = queue.withLock { $0.admit(count, now: MonotonicTime.now()) }
    }

    /// The probe read a whole playlist, or found one too large: its connection is done with,
    /// and the streamer follows the playlist (on its control queue).
    func foundPlaylist(_ document: Result<PlaylistDocument, PlaylistError>, receiver: ConnectionReceiver) {
        let isCurrent = state.withLock { state -> Bool in
            guard state.generation == receiver.generation, !state.isStopped else { return false }
            // Ended, or ending: nothing to cancel.
            _ = drop(&state)
            return true
        }
        if isCurrent { streamer.networkFoundPlaylist(document, from: self) }
    }
}
