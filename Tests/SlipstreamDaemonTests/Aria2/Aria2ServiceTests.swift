#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

@testable import SlipstreamDaemon

/// aria2's methods on a real queue, downloading from the test nginx (no server: calls go
/// straight to the service).
@Suite(.serialized) struct Aria2ServiceTests {
    /// A service on a queue of its own, its downloads in a new folder, with the secret "s".
    struct Harness {
        let folder: String
        let queue: DownloadQueue
        let service: Aria2Service

        init(maxConcurrent: Int = 5, folder: String? = nil) throws {
            if let folder { self.folder = folder } else { self.folder = try TestFiles.makeTemporaryFolder() }
            var configuration = DownloadQueue.Configuration()
            configuration.maxConcurrentDownloads = maxConcurrent
            queue = DownloadQueue(configuration: configuration)
            var global = Aria2GlobalOptions()
            global.maxConcurrentDownloads = maxConcurrent
            service = Aria2Service(
                queue: queue, folder: try DownloadFolder(self.folder), secret: "s", global: global,
                actions: .init(saveSession: {}, shutdown: { _ in }))
        }

        /// Calls `method` with the token first.
        func call(_ method: String, _ params: JSONValue...) -> Result<JSONValue, RPCFailure.Kind> {
            service.perform(method, ["token:s"] + params)
        }

        func value(_ method: String, _ params: JSONValue...) throws -> JSONValue {
            try service.perform(method, ["token:s"] + params).get()
        }

        /// Waits (bounded by the download's own end) until the download of `gid` ends.
        func waitForEnd(_ gid: String) async throws {
            let id = try #require(service.book.withLock { $0.ids[GID(gid)!] })
            for await _ in queue.events(for: id) {}
        }
    }

    @Test func addUriDownloadsTheFileAndTellsItAsAria2Does() async throws {
        let harness = try Harness()
        let source = try TestNginx.makeFile("daemon-add.bin", size: 3 << 20)
        let gid = try #require(try harness.value("aria2.addUri", [.string(try TestNginx.url("daemon-add.bin"))], ["split": "4"]).string)
        #expect(GID(gid) != nil)
        try await harness.waitForEnd(gid)
        let status = try harness.value("aria2.tellStatus", .string(gid))
        #expect(status["status"] == "complete", "\(status["errorMessage"] ?? .null)")
        #expect(status["totalLength"] == .string(String(3 << 20)))
        #expect(status["completedLength"] == .string(String(3 << 20)))
        #expect(status["numPieces"] == "3")
        #expect(status["bitfield"] == "e0")
        #expect(status["errorCode"] == "0")
        let path = try #require(status["files"]?.array?.first?["path"]?.string)
        #expect(path.hasSuffix("/daemon-add.bin"))
        #expect(TestFiles.equal(path, source))
        // A key filter gives those keys only, in aria2's order.
        let filtered = try harness.value("aria2.tellStatus", .string(gid), ["status", "gid", "nonsense"])
        #expect(filtered.members?.map(\.key) == ["gid", "status"])
        // Every number is a string.
        for (key, value) in status.members ?? [] where key != "files" {
            #expect(value.string != nil, "\(key)")
        }
        let stopped = try harness.value("aria2.tellStopped", .number(0), .number(10), ["gid"])
        #expect(stopped == [["gid": .string(gid)]])
    }

    @Test func theSecretIsRequiredAndCheckedByEveryMethod() throws {
        let harness = try Harness()
        #expect(harness.service.perform("aria2.getVersion", []) == .failure(.unauthorized))
        #expect(harness.service.perform("aria2.getVersion", ["token:wrong"]) == .failure(.unauthorized))
        #expect(harness.service.perform("aria2.getVersion", ["token:s2"]) == .failure(.unauthorized))
        #expect(harness.service.perform("aria2.getVersion", ["token:"]) == .failure(.unauthorized))
        #expect((try? harness.value("aria2.getVersion"))?["version"] != nil)
        // As aria2: the system methods that tell what exists need no token.
        #expect((try? harness.service.perform("system.listMethods", []).get())?.array?.contains("aria2.addUri") == true)
        #expect(harness.service.perform("aria2.nothing", ["token:s"]) == .failure(.failed("No such method: aria2.nothing")))
    }

