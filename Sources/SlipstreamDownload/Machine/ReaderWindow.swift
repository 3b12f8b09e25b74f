/// Where one reader of a running download reads, and how fast: the bytes the download's
/// machine fetches before any other (`DownloadStateMachine.readerMoved`).
///
/// The window reaches `lookahead` seconds of reading past the offset (at least
/// `minimumLength`), and is handed out in pieces of about `pieceSeconds` of reading, so that
/// several connections, each slower than the reader, together stay ahead of it.
struct ReaderWindow: Sendable, Equatable {
    /// The next byte the reader reads.
    var offset: Int64
    /// Bytes per second the reader consumes (a player's bit rate); nil when unknown.
    var bytesPerSecond: Double?

    /// Seconds of reading the window reaches ahead of the reader.
    static let lookahead = 30.0
    /// Seconds of reading in one piece of the window.
    static let pieceSeconds = 4.0
    /// The window's length, at least (and when the rate is unknown, twice this).
    static let minimumLength: Int64 = 2 << 20
    /// The smallest and largest piece of a window.
    static let pieceSizes: ClosedRange<Int64> = (256 << 10)...(4 << 20)

    /// One past the last byte of the window.
    var end: Int64 {
        let length = bytesPerSecond.map { max(Self.minimumLength, Int64($0 * Self.lookahead)) } ?? 2 * Self.minimumLength
        return offset + length
    }

    /// The bytes a connection is handed at once inside the window.
    var pieceSize: Int64 {
        guard let rate = bytesPerSecond else { return 2 * Self.pieceSizes.lowerBound }
        return min(max(Int64(rate * Self.pieceSeconds), Self.pieceSizes.lowerBound), Self.pieceSizes.upperBound)
    }

    /// The piece handed out at `offset` in the window: small near the reader (64 KiB at its
    /// offset, growing by half the distance), so that several connections each bring a part of
    /// what it reads next at once and the first of it comes soon; `pieceSize` further on.
    func pieceSize(at offset: Int64) -> Int64 {
        min(pieceSize, Self.headPiece + max(0, offset - self.offset) / 2)
    }

    /// The piece at the reader's offset.
    static let headPiece: Int64 = 64 << 10
    /// The rate a reader that tells none is taken to read at, to weigh its needs against
    /// other readers'.
    static let assumedBytesPerSecond = 256.0 * 1024

    /// What the reader reads next: its first two head pieces. A reader waiting there waits
    /// now; the rest of the window is for later.
    var head: Range<Int64> { offset..<(offset + 2 * Self.headPiece) }

    /// Whether any byte of `range` lies in the window.
    func overlaps(_ range: Range<Int64>) -> Bool {
        range.lowerBound < end && offset < range.upperBound
    }
}
