// The libFuzzer target for playlists: the recognizer, the intake that tells a response's first
// bytes apart as they arrive, the M3U, PLS and XSPF parsers, the resolution of entries and the
// walk through them, the HLS playlist reader with its choice of variant and the plan of a
// download (`checkHLSDownloadPlan`). Each input is one response body. Every broken invariant is
// a `require`.

import FuzzSupport
@testable import SlipstreamMedia

/// Called by libFuzzer with each input.
func fuzzPlaylist(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzInput(data, size)
    var random = SplitMix64(seed: UInt64(bytes.first ?? 0) | UInt64(bytes.count) << 8)
    let types: [String?] = [nil, "audio/x-mpegurl", "audio/x-scpls", "application/xspf+xml", "text/html"]
    let names: [String?] = [nil, "a.m3u8", "a.pls", "a.xspf", "a.mp3"]
    let type = types[Int(random.next() % UInt64(types.count))], name = names[Int(random.next() % UInt64(names.count))]
    let format = checkIntake(bytes, type: type, name: name, random: &random)
    for each in [PlaylistFormat.m3u, .pls, .xspf] {
        checkPlaylist(bytes, format: each, followed: each == format)
    }
    checkHLS(bytes, maximumBitRate: Int64(random.next() % 400_000))
    checkHLSDownloadPlan(bytes)
    return 0
}

/// Reading the input as an HLS playlist: bounded, consistent segments (sequence numbers in
/// order, durations and byte ranges in range, 16-byte IVs) and a variant choice that names one
/// of the playlist's own URIs; or a clear error.
func checkHLS(_ bytes: [UInt8], maximumBitRate: Int64) {
    let playlist: HLSPlaylist
    do {
        playlist = try HLSPlaylistParser.parse(bytes)
    } catch {
        require(!error.message.isEmpty, "an empty message for \(error.code)")
        require(error.code == .malformed || (error.code == .tooLarge && bytes.count > HLSPlaylistParser.maximumSize), "\(error.code)")
        return
    }
    switch playlist {
    case .master(let master):
        require(!master.variants.isEmpty && master.variants.count <= HLSPlaylistParser.maximumVariants, "\(master.variants.count) variants")
        require(master.renditions.count <= HLSPlaylistParser.maximumVariants, "\(master.renditions.count) renditions")
        let choice = HLSVariantChoice.choose(master, maximumBitRate: maximumBitRate)
        require(choice != nil, "no choice among \(master.variants.count) variants")
        let uris = Set(master.variants.map(\.uri) + master.renditions.compactMap(\.uri))
        require(uris.contains(choice!.uri), "the choice \(choice!.uri) is not in the playlist")
    case .media(let media):
        require(media.segments.count <= HLSPlaylistParser.maximumSegments, "\(media.segments.count) segments")
        require(media.targetDuration >= 0 && media.mediaSequence >= 0, "a negative target or sequence")
        for (segment, next) in zip(media.segments, media.segments.dropFirst()) {
            require(next.sequence >= segment.sequence, "sequence numbers out of order")
            require(next.discontinuitySequence >= segment.discontinuitySequence, "discontinuities out of order")
        }
        for segment in media.segments {
            require(segment.duration.isFinite && segment.duration >= 0, "a duration of \(segment.duration)")
            require(!segment.uri.isEmpty, "an empty URI")
            if let range = segment.byteRange {
                require(range.length > 0 && range.offset >= 0 && range.offset <= Int64.max - range.length, "a byte range of \(range)")
            }
            require(segment.key?.iv.map { $0.count == 16 } ?? true, "an IV not of 16 bytes")
        }
    }
}

/// The intake fed the input whole and in random slices agrees with itself and with the
/// recognizer, hands on every byte of what is not a playlist and keeps every byte of one;
/// returns the format it found, if any.
func checkIntake(_ bytes: [UInt8], type: String?, name: String?, random: inout SplitMix64) -> PlaylistFormat? {
    let whole = intake(bytes, type: type, name: name) { _ in bytes.count }
    let largest = [1, 7, 100, 2000][Int(random.next() % 4)]
    let split = intake(bytes, type: type, name: name) { Int.random(in: 1...largest, using: &$0) }
    require(split == whole, "a split changed the intake's outcome: \(split) against \(whole)")
    let verdict = bytes.withUnsafeBytes { PlaylistRecognizer.recognize($0, isComplete: true, contentType: type, name: name) }
    require(verdict != .needMore, "a complete head still needs more")
    switch whole {
    case .forwarded(let forwarded):
        require(forwarded == bytes, "bytes that are not a playlist were not all handed on")
        require(verdict == .notPlaylist || bytes.count > PlaylistRecognizer.headLimit, "the recognizer found \(verdict)")
        return nil
    case .playlist(let format, let body):
        require(body == bytes, "the playlist's body is not the bytes")
        require(verdict == .playlist(format) || bytes.count > PlaylistRecognizer.headLimit, "the recognizer found \(verdict)")
        return format
    case .tooLarge:
        require(bytes.count > Playlist.maximumSize, "a playlist of \(bytes.count) bytes was too large")
        return nil
    }
}

