import SlipstreamAudio
import SlipstreamDownload
import SlipstreamHTTP

/// The options of `slipstream play`, parsed from its arguments. Pure.
struct PlayOptions: TargetOptions {
    static let command = "play"

    /// The URL (`http://`, `https://`) or local file to play.
    var target: String?
    /// Where the sound goes; `nil` for the default (PulseAudio if a server answers, else ALSA).
    var output: AudioOutputChoice?
    /// Seconds to start at.
    var start: Double?
    /// Where to save the original bytes while playing.
    var save: String?
    /// A folder for a file per radio title, or one file, to record the audio into.
    var record: String?
    /// The file the URL is downloaded into, whole, while it plays.
    var keep: String?
    /// The connections `--keep` downloads over (`-n`); nil: `get`'s default.
    var connections: Int?
    /// The digest `--keep`'s file must have before it is renamed into place.
    var checksum: Checksum?
    /// Replace the files `--save`, `--record FILE` and `--output wav:FILE` name when they exist.
    var force = false
    /// Events as JSON lines on standard output instead of the status line.
    var json = false
    /// Volume from 0 to 100 (percent).
    var volume = 100
    /// The packet queue's limit.
    var buffer = AudioStreamerConfiguration.BufferLimit.seconds(30)
    /// Reconnects of a live stream in all; nil: for as long as it plays.
    var reconnect: Int?
    /// The proxy for a URL.
    var proxy: String?
    /// Extra request headers for a URL.
    var headers = HTTPHeaders()
    /// TLS trust, login and cookies for a URL.
    var access = AccessOptions()
    /// The variant of an HLS master playlist.
    var variant = HLSVariantOptions()
    /// No status line, no messages but errors.
    var quiet = false
    /// Print the help and do nothing else.
    var help = false

    /// The help text.
    static let usage = """
        Usage: slipstream play [options] URL|FILE

        Plays MP3 (MPEG audio), AAC (ADTS, MP4/M4A/M4B), FLAC, Ogg Vorbis, Opus or FLAC,
        WAV, AIFF or CAF while it streams. On a terminal a status line shows the station and
        the title; space pauses and resumes, left/right seek -10/+10 s, up/down change the
        volume, q quits.

        Options:
              --output OUT           pulse, alsa, alsa:DEVICE, wav:FILE, null (as fast as
                                     possible) or null:paced (real time); default: PulseAudio
                                     when a server answers, else ALSA's default device
              --start TIME           start at TIME: seconds (90, 12.5) or [h:]m:ss (1:30)
              --save FILE            save the original bytes as they arrive (a playable copy
                                     when the whole stream was received)
              --record DIR|FILE      record the audio: into DIR (an existing folder, or a
                                     path ending in /) a file per radio title, named after
                                     it and tagged; else all of it into FILE
              --keep FILE            download the whole file into FILE over several
                                     connections while it plays, segmented and resumable as
                                     `get` does (seeks into fetched bytes play at once; an
                                     interrupted run resumes; FILE once complete plays with
                                     no network); an HLS stream that has ended is kept as
                                     get --hls keeps it, joined at the end; a live stream,
                                     another playlist or a server without ranges plays
                                     without it (--record records)
          -n, --connections N        connections --keep downloads over, 1 to 64 (default 8)
              --checksum ALG=HEX     the digest --keep's FILE must have (sha256, sha1, md5),
                                     checked before it is renamed from FILE.part (exit 7)
              --force                replace the file --save, --record FILE or --output
                                     wav:FILE names if it exists (never the file played)
              --json                 write every event as a JSON line on standard output
                                     (no status line)
              --volume PERCENT       0 to 100 (default 100)
              --buffer SIZE          audio queued ahead: a size (512K, 2M), seconds (30s), or
                                     'unlimited' to keep the whole stream (default 30s)
              --reconnect N          reconnect a live stream (a radio station) at most N times
                                     after it ends or drops (default: for as long as it plays;
                                     0: a live stream ends with its response)
              --proxy URL            use a proxy: http://, https://, socks4://, socks5://, socks5h://
          -H, --header 'Name: value' send an extra header (repeatable)
        \(HLSVariantOptions.usage)
        \(AccessOptions.usage)
          -q, --quiet                no status line
          -h, --help                 show this help

        Frames that cannot be decoded are played as silence and counted on standard error;
        when more than half of them cannot (of at least 64, or of the whole stream), playback
        stops with exit status 6.

        Exit status: 0 played to the end or quit, 2 usage error or bad URL, 3 network failure
        or timeout, 4 HTTP failure, 5 file cannot be read, saved or recorded, 6 not audio, an
        unsupported format, or most of its frames could not be decoded, 8 audio output or
        decoder failure, 130/143 SIGINT/SIGTERM.
        """

