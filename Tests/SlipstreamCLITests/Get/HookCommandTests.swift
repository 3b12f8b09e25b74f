import Foundation
import Testing
import TestSupport
@testable import slipstream

/// `--on-complete` and `--on-error`: the command's words, and runs of the built binary.
@Suite struct HookCommandTests {
    @Test(arguments: [
        ("notify-send done", ["notify-send", "done"]),
        ("  a   'b c'  \"d e\" ", ["a", "b c", "d e"]),
        (#"cp \$SLIPSTREAM_PATH /x\ y"#, ["cp", "$SLIPSTREAM_PATH", "/x y"]),
        (#"a "q\"uote" 'it''s' "\x" ''"#, ["a", "q\"uote", "its", "\\x", ""]),
        ("a 'b'c\"d\" e", ["a", "bcd", "e"]),
    ])
    func wordsAreSplitAsAShellWould(text: String, words: [String]) throws {
        #expect(try HookCommand(parsing: text, for: "--on-complete").words == words)
    }

    @Test(arguments: ["", "   ", "a 'b", "a \"b", "a\\"])
    func brokenCommandsAreRefused(text: String) {
        #expect(throws: UsageError.self) { try HookCommand(parsing: text, for: "--on-error") }
    }

    @Test func theCompleteHookGetsPathURLAndStatusInItsEnvironmentAndNoShellSeesThem() async throws {
        try TestNginx.makeFile("cli-hook.bin", size: 100_000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A URL a shell would run a command from, were it ever given to one unquoted.
        let url = try TestNginx.url("cli-hook.bin", query: "x=$(touch${IFS}pwned);touch${IFS}pwned2")
        let output = try await CommandRunner.run(
            ["get", "-q", "-o", "out.bin", "--on-complete", "printenv SLIPSTREAM_PATH SLIPSTREAM_URL SLIPSTREAM_STATUS", url],
            in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "out.bin\n\(url)\n0\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.bin"])
    }

    @Test func theErrorHookGetsTheStatusAndMessageAndTheQueueRunsHooksForEach() async throws {
        try TestNginx.makeFile("cli-hook-a.bin", size: 1000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = try TestNginx.url("cli-hook-missing.bin")
        let failed = try await CommandRunner.run(
            ["get", "-q", "--on-error", "printenv SLIPSTREAM_URL SLIPSTREAM_STATUS SLIPSTREAM_MESSAGE", missing], in: folder)
        #expect(failed.status == 4)
        #expect(failed.stdout.hasPrefix("\(missing)\n4\n") && failed.stdout.contains("404"), "\(failed.stdout)")
        // Failed before its first answer was taken: the path given (it was empty).
        let named = try await CommandRunner.run(["get", "-q", "-o", "z", "--on-error", "printenv SLIPSTREAM_PATH", missing], in: folder)
        #expect(named.status == 4 && named.stdout == "z\n", "\(named.stdout) \(named.stderr)")

        let queue = try await CommandRunner.run(
            [
                "get", "-q", "--on-complete", "printenv SLIPSTREAM_URL", "--on-error", "printenv SLIPSTREAM_STATUS",
                try TestNginx.url("cli-hook-a.bin"), missing,
            ], in: folder)
        #expect(queue.status == 4)
        #expect(
            Set(queue.stdout.split(separator: "\n")) == [Substring(try TestNginx.url("cli-hook-a.bin")), "4"],
            "\(queue.stdout) \(queue.stderr)")
        let noProgram = try await CommandRunner.run(
            ["get", "-q", "--force", "--on-complete", "no-such-program-here", try TestNginx.url("cli-hook-a.bin")], in: folder)
        #expect(noProgram.status == 0 && noProgram.stderr.contains("cannot run no-such-program-here"), "\(noProgram.stderr)")
    }
}
