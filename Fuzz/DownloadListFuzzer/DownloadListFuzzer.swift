// The libFuzzer target for download lists: the text `slipstream get -i FILE` reads and a
// queue's session file holds (`DownloadList.parse`). A list that parses must make sense and
// survive being written out (`render`) and read back; one that does not names a real line.

import FuzzSupport
@testable import SlipstreamDownload

/// The input is the list's text, as bytes (invalid UTF-8 included, as a file may hold it).
func fuzzDownloadList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    let lineCount = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    let list: DownloadList
    do {
        // aria2's keys are kept as options, as a daemon's session reads them.
        list = try DownloadList.parse(text, keeping: keptOptions)
    } catch {
        require(error.line >= 0 && error.line <= lineCount && !error.message.isEmpty, "a useless error: \(error)")
        return 0
    }
    check(list, lineCount: lineCount)
    let rendered = list.render()
    let again: DownloadList
    do {
        again = try DownloadList.parse(rendered, keeping: keptOptions)
    } catch {
        fatalError("the list as written does not read back: \(error)\n\(rendered)")
    }
    require(
        again.withoutLineNumbers == list.withoutLineNumbers,
        "the list read back differs:\n\(list.withoutLineNumbers)\n\(again.withoutLineNumbers)")
    require(again.render() == rendered, "writing the list twice gives two texts")
    return 0
}

/// Options kept rather than refused (a daemon's session keeps aria2's).
let keptOptions: Set<String> = ["gid", "split", "pause", "header"]

/// What every parsed list holds to, whatever the text.
func check(_ list: DownloadList, lineCount: Int) {
    var previousLine = 0
    for entry in list.entries {
        require(!entry.urls.isEmpty, "an entry without a URL on line \(entry.line)")
        for url in entry.urls {
            require(
                HTTPURL.refusal(of: url) == nil && !url.utf8.contains { $0 <= 0x20 || $0 == 0x7F },
                "a URL refused (not http, https, ftp, ftps or sftp, or no host): \(url.debugDescription)")
        }
        require(entry.line > previousLine && entry.line <= lineCount, "entry line \(entry.line) after \(previousLine)")
        previousLine = entry.line
        // As bytes: a "/" followed by a combining mark is another Character.
        if let out = entry.out {
            require(!out.isEmpty && !out.utf8.contains(UInt8(ascii: "/")), "out= \(out.debugDescription)")
        }
        if let dir = entry.dir { require(!dir.isEmpty, "an empty dir=") }
    }
}

extension DownloadList {
    /// The list with every entry's line number cleared, to compare a list with its rewrite.
    var withoutLineNumbers: DownloadList {
        var list = self
        for index in list.entries.indices { list.entries[index].line = 0 }
        return list
    }
}

/// First inputs: the README's example, a session, and a few near misses.
let downloadListSeeds: [[UInt8]] = [
    """
    # two files for today
    https://example.com/a.iso
      out=debian.iso
      checksum=sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
    https://one.example/b.iso\thttps://two.example/b.iso
      dir=isos
      gid=2089b05ecca3d829
      split=4

    """,
    """
    # slipstream session 1
    http://127.0.0.1:8080/files/a.bin
      out=a.bin
      state=paused
    HTTP://host/b\r
    \tchecksum=md5=D41D8CD98F00B204E9800998ECF8427E\r
    # end of session: 2 downloads

    """,
    "https://h/x\n  out=../y\n",
    "  out=before-any-url\nhttps://h/\n",
    "# slipstream session 1\nhttps://h/a\n",
    "https://h/%41\n  OUT = name with spaces \n  sha1=\n",
].map { Array($0.utf8) }
