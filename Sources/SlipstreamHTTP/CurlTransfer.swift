import CCurl

/// One transfer's libcurl easy handle and the state its callbacks keep. Lives on the
/// engine's I/O thread only: created, driven and destroyed there.
final class CurlTransfer {
    let id: UInt64
    let request: HTTPRequest
    let sink: any HTTPSink
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// Status lines taken for `HTTP/1.0 200` (`ICY`), when the request accepts them.
    private var aliasList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Header fields of the response being received; reset at each status line
    /// (redirects, `100 Continue`, proxy CONNECT answers).
    private var headers = HTTPHeaders()
    /// The status of the last header block, taken as it ended: libcurl's response code may
    /// change later (closing a cached FTP connection with this handle stores its `221` reply).
    private var headerStatus: Int?
    var headDelivered = false
    /// Set when the sink ended the transfer itself: `.finish` (nil) or `.abort` (the error).
    private(set) var sinkEnded: Result<Void, HTTPError>?
    /// How long the transfer's bytes may gather before they are read (`HTTPTransfer.gatherReads`).
    var gatheringInterval: Duration?
    /// What an FTP, FTPS or SFTP transfer keeps (nil for HTTP).
    var file: FileTransferState?

    init?(id: UInt64, request: HTTPRequest, sink: any HTTPSink) {
        guard let easy = slipstream_curl_easy_init() else { return nil }
        self.id = id
        self.request = request
        self.sink = sink
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(slipstream_curl_error_size))
        errorBuffer.initialize(to: 0)
        configure()
    }

    deinit {
        slipstream_curl_easy_cleanup(easy)
        slipstream_curl_slist_free_all(headerList)
        slipstream_curl_slist_free_all(aliasList)
        slipstream_curl_slist_free_all(file?.preQuote)
        errorBuffer.deallocate()
    }

    private func configure() {
        let r = request
        setLong(CURLOPT_NOSIGNAL, 1)
        setString(CURLOPT_URL, r.url)
        setString(CURLOPT_PROTOCOLS_STR, r.allowsFileProtocols ? "http,https,ftp,ftps,sftp" : "http,https")
        setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        if r.method == .head { setLong(CURLOPT_NOBODY, 1) }
        let fileProtocol = r.allowsFileProtocols ? FileProtocol(url: r.url) : nil
        if let range = r.range { setString(CURLOPT_RANGE, fileProtocol == nil ? range.description : Self.fileRange(range)) }
        // At least a millisecond (0 is libcurl's default of 300 s), at most what 64 bits hold.
        setLong(CURLOPT_CONNECTTIMEOUT_MS, Int(max(Int64(clamping: r.connectTimeout.seconds * 1000, rounding: .up), 1)))
        switch r.ipVersion {
        case .any: break
        case .v4: setLong(CURLOPT_IPRESOLVE, Int(slipstream_curl_ipresolve_v4))
        case .v6: setLong(CURLOPT_IPRESOLVE, Int(slipstream_curl_ipresolve_v6))
        }
        setLong(CURLOPT_LOW_SPEED_LIMIT, r.lowSpeedLimit)
        setLong(CURLOPT_LOW_SPEED_TIME, r.lowSpeedLimit > 0 ? Int(max(Int64(clamping: r.lowSpeedTime.seconds, rounding: .up), 0)) : 0)
        // An empty string turns off the environment's proxy variables: only `proxy` counts.
        setString(CURLOPT_PROXY, r.proxy ?? "")
        setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        setLong(CURLOPT_FOLLOWLOCATION, r.maxRedirects > 0 ? 1 : 0)
        setLong(CURLOPT_MAXREDIRS, r.maxRedirects)
        setString(CURLOPT_USERAGENT, r.userAgent)
        configureAccess(r.access)
        setLong(CURLOPT_BUFFERSIZE, min(max(r.receiveBufferSize, 16 * 1024), 1024 * 1024))
        setLong(CURLOPT_TCP_KEEPALIVE, 1)
        _ = slipstream_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)

        var fields = HTTPHeaders()
        if r.identityEncoding { fields.add(name: "Accept-Encoding", value: "identity") }
        for field in r.headers {
            fields.remove(name: field.name)
        }
        for field in r.headers { fields.add(name: field.name, value: field.value) }
        for field in fields {
            headerList = slipstream_curl_slist_append(headerList, "\(field.name): \(field.value)")
        }
        _ = slipstream_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
        if r.acceptsICYStatus {
            aliasList = slipstream_curl_slist_append(nil, "ICY")
            _ = slipstream_curl_easy_setopt_slist(easy, CURLOPT_HTTP200ALIASES, aliasList)
        }

        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = slipstream_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        _ = slipstream_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        _ = slipstream_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        _ = slipstream_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = slipstream_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me)
        if let fileProtocol { configureFileProtocol(fileProtocol) }
    }

    /// TLS trust, login, `.netrc` and cookies.
    private func configureAccess(_ access: TransferAccess) {
        let security = access.security
        setLong(CURLOPT_SSL_VERIFYPEER, security.verifiesPeer ? 1 : 0)
        setLong(CURLOPT_SSL_VERIFYHOST, security.verifiesPeer ? 2 : 0)
        if let file = security.caFile { setString(CURLOPT_CAINFO, file) }
        if let path = security.caPath { setString(CURLOPT_CAPATH, path) }
        if let pin = security.pinnedPublicKey { setString(CURLOPT_PINNEDPUBLICKEY, pin) }
        // Never the login to a host a redirect leads to (libcurl's default, said here).
        setLong(CURLOPT_UNRESTRICTED_AUTH, 0)
        if let credentials = access.credentials {
            setString(CURLOPT_USERNAME, credentials.user)
            setString(CURLOPT_PASSWORD, credentials.password)
            let methods: UInt =
                switch credentials.methods {
                case .any: slipstream_curlauth_any
                case .basic: slipstream_curlauth_basic
                case .digest: slipstream_curlauth_digest
                }
            setLong(CURLOPT_HTTPAUTH, Int(bitPattern: methods))
        }
        switch access.netrc {
        case .off:
            break
        case .defaultFile:
            setLong(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
        case .file(let path):
            setLong(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            setString(CURLOPT_NETRC_FILE, path)
        }
        access.cookies?.attach(to: easy)
    }

    private func setLong(_ option: CURLoption, _ value: Int) {
        _ = slipstream_curl_easy_setopt_long(easy, option, value)
    }

    private func setString(_ option: CURLoption, _ value: String) {
        _ = slipstream_curl_easy_setopt_string(easy, option, value)
    }

    // MARK: Callbacks (I/O thread)

    /// A header line (an FTP reply line); false when the sink ended the transfer.
    func onHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        if file != nil { return onFileReply(line) }
        // Parsed as bytes: only the name and the value become strings.
        var end = line.count
        while end > 0, line[end - 1] == 13 || line[end - 1] == 10 { end -= 1 }
        let text = UnsafeRawBufferPointer(rebasing: line[..<end])
        if text.isEmpty {
            headerStatus = responseCode()
        } else if text.starts(with: "HTTP/".utf8) || text.starts(with: "ICY ".utf8) {
            headers = HTTPHeaders()
            headerStatus = nil
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            var start = colon + 1
            while start < end, text[start] == 32 || text[start] == 9 { start += 1 }
            while end > start, text[end - 1] == 32 || text[end - 1] == 9 { end -= 1 }
            headers.add(
                name: String(decoding: UnsafeRawBufferPointer(rebasing: text[..<colon]), as: UTF8.self),
                // Radio stations send their names in Latin-1 as often as in UTF-8.
                value: String(utf8OrWindows1252: UnsafeRawBufferPointer(rebasing: text[start..<end])))
        }
        return true
    }

    /// Returns what libcurl expects from a write callback.
    func onBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !headDelivered, !deliverHead() { return 0 }
        let slice = withinRange(bytes)
        let decision = sink.receive(body: slice)
        switch decision {
        case .proceed, .proceedThenPause:
            // Reading stops after this read (libcurl allows a pause from its own callback).
            if case .proceedThenPause = decision { _ = slipstream_curl_easy_pause(easy, slipstream_curl_pause_recv) }
            guard tookWithinRange(slice.count) else { return bytes.count }
            // The end of the range asked for (a file protocol's transfer runs to the file's end).
            sinkEnded = .success(())
            return 0
        case .pause:
            return slipstream_curl_writefunc_pause
        case .finish:
            sinkEnded = .success(())
            return 0
        case .abort(let error):
            sinkEnded = .failure(error)
            return 0
        }
    }

    /// Hands the head to the sink (`head`, else the one received); false when the sink ended
    /// the transfer.
    func deliverHead(_ head: HTTPResponseHead? = nil) -> Bool {
        headDelivered = true
        if let head { return deliver(head) }
        if file != nil { return deliver(fileHead()) }
        let status = headerStatus ?? responseCode()
        var urlPointer: UnsafeMutablePointer<CChar>?
        _ = slipstream_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &urlPointer)
        let effectiveURL = urlPointer.map { String(cString: $0) } ?? request.url
        return deliver(HTTPResponseHead(status: status, headers: headers, effectiveURL: effectiveURL))
    }

    private func deliver(_ head: HTTPResponseHead) -> Bool {
        switch sink.receive(head: head) {
        case .proceed, .pause, .proceedThenPause:
            return true
        case .finish:
            sinkEnded = .success(())
            return false
        case .abort(let error):
            sinkEnded = .failure(error)
            return false
        }
    }

    /// Ends the transfer for its sink: the cookies it carries are written to their jar first,
    /// so that whoever waits for the end finds them there.
    func end(_ outcome: Result<Void, HTTPError>) {
        request.access.cookies?.save()
        sink.complete(outcome)
    }

    /// The outcome of a transfer libcurl reports as done with `code`.
    func outcome(of code: CURLcode) -> Result<Void, HTTPError> {
        if let sinkEnded { return sinkEnded }
        if code == CURLE_OK {
            if !headDelivered, !deliverHead() { return sinkEnded ?? .success(()) }
            return .success(())
        }
        if let outcome = fileOutcome(of: code) { return outcome }
        var message = curlMessage(code)
        // An FTP reply code is no HTTP status.
        let status = headerStatus ?? (file == nil ? responseCode() : 0)
        var verifyResult = 0
        _ = slipstream_curl_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &verifyResult)
        let problem =
            file?.fileProtocol == .sftp ? nil : TLSProblem.classify(curlCode: Int(code.rawValue), verifyResult: verifyResult)
        if let problem { message = "\(problem.explanation) (\(message))" }
        return .failure(
            HTTPError(
                CurlResultCode.errorCode(for: code), url: request.url, message: message,
                status: status == 0 ? nil : status, curlCode: Int(code.rawValue), tlsProblem: problem))
    }
}

extension CurlTransfer {
    /// libcurl's response code of the transfer so far (0 before any); see `headerStatus` for
    /// why a head's status is read as its block ends.
    func responseCode() -> Int {
        var status = 0
        _ = slipstream_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return status
    }

    /// libcurl's words for its failure `code`: the error buffer's, else the code's.
    func curlMessage(_ code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: slipstream_curl_easy_strerror(code)) : detail
    }
}

private func curlWriteCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.onBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
}

private func curlHeaderCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.onHeaderLine(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
}
