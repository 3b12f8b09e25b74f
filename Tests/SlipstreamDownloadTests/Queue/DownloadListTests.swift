import SlipstreamDownload
import Testing

@Suite struct DownloadListTests {
    static let sha = "sha256=" + String(repeating: "ab", count: 32)

    @Test func readsURLsOptionsMirrorsAndSkipsCommentsAndBlankLines() throws {
        let text = """
            # downloads for today
            http://a.test/1.bin

            https://b.test/2.bin\thttps://c.test/2.bin\t
              out=two.bin
            \tdir=sub/folder
              checksum=\(Self.sha)
            http://a.test/3.bin\r
              # a comment between options
              state=paused

            """
        let list = try DownloadList.parse(text)
        #expect(!list.isSession)
        #expect(
            list.entries == [
                DownloadList.Entry(urls: ["http://a.test/1.bin"], line: 2),
                DownloadList.Entry(
                    urls: ["https://b.test/2.bin", "https://c.test/2.bin"], out: "two.bin", dir: "sub/folder",
                    checksum: try Checksum(parsing: Self.sha), line: 4),
                DownloadList.Entry(urls: ["http://a.test/3.bin"], paused: true, line: 8),
            ])
    }

    @Test(
        arguments: [
            ("  out=x\nhttp://a.test/", "line 1: an option ('out=x') before any URL"),
            ("http://a.test/\n  out", "line 2: 'out' is not key=value"),
            ("http://a.test/\n  colour=blue", "line 2: unknown option 'colour'"),
            ("http://a.test/\n  checksum=sha256=12", "line 2: checksum= must look like sha256=HEX"),
            ("http://a.test/\n  out=a/b", "line 2: out= is a file name"),
            ("http://a.test/\n  out=", "line 2: out= needs a value"),
            ("http://a.test/\n  state=running", "line 2: state= can only be 'paused'"),
            ("# x\ngopher://a.test/f", "line 2: 'gopher://a.test/f' is not an http, https, ftp, ftps or sftp URL"),
            ("http://a.test/\tnot a url", "line 1: 'not a url' is not an http, https, ftp, ftps or sftp URL"),
        ] as [(String, String)])
    func badLinesAreNamed(text: String, message: String) {
        #expect {
            try DownloadList.parse(text)
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test func aSessionRoundTrips() throws {
        let list = DownloadList(
            entries: [
                DownloadList.Entry(urls: ["http://a.test/1.bin"], dir: "."),
                DownloadList.Entry(
                    urls: ["http://a.test/2.bin", "http://m.test/2.bin"], out: "2.bin", dir: "/tmp/x",
                    checksum: try Checksum(parsing: Self.sha), paused: true),
            ], isSession: true)
        let text = list.render()
        #expect(text.hasPrefix("# slipstream session 1\n"))
        #expect(text.hasSuffix("# end of session: 2 downloads\n"))
        var read = try DownloadList.parse(text)
        read.entries = read.entries.map {
            var entry = $0; entry.line = 0; return entry
        }
        #expect(read == list)
        // An empty session too.
        #expect(try DownloadList.parse(DownloadList(entries: [], isSession: true).render()).entries.isEmpty)
    }

    @Test func aDamagedSessionIsRefused() throws {
        let text = DownloadList(
            entries: [
                DownloadList.Entry(urls: ["http://a.test/1.bin"]), DownloadList.Entry(urls: ["http://a.test/2.bin"]),
            ], isSession: true
        ).render()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let cutShort = lines.dropLast(2).joined(separator: "\n")
        let lostAnEntry = lines.filter { !$0.hasSuffix("2.bin") }.joined(separator: "\n")
        let trailing = text + "http://a.test/3.bin\n"
        let garbled = text.replacingOccurrences(of: "http://a.test/2.bin", with: "\u{0}\u{7F}garbage")
        for (damaged, message) in [
            (cutShort, "the session has no end line; the file is cut short or damaged"),
            (lostAnEntry, "line 3: the session's end line does not match its 1 downloads; the file is damaged"),
            (trailing, "line 5: text after the end of the session"),
            (garbled, "line 3: '\u{0}\u{7F}garbage' is not an http, https, ftp, ftps or sftp URL"),
        ] {
            #expect {
                try DownloadList.parse(damaged)
            } throws: { error in
                "\(error)" == message
            }
        }
    }
}
