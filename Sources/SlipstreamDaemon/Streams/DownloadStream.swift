import SlipstreamDownload

/// A download of the queue served while it runs: its bytes through a `DownloadReader` (which
/// moves the download's window to where the player reads), its size as the queue knows it.
final class DownloadStream: WebServer.StreamSource {
    let contentType: String
    private let reader: DownloadReader
    private let queue: DownloadQueue
    private let id: DownloadQueue.ID

    init(reader: DownloadReader, queue: DownloadQueue, id: DownloadQueue.ID, contentType: String) {
        self.reader = reader
        self.queue = queue
        self.id = id
        self.contentType = contentType
    }

    /// The size once the server told it: before its first answer, after the first byte is
    /// written (nil for one that sends no length).
    func size() -> Int64? {
        if let known = knownSize { return known }
        var byte: UInt8 = 0
        let read = withUnsafeMutableBytes(of: &byte) { buffer in try? reader.read(into: buffer, at: 0) }
        return read == nil ? nil : knownSize
    }

    private var knownSize: Int64? {
        if let status = queue.status(of: id) { return status.progress?.totalBytes }
        guard case .success(let result) = queue.outcomes.last(where: { $0.id == id })?.result else { return nil }
        return result.bytes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        try? reader.read(into: buffer, at: offset)
    }

    func close() { reader.close() }
}
