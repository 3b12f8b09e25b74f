/// Writes a Vorbis comment block, the tags of a recorded Ogg Vorbis, Opus or FLAC file: the
/// vendor (this project), then TITLE and ARTIST. Pure.
package enum VorbisCommentWriter {
    /// A Vorbis comment block (the vendor, then TITLE and ARTIST from `title`, split where it
    /// reads "Artist - Title", else TITLE from `name` as it is): little-endian 32-bit lengths
    /// and UTF-8.
    package static func block(_ title: StreamTitle?, orName name: String? = nil) -> [UInt8] {
        var comments: [String] = []
        if let split = title?.artistAndTitle {
            comments = ["TITLE=" + split.title, "ARTIST=" + split.artist]
        } else if let text = title?.title ?? name, !text.isEmpty {
            comments = ["TITLE=" + text]
        }
        func field(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func string(_ text: String) -> [UInt8] { field(text.utf8.count) + Array(text.utf8) }
        return string("slipstream \(SlipstreamVersion.string)") + field(comments.count) + comments.flatMap(string)
    }
}
