import Foundation
import Testing
import TestSupport
@testable import SlipstreamMedia

@Suite(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct AudioStreamInfoTests {
    @Test func wholeFileSummary() throws {
        let bytes = try AudioFixtures.bytes("mp3-id3v24-footer.mp3")
        let info = try AudioStreamInfo.scan(head: bytes, hints: .init(totalByteCount: Int64(bytes.count)))
        #expect(info.durationSource == .counted)
        #expect(info.bitRate?.mode == .variable)
        #expect(info.encoderDelay == 576)
        #expect(info.tags.title == "Tïtle ✓")
        let json = try JSONEncoder().encode(info)
        let decoded = try JSONDecoder().decode(AudioStreamInfo.self, from: json)
        #expect(decoded.duration == info.duration)
        #expect(decoded.tags.title == info.tags.title)
    }

    @Test func headAndTail() throws {
        let bytes = try AudioFixtures.bytes("mp3-ape-lyrics3-id3v1.mp3")
        let info = try AudioStreamInfo.scan(
            head: Array(bytes[..<16384]), tail: Array(bytes.suffix(4096)),
            hints: .init(totalByteCount: Int64(bytes.count)))
        #expect(info.durationSource == .header)
        #expect(info.tags.title == "Tail Title")
        #expect(Set(info.tags.kinds) == [.ape, .lyrics3, .id3v1])
        #expect(info.bitRate?.source == .frameHeader)
    }

    @Test func trailingTagLength() throws {
        let bytes = try AudioFixtures.bytes("mp3-ape-lyrics3-id3v1.mp3")
        let tagLength = bytes.count - (try AudioFixtures.bytes("mp3-cbr128.mp3")).count
        #expect(AudioStreamInfo.trailingTagLength(in: Array(bytes.suffix(4096))) == tagLength)
        // Tails too short for the tags ask for more, until the whole of them is there.
        var count = 130
        while case let needed = AudioStreamInfo.trailingTagLength(in: Array(bytes.suffix(count))), needed > count {
            count = needed
        }
        #expect(count == tagLength)
        #expect(AudioStreamInfo.trailingTagLength(in: try AudioFixtures.bytes("mp3-cbr128.mp3")) == 0)
    }

    @Test func skippingATagUnread() throws {
        let bytes = try AudioFixtures.bytes("mp3-id3v23-picture.mp3")
        var parser = AudioStreamParser(hints: .init(totalByteCount: Int64(bytes.count)))
        _ = try parser.parse(Array(bytes[..<65536]))
        parser.skipUnread()
        let next = Int(parser.nextByteOffset)
        #expect(next > 10_000_000)
        _ = try parser.parse(Array(bytes[next...]))
        _ = try parser.finish()
        let info = try AudioStreamInfo(parser: parser)
        #expect(info.durationSource == .counted)
        #expect(info.packetCount == 116)
        #expect(info.tags.title == "Big Picture")
    }

    @Test func notAudio() {
        #expect(throws: AudioParserError.self) {
            try AudioStreamInfo.scan(head: Array("<!DOCTYPE html><html>".utf8), hints: .init())
        }
    }
}
