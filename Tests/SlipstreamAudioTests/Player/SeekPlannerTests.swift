import Testing
@testable import SlipstreamAudio

/// Seek planning alone: times to frames with gapless trimming and priming, the queue or the
/// network, and where the network reconnects.
struct SeekPlannerTests {
    /// A 44.1 kHz MP3 stream with a LAME tag's trim (576 + 529 frames of delay, 1000 of padding,
    /// 1000 packets), MP3's priming, seekable.
    static let stream = SeekPlanner.Stream(
        sampleRate: 44100, framesPerPacket: 1152, duration: 26,
        trim: GaplessTrim(encoderDelay: 576, decoderDelay: 529, encoderPadding: 1000, statedFrameCount: 1_152_000),
        primingPackets: 4, canSeekNetwork: true)

    static func target(_ time: Double, _ stream: SeekPlanner.Stream = stream) throws -> SeekPlanner.Target {
        try SeekPlanner.target(time: time, stream: stream)
    }

    @Test func aTimeBecomesTheFrameHeardAndTheFrameDecoded() throws {
        let target = try Self.target(10)
        #expect(target.presentationFrame == 441_000)
        // The trim's delay: presentation frame 0 is raw frame 1105.
        #expect(target.rawFrame == 441_000 + 1105)
        #expect(target.primedFrame == target.rawFrame - 4 * 1152)
        #expect(target.position == 10_000_000_000)
        #expect(abs(target.primedTime - Double(target.primedFrame) / 44100) < 1e-12)
    }

    @Test func timesAreClampedToTheStream() throws {
        #expect(try Self.target(-5).presentationFrame == 0)
        #expect(try Self.target(0).primedFrame == 0)
        #expect(try Self.target(99).presentationFrame == 26 * 44100)
        var unknownLength = Self.stream
        unknownLength.duration = nil
        #expect(try Self.target(99, unknownLength).presentationFrame == 99 * 44100)
    }

    @Test func aTimePastAKnownEndIsRefused() throws {
        try SeekPlanner.checkInside(26, duration: 26)
        try SeekPlanner.checkInside(26.0005, duration: 26)
        try SeekPlanner.checkInside(500, duration: nil)
        #expect {
            try SeekPlanner.checkInside(500, duration: 60)
        } throws: { error in
            let error = error as? AudioStreamerError
            return error?.code == .seek && error?.message == "cannot seek to 500 s: the stream is 60 s long"
        }
    }

    @Test func withoutAFormatOrATimeThereIsNoTarget() {
        var unknown = Self.stream
        unknown.sampleRate = 0
        for (time, stream) in [(10.0, unknown), (.nan, Self.stream), (.infinity, Self.stream)] {
            #expect {
                _ = try SeekPlanner.target(time: time, stream: stream)
            } throws: { ($0 as? AudioStreamerError)?.code == .seek }
        }
    }

    @Test func theQueueServesWhatItHoldsAndTheNetworkTheRest() throws {
        let target = try Self.target(5)
        #expect(try SeekPlanner.plan(target, isBuffered: true, stream: Self.stream) == .buffered(target))
        #expect(try SeekPlanner.plan(target, isBuffered: false, stream: Self.stream) == .network(target))
        var live = Self.stream
        live.canSeekNetwork = false
        // A live stream seeks only within what it holds.
        #expect(try SeekPlanner.plan(target, isBuffered: true, stream: live) == .buffered(target))
        #expect {
            _ = try SeekPlanner.plan(target, isBuffered: false, stream: live)
        } throws: { ($0 as? AudioStreamerError)?.message == "cannot seek in a live stream" }
    }

    @Test func theNetworkReconnectsWhereTheSeekTableSays() throws {
        let target = try Self.target(10)
        let exact = AudioSeekPoint(time: 9.9, frame: 436_608, offset: 160_000, method: .constantBitRate)
        #expect(
            SeekPlanner.network(target, seekPoint: exact, rangesSupported: true, isConnected: true, nextFrame: 0)
                == .connect(offset: 160_000, firstFrame: 436_608, estimated: false, dropBefore: target.primedFrame))
        let estimate = AudioSeekPoint(time: 9.9, frame: 436_608, offset: 150_000, method: .xingTable)
        #expect(
            SeekPlanner.network(target, seekPoint: estimate, rangesSupported: nil, isConnected: false, nextFrame: 0)
                == .connect(offset: 150_000, firstFrame: 436_608, estimated: true, dropBefore: target.primedFrame))
        // No table yet: from the start, dropping what comes before.
        #expect(
            SeekPlanner.network(target, seekPoint: nil, rangesSupported: true, isConnected: true, nextFrame: 0)
                == .connect(offset: 0, firstFrame: 0, estimated: false, dropBefore: target.primedFrame))
    }

    @Test func withoutRangesAForwardSeekReadsOnAndAnyOtherStartsOver() throws {
        let target = try Self.target(10)
        let point = AudioSeekPoint(time: 9.9, frame: 436_608, offset: 160_000, method: .constantBitRate)
        #expect(
            SeekPlanner.network(target, seekPoint: point, rangesSupported: false, isConnected: true, nextFrame: 100_000)
                == .readOn(dropBefore: target.primedFrame))
        // Backwards, or with the connection gone: from byte 0.
        for (connected, next) in [(true, Int64(500_000)), (false, Int64(100_000))] {
            #expect(
                SeekPlanner.network(target, seekPoint: point, rangesSupported: false, isConnected: connected, nextFrame: next)
                    == .connect(offset: 0, firstFrame: 0, estimated: false, dropBefore: target.primedFrame))
        }
    }

    @Test func aSourceThatSeeksByTimeIsAskedForThePrimedTime() throws {
        let target = try Self.target(10)
        let point = AudioSeekPoint(time: 9.9, frame: 436_608, offset: 160_000, method: .constantBitRate)
        // Whatever the table and the ranges say.
        #expect(
            SeekPlanner.network(target, seekPoint: point, rangesSupported: false, isConnected: true, nextFrame: 100_000, seeksByTime: true)
                == .connectAt(time: target.primedTime, firstFrame: target.primedFrame, dropBefore: target.primedFrame))
    }
}
