import Testing
@testable import SlipstreamDownload

/// libcurl's receive buffers of a download's connections share one budget: together they stop
/// growing once each is at its smallest, and no buffer is smaller than that or larger than
/// one fast connection uses. The writer's slots keep their size whatever the share.
@Suite struct ReceiveBufferTests {
    static let url = "http://127.0.0.1/file.bin"

    @Test(arguments: [1, 2, 4, 8, 16, 32, 64])
    func buffersShareOneBudget(connections: Int) {
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        let size = configuration.request(Self.url, range: nil, loginOrigins: []).receiveBufferSize
        let sizes = DownloadConfiguration.receiveBufferSizes
        #expect(sizes.contains(size))
        #expect(size * connections <= max(DownloadConfiguration.receiveBufferBudget, connections * sizes.lowerBound))
        #expect(connections > 4 || size == sizes.upperBound, "up to four connections each get a full buffer")
        #expect(configuration.writerSlots(for: Self.url).size == sizes.upperBound)
    }

    @Test func aRateLimitMakesSlicesSmaller() {
        var configuration = DownloadConfiguration()
        configuration.connections = 1
        configuration.bytesPerSecondLimit = 64 << 10
        let size = configuration.request(Self.url, range: nil, loginOrigins: []).receiveBufferSize
        #expect(size < DownloadConfiguration.receiveBufferSizes.upperBound)
        #expect(configuration.writerSlots(for: Self.url).size == size)
    }
}
