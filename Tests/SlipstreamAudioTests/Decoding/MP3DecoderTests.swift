import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// MP3Decoder and GaplessTrim against `mpg123 --gapless -w` on every MPEG fixture (among them
/// the edge cases: free-format Layer II, Layer II scalefactors out of range, Layer III frames
/// with damaged side information, which must give mpg123's samples, every one, but for the
/// frames the decoder finds undecodable: silence there, where mpg123 makes noise).
@Suite(.serialized, .enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct MP3DecoderTests {
    static let fixtures = AudioFixtures.references.filter { $0.kind == "mpeg" }.map(\.name)

    static func path(_ name: String) throws -> String {
        try #require(AudioFixtures.directory).appendingPathComponent(name).path
    }

    /// The fixtures with frames the decoder silences (their side information has `big_values`
    /// above 288, where libmpg123 decodes on and makes noise), and how many: the frame whose
    /// side information is all ones is silent in mpg123's output too.
    static let silencedFrames = ["mp3-damaged-sideinfo-run.mp3": 6]

    @Test(arguments: fixtures)
    func wholeFileEqualsMpg123(_ name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let ours = try stream.decodeTrimmed()
        let reference = try await ReferenceDecoder.mpg123(Self.path(name))
        let width = try stream.format.channels * 2
        try Self.expectMpg123(ours, reference, name: name, frameBytes: width, sampleBytes: 2)
    }

    @Test(arguments: fixtures)
    func float32EqualsMpg123(_ name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let ours = try stream.decodeTrimmed(sampleType: .float32)
        let reference = try await ReferenceDecoder.mpg123(Self.path(name), float: true)
        let width = try stream.format.channels * 4
        try Self.expectMpg123(ours, reference, name: name, frameBytes: width, sampleBytes: 4)
    }

    /// `ours` is mpg123's `reference`, sample for sample; for a fixture of `silencedFrames`,
    /// but for samples that are silence in ours, in at most that many frames (of 1,152 samples).
    static func expectMpg123(_ ours: [UInt8], _ reference: [UInt8], name: String, frameBytes: Int, sampleBytes: Int) throws {
        guard let silenced = silencedFrames[name] else {
            let same = ours == reference
            #expect(same, "\(firstDifference(ours, reference, frameBytes: frameBytes))")
            return
        }
        try #require(ours.count == reference.count)
        var differing = 0
        var onlySilence = true
        for start in stride(from: 0, to: ours.count, by: sampleBytes)
        where !ours[start..<start + sampleBytes].elementsEqual(reference[start..<start + sampleBytes]) {
            differing += 1
            if ours[start..<start + sampleBytes].contains(where: { $0 != 0 }) { onlySilence = false }
        }
        #expect(onlySilence, "\(firstDifference(ours, reference, frameBytes: frameBytes))")
        #expect(differing > 0 && differing <= silenced * 1152 * frameBytes / sampleBytes, "\(differing) samples differ")
    }

    @Test(arguments: fixtures)
    func randomSplitsDecodeTheSame(_ name: String) throws {
        let bytes = try AudioFixtures.bytes(name)
        let whole = try ParsedStream(bytes).decodeTrimmed()
        var random = SplitMix64(seed: UInt64(bytes.count))
        let split = try ParsedStream(bytes, chunkSizes: { Int.random(in: 1...3000, using: &random) }).decodeTrimmed()
        let same = split == whole
        #expect(same)
    }

    /// After `reset()`, priming with the `primingPacketCount` packets before packet k makes the
    /// output from packet k on equal the decode from the start, sample for sample.
    ///
    /// The two mono MPEG-2 fixtures (16 and 22.05 kHz) keep a known difference: a few samples
    /// after some restart points differ by one step from the decode from the start, however
    /// long the priming. libmpg123 does the same in its own seeks (`mpg123 -k 50` of that file
    /// differs from the whole decode in 5 samples, by one step), and its seeks on other files
    /// differ far more (thousands of samples in the 32 kbit/s one), where ours are exact. Two
    /// damaged fixtures show the same one-step differences long after their damage (a Layer II
    /// frame of out-of-range scalefactors, a run of Layer III frames with junk side
    /// information), where their undamaged twins are exact.
    @Test(arguments: fixtures)
    func primingAfterResetIsExact(_ name: String) throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let whole = try stream.decodeRaw()
        let decoder = try AudioDecoders.make(for: stream.format)
        let width = decoder.outputFormat.bytesPerFrame
        var random = SplitMix64(seed: 7)
        let count = stream.packets.count
        var targets = [1, 2, decoder.primingPacketCount, count - 1]
        for _ in 0..<6 { targets.append(Int.random(in: 0..<count, using: &random)) }
        _ = try stream.decode(0..<min(5, count), with: decoder)
        for k in targets where (0..<count).contains(k) {
            decoder.reset()
            _ = try stream.decode(max(0, k - decoder.primingPacketCount)..<k, with: decoder)
            let end = min(k + 12, count)
            let ours = try stream.decode(k..<end, with: decoder)
            let start = Int(try #require(stream.packets[k].startFrame)) * width
            let expected = Array(whole[start..<start + ours.count])
            let same = ours == expected
            let message = {
                "packet \(k) of \(count), primed by \(decoder.primingPacketCount): \(firstDifference(ours, expected, frameBytes: width))"
            }
            let roundsOnRestart = [
                "mp3-mpeg2-16000-mono.mp3", "mp3-mpeg2-22050-mono-noxing.mp3", "mp2-bad-scalefactors.mp2",
                "mp3-damaged-sideinfo-run.mp3",
            ]
            if roundsOnRestart.contains(name) {
                withKnownIssue("libmpg123 rounds a few samples differently after a restart in this stream", isIntermittent: true) {
                    #expect(same, "\(message())")
                }
                #expect(same || largestStep(ours, expected) <= 1, "\(message())")
            } else {
                #expect(same, "\(message())")
            }
        }
    }

    /// Without priming, a frame whose bit reservoir was not fed comes out as silence, never noise.
    @Test func unprimedFramesAreSilentUntilTheReservoirIsFed() throws {
        let stream = try ParsedStream(AudioFixtures.bytes("mp3-vbr-v0.mp3"))
        let decoder = try AudioDecoders.make(for: stream.format)
        decoder.reset()
        let k = stream.packets.count / 2
        let output = try stream.decode(k..<k + 1, with: decoder)
        #expect(output.allSatisfy { $0 == 0 })
        let later = try stream.decode(k + 1..<k + 12, with: decoder)
        #expect(later.contains { $0 != 0 })
    }

    /// A Xing frame with a frame count but no LAME tag: mpg123 trims its decoder delay only.
    @Test func xingWithoutLameTagTrimsTheDecoderDelay() async throws {
        var bytes = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let lame = try #require(bytes.indices.first { bytes[$0...].starts(with: "LAME".utf8) })
        bytes[lame] = 0
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/no-lame-tag.mp3"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let stream = try ParsedStream(bytes)
        #expect(stream.properties.encoderDelay == nil)
        let ours = try stream.decodeTrimmed()
        let reference = try await ReferenceDecoder.mpg123(file)
        let same = ours == reference
        #expect(same, "\(firstDifference(ours, reference, frameBytes: 4))")
        let raw = try stream.decodeRaw()
        #expect(raw.count - ours.count == 529 * 4)
    }

    /// A file that is only its Info frame (lame given no samples) and the one frame that holds
    /// its encoder delay: no sample comes out, as from mpg123, and the length its header
    /// states is 0.
    @Test func aFileOfOnlyItsInfoFrameGivesNoSamples() async throws {
        let stream = try ParsedStream(AudioFixtures.bytes("mp3-info-only.mp3"))
        #expect(stream.properties.duration == 0)
        #expect(try stream.decodeTrimmed().isEmpty)
        #expect(try await ReferenceDecoder.mpg123(Self.path("mp3-info-only.mp3")).isEmpty)
    }

    /// Random bytes, truncated frames and bad headers in the middle of a stream: every packet
    /// still gives its frame count, and the stream goes on afterwards.
    @Test func corruptPacketsKeepTheirLength() throws {
        let stream = try ParsedStream(AudioFixtures.bytes("mp3-cbr128.mp3"))
        let decoder = try AudioDecoders.make(for: stream.format)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        var random = SplitMix64(seed: 3)
        for (i, packet) in stream.contents.enumerated() {
            var bytes = packet
            switch i % 5 {
            case 1: bytes = bytes.map { _ in UInt8.random(in: 0...255, using: &random) }
            case 2: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
            case 3: bytes[Int.random(in: 4..<bytes.count, using: &random)] ^= 0xFF
            case 4: bytes += [0xFF, 0xFB, 0x90]
            default: break
            }
            try bytes.withUnsafeBytes { _ = try decoder.decode($0, packet: stream.packets[i], into: buffer) }
            #expect(buffer.frameCount == 1152)
            buffer.removeAll()
        }
        let restart = try stream.decode(0..<2, with: decoder)
        #expect(restart.contains { $0 != 0 })
    }

    @Test func primingCountsFollowTheSmallestFrames() throws {
        func count(_ rate: Int, _ channels: Int, _ codec: AudioFormat.Codec = .mp3) -> Int {
            let spf = codec == .mp1 ? 384 : codec == .mp3 && rate < 32000 ? 576 : 1152
            return MP3Decoder.primingPacketCount(
                AudioFormat(codec: codec, codecDescription: "", sampleRate: rate, channels: channels, framesPerPacket: spf))
        }
        // 44.1 kHz stereo at 32 kbit/s: 104-byte frames, 66 bytes of main data: 8 frames hold
        // 511 bytes, plus the frame before the seek point, plus 3 to line up the filter.
        #expect(count(44100, 2) == 8 + 1 + 3)
        #expect(count(48000, 2) == 9 + 1 + 3)
        // 8 kHz mono at 8 kbit/s: 72-byte frames, 57 bytes of main data hold 255 in 5.
        #expect(count(8000, 1) == 5 + 2 + 7)
        #expect(count(44100, 2, .mp2) == 1 + 3)
        #expect(count(44100, 2, .mp1) == 2 + 3)
    }
}
