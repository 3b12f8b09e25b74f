// A cron job's fetch of a file behind a login, from a server whose certificate a private CA
// signed: fetched again only when the server says it changed, refused above 1 GiB, the
// cookies the server sets kept for the next run; given ten minutes at most.
//   swift run FetchIfChanged URL FILE USER PASSWORD CA-FILE
import SlipstreamDownload
import SlipstreamHTTP

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 5 else { fatalError("usage: FetchIfChanged URL FILE USER PASSWORD CA-FILE") }
let (url, file, user, password, ca) = (arguments[0], arguments[1], arguments[2], arguments[3], arguments[4])

// README: Access
var configuration = DownloadConfiguration()
// Sent to this host only, never to another one a redirect leads to.
configuration.access.credentials = Credentials(user: user, password: password)
configuration.access.security.caFile = ca
configuration.access.cookies = CookieSession(readingFrom: "cookies.txt", savingTo: "cookies.txt")
configuration.timestamping = true  // If-Modified-Since and If-None-Match from the file there
configuration.maxFileSize = 1 << 30
let fetch = Task {
    try await Downloader(configuration: configuration).download(from: url, to: .file(file))
}
// Cancelling the task cancels the download; its .part file stays for the next run to resume.
let deadline = Task {
    try await Task.sleep(for: .seconds(600))
    fetch.cancel()
}
do {
    let result = try await fetch.value
    print(result.notModified ? "\(file) has not changed" : "saved \(result.bytes) bytes to \(result.path)")
} catch let error as DownloadError {
    print("failed (\(error.code)): \(error.message)")
}
deadline.cancel()
// README end
