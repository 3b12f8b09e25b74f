import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// One download as a program meets it: its events (several readers, the end last), a request's
/// headers and login, and what a cancel (by the Task) leaves.
@Suite(.enabled(if: Services.available, Services.skipReason), .timeLimit(.minutes(2)))
struct DownloadUseTests {
    @Test func everyReaderGetsEveryEventAndTheEndIsTheLast() async throws {
        let name = try Services.serve("events.bin", size: 3 << 20)
        let folder = try Services.folder()
        let download = try Downloader().start(Services.url(name), to: .folder(folder))
        let readers = (0..<2).map { _ in
            Task {
                var events: [DownloadEvent] = []
                for await event in download.events { events.append(event) }
                return events
            }
        }
        let result = try await download.value
        #expect(result.bytes == 3 << 20)
        for reader in readers {
            let events = await reader.value
            guard case .finished(let told)? = events.last else {
                Issue.record("the last event is not the end: \(String(describing: events.last))")
                continue
            }
            #expect(told == result)
            if case .started? = events.first {} else { Issue.record("the first event is not the start") }
        }
    }

    @Test func aRequestCarriesItsHeadersAndLoginToEveryConnection() async throws {
        let name = try Services.serve("guarded.bin", size: 4 << 20)
        let folder = try Services.folder()
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.minimumSplitSize = 256 << 10
        configuration.headers.add(name: "X-Slipstream-Token", value: "let-me-in")
        let withHeader = try await Downloader(configuration: configuration)
            .download(from: Services.url(name, location: "need-header"), to: .file(folder + "/h.bin"))
        #expect(withHeader.bytes == 4 << 20 && withHeader.segmented)
        var login = configuration
        login.headers = HTTPHeaders()
        login.access.credentials = Credentials(user: "test", password: "secret")
        let withLogin = try await Downloader(configuration: login)
            .download(from: Services.url(name, location: "need-login"), to: .file(folder + "/l.bin"))
        #expect(withLogin.bytes == 4 << 20)
        // Without them the server refuses.
        await #expect(throws: DownloadError.self) {
            try await Downloader().download(from: Services.url(name, location: "need-header"), to: .file(folder + "/no.bin"))
        }
    }

    /// Cancelling the Task that awaits a download cancels it and keeps what a resume needs,
    /// no more: the `.part` file and its resume record; the same download then resumes.
    @Test func aCancelledDownloadKeepsItsPartAndOneRecord() async throws {
        let name = try Services.serve("cancelled.bin", size: 8 << 20)
        let folder = try Services.folder()
        let path = folder + "/c.bin"
        var configuration = DownloadConfiguration()
        configuration.connections = 2
        // 16 s at least: cancelled long before its end, however late this task runs.
        let slow = Services.url(name, location: "rate", query: "rate=256k")
        let download = try Downloader(configuration: configuration).start(slow, to: .file(path))
        let waiting = Task { try await download.value }
        var written: Int64 = 0
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes > 0 {
                written = progress.completedBytes
                break
            }
        }
        waiting.cancel()
        switch await waiting.result {
        case .success: Issue.record("the download finished")
        case .failure(let error as DownloadError):
            #expect(error.code == .cancelled)
            #expect(error.resumableFile == path + ".part")
        case .failure(let error): Issue.record("\(error)")
        }
        #expect(try Services.contents(of: folder) == ["c.bin.part", "c.bin.part.slipstream"])
        // From another URL of the same file (its ETag proves it), at full speed.
        let resumed = try await Downloader().download(from: Services.url(name), to: .file(path))
        #expect(resumed.resumedBytes >= written)
        #expect(try Services.contents(of: folder) == ["c.bin"])
    }

    @Test func cancelAndRemoveFilesLeavesNothing() async throws {
        let name = try Services.serve("discarded.bin", size: 8 << 20)
        let folder = try Services.folder()
        var configuration = DownloadConfiguration()
        configuration.connections = 2
        let slow = Services.url(name, location: "rate", query: "rate=256k")
        let download = try Downloader(configuration: configuration).start(slow, to: .folder(folder))
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes > 0 { break }
        }
        download.cancelAndRemoveFiles()
        await #expect(throws: DownloadError.self) { try await download.value }
        #expect(try Services.contents(of: folder).isEmpty)
    }
}
