import Foundation

/// What the tests need from outside their process: nginx (and its forward proxy) serving a
/// folder, the audio fixtures, and a headless PulseAudio server.
///
/// `scripts/test.sh` starts them all and names them in the environment (`SLIPSTREAM_TEST_*`).
/// A plain `swift test` has none of that, so each is started here on first use, by the same
/// scripts, for this test process alone (`scripts/test-service.sh`): nginx and PulseAudio stop,
/// and their folders go, when this process ends, however it ends; the fixtures are made once
/// into `.build/test-audio` and kept. Each start is said in one line on standard error; one that
/// fails is said in a few lines naming what fails or skips for want of it and how to run it.
public enum TestServices {
    /// Where nginx serves.
    public struct Nginx: Sendable {
        /// Its loopback port.
        public var port: Int
        /// The port of its forward HTTP proxy.
        public var proxyPort: Int
        /// The folder it serves under `/files/` (and its other locations).
        public var filesFolder: String
        /// The folder it runs in (its access log is `access.log` there).
        public var workFolder: String
    }

    /// Why something the tests need is not there.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// nginx: the one `scripts/test.sh` started, else one started for this process.
    public static func nginx() throws(Unavailable) -> Nginx {
        try nginxService.get()
    }

    /// The audio fixtures' folder: `SLIPSTREAM_TEST_AUDIO`, else `.build/test-audio`, made if
    /// needed; nil when they cannot be made.
    public static var audioFixtures: String? { audioService }

    /// The headless PulseAudio server (`unix:PATH`): `SLIPSTREAM_TEST_PULSE_SERVER` (empty when
    /// `scripts/test.sh` could not start one), else one started for this process; nil when there
    /// is none.
    public static var pulseServer: String? { pulseService }

    private static let environment = ProcessInfo.processInfo.environment

    /// The repository, from this file's place in it.
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    private static let nginxService: Result<Nginx, Unavailable> = {
        var values = environment
        if values["SLIPSTREAM_TEST_NGINX_PORT"] == nil {
            switch start("nginx") {
            case .success(let started):
                values = started
                announce("started nginx on port \(values["SLIPSTREAM_TEST_NGINX_PORT"] ?? "?") for this test process")
            case .failure(let reason):
                announce(
                    """
                    nginx could not be started (\(reason)): every test that downloads from it FAILS.
                    scripts/setup.sh installs it; scripts/test.sh runs every test with everything started.
                    """)
                return .failure(Unavailable(description: "nginx could not be started (\(reason)); run scripts/test.sh"))
            }
        }
        guard let port = values["SLIPSTREAM_TEST_NGINX_PORT"].flatMap({ Int($0) }),
            let proxyPort = values["SLIPSTREAM_TEST_PROXY_PORT"].flatMap({ Int($0) }),
            let files = values["SLIPSTREAM_TEST_WWW"], let work = values["SLIPSTREAM_TEST_WORK"]
        else {
            return .failure(
                Unavailable(description: "SLIPSTREAM_TEST_NGINX_PORT is set, but not PROXY_PORT, WWW and WORK as scripts/test.sh sets them")
            )
        }
        return .success(Nginx(port: port, proxyPort: proxyPort, filesFolder: files, workFolder: work))
    }()

    private static let audioService: String? = {
        if let directory = environment["SLIPSTREAM_TEST_AUDIO"] { return directory }
        let directory = repository + "/.build/test-audio"
        switch start("audio", directory) {
        case .success(let values):
            announce("audio fixtures in \(directory)")
            return values["SLIPSTREAM_TEST_AUDIO"]
        case .failure(let reason):
            announce(
                """
                the audio fixtures could not be made (\(reason)): the tests that need them are SKIPPED.
                scripts/setup.sh installs the encoders (sox, lame, ffmpeg, mpg123); scripts/test.sh runs every test.
                """)
            return nil
        }
    }()

    private static let pulseService: String? = {
        if let server = environment["SLIPSTREAM_TEST_PULSE_SERVER"] { return server.isEmpty ? nil : server }
        switch start("pulse") {
        case .success(let values):
            announce("started a headless PulseAudio server for this test process")
            return values["SLIPSTREAM_TEST_PULSE_SERVER"]
        case .failure(let reason):
            announce(
                """
                no headless PulseAudio server could be started (\(reason)): the tests that play through one are SKIPPED.
                scripts/setup.sh installs pulseaudio; scripts/test.sh runs every test.
                """)
            return nil
        }
    }()

    /// Runs `scripts/test-service.sh ARGUMENTS` and reads its variables up to `ready`. The
    /// script's standard input is a pipe whose writing end this process keeps open, unused,
    /// until it exits: its closing is what stops the service.
    private static func start(_ arguments: String...) -> Result<[String: String], Unavailable> {
        let script = repository + "/scripts/test-service.sh"
        guard FileManager.default.isExecutableFile(atPath: script) else {
            return .failure(Unavailable(description: "\(script) is missing"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return .failure(Unavailable(description: "cannot run \(script): \(error)"))
        }
        // A copy of the writing end that no child inherits (close-on-exec) and that is never
        // closed; the Pipe's own ends close when it goes.
        _ = fcntl(input.fileHandleForWriting.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        try? input.fileHandleForWriting.close()
        var text = ""
        while !text.hasSuffix("ready\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard text.hasSuffix("ready\n") else {
            process.waitUntilExit()
            return .failure(
                Unavailable(
                    description:
                        "scripts/test-service.sh \(arguments[0]) exited with status \(process.terminationStatus); its messages are above"))
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return .success(values)
    }

    /// Says `message` on standard error, marked as the test support's.
    private static func announce(_ message: String) {
        let lines = message.split(separator: "\n").enumerated().map { $0 == 0 ? "slipstream tests: \($1)" : "    \($1)" }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
