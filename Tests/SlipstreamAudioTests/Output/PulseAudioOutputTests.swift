import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The headless server scripts/test.sh starts, or one started for a plain `swift test`.
let testPulseServer = TestServices.pulseServer

@Suite struct PulseAudioOutputTests {
    static let format = PCMFormat(sampleRate: 44100, channels: 2)

    /// Writes are paced by the server, the clock rises and stays behind the frames written by a
    /// sane latency, pausing (no writes) stops it, flush and drain work.
    @Test(
        .enabled(
            if: testPulseServer != nil,
            "no headless PulseAudio server could be started (scripts/setup.sh installs pulseaudio)"))
    func playsAtTheServersPace() async throws {
        let server = try #require(testPulseServer)
        try await offPool {
            let output = PulseAudioOutput(server: server, applicationName: "slipstream tests")
            try output.open(Self.format)
            let pcm = TestPCM.sine(Self.format, frames: 44100 / 10)
            let start = monotonicSeconds()
            var written: Int64 = 0
            var lastClock: Int64 = 0
            for _ in 0..<15 {
                try TestPCM.write(pcm, to: output, format: Self.format, framesPerWrite: 1152)
                written += 4410
                let clock = output.framesPlayed()
                #expect(clock >= lastClock && clock <= written)
                lastClock = clock
            }
            // 1.5 s of audio cannot have gone in much faster than it plays.
            #expect(monotonicSeconds() - start >= 1.5 - 0.5)
            #expect(lastClock > 0)
            #expect(written - output.framesPlayed() < 44100 / 2)

            // Paused (nothing written): the server plays what it holds and the clock gets near
            // what was written, never past it (30 s only guards against a hang: a loaded server
            // may be slow).
            try output.setPaused(true)
            let deadline = monotonicSeconds() + 30
            var clock = output.framesPlayed()
            while clock < written - 44100 / 10, monotonicSeconds() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
                clock = output.framesPlayed()
            }
            #expect(clock >= written - 44100 / 10)
            Thread.sleep(forTimeInterval: 0.3)
            #expect(output.framesPlayed() <= written)
            try output.setPaused(false)

            try TestPCM.write(pcm, to: output, format: Self.format, framesPerWrite: 4410)
            written += 4410
            try output.drain()
            #expect(output.framesPlayed() <= written && output.framesPlayed() >= written - 44100 / 10)
            try output.flush()
            #expect(output.framesPlayed() == 0)
            output.close()
            output.close()
        }
    }

    /// Float samples and more than two channels (mapped in WAVE order) play too.
    @Test(
        .enabled(
            if: testPulseServer != nil,
            "no headless PulseAudio server could be started (scripts/setup.sh installs pulseaudio)"))
    func playsFloatSurround() async throws {
        let server = try #require(testPulseServer)
        try await offPool {
            let format = PCMFormat(sampleRate: 48000, channels: 6, sampleType: .float32)
            let output = PulseAudioOutput(server: server)
            try output.open(format)
            try TestPCM.write(TestPCM.sine(format, frames: 9600), to: output, format: format, framesPerWrite: 960)
            try output.drain()
            #expect(output.framesPlayed() <= 9600 && output.framesPlayed() >= 9600 - 4800)
            output.close()
        }
    }

    @Test(
        .enabled(
            if: testPulseServer != nil,
            "no headless PulseAudio server could be started (scripts/setup.sh installs pulseaudio)"))
    func probeFindsTheServer() async throws {
        let server = try #require(testPulseServer)
        #expect(try await offPool { PulseServerProbe.answers(server: server, within: PulseServerProbe.namedServerTimeoutSeconds) })
        let choice = try #require(AudioOutputChoice(argument: "pulse:\(server)"))
        let output = try await offPool { try choice.makeOutput() is PulseAudioOutput }
        #expect(output)
    }

    /// No server there: one clear error (the time limit only catches a hang).
    @Test(.timeLimit(.minutes(1)))
    func missingServerIsOneClearError() async throws {
        let error = try await offPool {
            do throws(AudioOutputError) {
                try PulseAudioOutput(server: "unix:/nonexistent/slipstream/native").open(Self.format)
                return nil as AudioOutputError?
            } catch {
                return error
            }
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "PulseAudio server \"unix:/nonexistent/slipstream/native\": cannot connect: Connection refused")

        #expect(try await offPool { PulseServerProbe.answers(server: "unix:/nonexistent/slipstream/native", within: 0.5) } == false)
    }

    /// A server that takes the connection and never says a word: the probe gives up after its
    /// timeout instead of hanging (the time limit only catches a hang).
    @Test(.timeLimit(.minutes(1)))
    func probeGivesUpOnASilentServer() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 4) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound)
        let server = "tcp:127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        let start = monotonicSeconds()
        #expect(try await offPool { PulseServerProbe.answers(server: server, within: PulseServerProbe.automaticTimeoutSeconds) } == false)
        #expect(monotonicSeconds() - start >= PulseServerProbe.automaticTimeoutSeconds - 0.05)
    }
}