/// What an intake made of a body.
enum IntakeOutcome: Equatable {
    case forwarded([UInt8])
    case playlist(PlaylistFormat, [UInt8])
    case tooLarge
}

func intake(_ bytes: [UInt8], type: String?, name: String?, _ size: (inout SplitMix64) -> Int) -> IntakeOutcome {
    var random = SplitMix64(seed: UInt64(bytes.count))
    var intake = PlaylistIntake(contentType: type, name: name)
    var forwarded: [UInt8]?
    var start = 0
    while start < bytes.count {
        let end = min(start + max(size(&random), 1), bytes.count)
        let slice = Array(bytes[start..<end])
        start = end
        switch slice.withUnsafeBytes({ intake.take($0) }) {
        case .hold, .collect: break
        case .forward(let held): forwarded = (forwarded ?? []) + held + slice
        case .tooLarge: return .tooLarge
        }
    }
    switch intake.end() {
    case .forward(let held): return .forwarded((forwarded ?? []) + held)
    case .playlist(let format, let body):
        require(forwarded == nil, "a playlist after bytes were handed on")
        return .playlist(format, body)
    }
}

/// Reading the input as `format`: bounded entries with readable targets and titles, or a clear
/// error; each entry resolves (or is refused) against a URL and a file; the walk hands out
/// every entry once.
func checkPlaylist(_ bytes: [UInt8], format: PlaylistFormat, followed: Bool) {
    let playlist: Playlist
    do {
        playlist = try Playlist.read(bytes, format: format)
    } catch {
        require(!error.message.isEmpty, "an empty message for \(error.code)")
        require(error.code != .tooLarge || bytes.count > Playlist.maximumSize, "too large at \(bytes.count) bytes")
        require(error.code != .hls || format == .m3u, "HLS found in \(format)")
        return
    }
    require(bytes.count <= Playlist.maximumSize, "a playlist of \(bytes.count) bytes was read")
    require(!playlist.entries.isEmpty && playlist.entries.count <= Playlist.maximumEntries, "\(playlist.entries.count) entries")
    for entry in playlist.entries {
        for text in [entry.target] + (entry.title.map { [$0] } ?? []) {
            require(!text.isEmpty && text.utf8.count <= 4 * Playlist.maximumLineLength, "an empty or huge value")
            require(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }, "a control character")
        }
        require(entry.title?.isEmpty != true, "an empty title")
        checkLocation(entry)
    }
    guard followed else { return }
    let root = AudioLocation.url("http://host/dir/list")
    var walk = PlaylistWalk(root: root)
    do {
        try walk.follow(playlist, at: root, base: root)
    } catch {
        fatalError("the first playlist was not followed: \(error)")
    }
    var count = 0
    while walk.next() != nil { count += 1 }
    require(count == playlist.entries.count && walk.tried == count, "the walk gave \(count) of \(playlist.entries.count)")
}

/// An entry of a playlist from the network is an http(s) URL or refused; one of a local
/// playlist is a URL or a path.
func checkLocation(_ entry: PlaylistEntry) {
    if let location = try? entry.location(in: .url("http://host/dir/list")) {
        guard case .url(let url) = location else { fatalError("a playlist from the network named a file: \(location)") }
        let start = url.prefix(8).lowercased()
        require(start.hasPrefix("http://") || start.hasPrefix("https://"), "not an http(s) URL: \(url)")
    }
    if case .file(let path)? = try? entry.location(in: .file(path: "/music/list.m3u")) {
        require(!path.isEmpty && path == PlaylistEntry.normalized(path), "a path not normalized: \(path)")
    }
}

/// First inputs: one playlist of each kind, an HLS one, and near misses.
let playlistSeeds: [[UInt8]] =
    [
        "#EXTM3U\n#EXTINF:123,Artist - Title\nhttp://a/1.mp3\n#EXTINF:-1 tvg-name=\"A, B\",Two\r\nrelative/2.mp3\r\n",
        "[playlist]\nNumberOfEntries=2\nFile1=http://a/1\nTitle1=One\nfile3=../3.mp3\nLength1=-1\nVersion=2\n",
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>
        <track><title>A &amp; B</title><location>http://a/1.mp3</location><location>file:///x.mp3</location></track>
        <track><location><![CDATA[rel/2.mp3]]></location></track></trackList></playlist>
        """,
        "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nseg0.ts\n",
        """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",DEFAULT=YES,URI="en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="a",RESOLUTION=640x360
        video.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.5"
        audio.m3u8
        """,
        """
        #EXTM3U
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:100
        #EXT-X-KEY:METHOD=AES-128,URI="k.bin",IV=0x000102030405060708090a0b0c0d0e0f
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXTINF:6.006,Title
        #EXT-X-BYTERANGE:1000@720
        main.mp4
        #EXT-X-DISCONTINUITY
        #EXTINF:5.5,
        #EXT-X-BYTERANGE:900
        main.mp4
        #EXT-X-ENDLIST
        """,
        "\u{FEFF}http://host/stream\n//other/x\n?q=1\nC:\\Music\\a.mp3\n",
        "<!DOCTYPE html><html><body>no</body></html>",
    ].map { Array($0.utf8) } + [[0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0], Array("ID3".utf8) + [4, 0, 0, 0, 0, 0]]
