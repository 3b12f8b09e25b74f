import Foundation
import TestSupport
import Testing

import MediaTestSupport
@testable import SlipstreamMedia

/// Fragmented MP4 (ffmpeg's `frag_keyframe+empty_moov+default_base_moof`, 1 s fragments): packets
/// placed by their fragment's decode time (`tfdt`), a segment index (`sidx`) as exact seek points
/// and the length, and a jump into the middle of the audio going on at the next fragment.
@Suite struct MP4FragmentTests {
    static let plain = "mp4-aac-long-fragmented.mp4", indexed = "mp4-aac-long-fragmented-sidx.mp4"

    /// The offsets of the top-level boxes of `type` in `bytes`.
    static func topLevelBoxes(_ type: String, in bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = [], at = 0
        while at + 8 <= bytes.count {
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) == type { offsets.append(at) }
            guard size >= 8 else { break }
            at += size
        }
        return offsets
    }

    @Test(arguments: [plain, indexed]) func anySplitGivesTheSameEventsAndPacketsAreInOrder(name: String) throws {
        let bytes = try AudioFixtures.bytes(name)
        let whole = ParserRun(bytes, chunkSizes: { bytes.count })
        #expect(whole.error == nil)
        var random = SeededRandom(state: 16)
        let split = ParserRun(bytes, chunkSizes: { Int.random(in: 1...5000, using: &random) })
        #expect(split == whole, "\(split.firstDifference(from: whole))")
        #expect(whole.packets.count > 1700)
        #expect(whole.packets.enumerated().allSatisfy { $0.element.startFrame == Int64($0.offset) * 1024 })
        #expect(whole.final.isSeekableByTime)
    }

    @Test func theDecodeTimePlacesThePackets() throws {
        // Every tfdt moved 10 s (441,000 ticks) on, as a later segment of a stream states it.
        var bytes = try AudioFixtures.bytes(Self.plain)
        var patched = 0
        for moof in Self.topLevelBoxes("moof", in: bytes) {
            guard let at = (moof..<moof + 200).first(where: { String(decoding: bytes[$0..<$0 + 4], as: UTF8.self) == "tfdt" }) else {
                continue
            }
            // The time after the version and flags: 64 bits in version 1 (ffmpeg's), else 32.
            let (field, size) = bytes[at + 4] == 1 ? (at + 8, 8) : (at + 8, 4)
            let time = bytes[field..<field + size].reduce(0) { $0 << 8 | Int($1) } + 441_000
            for i in 0..<size { bytes[field + i] = UInt8(truncatingIfNeeded: time >> (8 * (size - 1 - i))) }
            patched += 1
        }
        #expect(patched >= 40)
        let run = ParserRun(bytes, chunkSizes: { 65536 })
        #expect(run.error == nil)
        #expect(run.packets.enumerated().allSatisfy { $0.element.startFrame == 441_000 + Int64($0.offset) * 1024 })
    }

    @Test func theSegmentIndexGivesExactSeekPointsAndTheLength() throws {
        let bytes = try AudioFixtures.bytes(Self.indexed)
        let run = ParserRun(bytes, hints: .init(totalByteCount: Int64(bytes.count)), chunkSizes: { 4096 })
        let moofs = Self.topLevelBoxes("moof", in: bytes)
        // Past the first fragment, which the frame index of the packets seen covers.
        for time in [1.5, 12.5, 39.9] {
            let point = try #require(run.seekTable.offset(forTime: time))
            #expect(point.method == .seekPoints)
            #expect(moofs.contains(Int(point.offset)), "\(time) s: \(point.offset)")
            let first = try #require(run.packets.first { $0.offset > point.offset })
            #expect(first.startFrame == point.frame && point.frame <= Int64(time * 44100))
        }
        // The length from the index, read with the head of the file: its sample durations, the
        // last one short (ffprobe's 40.023220 s: the 40 s source and 1,024 frames of priming), not
        // the packets' 1,024 frames each.
        var parser = AudioStreamParser()
        _ = try parser.parse(Array(bytes[..<20000]))
        #expect(parser.properties.durationSource == .header)
        #expect(parser.properties.trimmedFrameCount == 1_765_024)
        #expect(Int64(run.packets.count) * 1024 - 1_765_024 < 1024)
    }

    @Test(arguments: [plain, indexed]) func aJumpIntoTheAudioGoesOnAtTheNextFragment(name: String) throws {
        let bytes = try AudioFixtures.bytes(name)
        let whole = ParserRun(bytes, chunkSizes: { bytes.count })
        for jump in [bytes.count / 3, bytes.count / 2 + 7, bytes.count - 5000] {
            var parser = AudioStreamParser()
            _ = try parser.parse(Array(bytes[..<2000]))
            parser.discontinuity(at: Int64(jump))
            var events = try parser.parse(Array(bytes[jump...]))
            events += try parser.finish()
            let packets = events.compactMap { if case .packet(let p) = $0 { p } else { nil } }
            let next = try #require(Self.topLevelBoxes("moof", in: bytes).first { $0 >= jump })
            let expected = whole.packets.filter { $0.offset > next }
            #expect(packets == expected, "jump to \(jump): \(packets.first.map { "\($0)" } ?? "none")")
        }
    }

    @Test func hostileFragmentsGiveClearErrorsOrNothing() throws {
        let bytes = try AudioFixtures.bytes(Self.indexed)
        let sidx = try #require(Self.topLevelBoxes("sidx", in: bytes).first)
        // A segment index claiming 65,535 references in its box, and a timescale of 0.
        for (at, value) in [(sidx + 8 + 30, [0xFF, 0xFF] as [UInt8]), (sidx + 8 + 8, [0, 0, 0, 0])] {
            var broken = bytes
            broken.replaceSubrange(at..<at + value.count, with: value)
            let run = ParserRun(broken, hints: .init(totalByteCount: Int64(bytes.count)), chunkSizes: { 4096 })
            #expect(run.error == nil)
            #expect(run.seekTable.tableFrames.isEmpty)
            #expect(run.final.durationSource == .counted)
        }
        // A decode time near 2^64: placed at the largest time (2^40 ticks), no overflow.
        var late = bytes
        let moof = try #require(Self.topLevelBoxes("moof", in: bytes).first)
        let tfdt = try #require((moof..<moof + 200).first { String(decoding: bytes[$0..<$0 + 4], as: UTF8.self) == "tfdt" })
        late.replaceSubrange(tfdt + 8..<tfdt + 12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let run = ParserRun(late, chunkSizes: { 4096 })
        #expect(run.error == nil)
        #expect(run.packets.first?.startFrame == MP4SegmentIndex.maximumTime)
    }
}
