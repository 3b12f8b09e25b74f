/// What a format parser or tag reader wants done with the bytes at the front of its window:
/// the whole interface between the pure per-format logic and `AudioStreamParser`'s buffering.
package enum ParseStep: Hashable, Sendable {
    /// Call again once the window holds at least this many bytes (always more than it holds).
    case need(Int)
    /// Drop this many bytes: a header understood, a tag, or junk. May exceed the window; the
    /// rest is dropped as it arrives, without being held.
    case skip(Int64)
    /// The first `size` bytes are a packet of `frames` audio frames.
    case packet(size: Int, frames: Int)
    /// Go on at this stream offset instead: the rest of the window and the bytes after it are not
    /// wanted now (an MP4's audio, read again once its index after it is known).
    case jump(to: Int64)
    /// The stage holds a whole packet of `frames` frames that it gathered from pieces (an Ogg
    /// packet spanning pages) and whose first byte was at stream offset `offset`; after it,
    /// drop `skip` bytes.
    case assembledPacket(offset: Int64, frames: Int, skip: Int)
}
