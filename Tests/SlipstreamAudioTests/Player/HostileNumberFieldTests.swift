import Foundation
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamAudio

/// Numbers in containers' fields that a hostile file can set to anything: each is bounded where
/// it is read, or saturates where it is added, so that no later sum traps (issue 28: "any value
/// that reaches an integer conversion unchecked").
@Suite struct HostileNumberFieldTests {
    /// A real FLAC file whose first seek point's offset is 2^63 - 16: the point is dropped (it
    /// overflowed added to the audio's start), the others kept, the stream parsed as before.
    @Test(.enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"))
    func aFLACSeekPointPastAnyFileIsDropped() throws {
        var bytes = try AudioFixtures.bytes("flac-16-seektable.flac")
        let original = ParserRun(bytes) { bytes.count }
        // The metadata blocks after "fLaC": a header byte (last flag, type), then a 24-bit length.
        var at = 4
        while bytes[at] & 0x7F != 3 {
            at += 4 + (Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
        }
        // The first point: its frame (8 bytes), then its offset (8 bytes).
        for i in 0..<8 { bytes[at + 4 + 8 + i] = i == 0 ? 0x7F : (i == 7 ? 0xF0 : 0xFF) }
        let patched = ParserRun(bytes) { bytes.count }
        #expect(patched.error == nil)
        #expect(patched.packets == original.packets)
        #expect(patched.seekTable.tableOffsets.allSatisfy { $0 < Int64(bytes.count) })
        #expect(patched.seekTable.tableOffsets.count == original.seekTable.tableOffsets.count - 1)
    }

    /// An Ogg Vorbis page whose granule is 2^63 - 2, followed by more audio: positions saturate.
    @Test(.enabled(if: OggFixtures.folder != nil, "run with scripts/test.sh (the Ogg fixtures)"))
    func anOggGranuleNearTheLimitSaturates() throws {
        var bytes = try OggFixtures.bytes("vorbis-q3.ogg")
        // The fourth page (after the three header pages' first two pages): a page of audio.
        var pages: [Int] = []
        var at = 0
        while at + 27 <= bytes.count, pages.count < 4 {
            pages.append(at)
            let segments = Int(bytes[at + 26])
            at += 27 + segments + bytes[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
        }
        let page = try #require(pages.last)
        let end = page + 27 + Int(bytes[page + 26]) + bytes[(page + 27)..<(page + 27 + Int(bytes[page + 26]))].reduce(0) { $0 + Int($1) }
        let granule = UInt64(Int64.max - 1)
        for i in 0..<8 { bytes[page + 6 + i] = UInt8(truncatingIfNeeded: granule >> (8 * UInt64(i))) }
        for i in 22..<26 { bytes[page + i] = 0 }
        let crc = bytes[page..<end].withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
        for i in 0..<4 { bytes[page + 22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        let run = ParserRun(bytes) { 4096 }
        #expect(run.packets.count > 10)
        #expect(run.packets.allSatisfy { ($0.startFrame ?? 0) >= 0 })
    }

    /// iTunes' gapless figures with 2^63 - 1 frames are not figures.
    @Test func anITunSMPBOfEndlessFramesIsIgnored() {
        #expect(MP4LeafBoxes.iTunSMPB(" 00000000 00000840 00000000 7FFFFFFFFFFFFFFF") == nil)
        #expect(MP4LeafBoxes.iTunSMPB(" 00000000 00000840 000001C0 0000000000AC4400") != nil)
    }

    /// A queue limit in bytes past what can be allocated is held to 1 GiB.
    @Test func aByteLimitPastAnyMemoryIsHeld() {
        let format = AudioFormat(codec: .mp3, codecDescription: "MP3", sampleRate: 44100, channels: 2, framesPerPacket: 1152)
        #expect(PacketQueue.byteLimit(.bytes(.max), format: format, bitRate: nil) == 1 << 30)
        #expect(PacketQueue.byteLimit(.bytes(1), format: format, bitRate: nil) == 16 << 10)
    }
}
