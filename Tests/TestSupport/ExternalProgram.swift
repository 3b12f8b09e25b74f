import Foundation

/// Programs the tests run (reference decoders, encoders) and a way to wait for blocking work
/// without holding a thread of the Swift concurrency pool.
public enum ExternalProgram {
    /// Runs `arguments` (a program found on the PATH, then its arguments) and waits for it on a
    /// thread of its own (see `offPool`); throws when it cannot start or exits with a status
    /// other than 0.
    public static func run(_ arguments: [String]) async throws {
        try await offPool { try runBlocking(arguments) }
    }

    /// `run`, waiting on the calling thread: for code that already runs off the pool.
    public static func runBlocking(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad, userInfo: ["command": arguments]) }
    }

    /// Runs `arguments` as `run` does, in a UTF-8 locale (programs print text in the locale's
    /// character set), and returns its status and what it printed on standard output and
    /// standard error together.
    public static func output(_ arguments: [String]) async throws -> (status: Int32, text: String) {
        try await offPool { try outputBlocking(arguments) }
    }

    /// `output`, waiting on the calling thread: for code that already runs off the pool.
    public static func outputBlocking(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["LC_ALL": "C.UTF-8"]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// Runs `body` on a thread of its own (child processes, devices and paced clocks block), so that
/// it holds no thread of the Swift concurrency pool.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
