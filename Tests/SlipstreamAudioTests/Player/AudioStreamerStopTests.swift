import Testing
@testable import SlipstreamAudio

/// `stop()` as a program meets it: the state tells the stop when the call returns.
@Suite struct AudioStreamerStopTests {
    @Test func aPlayerNeverPlayedReadsStoppedOnceStopReturns() async {
        let player = AudioStreamer(url: "/nonexistent/never-played.mp3", configuration: .silent)
        player.stop()
        #expect(player.state == .stopped(.user))
        // Nothing more happens: a play after the stop is ignored.
        player.play()
        var events: [AudioStreamerEvent] = []
        for await event in player.events { events.append(event) }
        #expect(events == [.stateChanged(.stopped(.user))])
        #expect(player.state == .stopped(.user))
    }
}
