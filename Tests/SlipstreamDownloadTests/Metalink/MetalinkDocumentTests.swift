import Testing
@testable import SlipstreamDownload

@Suite struct MetalinkDocumentTests {
    static let sha256 = "3e1f0c5d9a2b7c4e8f6a1d0b9c8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e"
    static let sha1 = "a9993e364706816aba3e25717850c26c9cd0d89d"
    static let md5 = "900150983cd24fb0d6963f7d28e17f72"

    /// A Metalink 4 document holding `files` (the inside of <metalink>).
    static func meta4(_ files: String) -> [UInt8] {
        Array(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n\(files)\n</metalink>\n".utf8
        )
    }

    /// The shape of RFC 5854's example (§1.1): one file, two mirrors of one priority, a torrent.
    @Test func readsTheRFCsExample() throws {
        let document = try MetalinkDocument.parse(
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <metalink xmlns="urn:ietf:params:xml:ns:metalink">
                  <published>2009-05-15T12:23:23Z</published>
                  <file name="example.ext">
                    <size>14471447</size>
                    <identity>Example</identity>
                    <version>1.0</version>
                    <language>en</language>
                    <description>
                    A description of the example file for download.
                    </description>
                    <hash type="sha-256">\(Self.sha256.uppercased())</hash>
                    <url location="de" priority="1">ftp://ftp.example.com/example.ext</url>
                    <url location="fr" priority="1">http://example.com/example.ext</url>
                    <metaurl mediatype="torrent" priority="2">http://example.com/example.ext.torrent</metaurl>
                  </file>
                </metalink>
                """.utf8))
        #expect(document.format == .metalink4 && document.published == "2009-05-15T12:23:23Z" && !document.isDynamic)
        #expect(
            document.files == [
                MetalinkDocument.File(
                    name: "example.ext", size: 14_471_447, hashes: [.init(algorithm: "sha-256", hex: Self.sha256)],
                    urls: [
                        .init(url: "ftp://ftp.example.com/example.ext", priority: 1, location: "de"),
                        .init(url: "http://example.com/example.ext", priority: 1, location: "fr"),
                    ],
                    identity: "Example", version: "1.0", description: "A description of the example file for download.")
            ])
        #expect(document.files[0].checksum == (try Checksum(.sha256, hex: Self.sha256)))
    }

    @Test func readsSeveralFilesAndSortsMirrorsByPriority() throws {
        let document = try MetalinkDocument.parse(
            Self.meta4(
                """
                  <generator>mirrorgen/1.0</generator>
                  <origin dynamic="true">https://example.test/all.meta4</origin>
                  <updated>2026-12-07T00:00:00Z</updated>
                  <file name="iso/one.iso">
                    <url>http://none-a.test/one.iso</url>
                    <url priority="30">http://thirty.test/one.iso</url>
                    <url priority="2" location="se">http://two.test/one.iso</url>
                    <url>http://none-b.test/one.iso</url>
                    <url priority="30">http://thirty-b.test/one.iso</url>
                  </file>
                  <file name="two &amp; three.txt">
                    <url>  https://example.test/two%20&amp;%20three.txt
                    </url>
                  </file>
                """))
        #expect(document.generator == "mirrorgen/1.0" && document.origin == "https://example.test/all.meta4" && document.isDynamic)
        #expect(document.updated == "2026-12-07T00:00:00Z")
        #expect(document.files.map(\.name) == ["iso/one.iso", "two & three.txt"])
        #expect(document.files.map(\.folder) == ["iso", nil] && document.files.map(\.fileName) == ["one.iso", "two & three.txt"])
        #expect(
            document.files[0].urls.map(\.url) == [
                "http://two.test/one.iso", "http://thirty.test/one.iso", "http://thirty-b.test/one.iso",
                "http://none-a.test/one.iso", "http://none-b.test/one.iso",
            ])
        #expect(document.files[0].urls[0].location == "se")
        #expect(document.files[0].downloadableURLs == document.files[0].urls)
        #expect(document.files[1].urls == [.init(url: "https://example.test/two%20&%20three.txt")])
        #expect(document.files[1].size == nil && document.files[1].checksum == nil)
    }

    @Test func downloadableURLsLeaveOutWhatTheDownloaderDoesNotFetch() throws {
        let document = try MetalinkDocument.parse(
            Self.meta4(
                """
                <file name="f">
                  <url priority="1">rsync://r.test/f</url><url priority="2">magnet:?xt=urn:x</url>
                  <url priority="3">HTTPS://h.test/f</url><url>http:///no-host</url><url>sftp://s.test/f</url>
                </file>
                """))
        #expect(document.files[0].urls.count == 5)
        #expect(document.files[0].downloadableURLs.map(\.url) == ["HTTPS://h.test/f", "sftp://s.test/f"])
    }

    @Test func readsAPrefixedDocumentWithCDATAAndOtherNamespaces() throws {
        let document = try MetalinkDocument.parse(
            Array(
                """
                <ml:metalink xmlns:ml="urn:ietf:params:xml:ns:metalink" xmlns:x="urn:example:other">
                  <x:extra><ml:file name="ignored"/></x:extra>
                  <ml:file name="a.bin">
                    <ml:description><![CDATA[<b>bold</b> & more]]></ml:description>
                    <x:url>http://not-metalink.test/</x:url>
                    <ml:url><![CDATA[http://a.test/a.bin?x=1&y=2]]></ml:url>
                  </ml:file>
                </ml:metalink>
                """.utf8))
        #expect(document.files.count == 1)
        #expect(document.files[0].description == "<b>bold</b> & more")
        #expect(document.files[0].urls == [.init(url: "http://a.test/a.bin?x=1&y=2")])
    }

    @Test(arguments: [
        (["sha-512": String(repeating: "ab", count: 64), "sha-1": sha1, "md5": md5], "sha1=" + sha1),
        (["md5": md5, "sha-256": sha256, "sha-1": sha1], "sha256=" + sha256),
        (["md5": md5], "md5=" + md5),
        (["sha-512": String(repeating: "ab", count: 64)], nil),
        (["sha-384": String(repeating: "cd", count: 48), "x-custom": "00ff"], nil),
    ])
    func usesTheStrongestHashTheDownloaderChecks(hashes: [String: String], checksum: String?) throws {
        let elements = hashes.sorted { $0.key < $1.key }.map { "<hash type=\"\($0.key)\">\($0.value)</hash>" }.joined()
        let document = try MetalinkDocument.parse(Self.meta4("<file name=\"f\">\(elements)<url>http://a.test/f</url></file>"))
        #expect(document.files[0].hashes.count == hashes.count)
        #expect(document.files[0].checksum?.description == checksum)
    }

    @Test func readsPiecesAndKeepsTheStrongest() throws {
        let document = try MetalinkDocument.parse(
            Self.meta4(
                """
                <file name="p.bin">
                  <size>2500</size>
                  <pieces length="1000" type="md5"><hash>\(Self.md5)</hash><hash>\(Self.md5)</hash><hash>\(Self.md5)</hash></pieces>
                  <pieces length="1024" type="sha-1"><hash>\(Self.sha1)</hash><hash>\(Self.sha1)</hash><hash>\(Self.sha1.uppercased())</hash></pieces>
                  <url>http://a.test/p.bin</url>
                </file>
                """))
        #expect(document.files[0].pieces == .init(length: 1024, algorithm: "sha-1", hashes: Array(repeating: Self.sha1, count: 3)))
    }

    /// Metalink 3: files inside <files>, hashes inside <verification>, URLs inside
    /// <resources> with a preference (100 best), pieces numbered.
    @Test func readsMetalink3() throws {
        let document = try MetalinkDocument.parse(
            Array(
                """
                <?xml version="1.0" encoding="utf-8"?>
                <metalink version="3.0" xmlns="http://www.metalinker.org/" generator="gen 3" type="dynamic"
                    origin="http://example.test/a.metalink" pubdate="Mon, 07 Dec 2026 00:00:00 GMT">
                  <files>
                    <file name="a.iso">
                      <version>3</version>
                      <size>3</size>
                      <verification>
                        <hash type="md5">\(Self.md5)</hash>
                        <hash type="sha1">\(Self.sha1)</hash>
                        <pieces length="2" type="sha1">
                          <hash piece="1">\(Self.sha1)</hash>
                          <hash piece="0">\(String(repeating: "0", count: 40))</hash>
                        </pieces>
                      </verification>
                      <resources>
                        <url type="bittorrent" preference="100">http://example.test/a.torrent</url>
                        <url type="ftp" location="us" preference="90">ftp://us.example.test/a.iso</url>
                        <url type="http" location="de" preference="100">http://de.example.test/a.iso</url>
                        <url type="http">http://plain.example.test/a.iso</url>
                      </resources>
                    </file>
                  </files>
                </metalink>
                """.utf8))
        #expect(document.format == .metalink3 && document.generator == "gen 3" && document.isDynamic)
        #expect(document.origin == "http://example.test/a.metalink" && document.published == "Mon, 07 Dec 2026 00:00:00 GMT")
        let file = try #require(document.files.first)
        #expect(file.name == "a.iso" && file.size == 3 && file.version == "3")
        #expect(file.hashes == [.init(algorithm: "md5", hex: Self.md5), .init(algorithm: "sha-1", hex: Self.sha1)])
        #expect(file.checksum?.algorithm == .sha1)
        #expect(
            file.downloadableURLs.map(\.url) == [
                "http://de.example.test/a.iso", "ftp://us.example.test/a.iso", "http://plain.example.test/a.iso",
            ])
        #expect(file.pieces == .init(length: 2, algorithm: "sha-1", hashes: [String(repeating: "0", count: 40), Self.sha1]))
        #expect(
            file.urls == [
                .init(url: "http://de.example.test/a.iso", priority: 1, location: "de"),
                .init(url: "ftp://us.example.test/a.iso", priority: 11, location: "us"),
                .init(url: "http://plain.example.test/a.iso"),
            ])
    }

    static let url = "<url>http://a.test/f</url>"

    static let refused: [(String, String)] = [
        ("<file name=\"../etc/passwd\">\(url)</file>", "a '..' component"),
        ("<file name=\"a/../../b\">\(url)</file>", "a '..' component"),
        ("<file name=\"a/..\">\(url)</file>", "a '..' component"),
        ("<file name=\"..\">\(url)</file>", "a '..' component"),
        ("<file name=\"/etc/passwd\">\(url)</file>", "an absolute path"),
        ("<file name=\"./a\">\(url)</file>", "an empty or '.' component"),
        ("<file name=\"a//b\">\(url)</file>", "an empty or '.' component"),
        ("<file name=\"a/\">\(url)</file>", "an empty or '.' component"),
        ("<file name=\"\">\(url)</file>", "it is empty"),
        ("<file name=\"..\\..\\x\">\(url)</file>", "a backslash"),
        ("<file name=\"a&#9;b\">\(url)</file>", "control characters"),
        ("<file name=\"a&#x85;b\">\(url)</file>", "control characters"),
        ("<file>\(url)</file>", "a <file> with no name"),
        ("<file name=\"f\"><size>12a</size>\(url)</file>", "the size '12a' is not a number of bytes"),
        ("<file name=\"f\"><size>-1</size>\(url)</file>", "the size '-1' is not a number of bytes"),
        ("<file name=\"f\"><size>99999999999999999999</size>\(url)</file>", "not a number of bytes"),
        ("<file name=\"f\"><size>1</size><size>1</size>\(url)</file>", "a second <size> in <file>"),
        ("<file name=\"f\"><url priority=\"0\">http://a.test/</url></file>", "the priority '0' is not a number from 1 to 999999"),
        ("<file name=\"f\"><url priority=\"1000000\">http://a.test/</url></file>", "not a number from 1 to 999999"),
        ("<file name=\"f\"><url priority=\"high\">http://a.test/</url></file>", "the priority 'high'"),
        ("<file name=\"f\"><hash type=\"sha-256\">abcd</hash>\(url)</file>", "the sha-256 hash 'abcd' is not 64 hex digits"),
        ("<file name=\"f\"><hash type=\"md5\">\(String(repeating: "g", count: 32))</hash>\(url)</file>", "is not 32 hex digits"),
        ("<file name=\"f\"><hash>\(md5)</hash>\(url)</file>", "a <hash> with no type"),
        ("<file name=\"f\">" + (0..<33).map { "<hash type=\"x-\($0)\">00</hash>" }.joined() + "\(url)</file>", "more than 32 hash types"),
        (
            "<file name=\"f\"><hash type=\"md5\">\(md5)</hash><hash type=\"md5\">\(String(repeating: "0", count: 32))</hash>\(url)</file>",
            "two different md5 hashes for 'f'"
        ),
        (
            "<file name=\"f\"><size>3</size><pieces length=\"2\" type=\"md5\"><hash>\(md5)</hash></pieces>\(url)</file>",
            "has 1 piece hashes of 2 bytes for 3 bytes, not 2"
        ),
        ("<file name=\"f\"><pieces length=\"0\" type=\"md5\"><hash>\(md5)</hash></pieces>\(url)</file>", "the piece length '0'"),
        ("<file name=\"f\"><pieces length=\"1\"><hash>\(md5)</hash></pieces>\(url)</file>", "a <pieces> with no type"),
        ("<file name=\"f\"><pieces length=\"1\" type=\"md5\"/>\(url)</file>", "a <pieces> with no hash"),
        ("<file name=\"f\"/>", "'f' has no <url>"),
        ("<file name=\"f\"><url> </url></file>", "an empty <url>"),
        ("<file name=\"f\"><url>http://a.test/a b</url></file>", "white space or control characters"),
        (
            "<file name=\"f\"><metaurl mediatype=\"torrent\">http://a.test/f.torrent</metaurl></file>",
            "only offered by metaurl or BitTorrent"
        ),
        ("<file name=\"f\">\(url)</file><file name=\"f\">\(url)</file>", "two files named 'f'"),
        ("<origin dynamic=\"yes\">http://a.test/</origin><file name=\"f\">\(url)</file>", "dynamic=\"yes\" is not true or false"),
        ("", "a Metalink with no <file>"),
    ]

    @Test(arguments: refused)
    func refusesUnsafeOrWrongDocuments(inside: String, message: String) {
        #expect {
            try MetalinkDocument.parse(Self.meta4(inside))
        } throws: { error in
            let error = error as! MetalinkError
            return error.line >= 2 && error.message.contains(message)
        }
    }

    @Test(arguments: [
        ("<metalink><file name=\"f\"/></metalink>", "not Metalink 4's"),
        ("<metalink xmlns=\"urn:other\"/>", "not Metalink 4's"),
        ("<rss version=\"2.0\"/>", "<rss> is not a Metalink document's root"),
        ("<metalink version=\"3.0\"><files/></metalink>", "a Metalink with no <file>"),
    ])
    func refusesWhatIsNotAMetalink(text: String, message: String) {
        #expect {
            try MetalinkDocument.parse(Array(text.utf8))
        } throws: { error in
            (error as! MetalinkError).message.contains(message)
        }
    }

    /// A 4 GiB file's SHA-256 pieces of 256 KiB (16,384 of them, about 1.6 MiB): within bounds.
    @Test func readsTheManyPieceHashesOfABigFile() throws {
        let count = 16_384
        let hashes = String(repeating: "<hash>\(Self.sha256)</hash>\n", count: count)
        let document = try MetalinkDocument.parse(
            Self.meta4(
                "<file name=\"big.iso\"><size>\(Int64(count) << 18)</size><pieces length=\"262144\" type=\"sha-256\">\n\(hashes)</pieces>\(Self.url)</file>"
            ))
        #expect(document.files[0].pieces?.hashes.count == count)
    }

    /// Past 8 MiB a document is refused before any of it is read.
    @Test func refusesAHugeDocument() {
        let huge = Self.meta4("<file name=\"f\">\(Self.url)</file><!--" + String(repeating: "x", count: 8 << 20) + "-->")
        #expect(throws: MetalinkError(line: 0, "the document is \(huge.count) bytes, more than the \(8 << 20) read")) {
            try MetalinkDocument.parse(huge)
        }
    }

    @Test func aRefusalNamesItsLine() {
        #expect(throws: MetalinkError(line: 5, "the file name '../x' is refused: it has a '..' component (directory traversal)")) {
            try MetalinkDocument.parse(Self.meta4("<file name=\"ok\">\(Self.url)</file>\n\n<file name=\"../x\">\(Self.url)</file>"))
        }
    }

    /// What `render` writes reads back as the same document (but its format: always 4).
    @Test(arguments: [0, 1])
    func renderedDocumentsReadBackEqual(index: Int) throws {
        var document = MetalinkDocument(
            files: [
                .init(
                    name: "dir/a <b> & \"c\".iso", size: 3,
                    hashes: [.init(algorithm: "sha-256", hex: Self.sha256), .init(algorithm: "x-new", hex: "00ff")],
                    urls: [.init(url: "http://a.test/a?x=1&y=<2>", priority: 1, location: "d\te"), .init(url: "ftp://b.test/a")],
                    pieces: .init(length: 2, algorithm: "md5", hashes: [Self.md5, Self.md5]),
                    identity: "  not trimmed inside \r\n twice ", version: "1", description: "line 1\nline 2\r\n&"),
                .init(name: "b", urls: [.init(url: "http://b.test/b")]),
            ],
            generator: "g", origin: nil, isDynamic: true, published: "p", updated: "u")
        document.files[0].identity = "not trimmed inside \r\n twice"
        if index == 1 { document = try MetalinkDocument.parse(Array(document.render().utf8)) }
        let again = try MetalinkDocument.parse(Array(document.render().utf8))
        #expect(again == document)
        #expect(again.render() == document.render())
    }
}
