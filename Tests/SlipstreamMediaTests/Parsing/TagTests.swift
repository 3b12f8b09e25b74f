import Testing
import MediaTestSupport
@testable import SlipstreamMedia

@Suite struct TagTests {
    /// Parses `bytes` whole and byte by byte (which must agree) and returns the final properties.
    private func parse(_ bytes: [UInt8]) -> ParserRun {
        let whole = ParserRun(bytes, chunkSizes: { bytes.count })
        #expect(ParserRun(bytes, chunkSizes: { 1 }) == whole)
        return whole
    }

    @Test func readsEveryTextEncodingAndVersion() {
        let utf16LE: [UInt8] = [0xFF, 0xFE] + Array("Ärtist".utf16).flatMap { [UInt8($0 & 255), UInt8($0 >> 8)] }
        let utf16BE: [UInt8] = Array("Älbum".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 255)] }
        let v23 = Synth.id3v2(
            version: 3,
            frames: [
                ("TIT2", [0] + Array("Caf\u{e9}".unicodeScalars.map { UInt8($0.value) })),
                ("TPE1", [1] + utf16LE), ("APIC", [UInt8](repeating: 0xFF, count: 5000)),
            ],
            padding: 300)
        var run = parse(v23 + Synth.mp3Frames(10))
        #expect(run.final.tags.title == "Café")
        #expect(run.final.tags.artist == "Ärtist")
        #expect(run.final.tags.kinds == [.id3v23])
        #expect(run.packets.count == 10)
        #expect(run.packets.first?.offset == Int64(v23.count))

        let v24 = Synth.id3v2(version: 4, frames: [("TALB", [2] + utf16BE), ("TIT2", [3] + Array("Zwei ✓\u{0}Drei".utf8))])
        run = parse(v24 + Synth.mp3Frames(3))
        #expect(run.final.tags.album == "Älbum")
        #expect(run.final.tags.title == "Zwei ✓")

        let v22 = Synth.id3v2(version: 2, frames: [("TT2", [0] + Array("Old".utf8)), ("TP1", [0] + Array("Timer".utf8))])
        run = parse(v22 + Synth.mp3Frames(3))
        #expect(run.final.tags.title == "Old")
        #expect(run.final.tags.artist == "Timer")
        #expect(run.final.tags.kinds == [.id3v22])
    }

    @Test func skipsTagsInTheMiddleAndTrailingTagsAreNotAudio() {
        let middle = Synth.id3v2(version: 3, frames: [("TIT2", [0] + Array("Second".utf8))])
        var id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0, count: 125)
        id3v1.replaceSubrange(3..<8, with: Array("Title".utf8))
        let stream = Synth.mp3Frames(5) + middle + Synth.mp3Frames(5) + id3v1
        let run = parse(stream)
        #expect(run.packets.count == 10)
        #expect(run.packets[5].offset == Int64(5 * 417 + middle.count))
        #expect(run.final.tags.title == "Second")  // ID3v2 wins over ID3v1
        #expect(run.final.tags.kinds == [.id3v23, .id3v1])
        #expect(run.final.junkByteCount == 0)
    }

    @Test func readsTheExtendedHeaderAndUnsynchronisedFrames() {
        // v2.3 extended header: a 4-byte size (6, excluding itself) then 6 bytes.
        var v23 = Synth.id3v2(version: 3, flags: 0x40, frames: [("TIT2", [0] + Array("Ext".utf8))])
        let extended: [UInt8] = [0, 0, 0, 6, 0, 0, 0, 0, 0, 0]
        v23.insert(contentsOf: extended, at: 10)
        v23.replaceSubrange(6..<10, with: Synth.synchsafe(v23.count - 10))
        #expect(parse(v23 + Synth.mp3Frames(3)).final.tags.title == "Ext")

        // v2.4 frame-level unsynchronisation: FF 00 stands for FF.
        var v24 = Synth.id3v2(version: 4, frames: [("TIT2", [0, 0x41, 0xFF, 0x00, 0x42])])
        v24[10 + 9] = 0x02  // the frame's format flags: unsynchronised
        #expect(parse(v24 + Synth.mp3Frames(3)).final.tags.title == "A\u{FF}B")
    }

    @Test func synchsafeSizes() {
        for n in [0, 1, 127, 128, 16383, 16384, 2_097_152, 268_435_455] {
            let bytes = Synth.synchsafe(n)
            #expect(bytes.withUnsafeBytes { $0.synchsafe(at: 0) } == n)
        }
        #expect(([0x00, 0x80, 0x00, 0x00] as [UInt8]).withUnsafeBytes { $0.synchsafe(at: 0) } == nil)
    }

    @Test func truncatedAndHugeTagsAreSkippedWithoutHoldingThem() {
        // A tag that declares 256 MB and a stream that ends after 100 KB.
        let huge =
            Array("ID3".utf8) + [3, 0, 0] + Synth.synchsafe(268_435_455) + Array("TIT2".utf8) + [0, 0, 0, 4, 0, 0, 0]
            + [UInt8](repeating: 0x41, count: 100_000)
        let run = parse(huge)
        #expect(run.error?.code == .unrecognisedFormat)
        #expect(run.maximumHeld < 64)
        // A frame that claims more than its tag holds ends the tag.
        let broken =
            Array("ID3".utf8) + [3, 0, 0] + Synth.synchsafe(20) + Array("TIT2".utf8) + [0, 0, 0x10, 0, 0, 0]
            + [UInt8](repeating: 0, count: 10)
        #expect(parse(broken + Synth.mp3Frames(4)).packets.count == 4)
    }

    @Test func trailingTagsFromTheTailAlone() {
        var ape: [UInt8] = []
        let item = [UInt8(5), 0, 0, 0, 0, 0, 0, 0] + Array("Album".utf8) + [0] + Array("Apes!".utf8)
        func header(_ flags: UInt32) -> [UInt8] {
            let size = UInt32(item.count + 32)
            return Array("APETAGEX".utf8) + [0xD0, 0x07, 0, 0] + withUnsafeBytes(of: size.littleEndian, Array.init)
                + [1, 0, 0, 0] + withUnsafeBytes(of: flags.littleEndian, Array.init) + [UInt8](repeating: 0, count: 8)
        }
        ape = header(0xA000_0000) + item + header(0x8000_0000)
        var id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0, count: 125)
        id3v1.replaceSubrange(63..<68, with: Array("Other".utf8))
        let tail = [UInt8](repeating: 7, count: 50) + ape + id3v1
        let tags = tail.withUnsafeBytes { TrailingTags.read($0) }
        #expect(tags.album == "Apes!")  // APE wins over ID3v1
        #expect(Set(tags.kinds) == [.ape, .id3v1])
        // And in a stream: neither is audio.
        let run = parse(Synth.mp3Frames(4) + ape + id3v1)
        #expect(run.packets.count == 4)
        #expect(run.final.tags.album == "Apes!")
    }
}
