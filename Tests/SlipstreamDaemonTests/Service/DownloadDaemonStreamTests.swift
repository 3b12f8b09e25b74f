import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SlipstreamDaemon

/// The daemon serving its downloads to players at `slipstream.getStreamPath`'s path: a running
/// one read through its reader (a range far ahead answered before the download ends, exact), a
/// complete one from its file, and a wrong token or GID not found.
extension DownloadDaemonTests {
    /// The result of `method` with `params` over POST.
    static func result(_ port: Int, _ method: String, _ params: String) throws -> JSONValue? {
        let client = try RawClient(port: port, timeoutSeconds: 60)
        try client.request("POST", "/jsonrpc", port: port, body: call(method, params))
        return try JSONParser.parse(client.response().body)["result"]
    }

    /// `GET path` with `Range: range` (none when nil) on a new connection; HEAD when `head`.
    static func stream(_ port: Int, _ path: String, range: String? = nil, head: Bool = false) throws -> RawClient.Response {
        let client = try RawClient(port: port, timeoutSeconds: 120)
        try client.request(head ? "HEAD" : "GET", path, port: port, headers: range.map { [("Range", $0)] } ?? [])
        return try client.response(toHead: head)
    }

    /// The stream of `gid` once its download runs (until then it is answered 409: a bounded wait).
    static func runningStream(_ port: Int, _ path: String, range: String) throws -> RawClient.Response {
        for _ in 0..<3000 {
            let response = try stream(port, path, range: range)
            if response.status != 409 { return response }
            usleep(10_000)
        }
        throw RawClient.Failure(description: "\(path) was never served")
    }

    @Test func aRunningDownloadIsServedARangeFarAheadBeforeItEnds() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let size = 16 << 20
        let source = try await TestNginx.makeFileOffPool("daemon-stream.mp3", size: size)
        // Four connections of 256 KiB/s: about 16 s for the whole file.
        let url = try TestNginx.url("daemon-stream.mp3", location: "rate", query: "rate=256k")
        let (daemon, running) = try startDaemon(folder)
        let port = daemon.port
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: source)))
        let far = (size - 100_000)..<size
        let (path, tail, status, both, head, start, refused) = try await offPool {
            let gid = try #require(
                Self.result(port, "aria2.addUri", #"["\#(url)"],{"split":"4","max-connection-per-server":"4"}"#)?.string)
            let path = try #require(Self.result(port, "slipstream.getStreamPath", #""\#(gid)""#)?.string)
            let tail = try Self.runningStream(port, path, range: "bytes=\(far.lowerBound)-")
            // Where the download was once the tail came.
            let status = try Self.result(port, "aria2.tellStatus", #""\#(gid)",["status","completedLength","totalLength"]"#)
            // Two players at once, each at its own place.
            let pair = Mutex<[Int: RawClient.Response]>([:])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let response = try? Self.stream(port, path, range: index == 0 ? "bytes=4000000-4099999" : "bytes=12000000-12099999")
                pair.withLock { $0[index] = response }
            }
            let both = pair.withLock { $0 }
            let head = try Self.stream(port, path, range: "bytes=100-", head: true)
            let start = try Self.stream(port, path, range: "bytes=0-99999")
            let token = path.split(separator: "/")[2]
            let refused = try [
                path.replacingOccurrences(of: String(token), with: String(repeating: "0", count: token.count)),
                path.replacingOccurrences(of: gid, with: "0123456789abcdef"), "/stream/\(gid)", "/stream/",
            ].map { try Self.stream(port, $0).status }
            _ = try Self.result(port, "aria2.forceRemove", #""\#(gid)""#)
            return (path, tail, status, both, head, start, refused)
        }
        #expect(path.hasSuffix("/daemon-stream.mp3"))
        #expect(tail.status == 206)
        #expect(tail.headers["content-type"] == "audio/mpeg")
        #expect(tail.headers["content-range"] == "bytes \(far.lowerBound)-\(size - 1)/\(size)")
        #expect(tail.body == Array(bytes[far]))
        #expect(status?["status"]?.string == "active")
        let completed = Int(status?["completedLength"]?.string ?? "") ?? size
        #expect(completed < size, "the range far ahead came before the download's end")
        #expect(both[0]?.body == Array(bytes[4_000_000..<4_100_000]))
        #expect(both[1]?.body == Array(bytes[12_000_000..<12_100_000]))
        #expect(head.status == 206)
        #expect(head.headers["content-length"] == "\(size - 100)")
        #expect(head.headers["accept-ranges"] == "bytes")
        #expect(start.status == 206)
        #expect(start.body == Array(bytes[0..<100_000]))
        #expect(refused == [404, 404, 404, 404])
        daemon.shutdown()
        await running.value
    }

    @Test func aCompleteDownloadIsServedFromItsFile() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let source = try TestNginx.makeFile("daemon-stream-done.flac", size: 1 << 20)
        let url = try TestNginx.url("daemon-stream-done.flac")
        let (daemon, running) = try startDaemon(folder)
        let port = daemon.port
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: source)))
        let (whole, part) = try await offPool {
            let gid = try #require(Self.result(port, "aria2.addUri", #"["\#(url)"]"#)?.string)
            var complete = false
            for _ in 0..<18000 where !complete {
                complete = try Self.result(port, "aria2.tellStatus", #""\#(gid)",["status"]"#)?["status"]?.string == "complete"
                if !complete { usleep(10_000) }
            }
            #expect(complete)
            let path = try #require(Self.result(port, "slipstream.getStreamPath", #""\#(gid)""#)?.string)
            return (try Self.stream(port, path), try Self.stream(port, path, range: "bytes=-1000"))
        }
        #expect(whole.status == 200)
        #expect(whole.headers["content-type"] == "audio/flac")
        #expect(whole.body == bytes)
        #expect(part.status == 206)
        #expect(part.body == Array(bytes[(bytes.count - 1000)...]))
        daemon.shutdown()
        await running.value
    }
}
