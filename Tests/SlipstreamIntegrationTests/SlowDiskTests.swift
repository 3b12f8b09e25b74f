import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio
@testable import SlipstreamDownload

/// The disk never stalls the network: a download to a disk that hangs (no write returns until
/// the stream has played), then takes 200 ms per write, runs on the same engine as a stream
/// that plays in real time; the stream gets every byte in time (no underrun once it plays),
/// and the download completes exactly. (Were a write made on the engine's thread, the stream
/// would get nothing while the disk hangs: the time limit catches that.)
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "needs nginx and the audio fixtures: run with scripts/test.sh"),
    .timeLimit(.minutes(2)))
struct SlowDiskTests {
    @Test func aSlowDiskStallsNeitherTheEngineNorAStreamOnIt() async throws {
        let size = 1 << 20
        let source = try await TestNginx.makeFileOffPool("slow-disk-1m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var download = DownloadConfiguration()
        download.connections = 8
        // One slot: the writer is full at once and stays full.
        download.writeBufferSize = 1
        let diskHangs = Gate()
        download.beforeWrite = { _, _ in
            diskHangs.wait()
            usleep(200_000)
        }
        let running = try Downloader(configuration: download)
            .start(try TestNginx.url("slow-disk-1m.bin"), to: .folder(folder))
        // The stream starts once the download's writer is busy (and soon full).
        for await event in running.events {
            if case .progress(let progress) = event, progress.completedBytes > 0 { break }
        }
        _ = try AudioFixtures.served("mp3-cbr128.mp3")
        var playback = AudioStreamerConfiguration()
        playback.output = { NullOutput(paced: true) }
        playback.startThreshold = .seconds(1)
        // Twice real time (128 kbit/s is 16 000 bytes a second): what a live station's burst gives.
        let player = AudioStreamer(
            url: try TestNginx.url("audio-mp3-cbr128.mp3", location: "rate", query: "rate=32000"),
            configuration: playback)
        player.play()
        var states: [AudioStreamerEvent] = []
        for await event in player.events {
            switch event {
            case .stateChanged, .bufferingStarted, .bufferingEnded: states.append(event)
            default: break
            }
        }
        #expect(states.last == .stateChanged(.done), "\(states)")
        let played = states.firstIndex(of: .stateChanged(.playing)) ?? states.endIndex
        #expect(!states[played...].contains(.bufferingStarted), "an underrun: \(states)")
        diskHangs.open()
        let result = try await running.value
        #expect(await TestFiles.equalOffPool(result.path, source))
        #expect(result.bytesReceived == Int64(size))
    }
}
