import Foundation
import Synchronization
import Testing
import TestSupport
import SlipstreamAudio
@testable import SlipstreamDownload

/// A player reading a running download (`AudioStreamer(download:url:configuration:)`) against
/// nginx: a seek into the bytes fetched makes no request, and a seek ahead of them moves the
/// download's window there, so the audio there is heard long before the whole file is in.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "needs nginx and the audio fixtures: run with scripts/test.sh"),
    .timeLimit(.minutes(5)))
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
        var paused = false
        for await event in player.events {
            if case .stateChanged(.playing) = event, !paused {
                player.pause()
                paused = true
            }
            if case .stateChanged(.paused) = event { break }
        }
        // Paused (not played to its end: 40 s at 64 kB/s a connection come in far sooner),
        // the player leaves the download running to its end.
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
        // Paused at once, so that nothing plays to the end before the seek, however busy the
        // machine (the download runs on while the player is paused).
        player.play()
        player.pause()
        let result = try await download.value
        #expect(await TestFiles.equalOffPool(result.path, source))
        // Every request of the download has ended, and is logged.
        let requests = try TestNginx.requests(to: "/files/listen-seek-back.m4a").count
        try player.seek(to: 30)
        player.play()
        for await event in player.events {
            guard case .progress(let progress) = event, progress.position >= 30.5 else { continue }
            player.stop()
        }
        // (Stopped, or played to its end where a busy machine was slow to stop it.)
        #expect([.stopped(.user), .done].contains(player.state), "\(player.state)")
        #expect(try TestNginx.requests(to: "/files/listen-seek-back.m4a").count == requests)
    }

    @Test func aSeekAheadIsFetchedBeforeTheBytesInFrontOfIt() async throws {
        let source = try Self.serve(as: "listen-seek-ahead.m4a")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Two connections of 32 000 bytes a second, from the start and from the middle: without
        // the player, the bytes past 80% come only after all those from 50% to 80%. Every
        // write's place, in order.
        let writes = Mutex<[Range<Int64>]>([])
        let url = try TestNginx.url("listen-seek-ahead.m4a", location: "rate", query: "rate=32000")
        var configuration = DownloadConfiguration()
        configuration.connections = 2
        configuration.beforeWrite = { offset, count in writes.withLock { $0.append(offset..<(offset + Int64(count))) } }
        let download = try Downloader(configuration: configuration).start(url, to: .folder(folder))
        // The player starts at 35 s of the 40 (its own threads seek, not a task of the test).
        var playing = AudioStreamerConfiguration()
        playing.output = { NullOutput(paced: true) }
        playing.startTime = .seconds(35)
        let player = AudioStreamer(download: download, url: url, configuration: playing)
        player.play()
        var heard = false
        for await event in player.events {
            guard case .progress(let progress) = event, progress.position >= 35.5, !heard else { continue }
            heard = true
            player.stop()
        }
        #expect(heard)
        let result = try await download.value
        #expect(await TestFiles.equalOffPool(result.path, source))
        let order = writes.withLock { $0 }
        let far = Int64(size) * 8 / 10
        let firstFar = try #require(order.firstIndex { $0.upperBound > far })
        let lastMiddle = try #require(order.lastIndex { $0.lowerBound < far && $0.upperBound > Int64(size) / 2 })
        #expect(firstFar < lastMiddle, "the bytes past 80% came after all those before them")
    }
}
