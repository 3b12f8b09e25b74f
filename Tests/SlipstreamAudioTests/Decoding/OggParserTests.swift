import Foundation
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamAudio
@testable import SlipstreamMedia

/// Builds Ogg pages by hand, for streams the encoders never write.
enum OggPages {
    /// One page of `serial` holding `segments` (lacing values made from the segment sizes: each
    /// packet piece is given as its bytes and whether it ends on this page).
    static func page(
        serial: UInt32 = 1, sequence: UInt32 = 0, granule: Int64 = 0, flags: UInt8 = 0, pieces: [(bytes: [UInt8], ends: Bool)]
    ) -> [UInt8] {
        var lacing: [UInt8] = []
        for piece in pieces {
            var left = piece.bytes.count
            while left >= 255 {
                lacing.append(255)
                left -= 255
            }
            if piece.ends { lacing.append(UInt8(left)) } else { precondition(left == 0, "a piece that goes on fills its segments") }
        }
        var page = Array("OggS".utf8) + [0, flags]
        page += withUnsafeBytes(of: granule.littleEndian, Array.init)
        page += withUnsafeBytes(of: serial.littleEndian, Array.init) + withUnsafeBytes(of: sequence.littleEndian, Array.init)
        page += [0, 0, 0, 0, UInt8(lacing.count)] + lacing + pieces.flatMap(\.bytes)
        let crc = page.withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
        page.replaceSubrange(22..<26, with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        return page
    }

    /// A beginning-of-stream page holding `packet` alone.
    static func first(_ packet: [UInt8], serial: UInt32 = 1) -> [UInt8] {
        page(serial: serial, flags: 2, pieces: [(packet, true)])
    }
}

/// The Ogg parser alone: the same events for any split of the input, bounded held memory,
/// chained links, and hostile or damaged streams.
@Suite(.enabled("sox, oggenc and opusenc make the fixtures") { await OggFixtures.made() }) struct OggParserTests {
    static let names = OggFixtures.vorbis + OggFixtures.opus

    @Test(arguments: names)
    func everySplitGivesTheSameEvents(_ name: String) throws {
        let bytes = try OggFixtures.bytes(name)
        let whole = ParserRun(bytes) { bytes.count }
        #expect(whole.error == nil)
        #expect(!whole.packets.isEmpty)
        let byByte = ParserRun(bytes) { 1 }
        #expect(byByte == whole, "\(byByte.firstDifference(from: whole))")
        var random = SplitMix64(seed: 7)
        let randomRun = ParserRun(bytes) { Int(random.next() % 9000) + 1 }
        #expect(randomRun == whole, "\(randomRun.firstDifference(from: whole))")
        // At most a page and the next page's first bytes are ever held.
        #expect(byByte.maximumHeld <= OggPageHeader.maximumPageSize)
    }

    @Test func theFramesAreTheReferenceDecodersCount() throws {
        // The granule position trims the last packet; Opus's pre-skip its first ones.
        let vorbis = ParserRun(try OggFixtures.bytes("vorbis-q3.ogg")) { 4096 }
        #expect(vorbis.final.trimmedFrameCount == 132_300)
        let opus = ParserRun(try OggFixtures.bytes("opus-64k.opus")) { 4096 }
        #expect(opus.final.trimmedFrameCount == 144_000)
        #expect(opus.final.format?.sampleRate == 48_000)
        #expect(opus.final.tags.title == "First Song")
    }

    @Test func aChainedStreamHasOneFormatAndTitlePerLink() throws {
        let run = ParserRun(try OggFixtures.bytes("vorbis-chained.ogg")) { 1000 }
        let changes = run.events.compactMap { if case .propertiesChanged(let p) = $0 { p } else { nil } }
        let formats = changes.compactMap(\.format?.codecDescription).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(formats == ["Vorbis (Ogg)", "Vorbis (Ogg, link 2)"])
        let titles = changes.compactMap(\.linkTitle?.title).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(titles == ["Some Artist - First Song", "Other Artist - Second Song"])
        #expect(run.final.tags.album == nil)
        #expect(run.final.trimmedFrameCount == Int64(132_300 + 57_330))
    }

    @Test func theTailGivesTheDurationWithoutReadingTheWhole() throws {
        for (name, frames) in [("vorbis-q3.ogg", 132_300), ("opus-64k.opus", 144_000)] {
            let bytes = try OggFixtures.bytes(name)
            let info = try AudioStreamInfo.scan(
                head: Array(bytes.prefix(8192)), tail: Array(bytes.suffix(4096)),
                hints: .init(totalByteCount: Int64(bytes.count)))
            #expect(info.trimmedFrameCount == Int64(frames), "\(name)")
            #expect(info.durationSource == .header)
            #expect(abs((info.duration ?? 0) - 3) < 1e-9)
        }
    }

    @Test func aDamagedPageIsDroppedAndTheRestPlays() throws {
        var bytes = try OggFixtures.bytes("vorbis-q3.ogg")
        let whole = ParserRun(bytes) { bytes.count }
        bytes[bytes.count / 2] ^= 0x55
        let damaged = ParserRun(bytes) { 333 }
        #expect(damaged.error == nil)
        #expect(damaged.final.junkByteCount > 0)
        #expect(damaged.packets.count < whole.packets.count)
        #expect(damaged.packets.count > whole.packets.count - 40)
        // It still decodes, to fewer frames.
        let pcm = try OggDecoderTests.decode(bytes)
        #expect(pcm.count > 0 && pcm.count < 132_300 * 4)
    }

    @Test func aTruncatedStreamEndsCleanly() throws {
        let bytes = try OggFixtures.bytes("opus-64k.opus")
        let whole = ParserRun(bytes) { bytes.count }
        for cut in stride(from: 100, to: bytes.count, by: 997) {
            let run = ParserRun(Array(bytes.prefix(cut))) { 512 }
            if let error = run.error {
                #expect(error.message == "an Ogg stream that ends inside its first page", "cut at \(cut)")
            } else {
                #expect(run.packets.count <= whole.packets.count)
            }
        }
        #expect(ParserRun(Array(bytes.prefix(40))) { 1 }.error?.code == .malformed)
    }

    @Test func anOggCodecItCannotPlayIsRefusedByName() {
        let speex =
            OggPages.first(Array("Speex   1.2".utf8) + [UInt8](repeating: 0, count: 69))
            + OggPages.page(sequence: 1, pieces: [([1, 2, 3], true)])
        let run = ParserRun(speex) { 1 }
        #expect(run.error?.code == .unsupportedFormat)
        #expect(run.error?.message == "Ogg Speex cannot be played (Ogg Vorbis, Opus and FLAC can)")
    }

    @Test func aBadIdentificationHeaderIsAnError() {
        // An OpusHead of 0 channels.
        let head = Array("OpusHead".utf8) + [1, 0, 0x38, 1, 0x80, 0xBB, 0, 0, 0, 0, 0]
        let run = ParserRun(OggPages.first(head) + OggPages.page(sequence: 1, pieces: [([1], true)])) { 7 }
        #expect(run.error?.code == .malformed)
        #expect(run.error?.message == "Ogg Opus stream with a bad identification header")
        #expect(run.error?.offset == 0)
    }

    /// Found by AudioParserFuzzer: packets of no frames (all within Opus's pre-skip) made the
    /// mean bytes per frame infinite, and a seek-table query trapped.
    @Test func packetsOfNoFramesLeaveTheSeekTableFinite() throws {
        let head = Array("OpusHead".utf8) + [1, 2, 0x60, 0xEA, 0x80, 0xBB, 0, 0, 0, 0, 0]
        let tags = Array("OpusTags".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
        let packets = [[UInt8]](repeating: [0xFC, 1, 2, 3], count: 5).map { ($0, true) }
        let stream =
            OggPages.first(head) + OggPages.page(sequence: 1, pieces: [(tags, true)])
            + OggPages.page(sequence: 2, granule: 4800, pieces: packets)
        let run = ParserRun(stream) { 5 }
        #expect(run.error == nil)
        #expect(run.packets.count == 5 && run.packets.allSatisfy { $0.frameCount == 0 })
        // No answer (no mean yet), rather than a trap.
        for time in [0, 1, 1e9] {
            let point = run.seekTable.offset(forTime: time)
            #expect(point == nil || (point!.offset >= 0 && point!.time.isFinite))
        }
    }

    @Test func aPacketLargerThanTheLimitIsAnError() {
        let head = Array("OpusHead".utf8) + [1, 2, 0x38, 1, 0x80, 0xBB, 0, 0, 0, 0, 0]
        var stream = OggPages.first(head) + OggPages.page(sequence: 1, pieces: [(Array("OpusTags".utf8) + [0, 0, 0, 0, 0, 0, 0, 0], true)])
        let piece = [UInt8](repeating: 0xFC, count: 255 * 255)
        for sequence in 2..<22 {
            stream += OggPages.page(sequence: UInt32(sequence), flags: sequence == 2 ? 0 : 1, pieces: [(piece, false)])
        }
        let run = ParserRun(stream) { 4096 }
        #expect(run.error?.code == .malformed)
        #expect(run.error?.message.hasPrefix("Ogg packet of more than") == true)
    }

    @Test func aHugeCommentHeaderIsReadWithoutHoldingIt() async throws {
        // A 300 KB comment (as a cover picture would be), then the title: the title is past the
        // part kept, the stream plays, and no more than the limit is held for the comment.
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let comments = folder + "/comments.txt"
        let picture = String(repeating: "QUJD", count: 75_000)
        try "METADATA_BLOCK_PICTURE=\(picture)\nTITLE=After The Picture\nARTIST=A\n".write(
            toFile: comments, atomically: true, encoding: .utf8)
        try await ExternalProgram.run(["vorbiscomment", "-w", "-c", comments, try OggFixtures.path("vorbis-q3.ogg"), folder + "/big.ogg"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/big.ogg")))
        #expect(bytes.count > 300_000)
        let run = ParserRun(bytes) { 7000 }
        #expect(run.error == nil)
        #expect(run.final.trimmedFrameCount == 132_300)
        #expect(run.final.tags.title == nil)
        #expect(try OggDecoderTests.decode(bytes) == OggDecoderTests.decode(try OggFixtures.bytes("vorbis-q3.ogg")))
    }

    @Test func aBadSetupHeaderIsAnError() throws {
        let bytes = try OggFixtures.bytes("vorbis-q3.ogg")
        // The setup header's "\u{5}vorbis" signature, damaged, and its page's checksum made good.
        let signature = Array("\u{5}vorbis".utf8)
        let at = try #require((0..<bytes.count - 7).first { Array(bytes[$0..<$0 + 7]) == signature })
        var damaged = bytes
        damaged[at + 1] = UInt8(ascii: "x")
        let pageStart = try #require((0...at).reversed().first { damaged[$0..<$0 + 4].elementsEqual("OggS".utf8) })
        let header = try #require(damaged[pageStart...].withUnsafeBytes { OggPageHeader($0) })
        var size = header.headerSize
        for i in 0..<header.segmentCount { size += Int(damaged[pageStart + 27 + i]) }
        damaged.replaceSubrange(pageStart + 22..<pageStart + 26, with: [0, 0, 0, 0])
        let crc = damaged[pageStart..<pageStart + size].withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
        damaged.replaceSubrange(pageStart + 22..<pageStart + 26, with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        let run = ParserRun(damaged) { 4096 }
        #expect(run.error?.code == .malformed)
        #expect(run.error?.message == "Ogg stream without its Vorbis setup header")
    }

    /// After a jump to any offset, the packets from the first page that states a granule
    /// position on have the start frames and frame counts they have in a run from the start.
    @Test(arguments: ["vorbis-q3.ogg", "opus-64k.opus", "vorbis-long.ogg"])
    func afterAJumpThePositionsAreExactFromTheFirstGranule(_ name: String) throws {
        let bytes = try OggFixtures.bytes(name)
        let whole = ParserRun(bytes) { 65536 }
        let byOffset = Dictionary(whole.packets.map { ($0.offset, $0) }) { a, _ in a }
        var random = SplitMix64(seed: 3)
        for _ in 0..<20 {
            let target = Int(random.next() % UInt64(bytes.count))
            var parser = AudioStreamParser()
            var sink = AudioStreamEventCollector()
            try bytes.withUnsafeBytes { raw in
                try parser.parse(UnsafeRawBufferPointer(rebasing: raw[..<4096]), into: &sink)
                parser.discontinuity(at: Int64(target))
                sink.events.removeAll()
                try parser.parse(UnsafeRawBufferPointer(rebasing: raw[target...]), into: &sink)
                try parser.finish(into: &sink)
            }
            let packets = sink.events.compactMap { if case .packet(let packet) = $0 { packet } else { nil } }
            let placed = packets.filter { $0.startFrame != nil }
            #expect(packets.count - placed.count <= 60, "\(name) at \(target): \(packets.count - placed.count) packets unplaced")
            for packet in placed {
                let reference = try #require(byOffset[packet.offset], "\(name) at \(target): no packet at \(packet.offset)")
                // Vorbis's first packet after a jump only primes the decoder: no frames (its
                // place is where the next one starts).
                if packet.frameCount == 0, packet == packets.first { continue }
                #expect(packet.startFrame == reference.startFrame, "\(name) at \(target): packet at \(packet.offset)")
                #expect(packet.frameCount == reference.frameCount, "\(name) at \(target)")
            }
        }
    }

    /// FLAC in Ogg (`flac --ogg`): STREAMINFO as the format's setup bytes, each frame a packet
    /// of its block size, the total the sample count. (Its decoder is the FLAC one.)
    @Test func flacInOggIsParsed() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await ExternalProgram.run([
            "sox", "-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", folder + "/a.wav", "synth", "2.5", "pinknoise",
        ])
        try await ExternalProgram.run(["flac", "--silent", "--ogg", "-T", "TITLE=Ogg FLAC", "-o", folder + "/a.oga", folder + "/a.wav"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/a.oga")))
        let run = ParserRun(bytes) { 1000 }
        #expect(run.error == nil)
        let format = try #require(run.final.format)
        #expect(format.codec == .flac && format.sampleRate == 44100 && format.channels == 2)
        #expect(format.magicCookie.count == 34)
        #expect(run.final.trimmedFrameCount == 110_250)
        #expect(run.packets.allSatisfy { $0.frameCount == 4096 } == false)
        #expect(run.packets.dropLast().allSatisfy { $0.frameCount == 4096 })
        #expect(run.final.tags.title == "Ogg FLAC")
        #expect(ParserRun(bytes) { 1 } == run)
        // Its head alone gives the exact length, from STREAMINFO (it was estimated: 60.479 s
        // for a 60 s file).
        var parser = AudioStreamParser(hints: .init(totalByteCount: Int64(bytes.count)))
        _ = try parser.parse(Array(bytes.prefix(bytes.count / 4)))
        #expect(parser.properties.duration == 2.5)
        #expect(parser.properties.durationSource == .header)
    }
}
