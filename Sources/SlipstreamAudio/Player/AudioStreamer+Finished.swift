/// Awaiting a player's end from Swift concurrency.
extension AudioStreamer {
    /// Waits until playback ends and returns how: `.done` when the whole stream was played,
    /// `.stopped(.user)` after `stop()`. Throws the error playback stopped with (a network,
    /// HTTP, format, decoder or output failure). It does not start playback: call `play()`
    /// first (or later: it waits).
    ///
    /// Cancelling the awaiting task stops the player, as `stop()` does, and throws an error
    /// with the `.cancelled` code.
    ///
    ///     player.play()
    ///     try await player.waitUntilFinished()
    @discardableResult
    public func waitUntilFinished() async throws(AudioStreamerError) -> AudioStreamerState {
        let end: AudioStreamerState? = await withTaskCancellationHandler {
            // A reader that starts late first gets what happened before, the end included.
            for await event in events {
                if case .stateChanged(let state) = event, state.isFinal { return state }
            }
            return nil
        } onCancel: {
            stop()
        }
        switch end {
        case .stopped(.error(let error))?:
            throw error
        case .done?:
            return .done
        case .stopped(.user)? where !Task.isCancelled:
            return .stopped(.user)
        default:
            throw AudioStreamerError(
                .cancelled, "the task awaiting \(source) was cancelled; playback was stopped",
                url: location.url, path: location.path)
        }
    }
}
