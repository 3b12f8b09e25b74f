import Foundation
import Testing
import TestSupport

/// `get`, `info` and `play` with TLS trust, logins and cookies, run as a user would against the
/// access tests' nginx.
@Suite struct AccessCommandTests {
    func run(_ arguments: [String], in folder: String? = nil) async throws -> CommandRunner.Output {
        try await CommandRunner.run(arguments, in: folder ?? NSTemporaryDirectory())
    }

    @Test func getTrustsAPrivateCAByFileFolderOrPinAndSaysWhichCheckFailed() async throws {
        let servers = try await TestAccessServers.shared()
        let source = try servers.makeFile("cli-tls.bin", size: 3 << 20)
        let url = servers.url("cli-tls.bin", port: servers.tlsPort, tls: true)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for trust in [["--cacert", servers.caFile], ["--capath", servers.caPath], ["-k", "--pinnedpubkey", servers.pin]] {
            let output = try await run(["get", "-q", "--force", "-n", "4"] + trust + [url], in: folder)
            #expect(output.status == 0, "\(trust): \(output.stderr)")
            #expect(TestFiles.equal(folder + "/cli-tls.bin", source))
        }
        let refused = try await run(["get", "-q", "--force", url], in: folder)
        #expect(refused.status == 3)
        #expect(
            refused.stderr.contains("not signed by a trusted certificate authority")
                && refused.stderr.contains("give the server's CA with --cacert FILE or --capath DIR"), "\(refused.stderr)")
        let expired = try await run(
            ["get", "-q", "--cacert", servers.caFile, servers.url("cli-tls.bin", port: servers.expiredPort, tls: true)], in: folder)
        #expect(expired.status == 3 && expired.stderr.contains("has expired"), "\(expired.stderr)")
        let misnamed = try await run(
            ["get", "-q", "--cacert", servers.caFile, servers.url("cli-tls.bin", port: servers.wrongNamePort, tls: true)], in: folder)
        #expect(misnamed.status == 3 && misnamed.stderr.contains("not for this host name"), "\(misnamed.stderr)")
        let pinned = try await run(
            ["get", "-q", "--force", "-k", "--pinnedpubkey", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", url], in: folder)
        #expect(pinned.status == 3 && pinned.stderr.contains("does not match the pinned one"), "\(pinned.stderr)")
    }

    @Test func getLogsInWithUserOrNetrcAndAWrongPasswordIsAnHTTPFailure() async throws {
        let servers = try await TestAccessServers.shared()
        let source = try servers.makeFile("cli-login.bin", size: 3 << 20)
        let url = servers.url("cli-login.bin", location: "basic")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let user = try await run(["get", "-q", "-n", "4", "--user", "test:secret", url], in: folder)
        #expect(user.status == 0, "\(user.stderr)")
        #expect(TestFiles.equal(folder + "/cli-login.bin", source))
        try "machine 127.0.0.1\n  login test\n  password secret\n".write(
            toFile: folder + "/netrc", atomically: true, encoding: .utf8)
        let netrc = try await run(["get", "-q", "--force", "--netrc-file", "netrc", "--auth", "basic", url], in: folder)
        #expect(netrc.status == 0, "\(netrc.stderr)")
        let wrong = try await run(["get", "-q", "--force", "--user", "test:nope", url], in: folder)
        #expect(wrong.status == 4 && wrong.stderr.contains("401"), "\(wrong.stderr)")
    }

    /// Without `:PASSWORD` the password is asked for on the terminal, and not echoed; with no
    /// terminal, a clear error.
    @Test func aPasswordLeftOutIsAskedForWithoutEcho() async throws {
        let servers = try await TestAccessServers.shared()
        let source = try servers.makeFile("cli-prompt.bin", size: 100_000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A terminal of its own (a pty from Debian's Python), the password typed once the
        // prompt is there, and everything the terminal showed returned.
        let typist = """
            import os, pty, sys
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            seen = b""
            while b"password for test: " not in seen:
                seen += os.read(fd, 1024)
            os.write(fd, b"secret\\n")
            while True:
                try:
                    chunk = os.read(fd, 1024)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            sys.stdout.write(seen.decode())
            sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
            """
        let url = servers.url("cli-prompt.bin", location: "basic")
        let typed = try await ExternalProgram.output(
            [
                "/usr/bin/python3", "-c", typist, CommandRunner.binary, "get", "-q", "-o", folder + "/cli-prompt.bin", "--user", "test",
                url,
            ])
        #expect(typed.status == 0, "\(typed.text)")
        #expect(typed.text.contains("password for test: ") && !typed.text.contains("secret"), "\(typed.text)")
        #expect(TestFiles.equal(folder + "/cli-prompt.bin", source))

        // setsid: no controlling terminal at all.
        let noTerminal = try await ExternalProgram.output(["setsid", "-w", CommandRunner.binary, "get", "--user", "test", url])
        #expect(noTerminal.status == 2 && noTerminal.text.contains("no terminal to ask for the password on"), "\(noTerminal.text)")
    }

    @Test func getSendsACookieFileAndWritesTheJar() async throws {
        let servers = try await TestAccessServers.shared()
        let source = try servers.makeFile("cli-cookie.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let guarded = servers.url("cli-cookie.bin", location: "cookie")
        let refused = try await run(["get", "-q", guarded], in: folder)
        #expect(refused.status == 4)
        let login = try await run(
            ["get", "-q", "-n", "4", "--cookie-jar", "jar.txt", servers.url("cli-cookie.bin", location: "login")], in: folder)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(TestFiles.equal(folder + "/cli-cookie.bin", source))
        let fromJar = try await run(["get", "-q", "--force", "-n", "4", "--cookies", "jar.txt", guarded], in: folder)
        #expect(fromJar.status == 0, "\(fromJar.stderr)")
        let missing = try await run(["get", "-q", "--cookies", "no-such.txt", guarded], in: folder)
        #expect(missing.status == 5 && missing.stderr.contains("no-such.txt: cannot be read"), "\(missing.stderr)")
    }

    @Test(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
    func infoAndPlayTakeTheSameOptions() async throws {
        let servers = try await TestAccessServers.shared()
        let name = "mp3-cbr128-noxing.mp3"
        let path = servers.filesFolder + "/access-" + name
        if !FileManager.default.fileExists(atPath: path) {
            try Data(try AudioFixtures.bytes(name)).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        let tls = servers.url("access-" + name, port: servers.tlsPort, tls: true)
        let cases: [(options: [String], url: String)] = [
            (["--cacert", servers.caFile], tls),
            (["-k"], tls),
            (["--user", "test:secret"], servers.url("access-" + name, location: "basic")),
            (["--cookies", try cookieFile(for: servers)], servers.url("access-" + name, location: "cookie")),
        ]
        for (options, url) in cases {
            let info = try await run(["info"] + options + [url])
            #expect(info.status == 0 && info.stdout.contains("MPEG-1 Layer III"), "info \(options): \(info.stderr)")
            let play = try await run(["play", "-q", "--output", "null"] + options + [url])
            #expect(play.status == 0, "play \(options): \(play.stderr)")
        }
        let refused = try await run(["info", tls])
        #expect(refused.status == 3 && refused.stderr.contains("--cacert FILE"), "\(refused.stderr)")
        let played = try await run(["play", "-q", "--output", "null", tls])
        #expect(played.status == 3 && played.stderr.contains("--cacert FILE"), "\(played.stderr)")
        let onAFile = try await run(["info", "--user", "a:b", path])
        #expect(onAFile.status == 2 && onAFile.stderr.contains("apply to a URL"))
    }

    /// A cookie file that opens the access servers' /cookie/ location.
    private func cookieFile(for servers: TestAccessServers) throws -> String {
        let path = NSTemporaryDirectory() + "/slipstream-access-cookies-\(getpid()).txt"
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tpass\topen-sesame\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
