#if canImport(Glibc)
import Glibc
#endif
import SlipstreamAudio
import SlipstreamDownload
import SlipstreamHTTP
import SlipstreamCore
import Synchronization

/// `slipstream play`: plays a URL or file while it streams, with a status line and keys on a
/// terminal, or events as JSON lines; saves or records it on request.
enum PlayCommand {
    static func run(_ arguments: [String]) async -> ExitStatus {
        let options: PlayOptions
        do {
            options = try PlayOptions.parse(arguments)
        } catch {
            Terminal.usageError(error, usage: PlayOptions.usage)
            return .usage
        }
        if options.help {
            print(PlayOptions.usage)
            return .success
        }
        // Trapped first, so that a signal from here on stops playback cleanly.
        let player = Mutex<AudioStreamer?>(nil)
        // `--keep`'s download, while its first answer is awaited (before the player exists).
        let starting = Mutex<Download?>(nil)
        // `--keep`'s HLS download, for an HLS stream.
        let keptHLS = Mutex<HLSDownload?>(nil)
        let trap = SignalTrap {
            player.withLock { $0 }.map(stop)
            starting.withLock { $0 }?.cancel()
            keptHLS.withLock { $0 }?.cancel()
        }
        var configuration = options.configuration
        let saver: SaveFile?
        do {
            try checkOutputs(options)
            saver = try options.save.map { path throws(CommandError) in try SaveFile(path: path) }
            configuration.recording = try options.record.map { path throws(CommandError) in try PlayRecording.recording(for: path) }
            configuration.access = try options.access.makeAccess()
        } catch {
            Terminal.error(error.message)
            return error.status
        }
        if let saver { configuration.rawTap = { offset, bytes in saver.write(offset, bytes) } }

        let streamer: AudioStreamer
        if let keep = options.keep {
            do throws(CommandError) {
                if let hls = try PlayKeeping.hlsStreamer(options, path: keep, configuration: configuration, access: configuration.access) {
                    keptHLS.withLock { $0 = hls.download }
                    if trap.caughtSignal != nil { hls.download?.cancel() }
                    streamer = hls.streamer
                } else {
                    streamer = try await PlayKeeping.streamer(
                        options, path: keep, configuration: configuration, access: configuration.access
                    ) { download in
                        starting.withLock { $0 = download }
                        if trap.caughtSignal != nil { download.cancel() }
                    }
                }
            } catch {
                if let signal = trap.caughtSignal { return signal == SIGTERM ? .terminated : .interrupted }
                Terminal.error(error.message)
                return error.status
            }
        } else {
            streamer = AudioStreamer(url: options.target!, configuration: configuration)
        }
        player.withLock { $0 = streamer }
        if trap.caughtSignal != nil { stop(streamer) }
        let showStatus = !options.quiet && !options.json && Terminal.isTerminal(STDERR_FILENO)
        let terminal = showStatus ? RawTerminal() : nil
        let keys = terminal.map { _ in KeyReader { key in handle(key, player: streamer) } }
        let tagTitle = Mutex<String?>(nil)
        // A playlist's title for the entry playing, shown until the stream has one of its own.
        let entryTitle = Mutex<String?>(nil)
        let statusLine = { @Sendable (state: AudioStreamerState) in
            PlayStatus.line(
                state: state, progress: streamer.progress, volume: streamer.volume,
                nowPlaying: PlayStatus.nowPlaying(
                    station: streamer.station, streamTitle: streamer.title,
                    tagTitle: tagTitle.withLock { $0 } ?? entryTitle.withLock { $0 }),
                kept: streamer.download?.progress.fractionCompleted, width: Terminal.width)
        }
        let status = Task {
            guard showStatus else { return }
            while !Task.isCancelled {
                Terminal.statusLine(statusLine(streamer.state))
                try? await Task.sleep(for: .milliseconds(250))
            }
        }

        streamer.play()
        var finalState = AudioStreamerState.initialized
        var json = options.json ? PlayEventJSON() : nil
        var recordingFailed = false
        var undecodable: (count: Int, total: Int)?
        for await event in streamer.events {
            for line in json?.lines(for: event, now: MonotonicTime.now()) ?? [] { Terminal.output(line + "\n") }
            switch event {
            case .properties(let properties):
                tagTitle.withLock { $0 = properties.tags.title }
            case .reconnecting(let attempt, let error) where !options.quiet:
                Terminal.message("slipstream: \(error.message); reconnecting (attempt \(attempt))", over: showStatus)
            case .recordingFinished(let file) where !options.quiet:
                Terminal.message(PlayRecording.finishedLine(file), over: showStatus)
            case .recordingFailed(var error):
                recordingFailed = true
                // A stream the recorder cannot record (no file named) can be saved whole.
                if error.path == nil { error.message += " (--save keeps the whole stream)" }
                Terminal.message("slipstream: \(error.message)", over: showStatus)
            case .playlistEntryStarted(_, let title):
                entryTitle.withLock { $0 = title }
            case .playlistEntrySkipped(_, let error) where !options.quiet:
                Terminal.message("slipstream: skipped a playlist entry: \(error.message)", over: showStatus)
            case .undecodableFrames(let count, let total):
                undecodable = (count, total)
                if !options.quiet { Terminal.message("slipstream: warning: \(undecodableLine(count, total))", over: showStatus) }
            case .stateChanged(let state):
                finalState = state
            default:
                break
            }
        }
        status.cancel()
        _ = await status.value
        keys?.stop()
        terminal?.restore()
        if showStatus { Terminal.statusLine(statusLine(finalState), final: true) }
        if case .stopped(.error(let error)) = finalState, trap.caughtSignal == nil {
            Terminal.error(error.message + (advice(for: error).map { " (\($0))" } ?? ""))
        }
        // The final count, unless the error just told it.
        let errorToldCount = if case .stopped(.error(let error)) = finalState { error.code == .undecodable } else { false }
        if let undecodable, !options.quiet, !errorToldCount {
            Terminal.message("slipstream: \(undecodableLine(undecodable.count, undecodable.total))")
        }
        var exit = exitStatus(for: finalState, signal: trap.caughtSignal)
        if recordingFailed, exit == .success { exit = .disk }
        if let download = streamer.download, let keep = options.keep {
            exit = await PlayKeeping.finish(
                download, path: keep, state: finalState, signal: trap.caughtSignal, quiet: options.quiet, status: exit)
        }
        if let download = keptHLS.withLock({ $0 }), let keep = options.keep {
            exit = await PlayKeeping.finish(
                download, path: keep, state: finalState, signal: trap.caughtSignal, quiet: options.quiet, status: exit)
        }
        if let saver {
            let (whole, bytes, error) = saver.summary
            if let error {
                Terminal.error(error)
                if exit == .success { exit = .disk }
            } else if !options.quiet {
                let complete = whole && finalState == .done
                Terminal.message(
                    "saved \(saver.path): \(Formatting.bytes(bytes))"
                        + (complete ? "" : " (not the whole stream: it was stopped or sought past)"))
            }
        }
        return exit
    }

