/// An FTP or SFTP transfer's answer put in HTTP's terms, so that a download reads it with the
/// same rules as a range answer (`RangeAnswer`): a `206` with a `Content-Range` only where the
/// bytes provably start where asked in a file of a known size. Pure.
///
/// libcurl tells, before the first byte, how many bytes it is about to send from the start
/// (the file's size from `SIZE` or the SFTP stat, less the start; unknown when the server gave
/// no size) and the file's modification time (`MDTM`, the stat's mtime), which becomes
/// `Last-Modified`: what a resume compares to find a changed file, and what a conditional
/// request's `If-Modified-Since` is compared with (a file not modified since is a `304`).
enum FileTransferAnswer {
    /// What libcurl found out about the transfer.
    struct Facts: Equatable {
        /// The first byte asked for.
        var start: Int64
        /// The bytes from `start` to the end of the file; nil when the server gave no size.
        var remaining: Int64?
        /// The file's modification time, seconds since 1970; nil when unknown.
        var modified: Int64?
        /// Whether the server takes a restart offset (FTP `REST`): always true for a transfer
        /// that starts past byte 0 (libcurl fails it otherwise) and for SFTP.
        var restarts: Bool
        /// The start lies past the end of the file (libcurl's `BAD_DOWNLOAD_RESUME`).
        var beyondEnd = false
        /// The request's `If-Modified-Since`, seconds since 1970: the file is wanted only if
        /// modified after it.
        var modifiedSince: Int64?
    }

    /// The head a download reads for `facts`, for the transfer of `url`.
    static func head(_ facts: Facts, url: String) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        if let modified = facts.modified, modified >= 0 {
            headers.add(name: "Last-Modified", value: HTTPDate.text(secondsSince1970: Int(modified)))
        }
        let status: Int
        if facts.beyondEnd {
            status = 416
        } else if let since = facts.modifiedSince, let modified = facts.modified, modified <= since {
            status = 304
        } else if let remaining = facts.remaining, remaining >= 0 {
            let total = facts.start + remaining
            headers.add(name: "Content-Length", value: String(remaining))
            if remaining == 0 {
                // Nothing from the start on: an empty file (from 0), or a shorter one.
                status = 416
                headers.add(name: "Content-Range", value: "bytes */\(total)")
            } else if facts.restarts {
                status = 206
                headers.add(name: "Content-Range", value: "bytes \(facts.start)-\(total - 1)/\(total)")
            } else {
                status = 200
            }
        } else {
            // No size: nothing proves where the bytes start or end; read as one stream.
            status = 200
        }
        return HTTPResponseHead(status: status, headers: headers, effectiveURL: url)
    }

    /// Whether an FTP reply line says a restart offset was taken (`350`: the only reply to
    /// `REST`, and no other command of a download gets it).
    static func isRestartAccepted(replyLine line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 4 && line[0] == UInt8(ascii: "3") && line[1] == UInt8(ascii: "5")
            && line[2] == UInt8(ascii: "0") && (line[3] == 32 || line[3] == UInt8(ascii: "-"))
    }

    /// Whether an FTP reply line is the positive preliminary reply to a transfer command (`125`
    /// or `150`: the data starts flowing; the last line of a reply, not a `150-` continuation).
    static func isTransferStarting(replyLine line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 4 && line[3] == 32 && (line.starts(with: "125".utf8) || line.starts(with: "150".utf8))
    }
}
