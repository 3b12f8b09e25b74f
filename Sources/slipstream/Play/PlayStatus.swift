import SlipstreamAudio

/// The `play` status line:
/// `playing  0:42 / 3:05  buffered 12.3 s  128 kbit/s  vol 80%  Radio X | Artist - Title`,
/// cut to the terminal's width (with `--keep`, `kept 42%` after the volume). Pure.
enum PlayStatus {
    static func line(
        state: AudioStreamerState, progress: AudioStreamerProgress, volume: Double, nowPlaying: String?, kept: Double? = nil,
        width: Int
    ) -> String {
        var parts = [
            stateWord(state).padding(8),
            "\(Formatting.duration(progress.position)) / \(Formatting.duration(progress.duration))",
            "buffered \(Formatting.fixed(progress.buffered, places: 1)) s",
        ]
        if let bitRate = progress.bitRate { parts.append("\(Int((bitRate / 1000).rounded())) kbit/s") }
        parts.append("vol \(Int((volume * 100).rounded()))%")
        if let kept { parts.append("kept \(Int((kept * 100).rounded(.down)))%") }
        if let nowPlaying { parts.append(nowPlaying) }
        return Formatting.fit(parts.joined(separator: "  "), width: width)
    }

    /// What plays: the station's name and the title, `Radio X | Artist - Title`, either alone
    /// when the other is missing. The title is the station's stream title when it gave one (an
    /// empty one means none), else the title in the stream's tags.
    static func nowPlaying(station: StationInfo?, streamTitle: StreamTitle?, tagTitle: String?) -> String? {
        let title = streamTitle.map(\.title).flatMap { $0.isEmpty ? nil : $0 } ?? tagTitle
        let parts = [station?.name, title].compactMap { $0?.isEmpty == false ? $0 : nil }
        return parts.isEmpty ? nil : parts.joined(separator: " | ")
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
