import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

/// A disk that fills up mid-download, on a small tmpfs (root can mount one; elsewhere the
/// writer's own failure path is covered by `DiskWriterTests`).
@Suite(.enabled(if: TmpfsMount.isPossible, "needs root to mount a tmpfs"))
struct DiskFullTests {
    /// Starts an 8 MiB download into a 12 MiB tmpfs from a server that holds every response
    /// after 256 KiB; fills the tmpfs once 1 MiB is in, then lets the server carry on.
    func downloadWhileTheDiskFills(_ mount: TmpfsMount, preallocate: Bool) async throws
        -> (Result<DownloadResult, DownloadError>, path: String, content: [UInt8])
    {
        let content = TestFiles.randomBytes(8 << 20, seed: 21)
        let gate = Gate()
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            response.holdAfter = 256 << 10
            response.gate = gate
            return response
        }
        defer { server.stop() }
        let path = mount.path + "/d.bin"
        var configuration = DownloadConfiguration.heldAtAGate
        configuration.preallocate = preallocate
        let download = try Downloader(configuration: configuration).start(server.url("/d.bin"), to: .file(path))
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes >= 1 << 20 { break }
        }
        try mount.fill(mount.path + "/filler")
        gate.open()
        do {
            return (.success(try await download.value), path, content)
        } catch {
            return (.failure(error), path, content)
        }
    }

    /// Preallocated (the default): the file and its records have their space from the start,
    /// so a disk that fills up later cannot stop the download.
    @Test func aPreallocatedDownloadFinishesOnAFullDisk() async throws {
        let mount = try TmpfsMount(megabytes: 12)
        defer { mount.unmount() }
        let (result, path, content) = try await downloadWhileTheDiskFills(mount, preallocate: true)
        _ = try result.get()
        let exact = TestFiles.contents(of: path, equal: content)
        #expect(exact)
    }

    /// A sparse file takes space as it fills: a clear error naming the file and the bytes still
    /// needed, a record that still holds, and after space is freed the resume completes it.
    @Test func aSparseDownloadStopsClearlyAndResumesOnceThereIsRoom() async throws {
        let mount = try TmpfsMount(megabytes: 12)
        defer { mount.unmount() }
        let (result, path, content) = try await downloadWhileTheDiskFills(mount, preallocate: false)
        guard case .failure(let error) = result else { Issue.record("expected the download to fail"); return }
        #expect(error.code == .noSpace)
        #expect(error.message.contains(path + ".part"), "\(error.message)")
        #expect(error.message.contains("still to fetch"), "\(error.message)")
        guard case .record = ResumeStore(partPath: path + ".part").load() else {
            Issue.record("the resume record is not usable")
            return
        }
        try FileManager.default.removeItem(atPath: mount.path + "/filler")
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let resumed = try await Downloader().start(server.url("/d.bin"), to: .file(path)).value
        #expect(resumed.resumedBytes > 0)
        let exact = TestFiles.contents(of: path, equal: content)
        #expect(exact)
    }

    /// A small file (held in memory and written at its end, without reservation or records) on a disk
    /// with no room: the same clear error naming the file; nothing half-written is left as the
    /// file itself.
    @Test func aSmallFileOnAFullDiskFailsClearly() async throws {
        let mount = try TmpfsMount(megabytes: 4)
        defer { mount.unmount() }
        let content = TestFiles.randomBytes(200 << 10, seed: 22)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        try mount.fill(mount.path + "/filler")
        let path = mount.path + "/s.bin"
        do {
            _ = try await Downloader().start(server.url("/s.bin"), to: .file(path)).value
            Issue.record("expected the download to fail")
        } catch {
            #expect(error.code == .noSpace, "\(error)")
            #expect(error.message.contains(path + ".part"), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A file larger than the disk's free space: its reservation fails before a byte is
    /// written, so nothing is left (an empty `.part` was, with the advice to resume from it).
    @Test func aFileLargerThanTheFreeSpaceLeavesNothing() async throws {
        let mount = try TmpfsMount(megabytes: 4)
        defer { mount.unmount() }
        let content = TestFiles.randomBytes(8 << 20, seed: 23)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let path = mount.path + "/big.bin"
        do {
            _ = try await Downloader().start(server.url("/big.bin"), to: .file(path)).value
            Issue.record("expected the download to fail")
        } catch {
            #expect(error.code == .noSpace, "\(error)")
            #expect(error.resumableFile == nil, "\(error)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: mount.path)
        #expect(left.isEmpty, "\(left)")
    }
}
