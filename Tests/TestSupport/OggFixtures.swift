import Foundation

/// Ogg files made once per test run with Debian's encoders (oggenc, opusenc) from sox's
/// sweep and noise, a few seconds each; the reference decodes come from oggdec and opusdec.
public enum OggFixtures {
    /// The folder holding them (made on first use; `nil` when an encoder is missing).
    public static let folder: String? = try? make()

    /// Whether they could be made, made on the first call off the Swift concurrency pool (some
    /// 25 encoder runs, seconds): for the suites' conditions, which the pool evaluates.
    public static func made() async -> Bool { (try? await offPool { folder != nil }) ?? false }

    /// Fixture names, by codec (3 s or less; the chained ones are 3 s and 1.3 s; the 5.1 one has
    /// a tone of its own in each channel, so that channels out of order fail). Also
    /// `vorbis-long.ogg` and `opus-long.opus`: 40 s, for reads of part of a file.
    public static let vorbis = ["vorbis-q3.ogg", "vorbis-mono-22050.ogg", "vorbis-chained.ogg", "vorbis-5.1.ogg"]
    public static let opus = ["opus-64k.opus", "opus-mono-24k.opus", "opus-chained.opus", "opus-short.opus", "opus-5.1.opus"]

    /// The path of fixture `name`.
    public static func path(_ name: String) throws -> String {
        guard let folder else { throw CocoaError(.fileNoSuchFile) }
        return folder + "/" + name
    }

