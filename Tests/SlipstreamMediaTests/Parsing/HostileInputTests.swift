import Testing
import MediaTestSupport
@testable import SlipstreamMedia

/// Input meant to break the parser: it must not crash, hang or grow, and must say clearly when
/// it cannot recognise anything.
@Suite struct HostileInputTests {
    @Test(arguments: [1, 7, 1000, 300_000])
    func randomBytes(count: Int) {
        var random = SeededRandom(state: UInt64(count))
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        let run = ParserRun(bytes, chunkSizes: { Int.random(in: 1...5000, using: &random) })
        // Random bytes can hold a chance pair of agreeing headers; then the rest is junk.
        if run.error == nil { #expect(run.final.junkByteCount > 0) } else { #expect(run.error?.code == .unrecognisedFormat) }
        #expect(run.maximumHeld <= 8192 + 8)
    }

    @Test(arguments: [[0xFF], [0xFF, 0xFB, 0x90, 0x64], [0xFF, 0xF1], [0xFF, 0xFF, 0xFF, 0xFE]] as [[UInt8]])
    func allSyncWords(_ pattern: [UInt8]) {
        let bytes = Array([[UInt8]](repeating: pattern, count: 100_000 / pattern.count).joined())
        let run = ParserRun(bytes, chunkSizes: { 4096 })
        #expect(run.packets.isEmpty)
        #expect(run.error?.code == .unrecognisedFormat)
    }

    @Test func unknownFormatsAreNamed() {
        let midi = Array("MThd".utf8) + [0, 0, 0, 6] + [UInt8](repeating: 0, count: 200)
        let run = ParserRun(midi, hints: .init(contentType: "audio/midi"), chunkSizes: { 10 })
        let error = run.error
        #expect(error?.code == .unrecognisedFormat)
        #expect(error?.message.contains("MIDI") == true)
        #expect(error?.message.contains("audio/midi") == true)
        #expect(ParserRun([], chunkSizes: { 1 }).error?.code == .unrecognisedFormat)
    }

    @Test func junkBetweenFramesIsSkippedAndCounted() {
        var random = SeededRandom(state: 9)
        let junk = (0..<3000).map { _ in UInt8.random(in: 0...0xFE, using: &random) }
        let stream = [UInt8](repeating: 0x20, count: 500) + Synth.mp3Frames(6) + junk + Synth.mp3Frames(6, crc: true)
        let whole = ParserRun(stream, chunkSizes: { stream.count })
        #expect(ParserRun(stream, chunkSizes: { 1 }) == whole)
        #expect(whole.packets.count == 12)
        #expect(whole.packets.map(\.offset).first == 500)
        #expect(whole.final.junkByteCount == 3500)
    }

    @Test func aFakeSyncIsNotTakenUnlessTheNextHeaderAgrees() {
        // A lone header in junk, then a real stream: only the real frames come out.
        let fake: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0x11, count: 600)
        let run = ParserRun(fake + Synth.mp3Frames(4), chunkSizes: { 3 })
        #expect(run.packets.count == 4)
        #expect(run.packets.first?.offset == Int64(fake.count))
    }

    @Test func truncatedFilesNeverCrash() {
        let stream = Synth.id3v2(version: 3, frames: [("TIT2", [0, 0x41])]) + Synth.mp3Frames(20)
        for length in stride(from: 0, through: stream.count, by: 37) {
            let run = ParserRun(Array(stream[..<length]), chunkSizes: { 64 })
            #expect(run.packets.count <= 20)
        }
    }
}