    mutating func apply(_ name: String, inline: String?, reader: inout CommandLineArguments) throws(UsageError) {
        switch name {
        case "--output":
            let text = try reader.value(for: name, inline: inline)
            do {
                output = try AudioOutputChoice(parsing: text)
            } catch {
                throw UsageError("--output: \(error.message)")
            }
        case "--start":
            start = try Self.time(try reader.value(for: name, inline: inline), for: name)
        case "--save":
            save = try reader.value(for: name, inline: inline)
        case "--record":
            record = try reader.value(for: name, inline: inline)
        case "--keep":
            keep = try reader.value(for: name, inline: inline)
        case "-n", "--connections":
            connections = try CommandLineArguments.integer(try reader.value(for: name, inline: inline), for: name, in: 1...64)
        case "--checksum":
            checksum = try CommandLineArguments.checksum(try reader.value(for: name, inline: inline), for: name)
        case "--force":
            try CommandLineArguments.flag(name, inline: inline)
            force = true
        case "--json":
            try CommandLineArguments.flag(name, inline: inline)
            json = true
        case "--volume":
            volume = try CommandLineArguments.integer(try reader.value(for: name, inline: inline), for: name, in: 0...100)
        case "--buffer":
            buffer = try Self.buffer(try reader.value(for: name, inline: inline), for: name)
        case "--reconnect":
            reconnect = try CommandLineArguments.integer(try reader.value(for: name, inline: inline), for: name, in: 0...1_000_000)
        case "--proxy":
            proxy = try CommandLineArguments.proxy(try reader.value(for: name, inline: inline), for: name)
        case "-H", "--header":
            let header = try CommandLineArguments.header(try reader.value(for: name, inline: inline), for: name)
            headers.add(name: header.name, value: header.value)
        case "-q", "--quiet":
            try CommandLineArguments.flag(name, inline: inline)
            quiet = true
        case "-h", "--help":
            help = true
        default:
            if try access.apply(name, inline: inline, reader: &reader) { return }
            if try variant.apply(name, inline: inline, reader: &reader) { return }
            throw UsageError("unknown option \(name) for play (see slipstream play --help)")
        }
    }

    /// Parses `90`, `12.5`, `1:30` or `1:02:03.5` as seconds: decimal numbers only (no hex, no
    /// exponent), up to `Duration.maximumSeconds`.
    static func time(_ text: String, for option: String) throws(UsageError) -> Double {
        let failure = UsageError(
            "\(option) must be seconds (90, 12.5) or [h:]m:ss (1:30), up to \(Int(Duration.maximumSeconds)) s, not '\(text.printable)'")
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 3, let last = Double(decimalText: parts.last!) else { throw failure }
        var seconds = 0.0
        if parts.count > 1 {
            guard last < 60 else { throw failure }
            for (i, part) in parts.dropLast().enumerated() {
                guard let value = Int64(decimalDigits: part), i == 0 || value < 60 else { throw failure }
                seconds = seconds * 60 + Double(value)
            }
        }
        let time = seconds * 60 + last
        guard time <= Duration.maximumSeconds else { throw failure }
        return time
    }

    /// The largest queue `--buffer` takes in bytes: 1 GiB, allocated when playback starts.
    static let maximumBufferBytes: Int64 = 1 << 30

    /// Parses `512K`, `2M`, `30s` or `unlimited` (at most 1G, or 3600s).
    static func buffer(_ text: String, for option: String) throws(UsageError) -> AudioStreamerConfiguration.BufferLimit {
        let failure = UsageError(
            "\(option) must be a size (512K, 2M) up to 1G, seconds (30s) up to 3600s, or 'unlimited', not '\(text.printable)'")
        if text == "unlimited" { return .unlimited }
        if text.hasSuffix("s") {
            guard let seconds = Double(decimalText: text.dropLast()), seconds > 0, seconds <= 3600 else { throw failure }
            return .seconds(seconds)
        }
        guard let bytes = try? CommandLineArguments.byteSize(text, for: option), bytes <= maximumBufferBytes else { throw failure }
        return .bytes(Int(bytes))
    }

    /// The downloader `--keep` downloads with: `-n`, `--checksum`, the proxy, the headers and
    /// `access`.
    func keepingDownloader(access: TransferAccess) -> Downloader {
        var configuration = DownloadConfiguration()
        if let connections { configuration.connections = connections }
        configuration.checksum = checksum
        configuration.proxy = proxy
        configuration.headers = headers
        configuration.access = access
        return Downloader(configuration: configuration)
    }

    /// The streamer's configuration for these options.
    var configuration: AudioStreamerConfiguration {
        var configuration = AudioStreamerConfiguration()
        configuration.bufferLimit = buffer
        configuration.liveReconnectAttempts = reconnect
        // Only --json writes progress events; the status line reads the progress itself.
        configuration.progressInterval = json ? .milliseconds(250) : nil
        configuration.proxy = proxy
        configuration.headers = headers
        configuration.volume = Double(volume) / 100
        configuration.startTime = start.map { .seconds($0) }
        configuration.hlsVariant = variant.selection
        let choice = output ?? .automatic
        configuration.output = { () throws(AudioOutputError) -> any AudioOutput in try choice.makeOutput() }
        return configuration
    }
}
