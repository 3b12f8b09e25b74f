import Foundation

/// Runs the built `slipstream` binary and captures what it prints.
public enum CommandRunner {
    /// What a run produced.
    public struct Output: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var stdout: String
        /// Standard error.
        public var stderr: String
        /// Whether a signal ended the process (`status` is then the signal's number).
        public var signaled = false
    }

    /// The `slipstream` binary beside the test bundle.
    public static var binary: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // Inside an .xctest bundle folder, the products are one level up.
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("slipstream").path
    }

    /// Runs `slipstream ARGUMENTS` in `folder` and waits for it, on a thread of its own so the
    /// wait does not hold a thread of the Swift concurrency pool.
    public static func run(_ arguments: [String], in folder: String) async throws -> Output {
        try await start(arguments, in: folder).wait()
    }

    /// Runs `slipstream ARGUMENTS` in `folder` under a limit of `/bin/sh`'s `ulimit` (its
    /// options, such as `-f 2048`: files of at most 2048 blocks of 512 bytes) and waits for it.
    public static func run(_ arguments: [String], in folder: String, ulimit: String) async throws -> Output {
        try await RunningCommand(arguments, in: folder, ulimit: ulimit).wait()
    }

    /// Starts `slipstream ARGUMENTS` in `folder` and returns at once, so that a test can signal
    /// the process (`kill`) before it waits for it.
    public static func start(_ arguments: [String], in folder: String) throws -> RunningCommand {
        try RunningCommand(arguments, in: folder)
    }
}
