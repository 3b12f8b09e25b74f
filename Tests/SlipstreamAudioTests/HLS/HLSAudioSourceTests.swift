import Dispatch
import Foundation
import SlipstreamHTTP
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// `HLSAudioSource` against ffmpeg-made streams served by nginx: the one byte stream it gives
/// is the segments' audio in order (the transport streams demuxed, packed audio without its
/// ID3 tags, fMP4 as init section and fragments), through a receiver that pauses at random;
/// broken streams end with errors that name what failed.
@Suite(
    .enabled(if: (try? TestNginx.port()) != nil, "run with scripts/test.sh (nginx)"),
    .serialized)
struct HLSAudioSourceTests {
    /// What a connection gave: the answer, the bytes, the end.
    struct Delivery {
        var answer: AudioSourceAnswer?
        var bytes: [UInt8]
        var error: AudioStreamerError?
    }

    /// Reads `url`'s HLS stream to its end.
    static func read(_ url: String, document: HLSAudioSource.Document? = nil) async throws -> Delivery {
        let source = HLSAudioSource(template: HTTPRequest(url: url), engine: .shared, document: document)
        let receiver = CollectingReceiver()
        let connection = source.open(AudioSourceRequest(), receiver: receiver)
        receiver.connection.withLock { $0 = connection }
        try await PlayerRun.wait(limit: 60) { receiver.state.withLock { $0.ended } }
        connection.cancel()
        return receiver.state.withLock { Delivery(answer: $0.answer, bytes: $0.bytes, error: $0.error) }
    }

    /// The audio of MPEG-TS files, each demuxed on its own.
    static func demuxed(_ segments: [[UInt8]]) throws -> [UInt8] {
        var audio: [UInt8] = []
        for segment in segments {
            var demuxer = MPEGTSDemuxer()
            try segment.withUnsafeBytes { bytes in
                try demuxer.take(bytes) { event in
                    if case .audio(let slice) = event { audio += slice }
                }
            }
        }
        return audio
    }

    /// The files `prefix0.ext`, `prefix1.ext` ... in `folder`, as long as they exist.
    static func numbered(_ folder: String, _ prefix: String, _ ext: String) throws -> [[UInt8]] {
        var files: [[UInt8]] = []
        while FileManager.default.fileExists(atPath: "\(folder)/\(prefix)\(files.count).\(ext)") {
            files.append(try HLSFixtures.bytes("\(folder)/\(prefix)\(files.count).\(ext)"))
        }
        return files
    }

