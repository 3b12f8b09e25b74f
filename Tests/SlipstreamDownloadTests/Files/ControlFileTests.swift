import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

@Suite struct ControlFileTests {
    func sample() -> ControlFile {
        var record = ControlFile(
            url: "http://example.test/file.iso", size: 1_000_000, etag: "\"abc\"",
            lastModified: "Sun, 29 Nov 2026 15:23:04 GMT", pieceSize: 65_536)
        record.record(ByteRanges([0..<200_000, 500_000..<1_000_000]))
        return record
    }

    @Test func roundTrip() throws {
        let record = sample()
        #expect(try ControlFile(decoding: record.encoded()) == record)
    }

    @Test func onlyWholePiecesAreClaimed() {
        let record = sample()
        // 0..<200000 holds pieces 0...2 (0..<196608); 500000... starts mid-piece 7, so 8... count;
        // the last piece (983040..<1000000) is short and wholly written.
        #expect(record.writtenRanges.ranges == [0..<196_608, 524_288..<1_000_000])
    }

    @Test func pieceSizeGrowsForHugeFiles() {
        #expect(ControlFile.pieceSize(for: 1 << 30) == 64 << 10)
        #expect(ControlFile.pieceSize(for: 1 << 40) == 128 << 10)
        #expect(ControlFile(url: "u", size: 1 << 40, etag: nil, lastModified: nil).bitmap.count <= 1 << 20)
    }

    /// Every single flipped byte and every truncation is detected, never trusted.
    @Test func damageIsDetected() {
        let bytes = sample().encoded()
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x5A
            #expect(throws: ControlFile.DecodingError.self) { try ControlFile(decoding: damaged) }
        }
        for length in 0..<bytes.count {
            #expect(throws: ControlFile.DecodingError.self) { try ControlFile(decoding: Array(bytes[..<length])) }
        }
    }

    @Test func randomBytesNeverDecode() {
        var random = SplitMix64(seed: 3)
        for length in [0, 1, 12, 60, 500] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(throws: ControlFile.DecodingError.self) { try ControlFile(decoding: bytes) }
        }
    }

    @Test func theStoreTrustsTheLiveRecordOnlyInThisBoot() throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let store = ResumeStore(partPath: folder + "/f.part")
        var durable = sample()
        try store.saveDurable(durable)
        var live = durable
        live.record(ByteRanges([0..<1_000_000]))
        try store.saveLive(live)
        #expect(
            store.load()
                == .record(
                    {
                        var l = live; l.bootID = ResumeStore.bootID; return l
                    }()))
        // A live record from another boot is ignored.
        var stale = live
        stale.bootID = [UInt8](repeating: 1, count: 16)
        try ResumeStoreTestAccess.writeRaw(stale.encoded(), to: store.livePath)
        durable.bootID = [UInt8](repeating: 0, count: 16)
        #expect(store.load() == .record(durable))
        // Alone, it is not trusted either, and not taken for nothing (it is removed on a fresh start).
        unlink(store.durablePath)
        guard case .damaged(let reason) = store.load() else {
            Issue.record("a lone live record of another boot should be unusable, not absent")
            return
        }
        #expect(reason.contains(store.livePath))
        store.remove()
        #expect(store.load() == .nothing)
    }

    /// The largest file a record describes has a piece size that fits its 32 bits (a larger
    /// size made a piece of 2^32, which trapped when encoded), and a URL's password is not kept.
    @Test func theLargestFileARecordDescribesEncodesWithoutAPassword() throws {
        #expect(ControlFile.pieceSize(for: ControlFile.maxSize) <= Int64(UInt32.max))
        let record = ControlFile(url: "http://alice:S3cretPW@host/huge", size: ControlFile.maxSize, etag: "\"e\"", lastModified: nil)
        #expect(record.url == "http://alice:***@host/huge")
        #expect(try ControlFile(decoding: record.encoded()) == record)
    }
}

/// Writes raw bytes, for tests that plant records.
enum ResumeStoreTestAccess {
    static func writeRaw(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
