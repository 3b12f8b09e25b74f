// The libFuzzer target for Metalink documents (`MetalinkDocument.parse`, and the XML reader
// under it): what the daemon's addMetalink reads from any client. A document that parses
// must be safe and whole (names that stay in the folder, mirrors best first, hashes of the
// right length, pieces that cover the size) and survive being written out (`render`) and
// read back; one that does not gets an error naming a real line.

import FuzzSupport
@testable import SlipstreamDownload

/// The input is the document's bytes, as a client may send them.
func fuzzMetalink(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzInput(data, size)
    let lineCount = bytes.count(where: { $0 == 10 }) + 1
    let document: MetalinkDocument
    do {
        document = try MetalinkDocument.parse(bytes)
    } catch {
        require(error.line >= 0 && error.line <= lineCount && !error.message.isEmpty, "a useless error: \(error)")
        return 0
    }
    check(document)
    let rendered = document.render()
    let again: MetalinkDocument
    do {
        again = try MetalinkDocument.parse(Array(rendered.utf8))
    } catch {
        fatalError("the document as written does not read back: \(error)\n\(rendered)")
    }
    var expected = document
    expected.format = .metalink4
    require(again == expected, "the document read back differs:\n\(document)\n\(again)")
    require(again.render() == rendered, "writing the document twice gives two texts")
    return 0
}

/// What every parsed document holds to, whatever the bytes.
func check(_ document: MetalinkDocument) {
    require(!document.files.isEmpty, "a document without files")
    var names: Set<String> = []
    for file in document.files {
        require(MetalinkDocument.refusal(ofName: file.name) == nil, "an unsafe name: \(file.name.debugDescription)")
        require(!file.name.hasPrefix("/") && !file.name.split(separator: "/").contains(".."), "a name that leaves: \(file.name)")
        require(names.insert(file.name).inserted, "two files named \(file.name.debugDescription)")
        require(!file.urls.isEmpty, "a file without a URL")
        for url in file.urls {
            require(!url.url.isEmpty && !url.url.utf8.contains { $0 <= 0x20 || $0 == 0x7F }, "a URL: \(url.url.debugDescription)")
            if let priority = url.priority { require(priority >= 1 && priority <= 999_999, "priority \(priority)") }
        }
        let priorities = file.urls.map { $0.priority ?? Int.max }
        require(priorities == priorities.sorted(), "mirrors not best first: \(priorities)")
        if let size = file.size { require(size >= 0, "size \(size)") }
        require(Set(file.hashes.map(\.algorithm)).count == file.hashes.count, "two hashes of one algorithm")
        for hash in file.hashes { checkHex(hash.hex, algorithm: hash.algorithm) }
        if let checksum = file.checksum {
            require(file.hashes.contains { $0.hex == Checksum.hex(checksum.digest) }, "a checksum not from the hashes")
        }
        if let pieces = file.pieces {
            require(pieces.length > 0 && !pieces.hashes.isEmpty, "pieces \(pieces.length) x \(pieces.hashes.count)")
            for hash in pieces.hashes { checkHex(hash, algorithm: pieces.algorithm) }
            if let size = file.size {
                require(Int64(pieces.hashes.count) == (size + pieces.length - 1) / pieces.length, "pieces do not cover \(size)")
            }
        }
    }
}

func checkHex(_ hex: String, algorithm: String) {
    let lengths = ["md5": 32, "sha-1": 40, "sha-256": 64, "sha-512": 128]
    require(hex.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) } && hex.utf8.count % 2 == 0, "hex \(hex)")
    if let length = lengths[algorithm] { require(hex.utf8.count == length, "\(algorithm) of \(hex.utf8.count) digits") }
}

/// First inputs: documents of both formats with every element read, and a few near misses.
let metalinkSeeds: [[UInt8]] = [
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <metalink xmlns="urn:ietf:params:xml:ns:metalink">
      <generator>g</generator>
      <origin dynamic="true">https://example.test/a.meta4</origin>
      <published>2009-05-15T12:23:23Z</published>
      <file name="dir/example.ext">
        <size>5</size>
        <identity>Example</identity>
        <version>1.0</version>
        <description><![CDATA[a <b>description</b>]]> &amp; more &#x263A;</description>
        <hash type="sha-256">ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad</hash>
        <hash type="md5">900150983cd24fb0d6963f7d28e17f72</hash>
        <pieces length="2" type="sha-1">
          <hash>a9993e364706816aba3e25717850c26c9cd0d89d</hash>
          <hash>a9993e364706816aba3e25717850c26c9cd0d89d</hash>
          <hash>a9993e364706816aba3e25717850c26c9cd0d89d</hash>
        </pieces>
        <url location="de" priority="1">ftp://ftp.example.com/example.ext</url>
        <url priority="2">http://example.com/example.ext?a=1&amp;b=2</url>
        <url>http://example.com/last</url>
        <metaurl mediatype="torrent" priority="2">http://example.com/example.ext.torrent</metaurl>
      </file>
      <file name="b"><url>http://b.test/b</url></file>
    </metalink>

    """,
    """
    <?xml version="1.0" encoding="iso-8859-1"?>
    <!-- Metalink 3 -->
    <metalink version="3.0" xmlns="http://www.metalinker.org/" generator="gen" type="dynamic" origin="http://o.test/">
      <files>
        <file name="a.iso">
          <size>3</size>
          <verification>
            <hash type="sha1">a9993e364706816aba3e25717850c26c9cd0d89d</hash>
            <pieces length="2" type="md5">
              <hash piece="1">900150983cd24fb0d6963f7d28e17f72</hash>
              <hash piece="0">900150983cd24fb0d6963f7d28e17f72</hash>
            </pieces>
          </verification>
          <resources>
            <url type="bittorrent" preference="100">http://example.test/a.torrent</url>
            <url type="http" location="us" preference="90">http://us.example.test/a.iso</url>
          </resources>
        </file>
      </files>
    </metalink>
    """,
    "<ml:metalink xmlns:ml=\"urn:ietf:params:xml:ns:metalink\"><ml:file name=\"x\"><ml:url>http://x/</ml:url></ml:file></ml:metalink>",
    "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"../x\"><url>http://x/</url></file></metalink>",
    "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
    "<a><b></a></b>",
].map { Array($0.utf8) }
