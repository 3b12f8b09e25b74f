/// What a download is doing now, piece by piece and connection by connection: what aria2
/// reports as `bitfield`, `pieceLength`, `numPieces`, `connections` and `getServers`, and
/// what a picture of the file's pieces needs. A snapshot, built when asked for
/// (`Download.details`, `DownloadQueue.details(of:)`), never kept up to date meanwhile.
///
/// The file is cut into pieces of `pieceLength` bytes (the last one shorter), as aria2 reports
/// an HTTP download's; a piece is complete when every byte of it is written. A download whose
/// size is not known yet (before the server answered, or a stream without a length) has no
/// pieces.
public struct DownloadDetails: Sendable, Equatable {
    /// One connection of the download.
    public struct Connection: Sendable, Equatable {
        /// The URL it fetches from (the download's URL or a mirror, after redirects), its
        /// password replaced by `***`: aria2's `currentUri`.
        public var url: String
        /// The URL it was given (the download's URL or a mirror, before redirects), its
        /// password replaced by `***`: aria2's `uri`.
        public var givenURL: String
        /// Its speed as last measured (every half second), in bytes per second; 0 before its
        /// first measure.
        public var bytesPerSecond: Double
        /// The bytes it has yet to write, from where it writes next: its range in flight. Nil
        /// when it has none (it waits for its answer or its next range, or its end is unknown).
        public var range: Range<Int64>?
        /// Bytes it received for the file so far.
        public var received: Int64

        /// A connection with these values (`givenURL`: nil for `url`).
        public init(url: String, givenURL: String? = nil, bytesPerSecond: Double, range: Range<Int64>?, received: Int64) {
            self.url = url
            self.givenURL = givenURL ?? url
            self.bytesPerSecond = bytesPerSecond
            self.range = range
            self.received = received
        }
    }

    /// The piece length reported: 1 MiB, aria2's default `piece-length`.
    public static let defaultPieceLength: Int64 = 1 << 20

    /// The length of a piece in bytes (the last piece may be shorter).
    public var pieceLength: Int64
    /// The file's size, once known.
    public var totalBytes: Int64?
    /// Bytes written so far.
    public var completedBytes: Int64
    /// Which pieces are complete, as aria2's `bitfield`: piece 0 is the high bit of the first
    /// byte; the bits after the last piece are 0.
    public var completedPieces: [UInt8]
    /// The number of pieces: `totalBytes` divided by `pieceLength`, rounded up; 0 while the
    /// size is unknown.
    public var numPieces: Int
    /// The connections, in the order they were opened.
    public var connections: [Connection]

    /// Details with these values.
    public init(
        pieceLength: Int64, totalBytes: Int64?, completedBytes: Int64, completedPieces: [UInt8], numPieces: Int,
        connections: [Connection]
    ) {
        self.pieceLength = pieceLength
        self.totalBytes = totalBytes
        self.completedBytes = completedBytes
        self.completedPieces = completedPieces
        self.numPieces = numPieces
        self.connections = connections
    }

    /// The details of a file of `totalBytes` (nil: unknown) of which `done` is written, cut
    /// into pieces of `pieceLength` bytes (at least 1). Takes time in the number of pieces
    /// and written ranges, never in bytes.
    init(pieceLength: Int64, totalBytes: Int64?, done: ByteRanges, connections: [Connection]) {
        let length = max(pieceLength, 1)
        let count = totalBytes.map { Int(($0 + length - 1) / length) } ?? 0
        var bits = [UInt8](repeating: 0, count: (count + 7) / 8)
        if let size = totalBytes {
            for range in done {
                // The pieces wholly inside the range; the last piece ends at the file's end.
                let first = Int((range.lowerBound + length - 1) / length)
                let end = range.upperBound >= size ? count : Int(range.upperBound / length)
                for piece in first..<max(first, end) { bits[piece / 8] |= 0x80 >> UInt8(piece % 8) }
            }
        }
        self.init(
            pieceLength: length, totalBytes: totalBytes, completedBytes: done.byteCount, completedPieces: bits,
            numPieces: count, connections: connections)
    }

    /// Whether piece `index` is complete (false outside `0..<numPieces`).
    public func isPieceComplete(_ index: Int) -> Bool {
        guard index >= 0, index < numPieces, index / 8 < completedPieces.count else { return false }
        return completedPieces[index / 8] & (0x80 >> UInt8(index % 8)) != 0
    }

    /// The complete pieces, as a count.
    public var completedPieceCount: Int {
        completedPieces.reduce(0) { $0 + $1.nonzeroBitCount }
    }
}
