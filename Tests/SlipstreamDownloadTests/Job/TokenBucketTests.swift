import Testing
import TestSupport
@testable import SlipstreamDownload

/// The rate limiter's arithmetic, on a clock the tests move by hand.
@Suite struct TokenBucketTests {
    @Test func aFullBucketPassesItsDepthThenRefillsAtTheRate() {
        let bucket = Bucket(rate: 1000, depth: 100, quantum: 1, at: 0)
        #expect(bucket.take(60, client: 1, at: 0))
        #expect(bucket.take(40, client: 1, at: 0))
        #expect(!bucket.take(10, client: 1, at: 0))
        // 10 bytes accrue in 10 ms.
        #expect(bucket.nextGrant == 0.01)
        #expect(bucket.grant(at: 0.005) == [])
        #expect(bucket.grant(at: 0.01) == [1])
        #expect(bucket.take(10, client: 1, at: 0.01))
        // Never more than the depth, however long the pause.
        #expect(bucket.take(100, client: 2, at: 100))
        #expect(!bucket.take(1, client: 2, at: 100))
    }

    @Test func aSliceLargerThanTheBucketPassesWhenItIsFullAndLeavesADebt() {
        let bucket = Bucket(rate: 1000, depth: 100, quantum: 1, at: 0)
        #expect(bucket.take(300, client: 1, at: 0))
        #expect(bucket.tokens == -200)
        #expect(!bucket.take(50, client: 2, at: 0.1))
        // The debt of 200 is paid at 0.2 s; 50 more bytes take until 0.25 s.
        #expect(bucket.nextGrant == 0.25)
        #expect(bucket.grant(at: 0.25) == [2])
    }

    @Test func waitingClientsGoFirstInTheOrderTheyCame() {
        let bucket = Bucket(rate: 1000, depth: 100, quantum: 1, at: 0)
        #expect(bucket.take(100, client: 1, at: 0))
        #expect(!bucket.take(50, client: 2, at: 0))
        #expect(!bucket.take(50, client: 3, at: 0.01))
        // Client 4 finds 50 tokens at 0.06 s, enough for it, but 2 and 3 were there first.
        #expect(!bucket.take(10, client: 4, at: 0.06))
        #expect(bucket.waiting.map(\.client) == [2, 3, 4])
        #expect(bucket.grant(at: 0.06) == [2])
        // 10 tokens left over; client 3's 50 are there at 0.1 s, client 4's 10 at 0.11 s.
        #expect(bucket.grant(at: 0.099) == [])
        #expect(bucket.grant(at: 0.101) == [3])
        #expect(bucket.grant(at: 0.105) == [])
        #expect(bucket.grant(at: 0.111) == [4])
        #expect(bucket.waiting.isEmpty)
        // Each granted client's slice was set aside: its next take passes without the bucket.
        let left = bucket.tokens
        #expect(abs(left - 1) < 1e-6)
        #expect(bucket.take(50, client: 2, at: 0.111))
        #expect(bucket.take(50, client: 3, at: 0.111))
        #expect(bucket.take(10, client: 4, at: 0.111))
        #expect(bucket.tokens == left)
    }

    @Test func aNewRateMovesTheNextGrantAndKeepsWhatAccruedAndTheDebt() {
        let bucket = Bucket(rate: 1000, depth: 100, quantum: 1, at: 0)
        #expect(bucket.take(100, client: 1, at: 0))
        #expect(!bucket.take(50, client: 2, at: 0))
        #expect(bucket.nextGrant == 0.05)
        // 20 bytes accrued at the old rate by 0.02 s; the other 30 come at 10,000 B/s in 3 ms.
        bucket.setRate(10_000, depth: 1000, quantum: 1, at: 0.02)
        #expect(abs(bucket.tokens - 20) < 1e-9)
        #expect(abs((bucket.nextGrant ?? 0) - 0.023) < 1e-9)
        #expect(bucket.grant(at: 0.024) == [2])
        // Slower again: a debt is paid at the new rate, and the depth shrinks what is there.
        #expect(bucket.take(3000, client: 3, at: 1))
        #expect(abs(bucket.tokens + 2000) < 1e-9)
        bucket.setRate(100, depth: 10, quantum: 1, at: 1)
        #expect(!bucket.take(10, client: 3, at: 1))
        #expect(abs((bucket.nextGrant ?? 0) - 21.1) < 1e-9)
        bucket.setRate(1_000_000, depth: 10, quantum: 1, at: 2)
        #expect(abs((bucket.nextGrant ?? 0) - 2.00191) < 1e-9)
    }

    @Test func aGrantForADifferentSliceIsSettledWithTheBucket() {
        let bucket = Bucket(rate: 1000, depth: 100, quantum: 1, at: 0)
        #expect(bucket.take(100, client: 1, at: 0))
        #expect(!bucket.take(50, client: 1, at: 0))
        #expect(bucket.grant(at: 0.05) == [1])
        // Smaller than granted: the rest stays reserved for the next slice.
        #expect(bucket.take(20, client: 1, at: 0.05))
        #expect(bucket.tokens == 0 && bucket.reserved[1] == 30)
        #expect(bucket.take(30, client: 1, at: 0.05))
        #expect(bucket.reserved.isEmpty)
        #expect(!bucket.take(50, client: 2, at: 0.05))
        #expect(bucket.grant(at: 0.1) == [2])
        // Bigger than granted: the grant goes back and the slice waits its turn like any other.
        #expect(!bucket.take(30, client: 3, at: 0.1))
        #expect(!bucket.take(80, client: 2, at: 0.1))
        #expect(bucket.waiting.map(\.client) == [3, 2])
        #expect(bucket.tokens == 50)
    }

