import Foundation

/// The nginx the tests download from: the one `scripts/test.sh` starts, or, under a plain
/// `swift test`, one started for the test process (see `TestServices`).
public enum TestNginx {
    /// The port.
    public static func port() throws -> Int {
        try TestServices.nginx().port
    }

    /// The forward HTTP proxy's URL (`http://127.0.0.1:PORT`).
    public static func proxyURL() throws -> String {
        "http://127.0.0.1:\(try TestServices.nginx().proxyPort)"
    }

    /// The folder nginx serves under `/files/`, `/rate/`, `/gzip/` and `/moved/`.
    public static func filesFolder() throws -> String {
        try TestServices.nginx().filesFolder
    }

    /// `http://127.0.0.1:PORT/LOCATION/NAME`, e.g. `url("a.bin", location: "rate")`.
    public static func url(_ name: String, location: String = "files", query: String? = nil) throws -> String {
        "http://127.0.0.1:\(try port())/\(location)/\(name)" + (query.map { "?\($0)" } ?? "")
    }

    /// `makeFile` on a thread of its own, off the Swift concurrency pool (for big files).
    @discardableResult
    public static func makeFileOffPool(_ name: String, size: Int) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try makeFile(name, size: size) }) }.start()
        }
    }

    /// Makes (once per test run) a served file of `size` pseudo-random bytes and returns its path.
    /// Files of one name and size are identical across calls and tests.
    @discardableResult
    public static func makeFile(_ name: String, size: Int) throws -> String {
        try TestFiles.makeServedFile(name, size: size, in: try filesFolder())
    }
}

extension String {
    /// A hash of the string that is the same in every process (unlike `hashValue`).
    var hashValueStable: UInt64 {
        utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}
