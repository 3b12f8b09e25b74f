import Testing
@testable import SlipstreamAudio

/// Names made from titles a station chose: nothing that escapes the folder, hides the file,
/// breaks a terminal or passes the file system's 255 bytes.
struct RecordingFileNameTests {
    @Test(arguments: [
        ("Artist - Title", "Artist - Title"),
        ("AC/DC - Back in Black", "AC-DC - Back in Black"),
        ("../../etc/passwd", "-..-etc-passwd"),
        (".hidden", "hidden"),
        (" . .. spaced  out ", "spaced out"),
        ("..", "untitled"),
        ("", "untitled"),
        ("\u{0}\u{1}\n\t", "untitled"),
        ("Line\none\u{0}two\u{7F}three", "Line one two three"),
        ("tab\tand\u{A0}nbsp\u{2003}em", "tab and nbsp em"),
        ("evil\u{202E}3pm.exe", "evil 3pm.exe"),
        ("Café — ✓ 日本語", "Café — ✓ 日本語"),
        ("don't; stop", "don't; stop"),
    ])
    func makesATitleSafe(_ title: String, _ expected: String) {
        #expect(RecordingFileName.base(title) == expected)
    }

    @Test func cutsLongTitlesAtACharacterBoundaryWithinTheLimit() {
        // 3-byte characters, a 2-scalar cluster (e + combining acute) and 4-byte emoji.
        for title in [
            String(repeating: "日", count: 300), String(repeating: "e\u{301}", count: 300), String(repeating: "👩‍👩‍👧", count: 100),
            String(repeating: "a", count: 500),
        ] {
            let base = RecordingFileName.base(title)
            #expect(base.utf8.count <= RecordingFileName.maximumBaseBytes)
            #expect(base.utf8.count > RecordingFileName.maximumBaseBytes - 20)
            #expect(title.hasPrefix(base))
            let longest = RecordingFileName.name(base: base, fileExtension: "mp3", attempt: RecordingWriter.maximumAttempts)
            #expect(longest.utf8.count <= 255)
        }
        // A cut that leaves a space at the end drops it.
        let spaced = String(repeating: "a", count: RecordingFileName.maximumBaseBytes - 1) + " b"
        #expect(RecordingFileName.base(spaced) == String(repeating: "a", count: RecordingFileName.maximumBaseBytes - 1))
    }

    @Test func numbersTheNamesAfterTheFirst() {
        #expect(RecordingFileName.name(base: "Song", fileExtension: "mp3", attempt: 1) == "Song.mp3")
        #expect(RecordingFileName.name(base: "Song", fileExtension: "aac", attempt: 2) == "Song (2).aac")
        #expect(RecordingFileName.name(base: "Song", fileExtension: "mp3", attempt: 17) == "Song (17).mp3")
    }
}
