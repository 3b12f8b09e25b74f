import SlipstreamCore

extension DownloadStateMachine {
    /// What the download is doing now (see `DownloadDetails`), its file cut into pieces of
    /// `pieceLength` bytes: the piece map's written bytes (or the stream's, or, while a resumed
    /// download's first request waits, what its record says is on disk) and each connection
    /// still running. Read only; time in pieces, ranges and connections, never in bytes.
    func details(pieceLength: Int64) -> DownloadDetails {
        let done: ByteRanges
        let total: Int64?
        if let map {
            done = map.done
            total = map.size
        } else if let stream {
            done = ByteRanges(CollectionOfOne(0..<stream.written))
            total = stream.size
        } else if let resume {
            done = resume.written
            total = resume.record.size
        } else {
            done = ByteRanges()
            total = nil
        }
        let map = map
        let stream = stream
        let running = connections.filter { $0.value.dropped == nil }.sorted { $0.key < $1.key }
        let list = running.map { _, connection in
            var range: Range<Int64>?
            if let id = connection.assignment, let assignment = map?.assignment(id) {
                range = assignment.next..<assignment.end
            } else if let stream, let size = stream.size, stream.written < size {
                range = stream.written..<size
            }
            let given = connection.mirror == 0 ? settings.url : settings.mirrors[connection.mirror - 1]
            return DownloadDetails.Connection(
                url: mirrors[connection.mirror].url.redactingLogins, givenURL: given.redactingLogins,
                bytesPerSecond: connection.speed ?? 0, range: range, received: connection.received)
        }
        return DownloadDetails(pieceLength: pieceLength, totalBytes: total, done: done, connections: list)
    }
}
