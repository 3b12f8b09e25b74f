extension DownloadConfiguration {
    /// The reorder ring of a stream destination, in bytes: `streamBufferSize`, at least 1 MiB
    /// (several of libcurl's 128 KiB slices and the spare `ReorderWindow` waits for).
    var streamRingSize: Int { max(streamBufferSize, 1 << 20) }

    /// The largest range a connection of a stream destination is handed: half the ring shared
    /// by the connections (so that a round of ranges fits in it with room for the next), at
    /// least 256 KiB (smaller ones would cost a request for too few bytes).
    var streamPieceSize: Int64 { Int64(max(streamRingSize / (2 * max(connections, 1)), 256 << 10)) }
}
