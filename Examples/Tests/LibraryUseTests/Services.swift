import Foundation
import Testing

/// The loopback services `scripts/test.sh` starts and names in the environment: nginx (its
/// port, and the folder it serves under `/files/`, `/rate/`, `/need-header/` and
/// `/need-login/`) and the audio fixtures. Without them the suites skip.
enum Services {
    static let environment = ProcessInfo.processInfo.environment

    /// Whether every service is there.
    static var available: Bool {
        nginxPort != nil && www != nil && audio != nil
    }

    static var nginxPort: String? { environment["SLIPSTREAM_TEST_NGINX_PORT"] }
    /// The folder nginx serves.
    static var www: String? { environment["SLIPSTREAM_TEST_WWW"] }
    /// The audio fixtures' folder.
    static var audio: String? { environment["SLIPSTREAM_TEST_AUDIO"] }

    static let skipReason: Comment = "run with scripts/test.sh or scripts/examples.sh under it (nginx and the audio fixtures)"

    /// `http://127.0.0.1:PORT/LOCATION/NAME`.
    static func url(_ name: String, location: String = "files", query: String? = nil) -> String {
        "http://127.0.0.1:\(nginxPort ?? "0")/\(location)/\(name)" + (query.map { "?\($0)" } ?? "")
    }

    /// A served file of `size` random bytes under a name of its own (`examples-NAME`); its name.
    static func serve(_ name: String, size: Int) throws -> String {
        let served = "examples-\(name)"
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { raw in
            var generator = SystemRandomNumberGenerator()
            for offset in stride(from: 0, to: raw.count - 7, by: 8) {
                raw.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: (www ?? "") + "/" + served))
        return served
    }

    /// A new empty folder for one test's files.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "slipstream-examples-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The names in `folder`, sorted.
    static func contents(of folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }
}
