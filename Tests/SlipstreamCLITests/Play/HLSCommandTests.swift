import Foundation
import Testing
import TestSupport

/// `slipstream info` and `play` of an HLS master playlist, run as a user would: two variants of
/// packed audio (the ADTS fixture as one segment, with no ID3 tag), the one chosen by
/// `--max-bitrate` and `--variant`.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct HLSCommandTests {
    /// The master playlist's URL.
    static func master() throws -> String {
        let segment = try AudioFixtures.served("aac-lc-128k.aac")
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:3.0,\n\(segment)\n#EXT-X-ENDLIST\n"
        return try PlaylistCommandTests.servedFolder([
            "master.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"\nlow.m3u8\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=150000,AVERAGE-BANDWIDTH=130000,CODECS=\"mp4a.40.2\"\nhigh.m3u8\n",
            "low.m3u8": media, "high.m3u8": media,
        ]) + "master.m3u8"
    }

    @Test func infoListsTheVariantsAndTheOneChosen() async throws {
        let url = try Self.master()
        let text = try await CommandRunner.run(["info", url], in: NSTemporaryDirectory())
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Variant 0:      64 kbit/s, mp4a.40.2\n"), "\(text.stdout)")
        #expect(text.stdout.contains("Variant 1:      150 kbit/s, average 130 kbit/s, mp4a.40.2 (chosen)\n"))
        #expect(text.stdout.contains("Media playlist: \(url.dropLast("master.m3u8".count))high.m3u8\n"))
        #expect(text.stdout.contains("HLS type:       VOD\n"))
        #expect(text.stdout.contains("Segments:       1 of up to 4 s, packed audio\n"))
        #expect(text.stdout.contains("Encryption:     none\n"))
        #expect(text.stdout.contains("AAC LC"))
        for (options, chosen) in [(["--max-bitrate", "100k"], 0), (["--variant", "0"], 0), ([], 1)] {
            let json = try await CommandRunner.run(["info", url, "--json"] + options, in: NSTemporaryDirectory())
            let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let hls = (report?["source"] as? [String: Any])?["hls"] as? [String: Any]
            #expect(hls?["chosenVariant"] as? Int == chosen, "\(options): \(json.stdout)")
            #expect((hls?["variants"] as? [Any])?.count == 2)
            #expect(hls?["type"] as? String == "vod" && hls?["segmentFormat"] as? String == "packed audio")
        }
    }

    @Test func aVariantThatIsNotThereIsExitStatus6() async throws {
        let url = try Self.master()
        for command in [["info"], ["play", "--output", "null"]] {
            let output = try await CommandRunner.run(command + [url, "--variant", "5"], in: NSTemporaryDirectory())
            #expect(output.status == 6, "\(command): \(output.stderr)")
            #expect(output.stderr.contains("lists 2 variants (0 to 1): 5 is not one of them"), "\(output.stderr)")
        }
        let played = try await CommandRunner.run(["play", url, "--output", "null", "--variant", "0", "-q"], in: NSTemporaryDirectory())
        #expect(played.status == 0, "\(played.stderr)")
    }
}
