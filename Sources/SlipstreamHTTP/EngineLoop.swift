import CCurl

/// The I/O thread's side of the engine: owns the multi handle's transfers and runs
/// `curl_multi_perform` / `curl_multi_poll` until shut down.
final class EngineLoop {
    /// What other threads ask of the I/O thread, queued by `HTTPEngine`.
    enum Command: Sendable {
        case add(id: UInt64, request: HTTPRequest, sink: any HTTPSink)
        case resume(id: UInt64)
        case cancel(id: UInt64)
        case gatherReads(id: UInt64, interval: Duration?)
        case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    /// The longest wait for sockets when libcurl has no timer due sooner.
    private let idleWaitMilliseconds: Int32
    private var transfers: [UInt64: CurlTransfer] = [:]
    /// The connection caches of SFTP transfers, one per way of trusting hosts
    /// (`CurlTransfer.sshTrust`); every other transfer uses the multi handle's.
    private var sshConnectionCaches: [String: UnsafeMutableRawPointer] = [:]
    private var shuttingDown = false

    init(multi: UnsafeMutableRawPointer, idleWaitMilliseconds: Int32) {
        self.multi = multi
        self.idleWaitMilliseconds = idleWaitMilliseconds
    }

    /// How the I/O thread waits for the next round.
    enum Wait {
        /// For the transfers' sockets (and libcurl's timers): `curl_multi_poll`, which
        /// `curl_multi_wakeup` interrupts.
        case sockets
        /// For a set time, while every transfer gathers its bytes (`gatherReads`): `sleep`
        /// interrupts it.
        case gathering
    }

    /// Runs until a `.shutdown` command: takes the queued commands (`next`), moves the
    /// transfers on, and waits for their sockets (or sleeps, while every transfer gathers its
    /// reads) unless `mayWait` says commands came meanwhile.
    func run(next: () -> [Command], mayWait: (Wait) -> Bool, sleep: (Duration) -> Void) {
        while true {
            for command in next() { handle(command) }
            if shuttingDown { break }
            var running: Int32 = 0
            slipstream_curl_multi_perform(multi, &running)
            collectFinished()
            if let gathering = gatheringInterval() {
                guard mayWait(.gathering) else { continue }
                sleep(gathering)
                continue
            }
            guard mayWait(.sockets) else { continue }
            var ready: Int32 = 0
            slipstream_curl_multi_poll(multi, nil, 0, idleWaitMilliseconds, &ready)
        }
        for id in Array(transfers.keys) { cancel(id) }
        slipstream_curl_multi_cleanup(multi)
        // (A transfer object that outlives the engine keeps its handle, and the cache it uses.)
        for cache in sshConnectionCaches.values { _ = slipstream_curl_share_cleanup(cache) }
    }

    private func handle(_ command: Command) {
        switch command {
        case .add(let id, let request, let sink):
            // libcurl takes `http:///x` for the host `x`: a URL without a host is malformed.
            guard URLOrigin(request.url) != nil else {
                sink.complete(.failure(HTTPError(.malformedURL, url: request.url, message: "no host, or a malformed one, in the URL")))
                return
            }
            guard let transfer = CurlTransfer(id: id, request: request, sink: sink) else {
                sink.complete(.failure(HTTPError(.other, url: request.url, message: "libcurl could not create a handle")))
                return
            }
            if let trust = transfer.sshTrust {
                guard let cache = sshConnectionCache(for: trust) else {
                    sink.complete(.failure(HTTPError(.other, url: request.url, message: "libcurl could not create a connection cache")))
                    return
                }
                _ = slipstream_curl_easy_setopt_pointer(transfer.easy, CURLOPT_SHARE, cache)
            }
            transfers[id] = transfer
            let code = slipstream_curl_multi_add_handle(multi, transfer.easy)
            if code != CURLM_OK {
                transfers[id] = nil
                sink.complete(
                    .failure(
                        HTTPError(
                            .other, url: request.url, message: String(cString: slipstream_curl_multi_strerror(code)))))
            }
        case .resume(let id):
            guard let transfer = transfers[id] else { return }
            // libcurl delivers the held bytes from inside curl_easy_pause; a sink that ends the
            // transfer there (or a failed write) is only reported by its result, and the
            // transfer would carry on reading if it were not ended here. A transfer with no
            // connection yet (nothing held) answers CURLE_BAD_FUNCTION_ARGUMENT: nothing to do.
            let code = slipstream_curl_easy_pause(transfer.easy, slipstream_curl_pause_cont)
            if transfer.sinkEnded != nil || code != CURLE_OK && code != CURLE_BAD_FUNCTION_ARGUMENT {
                transfers[id] = nil
                slipstream_curl_multi_remove_handle(multi, transfer.easy)
                transfer.end(transfer.outcome(of: code))
            }
        case .cancel(let id):
            cancel(id)
        case .gatherReads(let id, let interval):
            transfers[id]?.gatheringInterval = interval
        case .shutdown:
            shuttingDown = true
        }
    }

    /// The connection cache of SFTP transfers that trust hosts as `trust` says, made on first use.
    private func sshConnectionCache(for trust: String) -> UnsafeMutableRawPointer? {
        if let cache = sshConnectionCaches[trust] { return cache }
        guard let cache = slipstream_connection_share_new() else { return nil }
        sshConnectionCaches[trust] = cache
        return cache
    }

    /// How long the I/O thread may sleep instead of waiting for sockets: while every transfer
    /// gathers its reads, the shortest of their intervals (and no longer than libcurl's next
    /// timer); nil when one does not, or there is none.
    private func gatheringInterval() -> Duration? {
        var shortest: Duration?
        for transfer in transfers.values {
            guard let interval = transfer.gatheringInterval else { return nil }
            shortest = min(shortest ?? interval, interval)
        }
        guard let shortest else { return nil }
        var timeout = -1
        slipstream_curl_multi_timeout(multi, &timeout)
        return timeout >= 0 ? min(shortest, .milliseconds(timeout)) : shortest
    }

    private func cancel(_ id: UInt64) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        slipstream_curl_multi_remove_handle(multi, transfer.easy)
        transfer.end(.failure(HTTPError(.cancelled, url: transfer.request.url, message: "cancelled")))
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = slipstream_curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var pointer: UnsafeMutableRawPointer?
            _ = slipstream_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
            guard let pointer else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(pointer).takeUnretainedValue()
            let outcome = transfer.outcome(of: code)
            slipstream_curl_multi_remove_handle(multi, easy)
            transfers[transfer.id] = nil
            transfer.end(outcome)
        }
    }
}
