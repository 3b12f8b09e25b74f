import Foundation
import SlipstreamDownload
import TestSupport

/// What the FTP and SFTP suites share: a file of their own on the servers, and a download of it
/// into a new folder.
protocol RemoteFileDownloads {
    static var size: Int { get }
}

extension RemoteFileDownloads {
    /// A new file of `size` random bytes on the servers, its name starting with `stem`.
    func uniqueFile(_ servers: TestFTPServers, _ stem: String, size: Int = Self.size) throws -> (name: String, path: String) {
        let name = "\(stem)-\(UInt32.random(in: 0...UInt32.max)).bin"
        return (name, try servers.makeFile(name, size: size))
    }

    /// Downloads `url` into a new folder; the result and the folder.
    func download(_ url: String, _ configuration: DownloadConfiguration) async throws -> (DownloadResult, String) {
        let folder = try TestFiles.makeTemporaryFolder()
        let result = try await Downloader(configuration: configuration).start(url, to: .folder(folder)).value
        return (result, folder)
    }
}
