import Foundation
@testable import SlipstreamAudio

/// PCM made in the tests, and a way to run blocking output calls off the concurrency pool.
enum TestPCM {
    /// `frames` frames of a sine at `frequency` Hz (each channel a little higher than the last,
    /// so channels differ), at half scale, in `format`.
    static func sine(_ format: PCMFormat, frames: Int, frequency: Double = 440) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * format.bytesPerFrame)
        for frame in 0..<frames {
            for channel in 0..<format.channels {
                let phase = 2 * Double.pi * (frequency + Double(channel) * 110) * Double(frame) / Double(format.sampleRate)
                let value = 0.5 * sin(phase)
                switch format.sampleType {
                case .signed16:
                    withUnsafeBytes(of: Int16(value * 32767).littleEndian) { bytes += $0 }
                case .float32:
                    withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { bytes += $0 }
                }
            }
        }
        return bytes
    }

    /// Writes `bytes` to `output` in pieces of `framesPerWrite` frames.
    static func write(_ bytes: [UInt8], to output: some AudioOutput, format: PCMFormat, framesPerWrite: Int) throws {
        let step = framesPerWrite * format.bytesPerFrame
        try bytes.withUnsafeBytes { raw in
            var start = 0
            while start < raw.count {
                let end = min(start + step, raw.count)
                try output.write(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                start = end
            }
        }
    }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
