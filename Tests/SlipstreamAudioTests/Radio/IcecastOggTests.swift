import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The player as a listener of an Ogg mount of the real Icecast 2.4 (scripts/icecast.sh), fed
/// by ffmpeg: Icecast gives a new listener the codec's header pages, then the live pages, whose
/// granule positions do not start at 0; the stream plays with the title of its Vorbis comment
/// or OpusTags, no byte skipped; and recorded from there as an Ogg file of its own.
@Suite(
    .enabled("run with scripts/test.sh (the audio fixtures)") {
        let made = await OggFixtures.made()
        return made && AudioFixtures.directory != nil
    })
struct IcecastOggTests {
    /// The fixtures' comments' artist and title, as a link's title tells them.
    static let title = "Some Artist - First Song"

    @Test(arguments: [("vorbis-q3.ogg", "Vorbis", 44100), ("opus-64k.opus", "Opus", 48000)])
    func anOggMountPlaysWithItsTitle(name: String, codec: String, rate: Int) async throws {
        let icecast = try TestIcecast.shared()
        let mount = TestIcecast.uniqueMount("ogg-" + name.replacingOccurrences(of: ".", with: "-"), extension: "ogg")
        let source = try await icecast.startSource(on: mount, playing: try OggFixtures.path(name), as: .ogg)
        let output = RecordingOutput(NullOutput(paced: false))
        let player = IcecastRadioTests.player(icecast.url(mount), output: output)
        let run = try await PlayerRun.collect(player, limit: 90) { player in
            player.play()
            try await PlayerRun.wait { player.title?.title == Self.title && player.progress.position > 1 }
            player.stop()
        }
        await source.stop()
        #expect(run.finalState == .stopped(.user), "\(run.events.suffix(8))")
        #expect(IcecastRadioTests.titles(run).first == Self.title)
        let format = try #require(player.properties.format)
        #expect(format.codecDescription.contains(codec), "\(format.codecDescription)")
        #expect(format.sampleRate == rate && format.channels == 2)
        #expect(player.properties.junkByteCount == 0)
        #expect(output.segments.joined().count > rate * 4)
        #expect(player.station?.name == TestIcecast.Station.test.name)
    }

    /// A recording that starts in the middle of an Ogg mount's stream is a file that the
    /// reference decoder plays from its start: an Ogg file (the recorder's own header pages
    /// with the link's title, then the packets under granule positions counted from there), or
    /// for FLAC in Ogg (ffmpeg puts the FLAC fixture's frames in Ogg pages) a native FLAC file.
    @Test(arguments: [
        ("vorbis-q3.ogg", "ogg", 44100, title), ("opus-64k.opus", "opus", 48000, title),
        ("flac-16-seektable.flac", "flac", 44100, "Flac Artist - Flac Title"),
    ])
    func anOggMountIsRecordedAsAFileThatPlays(name: String, fileExtension: String, rate: Int, title: String) async throws {
        let icecast = try TestIcecast.shared()
        let mount = TestIcecast.uniqueMount("ogg-record-" + name.replacingOccurrences(of: ".", with: "-"), extension: "ogg")
        let file = fileExtension == "flac" ? try AudioFixtures.path(name) : try OggFixtures.path(name)
        let source = try await icecast.startSource(on: mount, playing: file, as: .ogg)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = AudioStreamerConfiguration()
        configuration.output = { NullOutput(paced: true) }
        configuration.recording = AudioRecording(.folder(folder))
        let player = AudioStreamer(url: icecast.url(mount), configuration: configuration)
        let run = try await PlayerRun.collect(player, limit: 90) { player in
            player.play()
            try await PlayerRun.wait { player.progress.position > 2 }
            player.stop()
        }
        await source.stop()
        let files = run.events.compactMap { if case .recordingFinished(let file) = $0 { file } else { nil } }
        #expect(files.map(\.path) == ["\(folder)/\(title).\(fileExtension)"], "\(run.events.suffix(8))")
        // Decoded by oggdec, opusdec or flac from the file alone: at least the two seconds played.
        let path = try #require(files.first).path
        let pcm = fileExtension == "flac" ? try await ReferenceDecoder.flac(path) : try await OggFixtures.reference(path: path)
        #expect(pcm.count >= rate * 4 * 2, "\(pcm.count) bytes")
    }
}
