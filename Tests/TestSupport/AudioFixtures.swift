import Foundation

/// The audio fixtures `scripts/make-audio-fixtures.sh` generates, and the reference figures it
/// recorded from mpg123/ffprobe/soxi. The directory comes from `SLIPSTREAM_TEST_AUDIO`, or is
/// made on first use under a plain `swift test` (see `TestServices`).
public enum AudioFixtures {
    /// One line of `reference.tsv`.
    public struct Reference: Sendable, CustomStringConvertible {
        /// File name, e.g. `mp3-cbr128.mp3`.
        public var name: String
        /// `mpeg`, `adts` or `wav`.
        public var kind: String
        /// Packets (MPEG/ADTS frames, the Xing frame excluded); `nil` for WAV.
        public var packets: Int?
        /// Frames (samples per channel) the reference decoder output, after gapless trimming (at
        /// `sampleRate`).
        public var samples: Int64
        /// ffprobe's duration in seconds; `nil` where it cannot tell (free-format Layer II).
        public var duration: Double?
        /// Sample rate (Hz) and channels the reference decoder output; for ADTS at a core rate of
        /// 24 kHz or less, twice the core rate and a mono core in stereo, as the player decodes it.
        public var sampleRate: Int
        public var channels: Int
        /// Tags ffprobe read; `nil` when absent.
        public var title: String?
        public var artist: String?
        public var album: String?

        public var description: String { name }
    }

    /// The fixture directory, or `nil` when there are no fixtures and they cannot be made.
    public static var directory: URL? {
        TestServices.audioFixtures.map { URL(fileURLWithPath: $0) }
    }

    /// Every fixture's reference line; empty when there are no fixtures.
    public static let references: [Reference] = {
        guard let directory, let text = try? String(contentsOf: directory.appendingPathComponent("reference.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 10, let samples = Int64(f[3]), let rate = Int(f[5]), let channels = Int(f[6])
            else { return nil }
            let tag = { (s: String) in s == "-" ? nil : s }
            // ffmpeg decodes ADTS without SBR at its core rate; the player, as libfaad2, decodes
            // a core rate of 24 kHz or less at twice it, a mono core in stereo (ADTS cannot
            // signal SBR or parametric stereo): twice the frames.
            let twice = f[1] == "adts" && rate <= 24000 ? 2 : 1
            return Reference(
                name: f[0], kind: f[1], packets: Int(f[2]), samples: samples * Int64(twice), duration: Double(f[4]),
                sampleRate: rate * twice, channels: twice == 2 ? max(channels, 2) : channels, title: tag(f[7]),
                artist: tag(f[8]), album: tag(f[9]))
        }
    }()

    /// The bytes of fixture `name`.
    public static func bytes(_ name: String) throws -> [UInt8] {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        return [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The path of fixture `name` (throws when there are no fixtures).
    public static func path(_ name: String) throws -> String {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        return directory.appendingPathComponent(name).path
    }

    /// Fixture `name` copied (once per test run) into the folder nginx serves; its URL.
    public static func served(_ name: String) throws -> String {
        let target = try TestNginx.filesFolder() + "/audio-" + name
        if !FileManager.default.fileExists(atPath: target) {
            // Tests run in parallel: copied under a name of its own, then renamed into place, so
            // nginx never serves half a fixture.
            let temporary = target + ".tmp\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.copyItem(atPath: try path(name), toPath: temporary)
            guard rename(temporary, target) == 0 else { throw POSIXError(.EIO) }
        }
        return try TestNginx.url("audio-" + name)
    }
}
