extension HTTPError {
    /// Whether trying again may help, the one rule for downloads and the player: name lookups
    /// (a dropped network fails those first), connection failures, timeouts, connections lost
    /// mid-body, proxy trouble, other libcurl failures, and the statuses 408, 429 and 5xx. Never: other 4xx, TLS and URL errors, redirect loops,
    /// answers that ignore a range, cancellation.
    public var isRetryable: Bool {
        switch code {
        case .resolve, .connect, .timeout, .connectionLost, .proxy, .other:
            return true
        case .httpStatus:
            guard let status else { return false }
            return status == 408 || status == 429 || (500...599).contains(status)
        default:
            return false
        }
    }
}
