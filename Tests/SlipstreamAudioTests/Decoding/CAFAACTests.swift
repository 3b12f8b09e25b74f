import Foundation
import Testing
import TestSupport

import MediaTestSupport
@testable import SlipstreamAudio

/// AAC in CAF: the packets the packet table (`pakt`) delimits, the AudioSpecificConfig from the
/// magic cookie (`kuki`), gapless by the table's priming and remainder frames. The fixtures hold
/// mp4-aac-faststart.m4a's own packets (see make-audio-fixtures.sh), the table before the audio
/// and after it, so their decode is that M4A's exactly, and `faad`'s of it.
@Suite(.enabled(if: AudioFixtures.directory != nil, "SLIPSTREAM_TEST_AUDIO is not set"))
struct CAFAACTests {
    static let name = "caf-aac.caf"
    static let fixtures = [name, "caf-aac-pakt-end.caf"]

    @Test(arguments: fixtures)
    func anySplitGivesTheSameEventsAndTheTableTheTotals(name: String) async throws {
        let bytes = try AudioFixtures.bytes(name)
        let run = FixtureFacts.parseEveryWay(bytes)
        #expect(run.error == nil)
        // Jumping over the audio before a table after it, and back.
        let jumping = ParserRun(bytes, jumps: true, chunkSizes: { 4096 })
        #expect(jumping == run, "\(jumping.firstDifference(from: run))")
        let format = try #require(run.final.format)
        #expect(format.codec == .aacRaw && format.codecDescription == "AAC LC (CAF)")
        #expect(format.sampleRate == 44100 && format.channels == 2 && format.framesPerPacket == 1024)
        let m4a = ParserRun(try AudioFixtures.bytes("mp4-aac-faststart.m4a"), chunkSizes: { 65536 })
        #expect(format.magicCookie == Array(try #require(m4a.final.format).magicCookie.prefix(2)))
        // The M4A's packets, their sizes and frames.
        #expect(run.packets.map(\.size) == m4a.packets.map(\.size))
        #expect(run.packets.enumerated().allSatisfy { $0.element.startFrame == Int64($0.offset) * 1024 })
        let frames = try FixtureFacts.mp4SourceFrames("mp4-aac-faststart.m4a")
        #expect(run.final.trimmedFrameCount == frames)
        #expect(run.final.encoderDelay == 1024)
        #expect(run.final.isSeekableByTime)
        if name == Self.name {
            // The head alone states the length.
            var parser = AudioStreamParser()
            _ = try parser.parse(Array(bytes.prefix(2048)))
            #expect(parser.properties.trimmedFrameCount == frames && parser.properties.durationSource == .header)
        }
        // ffprobe counts the same packets.
        let (_, probed) = try await ExternalProgram.output([
            "ffprobe", "-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0",
            try AudioFixtures.path(name),
        ])
        #expect(Int(probed.trimmingCharacters(in: .whitespacesAndNewlines)) == run.packets.count)
    }

    @Test(arguments: fixtures)
    func gaplessOutputIsTheSourcesLengthAndFaadsSamples(name: String) async throws {
        let (summary, pcm) = try MP4DecodingTests.decode(try AudioFixtures.bytes(name))
        #expect(summary.frameCount == (try FixtureFacts.mp4SourceFrames("mp4-aac-faststart.m4a")))
        let reference = try await MP4DecodingTests.faad("mp4-aac-faststart.m4a")
        #expect(pcm.count <= reference.count)
        #expect(pcm == Array(reference.prefix(pcm.count)))
        let (_, m4a) = try MP4DecodingTests.decode(try AudioFixtures.bytes("mp4-aac-faststart.m4a"))
        #expect(pcm == m4a)
    }

    @Test func seekPointsAreExactPacketsFromTheTable() throws {
        let bytes = try AudioFixtures.bytes(Self.name)
        let run = ParserRun(bytes, chunkSizes: { bytes.count })
        for time in [0.0, 0.5, 1.7, 2.99, 60] {
            let point = try #require(run.seekTable.offset(forTime: time))
            #expect(point.isExact)
            let packet = try #require(run.packets.first { $0.offset == point.offset })
            #expect(packet.startFrame == point.frame)
            #expect(point.frame <= Int64(time * 44100) || time == 60)
        }
        // After a discontinuity inside a packet, the next packet comes, its frame known.
        var parser = AudioStreamParser()
        _ = try parser.parse(bytes)
        let target = run.packets[57]
        parser.discontinuity(at: target.offset - 3)
        let events = try parser.parse(Array(bytes[Int(target.offset - 3)...]))
        let packets = events.compactMap { if case .packet(let p) = $0 { p } else { nil } }
        #expect(packets.first == target)
        #expect(packets.count == run.packets.count - 57)
    }

    /// Played from a server (gapless, as the whole file decodes): read straight through, or, with
    /// the packet table after the audio, the table fetched by a range request as soon as the
    /// first answer shows where it is, then the audio (as an MP4's index after its audio).
    @Test(arguments: fixtures)
    func playedFromAServerATableAfterTheAudioIsFetchedByARange(name: String) async throws {
        let content = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let requests = try await MP4OverHTTPTests.playChecked(server, content)
        guard name != Self.name else {
            #expect(requests.count == 1)
            return
        }
        let pakt = try Self.chunk("pakt", in: content)
        #expect(requests.count == 3)
        #expect(requests.count > 1 && requests[1].range?.start == Int64(pakt))
    }

