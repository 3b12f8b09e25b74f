import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

/// A download to a stream destination from the library, against nginx: the bytes come out of
/// a pipe in order, exact, from several connections through a ring much smaller than the file.
@Suite struct StreamDownloadTests {
    @Test func aSegmentedDownloadComesOutOfAPipeExact() async throws {
        let size = 24 << 20
        let source = try await TestNginx.makeFileOffPool("stream-24m.bin", size: size)
        let reader = try OrderedWriterTests.PipeReader()
        reader.startReading()
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.streamBufferSize = 1 << 20
        // Limited per connection, so that the connections run side by side and out of order.
        let url = try TestNginx.url("stream-24m.bin", location: "rate", query: "rate=16m")
        let result = try await Downloader(configuration: configuration)
            .download(from: try #require(URL(string: url)), to: .stream(fileDescriptor: reader.writeEnd))
        #expect(result.segmented)
        #expect(result.bytes == Int64(size))
        #expect(result.path == "/dev/fd/\(reader.writeEnd)")
        let bytes = try await offPool { reader.finish() }
        let expected = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(bytes.count == size)
        let exact = bytes.elementsEqual(expected)
        #expect(exact)
    }

    @Test func aChecksumIsRefusedForAStream() async throws {
        var configuration = DownloadConfiguration()
        configuration.checksum = try Checksum(parsing: "sha256=" + String(repeating: "0", count: 64))
        let url = try #require(URL(string: try TestNginx.url("stream-24m.bin")))
        await #expect(throws: DownloadError.self) {
            _ = try await Downloader(configuration: configuration).download(from: url, to: .standardOutput)
        }
    }
}
