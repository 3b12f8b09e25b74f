import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

@Suite struct ALSAOutputTests {
    @Test(arguments: [PCMFormat(sampleRate: 44100, channels: 2), PCMFormat(sampleRate: 48000, channels: 1, sampleType: .float32)])
    func nullDevicePlays(format: PCMFormat) async throws {
        try await offPool {
            let output = ALSAOutput(device: "null")
            try output.open(format)
            let pcm = TestPCM.sine(format, frames: format.sampleRate / 2)
            try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 1024)
            let written = Int64(format.sampleRate / 2)
            #expect(output.framesPlayed() <= written)
            try output.setPaused(true)
            #expect(output.framesPlayed() <= written)
            try output.setPaused(false)
            // A write while paused resumes.
            try output.setPaused(true)
            try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 1024)
            #expect(output.framesPlayed() <= 2 * written)
            try output.flush()
            #expect(output.framesPlayed() == 0)
            try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 4096)
            try output.drain()
            #expect(output.framesPlayed() == written)
            // Opening again with another format reopens the device.
            try output.open(PCMFormat(sampleRate: 22050, channels: 2))
            #expect(output.framesPlayed() == 0)
            output.close()
            output.close()
            #expect(output.framesPlayed() == 0)
        }
    }

    /// A device that does not exist gives one error naming it and its cause, and ALSA prints
    /// nothing (its "ALSA lib ..." lines would go to stderr).
    @Test(arguments: [
        ("hw:9", "ALSA device \"hw:9\": cannot open: No such file or directory (Cannot get card index for 9)"),
        ("no-such-device", "ALSA device \"no-such-device\": cannot open: No such file or directory (Unknown PCM no-such-device)"),
    ])
    func missingDeviceIsOneClearError(device: String, message: String) async throws {
        let (error, printed) = try await offPool {
            try Self.capturingStandardError {
                do throws(AudioOutputError) {
                    try ALSAOutput(device: device).open(PCMFormat(sampleRate: 44100, channels: 2))
                    return nil as AudioOutputError?
                } catch {
                    return error
                }
            }
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message == message)
        #expect(!printed.contains("ALSA lib"))
    }

    /// Held while file descriptor 2 is redirected: two redirections at once would restore each
    /// other's file.
    static let redirecting = NSLock()

    /// Runs `body` with file descriptor 2 pointing at a file, and returns what was printed there.
    /// Other tests (and the test library) may print meanwhile: callers look only for what ALSA
    /// would print ("ALSA lib ...").
    static func capturingStandardError<T>(_ body: () throws -> T) throws -> (T, String) {
        redirecting.lock()
        defer { redirecting.unlock() }
        let path = try TestFiles.makeTemporaryFolder() + "/stderr"
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let saved = dup(2)
        dup2(file, 2)
        defer {
            dup2(saved, 2)
            close(saved)
            close(file)
        }
        let result = try body()
        return (result, try String(contentsOfFile: path, encoding: .utf8))
    }
}
