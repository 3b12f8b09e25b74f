import SlipstreamCore
import SlipstreamHTTP
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The ICY filter under every split of its input: the audio comes out whole and in order, each
/// block is found once at its audio offset, whatever the reads are and wherever the receiver
/// pauses.
struct ICYMetadataFilterTests {
    /// Runs the filter over `input` cut into pieces of the given sizes (cycled).
    static func filter(_ input: [UInt8], interval: Int, pieces: [Int]) -> (audio: [UInt8], blocks: [(String?, Int64)]) {
        var filter = ICYMetadataFilter(interval: interval)
        var audio: [UInt8] = []
        var blocks: [(String?, Int64)] = []
        var start = 0
        var piece = 0
        while start < input.count {
            let end = min(start + pieces[piece % pieces.count], input.count)
            piece += 1
            input[start..<end].withUnsafeBytes { bytes in
                var index = 0
                while index < bytes.count {
                    let found = filter.scan(bytes, from: index) { block, offset in blocks.append((ICYMetadata(block).title, offset)) }
                    index = found.start
                    guard found.audioCount > 0 else { break }
                    audio += bytes[index..<index + found.audioCount]
                    filter.audioTaken(found.audioCount)
                    index += found.audioCount
                }
            }
            start = end
        }
        return (audio, blocks)
    }

    static func audio(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    @Test(arguments: [1, 2, 3, 7, 16, 100])
    func everySplitGivesTheSameAudioAndBlocks(_ interval: Int) {
        let audio = Self.audio(interval * 5 + 3, seed: UInt64(interval))
        let titles = ["One", "Two's", "", "Four; and more"]
        let input = ICYStream.build(audio: audio, interval: interval, titles: titles)
        let expected = Self.filter(input, interval: interval, pieces: [input.count])
        #expect(expected.audio == audio)
        #expect(expected.blocks.map(\.0) == titles)
        #expect(expected.blocks.map(\.1) == (1...titles.count).map { Int64($0 * interval) })
        // Every cut into two, and reads of every size from 1 to 20 bytes.
        for cut in 1..<input.count {
            let run = Self.filter(input, interval: interval, pieces: [cut, input.count])
            #expect(run.audio == audio && run.blocks.map(\.0) == titles && run.blocks.map(\.1) == expected.blocks.map(\.1), "cut \(cut)")
        }
        for size in 1...20 {
            let run = Self.filter(input, interval: interval, pieces: [size])
            #expect(run.audio == audio && run.blocks.map(\.0) == titles, "reads of \(size)")
        }
    }

    @Test func severalBlocksInOneReadAndTheLengthByteLastInARead() {
        let audio = Self.audio(40, seed: 9)
        let input = ICYStream.build(audio: audio, interval: 8, titles: ["a", "b", "c", "d"])
        // Everything in one read: four blocks found in it.
        #expect(Self.filter(input, interval: 8, pieces: [input.count]).blocks.count == 4)
        // A read that ends just after the first 8 bytes of audio, so the next starts with the
        // length byte; one that ends with the length byte.
        #expect(Self.filter(input, interval: 8, pieces: [8, 1, 500]).audio == audio)
        #expect(Self.filter(input, interval: 8, pieces: [9, 500]).audio == audio)
    }

    @Test func theLargestBlockIsRead() {
        let title = String(repeating: "x", count: 255 * 16 - 15)
        var text = Array("StreamTitle='\(title)".utf8)
        text = Array(text.prefix(255 * 16 - 2)) + Array("';".utf8)
        let input = [1, 2, 3] + [255] + text + [4, 5]
        let run = Self.filter(input, interval: 3, pieces: [1000])
        #expect(run.audio == [1, 2, 3, 4, 5])
        #expect(run.blocks.first?.0?.count == 255 * 16 - 2 - "StreamTitle='".count)
    }

    /// The filtering source under a receiver that pauses at random: every audio byte reaches it
    /// once, at its offset, and every title once, at its offset.
    @Test func theFilteringSourceSurvivesPausesAnywhere() {
        let interval = 5
        let audio = Self.audio(200, seed: 3)
        let titles = (1...20).map { "Title \($0)" }
        let input = ICYStream.build(audio: audio, interval: interval, titles: titles)
        for seed in 0..<50 as Range<UInt64> {
            let receiver = PausingReceiver(seed: seed)
            let source = ScriptedSource(input: input, headers: ["icy-metaint": "\(interval)", "icy-name": "Test FM"], seed: seed)
            _ = ICYAudioSource(source).open(AudioSourceRequest(), receiver: receiver)
            let (bytes, found, isLive) = receiver.result
            #expect(bytes == audio, "seed \(seed)")
            #expect(isLive)
            #expect(found.first == .station(StationInfo(name: "Test FM")))
            let expected = titles.enumerated().map { AudioSourceMetadata.title(StreamTitle(title: $1), offset: Int64(($0 + 1) * interval)) }
            #expect(Array(found.dropFirst()) == expected, "seed \(seed)")
        }
    }

    @Test func anAnswerWithoutAnIntervalPassesThrough() {
        let bytes: [UInt8] = Array(0..<100)
        let receiver = PausingReceiver(seed: 1)
        _ = ICYAudioSource(ScriptedSource(input: bytes, headers: [:], seed: 1)).open(AudioSourceRequest(), receiver: receiver)
        #expect(receiver.result.bytes == bytes)
        #expect(receiver.result.found.isEmpty)
        #expect(!receiver.result.isLive)
    }
}

/// A receiver that takes bytes at their offsets and says `.pause` at random (then takes the
/// same bytes when they come again).
private final class PausingReceiver: AudioSourceReceiver, @unchecked Sendable {
    // Unchecked: driven on the test's thread only (ScriptedSource delivers synchronously).
    private var random: SplitMix64
    private(set) var bytes: [UInt8] = []
    private(set) var found: [AudioSourceMetadata] = []
    private(set) var isLive = false