    /// A server that answers every request with the whole file (saying nothing of ranges): as
    /// for an MP4, the first answer, the jump over the audio and the way back to it, each read
    /// from byte 0.
    @Test func aServerWithoutRangesIsReadThroughToTheTable() async throws {
        let content = try AudioFixtures.bytes("caf-aac-pakt-end.caf")
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/x-caf")], body: content)
        }
        defer { server.stop() }
        let requests = try await MP4OverHTTPTests.playChecked(server, content)
        #expect(requests.count == 3)
    }

    /// Where the fixture's chunks start.
    static func chunk(_ name: String, in bytes: [UInt8]) throws -> Int {
        var at = 8
        while at + 12 <= bytes.count {
            let size = bytes[at + 4..<at + 12].reduce(0) { $0 << 8 | Int($1) }
            if bytes[at..<at + 4].elementsEqual(name.utf8) { return at }
            at += 12 + size
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    @Test func hostilePacketTablesGiveClearErrors() throws {
        let bytes = try AudioFixtures.bytes(Self.name)
        let pakt = try Self.chunk("pakt", in: bytes)
        func error(_ edit: (inout [UInt8]) -> Void) -> AudioParserError? {
            var copy = bytes
            edit(&copy)
            return ParserRun(copy, chunkSizes: { 777 }).error
        }
        func set(_ copy: inout [UInt8], _ at: Int, _ value: UInt64, _ count: Int) {
            for i in 0..<count { copy[at + i] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - i))) }
        }
        let size = bytes[pakt + 4..<pakt + 12].reduce(0) { $0 << 8 | Int($1) }
        // A huge packet count.
        let huge = error { set(&$0, pakt + 12, UInt64(Int64.max), 8) }
        #expect(huge?.message == "CAF packet table (pakt) of \(size) bytes stating \(Int64.max) packets")
        // Priming, remainder and valid frames that are not the packets' frames.
        let frames = error { set(&$0, pakt + 28, 0xFFFF_FFFF, 4) }
        #expect(frames?.code == .malformed && frames?.message.contains("priming") == true)
        // A packet size past any AAC packet, and one of 0 bytes.
        let large = error { set(&$0, pakt + 36, 0xFFFF, 2) }
        #expect(large?.message == "CAF packet table (pakt) with a packet of over 65536 bytes")
        let zero = error { $0[pakt + 36] = 0 }
        #expect(zero?.message == "CAF packet table (pakt) with a packet of 0 bytes")
        // Sizes that run past the data: its chunk 1,000 bytes shorter.
        let data = try Self.chunk("data", in: bytes)
        let audio = bytes[data + 4..<data + 12].reduce(0) { $0 << 8 | Int($1) } - 4
        let past = error { set(&$0, data + 4, UInt64(audio + 4 - 1000), 8) }
        #expect(past?.message == "CAF packet table (pakt) placing \(audio) bytes of packets in \(audio - 1000) bytes of audio")
        // Fewer sizes than packets: the count one more (and its frames remainder).
        let count = Int(bytes[pakt + 19])
        let short = error {
            $0[pakt + 19] = UInt8(count + 1)
            set(&$0, pakt + 32, UInt64(bytes[pakt + 32..<pakt + 36].reduce(0) { $0 << 8 | Int($1) } + 1024), 4)
        }
        #expect(short?.message == "CAF packet table (pakt) holds \(count) of its \(count + 1) packet sizes")
        // ...told at the table's end whatever the pieces the bytes come in (AudioParserFuzzer
        // found it told where the last piece began).
        #expect(short?.offset == Int64(pakt + 12 + size))
        var shortBytes = bytes
        shortBytes[pakt + 19] = UInt8(count + 1)
        set(&shortBytes, pakt + 32, UInt64(bytes[pakt + 32..<pakt + 36].reduce(0) { $0 << 8 | Int($1) } + 1024), 4)
        for chunk in [1, 7, 100, bytes.count] {
            #expect(ParserRun(shortBytes, chunkSizes: { chunk }).error == short, "chunks of \(chunk)")
        }
    }

    @Test func noPacketTableOrNoCookieGivesAClearError() throws {
        let bytes = try AudioFixtures.bytes(Self.name)
        let pakt = try Self.chunk("pakt", in: bytes), data = try Self.chunk("data", in: bytes), kuki = try Self.chunk("kuki", in: bytes)
        let noTable = Array(bytes[..<pakt] + bytes[data...])
        #expect(ParserRun(noTable, chunkSizes: { 4096 }).error?.message == "CAF with AAC whose packet table (pakt) is missing")
        var open = noTable
        for i in pakt + 4..<pakt + 12 { open[i] = 0xFF }  // the data chunk, of size -1
        #expect(
            ParserRun(open, chunkSizes: { 4096 }).error?.message
                == "CAF with AAC whose audio runs to the end without a packet table (pakt) before it")
        let noCookie = Array(bytes[..<kuki] + bytes[pakt...])
        #expect(ParserRun(noCookie, chunkSizes: { 4096 }).error?.message == "CAF data chunk before the magic cookie (kuki) of its AAC")
        var badCookie = bytes
        badCookie[kuki + 12] = 9
        #expect(ParserRun(badCookie, chunkSizes: { 4096 }).error?.code == .unsupportedFormat)
    }
}
