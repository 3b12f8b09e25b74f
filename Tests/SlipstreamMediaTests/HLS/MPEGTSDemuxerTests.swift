import Foundation
import Testing
import TestSupport

@testable import SlipstreamMedia

/// The transport stream demuxer alone, on streams ffmpeg muxes from the fixtures: the audio
/// comes out byte for byte, in any split, with PTS; lost packets, junk and what it cannot play
/// give a notice or a clear error.
struct MPEGTSDemuxerTests {
    /// What one run of the demuxer gave.
    struct Output: Equatable {
        var codec: AudioFormat.Codec?
        var audio: [UInt8] = []
        var timestamps: [Int64?] = []
        var discontinuities = 0
        var skipped = 0
    }

    static func demux(_ bytes: [UInt8], cut: (Int) -> Int = { $0 }) throws -> Output {
        var demuxer = MPEGTSDemuxer()
        var output = Output()
        var start = 0
        while start < bytes.count {
            let end = min(start + max(cut(bytes.count - start), 1), bytes.count)
            try bytes[start..<end].withUnsafeBytes { input in
                try demuxer.take(input) { event in
                    switch event {
                    case .stream(let codec): output.codec = codec
                    case .timestamp(let pts): output.timestamps.append(pts)
                    case .audio(let bytes): output.audio += bytes
                    case .discontinuity: output.discontinuities += 1
                    }
                }
            }
            start = end
        }
        output.skipped = demuxer.skippedBytes
        return output
    }

    /// `fixture` muxed into MPEG-TS by ffmpeg (the codec copied), and the elementary stream
    /// ffmpeg takes back out of it (`-f adts` or `-f mp3`).
    static func muxed(_ fixture: String, format: String) async throws -> (ts: [UInt8], elementary: [UInt8]) {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ts = folder + "/a.ts", elementary = folder + "/a.es"
        try await ExternalProgram.run([
            "ffmpeg", "-v", "error", "-y", "-i", try AudioFixtures.path(fixture), "-map", "0:a", "-c", "copy", "-f", "mpegts", ts,
        ])
        var back = ["ffmpeg", "-v", "error", "-y", "-i", ts, "-c", "copy", "-f", format]
        if format == "mp3" { back += ["-write_xing", "0", "-id3v2_version", "0"] }
        try await ExternalProgram.run(back + [elementary])
        return (Array(FileManager.default.contents(atPath: ts)!), Array(FileManager.default.contents(atPath: elementary)!))
    }

    @Test(arguments: [("aac-lc-128k.aac", "adts", AudioFormat.Codec.aac), ("mp3-cbr128-noxing.mp3", "mp3", .mp3)])
    func theAudioComesOutAsFfmpegTakesItOut(fixture: String, format: String, codec: AudioFormat.Codec) async throws {
        let (ts, elementary) = try await Self.muxed(fixture, format: format)
        let whole = try Self.demux(ts)
        #expect(whole.codec == codec)
        #expect(whole.audio.count == elementary.count)
        #expect(whole.audio == elementary)
        #expect(whole.discontinuities == 0 && whole.skipped == 0)
        // PTS in order, from ffmpeg's start of 1.4 s (126,000 ticks at 90 kHz).
        let times = whole.timestamps.compactMap { $0 }
        #expect(times.count == whole.timestamps.count && times.count > 10)
        #expect(times.first == 126_000)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // Any split gives the same.
        var random = SplitMix64(seed: UInt64(ts.count))
        for largest in [1, 7, 187, 189, 4096] {
            let split = try Self.demux(ts) { _ in Int.random(in: 1...largest, using: &random) }
            #expect(split == whole, "split in pieces of up to \(largest)")
        }
    }

    @Test func lostPacketsJunkAndPaddingAreReported() async throws {
        let (ts, _) = try await Self.muxed("aac-lc-128k.aac", format: "adts")
        let whole = try Self.demux(ts)
        // Drop one packet of the audio stream (its PID is in the PMT: the packets with a PES
        // start are audio) and put junk between two others.
        let packets = stride(from: 0, to: ts.count, by: 188).map { Array(ts[$0..<min($0 + 188, ts.count)]) }
        let audioPID = packets.first { packet in
            let start = packet[3] & 0x20 != 0 ? 5 + Int(packet[4]) : 4
            return packet.count == 188 && packet[1] & 0x40 != 0 && start + 3 < 188 && Array(packet[start..<start + 3]) == [0, 0, 1]
        }.map { Int($0[1] & 0x1F) << 8 | Int($0[2]) }
        let victim = try #require(packets.indices.dropFirst(20).first { Int(packets[$0][1] & 0x1F) << 8 | Int(packets[$0][2]) == audioPID })
        var damaged: [UInt8] = packets[..<victim].joined() + [0x12, 0x34, 0x47, 0x00, 0x55]
        damaged += packets[(victim + 1)...].joined()
        let output = try Self.demux(damaged)
        #expect(output.discontinuities == 1)
        #expect(output.skipped >= 5)
        #expect(output.audio.count < whole.audio.count)
        #expect(try Self.demux(damaged) { _ in 100 } == output)
    }

    @Test func streamsItCannotPlayAreRefusedByName() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ts = folder + "/ac3.ts"
        try await ExternalProgram.run([
            "ffmpeg", "-v", "error", "-y", "-i", try AudioFixtures.path("aac-lc-128k.aac"), "-c:a", "ac3", "-f", "mpegts", ts,
        ])
        let bytes = Array(FileManager.default.contents(atPath: ts)!)
        #expect {
            try Self.demux(bytes)
        } throws: { error in
            "\(error)".contains("AC-3")
        }
        // Scrambled audio packets.
        let (clear, _) = try await Self.muxed("aac-lc-128k.aac", format: "adts")
        var scrambled = clear
        for start in stride(from: 0, to: scrambled.count - 188, by: 188) where scrambled[start + 1] & 0x1F == 0x01 {
            scrambled[start + 3] |= 0x80
        }
        #expect(throws: MPEGTSDemuxer.Failure.self) { try Self.demux(scrambled) }
    }
}
