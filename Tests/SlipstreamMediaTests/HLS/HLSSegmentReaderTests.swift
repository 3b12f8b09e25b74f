import Testing
@testable import SlipstreamMedia

/// The segment reader without I/O: the kind told by the first bytes, ID3 tags dropped from
/// packed audio whatever the split, and clear errors for what is not a segment.
struct HLSSegmentReaderTests {
    /// What `reader` makes of `input` cut into pieces of `size`.
    static func read(_ input: [UInt8], pieces size: Int, kind: HLSSegmentReader.Kind? = nil) throws -> ([UInt8], HLSSegmentReader) {
        var reader = HLSSegmentReader(kind: kind)
        var output: [UInt8] = []
        for start in stride(from: 0, to: input.count, by: size) {
            try input[start..<min(start + size, input.count)].withUnsafeBytes { try reader.take($0, into: &output) }
        }
        try reader.finish(into: &output)
        return (output, reader)
    }

    static func id3(_ body: [UInt8], footer: Bool = false) -> [UInt8] {
        let size = body.count
        let header: [UInt8] = Array("ID3".utf8) + [4, 0, footer ? 0x10 : 0] + (0..<4).map { UInt8((size >> (21 - 7 * $0)) & 0x7F) }
        return header + body + (footer ? Array("3DI".utf8) + [4, 0, 0x10, 0, 0, 0, 0] : [])
    }

    static let frames: [UInt8] = [0xFF, 0xF1, 0x50, 0x80] + (0..<600).map { UInt8(truncatingIfNeeded: $0 * 7) }

    @Test(arguments: [1, 2, 3, 9, 10, 11, 188, 189, 4096])
    func packedAudioLosesItsTagsWhateverTheSplit(piece: Int) throws {
        let input = Self.id3(Array(repeating: 0xAB, count: 300)) + Self.id3([1, 2, 3], footer: true) + Self.frames
        let (output, reader) = try Self.read(input, pieces: piece)
        #expect(reader.kind == .packedAudio)
        #expect(output == Self.frames)
    }

    /// An ID3v2.4 tag with other frames, then the `PRIV` timestamp frame.
    static func timestampTag(_ timestamp: Int64) -> [UInt8] {
        let owner = Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0]
        let priv = owner + (0..<8).map { UInt8(truncatingIfNeeded: timestamp >> (56 - 8 * $0)) }
        let text = [3] + Array(repeating: UInt8(ascii: "a"), count: 200)  // syncsafe size 0x01 0x49
        let frame = { (id: String, body: [UInt8]) in
            Array(id.utf8) + (0..<4).map { UInt8((body.count >> (21 - 7 * $0)) & 0x7F) } + [0, 0] + body
        }
        return id3(frame("TIT2", text) + frame("PRIV", Array("other.owner".utf8) + [0, 1]) + frame("PRIV", priv))
    }

    @Test(arguments: [1, 7, 188, 4096])
    func packedAudioTellsItsTimestampWhateverTheSplit(piece: Int) throws {
        let timestamp: Int64 = (1 << 32) + 123_456
        let (output, reader) = try Self.read(Self.timestampTag(timestamp) + Self.frames, pieces: piece)
        #expect(output == Self.frames)
        #expect(reader.firstTimestamp == timestamp)
        let (_, untimed) = try Self.read(Self.id3([1, 2, 3]) + Self.frames, pieces: piece)
        #expect(untimed.firstTimestamp == nil)
    }

    @Test func framesWithoutATagArePackedAudioToo() throws {
        let (output, reader) = try Self.read(Self.frames, pieces: 5)
        #expect(reader.kind == .packedAudio)
        #expect(output == Self.frames)
    }

    @Test func mp4BoxesPassAsTheyAre() throws {
        let input: [UInt8] = [0, 0, 0, 16] + Array("styp".utf8) + Array(repeating: 7, count: 300)
        let (output, reader) = try Self.read(input, pieces: 3)
        #expect(reader.kind == .fragmentedMP4)
        #expect(output == input)
        // A segment of a playlist with a map is fMP4 whatever it starts with.
        #expect(try Self.read([1, 2, 3], pieces: 1, kind: .fragmentedMP4).0 == [1, 2, 3])
    }

    @Test func aTransportStreamWithoutAudioIsRefused() throws {
        // Null packets only: the sync byte every 188 bytes, no PAT.
        var input: [UInt8] = []
        for _ in 0..<3 { input += [0x47, 0x1F, 0xFF, 0x10] + Array(repeating: 0xFF, count: 184) }
        #expect(throws: HLSSegmentReader.Failure.self) { try Self.read(input, pieces: 100) }
    }

    @Test func whatIsNoSegmentIsRefusedWithItsFirstBytes() throws {
        let error = #expect(throws: HLSSegmentReader.Failure.self) { try Self.read(Array("#EXTM3U\n#EXTINF".utf8), pieces: 4) }
        #expect(error?.message.contains("23 45 58 54 4d 33 55 a") == true, "\(String(describing: error))")
        // Sync bytes that do not repeat every 188 bytes are no transport stream.
        #expect(throws: HLSSegmentReader.Failure.self) { try Self.read([0x47] + Array(repeating: 0, count: 400), pieces: 50) }
        // Too short to tell.
        #expect(throws: HLSSegmentReader.Failure.self) { try Self.read(Array("ID".utf8), pieces: 1) }
        // Empty: nothing, no error.
        #expect(try Self.read([], pieces: 1).0.isEmpty)
    }
}
