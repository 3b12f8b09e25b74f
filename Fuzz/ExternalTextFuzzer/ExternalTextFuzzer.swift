// The libFuzzer target for the readers of numbers and text from outside (SlipstreamCore): the
// strict decimal reader every option, playlist and header reader uses, the checked conversions
// after it, and what makes a text fit to show (a URL's password out, terminal controls
// escaped). Each input is one text, as a file, a server or a command line may give it.

import FuzzSupport
@testable import SlipstreamCore

/// Texts worth starting from: numbers of every shape, URLs with logins, escape sequences.
let externalTextSeeds: [[UInt8]] = [
    "0", "10.5", "86400.000", "-3", "1e19", "0x10", "nan", "inf", "+5", String(repeating: "9", count: 40),
    "http://alice:S3cretPW@host/file", "get ftp://bob:pw@h:21/x and https://u:p@q@h2?x#y failed",
    "\u{1B}]0;owned\u{07}\u{1B}[2J", "line\r\nfake", "evil\u{202E}txt", "plain Ünïcödé",
].map { Array($0.utf8) }

/// Called by libFuzzer with each input.
func fuzzExternalText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzInput(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    checkNumbers(text[...])
    checkShown(text)
    return 0
}

/// A decimal reads only as digits with at most one point, never negative unless signed, and
/// every checked conversion of it (and of the raw bits as a double) holds without a trap.
private func checkNumbers(_ text: Substring) {
    if let value = Double(decimalText: text) {
        require(value.isFinite && value >= 0, "'\(text)' read as \(value)")
        require(text.utf8.allSatisfy { $0 == UInt8(ascii: ".") || ($0 >= 48 && $0 <= 57) }, "'\(text)' is not digits")
        _ = Duration.checkedSeconds(value)
    }
    if let value = Double(decimalText: text, signed: true) {
        require(value.isFinite, "'\(text)' read as \(value)")
    }
    if let value = Int64(decimalDigits: text) {
        require(String(value) == text.drop { $0 == "0" } || (value == 0 && !text.isEmpty), "'\(text)' read as \(value)")
    }
    // The raw bits as a double: any value at all, NaN and the infinities among them.
    var bits: UInt64 = 0
    for byte in text.utf8.prefix(8) { bits = bits << 8 | UInt64(byte) }
    let double = Double(bitPattern: bits)
    if let checked = Int64(checking: double) { require(Double(checked) == double.rounded(.towardZero), "\(double) checked as \(checked)") }
    let clamped = Int64(clamping: double)
    require(clamped != .min, "\(double) clamped to Int64.min")
    // (A duration counts attoseconds: what is finer is lost.)
    if let seconds = Duration.checkedSeconds(double) {
        require(abs(seconds.seconds - double) <= 1e-17 + double * 1e-15, "\(double) s as \(seconds)")
    }
    _ = MonotonicTime.nanoseconds(frames: Int64(bitPattern: bits), rate: Int(bits % 1_000_000) + 1)
    _ = MonotonicTime.frames(nanoseconds: Int64(bitPattern: bits), rate: Int(bits >> 40) + 1)
}

/// What is shown holds no terminal control and no password that was in a URL; both steps
/// leave their own output as it is, and text with nothing to change stays itself.
private func checkShown(_ text: String) {
    let printable = text.printable
    require(!printable.unicodeScalars.contains { $0.isTerminalControl }, "a control left in \(printable.debugDescription)")
    require(printable.printable == printable, "escaping twice changes \(printable.debugDescription)")
    if !text.unicodeScalars.contains(where: { $0.isTerminalControl }) { require(printable == text, "plain text changed") }
    let redacted = text.redactingLogins
    require(redacted.redactingLogins == redacted, "redacting twice changes \(redacted.debugDescription)")
    if !text.contains("@") { require(redacted == text, "text without a login changed") }
    // Every URL's login in the result has *** for its password.
    var rest = redacted[...]
    while let separator = rest.firstRange(of: "://") {
        rest = rest[separator.upperBound...]
        let authority = rest.prefix { !"/?# \"'<>`()\\".contains($0) && !$0.unicodeScalars.contains { $0.isTerminalControl } }
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            require(authority[authority.index(after: colon)..<at] == "***", "a password left in \(redacted.debugDescription)")
        }
    }
}
