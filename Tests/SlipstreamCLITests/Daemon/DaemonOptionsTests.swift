import Foundation
import Testing

@testable import slipstream

/// `slipstream daemon` reads aria2's option names, on the command line and in a conf file.
@Suite struct DaemonOptionsTests {
    @Test func readsAria2sSpellings() throws {
        let options = try DaemonOptions.parse([
            "--enable-rpc", "--rpc-listen-port=6801", "--rpc-secret", "s3", "-d", "/tmp", "-j3", "-x", "4", "-s8",
            "-k2M", "-c", "--max-overall-download-limit=1M", "--max-download-limit=500K", "--rpc-listen-all=true",
            "--rpc-allow-origin-all", "--save-session=/tmp/s", "--save-session-interval=0", "-q", "--file-allocation=none",
            "--seed-time=0", "--bt-max-peers=3",
        ])
        let configuration = options.configuration
        #expect(configuration.server.port == 6801)
        #expect(configuration.secret == "s3")
        #expect(configuration.folder == "/tmp")
        #expect(configuration.global.maxConcurrentDownloads == 3)
        #expect(configuration.global.maxOverallDownloadLimit == 1 << 20)
        #expect(configuration.server.listenAll)
        #expect(configuration.server.allowAnyOrigin)
        #expect(configuration.sessionPath == "/tmp/s")
        #expect(configuration.sessionInterval == nil)
        #expect(options.quiet)
        #expect(options.ignored == ["file-allocation", "seed-time", "bt-max-peers"])
        let defaults = configuration.global.defaultOptions
        #expect(defaults["max-connection-per-server"] == "4")
        #expect(defaults["split"] == "8")
        #expect(defaults["min-split-size"] == String(2 << 20))
        #expect(defaults["max-download-limit"] == String(500 << 10))
    }

    @Test(arguments: [
        ["--nonsense"], ["-Z"], ["--rpc-listen-port=70000"], ["--rpc-listen-port"], ["-j", "0"], ["--split=65"],
        ["--max-overall-download-limit=1G"], ["--enable-rpc=maybe"], ["--daemon"], ["--rpc-secure"], ["http://x/a"],
        ["--save-session-interval=-1"],
    ])
    func refusesWhatItCannotDo(_ arguments: [String]) {
        #expect(throws: UsageError.self, "\(arguments)") { try DaemonOptions.parse(arguments) }
    }

    @Test func aConfFileComesFirstAndTheCommandLineWins() throws {
        let path = NSTemporaryDirectory() + "/slipstream-daemon-\(UUID().uuidString).conf"
        try """
        # aria2.conf of an existing setup
        enable-rpc=true
        rpc-listen-port = 6802
        rpc-secret=from-conf
        dir=/var/tmp
        max-concurrent-downloads=2
        file-allocation=falloc

        """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let options = try DaemonOptions.parse(["--conf-path=\(path)", "-j", "4"])
        #expect(options.configuration.server.port == 6802)
        #expect(options.configuration.secret == "from-conf")
        #expect(options.configuration.folder == "/var/tmp")
        #expect(options.configuration.global.maxConcurrentDownloads == 4)
        #expect(options.ignored == ["file-allocation"])

        try "enable-rpc\n".write(toFile: path, atomically: true, encoding: .utf8)
        let failure = #expect(throws: UsageError.self) { try DaemonOptions.parse(["--conf-path=\(path)"]) }
        #expect(failure?.description.contains("line 1") == true)
        try "whatever=1\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--conf-path=\(path)"]) }
    }
}
