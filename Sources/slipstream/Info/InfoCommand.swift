import SlipstreamAudio
import SlipstreamHTTP

/// `slipstream info`: describes the audio of a URL or a local file, reading little of it.
enum InfoCommand {
    /// Runs `slipstream info ARGUMENTS` and returns the exit status.
    static func run(_ arguments: [String]) async -> ExitStatus {
        let options: InfoOptions
        do {
            options = try InfoOptions.parse(arguments)
        } catch {
            Terminal.usageError(error, usage: InfoOptions.usage)
            return .usage
        }
        if options.help {
            print(InfoOptions.usage)
            return .success
        }
        var read = AudioInfo.Options()
        do throws(CommandError) {
            read.access = try options.access.makeAccess()
        } catch {
            Terminal.error(error.message)
            return error.status
        }
        do throws(AudioInfoError) {
            read.readsWholeStream = options.exact
            read.proxy = options.proxy
            read.headers = options.headers
            read.hlsVariant = options.variant.selection
            let report = InfoReport(info: try await AudioInfo.read(from: options.target!, options: read))
            do {
                Terminal.output((options.json ? try report.json() : report.text) + "\n")
                return .success
            } catch {
                Terminal.error("cannot write the report: \(error)")
                return .failure
            }
        } catch {
            Terminal.error(error.message + (TLSProblem.advice(for: error.underlying).map { "; \($0)" } ?? ""))
            return ExitStatus(error)
        }
    }
}
