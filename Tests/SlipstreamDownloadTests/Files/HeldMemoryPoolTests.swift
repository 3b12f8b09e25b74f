import Testing
@testable import SlipstreamDownload

@Suite struct HeldMemoryPoolTests {
    @Test func aBlockGivenBackIsTakenAgain() {
        let pool = HeldMemoryPool(blockSize: 4096, keep: 4)
        let first = pool.take(100)
        first.storeBytes(of: 0xAB, as: UInt8.self)
        pool.give(first, size: 100)
        #expect(pool.freeBlocks == 1)
        let second = pool.take(4096)
        #expect(second == first)
        #expect(pool.freeBlocks == 0)
        pool.give(second, size: 4096)
    }

    @Test func keepsNoMoreFreeBlocksThanItMay() {
        let pool = HeldMemoryPool(blockSize: 4096, keep: 2)
        let blocks = (0..<5).map { _ in pool.take(4096) }
        #expect(Set(blocks).count == 5)
        blocks.forEach { pool.give($0, size: 4096) }
        #expect(pool.freeBlocks == 2)
    }

    @Test func aLargerRequestGetsMemoryOfItsOwn() {
        let pool = HeldMemoryPool(blockSize: 4096, keep: 2)
        let large = pool.take(10_000)
        (large + 9_999).storeBytes(of: 1, as: UInt8.self)
        pool.give(large, size: 10_000)
        #expect(pool.freeBlocks == 0)
    }
}
