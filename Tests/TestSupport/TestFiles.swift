import Foundation
import SlipstreamCore

/// Helpers for test files: fast reproducible content, comparison, temporary folders.
public enum TestFiles {
    /// Writes `size` bytes from a seeded generator (xorshift), 1 MiB at a time.
    public static func writeRandom(to path: String, size: Int, seed: UInt64) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw POSIXError(.EACCES) }
        defer { try? handle.close() }
        var state = seed | 1
        var remaining = size
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while remaining > 0 {
            let count = min(remaining, block.count)
            block.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for index in 0..<(count + 7) / 8 where index < words.count {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    words[index] = state
                }
            }
            try handle.write(contentsOf: block[..<count])
            remaining -= count
        }
    }

    /// Random bytes in memory, for the in-test server: the low byte of each SplitMix64 number
    /// (what `UInt8.random(in: 0...255, using:)` takes), written in place: the generic call per
    /// byte took a debug build about a second for a few MiB, on a thread of the Swift pool.
    public static func randomBytes(_ count: Int, seed: UInt64 = 42) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: generator.next()) }
        }
        return bytes
    }

    /// `count` bytes from a seeded xorshift generator, 8 at a time: fast enough for megabytes in
    /// a debug build, so a test never holds a thread of the Swift concurrency pool for long.
    public static func fastRandomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var bytes = [UInt8](repeating: 0, count: (count + 7) / 8 * 8)
        bytes.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// Whether two files have the same bytes.
    public static func equal(_ a: String, _ b: String) -> Bool {
        guard let first = FileHandle(forReadingAtPath: a), let second = FileHandle(forReadingAtPath: b) else { return false }
        defer { try? first.close(); try? second.close() }
        while true {
            let x = (try? first.read(upToCount: 4 << 20)) ?? nil
            let y = (try? second.read(upToCount: 4 << 20)) ?? nil
            if x != y { return false }
            if x == nil || x!.isEmpty { return true }
        }
    }

    /// `equal(a, b)` on a thread of its own, so that reading big files holds neither a thread of
    /// the Swift concurrency pool (which other tests' event readers need) nor one of Dispatch's
    /// few global threads (which run the downloads' timers).
    public static func equalOffPool(_ a: String, _ b: String) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: equal(a, b)) }.start()
        }
    }

    /// Whether the file at `path` holds exactly `bytes`.
    public static func contents(of path: String, equal bytes: [UInt8]) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        return data.elementsEqual(bytes)
    }

    /// Makes (once) a file of `size` pseudo-random bytes named `name` in `folder` (a server's
    /// files), seeded by its name; its path. Written beside and renamed, so that a server never
    /// serves it half-written and tests running at once may make it together.
    public static func makeServedFile(_ name: String, size: Int, in folder: String) throws -> String {
        let path = folder + "/" + name
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            (attributes[.size] as? NSNumber)?.intValue == size
        {
            return path
        }
        let temporary = path + ".tmp\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try TestFiles.writeRandom(to: temporary, size: size, seed: UInt64(truncatingIfNeeded: name.hashValueStable))
        guard rename(temporary, path) == 0 else { throw POSIXError(.EIO) }
        return path
    }

    /// A new empty folder under the test run's work folder (or the system's temporary folder).
    public static func makeTemporaryFolder() throws -> String {
        let base = ProcessInfo.processInfo.environment["SLIPSTREAM_TEST_WORK"] ?? NSTemporaryDirectory()
        let path = base + "/t-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
