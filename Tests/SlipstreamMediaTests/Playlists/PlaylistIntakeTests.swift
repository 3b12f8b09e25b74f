import Testing
import MediaTestSupport
@testable import SlipstreamMedia

/// A response's first bytes as they come, in any split: handed on as audio at once, or kept
/// whole as a playlist.
@Suite struct PlaylistIntakeTests {
    /// What an intake did with `bytes` in slices of `sizes`: the bytes handed on (held ones
    /// first), or the playlist collected (or refused), and how many slices were held.
    struct Outcome: Equatable {
        var forwarded: [UInt8]?
        var playlist: PlaylistFormat?
        var body: [UInt8]?
        var tooLarge = false
    }

    static func run(_ bytes: [UInt8], type: String? = nil, name: String? = nil, sizes: () -> Int) -> Outcome {
        var intake = PlaylistIntake(contentType: type, name: name)
        var outcome = Outcome()
        var offset = 0
        while offset < bytes.count {
            let count = min(max(sizes(), 1), bytes.count - offset)
            let slice = Array(bytes[offset..<offset + count])
            offset += count
            switch slice.withUnsafeBytes({ intake.take($0) }) {
            case .hold: break
            case .forward(let held): outcome.forwarded = (outcome.forwarded ?? []) + held + slice
            case .collect: break
            case .tooLarge:
                outcome.tooLarge = true
                return outcome
            }
        }
        switch intake.end() {
        case .forward(let held): outcome.forwarded = (outcome.forwarded ?? []) + held
        case .playlist(let format, let body): (outcome.playlist, outcome.body) = (format, body)
        }
        return outcome
    }

    static let cases: [(String, [UInt8], String?, String?)] = [
        ("pls", Array("[playlist]\nFile1=http://a/1\n".utf8), nil, nil),
        ("m3u by name", Array("a.mp3\nb.mp3\n".utf8), nil, "x.m3u"),
        ("mp3", [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0x55, count: 3000), "audio/x-mpegurl", nil),
        ("id3", Array("ID3".utf8) + [4, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 100), nil, "a.pls"),
        ("html", Array(("<html>" + String(repeating: "<p>text</p>", count: 300)).utf8), nil, nil),
        ("short text", Array("ht".utf8), nil, nil),
        ("xspf", Array("<?xml version='1.0'?>\n<playlist><trackList/></playlist>".utf8), nil, nil),
    ]

    @Test(arguments: cases.indices)
    func everySplitGivesTheSameOutcome(_ index: Int) {
        let (_, bytes, type, name) = Self.cases[index]
        let whole = Self.run(bytes, type: type, name: name) { bytes.count }
        var random = SeededRandom(state: UInt64(index))
        #expect(Self.run(bytes, type: type, name: name) { 1 } == whole)
        for _ in 0..<20 {
            #expect(Self.run(bytes, type: type, name: name) { Int.random(in: 1...700, using: &random) } == whole)
        }
        if let forwarded = whole.forwarded { #expect(forwarded == bytes) }
        if let body = whole.body { #expect(body == bytes) }
    }

    @Test func playlistsAndAudioAreToldApart() {
        let outcomes = Self.cases.map { Self.run($0.1, type: $0.2, name: $0.3) { 5 } }
        #expect(outcomes.map(\.playlist) == [.pls, .m3u, nil, nil, nil, nil, .xspf])
    }

    /// Audio is handed on at its first slice: nothing is held, nothing copied.
    @Test func audioIsHandedOnAtTheFirstSlice() {
        var intake = PlaylistIntake(contentType: "audio/mpeg", name: "a.mp3")
        let mp3: [UInt8] = [0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0]
        #expect(mp3.withUnsafeBytes { intake.take($0) } == .forward(held: []))
        #expect(mp3.withUnsafeBytes { intake.take($0) } == .forward(held: []))
        #expect(intake.end() == .forward(held: []))
    }

    /// Found by the fuzzer: a byte order mark cut by the first slice's end was taken for the
    /// start of something else, and a playlist fed a byte at a time was handed on as audio.
    @Test func aByteOrderMarkCutShortWaitsForWhatFollows() {
        let bytes = PlaylistText.byteOrderMark + Array("http://host/stream\n".utf8)
        #expect(Self.run(bytes) { 1 }.playlist == .m3u)
        #expect(Self.run(bytes) { 2 }.playlist == .m3u)
    }

    @Test func aPlaylistOverTheCapIsRefused() {
        let bytes = Array("#EXTM3U\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: Playlist.maximumSize)
        #expect(Self.run(bytes) { 64 * 1024 }.tooLarge)
        let fits = Array("#EXTM3U\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: Playlist.maximumSize - 8)
        #expect(Self.run(fits) { 64 * 1024 }.body?.count == Playlist.maximumSize)
    }
}
