import Foundation
import TestSupport
import Testing

import MediaTestSupport
@testable import SlipstreamMedia

/// The MP4 stage on ffmpeg's M4A files: the same events for any split, bounded held bytes, the
/// index after the audio (one jump over the audio, one back), tags, chapters, gapless figures,
/// fragments, and exact seek points from the sample tables.
@Suite struct MP4ParserTests {
    static let files = [
        "mp4-aac-moov-end.m4a", "mp4-aac-faststart.m4a", "mp4-aac-22050-mono.m4a", "mp4-aac-chapters.m4b",
        "mp4-aac-fragmented.mp4",
    ]

    @Test(arguments: files) func anySplitGivesTheSameEvents(name: String) throws {
        let bytes = try AudioFixtures.bytes(name)
        let whole = ParserRun(bytes, chunkSizes: { bytes.count })
        #expect(whole.error == nil)
        var random = SeededRandom(state: 15)
        let runs = [
            ParserRun(bytes, chunkSizes: { 1 }), ParserRun(bytes, chunkSizes: { Int.random(in: 1...9000, using: &random) }),
            ParserRun(bytes, jumps: true, chunkSizes: { 4096 }),
        ]
        for run in runs { #expect(run == whole, "\(run.firstDifference(from: whole))") }
        // Only a sample or a box held whole is held: never the tables or the audio.
        #expect(runs[0].maximumHeld <= 4096)
    }

    @Test(arguments: files) func formatTotalsAndGaplessFigures(name: String) throws {
        let run = ParserRun(try AudioFixtures.bytes(name), chunkSizes: { 65536 })
        let format = try #require(run.final.format)
        #expect(format.codec == .aacRaw)
        #expect(format.codecDescription == "AAC LC (MP4)")
        #expect(format.sampleRate == (name.contains("22050") ? 22050 : 44100))
        #expect(format.channels == (name.contains("mono") ? 1 : 2))
        // ffmpeg's AudioSpecificConfig: LC, then the sync extension saying "no SBR".
        #expect(format.magicCookie.count == 5)
        let frames = try FixtureFacts.mp4SourceFrames(name)
        let packets = Int64(run.packets.count)
        #expect(packets == (frames + 1024 + 1023) / 1024)
        if name.contains("fragmented") {
            // The fragments' empty tables state nothing: every packet counted.
            #expect(run.final.durationSource == .counted)
            return
        }
        #expect(run.final.trimmedFrameCount == frames)
        #expect(run.final.encoderDelay == 1024)
        #expect(run.final.durationSource == .header || run.final.durationSource == .counted)
        #expect(run.final.isSeekableByTime)
        #expect(run.packets.enumerated().allSatisfy { $0.element.startFrame == Int64($0.offset) * 1024 })
    }

    @Test func theIndexAfterTheAudioIsReadBeforeTheAudio() throws {
        let bytes = try AudioFixtures.bytes("mp4-aac-moov-end.m4a")
        let run = ParserRun(bytes, jumps: true, chunkSizes: { 4096 })
        // Over the audio to the index, then back to the audio: every audio byte fed once.
        #expect(run.jumpCount == 2)
        #expect(run.bytesFed < bytes.count + 8192)
        #expect(run.final.tags.title == "Box Title")
        #expect(run.final.tags.artist == "Box Artist")
        #expect(run.final.tags.album == "Box Album")
        #expect(run.final.tags.kinds == [.mp4])
        #expect(run.packets.first?.offset == 44)
    }

    @Test func neroChaptersAndTheChapterTrackIsNotPlayed() throws {
        let run = ParserRun(try AudioFixtures.bytes("mp4-aac-chapters.m4b"), chunkSizes: { 1000 })
        #expect(run.final.chapters == [AudioChapter(startTime: 0, title: "Opening"), AudioChapter(startTime: 1.25, title: "Second part")])
        #expect(run.final.tags.title == "Chapter Book")
        // The text track's samples lie at the start of mdat; the audio's after them.
        #expect(run.packets.count == 131)
    }

    /// ffmpeg writes both kinds of chapters; without the Nero ones (`chpl` made a `free` box),
    /// the QuickTime chapter track's titles are read from `mdat` as the audio passes, index
    /// first or last, in any split.
    @Test(arguments: ["mp4-aac-chapters.m4b", "mp4-aac-chapters-faststart.m4b"])
    func quickTimeChapterTracks(name: String) throws {
        let nero = try AudioFixtures.bytes(name)
        let chapters = [AudioChapter(startTime: 0, title: "Opening"), AudioChapter(startTime: 1.25, title: "Second part")]
        let quickTime = nero.replacingFirst(Array("chpl".utf8), with: Array("free".utf8))
        #expect(quickTime != nero)
        for bytes in [nero, quickTime] {
            let whole = ParserRun(bytes, jumps: true, chunkSizes: { bytes.count })
            #expect(whole.error == nil)
            #expect(whole.final.chapters == chapters)
            #expect(whole.packets.count == 131)
            let bytewise = ParserRun(bytes, jumps: true, chunkSizes: { 1 })
            #expect(bytewise == whole, "\(bytewise.firstDifference(from: whole))")
        }
    }

    @Test func aChapterTrackWithABrokenTitleGivesNoChapter() throws {
        var bytes = try AudioFixtures.bytes("mp4-aac-chapters-faststart.m4b").replacingFirst(Array("chpl".utf8), with: Array("free".utf8))
        // The first title's length (in mdat, after the index) made 65,535: past its sample.
        let mdat = try #require(bytes.firstRange(of: Array("mdat".utf8)))
        let title = try #require(bytes[mdat.upperBound...].firstRange(of: Array("Opening".utf8)))
        bytes[title.lowerBound - 2] = 0xFF
        bytes[title.lowerBound - 1] = 0xFF
        let run = ParserRun(bytes, chunkSizes: { 4096 })
        #expect(run.error == nil)
        #expect(run.final.chapters == [AudioChapter(startTime: 1.25, title: "Second part")])
    }

    @Test func seekPointsAreExactPackets() throws {
        let bytes = try AudioFixtures.bytes("mp4-aac-faststart.m4a")
        let run = ParserRun(bytes, chunkSizes: { bytes.count })
        for time in [0.0, 0.5, 1.7, 2.99, 60] {
            let point = try #require(run.seekTable.offset(forTime: time))
            #expect(point.isExact)
            let packet = try #require(run.packets.first { $0.offset == point.offset })
            #expect(packet.startFrame == point.frame)
            #expect(point.frame <= Int64(time * 44100) || time == 60)
        }
        // After a discontinuity at a packet's offset, its frame is known again.
        var parser = AudioStreamParser()
        _ = try parser.parse(bytes)
        let target = run.packets[57]
        parser.discontinuity(at: target.offset)
        let events = try bytes[Int(target.offset)...].withUnsafeBytes { _ in try parser.parse(Array(bytes[Int(target.offset)...])) }
        let packets = events.compactMap { if case .packet(let p) = $0 { p } else { nil } }
        #expect(packets.first == target)
        #expect(packets.count == run.packets.count - 57)
    }

    @Test func truncatedAndHostileFilesGiveClearErrors() throws {
        let bytes = try AudioFixtures.bytes("mp4-aac-moov-end.m4a")
        // Cut inside the index: the file ends before it.
        let cut = ParserRun(Array(bytes[..<(bytes.count - 200)]), chunkSizes: { 4096 })
        #expect(cut.error?.code == .malformed)
        #expect(cut.error?.message.contains("moov") == true)
        // A box larger than its parent.
        var broken = try AudioFixtures.bytes("mp4-aac-faststart.m4a")
        broken[36 + 3] = 0xFF  // mvhd, first box in moov (ftyp 28 + free 0 + moov header 8)
        let overrun = ParserRun(broken, chunkSizes: { 4096 })
        #expect(overrun.error?.code == .malformed)
        // An MP4 of another codec is refused by name.
        let alac = Array(bytes[..<bytes.count]).replacingFirst(Array("mp4a".utf8), with: Array("alac".utf8))
        #expect(ParserRun(alac, chunkSizes: { 4096 }).error?.message == "MP4 with ALAC audio cannot be played (AAC can)")
        // MP4ParserFuzzer's find: a time-to-sample entry of 2^32-1 samples of 2^32-1 ticks each
        // (and a track length past Int64 once scaled) trapped; it is now only a long track.
        var huge = try AudioFixtures.bytes("mp4-aac-faststart.m4a")
        let stts = try #require(huge.firstRange(of: Array("stts".utf8))?.lowerBound)
        for at in stts + 12..<stts + 20 { huge[at] = 0xFF }
        let long = ParserRun(huge, chunkSizes: { 4096 })
        #expect(long.error == nil || long.error?.code == .malformed)
    }

    /// AudioParserFuzzer's find: no audio and no index, the last box claiming 3 GB past the
    /// file's end. A reader that jumps over it and one that reads to the end got the error at
    /// two offsets (the box's claimed end, the file's); both name the box now.
    @Test func aFileEndingInsideAHugeBoxFailsAtTheSameOffsetJumpedOrRead() throws {
        func box(_ type: String, _ size: UInt32, _ body: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: size.bigEndian) { Array($0) } + Array(type.utf8) + body
        }
        let ftyp = box("ftyp", 20, Array("M4A ".utf8) + [0, 0, 2, 0] + Array("isom".utf8))
        let junk = box("mdaR", 1008, [UInt8](repeating: 0x2C, count: 1000))
        let huge = box("free", 0xC000_0000, [UInt8](repeating: 0xB2, count: 3000))
        let bytes = ftyp + junk + huge
        let read = ParserRun(bytes, chunkSizes: { 512 })
        let jumped = ParserRun(bytes, jumps: true, chunkSizes: { 512 })
        #expect(read.error?.code == .malformed)
        #expect(read.error?.offset == Int64(ftyp.count + junk.count))
        #expect(jumped.error == read.error)
    }
}

extension Array where Element == UInt8 {
    /// A copy with the first occurrence of `pattern` replaced by `replacement` (of the same length).
    func replacingFirst(_ pattern: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        var copy = self
        guard let i = indices.first(where: { $0 + pattern.count <= count && Array(self[$0..<$0 + pattern.count]) == pattern }) else {
            return copy
        }
        copy.replaceSubrange(i..<i + pattern.count, with: replacement)
        return copy
    }
}
