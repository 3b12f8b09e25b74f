import Dispatch
import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

/// A download's write memory is bounded by `writeBufferSize`: it grows neither with the file's
/// size nor with the number of connections. The writer is fed as a download feeds it (each
/// connection's range in slices of a quarter slot, the connections taking turns) and as fast
/// as it takes them; refused slices come again when it says it has room.
@Suite struct WriterMemoryTests {
    @Test(arguments: [(1, 4 << 20), (16, 4 << 20), (1, 64 << 20), (16, 64 << 20)])
    func writeMemoryIsFlat(connections: Int, size: Int) async throws {
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        let slots = configuration.writerSlots(for: "http://127.0.0.1/file.bin")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try PartFile(creating: folder + "/file.bin")
        defer { file.close() }
        let room = DispatchSemaphore(value: 0)
        let writer = DiskWriter(
            opening: { file }, slotSize: slots.size, maxSlots: slots.count,
            hooks: .init(onError: { Issue.record("no error expected: \($0.message)") }, onRoom: { room.signal() }))
        let fed = try await offPool { try Self.feed(writer, size: size, connections: connections, slice: slots.size / 4, room: room) }
        await withCheckedContinuation { done in writer.finish(keepRecord: false) { _ in done.resume() } }
        #expect(fed, "the writer never said it had room again (30 s)")
        #expect(writer.written.byteCount == Int64(size))
        #expect(writer.slotMemory <= configuration.writeBufferSize)
    }

    /// Hands `writer` the `size` bytes of a file from `connections` connections, `slice` bytes at
    /// a time each in turn; false when a refused slice found no room within 30 seconds.
    static func feed(_ writer: DiskWriter, size: Int, connections: Int, slice: Int, room: DispatchSemaphore) throws -> Bool {
        let share = size / connections
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: slice, alignment: 16)
        defer { bytes.deallocate() }
        bytes.initializeMemory(as: UInt8.self, repeating: 0x5a)
        var next = (0..<connections).map { $0 * share }
        var left = size
        while left > 0 {
            for connection in 0..<connections {
                let count = min(slice, (connection + 1) * share - next[connection])
                guard count > 0 else { continue }
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                while try writer.take(chunk, at: Int64(next[connection])) == .refused {
                    guard room.wait(timeout: .now() + .seconds(30)) == .success else { return false }
                }
                next[connection] += count
                left -= count
            }
        }
        return true
    }
}
