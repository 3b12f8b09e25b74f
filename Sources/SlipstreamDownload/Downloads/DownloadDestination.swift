#if canImport(Glibc)
import Glibc
#endif

/// Where a download goes: a given file, a folder where the name comes from the server
/// (`Content-Disposition`) or the URL, or a stream of the bytes in order.
public enum DownloadDestination: Sendable, Equatable {
    /// Exactly this path.
    case file(String)
    /// This folder, under a name chosen from the response.
    case folder(String)
    /// The bytes in order, written to this open file descriptor (a pipe, standard output; left
    /// open). Still segmented: ranges ahead of the write position are held in a ring of
    /// `DownloadConfiguration.streamBufferSize` bytes, and connections that run further ahead
    /// pause until the writing catches up. Nothing is kept for a resume: a download that
    /// stops has to start over. A reader that closes early ends it with `.outputClosed`.
    case stream(fileDescriptor: Int32)

    /// The bytes in order on standard output (`stream(fileDescriptor: 1)`).
    public static var standardOutput: DownloadDestination { .stream(fileDescriptor: STDOUT_FILENO) }

    /// The path a stream's result and events name: `-` for standard output.
    static func streamPath(_ descriptor: Int32) -> String {
        descriptor == STDOUT_FILENO ? "-" : "/dev/fd/\(descriptor)"
    }

    /// Refuses, before any request, what can never work: a file path that is a folder, a
    /// device, a pipe or a socket, a missing or unwritable folder, or (without `overwrite`) an
    /// existing file.
    func check(overwrite: Bool) throws(DownloadError) {
        switch self {
        case .file(let path):
            if path.hasSuffix("/") || FileSystem.isFolder(path) {
                throw DownloadError(.output, "\(path) is a folder, not a file", path: path)
            }
            try Self.checkFolder(FileSystem.folder(of: path), for: path)
            try Self.checkFree(path, overwrite: overwrite)
        case .folder(let folder):
            try Self.checkFolder(folder, for: nil)
        case .stream:
            break
        }
    }

    /// The path the download is expected to have before any response (a folder's name may
    /// still change with `Content-Disposition`): where to look for a download to resume.
    func expectedPath(for url: String) -> String {
        switch self {
        case .file(let path): path
        case .folder(let folder): FileSystem.join(folder, OutputName.choose(contentDisposition: nil, url: url))
        case .stream(let descriptor): Self.streamPath(descriptor)
        }
    }

    /// The final path once the response is known.
    func finalPath(contentDisposition: String?, effectiveURL: String, overwrite: Bool) throws(DownloadError) -> String {
        switch self {
        case .file(let path):
            return path
        case .stream(let descriptor):
            return Self.streamPath(descriptor)
        case .folder(let folder):
            let name = OutputName.choose(contentDisposition: contentDisposition, url: effectiveURL)
            let path = FileSystem.join(folder, name)
            try Self.checkFree(path, overwrite: overwrite)
            return path
        }
    }

    /// The refusal to replace `path`, which is `kind` ("a device"), by a file.
    static func notRegularError(_ path: String, _ kind: String) -> DownloadError {
        DownloadError(.output, "\(path) is \(kind), not a regular file: a download never replaces it", path: path)
    }

    private static func checkFolder(_ folder: String, for path: String?) throws(DownloadError) {
        let prefix = path.map { "cannot write \($0): " } ?? ""
        guard FileSystem.isFolder(folder) else {
            throw DownloadError(.output, prefix + "the folder \(folder) does not exist", path: path ?? folder)
        }
        guard access(folder, W_OK) == 0 else {
            throw DownloadError(.output, prefix + "cannot write in the folder \(folder): \(FileSystem.lastError)", path: path ?? folder)
        }
    }

    /// Refuses a path taken by a file (unless `overwrite`), and always one taken by what is not
    /// a regular file (a device, a pipe, a socket): a download never replaces those.
    static func checkFree(_ path: String, overwrite: Bool) throws(DownloadError) {
        if let kind = FileSystem.specialKind(path) { throw notRegularError(path, kind) }
        if !overwrite, FileSystem.exists(path) {
            throw DownloadError(.exists, "\(path) already exists", path: path)
        }
    }
}
