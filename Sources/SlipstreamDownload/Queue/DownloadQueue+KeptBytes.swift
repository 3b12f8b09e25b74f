#if canImport(Glibc)
import Glibc
#endif

extension DownloadQueue {
    /// Looks, off the caller's thread, for what an earlier run of a download just added left
    /// on disk (its `.part` file and resume record): a download restored from a
    /// session then tells its completed bytes and pieces while it waits, as aria2 does. One
    /// read of the record, once; nothing when it runs before the read.
    func lookForKeptBytes(of id: ID, request: Request) {
        guard configuration.download.resume else { return }
        if case .stream = request.destination { return }
        keptBytesQueue.async { [weak self] in
            let partPath = request.destination.expectedPath(for: request.url) + ".part"
            guard let self, access(partPath, F_OK) == 0,
                case .record(let record) = ResumeStore(partPath: partPath).load()
            else { return }
            let written = record.writtenRanges
            let progress = DownloadProgress(
                completedBytes: written.byteCount, totalBytes: record.size, bytesPerSecond: 0, activeConnections: 0)
            let details = DownloadDetails(
                pieceLength: DownloadDetails.defaultPieceLength, totalBytes: record.size, done: written, connections: [])
            state.withLock { state in
                guard let record = state.records[id], record.download == nil, record.stopped == nil,
                    state.scheduler.phase(of: id)?.isActive == false
                else { return }
                state.records[id]?.stopped = (progress, details)
            }
        }
    }
}
