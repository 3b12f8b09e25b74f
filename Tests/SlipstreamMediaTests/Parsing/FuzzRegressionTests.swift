import Testing
import MediaTestSupport
@testable import SlipstreamMedia

/// What `scripts/fuzz.sh` found, kept as tests: seek-table queries at extreme times and offsets,
/// packet times after a discontinuity that does not fall on a packet, and free-format frames of
/// the largest sizes in any split.
@Suite struct FuzzRegressionTests {
    /// Two 128 kbit/s frames and two 160 kbit/s frames (MPEG-1 Layer III, 44.1 kHz), repeated:
    /// no Xing header and no common bit rate, so the seek table can only use the mean.
    static let mixedBitRates: [UInt8] = {
        let slow = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)
        let fast = [0xFF, 0xFB, 0xA0, 0x64] + [UInt8](repeating: 0, count: 518)
        return Array([[UInt8]](repeating: slow + slow + fast + fast, count: 5).joined())
    }()

    @Test(arguments: [Synth.mp3Frames(20), mixedBitRates])
    func extremeSeekQueriesStayInsideTheStream(_ stream: [UInt8]) throws {
        let table = ParserRun(stream, chunkSizes: { stream.count }).seekTable
        // Used to trap converting a huge frame number to Int64, or echo a negative offset.
        for time in [1e300, .greatestFiniteMagnitude, 1e15, -5] {
            let point = try #require(table.offset(forTime: time))
            #expect(point.offset >= 0 && point.frame >= 0 && point.frame <= AudioSeekTable.maximumFrame)
        }
        for offset in [Int64.min, -1, .max] {
            let point = try #require(table.time(forOffset: offset))
            #expect(point.offset >= 0 && point.frame >= 0 && point.time.isFinite)
        }
        #expect(table.time(forOffset: .min)?.frame == 0)
    }

    /// From AudioParserFuzzer: a FLAC STREAMINFO stating 2^36 samples in a stream of a few KiB
    /// made the estimated bytes per frame so small that an offset's frame passed Int64 (a trap).
    @Test func aLengthFarPastTheStreamGivesFramesInRange() throws {
        var table = AudioSeekTable()
        (table.sampleRate, table.framesPerPacket, table.dataOffset) = (44100, 4096, 42)
        (table.headerFrameCount, table.streamSize) = (1 << 36, 8294)
        for offset in [Int64.max, 1 << 40, 4000] {
            let point = try #require(table.time(forOffset: offset))
            #expect(point.frame >= 0 && point.frame <= AudioSeekTable.maximumFrame && point.time.isFinite)
        }
    }

    /// From MP4ParserFuzzer: a file whose `ftyp` was misspelt is not MP4, and in its bytes lay
    /// free-format MPEG-1 Layer I headers 8195 bytes apart. Read whole, they were frames; fed in
    /// small chunks, the search for the next header gave up 4 bytes short of the largest size
    /// (8196: 8192 and a padding slot), so the stream was refused.
    @Test(arguments: [8195, 8196, 8197])
    func theLargestFreeFormatFramesAreFoundInAnySplit(size: Int) throws {
        // MPEG-1 Layer I, no CRC, free format, 44.1 kHz, unpadded; after a head that is no format.
        let frame = [0xFF, 0xFF, 0x00, 0x00] + [UInt8](repeating: 0, count: size - 4)
        let stream = [0, 0, 0, 8] + Array("ftpy".utf8) + Array([[UInt8]](repeating: frame, count: 3).joined())
        let whole = ParserRun(stream, chunkSizes: { stream.count })
        var random = SeededRandom(state: UInt64(size))
        let split = ParserRun(stream, chunkSizes: { Int.random(in: 1...64, using: &random) })
        #expect(split == whole, "\(split.firstDifference(from: whole))")
        if size <= MPEGAudioParser.maximumFreeFormatSize + 4 {
            #expect(whole.packets.map(\.offset) == [8, 8 + size, 8 + 2 * size].map(Int64.init))
            #expect(whole.packets.allSatisfy { $0.size == size && $0.frameCount == 384 })
        } else {
            #expect(whole.error?.code == .unrecognisedFormat)
        }
    }

    @Test func aDiscontinuityBeforeTheFirstPacketGivesNoNegativeTimes() throws {
        let tag = Synth.id3v2(version: 3, frames: [("TIT2", [0] + Array("fuzz".utf8))], padding: 600)
        let stream = tag + Synth.mp3Frames(8)
        var parser = AudioStreamParser()
        _ = try parser.parse(stream)
        // Back to byte 0, inside the tag: once gave the first packet frame -1152.
        parser.discontinuity(at: 0)
        let packets = try (parser.parse(stream) + parser.finish()).compactMap {
            if case .packet(let packet) = $0 { packet } else { nil }
        }
        #expect(packets.first?.offset == Int64(tag.count))
        #expect(packets.first?.startFrame == 0)
        #expect(packets.allSatisfy { ($0.startFrame ?? 0) >= 0 && ($0.startTime ?? 0) >= 0 })
    }

    @Test func aDiscontinuityInsideAPacketTimesTheNextPacketByItsOwnOffset() throws {
        let stream = Synth.mp3Frames(12)
        var parser = AudioStreamParser()
        _ = try parser.parse(Array(stream[..<2000]))
        // 100 bytes into packet 3: the parser resynchronises at packet 4, whose time must be
        // packet 4's, not that of the packet nearest to the jump.
        let target = 3 * 417 + 100
        parser.discontinuity(at: Int64(target))
        let packets = try (parser.parse(Array(stream[target...])) + parser.finish()).compactMap {
            if case .packet(let packet) = $0 { packet } else { nil }
        }
        let first = try #require(packets.first)
        #expect(first.offset == 4 * 417)
        let packet4Frame: Int64 = 4 * 1152
        #expect(first.startFrame == packet4Frame)
    }
}