    /// The bytes of fixture `name`.
    public static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try path(name))))
    }

    /// The reference decoder's 16-bit PCM of fixture `name`, channels in WAV order: `oggdec`
    /// for Vorbis, `opusdec --no-dither --rate 48000` for Opus.
    public static func reference(_ name: String) async throws -> [UInt8] {
        try await reference(path: try path(name))
    }

    /// The reference decoder's 16-bit PCM of the Ogg file at `file` (Opus when its name ends
    /// in `.opus`, else Vorbis), as `reference(_:)`.
    public static func reference(path file: String) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        if file.hasSuffix(".opus") {
            let out = folder + "/out.wav"
            try await ExternalProgram.run(["opusdec", "--quiet", "--no-dither", "--rate", "48000", file, out])
            return try ReferenceDecoder.wavData(out)
        }
        let out = folder + "/out.pcm"
        // oggdec's WAV output lays 5.1 out wrongly (FL FR FC BR LFE BL, vorbis-tools 1.4.2; ffmpeg
        // and the specification agree on FL FR FC LFE BL BR); its raw output keeps the stream's
        // own order, laid out here by the channels' names.
        try await ExternalProgram.run(["oggdec", "--quiet", "--raw", "-o", out, file])
        let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        // The identification header, alone on the first page: its channel count is byte 11.
        let channels = Int(bytes[27 + Int(bytes[26]) + 11])
        return wavOrder(fromVorbis: raw, channels: channels)
    }

    /// The Vorbis I specification's channel orders (section 4.3.9) and WAV's, by name.
    private static let vorbisNames = [6: ["FL", "FC", "FR", "BL", "BR", "LFE"]]
    private static let wavNames = [6: ["FL", "FR", "FC", "LFE", "BL", "BR"]]

    /// 16-bit PCM in Vorbis order laid out in WAV order (as it is for 1, 2 and 4 channels).
    static func wavOrder(fromVorbis pcm: [UInt8], channels: Int) -> [UInt8] {
        guard let vorbis = vorbisNames[channels], let wav = wavNames[channels] else { return pcm }
        let sources = wav.map { vorbis.firstIndex(of: $0)! }
        var out = pcm
        for frame in stride(from: 0, to: pcm.count, by: 2 * channels) {
            for (channel, source) in sources.enumerated() {
                out[frame + 2 * channel] = pcm[frame + 2 * source]
                out[frame + 2 * channel + 1] = pcm[frame + 2 * source + 1]
            }
        }
        return out
    }

    private static func make() throws -> String {
        let folder = try TestFiles.makeTemporaryFolder()
        func run(_ arguments: [String]) throws { try ExternalProgram.runBlocking(arguments) }
        func source(_ name: String, rate: Int, channels: Int, seconds: Double, tone: String) throws {
            try run([
                "sox", "-R", "-D", "-n", "-r", "\(rate)", "-c", "2", "-b", "16", folder + "/s.wav", "synth", "\(seconds)",
                "sine", tone, "pinknoise", "gain", "-6",
            ])
            try run(["sox", "-R", "-D", folder + "/s.wav", folder + "/" + name] + (channels == 1 ? ["remix", "1"] : []))
        }
        try source("a.wav", rate: 44100, channels: 2, seconds: 3, tone: "220-3520")
        try source("b.wav", rate: 44100, channels: 2, seconds: 1.3, tone: "440")
        try source("m.wav", rate: 22050, channels: 1, seconds: 2, tone: "300-900")
        try source("short.wav", rate: 48000, channels: 2, seconds: 0.01, tone: "1000")
        try source("long.wav", rate: 44100, channels: 2, seconds: 40, tone: "100-8000")
        let f = { (name: String) in folder + "/" + name }
        try run(
            ["sox", "-R", "-D", "-n", "-r", "48000", "-c", "6", "-b", "16", f("surround.wav"), "synth", "2"]
                + [200, 300, 400, 60, 600, 700].flatMap { ["sine", "\($0)"] } + ["gain", "-9"])
        let tags = ["-t", "First Song", "-a", "Some Artist", "-l", "Some Album"]
        try run(["oggenc", "-Q", "-q", "3", "-s", "1"] + tags + ["-o", f("vorbis-q3.ogg"), f("a.wav")])
        try run(["oggenc", "-Q", "-q", "1", "-s", "2", "-o", f("vorbis-mono-22050.ogg"), f("m.wav")])
        try run(["oggenc", "-Q", "-q", "3", "-s", "3", "-t", "Second Song", "-a", "Other Artist", "-o", f("b.ogg"), f("b.wav")])
        try run([
            "opusenc", "--quiet", "--bitrate", "64", "--serial", "4", "--title", "First Song", "--artist", "Some Artist",
            "--album", "Some Album", f("a.wav"), f("opus-64k.opus"),
        ])
        try run(["opusenc", "--quiet", "--bitrate", "24", "--serial", "5", f("m.wav"), f("opus-mono-24k.opus")])
        try run([
            "opusenc", "--quiet", "--bitrate", "48", "--serial", "6", "--title", "Second Song", "--artist", "Other Artist",
            f("b.wav"), f("b.opus"),
        ])
        try run(["opusenc", "--quiet", "--serial", "7", f("short.wav"), f("opus-short.opus")])
        try run(["opusenc", "--quiet", "--bitrate", "256", "--serial", "10", f("surround.wav"), f("opus-5.1.opus")])
        try run(["oggenc", "-Q", "-q", "3", "-s", "11", "-o", f("vorbis-5.1.ogg"), f("surround.wav")])
        try run(["oggenc", "-Q", "-q", "6", "-s", "8", "-t", "Long", "-o", f("vorbis-long.ogg"), f("long.wav")])
        try run(["opusenc", "--quiet", "--bitrate", "96", "--serial", "9", f("long.wav"), f("opus-long.opus")])
        for (chained, parts) in [("vorbis-chained.ogg", ["vorbis-q3.ogg", "b.ogg"]), ("opus-chained.opus", ["opus-64k.opus", "b.opus"])] {
            var joined = Data()
            for part in parts { joined += try Data(contentsOf: URL(fileURLWithPath: f(part))) }
            try joined.write(to: URL(fileURLWithPath: f(chained)))
        }
        return folder
    }
}
