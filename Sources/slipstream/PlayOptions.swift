import SlipstreamAudio
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

        Exit status: 0 played to the end or quit, 2 usage error or bad URL, 3 network failure
        or timeout, 4 HTTP failure, 5 file cannot be read, saved or recorded, 6 not audio or
        an unsupported format, 8 audio output or decoder failure, 130/143 SIGINT/SIGTERM.
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

    /// Parses `90`, `12.5`, `1:30` or `1:02:03.5` as seconds.
    static func time(_ text: String, for option: String) throws(UsageError) -> Double {
        let failure = UsageError("\(option) must be seconds (90, 12.5) or [h:]m:ss (1:30), not '\(text)'")
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 3, let last = Double(parts.last!), last >= 0, last.isFinite else { throw failure }
        if parts.count == 1 { return last }
        guard last < 60 else { throw failure }
        var seconds = 0.0
        for (i, part) in parts.dropLast().enumerated() {
            guard let value = Int(part), value >= 0, i == 0 || value < 60 else { throw failure }
            seconds = seconds * 60 + Double(value)
        }
        return seconds * 60 + last
    }

    /// Parses `512K`, `2M`, `30s` or `unlimited`.
    static func buffer(_ text: String, for option: String) throws(UsageError) -> AudioStreamerConfiguration.BufferLimit {
        if text == "unlimited" { return .unlimited }
        if text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds > 0, seconds.isFinite {
            return .seconds(seconds)
        }
        do {
            return .bytes(Int(try CommandLineArguments.byteSize(text, for: option)))
        } catch {
            throw UsageError("\(option) must be a size (512K, 2M), seconds (30s) or 'unlimited', not '\(text)'")
        }
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
