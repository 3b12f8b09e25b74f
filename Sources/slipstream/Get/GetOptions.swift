import SlipstreamAudio
import SlipstreamDownload

/// The options of `slipstream get`, parsed from its arguments. Pure.
struct GetOptions {
    /// The URLs given as arguments (with `--same-file`: one file's URL, then its mirrors).
    var urls: [String] = []
    var sameFile = false
    /// `--hls`: the URL is an HLS playlist whose segments are downloaded and joined.
    var hls = false
    /// The variant of an HLS master playlist `--hls` downloads.
    var variant = HLSVariantOptions()
    var output: String?
    /// `-i FILE`: a list of downloads (`-` for standard input).
    var inputFile: String?
    /// `-j N`: downloads at once.
    var jobs = 5
    /// `-d DIR`: the folder of downloads without a folder of their own.
    var folder: String?
    /// `--save-session FILE`.
    var sessionFile: String?
    /// `--host-connections N`: connections to one host at once, over all downloads.
    var hostConnections = 16
    var quiet = false
    /// `--play[=OUT]`: the audio output the file plays to while it downloads.
    var play: AudioOutputChoice?
    var help = false
    var configuration = DownloadConfiguration()
    /// `--on-complete CMD`, `--on-error CMD`: run as each download ends.
    var onComplete: HookCommand?
    var onError: HookCommand?
    /// TLS trust, login and cookies (made into `configuration.access` when the command runs).
    var access = AccessOptions()
    /// SSH keys and known hosts, TLS for FTP (put into `configuration.access` with `access`).
    var remote = RemoteFileOptions()

    static let usage = """
        Usage: slipstream get [options] URL...
               slipstream get [options] URL MIRROR... --same-file
               slipstream get [options] -i FILE

        Downloads each URL (http, https, ftp, ftps, sftp) to a file over several connections
        where the server allows ranges.

        Options:
          -o, --output FILE          write to FILE (default: the server's file name, else the
                                     URL's last path segment, in the current folder)
          -o -                       write the bytes in order to standard output, still over
                                     several connections: ranges ahead of the writing are
                                     held in a 32 MiB reorder buffer, and connections that
                                     run further ahead wait for it (no resume: a stopped
                                     download starts over; progress goes to stderr)
              --force                replace FILE if it exists
          -N, --timestamping         fetch FILE again only if the server says it changed
                                     (If-Modified-Since from its time, If-None-Match from
                                     the ETag kept with it); implies --remote-time
              --remote-time          give FILE the server's Last-Modified time (and keep
                                     its ETag in the user.slipstream.etag attribute)
              --checksum ALG=HEX     verify the finished file before renaming it; ALG is
                                     sha256, sha1 or md5 (a mismatch leaves FILE.part)
              --max-filesize SIZE    refuse a file larger than SIZE (K, M, G): before its body
                                     when the server gives its size, else once it passes SIZE
                                     (what was written is removed)
              --no-continue          start over even if FILE.part can be resumed
              --trust-size           resume even without ETag or Last-Modified when the
                                     size and URL are the same
              --retries N            tries after a failure, per failure streak (default 5)
              --stall-timeout S      drop a connection silent for S seconds (default 20)
              --hls                  the URL is an HLS playlist (.m3u8): fetch every segment
                                     of its stream (a master playlist's variant chosen as
                                     play does), -n at once, and join them in order into
                                     FILE (default: the playlist's name with .ts), AES-128
                                     decrypted; a live playlist is refused; FILE.hls.part
                                     keeps the segments of an interrupted run, to resume
        \(HLSVariantOptions.usage)
              --same-file            the URLs are mirrors of one file: fetch it from all of
                                     them at once (the first defines the file; a mirror that
                                     serves another file or keeps failing is dropped)
          -n, --connections N        connections to use, 1 to 64 (default 8)
              --min-split-size SIZE  smallest range split off for another connection, with
                                     K, M or G (default 1M)
              --limit-rate RATE      receive at most RATE bytes per second in all, e.g. 500K
                                     or 8M (K, M, G: powers of 1024)
              --limit-rate-per-download RATE
                                     at most RATE bytes per second for each download
              --proxy URL            use a proxy: http://, https://, socks4://, socks5://, socks5h://
          -H, --header 'Name: value' send an extra header (repeatable)
              --user-agent TEXT      the User-Agent to send
              --connect-timeout S    seconds to wait for each connection (default 30)
          -4, --ipv4                 connect over IPv4 only
          -6, --ipv6                 connect over IPv6 only
        \(AccessOptions.usage)
        \(RemoteFileOptions.usage)
          -i, --input-file FILE      download the URLs listed in FILE (- for standard input):
                                     one per line (TAB-separated mirrors of one file), each
                                     followed by indented options out=NAME, dir=DIR,
                                     checksum=ALG=HEX; blank lines and # comments ignored
          -j, --jobs N               downloads at once, 1 to 100 (default 5)
          -d, --dir DIR              the folder for the files (default: the current folder)
              --host-connections N   connections to one host at once over all downloads,
                                     1 to 256 (default 16)
              --save-session FILE    keep the downloads not yet finished in FILE, in the -i
                                     format; get -i FILE --save-session FILE carries on
              --on-complete CMD      run CMD when a download completes, and
              --on-error CMD         when one fails: CMD is split into words as a shell
                                     would (quotes, backslashes) but run without one, with
                                     SLIPSTREAM_PATH, SLIPSTREAM_URL, SLIPSTREAM_STATUS (the
                                     exit status, 0 when complete) and, on an error,
                                     SLIPSTREAM_MESSAGE in its environment
              --play[=OUT]           play the file while it downloads (as play URL --keep
                                     FILE does): to OUT (pulse, alsa, alsa:DEVICE,
                                     wav:FILE, null, null:paced; default as play's)
          -q, --quiet                print nothing but errors
          -h, --help                 show this help

        A download that stops (failure, Ctrl-C, kill) keeps FILE.part and its resume record
        FILE.part.slipstream; the same command resumes it, after proving with If-Range that
        the remote file is unchanged (else it starts over).

        With several downloads: one status line per running download and a total line on a
        terminal, one line per finished download otherwise; the exit status is that of the
        first failure, after a summary of the failures.

        Exit status: 0 done, 2 usage error or bad URL, 3 network failure, 4 HTTP failure
        (status or broken ranges), 5 file or disk failure (output path, no space, write error),
        7 checksum mismatch, 9 larger than --max-filesize, 141 the reader of -o - closed
        it early (as with SIGPIPE, without a message), 130 interrupted (SIGINT),
        143 terminated (SIGTERM).
        """

