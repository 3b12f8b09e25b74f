/// A listener of an Icecast mount that asks for ICY metadata (`Icy-MetaData: 1`) and reads the
/// metadata blocks exactly as the server sends them, for the tests to compare the player with.
/// Blocking (each read bounded by a timeout): use it off the Swift concurrency pool (`offPool`).
public final class IcyListener {
    /// The connection (its `head` holds the station's `icy-*` headers).
    public let connection: LoopbackConnection
    /// The response's `icy-metaint`: audio bytes between two metadata blocks.
    public let metadataInterval: Int
    /// The audio bytes read so far (metadata blocks not counted).
    public private(set) var audioBytes = 0

    /// Connects to `mount` on `port`; throws when the answer is not a 200 with an `icy-metaint`.
    public init(port: Int, mount: String, timeoutSeconds: Double = 30) throws {
        connection = try LoopbackConnection(port: port, path: mount, headers: ["Icy-MetaData": "1"], timeoutSeconds: timeoutSeconds)
        guard connection.status == 200, let interval = connection.header("icy-metaint").flatMap({ Int($0) }), interval > 0 else {
            throw LoopbackConnection.Failure(description: "\(mount) answered \(connection.head)")
        }
        metadataInterval = interval
    }

    /// Reads on to the next metadata block that is not empty (a length byte of 0) and returns
    /// its text as sent (`StreamTitle='...';`, then NUL padding to a multiple of 16 bytes); nil
    /// when none comes within `maxAudioBytes` more audio bytes.
    public func nextMetadata(maxAudioBytes: Int = 1 << 20) throws -> [UInt8]? {
        let limit = audioBytes + maxAudioBytes
        while audioBytes < limit {
            _ = try connection.read(exactly: metadataInterval)
            audioBytes += metadataInterval
            let length = Int(try connection.read(exactly: 1)[0]) * 16
            if length > 0 { return try connection.read(exactly: length) }
        }
        return nil
    }

    /// Reads on until a metadata block's title is `title` (its bytes between `StreamTitle='`
    /// and `';`, exactly); false when none is within `maxAudioBytes` more audio bytes.
    public func waitForTitle(_ title: [UInt8], maxAudioBytes: Int = 1 << 20) throws -> Bool {
        let expected = Array("StreamTitle='".utf8) + title + Array("';".utf8)
        let limit = audioBytes + maxAudioBytes
        while let block = try nextMetadata(maxAudioBytes: limit - audioBytes) {
            if block.starts(with: expected) { return true }
        }
        return false
    }
}
