import Glibc
import Testing
@testable import slipstream
import SlipstreamAudio
import SlipstreamDownload
import SlipstreamHTTP

/// `play`'s argument parsing, key decoding and status line, without I/O.
struct PlayOptionsTests {
    @Test func parsesEveryOption() throws {
        let options = try PlayOptions.parse([
            "http://127.0.0.1/a.mp3", "--output", "wav:/tmp/x.wav", "--start", "1:30", "--save", "copy.mp3",
            "--volume=40", "--buffer", "2M", "--proxy", "socks5h://127.0.0.1:1080", "-H", "X-A: b", "-q",
            "--reconnect", "5", "--record", "radio/", "--json",
        ])
        #expect(options.target == "http://127.0.0.1/a.mp3")
        #expect(options.output == .wav(path: "/tmp/x.wav"))
        #expect(options.start == 90)
        #expect(options.save == "copy.mp3")
        #expect(options.record == "radio/")
        #expect(options.json)
        #expect(options.volume == 40)
        #expect(options.buffer == .bytes(2 << 20))
        #expect(options.proxy == "socks5h://127.0.0.1:1080")
        #expect(options.headers["X-A"] == "b")
        #expect(options.quiet)
        let configuration = options.configuration
        #expect(configuration.volume == 0.4)
        #expect(configuration.startTime == .seconds(90))
        #expect(configuration.liveReconnectAttempts == 5)
        #expect(try PlayOptions.parse(["x.mp3"]).configuration.liveReconnectAttempts == nil)
        #expect(throws: UsageError.self) { try PlayOptions.parse(["x.mp3", "--reconnect", "-1"]) }
    }

