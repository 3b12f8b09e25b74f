import Foundation
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamMedia

@Suite struct FLACParserTests {
    @Test(arguments: FixtureFacts.flacFixtures)
    func everyFrameIsAPacketWithItsExactPlaceAndTheLengthIsExact(name: String) async throws {
        let bytes = try AudioFixtures.bytes(name)
        let run = FixtureFacts.parseEveryWay(bytes, hints: .init(totalByteCount: Int64(bytes.count)))
        #expect(run.error == nil)
        let total = try await FixtureFacts.metaflac(name, "total-samples")
        let format = try #require(run.final.format)
        #expect(format.codec == .flac)
        #expect(format.sampleRate == Int(try await FixtureFacts.metaflac(name, "sample-rate")))
        #expect(format.channels == Int(try await FixtureFacts.metaflac(name, "channels")))
        #expect(format.codecDescription == "FLAC \(try await FixtureFacts.metaflac(name, "bps"))-bit")
        #expect(format.magicCookie.count == 34)
        #expect(run.final.trimmedFrameCount == total)
        #expect(run.final.duration == Double(total) / Double(format.sampleRate))
        #expect(run.final.junkByteCount == 0)
        #expect(run.final.isSeekableByTime)
        // Packets follow one another without a gap, each where the frame header says.
        var frame: Int64 = 0
        var offset = try #require(run.packets.first?.offset)
        for packet in run.packets {
            #expect(packet.startFrame == frame && packet.offset == offset)
            frame += Int64(packet.frameCount)
            offset += Int64(packet.size)
        }
        #expect(frame == total)
        #expect(offset == Int64(bytes.count))
        // Held: a frame (and the next header), never the 90 KB picture.
        #expect(run.maximumHeld < 32 * 1024)
    }

    @Test func tagsSeekPointsAndTheDurationFromTheHeadAlone() async throws {
        let name = "flac-16-seektable.flac"
        let bytes = try AudioFixtures.bytes(name)
        let run = FixtureFacts.parseEveryWay(bytes)
        let tags = run.final.tags
        #expect(tags.title == "Flac Title" && tags.artist == "Flac Artist" && tags.album == "Flac Album")
        #expect(tags.kinds == [.vorbisComment])
        let idRun = FixtureFacts.parseEveryWay(try AudioFixtures.bytes("flac-id3v2.flac"))
        #expect(idRun.final.tags.kinds == [.id3v22, .vorbisComment])
        #expect(idRun.packets.count == run.packets.count)

        // The head (metadata and a few frames) gives the exact duration from STREAMINFO.
        let dataOffset = try #require(run.packets.first?.offset)
        var parser = AudioStreamParser(hints: .init(totalByteCount: Int64(bytes.count)))
        _ = try parser.parse(Array(bytes[..<Int(dataOffset + 20_000)]))
        let total = try await FixtureFacts.metaflac(name, "total-samples")
        #expect(parser.properties.duration == Double(total) / 44100)
        #expect(parser.properties.durationSource == .header)
        #expect(parser.properties.bitRate?.source == .vbrHeader)

        // SEEKTABLE: a point every second, each exactly at a packet, and exact.
        for second in [0, 1, 2] {
            let point = try #require(parser.seekTable.offset(forTime: Double(second) + 0.5))
            #expect(point.method == .seekPoints && point.isExact)
            #expect(point.frame == Int64(second) * 44100 / 4096 * 4096 || point.frame == Int64(second * 44100))
            let packet = try #require(run.packets.first { $0.offset == point.offset })
            #expect(packet.startFrame == point.frame)
        }
    }

    @Test func afterASeekPacketTimesComeFromTheFrameHeaders() throws {
        let bytes = try AudioFixtures.bytes("flac-24-mono.flac")
        let whole = ParserRun(bytes) { bytes.count }
        let target = whole.packets[7]
        var parser = AudioStreamParser()
        _ = try parser.parse(Array(bytes[..<Int(whole.packets[1].offset)]))
        // An offset inside packet 6: the parser finds packet 7 by its sync.
        parser.discontinuity(at: target.offset - 100)
        let events = try parser.parse(Array(bytes[Int(target.offset - 100)...])) + parser.finish()
        let packets = events.compactMap { if case .packet(let packet) = $0 { packet } else { nil } }
        #expect(packets.first == target)
        #expect(packets.count == whole.packets.count - 7)
    }

