import Foundation

/// Reference decodes by other programs, run in the test's work folder, each waited for off the
/// Swift concurrency pool.
public enum ReferenceDecoder {
    /// `mpg123 --gapless -w` of `file` (with `-e f32` for floats; `--no-gapless` when not
    /// `gapless`): the PCM bytes of its WAV.
    public static func mpg123(_ file: String, float: Bool = false, gapless: Bool = true) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out.wav"
        try await ExternalProgram.run(
            ["mpg123", "-q", gapless ? "--gapless" : "--no-gapless"] + (float ? ["-e", "f32"] : []) + ["-w", out, file])
        return try wavData(out)
    }

    /// `ffmpeg -i FILE -f s16le` (or f32le): raw PCM bytes.
    public static func ffmpeg(_ file: String, float: Bool = false) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out.raw"
        try await ExternalProgram.run(["ffmpeg", "-v", "error", "-y", "-i", file, "-f", float ? "f32le" : "s16le", out])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// `pcm` (native 16-bit samples, `channels` interleaved, at `rate` Hz) resampled to
    /// `targetRate` by ffmpeg's own resampler (libswresample's default, not libsoxr), the
    /// channels unchanged: the PCM bytes.
    public static func ffmpegResampled(_ pcm: [UInt8], rate: Int, channels: Int, to targetRate: Int) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/in.raw", out = folder + "/out.raw"
        try Data(pcm).write(to: URL(fileURLWithPath: input))
        try await ExternalProgram.run([
            "ffmpeg", "-v", "error", "-y", "-f", "s16le", "-ar", "\(rate)", "-ac", "\(channels)", "-i", input,
            "-ar", "\(targetRate)", "-f", "s16le", out,
        ])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// `sox -D FILE -b 16 -e signed-integer out.wav` (no dither; 32-bit floats instead when
    /// `float`): the PCM bytes.
    public static func sox(_ file: String, float: Bool = false) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out.wav"
        try await ExternalProgram.run(
            ["sox", "-D", file] + (float ? ["-b", "32", "-e", "floating-point"] : ["-b", "16", "-e", "signed-integer"]) + [out])
        return try wavData(out)
    }

    /// `faad -o out.wav FILE` (ADTS or MP4): the PCM bytes (a mono core as two equal channels
    /// where faad takes it for HE-AAC). Each run in a folder of its own: two tests decoding the
    /// same file at once must not share an output name.
    public static func faad(_ file: String) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out.wav"
        try await ExternalProgram.run(["faad", "-q", "-o", out, file])
        return try wavData(out)
    }

    /// `flac -d FILE`: the PCM bytes, at the stream's own bit depth.
    public static func flac(_ file: String) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out.wav"
        try await ExternalProgram.run(["flac", "-d", "-s", "-f", "-o", out, file])
        return try wavData(out)
    }

    /// The `data` chunk of a little-endian WAV file.
    public static func wavData(_ path: String) throws -> [UInt8] {
        let wav = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var i = 12
        while i + 8 <= wav.count {
            let size = Int(wav[i + 4]) | Int(wav[i + 5]) << 8 | Int(wav[i + 6]) << 16 | Int(wav[i + 7]) << 24
            if wav[i..<i + 4].elementsEqual("data".utf8) { return Array(wav[(i + 8)..<min(i + 8 + size, wav.count)]) }
            i += 8 + size + size % 2
        }
        throw CocoaError(.fileReadCorruptFile)
    }
}
