import CCurl
import Glibc

/// The file protocols a transfer speaks besides HTTP: FTP (plain, or explicit FTPS with
/// `TransferAccess.requiresFTPTLS`), implicit FTPS and SFTP, all through libcurl.
enum FileProtocol: Sendable, Equatable {
    case ftp, ftps, sftp

    /// The protocol of `url`'s scheme; nil for HTTP(S) and anything else.
    init?(url: String) {
        guard let separator = url.firstRange(of: "://") else { return nil }
        switch url[..<separator.lowerBound].lowercased() {
        case "ftp": self = .ftp
        case "ftps": self = .ftps
        case "sftp": self = .sftp
        default: return nil
        }
    }
}

/// What a file protocol transfer keeps beside libcurl's handle (the I/O thread only).
struct FileTransferState {
    let fileProtocol: FileProtocol
    /// The first byte asked for.
    let start: Int64
    /// Bytes still to hand to the sink, for a range with an end: libcurl is asked for the rest
    /// of the file (so that it tells the file's size), and the transfer ends here at the range's end.
    var bytesLeft: Int64?
    /// `REST 0`, sent before a transfer from byte 0 to learn whether the server restarts
    /// transfers elsewhere (what a segmented download needs).
    var preQuote: UnsafeMutablePointer<curl_slist>?
    /// Whether the server answered a `REST` with `350`.
    var restartAccepted = false
    /// The last FTP reply line, for the message of a refused login.
    var lastReply = ""
    /// How the SSH host key check failed, when it refused the server.
    var hostKeyRefusal: curl_khmatch?
    /// The known hosts file the host key was checked against.
    var knownHosts: String?
}

extension CurlTransfer {
    /// Sets the options of an FTP, FTPS or SFTP transfer of `request` (after the common ones).
    func configureFileProtocol(_ fileProtocol: FileProtocol) {
        let start = request.range?.start ?? 0
        var state = FileTransferState(
            fileProtocol: fileProtocol, start: start, bytesLeft: request.range?.end.map { $0 - start + 1 })
        // MDTM, or the SFTP stat's mtime: a resume compares it to find a changed file. Only an
        // open-ended transfer's answer is read for it (the first of a download, or a stream):
        // a bounded range (a segment) skips the round trip.
        if request.range?.end == nil { setOption(CURLOPT_FILETIME, 1) }
        // Through an HTTP proxy, the protocol itself in a CONNECT tunnel (else the proxy would
        // fetch the file and answer in HTTP); SOCKS proxies carry it as they are.
        if request.proxy != nil { setOption(CURLOPT_HTTPPROXYTUNNEL, 1) }
        switch fileProtocol {
        case .ftp, .ftps:
            if fileProtocol == .ftp, request.access.requiresFTPTLS {
                setOption(CURLOPT_USE_SSL, slipstream_curlusessl_all)
            }
            // One CWD to the file's folder, not one per path segment (every connection logs in anew).
            setOption(CURLOPT_FTP_FILEMETHOD, Int(CURLFTPMETHOD_SINGLECWD.rawValue))
            if start == 0 {
                // `*`: a refusal does not fail the transfer; the reply tells (`onFileReply`).
                state.preQuote = slipstream_curl_slist_append(nil, "*REST 0")
                _ = slipstream_curl_easy_setopt_slist(easy, CURLOPT_PREQUOTE, state.preQuote)
            }
        case .sftp:
            let ssh = request.access.ssh
            if let key = ssh.privateKeyFile { setOption(CURLOPT_SSH_PRIVATE_KEYFILE, key) }
            if let key = ssh.publicKey(exists: { Glibc.access($0, R_OK) == 0 }) {
                setOption(CURLOPT_SSH_PUBLIC_KEYFILE, key)
            }
            if let passphrase = ssh.keyPassphrase { setOption(CURLOPT_KEYPASSWD, passphrase) }
            state.knownHosts = ssh.knownHosts(home: Self.homeFolder())
            if let knownHosts = state.knownHosts { setOption(CURLOPT_SSH_KNOWNHOSTS, knownHosts) }
            _ = slipstream_curl_easy_setopt_sshkey_callback(easy, curlSSHKeyCallback)
            _ = slipstream_curl_easy_setopt_pointer(easy, CURLOPT_SSH_KEYDATA, Unmanaged.passUnretained(self).toOpaque())
            // SSH needs a user name: the local one, as ssh uses, unless one is given.
            if request.access.credentials == nil, request.access.netrc == .off, !Self.hasUserInfo(request.url),
                let user = Self.localUser()
            {
                setOption(CURLOPT_USERNAME, user)
            }
        }
        file = state
    }

    /// For an SFTP transfer, what its host was (or will be) trusted by: the known hosts file,
    /// and whether a new host is accepted. libcurl reuses a cached SSH connection without
    /// checking the host again, and does not compare these when it picks one, so transfers
    /// trusted differently must not share connections (`EngineLoop` keeps a cache per value);
    /// nil for every other transfer.
    var sshTrust: String? {
        guard let file, file.fileProtocol == .sftp else { return nil }
        return (file.knownHosts ?? "") + "\0" + (request.access.ssh.acceptsNewHost ? "accept-new" : "strict")
    }

    /// libcurl's range for a file protocol: from the start to the end of the file, always.
    static func fileRange(_ range: HTTPRequest.ByteRange) -> String { "\(range.start)-" }

