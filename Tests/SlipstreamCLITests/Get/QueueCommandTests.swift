import Foundation
import SlipstreamDownload
import Testing
import TestSupport

/// `slipstream get` with many downloads, against the built binary.
/// Tests wait for files and records of a running command: the time limit turns a wait that
/// cannot end into a failure.
@Suite(.timeLimit(.minutes(5))) struct QueueCommandTests {
    @Test func twoHundredSmallFilesFromNginxAreAllExact() async throws {
        // 1 KiB to 1 MiB, spread evenly on a log scale.
        let sizes = (0..<200).map { Int(1024 * pow(1024, Double($0) / 199)) }
        var list = "# 200 files\n"
        for (index, size) in sizes.enumerated() {
            try await TestNginx.makeFileOffPool("q\(index).bin", size: size)
            list += try TestNginx.url("q\(index).bin") + "\n"
            if index % 10 == 0 { list += "  out=named-\(index).bin\n" }
        }
        let folder = try TestFiles.makeTemporaryFolder()
        try list.write(toFile: folder + "/list.txt", atomically: true, encoding: .utf8)
        let output = try await CommandRunner.run(["get", "-i", "list.txt", "-j", "8", "-d", "out"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").filter { $0.hasPrefix("saved ") }.count == 200)
        #expect(output.stderr.contains("200 of 200 downloads done in "))
        for index in sizes.indices {
            let name = index % 10 == 0 ? "named-\(index).bin" : "q\(index).bin"
            let same = await TestFiles.equalOffPool(folder + "/out/" + name, try TestNginx.filesFolder() + "/q\(index).bin")
            #expect(same, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").count == 200)
    }

    @Test func failuresAreSummedUpAndTheFirstOneSetsTheStatus() async throws {
        try TestNginx.makeFile("q-good.bin", size: 10_000)
        let folder = try TestFiles.makeTemporaryFolder()
        let missing = try TestNginx.url("q-missing.bin")
        let output = try await CommandRunner.run(
            ["get", "-j", "1", try TestNginx.url("q-good.bin"), missing, "gopher://x/y"], in: folder)
        #expect(output.status == 2)  // the bad URL is refused first, before any download runs
        #expect(output.stderr.contains("saved q-good.bin: 9.77 KiB\n"))
        #expect(
            output.stderr.contains(
                """
                slipstream: 2 of 3 downloads failed:
                  gopher://x/y: not an http, https, ftp, ftps or sftp URL
                  \(missing): the server answered HTTP 404 Not Found
                """))
        let onlyMissing = try await CommandRunner.run(["get", "-q", missing, missing + "?again"], in: folder)
        #expect(onlyMissing.status == 4)
    }

    @Test func aBadInputFileIsAUsageErrorNamingTheLine() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        try "http://127.0.0.1:9/a\n  outt=b\n".write(toFile: folder + "/list.txt", atomically: true, encoding: .utf8)
        let output = try await CommandRunner.run(["get", "-i", "list.txt"], in: folder)
        #expect(output.status == 2)
        #expect(output.stderr == "slipstream: list.txt: line 2: unknown option 'outt' (out=, dir=, checksum=, state=)\n")
    }

    @Test func aSessionSavedBeforeAKillFinishesEveryDownload() async throws {
        let held = try HeldList(count: 6, seed: 100, holdAfter: 256 << 10)
        defer { held.server.stop() }
        let folder = held.folder
        let first = try CommandRunner.start(
            ["get", "-i", "list.txt", "-j", "3", "-n", "2", "-d", "out", "--stall-timeout", "3600", "--save-session", "session.txt"],
            in: folder)
        // Three downloads run, held at the gate, with their resume records, and the session names
        // all six: kill -9.
        while !(try Self.session(folder).map { $0.entries.count == 6 && $0.entries.filter { $0.out != nil }.count == 3 } ?? false)
            || Self.partFiles(folder).count < 3
        {
            try #require(first.isRunning, "the first run ended before it could be killed")
            try await Task.sleep(for: .milliseconds(10))
        }
        first.kill(SIGKILL)
        #expect(await first.wait().status == SIGKILL)
        // The three started ones are resumed, after proving the remote files unchanged.
        try await Self.carryOn(held, resuming: 3)
    }

    /// Ctrl-C (or SIGTERM) stops every running download, keeps their `.part` files and records,
    /// saves the session with everything not finished, and says how to carry on; the command it
    /// names finishes every file exactly, resuming the started ones.
    @Test(arguments: [(SIGINT, 130, "interrupted"), (SIGTERM, 143, "terminated")] as [(Int32, Int32, String)])
    func aSignalStopsAllSavesTheSessionAndItsCommandCarriesOn(signal: Int32, status: Int32, word: String) async throws {
        let held = try HeldList(count: 4, seed: 200, holdAfter: 512 << 10)
        defer { held.server.stop() }
        let folder = held.folder
        let first = try CommandRunner.start(
            ["get", "-i", "list.txt", "-j", "2", "-n", "1", "-d", "out", "--stall-timeout", "3600", "--save-session", "session.txt"],
            in: folder)
        // Two downloads run, held at the gate with their resume records; two wait.
        while Self.partFiles(folder).count < 2 {
            try #require(first.isRunning, "the first run ended before the signal")
            try await Task.sleep(for: .milliseconds(10))
        }
        first.kill(signal, whenFileExists: folder + "/session.txt")
        let stopped = await first.wait()
        #expect(stopped.status == status, "\(stopped.stderr)")
        #expect(stopped.stderr.contains(word), "\(stopped.stderr)")
        #expect(
            stopped.stderr.contains("run slipstream get -i session.txt --save-session session.txt to carry on"),
            "\(stopped.stderr)")
        #expect(try Self.session(folder)?.entries.count == 4)
        #expect(Self.partFiles(folder).count == 2)
        try await Self.carryOn(held, resuming: 2)
    }

    /// Files of 1 MiB from the in-test server, each response held at `gate` after `holdAfter`
    /// bytes, listed one URL a line in `folder/list.txt`.
    struct HeldList {
        let gate = Gate()
        let files: [[UInt8]]
        let server: TestHTTPServer
        let folder: String

        init(count: Int, seed: UInt64, holdAfter: Int) throws {
            let files = (0..<count).map { TestFiles.fastRandomBytes(1 << 20, seed: seed + UInt64($0)) }
            let gate = gate
            server = try TestHTTPServer { request in
                guard let index = Int(request.path.dropFirst(3).prefix { $0 != "." }), files.indices.contains(index)
                else { return .init(status: 404) }
                var response = TestHTTPServer.Response.file(files[index], for: request)
                response.holdAfter = holdAfter
                response.gate = gate
                return response
            }
            self.files = files
            folder = try TestFiles.makeTemporaryFolder()
            let list = files.indices.map { server.url("/s/\($0).bin") }.joined(separator: "\n")
            try list.write(toFile: folder + "/list.txt", atomically: true, encoding: .utf8)
        }
    }

    /// Opens the gate and runs the session's command: every file ends exact (`resumed` of them
    /// asked for with If-Range), nothing else stays, and the session is empty.
    private static func carryOn(_ held: HeldList, resuming resumed: Int) async throws {
        let folder = held.folder
        let requestsBefore = held.server.requests.count
        held.gate.open()
        let second = try await CommandRunner.run(["get", "-i", "session.txt", "--save-session", "session.txt"], in: folder)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("\(held.files.count) of \(held.files.count) downloads done"), "\(second.stderr)")
        let asked = Set(held.server.requests[requestsBefore...].filter { $0.headers["if-range"] != nil }.map(\.path))
        #expect(asked.count == resumed)
        for index in held.files.indices {
            let exact = TestFiles.contents(of: folder + "/out/\(index).bin", equal: held.files[index])
            #expect(exact, "\(index).bin")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/out").sorted()
        #expect(names == held.files.indices.map { "\($0).bin" })
        #expect(try Self.session(folder)?.entries.isEmpty == true)
    }

    private static func session(_ folder: String) throws -> DownloadList? {
        guard FileManager.default.fileExists(atPath: folder + "/session.txt") else { return nil }
        return try SessionFile.read(folder + "/session.txt")
    }

    private static func partFiles(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/out")) ?? []).filter { $0.hasSuffix(".part.slipstream") }
    }
}
