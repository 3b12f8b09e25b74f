import SlipstreamAudio

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
        do {
            let report = try await describe(options)
            print(options.json ? try report.json() : report.text)
            return .success
        } catch let error as CommandError {
            Terminal.error(error.message)
            return error.status
        } catch {
            Terminal.error("cannot write the report: \(error)")
            return .failure
        }
    }

    /// Reads the target of `options` and describes it.
    private static func describe(_ options: InfoOptions) async throws(CommandError) -> InfoReport {
        let target = options.target!
        if options.isURL {
            var source = HTTPInfoSource(url: target, proxy: options.proxy, headers: options.headers)
            let audio = try await InfoReader.describe(&source, name: target, exact: options.exact)
            return InfoReport(source: source.summary, audio: audio)
        }
        var source = try FileInfoSource(path: target)
        let audio = try await InfoReader.describe(&source, name: target, exact: options.exact)
        return InfoReport(source: source.summary, audio: audio)
    }
}