    @Test func multicallAnswersEachCallInItsOwnWay() throws {
        let harness = try Harness()
        let results = try harness.service.perform(
            "system.multicall",
            [
                [
                    ["methodName": "aria2.getGlobalStat", "params": ["token:s"]],
                    ["methodName": "aria2.getGlobalStat", "params": ["token:bad"]],
                    ["methodName": "aria2.tellStatus", "params": ["token:s", "0123456789abcdef"]],
                    ["params": []],
                ]
            ]
        ).get()
        let array = try #require(results.array)
        #expect(array.count == 4)
        #expect(array[0].array?.first?["numActive"] == "0")
        #expect(array[1]["code"] == .number(1))
        #expect(array[1]["message"] == "Unauthorized")
        #expect(array[2]["message"]?.string?.contains("0123456789abcdef") == true)
        #expect(array[3]["code"] == .number(1))
    }

    @Test func pausedWaitingAndRemovedDownloadsAreToldAsAria2TellsThem() async throws {
        let harness = try Harness(maxConcurrent: 1)
        _ = try TestNginx.makeFile("daemon-slow.bin", size: 4 << 20)
        let slow = try TestNginx.url("daemon-slow.bin", location: "rate", query: "rate=200k")
        let running = try #require(try harness.value("aria2.addUri", [.string(slow)], ["out": "running.bin"]).string)
        let paused = try #require(try harness.value("aria2.addUri", [.string(slow)], ["out": "paused.bin", "pause": "true"]).string)
        let waiting = try #require(try harness.value("aria2.addUri", [.string(slow)], ["out": "waiting.bin"]).string)

        let statuses = try harness.value("aria2.tellWaiting", .number(0), .number(10), ["gid", "status"])
        #expect(statuses == [["gid": .string(paused), "status": "paused"], ["gid": .string(waiting), "status": "waiting"]])
        let backwards = try harness.value("aria2.tellWaiting", .number(-1), .number(10), ["gid"])
        #expect(backwards == [["gid": .string(waiting)], ["gid": .string(paused)]])
        // The last waiting one goes first.
        #expect(try harness.value("aria2.changePosition", .string(waiting), .number(0), "POS_SET") == .number(0))
        let reordered = try harness.value("aria2.tellWaiting", .number(0), .number(10), ["gid"])
        #expect(reordered == [["gid": .string(waiting)], ["gid": .string(paused)]])
        #expect(try harness.value("aria2.changePosition", .string(waiting), .number(1), "POS_CUR") == .number(1))

        #expect(try harness.value("aria2.remove", .string(waiting)) == .string(waiting))
        try await harness.waitForEnd(waiting)
        let removed = try harness.value("aria2.tellStatus", .string(waiting), ["status", "errorCode"])
        #expect(removed == ["status": "removed", "errorCode": "31"])
        #expect(harness.call("aria2.unpause", .string(running)).isFailure)

        #expect(try harness.value("aria2.forceRemove", .string(running)) == .string(running))
        try await harness.waitForEnd(running)
        #expect(try harness.value("aria2.forceRemove", .string(paused)) == .string(paused))
        try await harness.waitForEnd(paused)
        let stopped = try harness.value("aria2.tellStopped", .number(-1), .number(10), ["gid"])
        #expect(stopped == [["gid": .string(paused)], ["gid": .string(running)], ["gid": .string(waiting)]])
        #expect(try harness.value("aria2.removeDownloadResult", .string(running)) == "OK")
        #expect(harness.call("aria2.tellStatus", .string(running)).isFailure)
        #expect(try harness.value("aria2.purgeDownloadResult") == "OK")
        #expect(try harness.value("aria2.tellStopped", .number(0), .number(10)) == [])
    }

