/// One file of a recording, as `.recordingStarted` and `.recordingFinished` tell of it.
public struct AudioRecordingFile: Hashable, Sendable {
    /// The file's path: the recording's folder joined with the name made for it, or the
    /// recording's one file.
    public var path: String
    /// The radio title whose audio the file holds; nil for the audio before the first title
    /// (or after an empty one) and for a recording into one file.
    public var title: StreamTitle?
    /// Bytes of audio written to it so far (the tag not counted); 0 when it starts.
    public var audioBytes: Int64
    /// Bytes of audio the file misses because the disk fell behind and the recorder's buffer
    /// was full (whole packets were dropped); 0 when the file has no gap.
    public var droppedBytes: Int64

    /// A file's facts.
    public init(path: String, title: StreamTitle?, audioBytes: Int64 = 0, droppedBytes: Int64 = 0) {
        self.path = path
        self.title = title
        self.audioBytes = audioBytes
        self.droppedBytes = droppedBytes
    }
}
