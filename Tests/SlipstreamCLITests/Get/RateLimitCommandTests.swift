import Foundation
import Testing
import TestSupport
@testable import slipstream

/// `--limit-rate` and `--limit-rate-per-download`.
@Suite struct RateLimitCommandTests {
    @Test func ratesTakeSizeSuffixes() throws {
        let options = try GetOptions.parse(["--limit-rate", "8M", "--limit-rate-per-download=500K", "http://x/"])
        #expect(options.configuration.sharedRateLimiter?.bytesPerSecond == 8 << 20)
        #expect(options.configuration.bytesPerSecondLimit == 500 << 10)
    }

    @Test(
        arguments: [
            (["get", "--limit-rate", "0", "http://x/"], "--limit-rate must be a size like 512K"),
            (["get", "--limit-rate-per-download", "fast", "http://x/"], "--limit-rate-per-download must be a size like 512K"),
            (["get", "--limit-rate"], "--limit-rate needs a value"),
        ] as [([String], String)])
    func badRatesAreUsageErrors(arguments: [String], message: String) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(arguments, in: folder)
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test(arguments: ["--limit-rate", "--limit-rate-per-download"])
    func aLimitedGetIsNeverFasterThanTheLimit(option: String) async throws {
        let size = 3 << 20
        let source = try TestNginx.makeFile("cli-limit-3m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let start = ContinuousClock.now
        let output = try await CommandRunner.run(
            ["get", "-q", "-n", "4", option, "2M", try TestNginx.url("cli-limit-3m.bin")], in: folder)
        let elapsed = start.duration(to: .now)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(TestFiles.equal(folder + "/cli-limit-3m.bin", source))
        // 3 MiB at 2 MiB/s after a full bucket of 50 ms: at least 1.45 s.
        #expect(elapsed >= .milliseconds(1450))
    }
}
