@testable import SlipstreamDownload
import Testing

/// A download's details (pieces, connections) from its machine, without I/O.
@Suite struct DownloadDetailsTests {
    @Test func aPieceIsCompleteWhenEveryByteOfItIsWritten() {
        let mib: Int64 = 1 << 20
        let done = ByteRanges([0..<mib, mib + mib / 2..<3 * mib + 10, 5 * mib..<5 * mib + mib / 2])
        let details = DownloadDetails(pieceLength: mib, totalBytes: 5 * mib + mib / 2, done: done, connections: [])
        #expect(details.numPieces == 6)
        // Pieces 0, 2 and 5 (the last, shorter one): 1010 0100.
        #expect(details.completedPieces == [0xA4])
        #expect((0..<6).map(details.isPieceComplete) == [true, false, true, false, false, true])
        #expect(!details.isPieceComplete(6) && !details.isPieceComplete(-1))
        #expect(details.completedPieceCount == 3)
        #expect(details.completedBytes == done.byteCount)
    }

    @Test func theBitfieldHasABytePerEightPiecesAndZerosAfterTheLast() {
        let details = DownloadDetails(pieceLength: 10, totalBytes: 95, done: ByteRanges([0..<95]), connections: [])
        #expect(details.numPieces == 10)
        #expect(details.completedPieces == [0xFF, 0xC0])
        let empty = DownloadDetails(pieceLength: 10, totalBytes: 0, done: ByteRanges(), connections: [])
        #expect(empty.numPieces == 0 && empty.completedPieces.isEmpty)
        let unknown = DownloadDetails(pieceLength: 10, totalBytes: nil, done: ByteRanges([0..<50]), connections: [])
        #expect(unknown.numPieces == 0 && unknown.completedPieces.isEmpty && unknown.completedBytes == 50)
    }

    @Test func aSegmentedDownloadTellsEachConnectionsRangeSpeedAndBytes() {
        var driver = MachineDriver(
            server: .init(size: 100_000),
            settings: {
                $0.url = "http://alice:secret@h/f"
                $0.connections = 2
            })
        #expect(driver.machine.details(pieceLength: 10_000).numPieces == 0)
        driver.answer(1)
        driver.deliver(1, count: 25_000)
        driver.tick()
        let details = driver.machine.details(pieceLength: 10_000)
        #expect(details.totalBytes == 100_000 && details.completedBytes == 25_000)
        #expect(details.numPieces == 10)
        #expect(details.completedPieces == [0xC0, 0])
        #expect(
            details.connections == [
                .init(url: "http://alice:***@h/f", bytesPerSecond: 50_000, range: 25_000..<50_000, received: 25_000),
                .init(url: "http://alice:***@h/f", bytesPerSecond: 0, range: 50_000..<100_000, received: 0),
            ])
        // After a redirect (as the first answer's URL sets it), the URL given stays apart.
        driver.machine.mirrors[0].url = "http://cdn/f"
        let redirected = driver.machine.details(pieceLength: 10_000).connections.first
        #expect(redirected?.url == "http://cdn/f" && redirected?.givenURL == "http://alice:***@h/f")
        driver.runToEnd()
        driver.checkEnd()
        let end = driver.machine.details(pieceLength: 10_000)
        #expect(end.connections.isEmpty && end.completedPieceCount == 10)
    }

    @Test func aStreamTellsItsOneConnectionAndWhatItWrote() {
        var driver = MachineDriver(server: .init(size: 100_000, ranges: false))
        driver.answer(1)
        driver.deliver(1, count: 30_000)
        let details = driver.machine.details(pieceLength: 10_000)
        #expect(details.totalBytes == 100_000 && details.numPieces == 10)
        #expect(details.completedPieces == [0xE0, 0])
        #expect(details.connections == [.init(url: "http://h/f", bytesPerSecond: 0, range: 30_000..<100_000, received: 30_000)])
    }
}
