#if canImport(Glibc)
import Glibc
#endif

/// What is at a path the command is about to write, looked at before anything is written:
/// nothing, a regular file (with its identity, to tell the input from an output), a folder, or
/// something that is written in order and never replaced (a device, a pipe).
struct OutputPath {
    enum Kind: Equatable {
        case missing
        case regularFile
        case folder
        /// A FIFO: written in order, from the start.
        case pipe
        /// A character device (`/dev/null`, a terminal): written in order, never replaced.
        case characterDevice
        /// A socket or a block device: never written.
        case other(String)
    }

    /// How a writer writes: what it can write besides a file.
    enum Writing {
        /// In order from the start (a WAV file, a download streamed): a pipe or a device too.
        case inOrder
        /// At offsets (`play --save`): a device too, not a pipe.
        case atOffsets
        /// Into a file of its own, renamed or reopened (a recording): a file only.
        case asFile
    }

    /// The device and inode of a file: two paths with the same one name the same file.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    let path: String
    let kind: Kind
    let identity: Identity?

    /// Looks at `path`, following symbolic links.
    init(_ path: String) {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else {
            kind = .missing
            identity = nil
            return
        }
        identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regularFile
        case S_IFDIR: kind = .folder
        case S_IFIFO: kind = .pipe
        case S_IFCHR: kind = .characterDevice
        case S_IFSOCK: kind = .other("a socket")
        default: kind = .other("a device")
        }
    }

    /// Refuses what `role` ("--save", "--output wav:") may not write: the input itself (always),
    /// an existing file unless `replacing`, a folder, and a pipe or a device that `writing`
    /// cannot write.
    func check(_ role: String, input: Identity?, replacing: Bool, writing: Writing) throws(CommandError) {
        if let input, identity == input {
            throw CommandError(status: .usage, message: "\(role) \(path) is the file being played: it would be destroyed")
        }
        switch kind {
        case .missing:
            break
        case .regularFile:
            if !replacing { throw CommandError(status: .disk, message: "\(path) exists; use --force to replace it") }
        case .folder:
            throw CommandError(status: .disk, message: "\(role) \(path) is a folder, not a file")
        case .pipe:
            guard writing == .inOrder else { throw CommandError(status: .disk, message: "\(role) \(path) is a pipe (FIFO), not a file") }
        case .characterDevice:
            guard writing != .asFile else { throw CommandError(status: .disk, message: "\(role) \(path) is a device, not a file") }
        case .other(let what):
            throw CommandError(status: .disk, message: "\(role) \(path) is \(what), not a regular file")
        }
    }

    /// Opens a pipe or a device for writing in order (`get -o /dev/null`, as curl does): its
    /// descriptor, or nil when the path is not one (a file is downloaded into as usual).
    static func openStream(_ path: String) throws(CommandError) -> Int32? {
        let kind = OutputPath(path).kind
        guard kind == .pipe || kind == .characterDevice else { return nil }
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandError(status: .disk, message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }
}
