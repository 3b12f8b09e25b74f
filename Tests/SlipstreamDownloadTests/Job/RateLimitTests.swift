import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

/// Rate limits on real downloads from nginx. Only lower bounds on time are checked, the ones
/// no machine can break: a limit of R with a bucket of D bytes lets at most D + R × t bytes
/// through in t seconds.
@Suite struct RateLimitTests {
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }

    /// At least the time `bytes` take at `rate` after a full bucket.
    static func floor(bytes: Int, rate: Int) -> Double {
        (Double(bytes) - Double(rate) * RateLimiter.depthSeconds) / Double(rate)
    }

    @Test(arguments: [1, 4])
    func aDownloadIsHeldToItsOwnLimit(connections: Int) async throws {
        let size = 3 << 20
        let source = try TestNginx.makeFile("limit-3m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        configuration.minimumSplitSize = 256 << 10
        configuration.bytesPerSecondLimit = 2 << 20
        let start = ContinuousClock.now
        let result = try await Downloader(configuration: configuration)
            .start(try TestNginx.url("limit-3m.bin"), to: .file(folder + "/out.bin")).value
        #expect(Self.seconds(since: start) >= Self.floor(bytes: size, rate: 2 << 20))
        #expect(TestFiles.equal(result.path, source))
        #expect(result.bytesReceived == Int64(size))
    }

    @Test func downloadsSharingALimiterAreHeldToItTogether() async throws {
        let size = 2 << 20
        let sources = try (1...3).map { try TestNginx.makeFile("shared-limit-\($0).bin", size: size) }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.minimumSplitSize = 256 << 10
        configuration.sharedRateLimiter = RateLimiter(bytesPerSecond: 4 << 20)
        let downloader = Downloader(configuration: configuration)
        let start = ContinuousClock.now
        let downloads = try (1...3).map { index in
            try downloader.start(try TestNginx.url("shared-limit-\(index).bin"), to: .file(folder + "/\(index).bin"))
        }
        for (download, source) in zip(downloads, sources) {
            let result = try await download.value
            #expect(TestFiles.equal(result.path, source))
        }
        #expect(Self.seconds(since: start) >= Self.floor(bytes: 3 * size, rate: 4 << 20))
    }

    @Test func theLowerOfTheOwnAndTheSharedLimitHolds() async throws {
        let size = 3 << 20
        let source = try TestNginx.makeFile("limit-3m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.bytesPerSecondLimit = 8 << 20
        configuration.sharedRateLimiter = RateLimiter(bytesPerSecond: 2 << 20)
        let start = ContinuousClock.now
        let result = try await Downloader(configuration: configuration)
            .start(try TestNginx.url("limit-3m.bin"), to: .file(folder + "/out.bin")).value
        #expect(Self.seconds(since: start) >= Self.floor(bytes: size, rate: 2 << 20))
        #expect(TestFiles.equal(result.path, source))
    }

    /// A limit lowered while the download runs holds the rest of it: at most the bucket and one
    /// slice (libcurl's 128 KiB) pass sooner. Its details meanwhile name the file's pieces and
    /// its one connection.
    @Test func aLimitLoweredWhileRunningHoldsTheRest() async throws {
        let size = 2 << 20
        let source = try TestNginx.makeFile("limit-change-2m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.connections = 1
        configuration.bytesPerSecondLimit = 4 << 20
        let url = try TestNginx.url("limit-change-2m.bin")
        let download = try Downloader(configuration: configuration).start(url, to: .file(folder + "/out.bin"))
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes >= 256 << 10 { break }
        }
        let rate = 512 << 10
        download.setBytesPerSecondLimit(Int64(rate))
        let start = ContinuousClock.now
        let done = Int(download.progress.completedBytes)
        let details = download.details
        #expect(details.totalBytes == Int64(size) && details.numPieces == 2 && details.pieceLength == 1 << 20)
        #expect(details.connections.count <= 1 && details.connections.allSatisfy { $0.url == url })
        let result = try await download.value
        #expect(Self.seconds(since: start) >= Self.floor(bytes: size - done - (128 << 10), rate: rate))
        #expect(TestFiles.equal(result.path, source))
        #expect(download.details.completedPieces == [0xC0])
    }

    @Test func aStreamWithoutRangesIsHeldToTheLimitToo() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Compressed on the fly: no length, no ranges, one connection.
        let text = String(repeating: "rate limited text ", count: 200_000)
        try text.write(toFile: try TestNginx.filesFolder() + "/limit-text.txt", atomically: true, encoding: .utf8)
        var configuration = DownloadConfiguration()
        configuration.headers.add(name: "Accept-Encoding", value: "gzip")
        configuration.bytesPerSecondLimit = 64 << 10
        let download = try Downloader(configuration: configuration)
            .start(try TestNginx.url("limit-text.txt", location: "gzip"), to: .file(folder + "/text.gz"))
        let start = ContinuousClock.now
        let result = try await download.value
        #expect(!result.segmented)
        #expect(Self.seconds(since: start) >= Self.floor(bytes: Int(result.bytes), rate: 64 << 10))
    }
}
