import Foundation
import Synchronization
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamAudio

/// Recording a radio stream while it plays, from an in-test station (ICY blocks, `icy-metaint`,
/// titles at known places): the files and their names, every file decoding cleanly with
/// mpg123, every packet of the stream in exactly one file, splits at the first frame of each
/// title, the tags read back; and a disk that hangs holds up neither the network nor playback.
@Suite(.enabled(if: AudioFixtures.directory != nil, "needs the audio fixtures: run with scripts/test.sh"), .timeLimit(.minutes(2)))
struct StreamRecordingTests {
    /// 12 s of 128 kbit/s MP3 (the 3-s fixture four times) sent with a block every second
    /// (16 000 bytes); block k starts title `titles[k-1]` (nil: an empty block).
    static let interval = 16000
    static let titles: [String?] = [nil, "Band/Name - First Song", nil, nil, "Second", nil, "Band/Name - First Song", nil, "", nil]

    struct Station {
        let server: TestHTTPServer
        let audio: [UInt8]
        /// Every MPEG frame of the audio: its offset and bytes.
        let packets: [(offset: Int64, bytes: [UInt8])]
    }

    static func station() throws -> Station {
        let piece = try AudioFixtures.bytes("mp3-cbr128-noxing.mp3")
        let audio = Array([[UInt8]](repeating: piece, count: 4).joined())
        let body = ICYStream.build(audio: audio, interval: interval, titles: titles)
        let server = try TestHTTPServer { _ in ICYStream.response(body, interval: interval, name: "Test FM") }
        return Station(server: server, audio: audio, packets: packets(of: audio))
    }

