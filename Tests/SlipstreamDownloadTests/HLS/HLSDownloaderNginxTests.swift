import Foundation
import SlipstreamDownload
import Testing
import TestSupport

/// `HLSDownloader` against the test nginx serving the ffmpeg-made streams of `HLSFixtures`
/// (shared with the command's tests): the joined file is the segments' bytes, in order.
@Suite struct HLSDownloaderNginxTests {
    @Test func transportStreamSegmentsAreJoinedExactly() async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await HLSDownloader().download(from: try HLSFixtures.url("ts", "index.m3u8"), to: folder + "/out.ts")
        #expect(result.segmentCount == 4 && result.fetchedResources == 4)
        let segments = try (0..<4).flatMap { try HLSFixtures.bytes(stream + "/s\($0).ts") }
        #expect(result.bytes == Int64(segments.count))
        let joinedAsExpected = TestFiles.contents(of: folder + "/out.ts", equal: segments)
        #expect(joinedAsExpected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.ts"])
    }

    /// The init section and fragments encrypted with AES-128 (the key before the `EXT-X-MAP`):
    /// the plain stream's bytes.
    @Test func aes128IsDecryptedToThePlainStream() async throws {
        let plain = try await offPool { try HLSFixtures.fragmentedMP4() }
        _ = try await offPool { try HLSFixtures.encryptedFragmentedMP4() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await HLSDownloader().download(from: try HLSFixtures.url("aes-fmp4", "index.m3u8"), to: folder + "/out.mp4")
        let fragments = try FileManager.default.contentsOfDirectory(atPath: plain).filter { $0.hasSuffix(".m4s") }.count
        #expect(result.segmentCount == fragments)
        let expected =
            try HLSFixtures.bytes(plain + "/init.mp4") + (0..<fragments).flatMap { try HLSFixtures.bytes(plain + "/f\($0).m4s") }
        let joinedAsExpected = TestFiles.contents(of: folder + "/out.mp4", equal: expected)
        #expect(joinedAsExpected)
    }

    /// The variant chosen by index, as the player numbers them.
    @Test func theVariantIsChosenByTheSelection() async throws {
        let stream = try await offPool { try HLSFixtures.master() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = HLSDownloadConfiguration()
        configuration.variant = HLSVariantSelection(index: 0)
        let download = try HLSDownloader(configuration: configuration).start(
            try HLSFixtures.url("master", "master.m3u8"), to: folder + "/out.ts")
        let result = try await download.value
        #expect(result.playlistURL.hasSuffix("/v0/index.m3u8"), "\(result.playlistURL)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: stream + "/v0").filter { $0.hasSuffix(".ts") }.count
        let expected = try (0..<segments).flatMap { try HLSFixtures.bytes(stream + "/v0/s\($0).ts") }
        #expect(TestFiles.contents(of: folder + "/out.ts", equal: expected))
    }
}
