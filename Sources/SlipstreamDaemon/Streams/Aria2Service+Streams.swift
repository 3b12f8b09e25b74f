import Glibc

/// Downloads served to players over HTTP (`/stream/GID/TOKEN/NAME`) while they run: the page's
/// play button, or any player given the URL. The token is 128 random bits drawn for the
/// download the first time `slipstream.getStreamPath` is asked for it, kept for the daemon's
/// life (not in the session): a media element cannot send the RPC secret, so the path itself is
/// the credential, given only to a caller that has the secret.
extension Aria2Service {
    /// `slipstream.getStreamPath(gid)`: the path that serves the download's file with ranges
    /// while it runs and after it completed.
    func getStreamPath(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try id(of: gid)
        let token = book.withLock { book -> String? in
            guard var entry = book.entries[id] else { return nil }
            if let token = entry.streamToken { return token }
            var generator = SystemRandomNumberGenerator()
            let token = Aria2Status.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
            entry.streamToken = token
            book.entries[id] = entry
            return token
        }
        guard let token else { throw .failed("GID \(gid) is not found") }
        let name = Self.percentEncoded(Self.fileName(of: try status(of: gid)))
        return .string("/stream/\(gid)/\(token)/\(name)")
    }

    /// What a stream's path names: the running download's reader, the complete download's
    /// file, or a refusal. A path whose GID or token is wrong is not found (as one that never
    /// was, telling nothing of which part is wrong).
    func openStream(_ path: String, prefix: String) -> WebServer.StreamOpening {
        let parts = path.dropFirst(prefix.count).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        let notFound = WebServer.StreamOpening.refused(Self.text(404, "Not found."))
        guard path.hasPrefix(prefix), parts.count >= 2, let gid = GID(String(parts[0])) else { return notFound }
        let found = book.withLock { book -> (DownloadQueue.ID, String)? in
            guard let id = book.ids[gid], let token = book.entries[id]?.streamToken else { return nil }
            return (id, token)
        }
        guard let (id, token) = found, Self.matches(Array(parts[1].utf8), Array(token.utf8)),
            let status = try? status(of: gid)
        else { return notFound }
        let contentType = MediaType.of(Self.fileName(of: status))
        if let reader = queue.reader(of: id) {
            return .source(DownloadStream(reader: reader, queue: queue, id: id, contentType: contentType))
        }
        guard status.word == .complete, isInsideFolder(status.path), let file = FileStream(path: status.path, contentType: contentType)
        else {
            let why =
                status.word == .active
                ? "The download is starting: ask again in a moment."
                : "The download is \(status.word.rawValue): only a running or complete one is served."
            return .refused(Self.text(409, why))
        }
        return .source(file)
    }

    /// Whether `path` is a file inside the download folder (symbolic links resolved).
    private func isInsideFolder(_ path: String) -> Bool {
        guard let real = realpath(path, nil) else { return false }
        defer { free(real) }
        return String(cString: real).hasPrefix(folder.path + "/")
    }

    /// The file's name: its path's last component, or its URL's while the path is not known.
    private static func fileName(of status: Aria2Status) -> String {
        let path = status.path.isEmpty ? status.uris.first.map { String($0.split(separator: "?").first ?? "") } ?? "" : status.path
        return path.split(separator: "/").last.map(String.init) ?? "file"
    }

    /// `name` with every byte but letters, digits and `-._~` percent-encoded.
    private static func percentEncoded(_ name: String) -> String {
        var encoded = ""
        for byte in name.utf8 {
            if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + Aria2Status.hex([byte]).uppercased()
            }
        }
        return encoded
    }

    private static func text(_ status: Int, _ text: String) -> WebServer.Reply {
        WebServer.Reply(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
    }
}
