/// Reads a Vorbis comment block, the tags of Ogg Vorbis, Opus and FLAC (native FLAC's
/// VORBIS_COMMENT metadata block, FLAC-in-Ogg's comment packet), as its bytes pass, in pieces
/// of any size: any split gives the same tags.
///
/// The block is little-endian: a 32-bit vendor string length and the vendor string, a 32-bit
/// comment count, then each comment as a 32-bit length and `KEY=value` in UTF-8 (keys are
/// ASCII, compared without case). TITLE, ARTIST and ALBUM fill the `AudioTags` fields of the
/// same names (the first of several values wins); other keys (DATE, TRACKNUMBER, GENRE,
/// COMMENT, ...) have no field and are passed over. A codec's packet prefix (`\u{3}vorbis`,
/// `OpusTags`) and Vorbis's framing bit are the caller's: feed only the block itself.
///
/// Held memory is bounded: the comment being read, if it is at most `maximumCommentSize` bytes;
/// longer ones (a cover picture as METADATA_BLOCK_PICTURE) are passed over without being held.
///
///     var comment = VorbisComment()
///     let used = comment.read(bytes, into: &tags)   // for each piece, until `isComplete`
package struct VorbisComment: Sendable {
    private enum Phase: Hashable, Sendable {
        /// Reading a 32-bit length or count into `held`; `next` is what it introduces.
        case field(Next)
        /// Passing over the vendor string's `remaining` bytes.
        case vendor(remaining: UInt32)
        /// Passing over the `remaining` bytes of a comment too long to keep.
        case skip(remaining: UInt32)
        /// Holding a comment of `length` bytes in `held`.
        case comment(length: Int)
        /// The comment list has ended.
        case complete
    }

    /// What a 32-bit field at the front gives.
    private enum Next: Hashable, Sendable {
        case vendorLength, commentCount, commentLength
    }

    /// Comments longer than this are passed over without being held (bytes).
    package static let maximumCommentSize = 16 * 1024

    private var phase = Phase.field(.vendorLength)
    /// The bytes of the field or comment being read.
    private var held: [UInt8] = []
    /// Comments still to come after the current one.
    private var commentsLeft: UInt32 = 0
    /// The fields a comment has filled, so the first value of a key wins.
    private var filled: Set<Field> = []

    private typealias Field = AudioTags.Field

    /// Creates a reader positioned at the block's first byte (the vendor length).
    package init() {}

    /// Whether the whole block, to its last comment, has been read.
    package var isComplete: Bool { phase == .complete }

    /// Reads on from the front of `bytes`, filling `tags`; returns the bytes used, which are
    /// fewer than `bytes.count` only when the block ends inside them (the rest is not the
    /// block's).
    package mutating func read(_ bytes: UnsafeRawBufferPointer, into tags: inout AudioTags) -> Int {
        var used = 0
        while used < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[used...])
            switch phase {
            case .complete:
                return used
            case .vendor(let remaining):
                let take = Int(min(UInt32(clamping: rest.count), remaining))
                used += take
                phase = remaining == UInt32(take) ? .field(.commentCount) : .vendor(remaining: remaining - UInt32(take))
            case .skip(let remaining):
                let take = Int(min(UInt32(clamping: rest.count), remaining))
                used += take
                phase = remaining == UInt32(take) ? afterComment : .skip(remaining: remaining - UInt32(take))
            case .field(let next):
                let take = min(4 - held.count, rest.count)
                held.append(contentsOf: rest[..<take])
                used += take
                guard held.count == 4 else { return used }
                let value = held.withUnsafeBytes { UInt32($0.littleEndian(at: 0, count: 4)) }
                held.removeAll(keepingCapacity: true)
                phase = start(next, value: value, tags: &tags)
            case .comment(let length):
                let take = min(length - held.count, rest.count)
                held.append(contentsOf: rest[..<take])
                used += take
                guard held.count == length else { return used }
                held.withUnsafeBytes { apply($0, to: &tags) }
                held.removeAll(keepingCapacity: true)
                phase = afterComment
            }
        }
        return used
    }

    /// The phase a 32-bit field of `value` leads to.
    private mutating func start(_ next: Next, value: UInt32, tags: inout AudioTags) -> Phase {
        switch next {
        case .vendorLength:
            tags.noteKind(.vorbisComment)
            return value == 0 ? .field(.commentCount) : .vendor(remaining: value)
        case .commentCount:
            commentsLeft = value
            return value == 0 ? .complete : .field(.commentLength)
        case .commentLength:
            commentsLeft -= 1
            if value == 0 { return afterComment }
            guard value <= Self.maximumCommentSize else { return .skip(remaining: value) }
            return .comment(length: Int(value))
        }
    }

    /// The phase after a comment: the next one's length, or the end.
    private var afterComment: Phase { commentsLeft == 0 ? .complete : .field(.commentLength) }

    /// Fills the field `comment` (`KEY=value`) names, unless an earlier comment filled it.
    private mutating func apply(_ comment: UnsafeRawBufferPointer, to tags: inout AudioTags) {
        guard let equals = comment.firstIndex(of: UInt8(ascii: "=")) else { return }
        let key = UnsafeRawBufferPointer(rebasing: comment[..<equals])
        let field: Field
        if Self.key(key, is: "TITLE") {
            field = .title
        } else if Self.key(key, is: "ARTIST") {
            field = .artist
        } else if Self.key(key, is: "ALBUM") {
            field = .album
        } else {
            return
        }
        guard !filled.contains(field) else { return }
        let value = String(decoding: comment[(equals + 1)...], as: UTF8.self)
        let before = tags
        tags.set(field, value, from: .vorbisComment)
        if tags != before { filled.insert(field) }
    }

    /// Whether `key` is `name` (upper-case ASCII), compared without case.
    private static func key(_ key: UnsafeRawBufferPointer, is name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        let pattern = name.utf8Start
        for i in 0..<key.count {
            let byte = key[i]
            let upper = (0x61...0x7A).contains(byte) ? byte - 0x20 : byte
            if upper != pattern[i] { return false }
        }
        return true
    }
}