    @Test func aDownloadUnpausedWhileItStopsGoesOnInsteadOfStayingPaused() async throws {
        let harness = try Harness()
        _ = try TestNginx.makeFile("daemon-unpause.bin", size: 1 << 20)
        let url = try TestNginx.url("daemon-unpause.bin", location: "rate", query: "rate=64k")
        let gid = try #require(try harness.value("aria2.addUri", [.string(url)]).string)
        let id = try #require(harness.service.book.withLock { $0.ids[GID(gid)!] })
        for await event in harness.queue.events(for: id) {
            if case .started = event { break }
        }
        // Unpaused at once, before its transfers have stopped: it waits again, not paused.
        #expect(try harness.value("aria2.pause", .string(gid)) == .string(gid))
        #expect(try harness.value("aria2.unpause", .string(gid)) == .string(gid))
        var phases: [String] = []
        for await event in harness.queue.events(for: id) {
            if case .paused = event { phases.append("paused") }
            if case .queued = event { phases.append("queued") }
            if case .started = event, phases.contains("queued") { break }
        }
        #expect(!phases.contains("paused"))
        #expect(harness.call("aria2.remove", .string(gid)).isFailure == false)
        try await harness.waitForEnd(gid)
    }

    @Test func aFailedDownloadIsAnErrorWithAria2sCode() async throws {
        let harness = try Harness()
        let uris: JSONValue = [.string(try TestNginx.url("daemon-missing.bin"))]
        let added = harness.call("aria2.addUri", uris)
        let gid = try #require(try added.get().string, "\(added)")
        try await harness.waitForEnd(gid)
        let status = try harness.value("aria2.tellStatus", .string(gid), ["status", "errorCode", "errorMessage"])
        #expect(status["status"] == "error")
        #expect(status["errorCode"] == "3")
        #expect(status["errorMessage"]?.string?.contains("404") == true)
    }

