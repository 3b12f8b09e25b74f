import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// The writer of a stream destination on a real pipe: out-of-order slices come out in order,
/// a slow reader holds memory at the ring's size (by the window's accounting), and a reader
/// that closes early ends it with `.outputClosed`, not the process with SIGPIPE.
@Suite struct OrderedWriterTests {
    /// A pipe whose read end a thread of its own drains into `bytes` until it closes.
    final class PipeReader: Sendable {
        let writeEnd: Int32
        let readEnd: Int32
        private let data = Mutex([UInt8]())
        private let done = DispatchSemaphore(value: 0)

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            (readEnd, writeEnd) = (ends[0], ends[1])
        }

        func startReading() {
            Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    data.withLock { $0.append(contentsOf: buffer[..<count]) }
                }
                close(readEnd)
                done.signal()
            }.start()
        }

        /// Everything read once the write end was closed.
        func finish() -> [UInt8] {
            close(writeEnd)
            done.wait()
            return data.withLock { $0 }
        }
    }

    /// Writes `bytes` to `writer` as eight connections of 64 KiB pieces would, slice by slice,
    /// in a shuffled order; a connection whose slice is refused pauses until `onRoom`, as the
    /// engine's transfers do.
    static func feed(_ bytes: [UInt8], to writer: OrderedWriter, room: DispatchSemaphore, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let piece = 64 << 10
        var next = (0..<8).map { $0 * piece }
        var paused = Set<Int>()
        while next.contains(where: { $0 < bytes.count }) {
            let active = next.indices.filter { next[$0] < bytes.count && !paused.contains($0) }
            guard !active.isEmpty else {
                room.wait()
                paused = []
                continue
            }
            let connection = active[Int.random(in: 0..<active.count, using: &random)]
            let offset = next[connection]
            let count = min(16 << 10, (offset / piece + 1) * piece - offset, bytes.count - offset)
            let taken = try bytes.withUnsafeBytes { all in
                try writer.take(UnsafeRawBufferPointer(rebasing: all[offset..<offset + count]), at: Int64(offset))
            }
            guard taken else {
                paused.insert(connection)
                continue
            }
            let end = offset + count
            next[connection] = end % piece == 0 ? end + 7 * piece : end
        }
    }

    static func finish(_ writer: OrderedWriter) {
        let finished = DispatchSemaphore(value: 0)
        writer.finish { finished.signal() }
        finished.wait()
    }

    @Test func slicesOutOfOrderComeOutInOrder() async throws {
        let bytes = TestFiles.randomBytes(3 << 20, seed: 7)
        let reader = try PipeReader()
        reader.startReading()
        let room = DispatchSemaphore(value: 0)
        let writer = OrderedWriter(
            descriptor: reader.writeEnd, capacity: 1 << 20,
            hooks: DiskWriter.Hooks(onError: { Issue.record("\($0)") }, onRoom: { room.signal() }))
        try await offPool {
            try Self.feed(bytes, to: writer, room: room, seed: 1)
            Self.finish(writer)
        }
        #expect(reader.finish() == bytes)
    }

    /// The writer is held at its first write until the feeding is stuck: the ring fills to
    /// its size, no more; then the reader reads, and the rest comes out in order under the same
    /// bound (by the window's accounting, not by timing).
    @Test func aSlowReaderHoldsNoMoreThanTheRing() async throws {
        let bytes = TestFiles.randomBytes(2 << 20, seed: 8)
        let reader = try PipeReader()
        reader.startReading()
        let capacity = 512 << 10
        let slice = 16 << 10
        let holding = Atomic(true)
        let gate = DispatchSemaphore(value: 0)
        let room = DispatchSemaphore(value: 0)
        let writer = OrderedWriter(
            descriptor: reader.writeEnd, capacity: capacity,
            hooks: DiskWriter.Hooks(
                onError: { Issue.record("\($0)") }, onRoom: { room.signal() },
                beforeWrite: { _, _ in if holding.load(ordering: .acquiring) { gate.wait() } }))
        let take: @Sendable (Int) throws -> Bool = { offset in
            try bytes.withUnsafeBytes {
                try writer.take(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + slice]), at: Int64(offset))
            }
        }
        let most = try await offPool {
            var offset = 0
            while try take(offset) { offset += slice }
            #expect(offset == capacity)
            #expect(writer.window.held == Int64(capacity))
            holding.store(false, ordering: .releasing)
            gate.signal()
            var most: Int64 = 0
            while offset < bytes.count {
                if try take(offset) { offset += slice } else { room.wait() }
                most = max(most, writer.window.held)
            }
            Self.finish(writer)
            return most
        }
        #expect(most <= Int64(capacity))
        #expect(reader.finish() == bytes)
    }

    @Test func aReaderThatClosesEarlyEndsItWithOutputClosed() async throws {
        let reader = try PipeReader()
        close(reader.readEnd)
        let failure = Mutex<DownloadError?>(nil)
        let writer = OrderedWriter(
            descriptor: reader.writeEnd, capacity: 1 << 20,
            hooks: DiskWriter.Hooks(onError: { error in failure.withLock { $0 = error } }))
        let bytes = TestFiles.randomBytes(64 << 10, seed: 9)
        try await offPool {
            _ = try bytes.withUnsafeBytes { try writer.take($0, at: 0) }
            Self.finish(writer)
        }
        let error = try #require(failure.withLock { $0 })
        #expect(error.code == .outputClosed)
        #expect(error.message.contains("closed it after 0 bytes"), "\(error.message)")
        // Later slices are refused with the same error.
        #expect(throws: DownloadError.self) { _ = try bytes.withUnsafeBytes { try writer.take($0, at: 65536) } }
        close(reader.writeEnd)
    }
}
