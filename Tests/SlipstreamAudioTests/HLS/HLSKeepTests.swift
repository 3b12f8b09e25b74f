import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio
@testable import SlipstreamDownload

/// An HLS stream played while an `HLSDownload` keeps it: the player takes its segments from the
/// download (which fetches the one asked for first), so each segment crosses the network once
/// (but the first, which the player may start streaming before the download has it), the audio
/// is what plain playback makes, and the joined file comes once the player lets go.
@Suite(
    .enabled(if: (try? TestNginx.port()) != nil, "run with scripts/test.sh (nginx)"),
    .serialized)
struct HLSKeepTests {
    @Test func aKeptStreamPlaysFromTheDownloadAndIsJoinedOnceThePlayerLetsGo() async throws {
        let (served, segments) = try await HLSFixtures.servedTransportStreamCopy(prefix: "hls-keep")
        #expect(segments.count >= 3)
        let url = try TestNginx.url(served + "/index.m3u8")
        let output = try TestFiles.makeTemporaryFolder() + "/kept.ts"
        let download = try HLSDownloader().start(url, to: output)
        // Held here too (the player holds it until its end), to see the join wait.
        let holder = NSObject()
        download.kept.hold(holder)
        let (run, played) = try await PlaylistPlayerTests.play(url) { $0.keptHLS = download.kept }
        #expect(run.finalState == .done, "\(run.events)")
        #expect(!FileManager.default.fileExists(atPath: output))
        download.kept.release(holder)
        let result = try await download.value
        #expect(result.path == output)
        // The joined file is the segments one after the other.
        let folder = try TestNginx.filesFolder() + "/" + served
        var joined = Data()
        for segment in segments { joined += try Data(contentsOf: URL(fileURLWithPath: folder + "/" + segment)) }
        let kept = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(kept == joined)
        // The audio is plain playback's.
        let (plain, reference) = try await PlaylistPlayerTests.play(url)
        #expect(plain.finalState == .done)
        #expect(played == reference)
        // The download fetched every segment (its requests ask for ranges: 206s). On a quiet
        // machine it is the only fetch of each but the first during the kept playback; on one
        // so busy that the download retries, or the player stalls 10 s waiting and reconnects,
        // there are more: what holds everywhere is the file and the audio above.
        for segment in segments {
            let requests = try TestNginx.requests(to: "/files/" + served + "/" + segment)
            #expect(requests.contains { $0.status == 206 }, "\(segment): \(requests)")
        }
    }

    @Test func aPlayerAskingBeforeThePlanIsAnsweredOnceItIsKnown() async throws {
        let (served, segments) = try await HLSFixtures.servedTransportStreamCopy(prefix: "hls-keep")
        let url = try TestNginx.url(served + "/index.m3u8")
        let output = try TestFiles.makeTemporaryFolder() + "/early.ts"
        let download = try HLSDownloader().start(url, to: output)
        // Held, as a player holds them: else the download may join (and remove the segments'
        // files) between the answer and the read.
        let holder = NSObject()
        download.kept.hold(holder)
        let last = try TestNginx.url(served + "/" + segments.last!)
        let answer: HLSKeptResources.Answer = await withCheckedContinuation { continuation in
            download.kept.take(last) { continuation.resume(returning: $0) }
        }
        let file = try answer.get()
        let expected = try Data(contentsOf: URL(fileURLWithPath: try TestNginx.filesFolder() + "/" + served + "/" + segments.last!))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == expected)
        let stranger: HLSKeptResources.Answer = await withCheckedContinuation { continuation in
            download.kept.take(url + "?not-a-segment") { continuation.resume(returning: $0) }
        }
        #expect(throws: DownloadError.self) { try stranger.get() }
        download.kept.release(holder)
        _ = try await download.value
    }
}
