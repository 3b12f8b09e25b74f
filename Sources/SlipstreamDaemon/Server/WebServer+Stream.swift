extension WebServer {
    /// A file the server serves with ranges (`Configuration.streamPath`) while it may still be
    /// written: a download that runs. The server reads it on a thread of its own per request,
    /// never its serving thread, one piece at a time as the client takes them (at most two
    /// pieces of `streamPieceBytes` wait per client), so that a read may block until its
    /// bytes are there.
    public protocol StreamSource: Sendable {
        /// The `Content-Type` of the file.
        var contentType: String { get }
        /// The file's size, waiting (blocking) until it is known or cannot be; nil when it is
        /// not known (a stream of unknown length: answered whole, without ranges, and the
        /// connection closed at its end).
        func size() -> Int64?
        /// Reads up to `buffer.count` bytes at `offset`, blocking until at least one is there;
        /// 0 at the end of the file; nil when they cannot be had (the download failed, the
        /// source closed).
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int?
        /// Ends a wait in `size` or `read` and makes the next ones fail at once: the client has
        /// gone. Called from another thread than the reads, once.
        func close()
    }

    /// What a stream's path names: a source to serve, or a refusal (its status and text).
    public enum StreamOpening: Sendable {
        /// Serve this.
        case source(any StreamSource)
        /// Answer this instead (a 404 for a path that names nothing, say), then close.
        case refused(Reply)
    }

    /// Finds the source a stream's path names (the whole path, `streamPath` included). Called
    /// on the request's own thread, where it may block briefly; never the server's thread.
    public typealias StreamOpener = @Sendable (_ path: String) -> StreamOpening
}
