extension AudioStreamParser {
    /// Lets a reader that can seek its source (a file, a server with ranges) jump over bytes
    /// the parser would only drop, such as a 10 MB picture in an ID3v2 tag: the parser takes
    /// those bytes as skipped without their being fed, and the next bytes it expects come
    /// from `nextByteOffset`. The stream stays continuous (totals can still be counted).
    /// Does nothing when the parser is not skipping.
    public mutating func skipUnread() {
        position += skipRemaining
        skipRemaining = 0
    }
}