    @Test func addMetalinkAddsEachFileWithItsMirrorsAndHash() async throws {
        let harness = try Harness()
        let www = try TestNginx.filesFolder()
        try Array("abc".utf8).write(to: www + "/daemon-meta-a.txt")
        try Array("abcd".utf8).write(to: www + "/daemon-meta-b.txt")
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let wrong = String(repeating: "0", count: 64)
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="sub/a.txt"><size>3</size><hash type="sha-256">\(abc)</hash>
                <url priority="2">http://127.0.0.1:1/daemon-meta-a.txt</url>
                <url priority="1">\(try TestNginx.url("daemon-meta-a.txt"))</url></file>
              <file name="b.txt"><hash type="sha-256">\(wrong)</hash>
                <url>\(try TestNginx.url("daemon-meta-b.txt"))</url></file>
            </metalink>
            """
        let encoded = JSONValue.string(Base64Encoding.encode(Array(document.utf8)))
        let gids = try #require(try harness.value("aria2.addMetalink", encoded).array?.compactMap(\.string))
        #expect(gids.count == 2)
        // Best first: the URL of priority 1, then the other as a mirror.
        // (From the status: getUris tells nothing of a download that ended, and this one may have.)
        let files = try harness.value("aria2.tellStatus", .string(gids[0]), ["files"])["files"]
        let uris = files?.array?.first?["uris"]?.array?.compactMap { $0["uri"]?.string }
        #expect(uris == [try TestNginx.url("daemon-meta-a.txt"), "http://127.0.0.1:1/daemon-meta-a.txt"])
        for gid in gids { try await harness.waitForEnd(gid) }
        let first = try harness.value("aria2.tellStatus", .string(gids[0]), ["status", "files", "errorMessage"])
        #expect(first["status"] == "complete", "\(first)")
        #expect(first["files"]?.array?.first?["path"]?.string?.hasSuffix("/sub/a.txt") == true)
        // The second file's hash is wrong: it fails as aria2's checksum error.
        let second = try harness.value("aria2.tellStatus", .string(gids[1]), ["status", "errorCode"])
        #expect(second == ["status": "error", "errorCode": "32"])
        #expect(harness.call("aria2.addMetalink", "bm90IHhtbA==").isFailure)
        #expect(harness.call("aria2.addMetalink", "%%%").isFailure)
    }

    @Test func requestsCannotLeaveTheFolder() throws {
        let harness = try Harness()
        let url = try TestNginx.url("daemon-add.bin")
        for options in [["dir": "../x"], ["dir": "/etc"], ["out": "../../x"], ["out": "/tmp/x"]] as [JSONValue] {
            #expect(harness.call("aria2.addUri", [.string(url)], options).isFailure, "\(options)")
        }
        #expect(harness.queue.downloads.isEmpty)
        #expect(harness.call("aria2.addTorrent", "AAAA").isFailure)
        #expect(harness.call("aria2.addUri", ["file:///etc/passwd"]).isFailure)
        #expect(harness.call("aria2.addUri", []).isFailure)
    }

    @Test func optionsAreToldAndChanged() throws {
        let harness = try Harness()
        _ = try TestNginx.makeFile("daemon-options.bin", size: 1 << 20)
        let url = try TestNginx.url("daemon-options.bin", location: "rate", query: "rate=100k")
        let gid = try #require(try harness.value("aria2.addUri", [.string(url)], ["pause": "true", "split": "3"]).string)
        let options = try harness.value("aria2.getOption", .string(gid))
        #expect(options["split"] == "3")
        #expect(options["dir"]?.string == (try DownloadFolder(harness.folder)).path)
        #expect(try harness.value("aria2.changeOption", .string(gid), ["split": "2", "max-download-limit": "50K"]) == "OK")
        #expect(try harness.value("aria2.getOption", .string(gid))["split"] == "2")
        #expect(harness.queue.downloads.first?.request.connections == 2)
        #expect(
            try harness.value("aria2.changeGlobalOption", ["max-concurrent-downloads": "2", "max-overall-download-limit": "1M"]) == "OK")
        #expect(harness.queue.maxConcurrentDownloads == 2)
        #expect(harness.queue.bytesPerSecondLimit == 1 << 20)
        let global = try harness.value("aria2.getGlobalOption")
        #expect(global["max-concurrent-downloads"] == "2")
        #expect(harness.call("aria2.changeGlobalOption", ["dir": "/"]).isFailure)
        #expect(
            try harness.value("aria2.changeUri", .string(gid), .number(1), [.string(url)], ["http://127.0.0.1:1/x"]) == [
                .number(1), .number(1),
            ])
        #expect(try harness.value("aria2.getUris", .string(gid)) == [["uri": "http://127.0.0.1:1/x", "status": "waiting"]])
    }

    @Test func theSessionKeepsGIDsOptionsAndPauses() throws {
        let harness = try Harness(maxConcurrent: 1)
        let url = try TestNginx.url("daemon-session.bin")
        let paused = try #require(
            try harness.value("aria2.addUri", [.string(url)], ["pause": "true", "out": "p.bin", "split": "2"]).string)
        let text = harness.service.session().render()
        let list = try DownloadList.parse(text, keeping: Aria2Options.sessionKeys)

        let again = try Harness(folder: harness.folder)
        #expect(again.service.restore(list).isEmpty)
        let status = try again.value("aria2.tellStatus", .string(paused), ["gid", "status", "files"])
        #expect(status["status"] == "paused")
        #expect(status["files"]?.array?.first?["path"]?.string?.hasSuffix("/p.bin") == true)
        #expect(try again.value("aria2.getOption", .string(paused))["split"] == "2")
        // Restored twice, a GID is refused the second time.
        #expect(again.service.restore(list).count == 1)
    }
}

/// Base64 for the tests' documents (the daemon only decodes).
enum Base64Encoding {
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                text.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return text
    }
}

extension Array where Element == UInt8 {
    fileprivate func write(to path: String) throws {
        guard let file = fopen(path, "w") else { throw DownloadFolderRefusal("cannot write \(path)") }
        defer { fclose(file) }
        _ = withUnsafeBufferPointer { fwrite($0.baseAddress, 1, count, file) }
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { true } else { false }
    }
}
