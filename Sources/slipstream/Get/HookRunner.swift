#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SlipstreamCore

/// Runs the `--on-complete` and `--on-error` commands as downloads end: each spawned with
/// `posix_spawnp` (no shell), with this process's environment plus `SLIPSTREAM_PATH`,
/// `SLIPSTREAM_URL`, `SLIPSTREAM_STATUS` (the exit status the download alone would give: 0
/// when complete) and, on an error, `SLIPSTREAM_MESSAGE`; its output goes where slipstream's
/// does. Each is waited for on a Dispatch thread; `waitForAll` waits for every one.
final class HookRunner: Sendable {
    /// What runs when a download completes, and when one fails.
    let onComplete: HookCommand?
    let onError: HookCommand?
    private let running = DispatchGroup()

    init(onComplete: HookCommand?, onError: HookCommand?) {
        self.onComplete = onComplete
        self.onError = onError
    }

    /// Runs the hook for a download of `url` to `path` that ended with `status` (and `message`
    /// when it failed). A command that cannot be started is said on standard error.
    func downloadEnded(path: String, url: String, status: ExitStatus, message: String? = nil) {
        guard let hook = status == .success ? onComplete : onError else { return }
        var environment = [
            "SLIPSTREAM_PATH=\(path)", "SLIPSTREAM_URL=\(url.redactingLogins)", "SLIPSTREAM_STATUS=\(status.rawValue)",
        ]
        if let message { environment.append("SLIPSTREAM_MESSAGE=\(message.redactingLogins)") }
        var pid: pid_t = 0
        let code = Self.withCStrings(hook.words) { argv in
            Self.withCStrings(Self.inheritedEnvironment() + environment) { envp in
                posix_spawnp(&pid, argv[0]!, nil, nil, argv, envp)
            }
        }
        guard code == 0 else {
            Terminal.error("cannot run \(hook.words[0]): \(String(cString: strerror(code)))")
            return
        }
        running.enter()
        let child = pid
        DispatchQueue.global().async { [running] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0, errno == EINTR {}
            running.leave()
        }
    }

    /// Waits until every hook started has exited.
    func waitForAll() {
        running.wait()
    }

    /// The variables the hook is given, which replace any of the same name.
    private static let given: Set<Substring> = ["SLIPSTREAM_PATH", "SLIPSTREAM_URL", "SLIPSTREAM_STATUS", "SLIPSTREAM_MESSAGE"]

    /// This process's environment, less the variables the hook is given.
    private static func inheritedEnvironment() -> [String] {
        var variables: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let variable = String(cString: pointer)
            if !given.contains(variable.prefix { $0 != "=" }) { variables.append(variable) }
            entry += 1
        }
        return variables
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
