import SlipstreamHTTP

/// Which failures are worth another try, and how long to wait first. Pure.
///
/// What is retried is `HTTPError.isRetryable`'s rule. The wait doubles from `baseDelay` with each consecutive failure, with jitter (a random
/// 50-100% of it), and is at least what `Retry-After` asked, all capped at `maxDelay`.
struct RetryPolicy: Sendable {
    /// Tries after the first, per failure streak (new bytes for the file end a streak).
    var retries: Int
    /// Seconds before the first retry.
    var baseDelay: Double
    /// The longest wait in seconds.
    var maxDelay: Double

    /// Seconds to wait before attempt `attempt` (1 for the first retry); `jitter` in 0...1.
    func delay(attempt: Int, retryAfter: Double?, jitter: Double) -> Double {
        let exponential = baseDelay * Double(1 << min(max(attempt - 1, 0), 20))
        let backoff = min(exponential, maxDelay) * (0.5 + 0.5 * jitter)
        return min(max(backoff, retryAfter ?? 0), maxDelay)
    }
}