    @Test func eachTurnGrantsAQuantumThatLastsSeveralSlices() {
        let bucket = Bucket(rate: 1000, depth: 100, quantum: 50, at: 0)
        #expect(bucket.take(100, client: 1, at: 0))
        #expect(!bucket.take(10, client: 1, at: 0))
        #expect(!bucket.take(10, client: 2, at: 0))
        // A turn waits for a quantum, not just the slice.
        #expect(bucket.nextGrant == 0.05)
        #expect(bucket.grant(at: 0.05) == [1])
        for _ in 0..<5 { #expect(bucket.take(10, client: 1, at: 0.05)) }
        // The reserve is spent; client 2 waits ahead of client 1 now.
        #expect(!bucket.take(10, client: 1, at: 0.05))
        #expect(bucket.waiting.map(\.client) == [2, 1])
        #expect(bucket.grant(at: 0.1) == [2])
        #expect(bucket.grant(at: 0.151) == [1])
    }

    @Test func heldAndRemovedTokensReturn() {
        let bucket = Bucket(rate: 1000, depth: 100, quantum: 1, at: 0)
        #expect(bucket.take(70, client: 1, at: 0))
        // Another limit held the slice back: the 70 are kept for client 1's next try.
        bucket.hold(70, client: 1)
        #expect(!bucket.take(70, client: 2, at: 0))
        #expect(bucket.take(70, client: 1, at: 0))
        bucket.hold(70, client: 1)
        bucket.remove(client: 1)
        bucket.remove(client: 2)
        #expect(bucket.tokens == 100)
        #expect(bucket.waiting.isEmpty && bucket.reserved.isEmpty)
    }

    /// Clients that ask again as soon as they may, with slices of varied sizes, simulated for
    /// 20 seconds: no second passes more than the rate plus the bucket (or one slice larger than
    /// it), every second passes at least the rate less the bucket and a slice, and the clients
    /// share alike.
    @Test(arguments: [(4, 16_384), (8, 65_536), (16, 4_096)])
    func manyClientsAreHeldToTheRateAndShareIt(clients: Int, slice: Int) {
        let rate = 1_000_000.0
        let depth = rate * 0.05
        var bucket = TokenBucket(rate: rate, depth: depth, at: 0)
        var generator = SplitMix64(seed: UInt64(clients * slice))
        var passed: [(time: Double, bytes: Int)] = []
        var perClient = [Int](repeating: 0, count: clients + 1)
        // When each client asks next, and for how much.
        var asks = (1...clients).map { (client: $0, time: 0.0, bytes: slice) }
        var time = 0.0
        while time < 20 {
            for index in asks.indices where asks[index].time <= time {
                let ask = asks[index]
                if bucket.take(ask.bytes, client: ask.client, at: time) {
                    passed.append((time, ask.bytes))
                    perClient[ask.client] += ask.bytes
                    asks[index].bytes = slice / 2 + Int(generator.next() % UInt64(slice / 2))
                    asks[index].time = time
                } else {
                    asks[index].time = .infinity
                }
            }
            for client in bucket.grant(at: time) {
                let index = asks.firstIndex { $0.client == client }!
                asks[index].time = time
            }
            let next = min(asks.map(\.time).min()!, bucket.nextGrant ?? .infinity)
            time = next > time ? next : time + 0.0001
        }
        for start in stride(from: 0.0, to: 19, by: 0.25) {
            let bytes = passed.filter { $0.time >= start && $0.time < start + 1 }.map(\.bytes).reduce(0, +)
            #expect(Double(bytes) <= rate + max(depth, Double(slice)))
            #expect(Double(bytes) >= rate - depth - Double(slice))
        }
        let shares = perClient.dropFirst()
        #expect(Double(shares.max()!) <= Double(shares.min()!) * 1.15)
    }
}

/// A bucket behind a reference, so that `#expect` can call its mutating methods.
final class Bucket {
    var value: TokenBucket
    init(rate: Double, depth: Double, quantum: Double, at time: Double) {
        value = TokenBucket(rate: rate, depth: depth, quantum: quantum, at: time)
    }
    func take(_ bytes: Int, client: Int, at time: Double) -> Bool { value.take(bytes, client: client, at: time) }
    func grant(at time: Double) -> [Int] { value.grant(at: time) }
    func hold(_ bytes: Int, client: Int) { value.hold(bytes, client: client) }
    func remove(client: Int) { value.remove(client: client) }
    func setRate(_ rate: Double, depth: Double, quantum: Double, at time: Double) {
        value.setRate(rate, depth: depth, quantum: quantum, at: time)
    }
    var tokens: Double { value.tokens }
    var nextGrant: Double? { value.nextGrant }
    var waiting: [TokenBucket.Waiter] { value.waiting }
    var reserved: [Int: Int] { value.reserved }
}
