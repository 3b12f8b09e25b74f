@testable import SlipstreamDownload
import Testing

/// Which downloads of a queue write one file: what `add` refuses, alone.
@Suite struct QueueTargetsTests {
    static func id(_ number: Int) -> DownloadQueue.ID { DownloadQueue.ID(rawValue: number) }

    static func request(_ destination: DownloadDestination, url: String = "http://h.test/a.bin") -> DownloadQueue.Request {
        DownloadQueue.Request(url: url, destination: destination)
    }

    @Test(arguments: [
        ("a.bin", "./a.bin"), ("dir/a.bin", "dir//a.bin"), ("/x/./a.bin", "/x/a.bin"), ("dir/", "dir"),
    ])
    func oneFileWrittenAsTwoPathsIsOne(first: String, second: String) {
        var targets = QueueTargets()
        targets.claim(Self.request(.file(first)), for: Self.id(1))
        #expect(targets.owner(of: Self.request(.file(second), url: "http://other.test/b.bin")) == Self.id(1))
    }

    @Test func theSameURLIntoTheSameFolderIsOneFileAndOthersAreNot() {
        var targets = QueueTargets()
        targets.claim(Self.request(.folder("downloads")), for: Self.id(1))
        #expect(targets.owner(of: Self.request(.folder("./downloads/"))) == Self.id(1))
        // Another URL's name is known only once its server answers; another folder is another file.
        #expect(targets.owner(of: Self.request(.folder("downloads"), url: "http://h.test/b.bin")) == nil)
        #expect(targets.owner(of: Self.request(.folder("elsewhere"))) == nil)
        #expect(targets.owner(of: Self.request(.file("downloads/a.bin"))) == nil)
    }

    @Test func aFinalPathOnceKnownIsTaken() {
        var targets = QueueTargets()
        targets.claim(Self.request(.folder("downloads")), for: Self.id(1))
        targets.claim(path: "downloads/named-by-server.bin", for: Self.id(1))
        #expect(targets.owner(of: Self.request(.file("downloads/named-by-server.bin"), url: "http://h.test/c.bin")) == Self.id(1))
    }

    @Test func anEndedDownloadFreesItsFilesAndStreamsShareNone() {
        var targets = QueueTargets()
        targets.claim(Self.request(.file("a.bin")), for: Self.id(1))
        targets.claim(path: "a.bin", for: Self.id(1))
        targets.release(Self.id(1))
        #expect(targets.owner(of: Self.request(.file("a.bin"))) == nil)
        #expect(targets == QueueTargets())
        targets.claim(Self.request(.stream(fileDescriptor: 1)), for: Self.id(2))
        #expect(targets.owner(of: Self.request(.stream(fileDescriptor: 1))) == nil)
    }
}