    init(seed: UInt64) { random = SplitMix64(seed: seed &+ 1000) }

    var result: (bytes: [UInt8], found: [AudioSourceMetadata], isLive: Bool) { (bytes, found, isLive) }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        isLive = answer.isLive
        return .proceed
    }

    func sourceReceived(_ slice: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        if Int.random(in: 0..<3, using: &random) == 0 { return .pause }
        #expect(offset == Int64(bytes.count))
        bytes += slice
        return .proceed
    }

    func sourceFound(_ metadata: AudioSourceMetadata) { found.append(metadata) }
    func sourceEnded(_ error: AudioStreamerError?) {}
}

/// A source that delivers `input` at once, on the caller's thread, in random pieces, offering
/// the same piece again (from its first byte) after a `.pause`, as libcurl does.
private final class ScriptedSource: AudioSource, AudioSourceConnection, @unchecked Sendable {
    // Unchecked: used on the test's thread only.
    private let input: [UInt8]
    private let headers: HTTPHeaders
    private var random: SplitMix64

    init(input: [UInt8], headers: [String: String], seed: UInt64) {
        self.input = input
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name: name, value: value) }
        self.headers = fields
        random = SplitMix64(seed: seed)
    }

    var location: AudioLocation { .url("http://127.0.0.1/scripted") }

    func open(_ request: AudioSourceRequest, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        let answer = AudioSourceAnswer(offset: 0, totalSize: Int64(input.count), rangesSupported: false, isLive: false, headers: headers)
        guard case .proceed = receiver.sourceOpened(answer) else { return self }
        var start = 0
        var offset: Int64 = 0
        while start < input.count {
            let end = min(start + Int.random(in: 1...40, using: &random), input.count)
            let decision = input[start..<end].withUnsafeBytes { receiver.sourceReceived($0, at: offset) }
            if case .proceed = decision {
                offset += Int64(end - start)
                start = end
            }
        }
        receiver.sourceEnded(nil)
        return self
    }

    func resume() {}
    func cancel() {}
}
