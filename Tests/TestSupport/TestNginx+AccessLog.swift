import Foundation

extension TestNginx {
    /// nginx's access log (combined format), `access.log` in the folder it runs in.
    public static func accessLogPath() throws -> String {
        try TestServices.nginx().workFolder + "/access.log"
    }

    /// The body bytes nginx has sent so far for requests of `path` (e.g. `/rate/a.bin`, with any
    /// query): the sum of the `body_bytes_sent` field of the access log's lines for it. nginx
    /// counts what it handed to the socket, so a response cut short by a dying client counts
    /// what was sent, not what the client read. A request is logged when it ends.
    public static func bodyBytesSent(path: String) throws -> Int {
        try loggedRequests { $0.prefix(while: { $0 != "?" }) == path }.reduce(0) { $0 + $1.bytes }
    }

    /// The requests logged so far for exactly `target` (path and query), in the order they ended.
    public static func requests(to target: String) throws -> [(status: Int, bytes: Int)] {
        try loggedRequests { $0 == target }
    }

    /// Status and body bytes of the logged requests whose target (path and query) `matches`.
    private static func loggedRequests(_ matches: (Substring) -> Bool) throws -> [(status: Int, bytes: Int)] {
        let log = try String(contentsOfFile: try accessLogPath(), encoding: .utf8)
        var found: [(status: Int, bytes: Int)] = []
        for line in log.split(separator: "\n") {
            // ... "GET /rate/a.bin?rate=4m HTTP/1.1" 206 2097152 "-" "agent"
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            guard quoted.count > 2 else { continue }
            let request = quoted[1].split(separator: " ")
            let statusAndBytes = quoted[2].split(separator: " ")
            guard request.count > 1, matches(request[1]), statusAndBytes.count > 1,
                let status = Int(statusAndBytes[0]), let bytes = Int(statusAndBytes[1])
            else { continue }
            found.append((status, bytes))
        }
        return found
    }
}
