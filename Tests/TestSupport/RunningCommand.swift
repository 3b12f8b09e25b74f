import Foundation
import Synchronization

/// A `slipstream` process started by `CommandRunner.start`: signal it while it runs, then wait
/// for what it printed. Both pipes are read from the start, so a chatty process cannot block.
/// Every blocking wait (pipes, exit, signal timing) runs on a thread of its own: neither the
/// Swift concurrency pool nor Dispatch's global pool (a thread per core, slow to add more
/// when they block) can starve or delay it while other tests run.
public final class RunningCommand: Sendable {
    private let process: Process
    /// Signalled once standard output and standard error are both read to the end.
    private let pipesDrained = DispatchGroup()
    /// What standard output (0) and standard error (1) carried.
    private let captured = Mutex([Data(), Data()])

    /// Starts `slipstream ARGUMENTS` in `folder` with standard input from /dev/null; with
    /// `ulimit`, under the limit those options of `/bin/sh`'s `ulimit` set (such as `-f 2048`),
    /// and SIGXFSZ at its default action, as a login shell's command has it (the test process
    /// ignores it, and an ignored signal is inherited).
    init(_ arguments: [String], in folder: String, ulimit: String? = nil) throws {
        process = Process()
        if let ulimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", "ulimit \(ulimit) && exec env --default-signal=XFSZ \"$0\" \"$@\"", CommandRunner.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        for (index, pipe) in [out, err].enumerated() {
            pipesDrained.enter()
            Thread { [self] in
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                captured.withLock { $0[index] = data }
                pipesDrained.leave()
            }.start()
        }
    }

    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (e.g. `SIGKILL`, `SIGINT`) to the process if it is still running.
    public func kill(_ signal: Int32) {
        guard process.isRunning else { return }
        _ = Glibc.kill(process.processIdentifier, signal)
    }

    /// Sends `signal` `milliseconds` after a file exists at `path` and the process has a handler
    /// for the signal (so that it reaches the handler, not the default action, nor a moment when
    /// it is still ignored; SIGKILL needs none). Looks every 5 ms; gives up when the process ends
    /// or after `timeoutSeconds`.
    public func kill(
        _ signal: Int32, whenFileExists path: String, afterMilliseconds milliseconds: Int = 0,
        timeoutSeconds: Double = 10
    ) {
        Thread { [self] in
            let deadline = DispatchTime.now() + timeoutSeconds
            while process.isRunning, DispatchTime.now() < deadline {
                if FileManager.default.fileExists(atPath: path), signal == SIGKILL || catches(signal) {
                    usleep(useconds_t(milliseconds * 1000))
                    kill(signal)
                    return
                }
                usleep(5000)
            }
        }.start()
    }

    /// Whether the process has a handler installed for `signal` (`SigCgt` in /proc/PID/status).
    private func catches(_ signal: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// Waits, on a thread of its own, until the process has ended and both pipes are closed. The
    /// status of a process killed by a signal is the signal's number. A process still running
    /// after `limitSeconds` is hung: its threads' stacks (gdb's, where installed) go at the end
    /// of its standard error, then it is killed, so that the test fails naming where it hung
    /// instead of holding the whole run.
    public func wait(limitSeconds: Int = 600) async -> CommandRunner.Output {
        await withCheckedContinuation { continuation in
            Thread { [self] in
                var hung: String?
                if pipesDrained.wait(timeout: .now() + .seconds(limitSeconds)) == .timedOut, process.isRunning {
                    hung = "\nslipstream ran past \(limitSeconds) s and was killed; its threads:\n" + Self.stacks(of: pid)
                    kill(SIGKILL)
                    pipesDrained.wait()
                }
                process.waitUntilExit()
                let (stdout, stderr) = captured.withLock { ($0[0], $0[1]) }
                continuation.resume(
                    returning: CommandRunner.Output(
                        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                        stderr: String(decoding: stderr, as: UTF8.self) + (hung ?? ""),
                        signaled: process.terminationReason == .uncaughtSignal))
            }.start()
        }
    }

    /// Every thread's stack of process `pid`, as gdb prints them (empty without gdb).
    private static func stacks(of pid: Int32) -> String {
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = ["-p", "\(pid)", "-batch", "-ex", "thread apply all bt 30"]
        let out = Pipe()
        gdb.standardOutput = out
        gdb.standardError = FileHandle.nullDevice
        gdb.standardInput = FileHandle.nullDevice
        guard (try? gdb.run()) != nil else { return "" }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        gdb.waitUntilExit()
        return text.split(separator: "\n").filter { $0.hasPrefix("Thread") || $0.hasPrefix("#") }.joined(separator: "\n")
    }
}
