@testable import SlipstreamDownload
import Synchronization
import Testing

@Suite struct HostConnectionLimiterTests {
    @Test(arguments: [
        ("http://Example.test/a", "http://example.test:80"),
        ("https://example.test/a?b", "https://example.test:443"),
        ("http://user:pw@example.test:8080/x", "http://example.test:8080"),
        ("http://[::1]/x", "http://[::1]:80"),
        ("http://[::1]:81#f", "http://[::1]:81"),
    ])
    func hostKeys(url: String, key: String) {
        #expect(HostConnectionLimiter.host(of: url) == key)
    }

    @Test func permitsAreLimitedPerHostAndStartsComeFirst() async {
        let limiter = HostConnectionLimiter(connectionsPerHost: 3)
        let woken = Mutex(0)
        #expect(limiter.acquireStart("a"))
        #expect(limiter.acquireExtra("a") { woken.withLock { $0 += 1 } })
        #expect(limiter.acquireStart("b"))
        #expect(limiter.connections(to: "a") == 2)
        // A start waits for "a": the last permit is kept for it.
        limiter.reserveStarts("a", count: 1) {}
        #expect(!limiter.acquireExtra("a") { woken.withLock { $0 += 1 } })
        #expect(limiter.acquireStart("a"))
        #expect(!limiter.acquireExtra("a") { woken.withLock { $0 += 1 } })
        #expect(limiter.freePermits("a") == 0)
        // A waiter is woken by the next release, and then finds the permit free.
        limiter.reserveStarts("a", count: 0) {}
        await withCheckedContinuation { continuation in
            #expect(!limiter.acquireExtra("a") { continuation.resume() })
            limiter.release("a")
        }
        #expect(limiter.acquireExtra("a") {})
        #expect(limiter.connections(to: "a") == 3)
    }
}
