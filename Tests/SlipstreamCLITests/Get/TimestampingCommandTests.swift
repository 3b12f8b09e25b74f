import Foundation
import Testing
import TestSupport

/// `get -N` and `--remote-time` against nginx, which answers `If-Modified-Since` (exact time)
/// and `If-None-Match` with 304.
@Suite struct TimestampingCommandTests {
    func modified(_ path: String) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    /// The ETag kept with a file (read with getfattr, from Debian's attr); nil where the
    /// filesystem keeps none.
    func keptETag(_ path: String) async throws -> String? {
        let read = try await ExternalProgram.output(["getfattr", "--absolute-names", "--only-values", "-n", "user.slipstream.etag", path])
        return read.status == 0 ? read.text : nil
    }

    @Test func aSecondRunFindsTheFileUnchangedAndAChangedOneIsFetchedAgain() async throws {
        let name = "cli-stamp-\(UInt32.random(in: 0...UInt32.max)).bin"
        let source = try TestNginx.makeFile(name, size: 2 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestNginx.url(name)
        let path = folder + "/" + name

        let first = try await CommandRunner.run(["get", "-N", "-n", "4", url], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(TestFiles.equal(path, source))
        // The server's Last-Modified (the source file's time, in whole seconds).
        #expect(try modified(path).timeIntervalSince1970 == modified(source).timeIntervalSince1970.rounded(.down))
        let etag = try await keptETag(path)
        if let etag { #expect(etag.hasPrefix("\"")) }

        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let again = try await CommandRunner.run(["get", "-N", url], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr == "\(name): not modified on the server; left as it is\n")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
        let logged = try TestNginx.requests(to: "/files/\(name)")
        #expect(logged.last?.status == 304)

        // The file on the server changes (new bytes, a new time): fetched and replaced.
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: source))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: source)
        let changed = try await CommandRunner.run(["get", "-q", "-N", url], in: folder)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(TestFiles.equal(path, source))
        #expect(try modified(path).timeIntervalSince1970 == modified(source).timeIntervalSince1970.rounded(.down))
        if etag != nil { #expect(try await keptETag(path) != etag) }
    }

    @Test func remoteTimeAloneStampsTheFileAndAnExistingFileStillNeedsForce() async throws {
        let name = "cli-remote-time.bin"
        let source = try TestNginx.makeFile(name, size: 100_000)
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: source)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(["get", "-q", "--remote-time", try TestNginx.url(name)], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try modified(folder + "/" + name) == old)
        let exists = try await CommandRunner.run(["get", "-q", "--remote-time", try TestNginx.url(name)], in: folder)
        #expect(exists.status == 5)
    }
}
