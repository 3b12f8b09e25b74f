import Foundation
import Testing
import TestSupport

/// Every numeric option, given what a hostile script or a typo gives (huge, negative, NaN,
/// infinity, hex, 40 digits, an exponent), ends the run with the usage status and a line that
/// names the option: never a signal (a crash), never a quiet guess (`0x10` read as 16). One
/// option at a time: 216 runs of the binary at once would crowd the other suites' servers.
@Suite(.serialized) struct ExtremeNumberCommandTests {
    /// The values no numeric option takes.
    static let extremes = [
        "1e308", "1e19", "-1", "nan", "inf", "-inf", "0x10", "+5", "", " 5",
        "1234567890123456789012345678901234567890", "99999999999999999999",
    ]

    /// `(command words before the option, option, words after)`: each numeric option of each
    /// command, with a target that is never reached (the value is refused first).
    static let options: [(String, [String])] = [
        ("--retries", ["get", "http://127.0.0.1:1/x"]), ("--stall-timeout", ["get", "http://127.0.0.1:1/x"]),
        ("-n", ["get", "http://127.0.0.1:1/x"]), ("--min-split-size", ["get", "http://127.0.0.1:1/x"]),
        ("--limit-rate", ["get", "http://127.0.0.1:1/x"]), ("--limit-rate-per-download", ["get", "http://127.0.0.1:1/x"]),
        ("--connect-timeout", ["get", "http://127.0.0.1:1/x"]), ("--max-filesize", ["get", "http://127.0.0.1:1/x"]),
        ("-j", ["get", "http://127.0.0.1:1/x", "http://127.0.0.1:1/y"]),
        ("--host-connections", ["get", "http://127.0.0.1:1/x", "http://127.0.0.1:1/y"]),
        ("--max-bitrate", ["get", "--hls", "http://127.0.0.1:1/x.m3u8"]), ("--variant", ["get", "--hls", "http://127.0.0.1:1/x.m3u8"]),
        ("--start", ["play", "missing.mp3"]), ("--volume", ["play", "missing.mp3"]), ("--buffer", ["play", "missing.mp3"]),
        ("--reconnect", ["play", "missing.mp3"]), ("--max-bitrate", ["info", "http://127.0.0.1:1/x.m3u8"]),
        ("--variant", ["info", "http://127.0.0.1:1/x.m3u8"]),
    ]

    @Test(arguments: options)
    func extremeValuesAreAUsageError(option: String, command: [String]) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        for value in Self.extremes {
            let output = try await CommandRunner.run(command + [option, value], in: folder)
            #expect(output.status == 2, "\(option) '\(value)': \(output.status) \(output.stderr)")
            #expect(output.stderr.contains(option), "\(option) '\(value)': \(output.stderr)")
            #expect(!output.stderr.contains("Fatal error"), "\(option) '\(value)': \(output.stderr)")
        }
        #expect((try FileManager.default.contentsOfDirectory(atPath: folder)).isEmpty)
    }

    /// A time beyond the file, up to the largest taken, plays from the end: no trap in the
    /// sample counts computed from it.
    @Test(.enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"))
    func theLargestStartTimeTakenPlaysFromTheEnd() async throws {
        let file = try AudioFixtures.path("mp3-cbr128.mp3")
        for start in ["1000000000", "277777:46:40"] {
            let output = try await CommandRunner.run(
                ["play", file, "--start", start, "--output", "null", "-q"], in: NSTemporaryDirectory())
            #expect(output.status == 0, "\(start): \(output.status) \(output.stderr)")
        }
        let beyond = try await CommandRunner.run(["play", file, "--start", "1000000001", "--output", "null"], in: NSTemporaryDirectory())
        #expect(beyond.status == 2 && beyond.stderr.contains("--start"), "\(beyond.stderr)")
    }
}
