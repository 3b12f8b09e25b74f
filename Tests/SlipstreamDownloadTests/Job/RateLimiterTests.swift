import Dispatch
import Testing
@testable import SlipstreamDownload

/// A rate limiter's limit changed while a client waits: the client is woken as the new limit
/// says. The waits are bounded far above what a change takes, and far below what the old
/// limit would take (days).
@Suite struct RateLimiterTests {
    /// A client of `limiter` that owes it a million bytes at 1 B/s: without a change, its next
    /// slice waits for days. Returns the client and a semaphore its wake-up signals.
    static func indebtedClient(of limiter: RateLimiter) -> (client: Int, woken: DispatchSemaphore) {
        let woken = DispatchSemaphore(value: 0)
        let client = limiter.register { woken.signal() }
        #expect(limiter.take(1_000_000, client: client))
        #expect(!limiter.take(1000, client: client))
        return (client, woken)
    }

    @Test func liftingTheLimitWakesAWaitingClientAtOnce() {
        let limiter = RateLimiter(bytesPerSecond: 1)
        let (client, woken) = Self.indebtedClient(of: limiter)
        limiter.setBytesPerSecond(nil)
        #expect(woken.wait(timeout: .now() + 30) == .success, "not woken after the limit was lifted")
        #expect(limiter.bytesPerSecond == nil)
        #expect(limiter.take(1 << 30, client: client))
        limiter.unregister(client)
    }

    @Test func aHigherLimitWakesAWaitingClientWhenItsTurnComesAtTheNewRate() {
        let limiter = RateLimiter(bytesPerSecond: 1)
        let (client, woken) = Self.indebtedClient(of: limiter)
        // The debt is paid in a hundredth of a second at the new rate.
        limiter.setBytesPerSecond(100 << 20)
        #expect(woken.wait(timeout: .now() + 30) == .success, "not woken at the new rate")
        #expect(limiter.bytesPerSecond == 100 << 20)
        #expect(limiter.take(1000, client: client))
        limiter.unregister(client)
    }

    @Test func aLimitSetOnALimiterWithoutOneHolds() {
        let limiter = RateLimiter(bytesPerSecond: nil)
        let client = limiter.register {}
        #expect(limiter.take(1 << 30, client: client))
        limiter.setBytesPerSecond(1)
        // A full bucket of 1 byte: a larger slice passes once, then the debt holds the next.
        #expect(limiter.take(1_000_000, client: client))
        #expect(!limiter.take(1, client: client))
        limiter.unregister(client)
        #expect(RateLimiter(bytesPerSecond: 0).bytesPerSecond == 1)
    }
}
