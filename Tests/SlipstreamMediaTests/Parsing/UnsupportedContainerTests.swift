import Testing
import MediaTestSupport
@testable import SlipstreamMedia

/// Containers that cannot be played yet are refused by their first bytes, by name, before any
/// frame sync is looked for: even when MPEG frames that would sync follow, behind an ID3v2 tag,
/// and fed one byte at a time.
@Suite struct UnsupportedContainerTests {
    static let starts: [(String, [UInt8])] = [
        ("IFF", Array("FORM".utf8) + [0, 0, 0, 100] + Array("8SVXVHDR".utf8) + [0, 0, 0, 20]),
        ("Matroska/WebM", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01]),
    ]

    /// Feeds `bytes` one at a time; the bytes fed when the parser threw, and the error.
    static func refusal(_ bytes: [UInt8]) -> (fed: Int, error: AudioParserError?) {
        var parser = AudioStreamParser(hints: .init(contentType: "application/octet-stream"))
        for (i, byte) in bytes.enumerated() {
            do throws(AudioParserError) {
                _ = try parser.parse([byte])
            } catch {
                return (i + 1, error)
            }
        }
        return (bytes.count, nil)
    }

    @Test(arguments: starts)
    func refusedByNameAtItsFirstBytesThoughFramesFollow(_ name: String, _ start: [UInt8]) {
        // Frames that would sync as MP3 right after the signature: never looked at.
        let bytes = start + Synth.mp3Frames(30)
        let (fed, error) = Self.refusal(bytes)
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.hasPrefix("\(name) cannot be played yet") == true, "\(String(describing: error))")
        #expect(error?.message.contains("application/octet-stream") == true)
        #expect(error?.offset == 0)
        #expect(fed <= 48, "refused after \(fed) bytes")
        // All at once, the same error.
        #expect(ParserRun(bytes, hints: .init(contentType: "application/octet-stream"), chunkSizes: { bytes.count }).error == error)
    }

    @Test(arguments: starts)
    func refusedBehindAnID3v2Tag(_ name: String, _ start: [UInt8]) {
        let tag = Synth.id3v2(version: 3, frames: [("TIT2", [0] + Array("Tagged".utf8))], padding: 100)
        let (fed, error) = Self.refusal(tag + start + Synth.mp3Frames(30))
        #expect(error?.message.hasPrefix("\(name) cannot be played yet") == true, "\(String(describing: error))")
        #expect(error?.offset == Int64(tag.count))
        #expect(fed <= tag.count + 48, "refused after \(fed) bytes")
    }

    @Test func aShortStreamIsNamedByItsSignatureAlone() {
        #expect(ParserRun(Array("FORM".utf8) + [0], chunkSizes: { 1 }).error?.message.hasPrefix("IFF cannot") == true)
        // Too short for any signature: not one of these.
        #expect(ParserRun(Array("fLa".utf8), chunkSizes: { 1 }).error?.code == .unrecognisedFormat)
    }

    @Test func mpegAudioAndWAVStillPlay() {
        #expect(Synth.mp3Frames(2).withUnsafeBytes { UnsupportedContainer.match($0, isFinal: false) } == .none)
        let stream = Synth.mp3Frames(10)
        #expect(ParserRun(stream, chunkSizes: { 1 }).packets.count == 10)
    }
}
