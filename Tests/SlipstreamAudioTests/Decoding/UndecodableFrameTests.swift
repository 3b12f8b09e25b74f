import Testing
import TestSupport
@testable import SlipstreamAudio

/// Each decoder tells a frame it could not decode from a good one (`DecodeOutcome`): real
/// streams have none, frames whose headers are real and whose contents are random are nearly
/// all undecodable, and a few damaged frames among good ones are counted one by one.
@Suite(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct UndecodableFrameTests {
    /// Every fixture of every codec but the damaged ones, and what the damaged ones give: the
    /// Layer III frame whose side information is all ones, and the run of six with junk there
    /// (each has `big_values` above 288). A Layer II frame of out-of-range scalefactors is not
    /// told (libmpg123 decodes it, as ffmpeg does).
    static let fixtures: [(String, Int)] =
        AudioFixtures.references.map(\.name).filter { !$0.contains("damaged") }.map { ($0, 0) } + [
            ("mp3-damaged-sideinfo.mp3", 1), ("mp3-damaged-sideinfo-run.mp3", 6), ("mp3-format-change.mp3", 0),
            ("aac-format-change.aac", 0),
            ("mp4-aac-faststart.m4a", 0), ("mp4-aac-moov-end.m4a", 0), ("mp4-aac-fragmented.mp4", 0),
            ("mp4-aac-22050-mono.m4a", 0), ("flac-16-seektable.flac", 0), ("flac-24-mono.flac", 0), ("caf-aac.caf", 0),
        ]

    @Test(arguments: fixtures)
    func realStreamsHaveNoUndecodableFrameButTheirDamage(_ name: String, _ damaged: Int) throws {
        let summary = try Self.summary(AudioFixtures.bytes(name))
        #expect(summary.packetCount > 0)
        #expect(summary.undecodablePacketCount == damaged, "\(summary)")
    }

    @Test(arguments: OggFixtures.vorbis + OggFixtures.opus)
    func oggStreamsHaveNoUndecodableFrame(_ name: String) async throws {
        try #require(await OggFixtures.made())
        let summary = try Self.summary(OggFixtures.bytes(name))
        #expect(summary.packetCount > 0)
        #expect(summary.undecodablePacketCount == 0, "\(summary)")
    }

    /// MP3 frames whose headers are real and whose bytes after them are random: libmpg123
    /// returns success for every one (as noise or silence); the side information's checks
    /// catch nearly all (ffmpeg refuses 110 of 116 such frames of another seed).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func mp3FramesWithRandomPayloadsAreUndecodable(_ seed: UInt64) throws {
        let bytes = GarbledAudio.mp3(try AudioFixtures.bytes("mp3-cbr128.mp3"), seed: seed) { _ in true }
        let summary = try Self.summary(bytes)
        #expect(summary.packetCount > 100)
        #expect(summary.undecodablePacketCount * 10 >= summary.packetCount * 9, "\(summary)")
    }

    /// A real MP4 index (`moov`) whose audio is random bytes: libfaad2 reports errors for
    /// nearly every access unit.
    @Test(arguments: [1, 2] as [UInt64])
    func anM4AIndexOverRandomBytesIsUndecodable(_ seed: UInt64) throws {
        let bytes = try #require(GarbledAudio.m4aHeadThenRandom(try AudioFixtures.bytes("mp4-aac-faststart.m4a"), seed: seed))
        let summary = try Self.summary(bytes)
        #expect(summary.packetCount > 100)
        #expect(summary.undecodablePacketCount * 10 >= summary.packetCount * 9, "\(summary)")
    }

    /// A few impossible frames among good ones: each is counted, and no other.
    @Test func aFewDamagedFramesAreCountedExactly() throws {
        let original = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let bytes = GarbledAudio.mp3(original, seed: 4, impossible: true) { $0 > 0 && $0 % 20 == 0 }
        let summary = try Self.summary(bytes)
        #expect(summary.undecodablePacketCount == (GarbledAudio.mp3FrameCount(original) - 1) / 20, "\(summary)")
    }

    /// Each packet's outcome, in order, for an MP3 decoder: priming after a reset (the packets
    /// passed over to line up, and the one whose bit reservoir is missing), then decoded.
    @Test func framesAfterAResetArePrimingNotUndecodable() throws {
        let stream = try ParsedStream(AudioFixtures.bytes("mp3-vbr-v0.mp3"))
        let decoder = try AudioDecoders.make(for: stream.format)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        var outcomes: [DecodeOutcome] = []
        decoder.reset()
        let start = stream.packets.count / 2
        for i in start..<start + 16 {
            outcomes.append(try stream.contents[i].withUnsafeBytes { try decoder.decode($0, packet: stream.packets[i], into: buffer) })
        }
        #expect(!outcomes.contains(.undecodable), "\(outcomes)")
        #expect(outcomes.first == .priming && outcomes.last == .decoded, "\(outcomes)")
    }

    static func summary(_ bytes: [UInt8]) throws -> StreamDecoding.Summary {
        try bytes.withUnsafeBytes { try StreamDecoding.decode($0) { _ in } }
    }
}

