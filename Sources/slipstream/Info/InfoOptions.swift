import SlipstreamHTTP

/// The options of `slipstream info`, parsed from its arguments. Pure.
struct InfoOptions: TargetOptions {
    static let command = "info"

    /// The URL (`http://`, `https://`) or local file to describe.
    var target: String?
    /// Print JSON instead of text.
    var json = false
    /// Read the whole file and count every packet.
    var exact = false
    /// The proxy for a URL, as `--proxy` gave it.
    var proxy: String?
    /// Extra request headers for a URL.
    var headers = HTTPHeaders()
    /// TLS trust, login and cookies for a URL.
    var access = AccessOptions()
    /// The variant of an HLS master playlist.
    var variant = HLSVariantOptions()
    /// Print the help and do nothing else.
    var help = false

    /// The help text.
    static let usage = """
        Usage: slipstream info [options] URL|FILE

        Describes an audio file or stream: format, bit rate, duration (and how it was found),
        tags, gapless delay and padding, and for a URL the server's Content-Type, size and range
        support. Reads only the head of the file (skipping large tags) and its last bytes.

        Options:
              --json                 print JSON instead of text
              --exact                read the whole file and count every packet (exact
                                     duration and bit rate without a Xing/VBRI header;
                                     WAV, AIFF and CAF audio is counted from its size)
              --proxy URL            use a proxy: http://, https://, socks4://, socks5://, socks5h://
          -H, --header 'Name: value' send an extra header (repeatable)
        \(HLSVariantOptions.usage)
        \(AccessOptions.usage)
          -h, --help                 show this help

        Exit status: 0 done, 2 usage error or bad URL, 3 network failure, 4 HTTP failure
        (status or broken ranges), 5 file cannot be read, 6 not audio or an unsupported format.
        """

    mutating func apply(_ name: String, inline: String?, reader: inout CommandLineArguments) throws(UsageError) {
        switch name {
        case "--json":
            try CommandLineArguments.flag(name, inline: inline)
            json = true
        case "--exact":
            try CommandLineArguments.flag(name, inline: inline)
            exact = true
        case "--proxy":
            proxy = try CommandLineArguments.proxy(try reader.value(for: name, inline: inline), for: name)
        case "-H", "--header":
            let header = try CommandLineArguments.header(try reader.value(for: name, inline: inline), for: name)
            headers.add(name: header.name, value: header.value)
        case "-h", "--help":
            help = true
        default:
            if try access.apply(name, inline: inline, reader: &reader) { return }
            if try variant.apply(name, inline: inline, reader: &reader) { return }
            throw UsageError("unknown option \(name) for info (see slipstream info --help)")
        }
    }
}
