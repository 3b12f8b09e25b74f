import CAllocationCounter
import Foundation
import Testing
@testable import SlipstreamAudio

/// The converter for outputs that keep one format: channels copied up or mixed down, the rate
/// changed by libsoxr, the same whatever the blocks, the whole signal out after `flush()`, and
/// nothing allocated per block.
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

    /// Frames `range` of `buffer` in a buffer of their own.
    static func part(_ buffer: PCMBuffer, _ range: Range<Int>) -> PCMBuffer {
        let width = buffer.format.bytesPerFrame
        let part = PCMBuffer(format: buffer.format)
        let room = part.reserve(range.count * width)
        room.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer.bytes[(range.lowerBound * width)..<(range.upperBound * width)]))
        part.commit(range.count * width)
        return part
    }

    /// Converts `input` in blocks of `block` frames, then flushes; every sample of the output.
    static func convert(_ input: PCMBuffer, to output: PCMFormat, block: Int, converter: PCMConverter? = nil) throws -> [Double] {
        let converter = try converter ?? PCMConverter(from: input.format, to: output)
        var result: [Double] = []
        for start in stride(from: 0, to: input.frameCount, by: block) {
            result += samples(converter.convert(part(input, start..<min(start + block, input.frameCount))))
        }
        return result + samples(converter.flush())
    }

    @Test(arguments: [PCMFormat.SampleType.signed16, .float32])
    func channelsAloneChangeAtOnceAndExactly(_ type: PCMFormat.SampleType) throws {
        let mono = PCMFormat(sampleRate: 22050, channels: 1, sampleType: type)
        let stereo = PCMFormat(sampleRate: 22050, channels: 2, sampleType: type)
        let input = Self.sine(mono, frames: 5000)
        // No resampler: every block comes out whole, at once.
        let converter = try PCMConverter(from: mono, to: stereo)
        #expect(converter.convert(Self.part(input, 0..<1152)).frameCount == 1152)
        let up = try Self.convert(input, to: stereo, block: 1152)
        let expected = Self.samples(input)
        #expect(up.count == 2 * expected.count)
        let copied = expected.indices.allSatisfy { (i: Int) -> Bool in up[2 * i] == expected[i] && up[2 * i + 1] == expected[i] }
        #expect(copied)
        // Down again: the average of two equal channels is the channel.
        let stereoInput = Self.sine(stereo, frames: 5000)
        let down = try Self.convert(stereoInput, to: mono, block: 300)
        #expect(down == expected)
    }

    @Test func stereoIsMixedDownToMonoAndSixChannelsFoldToTwo() throws {
        let stereo = PCMFormat(sampleRate: 22050, channels: 2)
        let input = PCMBuffer(format: stereo)
        let room = input.reserve(100 * 4)
        for frame in 0..<100 {
            room.storeBytes(of: Int16(1000), toByteOffset: frame * 4, as: Int16.self)
            room.storeBytes(of: Int16(3000), toByteOffset: frame * 4 + 2, as: Int16.self)
        }
        input.commit(400)
        let mono = try Self.convert(input, to: PCMFormat(sampleRate: 22050, channels: 1), block: 30)
        #expect(mono.count == 100 && mono.allSatisfy { abs($0 - 2000.0 / 32768) < 1e-9 })
        // Stereo up to 5.1: front left and right carry the channels, the others are silent.
        let surround = try Self.convert(input, to: PCMFormat(sampleRate: 22050, channels: 6), block: 30)
        #expect(surround.count == 600)
        let (left, right): (Double, Double) = (1000.0 / 32768, 3000.0 / 32768)
        let placed = (0..<100).allSatisfy { (frame: Int) -> Bool in
            surround[6 * frame] == left && surround[6 * frame + 1] == right
                && surround[(6 * frame + 2)..<(6 * frame + 6)].allSatisfy { $0 == 0 }
        }
        #expect(placed)
    }

    @Test(arguments: [PCMFormat.SampleType.signed16, .float32])
    func monoAt16kHzBecomesTheSameToneInStereoAt44kHz(_ type: PCMFormat.SampleType) throws {
        let input = Self.sine(PCMFormat(sampleRate: 16000, channels: 1, sampleType: type), frames: 16000, frequency: 440)
        let output = try Self.convert(input, to: PCMFormat(sampleRate: 44100, channels: 2, sampleType: type), block: 576)
        // Every frame: 16000 * 44100 / 16000, once flushed.
        #expect(output.count == 2 * 44100)
        let left = stride(from: 0, to: output.count, by: 2).map { output[$0] }
        let right = stride(from: 1, to: output.count, by: 2).map { output[$0] }
        #expect(left == right)
        // The same tone, in time (no delay): within -70 dB of 0.5 sin(2 pi 440 t) away from the
        // ends, where the input starts and stops abruptly.
        var worst = 0.0
        for frame in 2000..<(44100 - 2000) {
            let expected = 0.5 * sin(2 * Double.pi * 440 * Double(frame) / 44100)
            worst = max(worst, abs(left[frame] - expected))
        }
        #expect(worst < 3.2e-4, "\(worst)")
    }

    @Test(arguments: [1, 7, 576, 4096, 100_000])
    func blocksOfAnySizeGiveTheSameOutput(_ block: Int) throws {
        let input = Self.sine(PCMFormat(sampleRate: 22050, channels: 1), frames: 10_000, frequency: 1000)
        let format = PCMFormat(sampleRate: 48000, channels: 2)
        let whole = try Self.convert(input, to: format, block: 10_000)
        #expect(whole.count == 2 * Int((10_000 * 48000 + 22049) / 22050))
        #expect(try Self.convert(input, to: format, block: block) == whole)
    }

    @Test func aFlushOrAResetStartsANewSignal() throws {
        let input = Self.sine(PCMFormat(sampleRate: 44100, channels: 2), frames: 8000)
        let format = PCMFormat(sampleRate: 22050, channels: 1)
        let converter = try PCMConverter(from: input.format, to: format)
        let first = try Self.convert(input, to: format, block: 1152, converter: converter)
        #expect(try Self.convert(input, to: format, block: 1152, converter: converter) == first)
        // Half a signal, forgotten (a seek), then the whole again.
        _ = converter.convert(Self.part(input, 0..<4000))
        converter.reset()
        #expect(try Self.convert(input, to: format, block: 1152, converter: converter) == first)
    }

    @Test(arguments: [PCMFormat.SampleType.signed16, .float32])
    func steadyStateConversionAllocatesNothing(_ type: PCMFormat.SampleType) throws {
        let input = Self.sine(PCMFormat(sampleRate: 22050, channels: 1, sampleType: type), frames: 1152)
        let converter = try PCMConverter(from: input.format, to: PCMFormat(sampleRate: 44100, channels: 2, sampleType: type))
        for _ in 0..<50 { _ = converter.convert(input) }
        let before = slipstream_thread_allocation_count()
        var frames = 0
        for _ in 0..<2000 { frames += converter.convert(input).frameCount }
        let allocations = slipstream_thread_allocation_count() - before
        #expect(allocations == 0, "\(allocations) allocations over 2000 blocks")
        #expect(abs(frames - 2000 * 2304) <= 2304)
    }
}
