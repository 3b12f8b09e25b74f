/// A whole stream run through the parser, a decoder and gapless trimming as fast as it goes:
/// the player's pipeline without its queue, clock and output. For tools, tests and benchmarks
/// (decode speed against `mpg123 -t`).
public enum StreamDecoding {
    /// What a decode produced.
    public struct Summary: Hashable, Sendable {
        /// The PCM handed out (`nil` when the stream had no audio packets).
        public var format: PCMFormat?
        /// Frames handed out, after trimming.
        public var frameCount: Int64
        /// Audio packets decoded.
        public var packetCount: Int
        /// Of those, the packets the decoder could not decode (`DecodeOutcome.undecodable`).
        public var undecodablePacketCount: Int = 0
    }

    /// Parses `bytes` (a whole stream, fed to the parser `chunkSize` bytes at a time), decodes
    /// every packet to `sampleType`, trims it as `GaplessTrim` says (unless `gapless` is false)
    /// and hands each packet's PCM to `consume` (the buffer is reused: copy what you keep).
    /// Throws the parser's `AudioParserError` or the decoder's `AudioDecoderError`.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, sampleType: PCMFormat.SampleType = .signed16, gapless: Bool = true,
        chunkSize: Int = 64 * 1024, consume: (PCMBuffer) -> Void
    ) throws -> Summary {
        try withoutActuallyEscaping(consume) { consume in
            var parser = AudioStreamParser()
            var sink = Sink(sampleType: sampleType, gapless: gapless, consume: consume)
            var start = 0
            while start < bytes.count, sink.error == nil {
                let end = start + min(max(chunkSize, 1), bytes.count - start)
                try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), into: &sink)
                // The parser may want its bytes from elsewhere (an MP4's index after its audio).
                if parser.prefersJump { parser.skipUnread() }
                start = Int(min(max(parser.nextByteOffset, 0), Int64(bytes.count)))
            }
            if sink.error == nil { try parser.finish(into: &sink) }
            if let error = sink.error { throw error }
            return Summary(
                format: sink.decoder?.outputFormat, frameCount: sink.frameCount, packetCount: sink.packetCount,
                undecodablePacketCount: sink.undecodablePacketCount)
        }
    }

    /// Decodes packets as the parser finds them.
    private struct Sink: AudioStreamSink {
        let sampleType: PCMFormat.SampleType
        let gapless: Bool
        let consume: (PCMBuffer) -> Void
        var properties = AudioStreamProperties()
        var decoder: (any AudioDecoder)?
        var decoderFormat: AudioFormat?
        var trim = GaplessTrim.none
        var buffer: PCMBuffer?
        var frameCount: Int64 = 0
        var packetCount = 0
        var undecodablePacketCount = 0
        var error: AudioDecoderError?

        init(sampleType: PCMFormat.SampleType, gapless: Bool, consume: @escaping (PCMBuffer) -> Void) {
            self.sampleType = sampleType
            self.gapless = gapless
            self.consume = consume
        }

        mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
            self.properties = properties
        }

        mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
            guard error == nil else { return }
            do throws(AudioDecoderError) {
                if decoder == nil || properties.format != decoderFormat {
                    // A new format (a chained Ogg link) gets a new decoder, as in the player.
                    guard let format = properties.format else { return }
                    let isFirst = decoder == nil
                    let decoder = try AudioDecoders.make(for: format, sampleType: sampleType)
                    self.decoder = decoder
                    decoderFormat = format
                    if buffer?.format != decoder.outputFormat { buffer = PCMBuffer(format: decoder.outputFormat) }
                    if gapless, isFirst { trim = GaplessTrim(properties: properties, decoderDelay: decoder.decoderDelay) }
                }
                guard let decoder, let buffer else { return }
                buffer.removeAll()
                if try decoder.decode(bytes, packet: packet, into: buffer) == .undecodable { undecodablePacketCount += 1 }
                if let start = packet.startFrame { buffer.keepFrames(trim.keptFrames(start: start, frameCount: packet.frameCount)) }
                packetCount += 1
                frameCount += Int64(buffer.frameCount)
                consume(buffer)
            } catch {
                self.error = error
            }
        }
    }
}
