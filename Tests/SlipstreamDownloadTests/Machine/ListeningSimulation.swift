@testable import SlipstreamDownload
import SlipstreamCore

/// A download read while it runs, simulated with no I/O: the model server's connections each
/// deliver at a speed of their own after a set-up time, in an order that changes with every
/// step (drawn from `seed`), the watchdog ticks, the writer takes every byte at once, and one
/// reader reads at `rate` bytes per second as a player does: it starts once `prebuffer` bytes
/// ahead of it are written, and counts an underrun each time it reaches a byte not written.
/// It tells the machine where it reads as `DownloadReading` does: when it starts or jumps,
/// every half piece, and when it waits.
struct ListeningSimulation {
    var driver: MachineDriver
    /// Bytes per second of each connection, by number (drawn when it is asked for).
    var speeds: [Int: Double] = [:]
    let speedRange: ClosedRange<Double>
    let setupTime: Double
    let rate: Double
    let prebuffer: Int64
    var random: SplitMix64
    /// When each transfer was asked for, and the bytes it is owed but not yet given.
    var requested: [Int: Double] = [:]
    var credit: [Int: Double] = [:]
    /// Where the reader reads; nil while it does not read.
    var position: Int64?
    var playing = false
    var underruns = 0
    /// When playback started first, and when the reader first had bytes after each `seek`.
    var firstAudio: Double?
    var lastSeek: (time: Double, offset: Int64, served: Double?)?
    var told: ReaderWindow?
    var nextTick = DownloadStateMachine.tickInterval
    /// When the download ended.
    var finished: Double?

    init(
        size: Int64, connections: Int, speeds: ClosedRange<Double>, setupTime: Double = 0.02, rate: Double,
        prebuffer: Int64, readsFrom start: Int64? = 0, seed: UInt64
    ) {
        driver = MachineDriver(server: .init(size: size)) { settings in
            settings.connections = connections
            settings.minimumSplitSize = 1 << 20
        }
        speedRange = speeds
        self.setupTime = setupTime
        self.rate = rate
        self.prebuffer = prebuffer
        random = SplitMix64(seed: seed)
        position = start
        noteRequests()
        if let start { tell(ReaderWindow(offset: start, bytesPerSecond: rate)) }
    }

    var now: Double { driver.now }

    /// The reader jumps to `offset` (a seek).
    mutating func seek(to offset: Int64) {
        position = offset
        playing = false
        lastSeek = (now, offset, nil)
        tell(ReaderWindow(offset: offset, bytesPerSecond: rate))
    }

    /// Runs until the download ends and the reader read to the end (or `limit` seconds pass).
    mutating func run(until limit: Double = 10_000, step: Double = 0.01, stopWhen: ((Self) -> Bool)? = nil) {
        while now < limit {
            if let stopWhen, stopWhen(self) { return }
            if driver.isDone, position.map({ $0 >= driver.server.size }) ?? true { return }
            advance(by: step)
        }
    }

    mutating func advance(by step: Double) {
        driver.now += step
        for number in driver.transfers.keys.sorted() where driver.transfers[number]!.cancelled { driver.end(number) }
        noteRequests()
        // Each step, the connections' bytes arrive in an order of their own.
        var numbers = driver.transfers.keys.sorted()
        for index in numbers.indices.reversed() {
            numbers.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        for number in numbers {
            guard let transfer = driver.transfers[number], !transfer.cancelled else { continue }
            if !transfer.answered {
                if now - requested[number, default: now] >= setupTime { driver.answer(number) }
                noteRequests()
                continue
            }
            credit[number, default: 0] += speeds[number]! * step
            let count = Int(credit[number]!)
            guard count > 0 else { continue }
            let before = transfer.consumed
            driver.deliver(number, count: count)
            let after = driver.transfers[number]?.consumed ?? (before + Int64(count))
            credit[number]! -= Double(after - before)
            if driver.transfers[number] == nil { credit[number] = nil }
            noteRequests()
        }
        if driver.writerFinishing { driver.finishWriter() }
        if driver.isDone, finished == nil { finished = now }
        if now >= nextTick {
            nextTick += DownloadStateMachine.tickInterval
            driver.apply(driver.machine.tick(at: now))
            noteRequests()
        }
        read(for: step)
    }

    /// Speeds and request times of the transfers asked for since the last look.
    private mutating func noteRequests() {
        for number in driver.transfers.keys.sorted() where requested[number] == nil {
            requested[number] = now
            let unit = Double(random.next() % 1_000_001) / 1_000_000
            speeds[number] = speeds[number] ?? (speedRange.lowerBound + unit * (speedRange.upperBound - speedRange.lowerBound))
        }
    }

    private mutating func read(for step: Double) {
        guard let offset = position, offset < driver.server.size else { return }
        let size = driver.server.size
        if !playing {
            let wanted = offset..<min(size, offset + prebuffer)
            guard written(wanted) else { return tellIfWaiting(at: offset) }
            playing = true
            if firstAudio == nil { firstAudio = now }
            if var seek = lastSeek, seek.served == nil {
                seek.served = now
                lastSeek = seek
            }
        }
        let next = min(size, offset + Int64(rate * step))
        guard written(offset..<next) else {
            underruns += 1
            playing = false
            return tellIfWaiting(at: offset)
        }
        position = next
        if let told, next - told.offset >= told.pieceSize / 2 {
            tell(ReaderWindow(offset: next, bytesPerSecond: rate))
        }
    }

    private func written(_ range: Range<Int64>) -> Bool {
        range.isEmpty || driver.placed.ranges.contains { $0.lowerBound <= range.lowerBound && range.upperBound <= $0.upperBound }
    }

    /// A reader that must wait tells where, once.
    private mutating func tellIfWaiting(at offset: Int64) {
        if told?.offset != offset { tell(ReaderWindow(offset: offset, bytesPerSecond: rate)) }
    }

    private mutating func tell(_ window: ReaderWindow) {
        told = window
        driver.apply(driver.machine.readerMoved(1, to: window, at: now))
        noteRequests()
    }
}
