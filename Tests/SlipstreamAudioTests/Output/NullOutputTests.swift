import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

@Suite struct NullOutputTests {
    static let format = PCMFormat(sampleRate: 8000, channels: 2)

    /// Ten hours of audio go through at once (the time limit only catches real-time pacing).
    @Test(.timeLimit(.minutes(1)))
    func unpacedCountsFramesAtOnce() throws {
        let output = NullOutput(paced: false)
        try output.open(Self.format)
        let pcm = TestPCM.sine(Self.format, frames: 8000 * 60)
        for _ in 0..<600 {
            try pcm.withUnsafeBytes { try output.write($0) }
        }
        #expect(output.framesPlayed() == 8000 * 36000)
        try output.setPaused(true)
        try output.setPaused(false)
        try output.drain()
        #expect(output.framesPlayed() == 8000 * 36000)
        try output.flush()
        #expect(output.framesPlayed() == 0)
        output.close()
    }

    /// Paced: writing a second of audio takes about a second (less the pretended buffer), the
    /// clock never runs ahead of the frames written, and pausing stops it.
    @Test func pacedRunsAtRealTime() async throws {
        try await offPool {
            let output = NullOutput()
            try output.open(Self.format)
            let pcm = TestPCM.sine(Self.format, frames: 8000)
            let start = monotonicSeconds()
            var written: Int64 = 0
            var lastClock: Int64 = 0
            try pcm.withUnsafeBytes { raw in
                for piece in stride(from: 0, to: raw.count, by: 800 * 4) {
                    try output.write(UnsafeRawBufferPointer(rebasing: raw[piece..<min(piece + 800 * 4, raw.count)]))
                    written += 800
                    let clock = output.framesPlayed()
                    #expect(clock <= written && clock >= lastClock)
                    lastClock = clock
                }
            }
            #expect(monotonicSeconds() - start >= 1 - NullOutput.bufferSeconds - 0.01)

            try output.setPaused(true)
            let paused = output.framesPlayed()
            Thread.sleep(forTimeInterval: 0.2)
            #expect(output.framesPlayed() == paused)
            try output.setPaused(false)

            let drainStart = monotonicSeconds()
            try output.drain()
            #expect(output.framesPlayed() == 8000)
            // What was still buffered at the pause plays out in real time.
            #expect(monotonicSeconds() - drainStart >= Double(8000 - paused) / 8000 - 0.01)
            try output.flush()
            #expect(output.framesPlayed() == 0)
            output.close()
        }
    }
}
