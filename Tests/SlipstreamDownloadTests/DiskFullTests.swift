import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

/// A disk that fills up mid-download, on a small tmpfs (root can mount one; elsewhere the
/// writer's own failure path is covered by `DiskWriterTests`).
@Suite(.enabled(if: TmpfsMount.isPossible, "needs root to mount a tmpfs"))
struct DiskFullTests {
    /// Starts a throttled 8 MiB download (16 s at 512 KiB/s: slow enough that no busy machine
    /// finishes it first) into a 12 MiB tmpfs and fills the tmpfs once 1 MiB is in.
    func downloadWhileTheDiskFills(_ mount: TmpfsMount, preallocate: Bool) async throws
        -> (Result<DownloadResult, DownloadError>, path: String) {
        try TestNginx.makeFile("diskfull-8m.bin", size: 8 << 20)
        let path = mount.path + "/d.bin"
        var configuration = DownloadConfiguration()
        configuration.preallocate = preallocate
        let download = try Downloader(configuration: configuration).start(
            try TestNginx.url("diskfull-8m.bin", location: "rate", query: "rate=64k"), to: .file(path))
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes >= 1 << 20 { break }
        }
        try mount.fill(mount.path + "/filler")
        do {
            return (.success(try await download.value), path)
        } catch {
            return (.failure(error), path)
        }
    }

    /// Preallocated (the default): the file and its records have their space from the start,
    /// so a disk that fills up later cannot stop the download.
    @Test func aPreallocatedDownloadFinishesOnAFullDisk() async throws {
        let mount = try TmpfsMount(megabytes: 12)
        defer { mount.unmount() }
        let (result, path) = try await downloadWhileTheDiskFills(mount, preallocate: true)
        _ = try result.get()
        let exact = TestFiles.equal(path, try TestNginx.filesFolder() + "/diskfull-8m.bin")
        #expect(exact)
    }

    /// A sparse file takes space as it fills: a clear error naming the file and the bytes still
    /// needed, a record that still holds, and after space is freed the resume completes it.
    @Test func aSparseDownloadStopsClearlyAndResumesOnceThereIsRoom() async throws {
        let mount = try TmpfsMount(megabytes: 12)
        defer { mount.unmount() }
        let (result, path) = try await downloadWhileTheDiskFills(mount, preallocate: false)
        guard case .failure(let error) = result else { Issue.record("expected the download to fail"); return }
        #expect(error.code == .noSpace)
        #expect(error.message.contains(path + ".part"), "\(error.message)")
        #expect(error.message.contains("still to fetch"), "\(error.message)")
        guard case .record = ResumeStore(partPath: path + ".part").load() else {
            Issue.record("the resume record is not usable")
            return
        }
        try FileManager.default.removeItem(atPath: mount.path + "/filler")
        let resumed = try await Downloader().start(try TestNginx.url("diskfull-8m.bin"), to: .file(path)).value
        #expect(resumed.resumedBytes > 0)
        let exact = TestFiles.equal(path, try TestNginx.filesFolder() + "/diskfull-8m.bin")
        #expect(exact)
    }
}
