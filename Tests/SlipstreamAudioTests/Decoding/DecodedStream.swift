import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// A stream's packets as the parser delimits them, with their bytes, and the parser's final
/// properties; then decodes of them.
struct ParsedStream {
    var properties: AudioStreamProperties
    var packets: [AudioPacket] = []
    var contents: [[UInt8]] = []

    /// Parses `bytes`, fed in chunks of the sizes `chunkSizes` yields.
    init(_ bytes: [UInt8], chunkSizes: () -> Int = { Int.max }) throws {
        var parser = AudioStreamParser()
        var sink = Collector()
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in
                var start = 0
                while start < raw.count {
                    let end = start + min(max(chunkSizes(), 1), raw.count - start)
                    try parser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<end]), into: &sink)
                    // From where the parser wants its bytes (an MP4 jumps back to its audio).
                    start = Int(min(max(parser.nextByteOffset, 0), Int64(raw.count)))
                }
                try parser.finish(into: &sink)
            }
        }
        try result.get()
        properties = sink.firstAudioProperties ?? parser.properties
        packets = sink.packets
        contents = sink.contents
    }

    var format: AudioFormat { get throws { try #require(properties.format) } }

    /// Every packet decoded (untrimmed), one after the other, from a fresh decoder.
    func decodeRaw(sampleType: PCMFormat.SampleType = .signed16) throws -> [UInt8] {
        let decoder = try AudioDecoders.make(for: format, sampleType: sampleType)
        return try decode(packets.indices, with: decoder)
    }

    /// The packets at `indices` decoded by `decoder`, output concatenated.
    func decode(_ indices: Range<Int>, with decoder: any AudioDecoder) throws -> [UInt8] {
        let buffer = PCMBuffer(format: decoder.outputFormat)
        var output: [UInt8] = []
        for i in indices {
            try contents[i].withUnsafeBytes { _ = try decoder.decode($0, packet: packets[i], into: buffer) }
            #expect(buffer.frameCount == packets[i].frameCount, "packet \(i)")
            output += buffer.bytes
            buffer.removeAll()
        }
        return output
    }

    /// The whole stream decoded and gapless-trimmed as a player does it, packet by packet.
    func decodeTrimmed(sampleType: PCMFormat.SampleType = .signed16) throws -> [UInt8] {
        let decoder = try AudioDecoders.make(for: format, sampleType: sampleType)
        let trim = GaplessTrim(properties: properties, decoderDelay: decoder.decoderDelay)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        var output: [UInt8] = []
        for (packet, bytes) in zip(packets, contents) {
            try bytes.withUnsafeBytes { _ = try decoder.decode($0, packet: packet, into: buffer) }
            buffer.keepFrames(trim.keptFrames(start: try #require(packet.startFrame), frameCount: packet.frameCount))
            output += buffer.bytes
            buffer.removeAll()
        }
        return output
    }

    private struct Collector: AudioStreamSink {
        var packets: [AudioPacket] = []
        var contents: [[UInt8]] = []
        /// The properties when the first packet came: the header totals, before counting.
        var firstAudioProperties: AudioStreamProperties?
        var latest = AudioStreamProperties()

        mutating func audioStream(propertiesChanged properties: AudioStreamProperties) { latest = properties }

        mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
            if firstAudioProperties == nil { firstAudioProperties = latest }
            packets.append(packet)
            contents.append(Array(bytes))
        }
    }
}

/// The largest difference between two blocks of native 16-bit samples (`Int.max` when their
/// lengths differ).
func largestStep(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard a.count == b.count else { return .max }
    return a.withUnsafeBytes { x in
        b.withUnsafeBytes { y in
            zip(x.bindMemory(to: Int16.self), y.bindMemory(to: Int16.self)).map { abs(Int($0) - Int($1)) }.max() ?? 0
        }
    }
}

/// The largest difference between two blocks of native 32-bit floats (infinity when their
/// lengths differ).
func largestFloatStep(_ a: [UInt8], _ b: [UInt8]) -> Float {
    guard a.count == b.count else { return .infinity }
    return a.withUnsafeBytes { x in
        b.withUnsafeBytes { y in
            zip(x.bindMemory(to: Float.self), y.bindMemory(to: Float.self)).map { abs($0 - $1) }.max() ?? 0
        }
    }
}

/// Where two PCM byte arrays first differ, for messages.
func firstDifference(_ a: [UInt8], _ b: [UInt8], frameBytes: Int) -> String {
    guard let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
        return a.count == b.count ? "identical" : "lengths \(a.count / frameBytes) vs \(b.count / frameBytes) frames"
    }
    let differing = zip(a, b).filter { $0 != $1 }.count
    return
        "first difference at frame \(i / frameBytes) of \(a.count / frameBytes) vs \(b.count / frameBytes), \(differing) bytes differ, \(a[i]) vs \(b[i])"
}
