import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// `AudioInfo.read` of HLS streams made by ffmpeg: the playlists' facts (variants, the one
/// chosen, type, duration, segments, encryption) and the audio of the first segments.
@Suite(
    .enabled(if: (try? TestNginx.port()) != nil, "run with scripts/test.sh (nginx)"),
    .serialized)
struct HLSInfoTests {
    @Test func aMasterPlaylistTellsItsVariantsAndDescribesTheRichest() async throws {
        _ = try await offPool { try HLSFixtures.master() }
        let url = try HLSFixtures.url("master", "master.m3u8")
        let info = try await AudioInfo.read(from: url)
        let hls = try #require(info.source.hls)
        #expect(hls.variants.map(\.bandwidth) == [70_400, 176_000])
        #expect(hls.variants.allSatisfy { $0.codecs == ["mp4a.40.2"] && !$0.hasVideo })
        #expect(hls.chosenVariant == 1)
        #expect(hls.mediaPlaylist == (try HLSFixtures.url("master", "v1/index.m3u8")))
        #expect(hls.type == .vod && hls.segmentCount == 4 && hls.targetDuration == 2)
        #expect(abs((hls.duration ?? 0) - 7) < 0.1)
        #expect(hls.segmentFormat == .transportStream && hls.encryption == nil)
        #expect(info.source.url == url && !info.source.isLive)
        // The master and media playlists, and the four segments (the whole stream is under 256 KiB;
        // on a loaded machine a segment fetched ahead slower than it lasts may be raced too).
        #expect(info.source.requests >= 6)
        #expect(info.audio.format.codec == .aac && info.audio.format.sampleRate == 44100)
        #expect(info.audio.durationSource == .counted && abs((info.audio.duration ?? 0) - 7) < 0.1)
        #expect(info.audio.isSeekableByTime)
        let rich = try #require(info.audio.bitRate?.bitsPerSecond)

        var options = AudioInfo.Options()
        options.hlsVariant.maximumBitRate = 100_000
        let poor = try await AudioInfo.read(from: url, options: options)
        #expect(poor.source.hls?.chosenVariant == 0)
        #expect(try #require(poor.audio.bitRate?.bitsPerSecond) < rich / 2)
        options.hlsVariant = HLSVariantSelection(maximumBitRate: 100_000, index: 1)
        #expect(try await AudioInfo.read(from: url, options: options).source.hls?.chosenVariant == 1)
    }

    @Test func aVariantThePlaylistDoesNotHaveIsAnError() async throws {
        _ = try await offPool { try HLSFixtures.master() }
        var options = AudioInfo.Options()
        options.hlsVariant.index = 2
        await #expect {
            _ = try await AudioInfo.read(from: try HLSFixtures.url("master", "master.m3u8"), options: options)
        } throws: { error in
            guard let error = error as? AudioInfoError else { return false }
            return error.code == .notAudio && error.message.contains("lists 2 variants (0 to 1): 2 is not one of them")
        }
    }

    @Test(
        arguments: [
            ("packed", "packed.m3u8", AudioInfo.HLSStream.SegmentFormat.packedAudio, nil),
            ("fmp4", "index.m3u8", .fragmentedMP4, nil),
            ("aes-iv", "index.m3u8", .transportStream, "AES-128"),
            ("aes-fmp4", "index.m3u8", .fragmentedMP4, "AES-128"),
        ] as [(String, String, AudioInfo.HLSStream.SegmentFormat, String?)])
    func segmentFormatsAndEncryptionAreTold(
        _ folder: String, _ playlist: String, _ format: AudioInfo.HLSStream.SegmentFormat, _ encryption: String?
    )
        async throws
    {
        _ = try await offPool {
            switch folder {
            case "packed": try HLSFixtures.packedAudio()
            case "fmp4": try HLSFixtures.fragmentedMP4()
            case "aes-fmp4": try HLSFixtures.encryptedFragmentedMP4()
            default: try HLSFixtures.encrypted(iv: "000102030405060708090a0b0c0d0e0f")
            }
        }
        let info = try await AudioInfo.read(from: try HLSFixtures.url(folder, playlist))
        let hls = try #require(info.source.hls)
        #expect(hls.variants.isEmpty && hls.chosenVariant == nil)
        #expect(hls.segmentFormat == format)
        #expect(hls.encryption == encryption)
        #expect(info.audio.format.codec == (format == .fragmentedMP4 ? .aacRaw : .aac))
        #expect(abs((info.audio.duration ?? 0) - 7) < 0.1)
    }

    @Test func aLivePlaylistIsLiveWithoutADuration() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        try HLSAudioSourceTests.livePlaylist([1, 2, 3]).write(toFile: folder + "/live-info.m3u8", atomically: true, encoding: .utf8)
        let info = try await AudioInfo.read(from: try HLSFixtures.url("ts", "live-info.m3u8"))
        let hls = try #require(info.source.hls)
        #expect(hls.type == .live && hls.duration == nil && hls.segmentCount == 3)
        #expect(info.source.isLive)
        #expect(info.audio.duration == nil && !info.audio.isSeekableByTime)
        #expect(info.audio.format.codec == .aac)
    }
}
