import Testing

@testable import SlipstreamAudio

@Suite struct ReadGatheringTests {
    /// Feeds a run of buffer levels and returns the changes asked for, in order.
    private func changes(isLive: Bool, _ levels: [Double]) -> [Duration?] {
        var gathered = false
        return levels.compactMap { ReadGathering.change(isLive: isLive, gathered: &gathered, buffered: $0) }.map(\.interval)
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
}
