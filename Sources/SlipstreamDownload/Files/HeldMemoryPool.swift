import Synchronization

/// The memory small files are held in until they are written whole (`DiskWriter(holding:)`),
/// reused from one file to the next. Allocated afresh for each file, its pages faulted in
/// again every time, and glibc gave them back to the kernel and took them again (`madvise`,
/// `mprotect`) as the heap shrank and grew. (Fewer page faults; no change in wall time that
/// a thousand small downloads could measure.)
///
/// Blocks are `blockSize` bytes; at most `keep` free ones are kept, so the pool adds at most
/// `keep × blockSize` to the process's memory. A larger request gets memory of its own,
/// allocated and freed as usual.
final class HeldMemoryPool: Sendable {
    /// The pool the downloads share: blocks of the largest held file.
    static let shared = HeldMemoryPool(blockSize: Int(DownloadStateMachine.Settings.defaultHeldFileSize), keep: 16)

    /// A free block. `@unchecked` because raw pointers are not Sendable: a block in the list
    /// belongs to no one, and `take` hands it to exactly one caller.
    private struct Block: @unchecked Sendable {
        let memory: UnsafeMutableRawPointer
    }

    let blockSize: Int
    private let keep: Int
    private let free = Mutex<[Block]>([])

    init(blockSize: Int, keep: Int) {
        self.blockSize = blockSize
        self.keep = keep
    }

    /// Memory for `size` bytes, to be handed back with `give(_:size:)`.
    func take(_ size: Int) -> UnsafeMutableRawPointer {
        guard size <= blockSize else { return .allocate(byteCount: size, alignment: 16) }
        return free.withLock { $0.popLast() }?.memory ?? .allocate(byteCount: blockSize, alignment: 16)
    }

    /// Hands back memory `take(size)` gave; it must not be used after.
    func give(_ memory: UnsafeMutableRawPointer, size: Int) {
        guard size <= blockSize else { return memory.deallocate() }
        let kept = free.withLock { free in
            guard free.count < keep else { return false }
            free.append(Block(memory: memory))
            return true
        }
        if !kept { memory.deallocate() }
    }

    /// How many free blocks the pool keeps now.
    var freeBlocks: Int { free.withLock { $0.count } }
}