    /// An FTP reply line (libcurl hands them to the header callback); false when the sink ended
    /// the transfer.
    func onFileReply(_ line: UnsafeRawBufferPointer) -> Bool {
        if FileTransferAnswer.isRestartAccepted(replyLine: line) { file?.restartAccepted = true }
        var end = line.count
        while end > 0, line[end - 1] == 13 || line[end - 1] == 10 { end -= 1 }
        file?.lastReply = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<end]), as: UTF8.self)
        guard !headDelivered, FileTransferAnswer.isTransferStarting(replyLine: line), file?.preQuote != nil else {
            return true
        }
        // The transfer from byte 0 starts: the `REST 0` and `SIZE` answers are in, and from byte
        // 0 the size libcurl has is what remains. The head goes now rather than with the first
        // byte, so that the other connections of a segmented download start a round trip sooner.
        var size: curl_off_t = -1
        _ = slipstream_curl_easy_getinfo_offset(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &size)
        return size < 0 || deliverHead()
    }

    /// The head of a file protocol transfer: its facts in HTTP's terms (`FileTransferAnswer`).
    func fileHead(beyondEnd: Bool = false) -> HTTPResponseHead {
        var remaining: curl_off_t = -1
        _ = slipstream_curl_easy_getinfo_offset(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &remaining)
        var modified: curl_off_t = -1
        _ = slipstream_curl_easy_getinfo_offset(easy, CURLINFO_FILETIME_T, &modified)
        let state = file!
        let facts = FileTransferAnswer.Facts(
            start: state.start, remaining: remaining >= 0 ? Int64(remaining) : nil,
            modified: modified >= 0 ? Int64(modified) : nil,
            restarts: state.fileProtocol == .sftp || state.start > 0 || state.restartAccepted, beyondEnd: beyondEnd,
            modifiedSince: request.headers["If-Modified-Since"].flatMap(HTTPDate.secondsSince1970).map { Int64($0) })
        return FileTransferAnswer.head(facts, url: request.url)
    }

    /// The part of `bytes` within the range asked for (all of them when it has no end).
    func withinRange(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let left = file?.bytesLeft, left < bytes.count else { return bytes }
        return UnsafeRawBufferPointer(rebasing: bytes[..<Int(left)])
    }

    /// `count` bytes of the range were taken; true when the range's end is reached.
    func tookWithinRange(_ count: Int) -> Bool {
        guard let left = file?.bytesLeft else { return false }
        file!.bytesLeft = left - Int64(count)
        return left - Int64(count) <= 0
    }

    /// The outcome of a file protocol transfer that libcurl failed with `code`, where it needs
    /// words of its own: a refused host key or login, a start past the end of the file.
    func fileOutcome(of code: CURLcode) -> Result<Void, HTTPError>? {
        guard let state = file else { return nil }
        let url = request.url
        if let refusal = state.hostKeyRefusal {
            let hostsFile = state.knownHosts ?? "the known hosts file"
            return .failure(
                refusal == CURLKHMATCH_MISMATCH
                    ? HTTPError(
                        .hostKeyMismatch, url: url,
                        message:
                            "the SSH server's host key is not the one \(hostsFile) has for this host "
                            + "(a changed key, or another server)",
                        curlCode: Int(code.rawValue))
                    : HTTPError(
                        .unknownHostKey, url: url, message: "the SSH server's host is not in \(hostsFile)",
                        curlCode: Int(code.rawValue)))
        }
        switch code {
        case CURLE_BAD_DOWNLOAD_RESUME:
            // A start past the end: the answer a shorter file gets, as over HTTP.
            if !headDelivered, !deliverHead(fileHead(beyondEnd: true)) { return sinkEnded ?? .success(()) }
            return sinkEnded
        case CURLE_LOGIN_DENIED:
            let reply = state.fileProtocol == .sftp || state.lastReply.isEmpty ? curlMessage(code) : state.lastReply
            return .failure(
                HTTPError(.loginDenied, url: url, message: "the server refused the login (\(reply))", curlCode: Int(code.rawValue)))
        default:
            return nil
        }
    }

    private func setOption(_ option: CURLoption, _ value: Int) {
        _ = slipstream_curl_easy_setopt_long(easy, option, value)
    }

    private func setOption(_ option: CURLoption, _ value: String) {
        _ = slipstream_curl_easy_setopt_string(easy, option, value)
    }

    /// Answers libcurl's host key check: a key the known hosts file has for the host is fine; an
    /// unknown host only when new hosts are accepted (then added to the file); a changed key never.
    fileprivate func checkHostKey(_ match: curl_khmatch) -> Int32 {
        let answer: curl_khstat
        switch match {
        case CURLKHMATCH_OK:
            answer = CURLKHSTAT_FINE
        case CURLKHMATCH_MISSING where request.access.ssh.acceptsNewHost:
            answer = CURLKHSTAT_FINE_ADD_TO_FILE
        default:
            file?.hostKeyRefusal = match
            answer = CURLKHSTAT_REJECT
        }
        return Int32(bitPattern: answer.rawValue)
    }

    /// The user's home folder: `$HOME`, else the password database's.
    private static func homeFolder() -> String? {
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
        return getpwuid(getuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } }
    }

    private static func localUser() -> String? {
        getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
    }

    /// Whether `url` names a user (`scheme://user@host/...`).
    private static func hasUserInfo(_ url: String) -> Bool {
        guard let separator = url.firstRange(of: "://") else { return false }
        return url[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }.contains("@")
    }
}

private func curlSSHKeyCallback(
    _ easy: UnsafeMutableRawPointer?, _ known: UnsafePointer<curl_khkey>?, _ found: UnsafePointer<curl_khkey>?,
    _ match: curl_khmatch, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let context else { return Int32(bitPattern: CURLKHSTAT_REJECT.rawValue) }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().checkHostKey(match)
}
