import Foundation

/// A small tmpfs mounted for a test (needs root), to make a disk that fills up.
public final class TmpfsMount: Sendable {
    /// Where it is mounted.
    public let path: String

    /// Whether this process may mount one (it is root, and a probe mount works).
    public static let isPossible: Bool = {
        guard getuid() == 0, let probe = try? TmpfsMount(megabytes: 1) else { return false }
        probe.unmount()
        return true
    }()

    /// Mounts a tmpfs of `megabytes` MiB on a new temporary folder.
    public init(megabytes: Int) throws {
        path = NSTemporaryDirectory() + "slipstream-tmpfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let status = try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw POSIXError(.EPERM)
        }
    }

    /// Writes zeros to `file` until the filesystem is full.
    public func fill(_ file: String) throws {
        guard FileManager.default.createFile(atPath: file, contents: nil),
            let handle = FileHandle(forWritingAtPath: file)
        else { throw POSIXError(.EIO) }
        defer { try? handle.close() }
        let block = Data(count: 64 << 10)
        var size = block.count
        // Whole blocks, then single pages, until nothing more fits.
        while size >= 4096 {
            do {
                try handle.write(contentsOf: block.prefix(size))
            } catch {
                size /= 2
            }
        }
    }

    /// Unmounts it and removes the folder.
    public func unmount() {
        _ = try? Self.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
