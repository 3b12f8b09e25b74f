#if canImport(Glibc)
import Glibc
#endif
import SlipstreamDaemon

/// `slipstream daemon`: the download service, until SIGTERM, SIGINT or aria2's `shutdown`.
enum DaemonCommand {
    static func run(_ arguments: [String]) async -> ExitStatus {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments)
        } catch {
            Terminal.usageError(error, usage: DaemonOptions.usage)
            return .usage
        }
        if options.help {
            print(DaemonOptions.usage)
            return .success
        }
        if !options.ignored.isEmpty {
            Terminal.error("ignored (they mean nothing here): " + options.ignored.map { "--" + $0 }.joined(separator: ", "))
        }
        var list: DownloadList?
        if let input = options.inputFile {
            do {
                list = try DownloadDaemon.readList(input)
            } catch {
                Terminal.error(error.message)
                return .usage
            }
        }
        let daemon: DownloadDaemon
        do {
            daemon = try DownloadDaemon(configuration: options.configuration)
        } catch {
            Terminal.error(error.message)
            return error.code == .insecure ? .usage : .failure
        }
        let trap = SignalTrap { daemon.shutdown() }
        if let list {
            for problem in daemon.restore(list) { Terminal.error("\(options.inputFile ?? ""): \(problem)") }
        }
        if !options.quiet {
            let host = options.configuration.server.listenAll ? "0.0.0.0" : "127.0.0.1"
            Terminal.write(
                "slipstream daemon: http://\(host):\(daemon.port)/ (JSON-RPC at /jsonrpc), downloads into "
                    + "\(options.configuration.folder)\n")
        }
        await daemon.run()
        withExtendedLifetime(trap) {}
        return .success
    }
}
