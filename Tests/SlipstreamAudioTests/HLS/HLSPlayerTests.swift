import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// HLS through the whole player: the playlist recognised by the probe, its stream played to a
/// WAV file. The audio of an MPEG-TS stream is exactly what the player makes of the segments'
/// audio as one ADTS file, and as long as ffmpeg's decode of the playlist (within a frame: the
/// decoders differ in priming); fMP4 and a master playlist play as long as ffmpeg's decode too.
@Suite(
    .enabled(if: (try? TestNginx.port()) != nil, "run with scripts/test.sh (nginx)"),
    .serialized)
struct HLSPlayerTests {
    /// ffmpeg's decode of the local playlist `path` (s16le, as the stream's channels).
    static func ffmpeg(_ path: String) async throws -> [UInt8] {
        try await ReferenceDecoder.ffmpeg(path)
    }

    @Test func aTransportStreamPlaysAsItsAudioWould() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        // The segments' audio as one served ADTS file, played the same way.
        let audio = try HLSAudioSourceTests.demuxed(try HLSAudioSourceTests.numbered(folder, "s", "ts"))
        try Data(audio).write(to: URL(fileURLWithPath: folder + "/joined.aac"))
        let (plain, reference) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "joined.aac"))
        #expect(plain.finalState == .done)
        #expect(played.count == reference.count)
        #expect(played == reference)
        let ffmpeg = try await Self.ffmpeg(folder + "/index.m3u8")
        #expect(abs(played.count - ffmpeg.count) <= 1024 * 4, "\(played.count) bytes, ffmpeg \(ffmpeg.count)")
    }

    /// The duration is the playlist's (its segments' durations), as the player's properties say
    /// from the start (a live playlist's is unknown: HLSAudioSourceTests).
    @Test func aRecordedPlaylistGivesItsDuration() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        let segments = playlist.split(separator: "\n").compactMap { line in
            line.hasPrefix("#EXTINF:") ? Double(line.dropFirst(8).prefix { $0 != "," }) : nil
        }
        #expect(segments.count > 1)
        let (run, _) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let properties = run.events.compactMap { if case .properties(let properties) = $0 { properties } else { nil } }
        let first = try #require(properties.first)
        #expect(first.durationSource == .header)
        #expect(abs((first.duration ?? 0) - segments.reduce(0, +)) < 1e-9, "\(String(describing: first.duration)) \(segments)")
    }

    /// A discontinuity that changes the format (44.1 kHz stereo, then 22.05 kHz mono): both
    /// parts play whole, the second converted to the output's format, and the second is heard.
    @Test func aDiscontinuityThatChangesTheFormatPlaysBothParts() async throws {
        let folder = try await offPool { try HLSFixtures.discontinuity() }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("discontinuity", "index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        // As long as ffmpeg's decode of each part, the second's at twice its rate, within a frame.
        let first = try await Self.ffmpeg(try HLSFixtures.transportStream() + "/index.m3u8").count / 4
        let second = try await Self.ffmpeg(folder + "/second.m3u8").count / 2
        let frames = played.count / 4
        #expect(abs(frames - (first + 2 * second)) <= 2 * 1024, "\(frames) frames, ffmpeg \(first) + 2 x \(second)")
        let samples = played.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let tail = samples.suffix(2 * 44100 * 2)
        let loudness = tail.reduce(0) { $0 + abs(Int($1)) } / max(tail.count, 1)
        #expect(loudness > 500, "the second part's last seconds are silent (mean \(loudness))")
    }

    @Test func mp3InATransportStreamOfByteRangesPlays() async throws {
        let folder = try await offPool { try HLSFixtures.byteRanges() }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ranges", "index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let ffmpeg = try await Self.ffmpeg(folder + "/index.m3u8")
        #expect(abs(played.count - ffmpeg.count) <= 1152 * 4, "\(played.count) bytes, ffmpeg \(ffmpeg.count)")
    }

    @Test func fragmentedMP4Plays() async throws {
        let folder = try await offPool { try HLSFixtures.fragmentedMP4() }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("fmp4", "index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let ffmpeg = try await Self.ffmpeg(folder + "/index.m3u8")
        #expect(abs(played.count - ffmpeg.count) <= 1024 * 4, "\(played.count) bytes, ffmpeg \(ffmpeg.count)")
    }

    @Test func anAES128StreamPlaysAsItsPlainTwin() async throws {
        _ = try await offPool { try HLSFixtures.encrypted(iv: "000102030405060708090a0b0c0d0e0f") }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("aes-iv", "index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let (_, plain) = try await PlaylistPlayerTests.play(try HLSFixtures.url("aes-iv", "plain.m3u8"))
        #expect(!played.isEmpty)
        #expect(played == plain)
    }

    /// An fMP4 stream whose key covers its initialization section too (the key before the
    /// `EXT-X-MAP`): both are decrypted, and it plays as its plain twin.
    @Test func anEncryptedInitializationSectionIsDecrypted() async throws {
        _ = try await offPool { try HLSFixtures.encryptedFragmentedMP4() }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("aes-fmp4", "index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let (_, plain) = try await PlaylistPlayerTests.play(try HLSFixtures.url("fmp4", "index.m3u8"))
        #expect(!played.isEmpty)
        #expect(played == plain)
    }

    @Test func aLiveStreamThatGainsItsEndListEndsThePlayer() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let live = { (numbers: [Int], ended: Bool) in
            "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + numbers.map { "#EXTINF:2.0,\ns\($0).ts\n" }.joined() + (ended ? "#EXT-X-ENDLIST\n" : "")
        }
        try live([0, 1], false).write(toFile: folder + "/ending.m3u8", atomically: true, encoding: .utf8)
        // Once the player fetched the second segment, the playlist gains the others and its end.
        let segment = "/files/hls-\(getpid())-ts/s1.ts"
        let before = try TestNginx.requests(to: segment).count
        let writer = Task {
            try await PlayerRun.wait(limit: 60) { ((try? TestNginx.requests(to: segment)) ?? []).count > before }
            try live([0, 1, 2, 3], true).write(toFile: folder + "/ending.m3u8", atomically: true, encoding: .utf8)
        }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "ending.m3u8"))
        try await writer.value
        #expect(run.finalState == .done, "\(run.events)")
        let (_, whole) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "index.m3u8"))
        #expect(played == whole)
    }

    @Test func aMasterPlaylistPlaysItsChosenVariant() async throws {
        let folder = try await offPool { try HLSFixtures.master() }
        let (run, played) = try await PlaylistPlayerTests.play(try HLSFixtures.url("master", "master.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let ffmpeg = try await Self.ffmpeg(folder + "/v1/index.m3u8")
        #expect(abs(played.count - ffmpeg.count) <= 1024 * 4, "\(played.count) bytes, ffmpeg \(ffmpeg.count)")
    }

    @Test func theConfiguredVariantIsPlayed() async throws {
        _ = try await offPool { try HLSFixtures.master() }
        let segment = { (variant: Int) in "/files/hls-\(getpid())-master/v\(variant)/s0.ts" }
        for (selection, played) in [(HLSVariantSelection(maximumBitRate: 100_000), 0), (HLSVariantSelection(index: 1), 1)] {
            let before = try [0, 1].map { try TestNginx.requests(to: segment($0)).count }
            let (run, _) = try await PlaylistPlayerTests.play(try HLSFixtures.url("master", "master.m3u8")) { $0.hlsVariant = selection }
            #expect(run.finalState == .done, "\(run.events)")
            let after = try [0, 1].map { try TestNginx.requests(to: segment($0)).count }
            #expect(after[played] > before[played] && after[1 - played] == before[1 - played], "\(selection): \(before) \(after)")
        }
        let (run, _) = try await PlaylistPlayerTests.play(try HLSFixtures.url("master", "master.m3u8")) { $0.hlsVariant.index = 5 }
        let error = try #require(run.error, "\(run.events)")
        #expect(error.code == .unsupportedFormat && error.message.contains("5 is not one of them"), "\(error.message)")
    }

    @Test func aMissingSegmentStopsThePlayerWithItsError() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8).replacingOccurrences(
            of: "s1.ts", with: "absent.ts")
        try playlist.write(toFile: folder + "/absent.m3u8", atomically: true, encoding: .utf8)
        let (run, _) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "absent.m3u8"))
        let error = try #require(run.error, "\(run.events)")
        #expect(error.code == .httpStatus)
        #expect(error.message.contains("absent.ts"), "\(error.message)")
    }

    @Test func anHLSStreamListedInAPlaylistPlaysAsItsEntry() async throws {
        _ = try await offPool { try HLSFixtures.transportStream() }
        let missing = try TestNginx.url("no-such-stream.m3u8")
        let stream = try HLSFixtures.url("ts", "index.m3u8")
        let folder = try PlaylistPlayerTests.servedFolder([
            "radio.pls": "[playlist]\nNumberOfEntries=2\nFile1=\(missing)\nFile2=\(stream)\nTitle2=HLS\n"
        ])
        let (run, played) = try await PlaylistPlayerTests.play(folder + "radio.pls")
        #expect(run.finalState == .done, "\(run.events)")
        #expect(PlaylistPlayerTests.skipped(run).map(\.url) == [missing])
        #expect(PlaylistPlayerTests.started(run).map(\.url) == [missing, stream])
        let (_, direct) = try await PlaylistPlayerTests.play(stream)
        #expect(played == direct)
    }

    @Test func anHLSStreamThatFailsBeforeItsAudioIsSkippedInAPlaylist() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ngone.ts\n#EXT-X-ENDLIST\n".write(
            toFile: folder + "/dead.m3u8", atomically: true, encoding: .utf8)
        let dead = try HLSFixtures.url("ts", "dead.m3u8")
        let song = try AudioFixtures.served("mp3-vbr-v0.mp3")
        let list = try PlaylistPlayerTests.servedFolder(["list.m3u": "\(dead)\n\(song)\n"])
        let (run, _) = try await PlaylistPlayerTests.play(list + "list.m3u")
        #expect(run.finalState == .done, "\(run.events)")
        #expect(PlaylistPlayerTests.skipped(run).map(\.url) == [dead])
    }
}
