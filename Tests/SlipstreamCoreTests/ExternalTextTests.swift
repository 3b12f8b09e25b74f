import Testing
@testable import SlipstreamCore

/// Text from outside as it may be shown: passwords out of URLs, terminal controls escaped.
@Suite struct ExternalTextTests {
    @Test(arguments: [
        ("http://alice:S3cretPW@host/file", "http://alice:***@host/file"),
        ("get http://alice:S3cretPW@host:8080/a?b=c#d failed", "get http://alice:***@host:8080/a?b=c#d failed"),
        ("ftp://bob:pw@h sftp://carol:x%40y@h2/p", "ftp://bob:***@h sftp://carol:***@h2/p"),
        ("http://a:b@c:d@host/", "http://a:***@host/"),
        ("'http://eve:pass@host'", "'http://eve:***@host'"),
        ("http://user@host/ and mail@example.com", "http://user@host/ and mail@example.com"),
        ("http://host/path@x:y", "http://host/path@x:y"),
        ("no url: a:b@c", "no url: a:b@c"),
        ("http://x:@host/", "http://x:***@host/"),
        ("https://t:secret@host", "https://t:***@host"),
    ])
    func passwordsInURLsAreRedacted(text: String, redacted: String) {
        #expect(text.redactingLogins == redacted)
        #expect(!text.redactingLogins.contains("S3cretPW"))
    }

    @Test(arguments: [
        ("\u{1B}]0;owned\u{07}\u{1B}[2J title", "\\e]0;owned\\x07\\e[2J title"),
        ("line\r\nfake line", "line\\r\\nfake line"),
        ("tab\there", "tab\\there"),
        ("del\u{7F} c1\u{9B}31m", "del\\x7f c1\\x9b31m"),
        ("evil\u{202E}txt.exe", "evil\\u{202e}txt.exe"),
        ("plain Ünïcödé ♫ text \\ with backslash", "plain Ünïcödé ♫ text \\ with backslash"),
    ])
    func terminalControlsAreEscaped(text: String, shown: String) {
        #expect(text.printable == shown)
        #expect(!text.printable.unicodeScalars.contains { $0.isTerminalControl })
        #expect(text.printable.printable == text.printable)
    }

    /// Strict decimal numbers: what RFC 8216 and a person write, nothing else.
    @Test func decimalTextIsStrict() {
        for good in ["0", "10", "2.5", "0.001", "86400.000"] { #expect(Double(decimalText: good[...]) != nil, "\(good)") }
        for bad in [
            "", ".", "1.", ".5", "-1", "+1", "1e3", "0x10", "nan", "inf", " 1", "1 ", "1,5", "1.2.3", String(repeating: "9", count: 41),
        ] {
            #expect(Double(decimalText: bad[...]) == nil, "\(bad)")
        }
        #expect(Double(decimalText: "-2.5", signed: true) == -2.5)
    }

    @Test func checkedConversionsNeverTrap() {
        for value in [Double.nan, .infinity, -.infinity, 1e19, -1e19, 9.3e18] { #expect(Int64(checking: value) == nil, "\(value)") }
        #expect(Int64(checking: 9.2e18) == 9_200_000_000_000_000_000)
        #expect(Int64(clamping: Double.infinity) == .max)
        #expect(Int64(clamping: -Double.infinity) == -.max)
        #expect(Int64(clamping: Double.nan) == 0)
        #expect(Int64(clamping: 2.5, rounding: .toNearestOrAwayFromZero) == 3)
        for bad in [Double.nan, .infinity, -1, 1e9 + 1, 1e19] { #expect(Duration.checkedSeconds(bad) == nil, "\(bad)") }
        #expect(Duration.checkedSeconds(1e9) == .seconds(1_000_000_000))
        #expect(Duration.seconds(1e19).seconds == 1e19)
        #expect(MonotonicTime.nanoseconds(frames: .max, rate: 1) == .max)
        #expect(MonotonicTime.nanoseconds(frames: 44_100 * 3 + 22_050, rate: 44_100) == 3_500_000_000)
        #expect(MonotonicTime.frames(nanoseconds: .max, rate: 1 << 40) == .max)
    }
}
