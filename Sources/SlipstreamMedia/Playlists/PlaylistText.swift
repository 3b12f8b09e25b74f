/// The text of a line-based playlist (M3U, PLS): lines split at LF, CRLF or a lone CR, a UTF-8
/// byte order mark dropped, each line decoded as UTF-8 when it is valid UTF-8 and as Latin-1
/// otherwise (playlists written on Windows use their code page), spaces and tabs trimmed.
package enum PlaylistText {
    /// One line of the text.
    package enum Line: Hashable, Sendable {
        /// A line, trimmed (possibly empty).
        case text(String)
        /// A line longer than `Playlist.maximumLineLength`, or one holding control characters
        /// (binary junk): not read.
        case unreadable
    }

    /// The lines of `bytes`, in order.
    package static func lines(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        bytes.withUnsafeBytes { raw in
            var start = hasByteOrderMark(raw) ? 3 : 0
            var index = start
            while index < raw.count {
                let byte = raw[index]
                guard byte == 0x0A || byte == 0x0D else {
                    index += 1
                    continue
                }
                lines.append(line(UnsafeRawBufferPointer(rebasing: raw[start..<index])))
                // CRLF is one line end.
                index += byte == 0x0D && index + 1 < raw.count && raw[index + 1] == 0x0A ? 2 : 1
                start = index
            }
            if start < raw.count { lines.append(line(UnsafeRawBufferPointer(rebasing: raw[start...]))) }
        }
        return lines
    }

    /// The UTF-8 byte order mark.
    package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Whether `bytes` start with the UTF-8 byte order mark.
    package static func hasByteOrderMark(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: byteOrderMark)
    }

    /// One line's bytes (without its end) as a trimmed line.
    private static func line(_ bytes: UnsafeRawBufferPointer) -> Line {
        guard bytes.count <= Playlist.maximumLineLength, !bytes.contains(where: isControl) else { return .unreadable }
        return .text(String(decode(bytes).trimmingSpaces()))
    }

    /// `bytes` as UTF-8 when valid, else as Latin-1.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> Substring {
        Substring(String(validating: bytes, as: UTF8.self) ?? TagText.latin1(bytes))
    }

    /// A control character other than the tab: none belongs in a playlist's line.
    package static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
