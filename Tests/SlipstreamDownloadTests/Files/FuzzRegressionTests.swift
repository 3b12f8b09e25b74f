import Testing
@testable import SlipstreamDownload

/// What `scripts/fuzz.sh` found in the download side's parsers, kept as tests.
@Suite struct FuzzRegressionTests {
    /// A record with a valid checksum that claims a file of `size` bytes in pieces of
    /// `pieceSize`, with an empty piece map.
    static func record(size: Int64, pieceSize: UInt32) -> [UInt8] {
        var bytes = Array("SLIPCTRL".utf8) + [0, 1] + [UInt8](repeating: 0, count: 16)
        bytes.appendBigEndian(UInt64(bitPattern: size))
        bytes.appendBigEndian(pieceSize)
        bytes += [0, 0, 0, 0, 0, 0]
        bytes.appendBigEndian(CRC32.checksum(bytes))
        return bytes
    }

    /// Used to allocate the piece map the record claims (128 GiB for the first one) before
    /// finding that the record does not hold it, and to overflow for a size near Int64.max.
    @Test(arguments: [(Int64(1) << 40, UInt32(1)), (.max, 2), (.max, .max)])
    func aRecordClaimingAHugeFileIsRefusedWithoutAllocatingIt(size: Int64, pieceSize: UInt32) {
        #expect(throws: ControlFile.DecodingError(description: "the control file's piece map has the wrong length")) {
            try ControlFile(decoding: Self.record(size: size, pieceSize: pieceSize))
        }
        #expect(throws: Never.self) { try ControlFile(decoding: Self.record(size: 0, pieceSize: 1)) }
    }

    /// A control character inside a URL or a value used to be taken (a NUL cut the URL short for
    /// libcurl; a carriage return at the end of a value was lost when the list was written out
    /// and read back).
    @Test(arguments: ["http://a.test/x\u{0}y\n", "http://a.test/x\n  out=name\r\r\n", "http://a.test/x\n  dir=a\u{1B}b\n"])
    func controlCharactersAreRefused(text: String) {
        #expect(throws: DownloadList.ParseError.self) { try DownloadList.parse(text) }
    }

    /// "/" followed by a combining mark is one Character, and was not seen as a separator.
    @Test func outIsAFileNameWhateverFollowsTheSlash() {
        #expect(throws: DownloadList.ParseError.self) { try DownloadList.parse("http://a.test/x\n  out=sub/\u{35A}name\n") }
    }

    /// A value starting with a combining mark (after a space it sits on) read, but was written
    /// out as `out=<U+0650>name`, where "=" and the mark are one Character: not key=value.
    @Test func aValueStartingWithACombiningMarkReadsBackAsWritten() throws {
        let list = try DownloadList.parse("http://a.test/x\n  out= \u{650}name\n")
        #expect(list.entries.first?.out == "\u{650}name")
        #expect(try DownloadList.parse(list.render()).entries.first?.out == "\u{650}name")
    }

    /// A server's name: separators are found among Unicode scalars (a "/" with a combining mark
    /// after it came through whole), and dots and spaces are stripped in any order (" .x" came
    /// out as the hidden ".x", " .. " as "..").
    @Test(
        arguments: [
            ("a/\u{35A}b", "\u{35A}b"), ("..\\\u{301}x", "\u{301}x"), (" .iso", "iso"), (". .x", "x"), (" .. ", nil),
            (". \u{301}", "\u{301}"),
        ] as [(String, String?)])
    func sanitizedNamesHaveNoSeparatorAndNoLeadingDot(raw: String, expected: String?) {
        #expect(OutputName.sanitize(raw) == expected)
    }
}
