import SlipstreamHTTP

extension DownloadJob {
    /// A new connection's client numbers in the job's rate limiters.
    func registerWithLimiters(_ connection: Int) -> [Int] {
        limiters.map { limiter in
            limiter.register { [weak self] in self?.wake(connection) }
        }
    }

    /// Lets the limiters forget a connection that ended.
    func unregisterFromLimiters(_ connection: Connection) {
        for (limiter, client) in zip(limiters, connection.limiterClients) {
            limiter.unregister(client)
        }
    }

    /// Whether every rate limiter lets a slice of `bytes` through now (lock held, I/O thread).
    /// When one does not, what the limiters before it let through is held for the connection's
    /// next try, and the connection is marked throttled: its transfer pauses until that limiter
    /// wakes it.
    func admit(_ bytes: Int, connection number: Int, state: inout State) -> Bool {
        guard let clients = state.connections[number]?.limiterClients else { return true }
        for (index, limiter) in limiters.enumerated() where !limiter.take(bytes, client: clients[index]) {
            for earlier in 0..<index {
                limiters[earlier].hold(bytes, client: clients[earlier])
            }
            state.connections[number]?.throttled = true
            return false
        }
        return true
    }

    /// A rate limiter has tokens for a connection it paused (any thread): its transfer delivers
    /// the held slice again. The wait was no stall: the stall clock restarts.
    private func wake(_ number: Int) {
        let transfer: HTTPTransfer? = state.withLock { state in
            guard state.connections[number]?.throttled == true else { return nil }
            state.connections[number]!.throttled = false
            state.connections[number]!.lastData = now
            if state.connections[number]!.transfer == nil { state.connections[number]!.wakeOnAttach = true }
            return state.connections[number]!.transfer
        }
        transfer?.resume()
    }
}
