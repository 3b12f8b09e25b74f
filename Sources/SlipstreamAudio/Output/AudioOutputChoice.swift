/// Which output to play to, as the command line spells it (`--output`):
///
/// | spelling | choice |
/// | --- | --- |
/// | `auto` | `.automatic`: PulseAudio if a server answers, else ALSA's `default` device |
/// | `pulse`, `pulse:SERVER` | `.pulse`: the default server, or SERVER (e.g. `unix:/run/pulse/native`) |
/// | `alsa`, `alsa:DEVICE` | `.alsa`: ALSA device `default`, or DEVICE (e.g. `hw:0`, `null`) |
/// | `wav:FILE` | `.wav`: a WAV file |
/// | `null` | `.null(paced: false)`: nowhere, as fast as possible (benchmarks) |
/// | `null:paced` | `.null(paced: true)`: nowhere, at real time |
public enum AudioOutputChoice: Hashable, Sendable, CustomStringConvertible {
    /// PulseAudio if a server answers within half a second, else ALSA's `default` device.
    case automatic
    /// PulseAudio: the default server (`nil`) or this one.
    case pulse(server: String?)
    /// An ALSA device, e.g. `default`, `hw:0`, `null`.
    case alsa(device: String)
    /// A WAV file at this path (replaced if it exists).
    case wav(path: String)
    /// Nowhere: at real time (`paced`) or as fast as possible.
    case null(paced: Bool)

    /// Why a spelling is not an output choice.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A message for a person, naming the spelling and the ones that work.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// The choice `argument` spells, or `nil` (see `init(parsing:)` for the reason).
    public init?(argument: String) {
        guard let choice = try? AudioOutputChoice(parsing: argument) else { return nil }
        self = choice
    }

    /// The choice `argument` spells, or an error saying what is wrong and what would work.
    public init(parsing argument: String) throws(ParseError) {
        let kind = argument.prefix { $0 != ":" }
        let value = argument.count > kind.count ? String(argument.dropFirst(kind.count + 1)) : nil
        switch (kind, value) {
        case ("auto", nil): self = .automatic
        case ("pulse", nil): self = .pulse(server: nil)
        case ("alsa", nil): self = .alsa(device: "default")
        case ("null", nil): self = .null(paced: false)
        case ("null", "paced"): self = .null(paced: true)
        case ("pulse", let server?) where !server.isEmpty: self = .pulse(server: server)
        case ("alsa", let device?) where !device.isEmpty: self = .alsa(device: device)
        case ("wav", let path?) where !path.isEmpty: self = .wav(path: path)
        case ("wav", _):
            throw ParseError(message: "output \"\(argument)\": wav needs a file, as in wav:out.wav")
        default:
            throw ParseError(
                message: "unknown output \"\(argument)\": use auto, pulse[:SERVER], alsa[:DEVICE], "
                    + "wav:FILE, null or null:paced")
        }
    }

    /// The spelling that parses back to this choice.
    public var description: String {
        switch self {
        case .automatic: "auto"
        case .pulse(let server): server.map { "pulse:\($0)" } ?? "pulse"
        case .alsa(let device): "alsa:\(device)"
        case .wav(let path): "wav:\(path)"
        case .null(let paced): paced ? "null:paced" : "null"
        }
    }

    /// A new, unopened output for this choice. `.automatic` and `.pulse` first check (for at most
    /// half a second, or five for a named server, starting no server and printing nothing) that a
    /// PulseAudio server answers: `.pulse` throws `unavailable` if none does, `.automatic` takes
    /// ALSA's `default` device.
    public func makeOutput() throws(AudioOutputError) -> sending any AudioOutput {
        switch self {
        case .automatic:
            return PulseServerProbe.answers(server: nil, within: PulseServerProbe.automaticTimeoutSeconds)
                ? PulseAudioOutput() : ALSAOutput()
        case .pulse(let server):
            guard PulseServerProbe.answers(server: server, within: PulseServerProbe.namedServerTimeoutSeconds) else {
                throw AudioOutputError(
                    .unavailable, "\(PulseAudioOutput.name(of: server)): no server answers",
                    output: PulseAudioOutput.name(of: server))
            }
            return PulseAudioOutput(server: server)
        case .alsa(let device):
            return ALSAOutput(device: device)
        case .wav(let path):
            return WAVFileOutput(path: path)
        case .null(let paced):
            return NullOutput(paced: paced)
        }
    }
}
