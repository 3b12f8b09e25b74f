import Foundation
import Testing
import TestSupport

/// A URL's password never reaches the terminal, JSON, a hook's environment or a file on disk;
/// text from outside never reaches the terminal as control characters.
@Suite struct SecretAndTerminalCommandTests {
    static let password = "S3cretPW"

    /// `url` with the login `alice:S3cretPW`.
    static func withLogin(_ url: String) -> String {
        url.replacingOccurrences(of: "http://", with: "http://alice:\(password)@")
    }

    @Test func aFailedRunNeverShowsThePassword() async throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Response(status: 404, body: Array("gone".utf8)) }
        defer { server.stop() }
        let url = Self.withLogin(server.url("/missing.mp3"))
        let folder = try TestFiles.makeTemporaryFolder()
        let runs = [
            ["get", url, "-o", "out.bin", "--retries", "0", "--on-error", "/bin/sh -c 'env > hook.env'"],
            ["info", url], ["info", url, "--json"], ["play", url, "--json", "--output", "null"], ["play", url, "--output", "null"],
        ]
        for arguments in runs {
            let output = try await CommandRunner.run(arguments, in: folder)
            #expect(output.status == 4, "\(arguments): \(output.stderr)")
            #expect(!(output.stdout + output.stderr).contains(Self.password), "\(arguments): \(output.stdout) \(output.stderr)")
            #expect((output.stdout + output.stderr).contains("alice:***@127.0.0.1"), "\(arguments): \(output.stdout) \(output.stderr)")
        }
        let hook = try String(contentsOfFile: folder + "/hook.env", encoding: .utf8)
        #expect(hook.contains("SLIPSTREAM_URL=http://alice:***@127.0.0.1"), "\(hook)")
        #expect(!hook.contains(Self.password))
    }

    /// What is kept to resume a download names its URL without the password, readable by its
    /// owner only; and the download resumes with it.
    @Test func theResumeRecordHoldsNoPassword() async throws {
        let content = TestFiles.randomBytes(6 << 20, seed: 7)
        let gate = Gate()
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            if request.range?.start ?? 0 == 0 {
                response.holdAfter = 1 << 20
                response.gate = gate
            }
            return response
        }
        defer {
            gate.open()
            server.stop()
        }
        let folder = try TestFiles.makeTemporaryFolder()
        let url = Self.withLogin(server.url("/big.bin"))
        let running = try CommandRunner.start(["get", url, "-o", "big.bin", "-n", "1"], in: folder)
        running.kill(SIGINT, whenFileExists: folder + "/big.bin.part", afterMilliseconds: 300)
        let stopped = await running.wait()
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(!stopped.stderr.contains(Self.password))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(names.contains("big.bin.part.slipstream"), "\(names)")
        for name in names where name.hasPrefix("big.bin.part.slipstream") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            #expect(bytes.range(of: Data(Self.password.utf8)) == nil, "\(name)")
            // (The spare `.tmp` of the next replacement holds nothing yet.)
            if !name.hasSuffix(".tmp") { #expect(bytes.range(of: Data("alice:***@".utf8)) != nil, "\(name)") }
            let mode = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name): \(String(mode ?? 0, radix: 8))")
        }
        gate.open()
        let resumed = try await CommandRunner.run(["get", url, "-o", "big.bin", "-n", "1"], in: folder)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming"), "\(resumed.stderr)")
        #expect(TestFiles.contents(of: folder + "/big.bin", equal: content))
    }

    /// A server's text and a URL with control characters reach stderr escaped: no escape
    /// sequence, no line of its own.
    @Test func remoteTextReachesTheTerminalEscaped() async throws {
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 404)
            response.statusLine = "HTTP/1.1 404 \u{1B}]0;owned\u{07}\u{1B}[2J"
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let list = folder + "/list.txt"
        try Data([0x68, 0x74, 0x74, 0x70, 0x3A, 0x2F, 0x2F, 0x1B, 0x5B, 0x32, 0x4A, 0x0A]).write(to: URL(fileURLWithPath: list))
        let runs = [
            ["get", server.url("/a\u{1B}[2Jb"), "-o", "x", "--retries", "0"], ["get", "-i", "list.txt"],
            ["play", server.url("/x\r\nfake: line"), "--output", "null"],
            ["info", server.url("/x.mp3")],
        ]
        for arguments in runs {
            let output = try await CommandRunner.run(arguments, in: folder)
            #expect(output.status != 0, "\(arguments)")
            #expect(!output.stderr.contains("\u{1B}") && !output.stderr.contains("\u{07}"), "\(arguments): \(output.stderr)")
            #expect(!output.stderr.contains("\r"), "\(arguments): \(output.stderr)")
            #expect(
                output.stderr.split(separator: "\n").allSatisfy {
                    $0.hasPrefix("slipstream") || $0.hasPrefix("Usage") || $0.hasPrefix("  ")
                },
                "\(arguments): \(output.stderr)")
        }
    }
}
