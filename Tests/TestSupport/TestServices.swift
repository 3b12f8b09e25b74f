import Foundation

/// What the tests need from outside their process: nginx (and its forward proxy) serving a
/// folder, the audio fixtures, a headless PulseAudio server and Icecast.
///
/// `scripts/test.sh` starts them all and names them in the environment (`SLIPSTREAM_TEST_*`).
/// A plain `swift test` has none of that, so each is started here on first use, by the same
/// scripts, for this test process alone (`scripts/test-service.sh`): the servers stop, and
/// their folders go, when this process ends, however it ends; the fixtures are made once
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

    /// Where Icecast serves, and its passwords.
    public struct Icecast: Sendable {
        /// Its loopback port.
        public var port: Int
        /// The password of user `source`, for sources.
        public var sourcePassword: String
        /// The admin user and password, for the admin API.
        public var adminUser: String
        public var adminPassword: String
        /// The metadata interval (bytes) of the mounts under `/tiny-metaint/`.
        public var tinyMetadataInterval: Int

        init?(_ values: [String: String]) {
            guard let port = values["SLIPSTREAM_TEST_ICECAST_PORT"].flatMap({ Int($0) }),
                let source = values["SLIPSTREAM_TEST_ICECAST_SOURCE_PASSWORD"],
                let user = values["SLIPSTREAM_TEST_ICECAST_ADMIN_USER"], let admin = values["SLIPSTREAM_TEST_ICECAST_ADMIN_PASSWORD"],
                let tiny = values["SLIPSTREAM_TEST_ICECAST_TINY_METAINT"].flatMap({ Int($0) })
            else { return nil }
            self = Icecast(port: port, sourcePassword: source, adminUser: user, adminPassword: admin, tinyMetadataInterval: tiny)
        }

        init(port: Int, sourcePassword: String, adminUser: String, adminPassword: String, tinyMetadataInterval: Int) {
            self.port = port
            self.sourcePassword = sourcePassword
            self.adminUser = adminUser
            self.adminPassword = adminPassword
            self.tinyMetadataInterval = tinyMetadataInterval
        }
    }

    /// A service started for one owner (see `launch`): the script's process, the writing end of
    /// its standard input (closing it stops the service), the reading end of its standard output
    /// (past `ready`), and the variables it printed.
    struct Launched {
        var process: Process
        var input: FileHandle
        var output: FileHandle
        var values: [String: String]
    }

    /// Why something the tests need is not there.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// nginx: the one `scripts/test.sh` started, else one started for this process.
    public static func nginx() throws(Unavailable) -> Nginx {
        try nginxService.get()
    }

    /// Icecast: the one `scripts/test.sh` started, else one started for this process.
    public static func icecast() throws(Unavailable) -> Icecast {
        try icecastService.get()
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

    private static let icecastService: Result<Icecast, Unavailable> = {
        if environment["SLIPSTREAM_TEST_ICECAST_PORT"] != nil {
            guard let icecast = Icecast(environment) else {
                return .failure(
                    Unavailable(
                        description:
                            "SLIPSTREAM_TEST_ICECAST_PORT is set, but not the passwords and TINY_METAINT as scripts/test.sh sets them"))
            }
            return .success(icecast)
        }
        switch start("icecast") {
        case .success(let values):
            guard let icecast = Icecast(values) else {
                return .failure(Unavailable(description: "scripts/test-service.sh icecast printed \(values)"))
            }
            announce("started Icecast on port \(icecast.port) for this test process")
            return .success(icecast)
        case .failure(let reason):
            announce(
                """
                Icecast could not be started (\(reason)): every test that streams from it FAILS.
                scripts/setup.sh installs icecast2; scripts/test.sh runs every test with everything started.
                """)
            return .failure(Unavailable(description: "Icecast could not be started (\(reason)); run scripts/test.sh"))
        }
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

    /// Runs `scripts/test-service.sh ARGUMENTS` for this whole process and reads its variables
    /// up to `ready`. The script's standard input is a pipe whose writing end this process keeps
    /// open, unused, until it exits: its closing is what stops the service.
    private static func start(_ arguments: String...) -> Result<[String: String], Unavailable> {
        launch(arguments).map { launched in
            // A copy of the writing end that no child inherits (close-on-exec) and that is never
            // closed; the Pipe's own ends close when they go.
            _ = fcntl(launched.input.fileDescriptor, F_DUPFD_CLOEXEC, 0)
            return launched.values
        }
    }

    /// Runs `scripts/test-service.sh ARGUMENTS` and reads its variables up to `ready`; the
    /// service lasts until the returned `input` closes (or this process ends). Blocks until the
    /// service is ready.
    static func launch(_ arguments: [String]) -> Result<Launched, Unavailable> {
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
        var text = ""
        while !text.hasSuffix("ready\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard text.hasSuffix("ready\n") else {
            try? input.fileHandleForWriting.close()
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
        return .success(
            Launched(process: process, input: input.fileHandleForWriting, output: output.fileHandleForReading, values: values))
    }

    /// Says `message` on standard error, marked as the test support's.
    private static func announce(_ message: String) {
        let lines = message.split(separator: "\n").enumerated().map { $0 == 0 ? "slipstream tests: \($1)" : "    \($1)" }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
