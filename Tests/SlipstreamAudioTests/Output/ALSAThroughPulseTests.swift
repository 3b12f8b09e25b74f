import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// ALSA on a device that really plays: the `pulse` plugin device, against the headless server.
/// ALSA's pulse plugin finds its server in `PULSE_SERVER`, which a running test process cannot
/// safely change (other threads read the environment), so the device test (and the automatic
/// choice's, which needs a default server) runs in a child test process given that variable.
@Suite struct ALSAThroughPulseTests {
    /// Set only in the child process.
    static let inChild = ProcessInfo.processInfo.environment["SLIPSTREAM_TEST_ALSA_CHILD"] != nil

    @Test(
        .enabled(
            if: testPulseServer != nil,
            "no headless PulseAudio server could be started (scripts/setup.sh installs pulseaudio)"))
    func pulsePluginDeviceInAChildProcess() async throws {
        let server = try #require(testPulseServer)
        let (status, output) = try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = [
                "--testing-library", "swift-testing", "--filter",
                "devicePlaysPausesRecoversAndDrains|automaticChoosesPulse",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["PULSE_SERVER"] = server
            environment["SLIPSTREAM_TEST_ALSA_CHILD"] = "1"
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: output, as: UTF8.self))
        }
        #expect(status == 0, "\(output)")
        #expect(output.contains("devicePlaysPausesRecoversAndDrains() passed"), "\(output)")
        #expect(output.contains("automaticChoosesPulseWhereAServerAnswers() passed"), "\(output)")
    }

    /// Runs in the child, where the default server is the headless one.
    @Test(.enabled(if: inChild, "runs in the child process of pulsePluginDeviceInAChildProcess()"))
    func automaticChoosesPulseWhereAServerAnswers() throws {
        #expect(try AudioOutputChoice.automatic.makeOutput() is PulseAudioOutput)
        #expect(try AudioOutputChoice.pulse(server: nil).makeOutput() is PulseAudioOutput)
    }

    /// Runs in the child: writes are paced by the device, the clock stays behind the frames
    /// written, pause stops it, an underrun is recovered silently, drain plays everything.
    @Test(.enabled(if: inChild, "runs in the child process of pulsePluginDeviceInAChildProcess()"))
    func devicePlaysPausesRecoversAndDrains() throws {
        let format = PCMFormat(sampleRate: 44100, channels: 2)
        let output = ALSAOutput(device: "pulse")
        try output.open(format)
        let pcm = TestPCM.sine(format, frames: 44100)
        let start = monotonicSeconds()
        try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 1024)
        // A second of audio cannot go in much faster than it plays (less the device's buffer).
        #expect(monotonicSeconds() - start >= 1 - Double(ALSAOutput.bufferMicroseconds) / 1e6 - 0.1)
        var written: Int64 = 44100
        #expect(output.framesPlayed() > 0 && output.framesPlayed() <= written)

        try output.setPaused(true)
        let paused = output.framesPlayed()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(abs(output.framesPlayed() - paused) < 44100 / 20)
        try output.setPaused(false)

        // Starve the device well past its buffer, then go on: recovered without an error.
        Thread.sleep(forTimeInterval: 1)
        #expect(output.framesPlayed() <= written)
        try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 4096)
        written += 44100
        try output.drain()
        #expect(output.framesPlayed() == written)
        try output.flush()
        #expect(output.framesPlayed() == 0)
        output.close()
    }
}
