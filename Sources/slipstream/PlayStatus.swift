import SlipstreamAudio

/// The `play` status line: `playing  0:42 / 3:05  buffered 12.3 s  128 kbit/s  vol 80%  Title`.
/// Pure.
enum PlayStatus {
    static func line(state: AudioStreamerState, progress: AudioStreamerProgress, volume: Double, title: String?) -> String {
        var parts = [
            stateWord(state).padding(8),
            "\(Formatting.duration(progress.position)) / \(Formatting.duration(progress.duration))",
            "buffered \(Formatting.fixed(progress.buffered, places: 1)) s",
        ]
        if let bitRate = progress.bitRate { parts.append("\(Int((bitRate / 1000).rounded())) kbit/s") }
        parts.append("vol \(Int((volume * 100).rounded()))%")
        if let title, !title.isEmpty { parts.append(title) }
        return parts.joined(separator: "  ")
    }

    static func stateWord(_ state: AudioStreamerState) -> String {
        switch state {
        case .initialized, .waitingForData: return "buffering"
        case .waitingForOutput: return "starting"
        case .playing: return "playing"
        case .paused: return "paused"
        case .done: return "done"
        case .stopped: return "stopped"
        }
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
