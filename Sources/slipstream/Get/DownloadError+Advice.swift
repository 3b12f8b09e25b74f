import Glibc
import SlipstreamDownload
import SlipstreamHTTP

extension DownloadError {
    /// The message with what to do about it, in this command's terms (the library's messages
    /// state facts only).
    var advice: String {
        switch code {
        case .exists:
            return message + "; use --force to replace it"
        case .rangeNotHonoured:
            return message + "; try one connection (-n 1)"
        case .output where path.map(Self.isFolder) == true:
            return message + "; give a file path, or leave -o out to use the server's name in the current folder"
        case .noSpace:
            return message + ": free some space and run it again" + (resumableFile.map { " to resume from \($0)" } ?? "")
        case .checksum:
            return message
        case .network where http?.code == .unknownHostKey:
            return message + "; check the server's key (ssh-keyscan) and add it to that file, or give --ssh-accept-new-host"
        case .network where http?.code == .hostKeyMismatch:
            return message + "; if the server's key really changed, remove its old line (ssh-keygen -R HOST -f FILE)"
        case .httpStatus where http?.code == .loginDenied:
            return message + "; check --user, --netrc or --ssh-key"
        case .network where TLSProblem.advice(for: http) != nil:
            return message + "; " + TLSProblem.advice(for: http)!
        default:
            return message + (resumableFile.map { "; run the same command again to resume from \($0)" } ?? "")
        }
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
