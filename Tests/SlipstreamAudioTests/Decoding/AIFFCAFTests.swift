import Foundation
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamAudio

/// AIFF, AIFF-C and CAF PCM: parsed the same in any split, every frame a packet's, decoded
/// exactly as sox decodes them (integers) and as ffmpeg does (floats).
@Suite(.enabled(if: AudioFixtures.directory != nil, "SLIPSTREAM_TEST_AUDIO is not set"))
struct AIFFCAFTests {
    static let integerFixtures = [
        "aiff-s8.aiff", "aifc-s8-mono.aiff", "aiff-s16.aiff", "aiff-s24-mono.aiff", "aiff-s32.aiff", "aifc-sowt.aiff",
        "caf-s8.caf", "caf-s16.caf", "caf-s24be.caf", "caf-s32le.caf",
    ]
    static let floatFixtures = ["aifc-f32.aiff", "caf-f32.caf"]

    @Test(arguments: integerFixtures + floatFixtures)
    func parsedTheSameInAnySplitWithExactTotals(name: String) async throws {
        let bytes = try AudioFixtures.bytes(name)
        let run = FixtureFacts.parseEveryWay(bytes)
        #expect(run.error == nil)
        let format = try #require(run.final.format)
        #expect(format.codec == .pcm)
        let (_, soxFrames) = try await ExternalProgram.output(["soxi", "-s", try AudioFixtures.path(name)])
        let frames = try #require(Int64(soxFrames.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(run.final.trimmedFrameCount == frames)
        #expect(run.packets.reduce(0) { $0 + Int64($1.frameCount) } == frames)
        #expect(run.final.isSeekableByTime)
        // The head alone states the length.
        var parser = AudioStreamParser()
        _ = try parser.parse(Array(bytes.prefix(8192)))
        #expect(parser.properties.trimmedFrameCount == frames && parser.properties.durationSource == .header)
        let point = try #require(parser.seekTable.offset(forTime: 1.25))
        #expect(point.method == .pcm && point.frame == Int64(1.25 * Double(format.sampleRate)))
    }

    @Test(arguments: integerFixtures)
    func integersDecodeExactlyAsSox(name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let reference = try await ReferenceDecoder.sox(try AudioFixtures.path(name), float: true)
        let decoded = try stream.decodeTrimmed(sampleType: .float32)
        #expect(decoded.count == reference.count)
        #expect(Bool(decoded == reference))
    }

    /// Floats to 16 bits: exactly as ffmpeg rounds them (sox reads a float CAF through
    /// libsndfile, which scales it by its peak, so it is not the reference here).
    @Test(arguments: floatFixtures)
    func floatsDecodeExactlyAsFFmpeg(name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let reference = try await ReferenceDecoder.ffmpeg(try AudioFixtures.path(name))
        let decoded = try stream.decodeTrimmed()
        #expect(decoded.count == reference.count)
        #expect(Bool(decoded == reference))
    }

    @Test(arguments: [
        ("AIFF-C compressed as 'ima4' (only PCM is supported)", aifc(compression: "ima4", bits: 16)),
        ("AIFF with 1 channels, 8000.0 Hz, 40 bits", aifc(compression: "NONE", bits: 40)),
        ("CAF with 'alac' audio (only PCM and AAC are supported)", caf(format: "alac")),
    ])
    func unsupportedVariantsAreRefusedByName(_ message: String, _ bytes: [UInt8]) {
        let run = ParserRun(bytes) { 1 }
        #expect(run.error?.code == .unsupportedFormat)
        #expect(run.error?.message == message)
    }

    @Test func malformedFilesGiveAClearError() {
        var short = Self.aifc(compression: "NONE", bits: 16)
        short[19] = 10  // COMM of 10 bytes
        #expect(ParserRun(short) { 3 }.error?.message == "AIFF COMM chunk of 10 bytes")
        let noDesc = Array("caff".utf8) + [0, 1, 0, 0] + Array("data".utf8) + [UInt8](repeating: 0xFF, count: 8) + [0, 0, 0, 0, 1, 2]
        #expect(ParserRun(noDesc) { 1 }.error?.message == "CAF data chunk before the desc chunk")
        // Cut in the middle of a frame: the whole frames, then the end.
        let cut = Array(Self.caf(format: "lpcm").dropLast(1))
        let run = ParserRun(cut) { 5 }
        #expect(run.error == nil && run.packets.map(\.frameCount) == [2])
    }

    /// An AIFF-C head: FORM, COMM (mono, 8 kHz) with `compression`, and an SSND of 8 bytes.
    static func aifc(compression: String, bits: UInt8) -> [UInt8] {
        let rate: [UInt8] = [0x40, 0x0B, 0xFA, 0, 0, 0, 0, 0, 0, 0]  // 8000 as an 80-bit extended
        let comm = Array("COMM".utf8) + [0, 0, 0, 24, 0, 1, 0, 0, 0, 4, 0, bits] + rate + Array(compression.utf8) + [0, 0]
        let ssnd = Array("SSND".utf8) + [0, 0, 0, 16] + [UInt8](repeating: 0, count: 16)
        return Array("FORM".utf8) + [0, 0, 0, UInt8(4 + comm.count + ssnd.count)] + Array("AIFC".utf8) + comm + ssnd
    }

    /// A CAF head: `desc` (stereo 16-bit big-endian at 8 kHz) of `format`, and 3 frames of data.
    static func caf(format: String) -> [UInt8] {
        let rate = Array(withUnsafeBytes(of: Double(8000).bitPattern.bigEndian) { Array($0) })
        let desc =
            Array("desc".utf8) + [0, 0, 0, 0, 0, 0, 0, 32] + rate + Array(format.utf8)
            + [0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 16]
        let data = Array("data".utf8) + [0, 0, 0, 0, 0, 0, 0, 16] + [0, 0, 0, 0] + [UInt8](repeating: 7, count: 12)
        return Array("caff".utf8) + [0, 1, 0, 0] + desc + data
    }
}
