import Testing
@testable import SlipstreamAudio

/// What `scripts/fuzz.sh` found, kept as tests: seek-table queries at extreme times and offsets,
/// and packet times after a discontinuity that does not fall on a packet.
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