    /// The packets the project's parser finds in `bytes`, with their bytes.
    static func packets(of bytes: [UInt8]) -> [(offset: Int64, bytes: [UInt8])] {
        ParserRun(bytes, chunkSizes: { 4096 }).packets.map { ($0.offset, Array(bytes[Int($0.offset)..<Int($0.offset) + $0.size])) }
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Whether every recording event comes before the final state's.
    static func recordingToldBeforeTheEnd(_ events: [AudioStreamerEvent]) -> Bool {
        guard let end = events.firstIndex(where: { if case .stateChanged(let state) = $0 { state.isFinal } else { false } }) else {
            return false
        }
        return !events[end...].contains {
            switch $0 {
            case .recordingStarted, .recordingFinished, .recordingFailed: true
            default: false
            }
        }
    }

    static func player(_ url: String, recording: AudioRecording) -> AudioStreamer {
        var configuration = AudioStreamerConfiguration()
        configuration.output = { NullOutput(paced: false) }
        configuration.recording = recording
        // The station's stream is live: its end would be reconnected. Once is enough here.
        configuration.liveReconnectAttempts = 0
        return AudioStreamer(url: url, configuration: configuration)
    }

    /// mpg123 decodes `path` to the end without a note of a broken frame or a resync.
    static func decodesCleanly(_ path: String) async throws -> Bool {
        let run = try await ExternalProgram.output(["mpg123", "-t", path])
        let complaint = ["illegal", "resync", "error", "warning", "skipped"].contains { run.text.lowercased().contains($0) }
        return run.status == 0 && !complaint
    }

    @Test func recordsEachTitleIntoItsOwnFileSplitAtFrames() async throws {
        let station = try Self.station()
        defer { station.server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try await PlayerRun.collect(Self.player(station.server.url("/stream"), recording: AudioRecording(.folder(folder))))
        #expect(run.finalState == .done, "\(run.events)")

        let names = ["Test FM", "Band-Name - First Song", "Second", "Band-Name - First Song (2)", "Test FM (2)"].map { $0 + ".mp3" }
        let started = run.events.compactMap { if case .recordingStarted(let file) = $0 { file } else { nil } }
        let finished = run.events.compactMap { if case .recordingFinished(let file) = $0 { file } else { nil } }
        #expect(started.map(\.path) == names.map { folder + "/" + $0 })
        #expect(finished.map(\.path) == started.map(\.path))
        #expect(finished.map(\.title?.title) == [nil, "Band/Name - First Song", "Second", "Band/Name - First Song", nil])
        #expect(finished.allSatisfy { $0.droppedBytes == 0 })
        #expect(!run.events.contains { if case .recordingFailed = $0 { true } else { false } })
        // The last file is told of before the final state.
        #expect(Self.recordingToldBeforeTheEnd(run.events))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == names.sorted())

        // Where each file must start: the first frame at or after its title's offset.
        let titleOffsets = [2, 5, 7, 9].map { Int64($0 * Self.interval) }
        let firstPackets = [0] + titleOffsets.map { offset in station.packets.firstIndex { $0.offset >= offset }! }
        let tags: [(String?, String?)] = [
            ("Test FM", nil), ("First Song", "Band/Name"), ("Second", nil), ("First Song", "Band/Name"), ("Test FM", nil),
        ]
        var recorded: [[UInt8]] = []
        for (index, name) in names.enumerated() {
            let bytes = try Self.bytes(folder + "/" + name)
            let parsed = ParserRun(bytes, chunkSizes: { 4096 })
            #expect(parsed.final.tags.title == tags[index].0 && parsed.final.tags.artist == tags[index].1, "\(name)")
            #expect(parsed.final.tags.kinds == [.id3v23])
            #expect(parsed.final.junkByteCount == 0)
            let packets = Self.packets(of: bytes)
            // The audio starts right after the tag, with the title's first frame.
            #expect(packets.first?.offset == Int64(bytes.count) - finished[index].audioBytes)
            #expect(packets.first?.bytes == station.packets[firstPackets[index]].bytes, "\(name)")
            recorded += packets.map(\.bytes)
            #expect(try await Self.decodesCleanly(folder + "/" + name), "\(name)")
        }
        // Every frame of the stream in one file, in order: none lost, none twice.
        #expect(recorded.count == station.packets.count)
        #expect(recorded.elementsEqual(station.packets.map(\.bytes)))
        #expect(finished.map(\.audioBytes).reduce(0, +) == Int64(station.audio.count))
    }

    @Test func oneFileHoldsTheWholeStream() async throws {
        let station = try Self.station()
        defer { station.server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/radio.mp3"
        let run = try await PlayerRun.collect(Self.player(station.server.url("/stream"), recording: AudioRecording(.file(path))))
        #expect(run.finalState == .done)
        let bytes = try Self.bytes(path)
        let tag = ID3TagWriter.tag(title: "Test FM", artist: nil)
        #expect(Array(bytes.prefix(tag.count)) == tag)
        #expect(bytes[tag.count...].elementsEqual(station.audio))
        #expect(try await Self.decodesCleanly(path))
    }

    /// The disk hangs from the first write until playback has reached the last title: the
    /// stream plays on through it (were the network thread to wait for the disk, nothing more
    /// would arrive and the test would time out), the recorder's buffer drops whole packets once
    /// full and says so, and what it kept is whole frames of the stream, in order, in files that
    /// decode cleanly.
    @Test func aDiskThatHangsHoldsUpNeitherTheStreamNorPlayback() async throws {
        let station = try Self.station()
        defer { station.server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = Gate()
        let writesStarted = Atomic(0)
        var recording = AudioRecording(.folder(folder))
        recording.bufferSize = 64 << 10
        // The disk comes back: however slow a loaded machine makes the writes after that, the
        // end waits for them (a disk that never comes back is the next test's).
        recording.closeTimeout = .seconds(600)
        recording.beforeWrite = { _ in
            writesStarted.add(1, ordering: .relaxed)
            disk.wait()
        }
        let player = Self.player(station.server.url("/stream"), recording: recording)
        player.play()
        var events: [AudioStreamerEvent] = []
        var hangingWhenHeard = false
        for await event in player.events {
            events.append(event)
            if event == .titleChanged(StreamTitle(title: "")) {
                // Heard 9 s in, 144 000 bytes into the stream: far past the 64 KiB the buffer
                // holds, while the first write still hangs.
                hangingWhenHeard = disk.isClosed && writesStarted.load(ordering: .relaxed) == 1
                disk.open()
            }
        }
        #expect(hangingWhenHeard)
        #expect(events.contains(.stateChanged(.done)))
        #expect(Self.recordingToldBeforeTheEnd(events))
        let finished = events.compactMap { if case .recordingFinished(let file) = $0 { file } else { nil } }
        let dropped = finished.map(\.droppedBytes).reduce(0, +)
        #expect(dropped > 0)
        #expect(finished.map(\.audioBytes).reduce(0, +) + dropped == Int64(station.audio.count))
        // What was kept: whole frames of the stream, in order, each once.
        var next = 0
        for file in finished {
            let bytes = try Self.bytes(file.path)
            var packets = Self.packets(of: bytes)
            // A file may keep a single frame of its title (the rest dropped): a lone frame is no
            // stream to a parser (ours finds none; mpg123 warns "a one-frame stream?"), so it is
            // taken as the file's last audio bytes, and must still be one of the stream's frames.
            let isOneFrame = packets.isEmpty && station.packets.contains { $0.bytes.count == Int(file.audioBytes) }
            if isOneFrame { packets = [(Int64(bytes.count) - file.audioBytes, Array(bytes.suffix(Int(file.audioBytes))))] }
            #expect(packets.map(\.bytes.count).reduce(0, +) == Int(file.audioBytes))
            for packet in packets {
                guard let index = station.packets[next...].firstIndex(where: { $0.bytes == packet.bytes }) else {
                    Issue.record("\(file.path): a frame not in the stream, or out of order")
                    return
                }
                next = index + 1
            }
            if !isOneFrame { #expect(try await Self.decodesCleanly(file.path), "\(file.path)") }
        }
    }

    /// A disk that never comes back does not hold up the end: the player is stopped, the
    /// recording waits for its writes a bounded time, is told as failed, and the final state
    /// follows.
    @Test func aDiskThatNeverComesBackDoesNotHoldUpTheEnd() async throws {
        let station = try Self.station()
        defer { station.server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = Gate()
        defer { disk.open() }
        let writing = Atomic(false)
        var recording = AudioRecording(.folder(folder))
        recording.closeTimeout = .milliseconds(500)
        recording.beforeWrite = { _ in
            writing.store(true, ordering: .relaxed)
            disk.wait()
        }
        let player = Self.player(station.server.url("/stream"), recording: recording)
        let run = try await PlayerRun.collect(player) { player in
            player.play()
            try await PlayerRun.wait { writing.load(ordering: .relaxed) }
            player.stop()
        }
        // Stopped, or done already: either way the end came with the first write still hanging.
        #expect(run.finalState == .stopped(.user) || run.finalState == .done)
        let failures = run.events.compactMap { if case .recordingFailed(let error) = $0 { error } else { nil } }
        #expect(failures.count == 1 && failures.first?.message.contains("did not finish") == true, "\(failures)")
    }

    /// An Ogg stream is recorded as Ogg, a file per link of a chained stream (Icecast starts a
    /// link at each title of an Ogg mount), named after the link's title: each file decodes with
    /// the reference decoder to exactly its link's audio (the same packets, the same trims).
    @Test(
        .enabled("sox, oggenc and opusenc make the fixtures") { await OggFixtures.made() },
        arguments: [
            ("vorbis-chained.ogg", ["vorbis-q3.ogg", "b.ogg"], "ogg"), ("opus-chained.opus", ["opus-64k.opus", "b.opus"], "opus"),
        ])
    func anOggStreamIsRecordedAsOggALinkPerTitle(fixture: String, links: [String], fileExtension: String) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try await PlayerRun.collect(Self.player(try OggFixtures.path(fixture), recording: AudioRecording(.folder(folder))))
        #expect(run.finalState == .done)
        let finished = run.events.compactMap { if case .recordingFinished(let file) = $0 { file } else { nil } }
        let names = ["Some Artist - First Song", "Other Artist - Second Song"].map { "\(folder)/\($0).\(fileExtension)" }
        #expect(finished.map(\.path) == names)
        #expect(finished.allSatisfy { $0.droppedBytes == 0 })
        for (recorded, link) in zip(names, links) {
            let decoded = try await OggFixtures.reference(path: recorded)
            let expected = try await OggFixtures.reference(link)
            #expect(decoded == expected, "\(recorded): \(decoded.count) bytes, \(expected.count) expected")
        }
    }

    /// A FLAC stream is recorded as a FLAC file: a header of the recorder's own (the stream's
    /// STREAMINFO with its total and MD5 unknown, the title's comment), then the frames as they
    /// came, which `flac -d` decodes to exactly the source's audio.
    @Test func aFLACStreamIsRecordedAsAFLACFile() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try AudioFixtures.path("flac-16-seektable.flac")
        let run = try await PlayerRun.collect(Self.player(source, recording: AudioRecording(.folder(folder))))
        #expect(run.finalState == .done)
        let finished = run.events.compactMap { if case .recordingFinished(let file) = $0 { file } else { nil } }
        #expect(finished.map(\.path) == ["\(folder)/untitled.flac"])
        let recorded = folder + "/untitled.flac"
        let decoded = try await ReferenceDecoder.flac(recorded)
        let expected = try await ReferenceDecoder.flac(source)
        #expect(decoded == expected, "\(decoded.count) bytes, \(expected.count) expected")
    }

    /// AAC from MP4 (whole or fragmented, as HLS serves it) is recorded as an ADTS `.aac`
    /// file, each raw frame behind an ADTS header of its setup, which decodes to the source's
    /// samples: `faad` for a whole MP4 (it does not trim by the edit list), ffmpeg for a
    /// fragmented one (`faad` cannot read fragments; ffmpeg would trim a whole one's).
    @Test(arguments: [("mp4-aac-faststart.m4a", "faad"), ("mp4-aac-fragmented.mp4", "ffmpeg")])
    func aacFromMP4IsRecordedAsADTS(name: String, decoder: String) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try AudioFixtures.path(name)
        let run = try await PlayerRun.collect(Self.player(source, recording: AudioRecording(.folder(folder))))
        #expect(run.finalState == .done)
        let finished = run.events.compactMap { if case .recordingFinished(let file) = $0 { file } else { nil } }
        #expect(finished.map(\.path) == ["\(folder)/untitled.aac"])
        let recorded = folder + "/untitled.aac"
        func decode(_ path: String) async throws -> [UInt8] {
            decoder == "faad" ? try await ReferenceDecoder.faad(path) : try await ReferenceDecoder.ffmpeg(path)
        }
        let decoded = try await decode(recorded)
        let expected = try await decode(source)
        #expect(!decoded.isEmpty && decoded == expected, "\(decoded.count) bytes, \(expected.count) expected")
    }

    /// A codec that is not recorded is refused by its name, and playback goes on.
    @Test func aWAVStreamsRecordingIsRefusedByItsCodecsName() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try await PlayerRun.collect(
            Self.player(try AudioFixtures.path("wav-s16.wav"), recording: AudioRecording(.folder(folder))))
        #expect(run.finalState == .done)
        let failures = run.events.compactMap { if case .recordingFailed(let error) = $0 { error } else { nil } }
        #expect(failures.count == 1)
        #expect(
            failures.first?.message.hasPrefix(
                "cannot record PCM (WAV, AIFF, CAF) audio: only MPEG audio, AAC, FLAC, Ogg Vorbis and Ogg Opus are recorded") == true,
            "\(failures)")
        // Facts only, no file named: the command line adds what to do (`--save`).
        #expect(failures.first?.path == nil && failures.first?.message.contains("--save") == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func aFolderThatCannotBeWrittenEndsTheRecordingNotPlayback() async throws {
        let station = try Self.station()
        defer { station.server.stop() }
        let run = try await PlayerRun.collect(
            Self.player(station.server.url("/stream"), recording: AudioRecording(.folder("/nonexistent-folder/radio"))))
        #expect(run.finalState == .done)
        let failures = run.events.compactMap { if case .recordingFailed(let error) = $0 { error } else { nil } }
        #expect(failures.count == 1)
        #expect(failures.first?.code == .recording)
        #expect(failures.first?.message.contains("/nonexistent-folder/radio/Test FM.mp3") == true, "\(failures)")
        #expect(!run.events.contains { if case .recordingStarted = $0 { true } else { false } })
    }
}
