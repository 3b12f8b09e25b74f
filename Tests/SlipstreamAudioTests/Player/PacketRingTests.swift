import Testing
import TestSupport
@testable import SlipstreamAudio

/// The packet queue's ring alone: limits, kept history for seeks, and that every byte comes out
/// as it went in across the ring's wrap.
struct PacketRingTests {
    /// A packet whose bytes tell its number.
    static func packet(_ n: Int, size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: n &* 31 &+ $0) } }

    @discardableResult
    static func append(_ queue: inout PacketRing, _ n: Int, size: Int = 1000, frames: Int = 1152) -> Bool {
        packet(n, size: size).withUnsafeBytes {
            queue.append(
                $0,
                packet: AudioPacket(
                    offset: Int64(n * size), size: size, frameCount: frames,
                    startFrame: Int64(n * frames), startTime: nil))
        }
    }

    static func playNext(_ queue: inout PacketRing) -> (PacketRing.Entry, [UInt8])? {
        queue.playNext { entry, bytes in (entry, Array(bytes)) }
    }

    @Test func fillsToTheLimit() {
        var queue = PacketRing(limit: 10_000)
        var n = 0
        while queue.canStore(1000) == true {
            #expect(Self.append(&queue, n))
            n += 1
        }
        #expect(n == 10)
        #expect(queue.unplayedBytes == 10_000)
        #expect(queue.unplayedFrames == 10 * 1152)
        #expect(!queue.canStore(1))
        for _ in 0..<3 { _ = Self.playNext(&queue) }
        #expect(queue.unplayedBytes == 7000)
        #expect(queue.canStore(3000))
    }

    @Test func bytesComeOutAsTheyWentInAcrossTheWrap() {
        var generator = SplitMix64(seed: 7)
        var queue = PacketRing(limit: 64 * 1024)
        var appended = 0, played = 0
        for _ in 0..<5000 {
            let size = Int(generator.next() % 2000) + 1
            if generator.next() % 3 != 0, queue.canStore(size) {
                let ok = Self.packet(appended, size: size).withUnsafeBytes {
                    queue.append(
                        $0,
                        packet: AudioPacket(
                            offset: 0, size: size, frameCount: 1152,
                            startFrame: Int64(appended * 1152), startTime: nil))
                }
                #expect(ok)
                appended += 1
            } else if let (entry, bytes) = Self.playNext(&queue) {
                #expect(entry.startFrame == Int64(played * 1152))
                #expect(bytes == Self.packet(played, size: entry.size))
                played += 1
            }
        }
        #expect(appended > 1000)
        #expect(played > 1000)
    }

    @Test func playedPacketsStayForSeeksBackUntilTheSpaceIsNeeded() {
        var queue = PacketRing(limit: 64 * 1024)
        for n in 0..<60 { Self.append(&queue, n) }
        for _ in 0..<58 { _ = Self.playNext(&queue) }
        // Frame 3000 is in packet 2; two packets before it for priming is packet 0.
        #expect(queue.canRewind(toFrame: 3000, before: 2))
        let entry = queue.rewind(toFrame: 3000, before: 2)
        #expect(entry?.startFrame == 0)
        #expect(queue.unplayedCount == 60)
        #expect(Self.playNext(&queue)?.0.startFrame == 0)
        // Play on and add more than the ring holds: the oldest played packets make room, and
        // nothing unplayed is ever dropped.
        for _ in 0..<59 { _ = Self.playNext(&queue) }
        for n in 60..<180 {
            let fits = queue.canStore(1000)
            #expect(fits)
            #expect(Self.append(&queue, n))
            if n < 170 { _ = Self.playNext(&queue) }
        }
        let evicted = queue.rewind(toFrame: 0, before: 0) == nil
        #expect(evicted)
        #expect(!queue.canRewind(toFrame: 0, before: 0))
        #expect(queue.rewind(toFrame: Int64(150 * 1152), before: 1)?.startFrame == Int64(149 * 1152))
        var n = 149
        while let (entry, bytes) = Self.playNext(&queue) {
            #expect(bytes == Self.packet(n, size: entry.size))
            n += 1
        }
        #expect(n == 180)
    }

    @Test func aTargetPastTheQueuedPacketsIsNotBuffered() {
        var queue = PacketRing(limit: 10_000)
        for n in 0..<5 { Self.append(&queue, n) }
        #expect(!queue.canRewind(toFrame: Int64(5 * 1152), before: 0))
        #expect(queue.rewind(toFrame: Int64(5 * 1152), before: 0) == nil)
        #expect(queue.rewind(toFrame: Int64(5 * 1152) - 1, before: 0)?.startFrame == Int64(4 * 1152))
        // Fewer priming packets than asked when the stream starts there.
        #expect(queue.rewind(toFrame: 100, before: 3)?.startFrame == 0)
    }

    @Test func unlimitedKeepsTheWholeStream() {
        var queue = PacketRing(limit: nil)
        for n in 0..<5000 {
            #expect(queue.canStore(1000))
            Self.append(&queue, n)
        }
        for _ in 0..<5000 { _ = Self.playNext(&queue) }
        #expect(queue.rewind(toFrame: 0, before: 0)?.startFrame == 0)
        var n = 0
        while let (entry, bytes) = Self.playNext(&queue) {
            #expect(bytes == Self.packet(n, size: entry.size))
            n += 1
        }
        #expect(n == 5000)
    }

    @Test func removeAllEmptiesForANewOffset() {
        var queue = PacketRing(limit: 10_000)
        for n in 0..<5 { Self.append(&queue, n) }
        queue.removeAll()
        #expect(queue.unplayedCount == 0)
        #expect(queue.unplayedBytes == 0)
        #expect(queue.canStore(10_000))
    }

    /// A live stream's ring keeps no played packets: laps of a 512 KiB ring with a few packets
    /// queued leave about that much resident (pages of the played ones given back), every byte
    /// still coming out as it went in, and there is no seeking back into played packets.
    @Test func aRingThatKeepsNoPlayedPacketsHoldsOnlyWhatIsQueued() {
        var queue = PacketRing(limit: 512 * 1024, keepsPlayed: false)
        var appended = 0, played = 0
        // Ten laps, about 20 packets (20 KB) queued at a time.
        while appended < 10 * 512 {
            while queue.unplayedCount < 20 {
                #expect(Self.append(&queue, appended))
                appended += 1
            }
            let (entry, bytes) = Self.playNext(&queue)!
            #expect(entry.startFrame == Int64(played * 1152))
            #expect(bytes == Self.packet(played, size: entry.size))
            played += 1
        }
        let resident = queue.residentBytes()
        // The queued 20 KB, the batch not given back yet, and the pages at its edges.
        #expect(resident >= 0 && resident <= 20_000 + PacketRing.releaseBatch + 3 * 4096, "\(resident) bytes resident")
        #expect(!queue.canRewind(toFrame: Int64((played - 1) * 1152), before: 0))
        #expect(queue.recordCapacity <= 1024, "\(queue.recordCapacity) packet records")

        // A ring that keeps them has touched it all.
        var keeping = PacketRing(limit: 512 * 1024)
        for n in 0..<1024 {
            Self.append(&keeping, n)
            _ = Self.playNext(&keeping)
        }
        #expect(keeping.residentBytes() >= 512 * 1024)
    }

    /// A ring that keeps played packets holds records for about the packets that fit in it, not
    /// for thousands that were dropped: laps of a 512 KiB ring of MP3-sized packets (418 bytes,
    /// about 1,250 in the ring).
    @Test func recordsFollowThePacketsKept() {
        var queue = PacketRing(limit: 512 * 1024)
        for n in 0..<20_000 {
            while !queue.canStore(418) { _ = Self.playNext(&queue) }
            #expect(Self.append(&queue, n, size: 418))
            if n % 2 == 0 { _ = Self.playNext(&queue) }
        }
        let fit = (512 + 64) * 1024 / 418
        #expect(queue.recordCapacity <= 2 * fit, "\(queue.recordCapacity) packet records for \(fit) packets")
    }
}
