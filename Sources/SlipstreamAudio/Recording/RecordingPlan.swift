/// The recorder's decisions, on its writer thread: which file the audio goes to, when a file
/// ends (a new title, a new codec), and what the next one is called and tagged. Files are
/// opened when their first audio byte comes, so several marks at one byte make one file and a
/// title with no audio after it makes none. Pure.
struct RecordingPlan {
    /// The file to open before the next audio byte.
    struct NewFile: Hashable, Sendable {
        /// The base of its name in a folder (made safe; the writer adds a suffix when taken and
        /// the extension); unused for a recording into one file.
        var base: String
        /// `mp3`, `mp2`, `mp1`, `aac`, `ogg`, `opus` or `flac`.
        var fileExtension: String
        /// What the file starts with, if anything: an MPEG file's ID3v2 tag, a FLAC file's
        /// header (`FLACRecordingHeader`).
        var tag: [UInt8]?
        /// The radio title the file is for, nil before the first title.
        var title: StreamTitle?
    }

    /// Whether every title starts a file (a folder), or all goes to one file.
    let splitsAtTitles: Bool
    /// The title of the audio now coming (nil before the first, or after an empty one).
    private(set) var title: StreamTitle?
    /// The codec of the audio now coming, and its setup (FLAC's STREAMINFO).
    private(set) var codec: AudioFormat.Codec?
    private(set) var setup: [UInt8]?
    /// Whether a file is open for the audio now coming.
    private(set) var isFileOpen = false

    init(splitsAtTitles: Bool) {
        self.splitsAtTitles = splitsAtTitles
    }

    /// The extension of a recorded file of `codec`; nil for PCM (raw samples with no header are
    /// no playable file). Vorbis and Opus get their Ogg pages back (`OggRecordingPager`), FLAC
    /// frames from a native or an Ogg stream follow a header of their own
    /// (`FLACRecordingHeader`), AAC frames from MP4 get ADTS headers (`ADTSHeaderWriter`).
    static func fileExtension(for codec: AudioFormat.Codec) -> String? {
        switch codec {
        case .mp1: "mp1"
        case .mp2: "mp2"
        case .mp3: "mp3"
        case .aac: "aac"
        case .vorbis: "ogg"
        case .opus: "opus"
        case .flac: "flac"
        case .aacRaw: "aac"
        case .pcm: nil
        }
    }

    /// The name of a codec that is not recorded, for the refusal.
    static func name(of codec: AudioFormat.Codec) -> String {
        switch codec {
        case .pcm: "PCM (WAV, AIFF, CAF)"
        case .vorbis: "Ogg Vorbis"
        case .opus: "Ogg Opus"
        case .flac: "FLAC"
        case .aacRaw: "AAC in MP4"
        case .mp1, .mp2, .mp3, .aac: codec.rawValue
        }
    }

    /// A title starts: true when the open file ends here.
    mutating func titleStarts(_ title: StreamTitle) -> Bool {
        self.title = title.title.isEmpty ? nil : title
        return endFile(if: splitsAtTitles)
    }

    /// The audio from here on is in `codec`: true when the open file ends here (in a folder,
    /// a file of another extension; one file takes what comes).
    mutating func codecStarts(_ codec: AudioFormat.Codec) -> Bool {
        let old = self.codec.flatMap(Self.fileExtension)
        self.codec = codec
        return endFile(if: splitsAtTitles && old != Self.fileExtension(for: codec))
    }

    /// The codec's setup from here on is `setup`: true when the open file ends here (in a
    /// folder, a FLAC file's frames cannot change their STREAMINFO; one file takes what comes).
    mutating func setupStarts(_ setup: [UInt8]) -> Bool {
        let old = self.setup
        self.setup = setup
        return endFile(if: splitsAtTitles && old != nil && old != setup)
    }

    /// Audio comes: the file to open first, when none is open (nil for PCM).
    mutating func audioComes(station: StationInfo?) -> NewFile? {
        guard !isFileOpen, let codec, let fileExtension = Self.fileExtension(for: codec) else { return nil }
        isFileOpen = true
        let name = title?.title ?? station?.name
        // Tagged in a folder with the radio title, else (or before the first) the station's name.
        let radioTitle = splitsAtTitles ? title : nil
        let tag: [UInt8]?
        switch codec {
        case .mp1, .mp2, .mp3:
            if let radioTitle {
                tag = ID3TagWriter.tag(for: radioTitle)
            } else {
                tag = station?.name.map { ID3TagWriter.tag(title: $0, artist: nil) }
            }
        case .flac:
            let comment = VorbisCommentWriter.block(radioTitle, orName: station?.name)
            tag = setup.flatMap { FLACRecordingHeader.bytes(streamInfo: $0, comment: comment) }
        case .aac, .pcm, .vorbis, .opus, .aacRaw:
            tag = nil
        }
        return NewFile(
            base: RecordingFileName.base(name ?? RecordingFileName.untitled), fileExtension: fileExtension, tag: tag,
            title: splitsAtTitles ? title : nil)
    }

    private mutating func endFile(if condition: Bool) -> Bool {
        guard condition, isFileOpen else { return false }
        isFileOpen = false
        return true
    }
}