    @Test func keepTakesAFileAndConnections() throws {
        let options = try PlayOptions.parse(["http://127.0.0.1/a.mp3", "--keep", "a.mp3", "-n", "4"])
        #expect(options.keep == "a.mp3" && options.connections == 4)
        #expect(options.keepingDownloader(access: TransferAccess()).configuration.connections == 4)
        #expect(
            try PlayOptions.parse(["http://127.0.0.1/a.mp3", "--keep=a.mp3"]).keepingDownloader(access: TransferAccess())
                .configuration.connections == 8)
        #expect(throws: UsageError.self) { try PlayOptions.parse(["http://127.0.0.1/a.mp3", "--keep", "a.mp3", "-n", "65"]) }
        let digest = "sha256=" + String(repeating: "ab", count: 32)
        let checked = try PlayOptions.parse(["http://127.0.0.1/a.mp3", "--keep", "a.mp3", "--checksum", digest])
        #expect(checked.keepingDownloader(access: TransferAccess()).configuration.checksum == (try Checksum(parsing: digest)))
        #expect(throws: UsageError.self) { try PlayOptions.parse(["http://127.0.0.1/a.mp3", "--checksum", "sha256=12"]) }
    }

    @Test func getPlayTakesAnOutput() throws {
        #expect(try GetOptions.parse(["http://127.0.0.1/a.mp3", "--play"]).play == .automatic)
        #expect(try GetOptions.parse(["http://127.0.0.1/a.mp3", "--play=null"]).play == .null(paced: false))
        #expect(try GetOptions.parse(["http://127.0.0.1/a.mp3"]).play == nil)
        for arguments in [["-o", "-"], ["--hls"], ["-i", "list.txt"], ["--play=speaker"]] {
            #expect(throws: UsageError.self) { try GetOptions.parse(["http://127.0.0.1/a.mp3", "--play"] + arguments) }
        }
    }

    @Test func hlsVariantOptionsGoToTheConfigurationAndToInfo() throws {
        let play = try PlayOptions.parse(["x.m3u8", "--max-bitrate", "1.5M", "--variant=2"])
        #expect(play.configuration.hlsVariant == HLSVariantSelection(maximumBitRate: 1_500_000, index: 2))
        #expect(try InfoOptions.parse(["x.m3u8", "--max-bitrate=96k"]).variant.selection.maximumBitRate == 96_000)
        #expect(try HLSVariantOptions.bitRate("128000", for: "--max-bitrate") == 128_000)
        for bad in ["", "k", "-5", "0", "12x", "1e20"] {
            #expect(throws: UsageError.self) { try HLSVariantOptions.bitRate(bad, for: "--max-bitrate") }
        }
        #expect(throws: UsageError.self) { try PlayOptions.parse(["x.m3u8", "--variant", "-1"]) }
    }

    @Test(arguments: [("90", 90.0), ("12.5", 12.5), ("1:30", 90), ("1:02:03.5", 3723.5), ("0:00", 0)])
    func parsesTimes(_ text: String, _ seconds: Double) throws {
        #expect(try PlayOptions.time(text, for: "--start") == seconds)
    }

    @Test(arguments: ["", "-1", "1:60", "1:2:3:4", "a", "1:-5", "::", "1:02:75"])
    func refusesBadTimes(_ text: String) {
        #expect(throws: UsageError.self) { try PlayOptions.time(text, for: "--start") }
    }

    @Test func parsesBufferLimits() throws {
        #expect(try PlayOptions.buffer("unlimited", for: "--buffer") == .unlimited)
        #expect(try PlayOptions.buffer("45s", for: "--buffer") == .seconds(45))
        #expect(try PlayOptions.buffer("512K", for: "--buffer") == .bytes(512 * 1024))
        #expect(throws: UsageError.self) { try PlayOptions.buffer("lots", for: "--buffer") }
    }

    @Test(arguments: [
        [], ["a.mp3", "b.mp3"], ["a.mp3", "--volume", "101"], ["a.mp3", "--output", "speaker"],
        ["a.mp3", "--proxy", "http://127.0.0.1:1"], ["a.mp3", "--frobnicate"], ["a.mp3", "-q=1"],
    ])
    func refusesBadArguments(_ arguments: [String]) {
        #expect(throws: UsageError.self) { try PlayOptions.parse(arguments) }
    }

    @Test func decodesKeysAcrossSplitReads() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x20]) == [.togglePause])
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.feed(Array("[".utf8)) == [])
        #expect(decoder.feed(Array("C".utf8)) == [.seekForward])
        #expect(
            decoder.feed([0x1B] + Array("[D".utf8) + [0x1B] + Array("OA".utf8) + [0x1B] + Array("[B".utf8)) == [
                .seekBack, .volumeUp, .volumeDown,
            ])
        #expect(decoder.feed(Array("xq".utf8)) == [.quit])
        // An escape not followed by [ or O is dropped without eating the next key.
        #expect(decoder.feed([0x1B, 0x61]) == [])
        #expect(decoder.feed([0x20]) == [.togglePause])
    }

    @Test func statusLineShowsStatePositionBufferRateVolumeAndWhatPlays() {
        let progress = AudioStreamerProgress(position: 42.2, duration: 185, buffered: 12.34, bitRate: 128_000, bytesReceived: 1)
        let line = PlayStatus.line(state: .playing, progress: progress, volume: 0.8, nowPlaying: "Song", width: 80)
        #expect(line == "playing   0:43 / 3:05  buffered 12.3 s  128 kbit/s  vol 80%  Song")
        let unknown = AudioStreamerProgress(position: 0, duration: nil, buffered: 0, bitRate: nil, bytesReceived: 0)
        #expect(
            PlayStatus.line(state: .waitingForData, progress: unknown, volume: 1, nowPlaying: nil, width: 80)
                == "buffering  0:00 / --:--  buffered 0.0 s  vol 100%")
        // Cut to the terminal's width, so that it never wraps.
        let long = PlayStatus.line(
            state: .playing, progress: progress, volume: 1, nowPlaying: String(repeating: "x", count: 200), width: 60)
        #expect(long.count == 59)
    }

    @Test func nowPlayingIsTheStationAndTheStreamTitleElseTheTagTitle() {
        let station = StationInfo(name: "Radio X", genre: "Jazz")
        #expect(
            PlayStatus.nowPlaying(station: station, streamTitle: StreamTitle(title: "Band - Song"), tagTitle: "Tag")
                == "Radio X | Band - Song")
        // No stream title, or an empty one (the station cleared it): the tags' title.
        #expect(PlayStatus.nowPlaying(station: station, streamTitle: nil, tagTitle: "Tag") == "Radio X | Tag")
        #expect(PlayStatus.nowPlaying(station: station, streamTitle: StreamTitle(title: ""), tagTitle: nil) == "Radio X")
        #expect(PlayStatus.nowPlaying(station: nil, streamTitle: StreamTitle(title: "Live"), tagTitle: "Tag") == "Live")
        #expect(PlayStatus.nowPlaying(station: StationInfo(genre: "Pop"), streamTitle: nil, tagTitle: nil) == nil)
    }

    @Test func exitStatusFollowsHowPlaybackEnded() {
        #expect(PlayCommand.exitStatus(for: .done, signal: nil) == .success)
        #expect(PlayCommand.exitStatus(for: .stopped(.user), signal: nil) == .success)
        #expect(PlayCommand.exitStatus(for: .stopped(.user), signal: SIGINT) == .interrupted)
        #expect(PlayCommand.exitStatus(for: .stopped(.user), signal: SIGTERM) == .terminated)
        #expect(PlayCommand.advice(for: AudioStreamerError(.output, "no device"))?.contains("--output") == true)
        #expect(PlayCommand.advice(for: AudioStreamerError(.network, "lost")) == nil)
        #expect(PlayCommand.exitStatus(for: .stopped(.error(AudioStreamerError(.output, "no device"))), signal: nil) == .audio)
        #expect(PlayCommand.exitStatus(for: .stopped(.error(AudioStreamerError(.unsupportedFormat, "html"))), signal: nil) == .notAudio)
    }
}