    /// Found by FLACParserFuzzer: a discontinuity inside the metadata. Before STREAMINFO nothing
    /// can be understood (it once read on and found another format); after it, the format is
    /// told at the first frame found, before its packet.
    @Test func aDiscontinuityInsideTheMetadata() throws {
        let bytes = try AudioFixtures.bytes("flac-16-seektable.flac")
        let whole = ParserRun(bytes) { bytes.count }
        for (cut, expectsPackets) in [(20, false), (5000, true)] {
            var parser = AudioStreamParser()
            _ = try parser.parse(Array(bytes[..<cut]))
            parser.discontinuity(at: 60_000)
            let events = try parser.parse(Array(bytes[60_000...])) + parser.finish()
            let packets = events.compactMap { if case .packet(let packet) = $0 { packet } else { nil } }
            #expect(packets.isEmpty != expectsPackets)
            if expectsPackets {
                let first = try #require(events.firstIndex { if case .packet = $0 { true } else { false } })
                #expect(events[..<first].contains { if case .propertiesChanged(let p) = $0 { p.format != nil } else { false } })
                #expect(packets.first == whole.packets.first { $0.offset >= 60_000 })
            } else {
                #expect(parser.properties.format == nil)
            }
        }
    }

    @Test func damagedFramesAreDroppedAndTheRestIsKept() throws {
        var bytes = try AudioFixtures.bytes("flac-24-mono.flac")
        let whole = ParserRun(bytes) { bytes.count }
        let damaged = whole.packets[3]
        bytes[Int(damaged.offset) + damaged.size / 2] ^= 0x10
        let run = FixtureFacts.parseEveryWay(bytes)
        #expect(run.error == nil)
        #expect(run.packets.count == whole.packets.count - 1)
        #expect(!run.packets.contains { $0.offset == damaged.offset })
        #expect(run.final.junkByteCount == Int64(damaged.size))

        // Cut in the middle of the frame before the last: the frames before it (but the damaged
        // one), the rest junk.
        let cutFrame = whole.packets[whole.packets.count - 2]
        let end = Int(cutFrame.offset) + cutFrame.size / 2
        let cut = FixtureFacts.parseEveryWay(Array(bytes[..<end]))
        #expect(cut.packets.count == whole.packets.count - 3)
        #expect(cut.error == nil)
    }

    @Test(arguments: [
        (
            "no STREAMINFO", Array("fLaC".utf8) + [0x84, 0, 0, 8] + [UInt8](repeating: 0, count: 8),
            "FLAC metadata block 4 before STREAMINFO"
        ),
        (
            "short STREAMINFO", Array("fLaC".utf8) + [0x80, 0, 0, 33] + [UInt8](repeating: 0, count: 33),
            "FLAC STREAMINFO of 33 bytes, or a second one"
        ),
        (
            "zero rate", Array("fLaC".utf8) + [0x80, 0, 0, 34] + [UInt8](repeating: 0, count: 34),
            "FLAC STREAMINFO with fields out of range"
        ),
    ])
    func hostileMetadataGivesAClearError(_ name: String, bytes: [UInt8], message: String) {
        let run = ParserRun(bytes) { 1 }
        #expect(run.error?.code == .malformed, "\(name)")
        #expect(run.error?.message == message)
        #expect(run.error?.offset == 4)
    }

    @Test func frameHeaderFields() {
        // Fixed blocking, 4096-sample block, 44.1 kHz, stereo, 16-bit, frame 0, CRC-8.
        var header: [UInt8] = [0xFF, 0xF8, 0xC9, 0x18, 0x00]
        header.append(header.withUnsafeBytes { FLACChecksum.crc8($0) })
        let read = header.withUnsafeBytes { FLACFrameHeader.read($0) }
        #expect(
            read
                == .header(
                    FLACFrameHeader(
                        size: 6, blockSize: 4096, sampleRate: 44100, channels: 2, bitsPerSample: 16,
                        isVariableBlockSize: false, number: 0)))
        header[5] ^= 1
        #expect(header.withUnsafeBytes { FLACFrameHeader.read($0) } == .invalid)
        // Variable blocking, a 2-byte sample number, an 8-bit block size at the end.
        var variable: [UInt8] = [0xFF, 0xF9, 0x69, 0x18, 0xC4, 0x80, 99]
        variable.append(variable.withUnsafeBytes { FLACChecksum.crc8($0) })
        guard case .header(let parsed) = variable.withUnsafeBytes({ FLACFrameHeader.read($0) }) else {
            Issue.record("no header")
            return
        }
        #expect(parsed.number == 256 && parsed.blockSize == 100 && parsed.isVariableBlockSize && parsed.size == 8)
        #expect(variable.prefix(5).withUnsafeBytes { FLACFrameHeader.read($0) } == .need(8))
    }
}