    @Test func aTransportStreamPlaylistGivesItsSegmentsAudioInOrder() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let segments = try Self.numbered(folder, "s", "ts")
        #expect(segments.count == 4)
        let delivery = try await Self.read(try HLSFixtures.url("ts", "index.m3u8"))
        #expect(delivery.error == nil)
        #expect(delivery.answer?.isLive == false)
        #expect(delivery.answer?.rangesSupported == false)
        #expect(delivery.answer?.totalSize == nil)
        let expected = try Self.demuxed(segments)
        #expect(delivery.bytes.count == expected.count)
        #expect(delivery.bytes == expected)
        #expect(Array(delivery.bytes.prefix(2)) == [0xFF, 0xF1])  // ADTS
    }

    @Test func thePlaylistAlreadyReadIsNotFetchedAgain() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let playlist = try HLSFixtures.bytes(folder + "/index.m3u8")
        // Given as read from the stream's folder, under a URL that does not exist.
        let base = try HLSFixtures.url("ts", "index.m3u8")
        let delivery = try await Self.read(
            try TestNginx.url("no-such-playlist.m3u8"), document: HLSAudioSource.Document(bytes: playlist, base: base))
        #expect(delivery.error == nil)
        #expect(delivery.bytes == (try Self.demuxed(try Self.numbered(folder, "s", "ts"))))
    }

    @Test func byteRangesOfOneFileAreEachReadOnce() async throws {
        let folder = try await offPool { try HLSFixtures.byteRanges() }
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-BYTERANGE"))
        let delivery = try await Self.read(try HLSFixtures.url("ranges", "index.m3u8"))
        #expect(delivery.error == nil)
        let expected = try Self.demuxed([try HLSFixtures.bytes(folder + "/all.ts")])
        #expect(delivery.bytes.count == expected.count)
        #expect(delivery.bytes == expected)
    }

    @Test func fragmentedMP4GivesTheInitSectionOnceThenTheFragments() async throws {
        let folder = try await offPool { try HLSFixtures.fragmentedMP4() }
        let expected = try HLSFixtures.bytes(folder + "/init.mp4") + (try Self.numbered(folder, "f", "m4s")).joined()
        let delivery = try await Self.read(try HLSFixtures.url("fmp4", "index.m3u8"))
        #expect(delivery.error == nil)
        #expect(delivery.bytes.count == expected.count)
        #expect(delivery.bytes == expected)
    }

    @Test func packedAudioLosesItsID3Tags() async throws {
        let folder = try await offPool { try HLSFixtures.packedAudio() }
        let delivery = try await Self.read(try HLSFixtures.url("packed", "packed.m3u8"))
        #expect(delivery.error == nil)
        let expected = try HLSFixtures.bytes(folder + "/whole.aac")
        #expect(delivery.bytes.count == expected.count)
        #expect(delivery.bytes == expected)
    }

    @Test func aMasterPlaylistIsFollowedToItsRichestAudioVariant() async throws {
        let folder = try await offPool { try HLSFixtures.master() }
        let delivery = try await Self.read(try HLSFixtures.url("master", "master.m3u8"))
        #expect(delivery.error == nil)
        #expect(delivery.bytes == (try Self.demuxed(try Self.numbered(folder + "/v1", "s", "ts"))))
        #expect(delivery.bytes != (try Self.demuxed(try Self.numbered(folder + "/v0", "s", "ts"))))
    }

    @Test func aSegmentThatIsMissingEndsTheStreamNamingIt() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8).replacingOccurrences(
            of: "s2.ts", with: "gone.ts")
        try playlist.write(toFile: folder + "/missing.m3u8", atomically: true, encoding: .utf8)
        let delivery = try await Self.read(try HLSFixtures.url("ts", "missing.m3u8"))
        let error = try #require(delivery.error)
        #expect(error.code == .httpStatus)
        #expect(error.status == 404)
        #expect(error.message.contains("gone.ts"), "\(error.message)")
        #expect(error.message.contains("\(HLSFetchMachine.segmentAttempts) times"), "\(error.message)")
        #expect(!error.isRetryable)
        // The segments before it were played.
        #expect(delivery.bytes == (try Self.demuxed(try Self.numbered(folder, "s", "ts").prefix(2).map { $0 })))
    }

    @Test func aPlaylistThatListsItselfIsRefused() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nself.m3u8\n#EXT-X-ENDLIST\n".write(
            toFile: folder + "/self.m3u8", atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nselfmaster.m3u8\n".write(
            toFile: folder + "/selfmaster.m3u8", atomically: true, encoding: .utf8)
        let media = try await Self.read(try HLSFixtures.url("ts", "self.m3u8"))
        #expect(media.error?.code == .unsupportedFormat)
        #expect(media.error?.message.contains("not MPEG-TS, packed audio or fragmented MP4") == true, "\(String(describing: media.error))")
        let master = try await Self.read(try HLSFixtures.url("ts", "selfmaster.m3u8"))
        #expect(master.error?.message.contains("a master playlist too") == true, "\(String(describing: master.error))")
    }

    /// A live playlist of the transport stream's segments `numbers` (the first one's number is
    /// the media sequence), with a target duration of one second.
    static func livePlaylist(_ numbers: [Int], ended: Bool = false) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:\(numbers[0])\n"
            + numbers.map { "#EXTINF:2.0,\ns\($0).ts\n" }.joined() + (ended ? "#EXT-X-ENDLIST\n" : "")
    }

    /// Plays the live playlist `name` in the transport stream's folder, rewritten (atomically)
    /// to each of `steps` in turn (nil: removed) once the bytes received reach the step's count
    /// and its condition holds.
    static func readLive(
        _ name: String, first: String, steps: [(String?, atLeast: Int, when: () -> Bool)]
    ) async throws -> Delivery {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        try first.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        let source = HLSAudioSource(template: HTTPRequest(url: try HLSFixtures.url("ts", name)), engine: .shared)
        let receiver = CollectingReceiver()
        let connection = source.open(AudioSourceRequest(), receiver: receiver)
        receiver.connection.withLock { $0 = connection }
        defer { connection.cancel() }
        for (text, count, condition) in steps {
            try await PlayerRun.wait(limit: 60) { receiver.state.withLock { $0.bytes.count >= count } && condition() }
            if let text {
                try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            } else {
                try FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        try await PlayerRun.wait(limit: 60) { receiver.state.withLock { $0.ended } }
        return receiver.state.withLock { Delivery(answer: $0.answer, bytes: $0.bytes, error: $0.error) }
    }

    @Test func aLivePlaylistIsFollowedAsItSlidesUntilItsEndList() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let audio = try Self.numbered(folder, "s", "ts").map { try Self.demuxed([$0]) }
        let delivery = try await Self.readLive(
            "live.m3u8", first: Self.livePlaylist([0, 1]),
            steps: [
                (Self.livePlaylist([1, 2]), atLeast: audio[0].count + audio[1].count, when: { true }),
                (Self.livePlaylist([2, 3], ended: true), atLeast: audio[0...2].map(\.count).reduce(0, +), when: { true }),
            ])
        #expect(delivery.error == nil)
        #expect(delivery.answer?.isLive == true)
        #expect(delivery.answer?.duration == nil)
        #expect(delivery.bytes == audio.joined().map { $0 })
    }

    @Test func aLiveStreamJumpsOverSegmentsThatFellOutOfItsWindow() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let audio = try Self.numbered(folder, "s", "ts").map { try Self.demuxed([$0]) }
        let delivery = try await Self.readLive(
            "jump.m3u8", first: Self.livePlaylist([0, 1]),
            steps: [(Self.livePlaylist([3], ended: true), atLeast: audio[0].count + audio[1].count, when: { true })])
        #expect(delivery.error == nil)
        #expect(delivery.bytes == audio[0] + audio[1] + audio[3])
    }

    @Test func aLivePlaylistThatFailsToReloadIsTriedAgain() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let audio = try Self.numbered(folder, "s", "ts").map { try Self.demuxed([$0]) }
        // Once the first segment is in, the playlist is gone (404s) until it was asked for twice
        // more, then it is back.
        let path = "/files/hls-\(getpid())-ts/flaky.m3u8"
        let delivery = try await Self.readLive(
            "flaky.m3u8", first: Self.livePlaylist([0]),
            steps: [
                (nil, atLeast: audio[0].count, when: { true }),
                (
                    Self.livePlaylist([0, 1], ended: true), atLeast: audio[0].count,
                    when: { ((try? TestNginx.requests(to: path)) ?? []).filter { $0.status == 404 }.count >= 2 }
                ),
            ])
        #expect(delivery.error == nil)
        #expect(delivery.bytes == audio[0] + audio[1])
    }

    /// With the IV given in the playlist, and without it (the sequence number).
    @Test(arguments: [nil, "000102030405060708090a0b0c0d0e0f"])
    func aes128SegmentsAreDecrypted(iv: String?) async throws {
        let folder = try await offPool { try HLSFixtures.encrypted(iv: iv) }
        let name = iv == nil ? "noiv.m3u8" : "index.m3u8"
        let playlist = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
        #expect(playlist.contains("METHOD=AES-128"))
        #expect(playlist.contains("IV=") == (iv != nil))
        let delivery = try await Self.read(try HLSFixtures.url(iv == nil ? "aes-sequence" : "aes-iv", name))
        #expect(delivery.error == nil)
        let expected = try Self.demuxed(try Self.numbered(folder, "plain", "ts"))
        #expect(delivery.bytes.count == expected.count)
        #expect(delivery.bytes == expected)
    }

    @Test func aWrongKeyEndsTheStreamSayingSo() async throws {
        let folder = try await offPool { try HLSFixtures.encrypted(iv: nil) }
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        try playlist.replacingOccurrences(of: "k.key", with: "keyinfo").write(
            toFile: folder + "/wrongkey.m3u8", atomically: true, encoding: .utf8)
        let delivery = try await Self.read(try HLSFixtures.url("aes-sequence", "wrongkey.m3u8"))
        #expect(delivery.error?.message.contains("an AES-128 key is 16 bytes") == true, "\(String(describing: delivery.error))")
        // A key of the right size that is not the key.
        try Data(repeating: 7, count: 16).write(to: URL(fileURLWithPath: folder + "/other.key"))
        try playlist.replacingOccurrences(of: "k.key", with: "other.key").write(
            toFile: folder + "/otherkey.m3u8", atomically: true, encoding: .utf8)
        let other = try await Self.read(try HLSFixtures.url("aes-sequence", "otherkey.m3u8"))
        #expect(other.error != nil)
        #expect(other.bytes.isEmpty || other.error?.message.contains("does not decrypt") == true, "\(String(describing: other.error))")
    }

    @Test func encryptedSegmentsAreRefusedByName() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        try playlist.replacingOccurrences(of: "#EXTINF", with: "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k.key\"\n#EXTINF").write(
            toFile: folder + "/sample-aes.m3u8", atomically: true, encoding: .utf8)
        let delivery = try await Self.read(try HLSFixtures.url("ts", "sample-aes.m3u8"))
        #expect(delivery.error?.message.contains("encrypted (SAMPLE-AES)") == true, "\(String(describing: delivery.error))")
    }
}

/// Collects a connection's bytes, saying `.pause` at random and resuming soon after.
private final class CollectingReceiver: AudioSourceReceiver {
    struct State {
        var answer: AudioSourceAnswer?
        var bytes: [UInt8] = []
        var error: AudioStreamerError?
        var ended = false
        var random = SplitMix64(seed: 16)
    }

    let state = Mutex(State())
    let connection = Mutex<(any AudioSourceConnection)?>(nil)

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        state.withLock { $0.answer = answer }
        return .proceed
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        let pause = state.withLock { state -> Bool in
            if Int.random(in: 0..<4, using: &state.random) == 0 { return true }
            #expect(offset == Int64(state.bytes.count))
            state.bytes += bytes
            return false
        }
        guard pause else { return .proceed }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in
            connection.withLock { $0 }?.resume()
        }
        return .pause
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {}

    func sourceEnded(_ error: AudioStreamerError?) {
        state.withLock {
            $0.error = error
            $0.ended = true
        }
    }
}
