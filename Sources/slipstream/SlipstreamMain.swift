#if canImport(Glibc)
import Glibc
#endif
import SlipstreamHTTP

/// The `slipstream` command: dispatches to its subcommands.
@main
enum SlipstreamMain {
    static let usage = """
        Usage: slipstream COMMAND [options]

        Commands:
          get URL      download URL over several connections (slipstream get --help)
          play URL     play audio while it streams (slipstream play --help)
          info URL     describe an audio URL or file: format, bit rate, duration, tags (slipstream info --help)
          daemon       a download service for aria2's clients, with a page of its own (slipstream daemon --help)

        Options: -h/--help, --version
        """

    static func main() async {
        // An argument that is not UTF-8 (a file name in another encoding) would reach the command
        // changed, each bad byte a U+FFFD, and name another file: refused, saying which.
        if let index = (1..<Int(CommandLine.argc)).first(where: { !isUTF8(CommandLine.unsafeArgv[$0]) }) {
            Terminal.error(
                "argument \(index) ('\(CommandLine.arguments[index])') is not UTF-8, as a file name in another "
                    + "encoding may be: rename the file, or give a link to it with a UTF-8 name")
            exit(ExitStatus.usage.rawValue)
        }
        // Past `ulimit -f`, a write fails with EFBIG (a clear disk error) instead of the
        // process dying by SIGXFSZ without a word.
        signal(SIGXFSZ, SIG_IGN)
        var arguments = Array(CommandLine.arguments.dropFirst())
        // A URL: libcurl loads while the rest starts (a local file's run never loads it).
        if arguments.contains(where: { $0.contains("://") }) { HTTPEngine.prepare() }
        let status: ExitStatus
        switch arguments.first {
        case "get":
            arguments.removeFirst()
            status = await GetCommand.run(arguments)
        case "play":
            arguments.removeFirst()
            status = await PlayCommand.run(arguments)
        case "info":
            arguments.removeFirst()
            status = await InfoCommand.run(arguments)
        case "daemon":
            arguments.removeFirst()
            // libcurl loads with the first download: an idle daemon does without it.
            status = await DaemonCommand.run(arguments)
        case "-h", "--help", "help":
            print(usage)
            status = .success
        case "--version":
            print("slipstream \(SlipstreamVersion.string)")
            status = .success
        case nil:
            Terminal.error("no command given")
            Terminal.write(usage + "\n")
            status = .usage
        case let other?:
            Terminal.error("unknown command '\(other)' (see slipstream --help)")
            status = .usage
        }
        // (A run that ends at once, say on a usage error, may end while libcurl still loads.)
        HTTPEngine.settle()
        exit(status.rawValue)
    }

    /// Whether the C string `argument` is valid UTF-8.
    private static func isUTF8(_ argument: UnsafeMutablePointer<CChar>?) -> Bool {
        guard let argument else { return true }
        let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument))
        return String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil
    }
}