    /// Where the one download goes: standard output for `-o -`, the file `-o` names, else
    /// the folder (`-d`, or the current one).
    var destination: DownloadDestination {
        switch output {
        case "-": .standardOutput
        case let path?: .file(path)
        case nil: .folder(folder ?? ".")
        }
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> GetOptions {
        var options = GetOptions()
        var reader = CommandLineArguments(arguments)
        while let token = reader.next() {
            switch token {
            case .positional(let value):
                options.urls.append(value)
            case .option(let name, let inline):
                try options.apply(name, inline: inline, reader: &reader)
            }
        }
        guard !options.help else { return options }
        if options.urls.isEmpty, options.inputFile == nil { throw UsageError("get needs a URL") }
        if options.sameFile {
            guard options.urls.count >= 2 else { throw UsageError("--same-file needs two or more URLs of the same file") }
            guard options.inputFile == nil else {
                throw UsageError(
                    "--same-file is for URLs given as arguments; in an -i file, put a file's mirrors on its line, TAB-separated")
            }
            options.configuration.mirrors = Array(options.urls.dropFirst())
        }
        if options.hls, options.urls.count != 1 || options.isMany || options.configuration.checksum != nil {
            throw UsageError("--hls downloads one playlist's stream: give one URL, without -i, --same-file or --checksum")
        }
        if !options.hls, options.variant != HLSVariantOptions() {
            throw UsageError("--max-bitrate and --variant choose the variant --hls downloads: give --hls too")
        }
        if options.output != nil, options.isMany {
            throw UsageError("-o names the file of one URL; with several, use -d DIR (and out= in an -i file)")
        }
        if options.play != nil, options.isMany || options.hls || options.output == "-" {
            throw UsageError("--play plays one file while it downloads: give one URL, without -i, --hls or -o -")
        }
        if options.output == "-" {
            if options.configuration.checksum != nil { throw UsageError("--checksum checks a file; it cannot with -o -") }
            if options.configuration.timestamping { throw UsageError("-N compares a file already there; -o - has none") }
        }
        return options
    }

    /// The one URL of a single download, as before queues.
    var url: String? { urls.first }

    /// The runner of the hooks these options give.
    var hooks: HookRunner { HookRunner(onComplete: onComplete, onError: onError) }

    /// Whether this is a queue of downloads: several URLs (not of one file), an input file or
    /// a session.
    var isMany: Bool { urls.count > 1 && !sameFile || inputFile != nil || sessionFile != nil }

    private mutating func apply(_ name: String, inline: String?, reader: inout CommandLineArguments) throws(UsageError) {
        switch name {
        case "-o", "--output":
            output = try reader.value(for: name, inline: inline)
            if output!.isEmpty { throw UsageError("\(name) needs a file name") }
        case "--force":
            try CommandLineArguments.flag(name, inline: inline)
            configuration.overwrite = true
        case "--checksum":
            configuration.checksum = try CommandLineArguments.checksum(try reader.value(for: name, inline: inline), for: name)
        case "-N", "--timestamping":
            try CommandLineArguments.flag(name, inline: inline)
            configuration.timestamping = true
        case "--remote-time":
            try CommandLineArguments.flag(name, inline: inline)
            configuration.remoteTime = true
        case "--max-filesize":
            configuration.maxFileSize = try CommandLineArguments.byteSize(try reader.value(for: name, inline: inline), for: name)
        case "--no-continue":
            try CommandLineArguments.flag(name, inline: inline)
            configuration.resume = false
        case "--trust-size":
            try CommandLineArguments.flag(name, inline: inline)
            configuration.trustSize = true
        case "--retries":
            configuration.retries = try CommandLineArguments.integer(
                try reader.value(for: name, inline: inline), for: name, in: 0...100)
        case "--stall-timeout":
            configuration.stallTimeout = .seconds(
                try CommandLineArguments.seconds(try reader.value(for: name, inline: inline), for: name))
        case "--same-file":
            try CommandLineArguments.flag(name, inline: inline)
            sameFile = true
        case "--hls":
            try CommandLineArguments.flag(name, inline: inline)
            hls = true
        case "-n", "--connections":
            configuration.connections = try CommandLineArguments.integer(
                try reader.value(for: name, inline: inline), for: name, in: 1...64)
        case "--min-split-size":
            configuration.minimumSplitSize = try CommandLineArguments.byteSize(
                try reader.value(for: name, inline: inline), for: name)
        case "--limit-rate":
            configuration.sharedRateLimiter = RateLimiter(
                bytesPerSecond: try CommandLineArguments.byteSize(
                    try reader.value(for: name, inline: inline), for: name))
        case "--limit-rate-per-download":
            configuration.bytesPerSecondLimit = try CommandLineArguments.byteSize(
                try reader.value(for: name, inline: inline), for: name)
        case "--proxy":
            configuration.proxy = try CommandLineArguments.proxy(try reader.value(for: name, inline: inline), for: name)
        case "-H", "--header":
            let header = try CommandLineArguments.header(try reader.value(for: name, inline: inline), for: name)
            configuration.headers.add(name: header.name, value: header.value)
        case "--user-agent":
            configuration.userAgent = try reader.value(for: name, inline: inline)
        case "-4", "--ipv4":
            try CommandLineArguments.flag(name, inline: inline)
            configuration.ipVersion = .v4
        case "-6", "--ipv6":
            try CommandLineArguments.flag(name, inline: inline)
            configuration.ipVersion = .v6
        case "--connect-timeout":
            configuration.connectTimeout = .seconds(
                try CommandLineArguments.seconds(try reader.value(for: name, inline: inline), for: name))
        case "--on-complete":
            onComplete = try HookCommand(parsing: try reader.value(for: name, inline: inline), for: name)
        case "--on-error":
            onError = try HookCommand(parsing: try reader.value(for: name, inline: inline), for: name)
        case "--play":
            do {
                play = try inline.map { text throws(AudioOutputChoice.ParseError) in try AudioOutputChoice(parsing: text) } ?? .automatic
            } catch {
                throw UsageError("--play: \(error.message)")
            }
        case "-q", "--quiet":
            try CommandLineArguments.flag(name, inline: inline)
            quiet = true
        case "-i", "--input-file":
            inputFile = try reader.value(for: name, inline: inline)
        case "-j", "--jobs":
            jobs = try CommandLineArguments.integer(try reader.value(for: name, inline: inline), for: name, in: 1...100)
        case "-d", "--dir":
            folder = try reader.value(for: name, inline: inline)
            if folder!.isEmpty { throw UsageError("\(name) needs a folder") }
        case "--host-connections":
            hostConnections = try CommandLineArguments.integer(
                try reader.value(for: name, inline: inline), for: name, in: 1...256)
        case "--save-session":
            sessionFile = try reader.value(for: name, inline: inline)
            if sessionFile!.isEmpty { throw UsageError("\(name) needs a file name") }
        case "-h", "--help":
            help = true
        default:
            if try access.apply(name, inline: inline, reader: &reader) { return }
            if try variant.apply(name, inline: inline, reader: &reader) { return }
            if try remote.apply(name, inline: inline, reader: &reader) { return }
            throw UsageError("unknown option \(name) for get (see slipstream get --help)")
        }
    }
}