    /// Stops `player` and the download it plays, if any (which keeps its `.part` to resume).
    private static func stop(_ player: AudioStreamer) {
        player.stop()
        player.download?.cancel()
    }

    /// Refuses, before anything is written, an output that is the file played (the same file by
    /// any name), an existing file without `--force`, and what cannot be written: each output is
    /// checked as its writer writes (`OutputPath.Writing`).
    private static func checkOutputs(_ options: PlayOptions) throws(CommandError) {
        if options.keep != nil, !options.isURL {
            throw CommandError(status: .usage, message: "--keep downloads a URL; '\(options.target ?? "")' is a file, which plays as it is")
        }
        if options.connections != nil || options.checksum != nil, options.keep == nil {
            throw CommandError(status: .usage, message: "-n and --checksum are for the file --keep downloads: give --keep FILE too")
        }
        let input = options.isURL ? nil : options.target.flatMap { OutputPath($0).identity }
        if let path = options.save {
            try OutputPath(path).check("--save", input: input, replacing: options.force, writing: .atOffsets)
        }
        if case .wav(let path)? = options.output, path != "-" {
            try OutputPath(path).check("--output wav:", input: input, replacing: options.force, writing: .inOrder)
        }
        if let path = options.record, !path.hasSuffix("/") {
            let output = OutputPath(path)
            // A folder gets a file per title, named anew.
            if output.kind != .folder { try output.check("--record", input: input, replacing: options.force, writing: .asFile) }
        }
    }

    /// The words for `count` undecodable frames of `total`.
    static func undecodableLine(_ count: Int, _ total: Int) -> String {
        "\(count) of \(total) frames could not be decoded"
    }

    /// What a key does.
    private static func handle(_ key: PlayerKey, player: AudioStreamer) {
        switch key {
        case .togglePause:
            if player.state == .paused { player.play() } else { player.pause() }
        case .seekBack, .seekForward:
            let step = key == .seekBack ? -10.0 : 10.0
            let progress = player.progress
            // Past the end is the end (the player refuses a time past it).
            let target = min(max(progress.position + step, 0), progress.duration ?? .infinity)
            do {
                try player.seek(to: target)
            } catch {
                Terminal.message("slipstream: \(error.message)", over: true)
            }
        case .volumeUp:
            player.setVolume(player.volume + 0.1)
        case .volumeDown:
            player.setVolume(player.volume - 0.1)
        case .quit:
            player.stop()
        }
    }

    /// What a person can do about `error`, where the command line offers something (the
    /// library's errors state facts only).
    static func advice(for error: AudioStreamerError) -> String? {
        switch error.code {
        case .output: "--output chooses another: pulse, alsa:DEVICE, wav:FILE or null"
        default: TLSProblem.advice(for: error.underlying)
        }
    }

    /// The exit status for how playback ended.
    static func exitStatus(for state: AudioStreamerState, signal: Int32?) -> ExitStatus {
        if let signal { return signal == SIGTERM ? .terminated : .interrupted }
        switch state {
        case .done, .stopped(.user):
            return .success
        case .stopped(.error(let error)):
            return ExitStatus(error)
        default:
            return .failure
        }
    }
}
