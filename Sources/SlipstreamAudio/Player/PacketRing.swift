import Glibc

/// The storage of the player's packet queue: packet bytes in one ring of memory with a small
/// record per packet, from the network (the parser) to the playback thread (the decoder).
///
/// Packets already played stay in the ring while there is room, so a seek backwards into them
/// needs no network; they are the first to go when new packets need the space. A ring that keeps
/// no played packets (a live stream, where there is no going back) drops each as it is played
/// and gives the pages they took back to the system, so its memory follows what is queued, not
/// the ring's size, which the writes would otherwise touch page by page. The ring is full
/// when the packets *not yet played* fill the limit (`canStore` says no: `PacketQueue` then
/// pauses the producer). With no limit (infinite buffering) the ring grows and nothing is ever
/// dropped.
///
/// A plain value with no locking, inside `PacketQueue`. Storing a packet copies its bytes once
/// into the ring; nothing is allocated per packet once the ring exists.
struct PacketRing {
    /// Played bytes gathered before their pages are given back (one `madvise` per 64 KiB).
    static let releaseBatch = 64 * 1024

    /// One packet in the ring.
    struct Entry: Equatable {
        /// Where the packet's bytes start in the ring.
        var start: Int
        /// The packet, its `startFrame` known or guessed from the packets before it.
        var packet: AudioPacket
        /// Which of the queue's formats the packet is in.
        var formatIndex: Int
        /// The packet's `startFrame` is an estimate (after a seek by an estimated offset): its
        /// frames are played untrimmed.
        var isEstimated: Bool
        /// The title (`PacketQueue.title(_:)`) that starts being heard with this packet, if one does.
        var titleID: Int?

        /// The packet's size in bytes.
        var size: Int { packet.size }
        /// Frames the packet decodes to.
        var frameCount: Int { packet.frameCount }
        /// Stream frame of the packet's first sample (before gapless trimming), if known.
        var startFrame: Int64? { packet.startFrame }
    }

    private var ring: [UInt8]
    /// Ring capacity in bytes; `nil` limit means the ring grows without bound.
    let limit: Int?
    /// The packets kept, oldest first; `entries[entryHead...]` are live.
    private var entries: [Entry] = []
    private var entryHead = 0
    /// Index into `entries` of the next packet to play (== entries.count when none is queued).
    private var cursor = 0
    /// Bytes of packets not yet played.
    private(set) var unplayedBytes = 0
    /// Frames of packets not yet played.
    private(set) var unplayedFrames: Int64 = 0
    /// Where the next packet's bytes go.
    private var writeIndex = 0
    /// Whether played packets are kept for seeks backwards.
    let keepsPlayed: Bool
    /// Without `keepsPlayed`: the ring offset from which the bytes of dropped packets have not
    /// been given back yet.
    private var releaseMark = 0

    /// A ring holding at most `limit` bytes of unplayed packets (nil: unbounded), keeping
    /// played packets while there is room unless `keepsPlayed` is false.
    init(limit: Int?, keepsPlayed: Bool = true) {
        self.limit = limit
        self.keepsPlayed = keepsPlayed
        // Room for the limit plus one largest packet lost at the wrap.
        ring = [UInt8](repeating: 0, count: limit.map { max($0, 64 * 1024) + 64 * 1024 } ?? 1 << 20)
    }

    /// Whether a packet of `size` bytes can be stored without dropping unplayed ones.
    func canStore(_ size: Int) -> Bool {
        guard let limit else { return true }
        return unplayedBytes + size <= max(limit, size)
    }

    /// Packets waiting to be played.
    var unplayedCount: Int { entries.count - cursor }

    /// Stores a packet (the caller checked `canStore`); returns false only when a bounded ring
    /// cannot hold it even after dropping every played packet.
    @discardableResult
    mutating func append(
        _ bytes: UnsafeRawBufferPointer, packet: AudioPacket, formatIndex: Int = 0, estimated: Bool = false, titleID: Int? = nil
    ) -> Bool {
        let size = bytes.count
        guard let start = reserve(size) else { return false }
        ring.withUnsafeMutableBytes { ringBytes in
            ringBytes.baseAddress!.advanced(by: start).copyMemory(from: bytes.baseAddress!, byteCount: size)
        }
        var packet = packet
        packet.size = size
        entries.append(Entry(start: start, packet: packet, formatIndex: formatIndex, isEstimated: estimated, titleID: titleID))
        writeIndex = start + size
        unplayedBytes += size
        unplayedFrames += Int64(packet.frameCount)
        return true
    }

    /// The next packet to play, without taking it.
    var next: Entry? { cursor < entries.count ? entries[cursor] : nil }

