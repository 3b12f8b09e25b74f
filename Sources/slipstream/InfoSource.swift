/// Where `slipstream info` reads bytes from: a local file or a URL.
protocol InfoSource {
    /// What is known about the source, and what has been read from it so far.
    var summary: InfoSourceSummary { get }
    /// Whether any offset can be read without reading the bytes before it (a file, a server
    /// that answers ranges). Unknown before the first read counts as false.
    var canSeek: Bool { get }
    /// Reads `count` bytes at `offset`; fewer only at the end of the source.
    mutating func read(at offset: Int64, count: Int) async throws(CommandError) -> [UInt8]
}
