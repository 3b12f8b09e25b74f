import Testing
@testable import SlipstreamMedia

/// Where an entry points: absolute and relative URLs (RFC 3986), local paths, `file://`.
@Suite struct PlaylistEntryLocationTests {
    static let web = AudioLocation.url("http://a/b/c/d;p?q")

    static func resolve(_ target: String, in base: AudioLocation = web) throws(PlaylistError) -> AudioLocation {
        try PlaylistEntry(target).location(in: base)
    }

    /// RFC 3986's examples (section 5.4.1 and some of 5.4.2).
    @Test(arguments: [
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"), ("..", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"),
        ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("/./g", "http://a/g"), ("g/../h", "http://a/b/c/h"),
        ("https://other:8443/x.mp3", "https://other:8443/x.mp3"), ("HTTP://A/X", "HTTP://A/X"),
        ("sub dir/ü.mp3", "http://a/b/c/sub%20dir/%C3%BC.mp3"),
    ])
    func relativeURLsResolveAsRFC3986Says(_ target: String, _ expected: String) throws {
        #expect(try Self.resolve(target) == .url(expected))
    }

    @Test func localPlaylistsNameFilesFromTheirFolder() throws {
        let base = AudioLocation.file(path: "/music/lists/rock.m3u")
        #expect(try Self.resolve("song.mp3", in: base) == .file(path: "/music/lists/song.mp3"))
        #expect(try Self.resolve("../albums/./a/01.mp3", in: base) == .file(path: "/music/albums/a/01.mp3"))
        #expect(try Self.resolve("/srv/x.mp3", in: base) == .file(path: "/srv/x.mp3"))
        #expect(try Self.resolve("file:///srv/a%20b.mp3", in: base) == .file(path: "/srv/a b.mp3"))
        #expect(try Self.resolve("file://localhost/srv/x.mp3", in: base) == .file(path: "/srv/x.mp3"))
        #expect(try Self.resolve("http://h/x.mp3", in: base) == .url("http://h/x.mp3"))
        #expect(try Self.resolve("song.mp3", in: .file(path: "rock.m3u")) == .file(path: "song.mp3"))
        #expect(try Self.resolve("../song.mp3", in: .file(path: "lists/rock.m3u")) == .file(path: "song.mp3"))
        #expect(try Self.resolve("C:\\Music\\a.mp3", in: base) == .file(path: "/music/lists/C:\\Music\\a.mp3"))
    }

    @Test func entriesThatPointNowhereThePlayerGoesAreBad() {
        let bad = ["file:///etc/passwd", "rtsp://h/x", "mms://h/x", "mailto:a@b", "http://", "http:x", "javascript:alert(1)"]
        for target in bad {
            #expect(throws: PlaylistError.self, "\(target)") { try Self.resolve(target) }
        }
        #expect(throws: PlaylistError.self) { try Self.resolve("file://otherhost/x.mp3", in: .file(path: "/a.m3u")) }
        #expect(throws: PlaylistError.self) { try Self.resolve("ftp://h/x.mp3", in: .file(path: "/a.m3u")) }
    }

    @Test func pathsAreNormalized() {
        #expect(PlaylistEntry.normalized("/a/./b/../c//d/") == "/a/c/d")
        #expect(PlaylistEntry.normalized("/../a") == "/a")
        #expect(PlaylistEntry.normalized("../a/../../b") == "../../b")
        #expect(PlaylistEntry.normalized("./") == ".")
    }
}
