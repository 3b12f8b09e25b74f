import Testing

@testable import SlipstreamAudio

@Suite struct ReadGatheringTests {
    /// Feeds a run of buffer levels and returns the changes asked for, in order.
    private func changes(isLive: Bool, heard: Bool = true, _ levels: [Double]) -> [Duration?] {
        var gathered: Duration?
        return levels.compactMap {
            ReadGathering.change(isLive: isLive, gathered: &gathered, buffered: $0, heard: heard)
        }.map(\.interval)
    }

    @Test func aLiveStreamGathersOnceTwoSecondsAreHeldAndStopsBelowOne() {
        let levels = [0, 0.5, 1.9, 2.0, 3, 5, 1.5, 1.0, 0.99, 0.5, 2.5]
        #expect(changes(isLive: true, levels) == [.milliseconds(250), nil, .milliseconds(250)])
    }

    @Test func aFileNeverGathers() {
        #expect(changes(isLive: false, [0, 2, 10, 30, 0.5]).isEmpty)
    }

    @Test func betweenTheThresholdsNothingChanges() {
        #expect(changes(isLive: true, [1.5, 1.2, 1.8, 1.0]).isEmpty)
        #expect(changes(isLive: true, [2.5, 1.5, 1.2, 1.8, 1.0, 1.9]) == [.milliseconds(250)])
    }

    @Test func aLiveStreamToAnOutputNobodyHearsGathersASecondAtOnceAndGoesOnGathering() {
        // The unpaced null output or a WAV file takes each read's audio at once: the player
        // holds nothing, and nothing can be heard late.
        #expect(changes(isLive: true, heard: false, [0, 0, 0.1, 0, 3, 0]) == [.seconds(1)])
    }

    @Test func anOutputFoundUnheardAfterReadsGatheredGathersLonger() {
        // An output slow to open: two seconds were held before it said it is not heard.
        var gathered: Duration?
        #expect(ReadGathering.change(isLive: true, gathered: &gathered, buffered: 2.5, heard: true) == .init(interval: .milliseconds(250)))
        #expect(ReadGathering.change(isLive: true, gathered: &gathered, buffered: 0, heard: false) == .init(interval: .seconds(1)))
        #expect(ReadGathering.change(isLive: true, gathered: &gathered, buffered: 0, heard: false) == nil)
    }

    @Test func aFileToAnOutputNobodyHearsNeverGathers() {
        #expect(changes(isLive: false, heard: false, [0, 2, 0]).isEmpty)
    }
}
