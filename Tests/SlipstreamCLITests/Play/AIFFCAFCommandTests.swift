import Foundation
import Testing
import TestSupport

/// `slipstream play` and `info` on PCM AIFF, AIFF-C and CAF, from nginx and from a file: as sox
/// decodes them, from the start or from a seek, with the length their data chunk states.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct AIFFCAFCommandTests {
    @Test(arguments: ["aiff-s16.aiff", "aifc-sowt.aiff", "caf-s16.caf"], [nil, 1.25])
    func playsAURLAndAFileAsSoxDecodesThem(name: String, start: Double?) async throws {
        let path = try AudioFixtures.path(name)
        let reference = try await ReferenceDecoder.sox(path)
        let expected = reference[(Int((start ?? 0) * 44100) * 4)...]
        for source in [try AudioFixtures.served(name), path] {
            let folder = try TestFiles.makeTemporaryFolder()
            let arguments = ["play", source, "--output", "wav:out.wav", "-q"] + (start.map { ["--start", "\($0)"] } ?? [])
            let output = try await CommandRunner.run(arguments, in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let played = try ReferenceDecoder.wavData(folder + "/out.wav")
            #expect(played.count == expected.count, "\(source)")
            #expect(played[...].elementsEqual(expected), "\(source)")
        }
    }

    @Test(arguments: [("aiff-s24-mono.aiff", "AIFF PCM 24-bit signed big-endian"), ("caf-f32.caf", "CAF PCM 32-bit float little-endian")])
    func infoFromAURLAndAFileAgree(name: String, description: String) async throws {
        var reports: [[String: Any]] = []
        for source in [try AudioFixtures.served(name), try AudioFixtures.path(name)] {
            let output = try await CommandRunner.run(["info", "--json", source], in: NSTemporaryDirectory())
            #expect(output.status == 0, "\(output.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            reports.append(try #require(report["audio"] as? [String: Any]))
        }
        let data = try reports.map { try JSONSerialization.data(withJSONObject: $0, options: .sortedKeys) }
        #expect(data[0] == data[1])
        #expect(reports[0]["duration"] as? Double == 3.0)
        // The whole of a small file is read: counted, which agrees with the data chunk's size.
        #expect(["header", "counted"].contains(reports[0]["durationSource"] as? String))
        #expect((reports[0]["format"] as? [String: Any])?["codecDescription"] as? String == description)
    }
}
