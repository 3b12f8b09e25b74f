import SlipstreamCore
import Testing

/// Text that servers send in UTF-8 or in Windows-1252 ("Latin-1").
struct Windows1252Tests {
    @Test func validUTF8IsReadAsUTF8() {
        #expect(String(utf8OrWindows1252: Array("Ünïcode – ok".utf8)) == "Ünïcode – ok")
    }

    @Test func anythingElseIsWindows1252() {
        // "Café – €5": é 0xE9, the en dash 0x96, the euro sign 0x80; 0xFF is ÿ.
        let bytes: [UInt8] = [0x43, 0x61, 0x66, 0xE9, 0x20, 0x96, 0x20, 0x80, 0x35, 0xFF]
        #expect(String(utf8OrWindows1252: bytes) == "Café – €5ÿ")
        // The five bytes Windows-1252 leaves undefined stay C1 controls.
        #expect(String(utf8OrWindows1252: [0x81, 0x8D, 0x8F, 0x90, 0x9D]).unicodeScalars.map(\.value) == [0x81, 0x8D, 0x8F, 0x90, 0x9D])
    }
}
