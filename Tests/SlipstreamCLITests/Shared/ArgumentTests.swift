import Testing
@testable import slipstream
import SlipstreamDownload

@Suite struct ArgumentTests {
    @Test func everySpellingOfAnOption() throws {
        let options = try GetOptions.parse([
            "-n8", "--min-split-size=2M", "-H", "X-A: 1", "--header=X-B:2", "--user-agent", "ua",
            "--connect-timeout", "2.5", "-k", "--proxy", "socks5h://127.0.0.1:9", "--", "-weird-url",
        ])
        #expect(options.url == "-weird-url")
        #expect(options.configuration.connections == 8)
        #expect(options.configuration.minimumSplitSize == 2 << 20)
        #expect(options.configuration.headers["x-a"] == "1")
        #expect(options.configuration.headers["X-B"] == "2")
        #expect(options.configuration.userAgent == "ua")
        #expect(options.configuration.connectTimeout == .seconds(2.5))
        #expect(!options.access.security.verifiesPeer)
        #expect(options.configuration.proxy == "socks5h://127.0.0.1:9")
    }

    @Test(arguments: [("512K", 512 << 10), ("1m", 1 << 20), ("3G", 3 << 30), ("4096", 4096)] as [(String, Int64)])
    func sizes(text: String, bytes: Int64) throws {
        #expect(try CommandLineArguments.byteSize(text, for: "--x") == bytes)
    }

    @Test func formatting() {
        #expect(Formatting.bytes(0) == "0 B")
        #expect(Formatting.bytes(1023) == "1023 B")
        #expect(Formatting.bytes(1536) == "1.50 KiB")
        #expect(Formatting.bytes(200 << 20) == "200 MiB")
        #expect(Formatting.duration(65) == "1:05")
        #expect(Formatting.duration(3723) == "1:02:03")
        #expect(Formatting.duration(nil) == "--:--")
        let line = Formatting.progressLine(
            DownloadProgress(
                completedBytes: 512 << 20, totalBytes: 1 << 30, bytesPerSecond: Double(64 << 20), activeConnections: 8))
        #expect(line == " 50%  512 MiB / 1.00 GiB  64.0 MiB/s  ETA 0:08  8 connections")
        let unknown = Formatting.progressLine(
            DownloadProgress(
                completedBytes: 10, totalBytes: nil, bytesPerSecond: 0, activeConnections: 1))
        #expect(unknown == "10 B  0 B/s  1 connection")
    }
}
