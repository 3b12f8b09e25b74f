import Foundation
import SlipstreamDaemon
import SlipstreamHTTP
import Testing

/// The daemon as a program embeds it: aria2's JSON-RPC over aria2's GET form (through the
/// library's own HTTP engine), its downloads on the public queue, the task's cancellation
/// stopping it.
@Suite(.enabled(if: Services.available, Services.skipReason), .timeLimit(.minutes(2)))
struct DaemonUseTests {
    /// One call in aria2's GET form: `?method=M&id=1&params=BASE64`.
    private func call(_ port: Int, _ method: String, _ params: String) async throws -> String {
        let encoded = Data(params.utf8).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let request = HTTPRequest(url: "http://127.0.0.1:\(port)/jsonrpc?method=\(method)&id=1&params=\(encoded)")
        let response = try await HTTPEngine.shared.fetch(request)
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test func aDownloadAddedThroughTheRPCFinishesAndCancellingTheTaskStopsTheDaemon() async throws {
        let name = try Services.serve("daemon.bin", size: 2 << 20)
        let folder = try Services.folder()
        var configuration = DownloadDaemon.Configuration(folder: folder)
        configuration.secret = "s"
        configuration.server.port = 0
        let daemon = try DownloadDaemon(configuration: configuration)
        let running = Task { await daemon.run() }

        let added = try await call(daemon.port, "aria2.addUri", #"["token:s",["\#(Services.url(name))"]]"#)
        #expect(added.contains(#""result":""#), "\(added)")
        let outcomes = try await daemon.queue.waitUntilIdle()
        #expect(outcomes.count == 1)
        #expect(try Services.contents(of: folder).contains(name))
        let refused = try await call(daemon.port, "aria2.getVersion", #"["token:wrong"]"#)
        #expect(refused.contains("Unauthorized"))

        running.cancel()
        await running.value
        await #expect(throws: HTTPError.self) { _ = try await call(daemon.port, "aria2.getVersion", #"["token:s"]"#) }
    }
}
