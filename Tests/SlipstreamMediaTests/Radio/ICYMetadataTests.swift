import Testing
@testable import SlipstreamMedia

/// Reading one ICY metadata block: the title up to the first `';`, NUL padding and stale bytes
/// ignored, UTF-8 or Windows-1252.
struct ICYMetadataTests {
    static func read(_ bytes: [UInt8]) -> ICYMetadata {
        var padded = bytes
        while padded.count % 16 != 0 { padded.append(0) }
        return padded.withUnsafeBytes { ICYMetadata($0) }
    }

    static func read(_ text: String) -> ICYMetadata { read(Array(text.utf8)) }

    @Test func readsTheTitleAndTheURL() {
        let metadata = Self.read("StreamTitle='Artist - Song';StreamUrl='http://example.test/cover.jpg';")
        #expect(metadata.title == "Artist - Song")
        #expect(metadata.url == "http://example.test/cover.jpg")
    }

    @Test func aTitleMayHoldApostrophesAndSemicolons() {
        #expect(Self.read("StreamTitle='Guns N' Roses - Sweet Child o' Mine';").title == "Guns N' Roses - Sweet Child o' Mine")
        #expect(Self.read("StreamTitle='A; B - C;D';StreamUrl='';").title == "A; B - C;D")
        #expect(Self.read("StreamTitle='It's';").title == "It's")
    }

    @Test func nulPaddingAndStaleBytesAfterTheTitleAreIgnored() {
        // A shorter block written over a longer one: the old block's tail follows the NULs.
        var block = Array("StreamTitle='New';".utf8) + [0, 0, 0]
        block += Array("d Title That Was Longer';".utf8)
        #expect(Self.read(block).title == "New")
        #expect(Self.read(Array("StreamTitle='Padded';".utf8) + [UInt8](repeating: 0, count: 30)).title == "Padded")
    }

    @Test func anEmptyTitleIsATitleClearedAndAnEmptyURLIsNone() {
        let metadata = Self.read("StreamTitle='';StreamUrl='';")
        #expect(metadata.title == "")
        #expect(metadata.url == nil)
    }

    @Test func aBlockWithoutTheClosingQuoteEndsAtItsEnd() {
        #expect(Self.read("StreamTitle='Cut short").title == "Cut short")
        #expect(Self.read("StreamTitle='Ends with a quote'").title == "Ends with a quote")
    }

    @Test func aBlockWithoutATitleHasNone() {
        #expect(Self.read("StreamUrl='http://x.test/';").title == nil)
        #expect(Self.read([UInt8](repeating: 0, count: 16)).title == nil)
        #expect(Self.read([0xFF, 0xFE, 0x00, 0x27, 0x3B]).title == nil)
    }

    @Test func utf8AndWindows1252TitlesAreBothRead() {
        #expect(Self.read("StreamTitle='Sigur Rós - Hoppípolla';").title == "Sigur Rós - Hoppípolla")
        // "Beyoncé – Halo" in Windows-1252: é is 0xE9, the en dash 0x96.
        let latin = Array("StreamTitle='Beyonc".utf8) + [0xE9, 0x20, 0x96, 0x20] + Array("Halo';".utf8)
        #expect(Self.read(latin).title == "Beyoncé – Halo")
    }

    @Test func artistAndTitleSplitAtTheFirstSpacedDash() {
        #expect(StreamTitle(title: "Daft Punk - One More Time").artistAndTitle! == ("Daft Punk", "One More Time"))
        #expect(StreamTitle(title: "A-ha - Take On Me - Live").artistAndTitle! == ("A-ha", "Take On Me - Live"))
        #expect(StreamTitle(title: "Just a show name").artistAndTitle == nil)
        #expect(StreamTitle(title: " - Song").artistAndTitle == nil)
    }
}
