import Foundation
import Testing
import TestSupport

@testable import SlipstreamDownload
@testable import SlipstreamMedia

/// The join of downloaded resources, from files a test writes (no network): pieces in order,
/// byte ranges, leading ID3 tags, AES-128, and the errors of resources that do not fit.
@Suite struct HLSJoinerTests {
    /// A plan of `resources` (segment files, then keys), whose pieces `pieces` makes.
    private static func plan(segments: Int, keys: Int = 0, _ pieces: [HLSDownloadPlan.Piece]) -> HLSDownloadPlan {
        var plan = HLSDownloadPlan(playlistURL: "http://h.test/index.m3u8")
        plan.resources = (0..<segments).map { .init(url: "http://h.test/s\($0).ts", kind: .segment) }
        plan.resources += (0..<keys).map { .init(url: "http://h.test/k\($0).key", kind: .key) }
        plan.pieces = pieces
        plan.segmentCount = pieces.filter(\.isSegment).count
        return plan
    }

    private static func segment(_ resource: Int, _ range: (offset: Int64, length: Int64)? = nil, key: Int? = nil) -> HLSDownloadPlan.Piece {
        .init(
            resource: resource, offset: range?.offset, length: range?.length,
            decryption: key.map { .init(key: $0, iv: HLSDecryptorTests.iv) }, isSegment: true, sequence: Int64(resource))
    }

    /// Writes `files` (resource `i` as `folder/i`) and joins `plan` into `folder/out`.
    private static func join(_ plan: HLSDownloadPlan, _ files: [[UInt8]]) throws -> (Result<Int64, DownloadError>, String) {
        let folder = try TestFiles.makeTemporaryFolder()
        for (index, bytes) in files.enumerated() { try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/\(index)")) }
        let result = Result { () throws(DownloadError) in try HLSJoiner.join(plan, path: { "\(folder)/\($0)" }, to: folder + "/out") }
        return (result, folder + "/out")
    }

    @Test func piecesAreWrittenInOrderAndByteRangesCut() throws {
        let a = TestFiles.fastRandomBytes(3000, seed: 1), b = TestFiles.fastRandomBytes(5000, seed: 2)
        let plan = Self.plan(segments: 2, [Self.segment(1, (100, 200)), Self.segment(0), Self.segment(1, (4000, 1000))])
        let (result, out) = try Self.join(plan, [a, b])
        #expect(try result.get() == 4200)
        #expect(TestFiles.contents(of: out, equal: Array(b[100..<300]) + a + Array(b[4000...])))
    }

    /// Packed audio: the first segment keeps its ID3 timestamp, later ones lose theirs.
    @Test func aLaterSegmentsLeadingTagIsDropped() throws {
        let tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 20] + Array(repeating: 7, count: 20)
        let audio = [UInt8](repeating: 0xAA, count: 100)
        let plan = Self.plan(segments: 2, [Self.segment(0), Self.segment(1)])
        let (result, out) = try Self.join(plan, [tag + audio, tag + audio])
        #expect(try result.get() == Int64(tag.count + 2 * audio.count))
        #expect(TestFiles.contents(of: out, equal: tag + audio + audio))
    }

    @Test func aes128PiecesAreDecrypted() throws {
        let plan = Self.plan(segments: 1, keys: 1, [Self.segment(0, key: 1)])
        let (result, out) = try Self.join(plan, [HLSDecryptorTests.encrypted, HLSDecryptorTests.key])
        #expect(try result.get() == Int64(HLSDecryptorTests.plain.count))
        #expect(TestFiles.contents(of: out, equal: HLSDecryptorTests.plain))
    }

    @Test func aResourceThatDoesNotFitThePlanIsAnInvalidStream() throws {
        let pastTheEnd = Self.plan(segments: 1, [Self.segment(0, (10, 100))])
        let (past, _) = try Self.join(pastTheEnd, [[UInt8](repeating: 1, count: 50)])
        #expect(past.failure?.code == .invalidStream)
        #expect(past.failure?.message.contains("the byte range 100@10 of segment 0 (http://h.test/s0.ts) is past its end") == true)

        let encrypted = Self.plan(segments: 1, keys: 1, [Self.segment(0, key: 1)])
        let (shortKey, _) = try Self.join(encrypted, [HLSDecryptorTests.encrypted, Array(HLSDecryptorTests.key.prefix(8))])
        #expect(shortKey.failure?.code == .invalidStream)
        #expect(shortKey.failure?.message.contains("not 16 bytes long") == true)
        let (cut, _) = try Self.join(encrypted, [Array(HLSDecryptorTests.encrypted.prefix(40)), HLSDecryptorTests.key])
        #expect(cut.failure?.code == .invalidStream)
        #expect(cut.failure?.message.hasPrefix("segment 0 (http://h.test/s0.ts): ") == true)
    }

    @Test func aMissingResourceIsADiskError() throws {
        let plan = Self.plan(segments: 2, [Self.segment(0), Self.segment(1)])
        let (result, _) = try Self.join(plan, [[1, 2, 3]])
        #expect(result.failure?.code == .disk)
        #expect(result.failure?.message.contains("cannot open the downloaded segment 1 (http://h.test/s1.ts)") == true)
    }

    @Test func leadingID3TagSize() {
        let tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 1, 2] + Array(repeating: 0, count: 130)
        #expect(tag.withUnsafeBytes { HLSJoiner.leadingTagSize($0) } == 10 + 130)
        let footer: [UInt8] = Array("ID3".utf8) + [4, 0, 0x10, 0, 0, 0, 5]
        #expect(footer.withUnsafeBytes { HLSJoiner.leadingTagSize($0) } == 25)
        let adts: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0, 0x1F, 0xFC, 0, 0, 0]
        #expect(adts.withUnsafeBytes { HLSJoiner.leadingTagSize($0) } == nil)
        let bad: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0x80, 0, 0, 0]
        #expect(bad.withUnsafeBytes { HLSJoiner.leadingTagSize($0) } == nil)
    }
}

extension Result {
    /// The error, if it failed.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
