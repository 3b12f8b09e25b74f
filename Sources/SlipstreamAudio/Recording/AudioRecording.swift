/// Where and how an `AudioStreamer` records the stream's audio while it plays
/// (`AudioStreamerConfiguration.recording`).
///
/// The recording holds the audio packets exactly as the stream carries them (no ICY metadata
/// blocks, no decoding), each file starting at a packet (frame) boundary. Recording never holds
/// up playback: the network side copies each packet into a bounded buffer that a thread of the
/// recorder writes out; when the disk falls so far behind that the buffer is full, packets are
/// dropped whole and the file is reported as having a gap (`AudioRecordingFile.droppedBytes`);
/// a disk error ends the recording (`.recordingFailed`) while playback goes on. Packets are
/// recorded as the network side receives them: after a seek that needs the network, from the
/// new place on.
///
///     var configuration = AudioStreamerConfiguration()
///     configuration.recording = AudioRecording(.folder("/music/radio"))
///     let player = AudioStreamer(url: "http://radio.example/stream", configuration: configuration)
public struct AudioRecording: Sendable {
    /// Where the files go.
    public enum Destination: Hashable, Sendable {
        /// One file per radio title in this folder (which must exist), named after the title
        /// (`Artist - Title.mp3`), with a suffix when the name is taken (`Artist - Title (2).mp3`);
        /// the audio before the first title goes to a file named after the station, or
        /// `untitled`. MP3 (and MP1/MP2) files start with an ID3v2.3 tag: TIT2 and TPE1 from
        /// "Artist - Title", or TIT2 alone for a title without " - " (and the station's name for
        /// the file before the first title). The extension follows the codec: `.mp3`, `.mp2`,
        /// `.mp1`, `.aac`, and `.ogg` or `.opus` for Ogg Vorbis or Opus, whose files are Ogg
        /// streams of their own (header pages with TITLE and ARTIST comments, then the packets),
        /// `.flac` for FLAC, native or in Ogg (a FLAC header of its own, then the frames), and
        /// `.aac` (ADTS) for AAC from MP4 or HLS too (an ADTS header before each frame).
        case folder(String)
        /// Everything in this one file, replaced if it exists; not split at titles. An MPEG
        /// audio file starts with a tag naming the station, when it has a name; an Ogg one is
        /// chained, a link per title.
        case file(String)
    }

    /// Where the files go.
    public var destination: Destination
    /// Bytes of audio held for the writer when the disk is slower than the stream. Default
    /// 1 MiB (about a minute of 128 kbit/s); at least 64 KiB is used.
    public var bufferSize = 1 << 20
    /// How long the end of playback waits for the disk to take what the buffer holds and close
    /// the last file; then the recording is told as failed and the end comes anyway (a disk
    /// that never comes back does not hold up the player). Default 10 s.
    public var closeTimeout = Duration.seconds(10)
    /// Called on the writer's thread before each write with its size: a seam for tests that
    /// need a slow disk. Default none.
    var beforeWrite: (@Sendable (Int) -> Void)?

    /// A recording to `destination`, with the default buffer.
    public init(_ destination: Destination) {
        self.destination = destination
    }
}
