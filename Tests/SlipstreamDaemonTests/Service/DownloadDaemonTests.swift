import Foundation
import TestSupport
import Testing

@testable import SlipstreamDaemon

/// The whole daemon on a free loopback port: calls over POST, GET and the WebSocket reach aria2's
/// methods, notifications come over the WebSocket, the session file follows, shutdown stops it.
@Suite(.serialized) struct DownloadDaemonTests {
    func startDaemon(_ folder: String, session: String? = nil) throws -> (DownloadDaemon, Task<Void, Never>) {
        var configuration = DownloadDaemon.Configuration(folder: folder)
        configuration.secret = "s"
        configuration.server.port = 0
        configuration.sessionPath = session
        let daemon = try DownloadDaemon(configuration: configuration)
        let running = Task { await daemon.run() }
        return (daemon, running)
    }

    static func call(_ method: String, _ params: String = "", id: Int = 1) -> [UInt8] {
        let extra = params.isEmpty ? "" : "," + params
        return Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":["token:s"\#(extra)]}"#.utf8)
    }

    @Test func aDownloadAddedOverTheWebSocketIsToldAndFinishes() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let source = try TestNginx.makeFile("daemon-ws.bin", size: 2 << 20)
        let url = try TestNginx.url("daemon-ws.bin")
        let (daemon, running) = try startDaemon(folder)
        let port = daemon.port
        #expect(port > 0)

        let (gid, told) = try await offPool {
            // A whole parallel run can hold the Swift concurrency pool, where the daemon's
            // notifier task waits, for tens of seconds: a bound, not a time.
            let client = try RawClient(port: port, timeoutSeconds: 180)
            #expect(try client.upgrade(port: port).status == 101)
            try client.send(RawClient.frame(Self.call("aria2.addUri", #"["\#(url)"]"#, id: 7)))
            var gid: String?
            var told: [String] = []
            // The answer and the notifications, in whatever order they come, until the end.
            while !told.contains("aria2.onDownloadComplete"), !told.contains("aria2.onDownloadError") {
                let frame = try client.readFrame()
                // The server pings a quiet WebSocket (after half its idle time): answered, as a
                // browser answers.
                if frame.opcode == 9 {
                    try client.send(RawClient.frame(frame.payload, opcode: 10))
                    continue
                }
                guard frame.opcode == 1 else { continue }
                let message = try JSONParser.parse(frame.payload)
                if message["id"] == .number(7) { gid = message["result"]?.string }
                if let method = message["method"]?.string {
                    #expect(message["params"]?.array?.first?["gid"]?.string == gid)
                    told.append(method)
                }
            }
            return (try #require(gid), told)
        }
        #expect(told == ["aria2.onDownloadStart", "aria2.onDownloadComplete"])
        #expect(TestFiles.equal(folder + "/daemon-ws.bin", source))

        // The same download over POST and over GET (JSONP).
        let (posted, jsonp) = try await offPool {
            let client = try RawClient(port: port)
            try client.request("POST", "/jsonrpc", port: port, body: Self.call("aria2.tellStatus", #""\#(gid)",["status"]"#))
            let posted = try client.response()
            let params = Data(#"["token:s","\#(gid)",["status"]]"#.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "=", with: "%3D")
            try client.request("GET", "/jsonrpc?method=aria2.tellStatus&id=x&params=\(params)&jsoncallback=cb", port: port)
            return (posted, try client.response())
        }
        #expect(posted.text == #"{"id":1,"jsonrpc":"2.0","result":{"status":"complete"}}"#)
        #expect(jsonp.headers["content-type"]?.hasPrefix("text/javascript") == true)
        #expect(jsonp.text == #"cb({"id":"x","jsonrpc":"2.0","result":{"status":"complete"}})"#)

        daemon.shutdown()
        await running.value
    }

    @Test func theSessionFileFollowsAndShutdownStopsTheDaemon() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let session = folder + "/daemon.session"
        _ = try TestNginx.makeFile("daemon-session-slow.bin", size: 4 << 20)
        let url = try TestNginx.url("daemon-session-slow.bin", location: "rate", query: "rate=100k")
        let (daemon, running) = try startDaemon(folder, session: session)
        let port = daemon.port
        // The first bytes of the running download (before the shutdown below).
        let firstBytes = Task {
            for await event in daemon.queue.events(where: {
                if case .progress(_, let progress) = $0 { progress.completedBytes > 0 } else { false }
            }) {
                _ = event
                return
            }
        }
        let answers = try await offPool {
            let client = try RawClient(port: port)
            try client.request(
                "POST", "/jsonrpc", port: port,
                body: Array(
                    (#"[{"id":1,"method":"aria2.addUri","params":["token:s",["\#(url)"],{"out":"paused.bin","pause":"true"}]},"#
                        + #"{"id":2,"method":"aria2.addUri","params":["token:s",["\#(url)"],{"out":"running.bin"}]},"#
                        + #"{"id":3,"method":"aria2.saveSession","params":["token:s"]}]"#).utf8))
            return try JSONParser.parse(try client.response().body)
        }
        let gids = (answers.array ?? []).prefix(2).compactMap { $0["result"]?.string }
        #expect(gids.count == 2)
        #expect(answers.array?.last?["result"] == "OK")
        let saved = try DownloadDaemon.readList(session)
        #expect(saved.entries.map { $0.options.first { $0.key == "gid" }?.value } == gids.map { Optional($0) })
        // In aria2's spelling: pause=true.
        #expect(saved.entries.map { $0.options.contains { $0 == ("pause", "true") } } == [true, false])
        #expect(saved.entries.map(\.out) == ["paused.bin", "running.bin"])

        await firstBytes.value
        // aria2.shutdown: the daemon stops its downloads, keeps their .part files, writes the session.
        let answer = try await offPool {
            let client = try RawClient(port: port)
            try client.request("POST", "/jsonrpc", port: port, body: Self.call("aria2.shutdown"))
            return try client.response().text
        }
        #expect(answer == #"{"id":1,"jsonrpc":"2.0","result":"OK"}"#)
        await running.value
        #expect(FileManager.default.fileExists(atPath: folder + "/running.bin.part"))
        let last = try DownloadDaemon.readList(session)
        #expect(last.entries.count == 2)
        #expect(last.entries.map { $0.options.contains { $0 == ("pause", "true") } } == [true, false])

        // A new daemon with the session brings both back, with their GIDs.
        let (again, againRunning) = try startDaemon(folder, session: session)
        #expect(again.restore(last).isEmpty)
        let waiting = try again.service.perform("aria2.tellWaiting", ["token:s", .number(0), .number(10), ["gid"]]).get()
        let active = try again.service.perform("aria2.tellActive", ["token:s", ["gid"]]).get()
        let known = Set(((waiting.array ?? []) + (active.array ?? [])).compactMap { $0["gid"]?.string })
        #expect(known == Set(gids))
        again.shutdown()
        await againRunning.value
    }

    @Test func everyInterfaceWithoutASecretIsRefused() throws {
        var configuration = DownloadDaemon.Configuration(folder: try TestFiles.makeTemporaryFolder())
        configuration.server.listenAll = true
        configuration.server.port = 0
        let failure = #expect(throws: DaemonError.self) { try DownloadDaemon(configuration: configuration) }
        #expect(failure?.code == .insecure)
        var missing = DownloadDaemon.Configuration(folder: "/nonexistent/slipstream")
        missing.server.port = 0
        #expect(throws: DaemonError.self) { try DownloadDaemon(configuration: missing) }
    }
}
