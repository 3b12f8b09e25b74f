/// The header a recorded FLAC file starts with, before the stream's frames as they came: the
/// `fLaC` marker, the stream's STREAMINFO with its total samples and MD5 signature cleared
/// (the file holds a part of the stream: both unknown, as an encoder writing a live stream
/// leaves them), and a VORBIS_COMMENT block (the title as TITLE and ARTIST). Native FLAC and
/// FLAC in Ogg are both recorded so (their frames are the same). Pure.
package enum FLACRecordingHeader {
    /// The header for a stream whose STREAMINFO body is `streamInfo` (a FLAC format's
    /// `magicCookie`), with the Vorbis comment block `comment`; nil without a whole STREAMINFO.
    package static func bytes(streamInfo body: [UInt8], comment: [UInt8]) -> [UInt8]? {
        guard body.count >= FLACStreamInfo.size else { return nil }
        var streamInfo = Array(body.prefix(FLACStreamInfo.size))
        // The 36-bit total (the low 4 bits of byte 13, then bytes 14 to 17) and the MD5 (18 to 33).
        streamInfo[13] &= 0xF0
        for index in 14..<FLACStreamInfo.size { streamInfo[index] = 0 }
        // Each block: its type (the last one's with the high bit), then its 24-bit length.
        return Array("fLaC".utf8) + [0, 0, 0, UInt8(FLACStreamInfo.size)] + streamInfo
            + [0x84] + [16, 8, 0].map { UInt8(truncatingIfNeeded: comment.count >> $0) } + comment
    }
}
