import Foundation
import Synchronization
import Testing
import TestSupport
import SlipstreamAudio
import SlipstreamDownload

/// A player reading a running download (`AudioStreamer(download:url:configuration:)`) against
/// nginx: a seek into the bytes fetched makes no request, and a seek ahead of them moves the
/// download's window there, so the audio there is heard long before the whole file is in.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "needs nginx and the audio fixtures: run with scripts/test.sh"),
    .timeLimit(.minutes(2)))
struct ListeningTests {
    /// The 40-second M4A fixture (128 kbit/s) served under `name`; its path.
    static func serve(as name: String) throws -> String {
        let path = try TestNginx.filesFolder() + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: try AudioFixtures.path("mp4-aac-long-faststart.m4a"), toPath: path)
        return path
    }

    /// A real-time player of `download` (of `url`), with no sound.
    static func player(_ download: Download, url: String) -> AudioStreamer {
        var configuration = AudioStreamerConfiguration()
        configuration.output = { NullOutput(paced: true) }
        return AudioStreamer(download: download, url: url, configuration: configuration)
    }

    @Test func aPausedPlayerLetsTheDownloadFinish() async throws {
        let source = try Self.serve(as: "listen-pause.m4a")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestNginx.url("listen-pause.m4a", location: "rate", query: "rate=64000")
        let download = try Downloader().start(url, to: .folder(folder))
        let player = Self.player(download, url: url)
        player.play()
        for await event in player.events {
            if case .stateChanged(.playing) = event { break }
        }
        player.pause()
        let result = try await download.value
        #expect(player.state == .paused)
        player.stop()
        #expect(await TestFiles.equalOffPool(result.path, source))
    }

    @Test func aSeekIntoFetchedBytesMakesNoRequest() async throws {
        let source = try Self.serve(as: "listen-seek-back.m4a")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestNginx.url("listen-seek-back.m4a")
        let download = try Downloader().start(url, to: .folder(folder))
        let player = Self.player(download, url: url)
        player.play()
        let result = try await download.value
        #expect(await TestFiles.equalOffPool(result.path, source))
        // Every request of the download has ended, and is logged.
        let requests = try TestNginx.requests(to: "/files/listen-seek-back.m4a").count
        var sought = false
        for await event in player.events {
            guard case .progress(let progress) = event, progress.position > 0.5 else { continue }
            if !sought {
                try player.seek(to: 30)
                sought = true
            } else if progress.position >= 30.5 {
                player.stop()
            }
        }
        #expect(sought && player.state == .stopped(.user), "\(player.state)")
        #expect(try TestNginx.requests(to: "/files/listen-seek-back.m4a").count == requests)
    }

    @Test func aSeekAheadIsHeardBeforeTheDownloadEnds() async throws {
        let source = try Self.serve(as: "listen-seek-ahead.m4a")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Two connections of 32 000 bytes a second: the 640 KB take ten seconds.
        let url = try TestNginx.url("listen-seek-ahead.m4a", location: "rate", query: "rate=32000")
        var configuration = DownloadConfiguration()
        configuration.connections = 2
        let download = try Downloader(configuration: configuration).start(url, to: .folder(folder))
        let player = Self.player(download, url: url)
        player.play()
        var sought = false
        var fractionWhenHeard: Double?
        for await event in player.events {
            guard case .progress(let progress) = event else { continue }
            if !sought, progress.position > 0 {
                try player.seek(to: 35)
                sought = true
            } else if sought, progress.position >= 35.5, fractionWhenHeard == nil {
                fractionWhenHeard = download.progress.fractionCompleted
                player.stop()
            }
        }
        let fraction = try #require(fractionWhenHeard)
        #expect(fraction < 0.9, "the seek's audio came only with the whole file: \(fraction)")
        let result = try await download.value
        #expect(await TestFiles.equalOffPool(result.path, source))
    }
}
