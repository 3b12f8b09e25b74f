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
        ("HTTPS://EXAMPLE.test", "https://example.test:443"),
        ("http://a@b@Example.test:90?x=@y", "http://example.test:90"),
        ("example.test/a", "example.test/a"),
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

    /// However often the queue says that starts wait (at every event of a long queue), a release
    /// wakes it once: waking every earlier call too made each release schedule as often as
    /// there had been events, which took a thousand downloads at `-j 32` 10 s of CPU.
    @Test func waitingStartsAreWokenOncePerRelease() async {
        let limiter = HostConnectionLimiter(connectionsPerHost: 1)
        #expect(limiter.acquireStart("a"))
        let wakes = Mutex(0)
        for _ in 0..<100 { limiter.reserveStarts("a", count: 5) { wakes.withLock { $0 += 1 } } }
        await withCheckedContinuation { continuation in
            limiter.reserveStarts("a", count: 5) {
                wakes.withLock { $0 += 1 }
                continuation.resume()
            }
            limiter.release("a")
        }
        // (Wakes run on Dispatch, after the release: give strays a moment to show.)
        try? await Task.sleep(for: .milliseconds(200))
        #expect(wakes.withLock { $0 } == 1)
    }
}
