import Testing
import TestSupport
@testable import SlipstreamAudio

@Suite struct AudioOutputChoiceTests {
    @Test(arguments: [
        ("auto", AudioOutputChoice.automatic),
        ("pulse", .pulse(server: nil)),
        ("pulse:unix:/run/pulse/native", .pulse(server: "unix:/run/pulse/native")),
        ("alsa", .alsa(device: "default")),
        ("alsa:hw:0,1", .alsa(device: "hw:0,1")),
        ("alsa:null", .alsa(device: "null")),
        ("wav:out.wav", .wav(path: "out.wav")),
        ("wav:/tmp/a:b.wav", .wav(path: "/tmp/a:b.wav")),
        ("null", .null(paced: false)),
        ("null:paced", .null(paced: true)),
    ])
    func parses(argument: String, choice: AudioOutputChoice) throws {
        #expect(try AudioOutputChoice(parsing: argument) == choice)
        #expect(AudioOutputChoice(argument: argument) == choice)
        #expect(AudioOutputChoice(argument: choice.description) == choice)
    }

    @Test(arguments: [
        ("", "unknown output \"\": use auto, pulse[:SERVER], alsa[:DEVICE], wav:FILE, null or null:paced"),
        ("oss", "unknown output \"oss\": use auto, pulse[:SERVER], alsa[:DEVICE], wav:FILE, null or null:paced"),
        ("alsa:", "unknown output \"alsa:\": use auto, pulse[:SERVER], alsa[:DEVICE], wav:FILE, null or null:paced"),
        ("null:slow", "unknown output \"null:slow\": use auto, pulse[:SERVER], alsa[:DEVICE], wav:FILE, null or null:paced"),
        ("Pulse", "unknown output \"Pulse\": use auto, pulse[:SERVER], alsa[:DEVICE], wav:FILE, null or null:paced"),
        ("wav", "output \"wav\": wav needs a file, as in wav:out.wav"),
        ("wav:", "output \"wav:\": wav needs a file, as in wav:out.wav"),
    ])
    func rejects(argument: String, message: String) {
        #expect(AudioOutputChoice(argument: argument) == nil)
        let error = #expect(throws: AudioOutputChoice.ParseError.self) { try AudioOutputChoice(parsing: argument) }
        #expect(error?.message == message)
    }

    /// The time limit only catches a hang: deciding takes at most half a second.
    @Test(.timeLimit(.minutes(1)))
    func makesTheOutputsItNames() async throws {
        #expect(try AudioOutputChoice.alsa(device: "null").makeOutput() is ALSAOutput)
        #expect(try AudioOutputChoice.wav(path: "x.wav").makeOutput() is WAVFileOutput)
        let null = try AudioOutputChoice.null(paced: true).makeOutput() as? NullOutput
        #expect(null?.paced == true)
        // Automatic answers, whichever way it goes.
        let automatic = try await offPool {
            let output = try AudioOutputChoice.automatic.makeOutput()
            return output is PulseAudioOutput || output is ALSAOutput
        }
        #expect(automatic)
        let error = try await offPool {
            do throws(AudioOutputError) {
                _ = try AudioOutputChoice.pulse(server: "unix:/nonexistent/native").makeOutput()
                return nil as AudioOutputError?
            } catch {
                return error
            }
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "PulseAudio server \"unix:/nonexistent/native\": no server answers")
    }
}
