import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// Readers of a running download, against the real nginx (each connection held to a rate by
/// `/rate/`): the bytes are exact, a reader ahead is served before the connection that would
/// otherwise reach it, several read at once, waits end with their task or a close, and a
/// finished download is read from its file.
@Suite struct DownloadReaderTests {
    /// Reads `reader` to its end, in `chunk`-byte reads.
    static func readAll(_ reader: DownloadReader, chunk: Int = 100_000) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let part = try await reader.read(upTo: chunk)
            if part.isEmpty { return bytes }
            bytes += part
        }
    }

    static func start(_ name: String, rate: String, connections: Int = 8, folder: String) throws -> Download {
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        configuration.minimumSplitSize = 256 << 10
        let url = try TestNginx.url(name, location: "rate", query: "rate=\(rate)&run=\(UInt32.random(in: 0...UInt32.max))")
        return try Downloader(configuration: configuration).start(url, to: .file(folder + "/" + name))
    }

    @Test func aReaderGetsTheWholeFileInOrderWhileItDownloads() async throws {
        let source = try await TestNginx.makeFileOffPool("read-3m.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let download = try Self.start("read-3m.bin", rate: "512k", folder: folder)
        let reader = download.reader(bytesPerSecond: 256_000)
        let bytes = try await Self.readAll(reader)
        let expected = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(bytes.count == expected.count)
        #expect(bytes.elementsEqual(expected))
        let result = try await download.value
        let exact = await TestFiles.equalOffPool(result.path, source)
        #expect(exact)
    }

    @Test func aReaderAheadIsServedBeforeTheConnectionThatWouldReachIt() async throws {
        let size = 8 << 20
        let source = try await TestNginx.makeFileOffPool("read-ahead-8m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Every write's offset, in order.
        let writes = Mutex<[Range<Int64>]>([])
        var configuration = DownloadConfiguration()
        configuration.connections = 8
        configuration.minimumSplitSize = 256 << 10
        configuration.beforeWrite = { offset, count in writes.withLock { $0.append(offset..<(offset + Int64(count))) } }
        let url = try TestNginx.url("read-ahead-8m.bin", location: "rate", query: "rate=64k&run=\(UInt32.random(in: 0...UInt32.max))")
        let download = try Downloader(configuration: configuration).start(url, to: .file(folder + "/out.bin"))
        // Well inside the seventh eighth of the file: its connection, from the eighth's start at
        // 64 KiB/s, would take some 11 s to reach it.
        let target = Int64(6 << 20) + 700_000
        let reader = download.reader(at: target, bytesPerSecond: 40_000)
        let first = try await reader.read(upTo: 1000)
        let expected = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(!first.isEmpty && first.elementsEqual(expected[Int(target)..<Int(target) + first.count]))
        // The bytes at the reader came before those just in front of it.
        let before = (target - (256 << 10))..<target
        let order = writes.withLock { $0 }
        let servedAt = order.firstIndex { $0.contains(target) }
        let frontAt = order.firstIndex { $0.overlaps(before) }
        #expect(servedAt != nil)
        #expect(frontAt.map { servedAt! < $0 } ?? true, "the bytes before the reader were written first")
        reader.close()
        download.cancelAndRemoveFiles()
        _ = try? await download.value
    }

    @Test func severalReadersReadAtOnceEachAtItsPlace() async throws {
        let size = 4 << 20
        let source = try await TestNginx.makeFileOffPool("read-two-4m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let download = try Self.start("read-two-4m.bin", rate: "1m", folder: folder)
        let middle = Int64(size / 2) + 12_345
        async let head = Self.readAll(download.reader(at: 0))
        async let tail = Self.readAll(download.reader(at: middle))
        let (headBytes, tailBytes) = try await (head, tail)
        let expected = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(headBytes.elementsEqual(expected))
        #expect(tailBytes.elementsEqual(expected[Int(middle)...]))
        _ = try await download.value
    }

    @Test func aWaitingReadEndsWithItsTaskAndWithAClose() async throws {
        _ = try await TestNginx.makeFileOffPool("read-wait-2m.bin", size: 2 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 1 KiB/s: the last bytes will not come during the test.
        let download = try Self.start("read-wait-2m.bin", rate: "1k", connections: 1, folder: folder)
        let reader = download.reader(at: (2 << 20) - 10)
        let task = Task { try await reader.read(upTo: 10) }
        task.cancel()
        await #expect(throws: DownloadError.self) { _ = try await task.value }
        // A blocking read on a thread of its own, ended by a close.
        let blocked = download.reader(at: (2 << 20) - 10)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Mutex<DownloadError.Code?>(nil)
        Thread.detachNewThread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 10, alignment: 1)
            defer { buffer.deallocate() }
            do throws(DownloadError) {
                _ = try blocked.read(into: buffer, at: (2 << 20) - 10)
            } catch {
                outcome.withLock { $0 = error.code }
            }
            ended.signal()
        }
        blocked.close()
        #expect(ended.wait(timeout: .now() + 60) == .success)
        #expect(outcome.withLock { $0 } == .cancelled)
        download.cancelAndRemoveFiles()
        _ = try? await download.value
    }

    @Test func aFailedDownloadFailsTheReadOfBytesItNeverWrote() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let download = try Downloader().start(try TestNginx.url("no-such-file.bin"), to: .file(folder + "/x.bin"))
        let reader = download.reader()
        await #expect(throws: DownloadError.self) { _ = try await reader.read(upTo: 100) }
    }

    @Test func aResumedDownloadsReaderReadsWhatTheFirstRunKeptAtOnce() async throws {
        let size = 3 << 20
        let source = try await TestNginx.makeFileOffPool("read-resume-3m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestNginx.url("read-resume-3m.bin", location: "rate", query: "rate=64k&run=\(UInt32.random(in: 0...UInt32.max))")
        var firstConfiguration = DownloadConfiguration()
        firstConfiguration.connections = 2
        let first = try Downloader(configuration: firstConfiguration).start(url, to: .file(folder + "/read-resume-3m.bin"))
        // A first run stopped once it wrote its first bytes: by a blocking read on a thread of
        // its own, so that a busy Swift concurrency pool cannot let the first run finish first.
        let reader = first.reader()
        let head = try await offPool { () throws -> [UInt8] in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 200_000, alignment: 1)
            defer { buffer.deallocate() }
            var count = 0
            while count < buffer.count {
                count += try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]), at: Int64(count))
            }
            first.cancel()
            return Array(buffer.prefix(count))
        }
        _ = try? await first.value
        // The second run: what the first wrote is read from its record, never written again.
        let writes = Mutex<[Range<Int64>]>([])
        var configuration = DownloadConfiguration()
        configuration.connections = 2
        configuration.beforeWrite = { offset, count in writes.withLock { $0.append(offset..<(offset + Int64(count))) } }
        let second = try Downloader(configuration: configuration).start(url, to: .file(folder + "/read-resume-3m.bin"))
        let bytes = try await Self.readAll(second.reader())
        let expected = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(bytes.elementsEqual(expected))
        #expect(head.elementsEqual(expected.prefix(head.count)))
        _ = try await second.value
        // (The record claims whole pieces: what it kept is the pieces the first run completed.)
        let piece = ControlFile.pieceSize(for: Int64(size))
        let kept = 0..<(Int64(head.count) / piece * piece)
        #expect(!kept.isEmpty)
        let rewritten = writes.withLock { $0 }.filter { $0.overlaps(kept) }
        #expect(rewritten.isEmpty, "head \(head.count), rewritten \(rewritten.prefix(4))")
    }

    @Test func afterTheEndAReaderReadsTheFinishedFileWithNoRequest() async throws {
        let name = "read-done-\(UInt32.random(in: 0...UInt32.max)).bin"
        let source = try await TestNginx.makeFileOffPool(name, size: 1 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let download = try Downloader().start(try TestNginx.url(name), to: .file(folder + "/done.bin"))
        _ = try await download.value
        let expected = try Data(contentsOf: URL(fileURLWithPath: source))
        try FileManager.default.removeItem(atPath: source)
        let bytes = try await Self.readAll(download.reader(at: 1000))
        #expect(bytes.elementsEqual(expected[1000...]))
    }
}
