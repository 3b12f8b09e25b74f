#if canImport(Glibc)
import Glibc
#endif
import SlipstreamAudio

/// `play --record PATH`: the library's recording for PATH, and what the command says about its
/// files.
enum PlayRecording {
    /// A folder when PATH is a directory, or ends with `/` (made when missing: one level); else
    /// one file, whose folder must exist. Checked before playback starts, so that a typo fails
    /// at once rather than after the first packet.
    static func recording(for path: String) throws(CommandError) -> AudioRecording {
        var status = stat()
        let exists = stat(path, &status) == 0
        if exists, status.st_mode & S_IFMT == S_IFDIR {
            guard access(path, W_OK | X_OK) == 0 else { throw failure(errno, "cannot write to the folder \(path)") }
            return AudioRecording(.folder(path))
        }
        if path.hasSuffix("/") {
            guard mkdir(path, 0o755) == 0 else { throw failure(errno, "cannot create the folder \(path)") }
            return AudioRecording(.folder(path))
        }
        guard !exists || status.st_mode & S_IFMT == S_IFREG else {
            throw CommandError(status: .disk, message: "cannot record into \(path): not a regular file")
        }
        let folder = path.contains("/") ? String(path[...path.lastIndex(of: "/")!]) : "."
        guard access(folder, W_OK | X_OK) == 0 else { throw failure(errno, "cannot create \(path)") }
        return AudioRecording(.file(path))
    }

    /// `recorded PATH: 4.20 MiB`, and the gap when there is one.
    static func finishedLine(_ file: AudioRecordingFile) -> String {
        let gap = file.droppedBytes > 0 ? " (\(Formatting.bytes(file.droppedBytes)) missing: the disk was too slow)" : ""
        return "recorded \(file.path): \(Formatting.bytes(file.audioBytes))\(gap)"
    }

    /// A disk failure with the words for error `number`.
    private static func failure(_ number: Int32, _ message: String) -> CommandError {
        CommandError(status: .disk, message: "\(message): \(String(cString: strerror(number)))")
    }
}