    /// Calls `body` with the next packet's bytes and marks it played.
    mutating func playNext<R>(_ body: (Entry, UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard cursor < entries.count else { return nil }
        let entry = entries[cursor]
        cursor += 1
        unplayedBytes -= entry.size
        unplayedFrames -= Int64(entry.frameCount)
        defer { if !keepsPlayed { dropPlayed() } }
        return try ring.withUnsafeBytes { try body(entry, UnsafeRawBufferPointer(rebasing: $0[entry.start..<entry.start + entry.size])) }
    }

    /// Moves the play cursor to the kept packet containing stream frame `frame`, `before` packets
    /// earlier (to prime a decoder) where they are kept; returns that packet, or nil when
    /// the frame is not in the kept packets (a seek that needs the network).
    mutating func rewind(toFrame frame: Int64, before: Int) -> Entry? {
        guard let found = index(holding: frame) else { return nil }
        let target = max(entryHead, found - before)
        // Every packet from `target` on must have a known, continuous position.
        for i in target..<entries.count where entries[i].startFrame == nil { return nil }
        cursor = target
        recount()
        return entries[target]
    }

    /// Whether `rewind(toFrame:before:)` would find `frame` in the kept packets.
    func canRewind(toFrame frame: Int64, before: Int) -> Bool {
        guard let found = index(holding: frame) else { return false }
        return !(max(entryHead, found - before)..<entries.count).contains { entries[$0].startFrame == nil }
    }

    /// The index of the kept packet that holds stream frame `frame`.
    private func index(holding frame: Int64) -> Int? {
        guard
            let found = (entryHead..<entries.count).last(where: { i in
                guard let s = entries[i].startFrame else { return false }
                return s <= frame
            }), let s = entries[found].startFrame, frame < s + Int64(entries[found].frameCount)
        else { return nil }
        return found
    }

    /// Drops every packet (a seek to a new network offset).
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        entryHead = 0
        cursor = 0
        writeIndex = 0
        unplayedBytes = 0
        unplayedFrames = 0
        if !keepsPlayed { release(from: 0, to: ring.count) }
        releaseMark = 0
    }

    // MARK: - Ring management

    /// Drops the played packets and, once a batch of their bytes gathered, gives the whole pages
    /// they took back to the system (they read as zeros and cost a page fault when written again).
    private mutating func dropPlayed() {
        entryHead = cursor
        compactIfNeeded()
        let oldest = entryHead < entries.count ? entries[entryHead].start : writeIndex
        let span = oldest >= releaseMark ? oldest - releaseMark : ring.count - releaseMark + oldest
        guard span >= Self.releaseBatch else { return }
        if oldest >= releaseMark {
            release(from: releaseMark, to: oldest)
        } else {
            release(from: releaseMark, to: ring.count)
            release(from: 0, to: oldest)
        }
        releaseMark = oldest
    }

    /// Gives the whole pages inside ring bytes `from..<to` back to the system.
    private mutating func release(from: Int, to: Int) {
        ring.withUnsafeMutableBytes { bytes in
            let base = Int(bitPattern: bytes.baseAddress!)
            let first = (base + from + Self.pageSize - 1) / Self.pageSize * Self.pageSize
            let end = (base + to) / Self.pageSize * Self.pageSize
            guard end > first else { return }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_DONTNEED)
        }
    }

    /// The system's page size.
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// How many packet records the ring has room for before it allocates, for the tests.
    var recordCapacity: Int { entries.capacity }

    /// Bytes of the ring's memory that are resident (`mincore`), for the tests.
    func residentBytes() -> Int {
        ring.withUnsafeBytes { bytes in
            let base = Int(bitPattern: bytes.baseAddress!)
            let first = (base + Self.pageSize - 1) / Self.pageSize * Self.pageSize
            let end = (base + bytes.count) / Self.pageSize * Self.pageSize
            var pages = [UInt8](repeating: 0, count: (end - first) / Self.pageSize)
            guard mincore(UnsafeMutableRawPointer(bitPattern: first), end - first, &pages) == 0 else { return -1 }
            return pages.reduce(0) { $0 + Int($1 & 1) } * Self.pageSize
        }
    }

    /// A place for `size` contiguous bytes, dropping played packets (or growing an unbounded ring).
    private mutating func reserve(_ size: Int) -> Int? {
        while true {
            if let start = freeRun(size) { return start }
            if entryHead < cursor {
                entryHead += 1
                compactIfNeeded()
                continue
            }
            guard limit == nil || size > ring.count else { return nil }
            grow(toHold: size)
        }
    }

    /// Where `size` bytes fit after the last packet (wrapping to 0 if the end is too short)
    /// without overlapping the oldest kept packet.
    private func freeRun(_ size: Int) -> Int? {
        guard entryHead < entries.count else { return size <= ring.count ? 0 : nil }
        let oldest = entries[entryHead].start
        if writeIndex > oldest {
            if ring.count - writeIndex >= size { return writeIndex }
            return size <= oldest ? 0 : nil
        }
        // The live run wraps: free space is between writeIndex and oldest.
        if writeIndex == oldest { return nil }
        return oldest - writeIndex >= size ? writeIndex : nil
    }

    /// Doubles an unbounded ring, laying the kept packets out from 0 in order.
    private mutating func grow(toHold size: Int) {
        var bigger = [UInt8](repeating: 0, count: max(ring.count * 2, size * 2))
        var at = 0
        for i in entryHead..<entries.count {
            let e = entries[i]
            bigger.withUnsafeMutableBytes { dst in
                ring.withUnsafeBytes { src in
                    dst.baseAddress!.advanced(by: at).copyMemory(from: src.baseAddress!.advanced(by: e.start), byteCount: e.size)
                }
            }
            entries[i].start = at
            at += e.size
        }
        ring = bigger
        writeIndex = at
        releaseMark = 0
    }

    /// Drops dead records at the front now and then so `entries` does not grow forever: once
    /// there are 256 of them and they are a quarter of the live ones, so that the records (~100
    /// bytes each) stay within a third more than the packets kept, for three moves per packet.
    /// (After 4,096 dead ones, as many as the live, a 30-second queue of a 128 kbit/s MP3 kept
    /// 8,192 records: 0.8 MiB, more than its packets' bytes.)
    private mutating func compactIfNeeded() {
        guard entryHead >= 256, entryHead * 4 > entries.count - entryHead else { return }
        entries.removeFirst(entryHead)
        cursor -= entryHead
        entryHead = 0
    }

    private mutating func recount() {
        unplayedBytes = 0
        unplayedFrames = 0
        for i in cursor..<entries.count {
            unplayedBytes += entries[i].size
            unplayedFrames += Int64(entries[i].frameCount)
        }
    }
}
