import Testing
import MediaTestSupport
@testable import SlipstreamMedia

/// The way through a playlist: order, one level of nesting, loops stopped.
@Suite struct PlaylistWalkTests {
    static func playlist(_ targets: String...) -> Playlist {
        Playlist(format: .m3u, entries: targets.map { PlaylistEntry($0, title: "t-" + $0) })
    }

    static let root = AudioLocation.url("http://h/root.pls")

    @Test func entriesComeInOrderResolvedAgainstTheFinalURL() throws {
        var walk = PlaylistWalk(root: Self.root)
        try walk.follow(Self.playlist("a.mp3", "http://x/b.mp3"), at: Self.root, base: .url("http://cdn/lists/root.pls"))
        #expect(walk.next()?.location == .success(.url("http://cdn/lists/a.mp3")))
        #expect(walk.current?.entry.title == "t-a.mp3")
        #expect(walk.next()?.location == .success(.url("http://x/b.mp3")))
        #expect(walk.next() == nil)
        #expect(walk.tried == 2)
    }

    @Test func aBadEntryComesWithItsError() throws {
        var walk = PlaylistWalk(root: Self.root)
        try walk.follow(Self.playlist("file:///etc/passwd"), at: Self.root, base: Self.root)
        let next = walk.next()
        let entry = try #require(next)
        #expect(entry.location.failure?.code == .badEntry)
        #expect(entry.text == "file:///etc/passwd")
    }

    @Test func aNestedPlaylistsEntriesComeBeforeTheRest() throws {
        var walk = PlaylistWalk(root: Self.root)
        try walk.follow(Self.playlist("inner.m3u", "last.mp3"), at: Self.root, base: Self.root)
        let next = walk.next()
        let inner = try #require(next)
        try walk.follow(Self.playlist("x.mp3", "y.mp3"), at: try inner.location.get(), base: .url("http://h/moved/inner.m3u"))
        #expect(walk.next()?.text == "http://h/moved/x.mp3")
        #expect(walk.current?.depth == 1)
        #expect(walk.next()?.text == "http://h/moved/y.mp3")
        #expect(walk.next()?.text == "http://h/last.mp3")
        #expect(walk.current?.depth == 0)
        #expect(walk.next() == nil)
        #expect(walk.tried == 4)
    }

    @Test func onlyOneLevelIsFollowed() throws {
        var walk = PlaylistWalk(root: Self.root)
        try walk.follow(Self.playlist("one.m3u"), at: Self.root, base: Self.root)
        _ = walk.next()
        try walk.follow(Self.playlist("two.m3u"), at: .url("http://h/one.m3u"), base: .url("http://h/one.m3u"))
        _ = walk.next()
        #expect(walk.current?.depth == 1)
        #expect(throws: PlaylistError.self) {
            try walk.follow(Self.playlist("x.mp3"), at: .url("http://h/two.m3u"), base: .url("http://h/two.m3u"))
        }
        #expect(walk.next() == nil)
    }

    @Test func playlistsThatListEachOtherAreStopped() throws {
        let a = AudioLocation.url("http://h/a.m3u"), b = AudioLocation.url("http://h/b.m3u")
        var walk = PlaylistWalk(root: a)
        try walk.follow(Self.playlist("b.m3u"), at: a, base: a)
        #expect(walk.next()?.location == .success(b))
        try walk.follow(Self.playlist("a.m3u"), at: b, base: b)
        #expect(walk.next()?.location == .success(a))
        #expect(throws: PlaylistError.self) { try walk.follow(Self.playlist("b.m3u"), at: a, base: a) }
        #expect(walk.next() == nil)
        #expect(walk.tried == 2)
    }

    @Test func aPlaylistThatListsItselfIsStoppedAlsoByAnotherPath() throws {
        let root = AudioLocation.file(path: "/m/list.m3u")
        var walk = PlaylistWalk(root: root)
        try walk.follow(Self.playlist("./sub/../list.m3u"), at: root, base: root)
        let next = walk.next()
        let again = try #require(next)
        #expect(again.location == .success(.file(path: "/m/list.m3u")))
        #expect(throws: PlaylistError.self) { try walk.follow(Self.playlist("x.mp3"), at: try again.location.get(), base: root) }
    }

    /// A redirect to a playlist already opened is a loop too.
    @Test func aRedirectToAPlaylistOpenedIsALoop() throws {
        var walk = PlaylistWalk(root: Self.root)
        try walk.follow(Self.playlist("other.pls"), at: Self.root, base: .url("http://cdn/root.pls"))
        _ = walk.next()
        #expect(throws: PlaylistError.self) {
            try walk.follow(Self.playlist("x.mp3"), at: .url("http://h/other.pls"), base: .url("http://cdn/root.pls"))
        }
    }
}