/// The checks of a Layer III frame's side information, on frames built bit by bit.
struct LayerIIISideInfoTests {
    /// One granule and channel's fields.
    struct Channel {
        var part23Length = 0
        var bigValues = 0
        var windowSwitching = false
        var blockType = 0
    }

    /// An MPEG-1 stereo frame of 417 bytes (128 kbit/s, 44.1 kHz) without CRC whose side
    /// information holds `mainDataBegin` and `channels` (granule 0 left, right, granule 1 left,
    /// right).
    static func frame(mainDataBegin: Int = 0, _ channels: [Channel]) -> [UInt8] {
        var bits: [Bool] = []
        func put(_ value: Int, _ count: Int) { for i in (0..<count).reversed() { bits.append(value >> i & 1 == 1) } }
        put(mainDataBegin, 9)
        put(0, 3 + 8)
        for channel in channels {
            put(channel.part23Length, 12)
            put(channel.bigValues, 9)
            put(0, 8 + 4)
            put(channel.windowSwitching ? 1 : 0, 1)
            if channel.windowSwitching {
                put(channel.blockType, 2)
                put(0, 20)
            } else {
                put(0, 22)
            }
            put(0, 3)
        }
        var sideInfo = [UInt8](repeating: 0, count: 32)
        for (i, bit) in bits.enumerated() where bit { sideInfo[i / 8] |= 0x80 >> UInt8(i % 8) }
        return [0xFF, 0xFB, 0x90, 0x44] + sideInfo + [UInt8](repeating: 0, count: 417 - 36)
    }

    static func sideInfo(_ frame: [UInt8]) throws -> LayerIIISideInfo {
        try frame.withUnsafeBytes { bytes in
            let header = try #require(MPEGFrameHeader(bytes))
            return try #require(LayerIIISideInfo(bytes, header: header))
        }
    }

    @Test func aPlainFrameIsPossibleAndFits() throws {
        let channel = Channel(part23Length: 700, bigValues: 288, windowSwitching: true, blockType: 2)
        let info = try Self.sideInfo(Self.frame(mainDataBegin: 100, Array(repeating: channel, count: 4)))
        #expect(info.isPossible && info.fits)
        #expect(info.mainDataBegin == 100 && info.mainDataBits == 2800 && info.ownMainDataBytes == 417 - 36)
    }

    @Test func bigValuesAbove288IsImpossible() throws {
        var channels = Array(repeating: Channel(), count: 4)
        channels[3].bigValues = 289
        #expect(try !Self.sideInfo(Self.frame(channels)).isPossible)
    }

    @Test func blockTypeZeroWithWindowSwitchingIsImpossible() throws {
        var channels = Array(repeating: Channel(), count: 4)
        channels[1].windowSwitching = true
        #expect(try !Self.sideInfo(Self.frame(channels)).isPossible)
        channels[1].blockType = 1
        #expect(try Self.sideInfo(Self.frame(channels)).isPossible)
    }

    /// Main data may reach back `main_data_begin` bytes and on to the frame's end, no further.
    @Test func mainDataPastTheFrameDoesNotFit() throws {
        let own = 417 - 36
        var channels = Array(repeating: Channel(), count: 4)
        channels[0].part23Length = 8 * (own + 10)
        #expect(try Self.sideInfo(Self.frame(mainDataBegin: 10, channels)).fits)
        #expect(try !Self.sideInfo(Self.frame(mainDataBegin: 9, channels)).fits)
    }
}
