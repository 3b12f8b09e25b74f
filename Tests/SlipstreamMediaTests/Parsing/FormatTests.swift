import Testing
import MediaTestSupport
@testable import SlipstreamMedia

@Suite struct FormatTests {
    @Test func adtsWithCRCAndSeveralRawBlocks() throws {
        let frames = (0..<5).flatMap { _ in Synth.adtsFrame(payload: 300, blocks: 3, crc: true) }
        let run = ParserRun(frames, chunkSizes: { 1 })
        #expect(run == ParserRun(frames, chunkSizes: { frames.count }))
        #expect(run.packets.count == 5)
        #expect(run.packets.allSatisfy { $0.size == 309 && $0.frameCount == 3072 })
        let format = try #require(run.final.format)
        #expect(format.codec == .aac)
        #expect(format.sampleRate == 44100)
        #expect(format.channels == 2)
        let header = try #require(frames.withUnsafeBytes { ADTSHeader($0, at: 0) })
        #expect(header.hasCRC && header.bufferFullness == 0x7FF && header.rawDataBlocks == 3)
        #expect(run.final.durationSource == .counted)
        #expect(run.final.bitRate?.source == .runningMean)
    }

    @Test func theBytesDecideNotTheHints() throws {
        let adts = (0..<4).flatMap { _ in Synth.adtsFrame(payload: 100) }
        let run = ParserRun(adts, hints: .init(contentType: "audio/mpeg", fileExtension: "mp3"), chunkSizes: { 7 })
        #expect(run.final.format?.codec == .aac)
        let mp3 = Synth.mp3Frames(4)
        #expect(ParserRun(mp3, hints: .init(contentType: "audio/aac"), chunkSizes: { 7 }).final.format?.codec == .mp3)
    }

    @Test func unsupportedWAV() {
        func wav(tag: UInt8, fmtFirst: Bool = true) -> [UInt8] {
            let fmt = Array("fmt ".utf8) + [16, 0, 0, 0, tag, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0]
            let data = Array("data".utf8) + [8, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
            let body = Array("WAVE".utf8) + (fmtFirst ? fmt + data : data + fmt)
            return Array("RIFF".utf8) + [UInt8(body.count), 0, 0, 0] + body
        }
        #expect(ParserRun(wav(tag: 1), chunkSizes: { 1 }).packets.count == 1)
        #expect(ParserRun(wav(tag: 0x55), chunkSizes: { 1 }).error?.code == .unsupportedFormat)
        #expect(ParserRun(wav(tag: 1, fmtFirst: false), chunkSizes: { 1 }).error?.code == .malformed)
    }

    @Test func bitRateIsAnUnroundedRunningMeanThatKeepsMoving() {
        var parser = AudioStreamParser()
        let small = (0..<3).flatMap { _ in Synth.adtsFrame(payload: 100) }
        let large = (0..<3).flatMap { _ in Synth.adtsFrame(payload: 401) }
        _ = try? parser.parse(small + Synth.adtsFrame(payload: 100))
        let first = parser.properties.bitRate?.bitsPerSecond
        _ = try? parser.parse(large + Synth.adtsFrame(payload: 100))
        let second = parser.properties.bitRate?.bitsPerSecond
        // Once in sync, each frame is out as soon as it is whole: 4 frames, then 8.
        #expect(first == Double(4 * 107) * 8 * 44100 / Double(4 * 1024))
        #expect(second == Double(5 * 107 + 3 * 408) * 8 * 44100 / Double(8 * 1024))
    }
}
