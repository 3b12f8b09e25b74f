/// A chapter of a stream (MP4's Nero `chpl` chapters): where it starts and its title.
public struct AudioChapter: Hashable, Sendable, Codable {
    /// Seconds from the start of the audio (after gapless trimming).
    public var startTime: Double
    /// The chapter's title.
    public var title: String

    /// Creates a chapter.
    public init(startTime: Double, title: String) {
        self.startTime = startTime
        self.title = title
    }
}
