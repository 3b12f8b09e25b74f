import Foundation
import Testing
@testable import SlipstreamAudio

/// The converter for outputs that keep one format: channels copied up or mixed down, the rate
/// changed by linear interpolation, the same whatever the blocks.
struct PCMConverterTests {
    /// `frames` frames of a sine of `frequency` Hz in `format` (every channel the same).
    static func sine(_ format: PCMFormat, frames: Int, frequency: Double = 440) -> PCMBuffer {
        let buffer = PCMBuffer(format: format)
        let room = buffer.reserve(frames * format.bytesPerFrame)
        for frame in 0..<frames {
            let value = 0.5 * sin(2 * Double.pi * frequency * Double(frame) / Double(format.sampleRate))
            for channel in 0..<format.channels {
                let index = frame * format.channels + channel
                if format.sampleType == .signed16 {
                    room.storeBytes(of: Int16(value * 32767), toByteOffset: index * 2, as: Int16.self)
                } else {
                    room.storeBytes(of: Float(value), toByteOffset: index * 4, as: Float.self)
                }
            }
        }
        buffer.commit(frames * format.bytesPerFrame)
        return buffer
    }

    /// `buffer`'s samples as doubles from -1 to 1.
    static func samples(_ buffer: PCMBuffer) -> [Double] {
        let count = buffer.frameCount * buffer.format.channels
        return (0..<count).map { i in
            buffer.format.sampleType == .signed16
                ? Double(buffer.bytes.load(fromByteOffset: i * 2, as: Int16.self)) / 32768
                : Double(buffer.bytes.load(fromByteOffset: i * 4, as: Float.self))
        }
    }

    /// Converts `input` in blocks of `block` frames; every sample of the output.
    static func convert(_ input: PCMBuffer, to output: PCMFormat, block: Int) -> [Double] {
        let converter = PCMConverter(from: input.format, to: output)
        var result: [Double] = []
        var start = 0
        while start < input.frameCount {
            let part = PCMBuffer(format: input.format)
            let count = min(block, input.frameCount - start)
            let room = part.reserve(count * input.format.bytesPerFrame)
            room.copyMemory(
                from: UnsafeRawBufferPointer(
                    rebasing: input.bytes[(start * input.format.bytesPerFrame)...].prefix(count * input.format.bytesPerFrame)))
            part.commit(count * input.format.bytesPerFrame)
            result += samples(converter.convert(part))
            start += count
        }
        return result
    }

    @Test(arguments: [PCMFormat.SampleType.signed16, .float32])
    func theSameFormatComesOutUnchanged(_ type: PCMFormat.SampleType) {
        let format = PCMFormat(sampleRate: 44100, channels: 2, sampleType: type)
        let input = Self.sine(format, frames: 5000)
        let output = Self.convert(input, to: format, block: 1152)
        // All but the last frame, which waits for the one after it.
        #expect(output.count == (5000 - 1) * 2)
        #expect(output.elementsEqual(Self.samples(input).prefix(output.count)))
    }

    @Test(arguments: [PCMFormat.SampleType.signed16, .float32])
    func monoAt16kHzBecomesTheSameToneInStereoAt44kHz(_ type: PCMFormat.SampleType) {
        let input = Self.sine(PCMFormat(sampleRate: 16000, channels: 1, sampleType: type), frames: 16000, frequency: 440)
        let format = PCMFormat(sampleRate: 44100, channels: 2, sampleType: type)
        let output = Self.convert(input, to: format, block: 576)
        let frames = output.count / 2
        #expect(abs(frames - 44100) <= 3)
        let left = stride(from: 0, to: output.count, by: 2).map { output[$0] }
        let right = stride(from: 1, to: output.count, by: 2).map { output[$0] }
        #expect(left == right)
        // The same tone: within a percent of 0.5 * sin(2 pi 440 t) everywhere.
        var worst = 0.0
        for (frame, value) in left.enumerated() {
            let expected: Double = 0.5 * sin(2 * Double.pi * 440 * Double(frame) / 44100)
            worst = max(worst, abs(value - expected))
        }
        #expect(worst < 0.01, "\(worst)")
    }

    @Test func stereoIsMixedDownToMono() {
        let format = PCMFormat(sampleRate: 22050, channels: 2)
        let input = PCMBuffer(format: format)
        let room = input.reserve(100 * 4)
        for frame in 0..<100 {
            room.storeBytes(of: Int16(1000), toByteOffset: frame * 4, as: Int16.self)
            room.storeBytes(of: Int16(3000), toByteOffset: frame * 4 + 2, as: Int16.self)
        }
        input.commit(400)
        let output = Self.convert(input, to: PCMFormat(sampleRate: 22050, channels: 1), block: 30)
        #expect(output.count == 99)
        #expect(output.allSatisfy { abs($0 - 2000.0 / 32768) < 1e-9 })
    }

    @Test(arguments: [1, 7, 576, 100_000])
    func blocksOfAnySizeGiveTheSameOutput(_ block: Int) {
        let input = Self.sine(PCMFormat(sampleRate: 22050, channels: 1), frames: 10_000, frequency: 1000)
        let format = PCMFormat(sampleRate: 48000, channels: 2)
        #expect(Self.convert(input, to: format, block: block) == Self.convert(input, to: format, block: 10_000))
    }
}
