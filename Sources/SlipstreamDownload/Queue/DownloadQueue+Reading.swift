extension DownloadQueue {
    /// A reader of download `id` while it runs (see `Download.reader(at:bytesPerSecond:)`): its
    /// reads return bytes as soon as they are written, and the download fetches the bytes ahead
    /// of it first. It keeps reading the file once the download has ended. Nil unless the
    /// download runs now (waiting, paused, ended or unknown: read an ended one's file).
    public func reader(of id: ID, at offset: Int64 = 0, bytesPerSecond: Double? = nil) -> DownloadReader? {
        let download = state.withLock { $0.records[id]?.download }
        return download?.reader(at: offset, bytesPerSecond: bytesPerSecond)
    }
}