/// The widest WAV frames (65535-byte blocks) still make packets of at most 64 KiB, so the
/// parser never holds more than that (a lead from the fuzzing run).
/// A CAF whose packet table has a size over the largest packet (AudioParserFuzzer, the head of
/// its input): the error names the byte where the size passed it, in any split (it named the
/// start of the bytes fed, which moved with the split).
@Test func aCAFPacketSizeTooLargeIsTheSameErrorInAnySplit() throws {
    let hex =
        [
            "636166660001000064657363000000000000002040e58880000000006161632000000002000000000000040000000002",
            "000000006b756b6900000000000000270380808022000000048080801440150018000000000000000000058080800212",
            "1006808080010270616b74000000000000011d000000000000008300000000000204cc00000400000003348256830a82",
            "09822c823b82318231822d825582378252826982528255826b82738264830d825b826a827a825f827282788326827f82",
            "5c8256827683138272830c82478307827282788277825b826c8278827b82768277831a8262825a83098266825d833183",
            "058267825283188255827882618271826b8271830a826c827882678279e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0",
            "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0",
        ].joined()
    let bytes = stride(from: 0, to: hex.count, by: 2).map { start in
        UInt8(hex[hex.index(hex.startIndex, offsetBy: start)..<hex.index(hex.startIndex, offsetBy: start + 2)], radix: 16)!
    }
    let whole = ParserRun(bytes) { bytes.count }
    let error = try #require(whole.error)
    #expect(error.message.contains("a packet of over 65536 bytes"), "\(error.message)")
    for size in [1, 7, 64, 139] {
        #expect(ParserRun(bytes) { size }.error == error, "chunks of \(size)")
    }
}

/// A WAV of 21845 channels of 24 bits (65535-byte frames: a fuzzer's, once parsed into
/// packets of one frame each) is refused, as AIFF and CAF refuse more than 64 channels: no
/// output takes it, and its byte rate does not fit a WAV header's 32 bits.
@Test func aWAVOfThousandsOfChannelsIsRefused() throws {
    var bytes: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
    // fmt: PCM, 21845 channels of 24 bits -> 65535-byte frames.
    let fmt: [UInt16] = [1, 21845]
    bytes += Array("fmt ".utf8) + [16, 0, 0, 0]
    bytes += fmt.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    bytes += [0x44, 0xAC, 0, 0]  // 44100 Hz
    bytes += [0, 0, 0, 0]  // byte rate (not checked)
    bytes += [0xFF, 0xFF, 24, 0]  // block align 65535, 24 bits
    let size = UInt32(3 * 65535)
    bytes += Array("data".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    bytes += [UInt8](repeating: 7, count: Int(size))
    let error = try #require(ParserRun(bytes) { bytes.count }.error)
    #expect(error.code == .unsupportedFormat && error.message.contains("21845 channels"), "\(error.message)")
}
