@testable import SlipstreamDownload
import SlipstreamCore
import SlipstreamHTTP
import Testing

/// Drives a `DownloadStateMachine` against a model server and a model disk, with no I/O:
/// carries out its actions as `DownloadJob` would, records what it did, and checks at every
/// step what must always hold:
/// - bytes are placed only where the server's bytes for them are (the transfer's position),
///   and no byte is placed twice;
/// - the file is renamed into place only when every byte was taken;
/// - exactly one final event, and nothing told after it.
struct MachineDriver {
    typealias Machine = DownloadStateMachine

    /// The size of the model file most tests use.
    static let size: Int64 = 100_000

    /// A transfer error of `code`.
    static func error(_ code: HTTPError.Code, status: Int? = nil, retryAfter: Double? = nil) -> HTTPError {
        HTTPError(code, url: "http://h/f", message: "\(code)", status: status, retryAfter: retryAfter)
    }

    /// The file the model server serves.
    struct Server {
        var size: Int64
        /// Answers ranges with 206 (else 200 with the whole file).
        var ranges = true
        var etag: String? = "\"v1\""
        /// Status of every answer (200/206 when nil).
        var status: Int?
        /// Whether range answers lie (206 from the wrong byte).
        var shiftsRanges = false
        /// Every answer's body is cut (the connection lost) after this many bytes.
        var cutsAfter: Int64?
    }

    /// One transfer the machine asked for.
    struct Transfer {
        var request: Machine.Request
        var answered = false
        /// Bytes of its body taken so far.
        var consumed: Int64 = 0
        /// Where its body ends (exclusive), once answered.
        var end: Int64 = 0
        var paused: Machine.PauseReason?
        var cancelled = false
    }

    var machine: Machine
    var server: Server
    var now = 0.0
    var transfers: [Int: Transfer] = [:]
    var events: [DownloadEvent] = []
    var outcomes: [Result<DownloadResult, DownloadError>] = []
    /// Every byte range taken for writing, in order.
    var placed = ByteRanges()
    var placedCount: Int64 = 0
    var retriesDue = 0
    /// When each retry asked for is due (`now` plus its delay), in the order asked.
    var retryTimes: [Double] = []
    var writerFinishing = false
    var renamedTo: String?
    var discarded: Bool?
    var permitRequests: [Int] = []
    var permitsReleased = 0
    /// URLs whose requests fail without an answer, with this error (a refused connection).
    var unreachable: [String: HTTPError] = [:]
    /// URLs that answer every request with this status.
    var statuses: [String: Int] = [:]
    /// URLs that never answer (a firewall drops what is sent to them): their requests wait.
    var silent: Set<String> = []
    /// What went against the rules, for `#expect(driver.violations.isEmpty)`.
    var violations: [String] = []

    init(
        server: Server, settings: (inout Machine.Settings) -> Void = { _ in }, seed: UInt64 = 1,
        resume: Machine.ResumePoint? = nil
    ) {
        var values = Machine.Settings(url: "http://h/f")
        values.expectedPath = "/d/f"
        values.connections = 4
        values.minimumSplitSize = 1000
        settings(&values)
        machine = Machine(settings: values, seed: seed)
        self.server = server
        apply(machine.start(resume: resume, at: now))
    }

    var isDone: Bool { machine.phase.stage == .done }

    // MARK: Carrying out actions

    mutating func apply(_ actions: [Machine.Action]) {
        for action in actions {
            if !outcomes.isEmpty, case .emit = action { violations.append("an event after the end: \(action)") }
            switch action {
            case .request(let request):
                transfers[request.connection] = Transfer(request: request)
            case .cancel(let connection):
                transfers[connection]?.cancelled = true
            case .resume(let connection):
                transfers[connection]?.paused = nil
            case .requestPermits(let count):
                permitRequests.append(count)
            case .releasePermits(let count, _):
                permitsReleased += count
            case .closeFile:
                // The stream restarts: what it wrote counts for nothing.
                placed = ByteRanges()
            case .scheduleRetry(let delay):
                retriesDue += 1
                retryTimes.append(now + delay)
            case .emit(let event):
                events.append(event)
            case .finishWriter:
                if writerFinishing { violations.append("the writer finished twice") }
                writerFinishing = true
            case .complete(let path):
                if placed.ranges != [0..<server.size] && server.size > 0 {
                    violations.append("renamed with \(placed.ranges) of \(server.size) bytes")
                }
                renamedTo = path
            case .discard(let removing):
                discarded = removing
            case .finish(let outcome):
                if !outcomes.isEmpty { violations.append("a second outcome") }
                outcomes.append(outcome)
            }
        }
    }

    // MARK: The world's moves

    /// The head the model server gives `transfer`.
    func head(for transfer: Transfer) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        if let etag = server.etag { headers.add(name: "ETag", value: etag) }
        let start = transfer.request.start + (server.shiftsRanges && transfer.request.start > 0 ? 1 : 0)
        if let status = server.status ?? statuses[transfer.request.url] {
            return HTTPResponseHead(status: status, headers: headers, effectiveURL: transfer.request.url)
        }
        guard server.ranges, start < server.size else {
            headers.add(name: "Content-Length", value: "\(server.size)")
            return HTTPResponseHead(status: 200, headers: headers, effectiveURL: transfer.request.url)
        }
        let end = min(transfer.request.end ?? server.size, server.size)
        headers.add(name: "Content-Range", value: "bytes \(start)-\(end - 1)/\(server.size)")
        headers.add(name: "Content-Length", value: "\(end - start)")
        return HTTPResponseHead(status: 206, headers: headers, effectiveURL: transfer.request.url)
    }

    /// Answers connection `number`'s request.
    mutating func answer(_ number: Int) {
        guard var transfer = transfers[number], !transfer.answered, !silent.contains(transfer.request.url) else { return }
        if let error = unreachable[transfer.request.url] { return end(number, error: error) }
        let head = head(for: transfer)
        transfer.answered = true
        let from = head.status == 206 ? (head.contentRange?.range?.lowerBound ?? 0) : 0
        transfer.consumed = from - transfer.request.start
        transfer.end = head.status == 206 ? (head.contentRange?.range?.upperBound ?? 0) + 1 : head.contentLength ?? 0
        transfers[number] = transfer
        let verdict: Machine.Verdict
        switch machine.head(head, on: number, wallClock: 0) {
        case .verdict(let given, let actions):
            verdict = given
            apply(actions)
        case .open(let opening):
            let (given, actions) = machine.fileOpened(.success("/d/f"), for: opening, head: head, on: number, at: now)
            verdict = given
            apply(actions)
        }
        switch verdict {
        case .proceed: if head.status >= 300 || transfer.end == transfer.request.start + transfer.consumed { end(number) }
        case .finish: end(number)
        case .abort(let error): end(number, error: error)
        }
    }

    /// Delivers up to `count` bytes of connection `number`'s body.
    mutating func deliver(_ number: Int, count: Int, writerFull: Bool = false, rateLimited: Bool = false) {
        guard let transfer = transfers[number], transfer.answered, transfer.paused == nil, !transfer.cancelled else { return }
        let position = transfer.request.start + transfer.consumed
        let cut = server.cutsAfter.map { transfer.request.start + $0 } ?? .max
        let slice = Int(min(Int64(count), min(transfer.end, cut) - position))
        guard slice > 0 else { return position < transfer.end ? end(number, error: Self.error(.connectionLost)) : end(number) }
        if rateLimited { return pause(number, for: .rateLimit) }
        switch machine.place(slice, on: number) {
        case .abort:
            end(number, error: machine.stopped)
        case .write(let offset, let taken):
            if offset != position { violations.append("connection \(number) at byte \(position) placed at \(offset)") }
            if taken > slice || taken <= 0 { violations.append("placed \(taken) of a slice of \(slice)") }
            if writerFull { return pause(number, for: .disk) }
            let range = offset..<(offset + Int64(taken))
            if placed.overlaps(range) { violations.append("bytes \(range) placed twice") }
            placed.insert(range)
            placedCount += Int64(taken)
            let result = machine.took(taken, of: slice, on: number, at: now)
            if let progress = result.progress { apply([.emit(.progress(progress))]) }
            apply(result.actions)
            transfers[number]!.consumed += Int64(taken)
            switch result.verdict {
            case .proceed:
                if taken < slice { violations.append("took part of a slice and went on") }
                if transfers[number]!.request.start + transfers[number]!.consumed == transfers[number]!.end { end(number) }
            case .finish: end(number)
            case .abort(let error): end(number, error: error)
            }
        }
    }

    /// Connection `number`'s transfer pauses, as the job pauses it when `reason` holds it back.
    mutating func pause(_ number: Int, for reason: Machine.PauseReason) {
        machine.pause(number, for: reason)
        transfers[number]!.paused = reason
    }

    /// Connection `number`'s transfer ends (with `error`, or cancelled if it was).
    mutating func end(_ number: Int, error: HTTPError? = nil) {
        guard let transfer = transfers.removeValue(forKey: number) else { return }
        let error = error ?? (transfer.cancelled ? HTTPError(.cancelled, url: "u", message: "cancelled") : nil)
        apply(machine.transferEnded(number, error: error, at: now))
    }

    mutating func tick(by seconds: Double = Machine.tickInterval) {
        now += seconds
        apply(machine.tick(at: now))
    }

    /// The retry due first: the clock moves on to its time, if that is later.
    mutating func retry() {
        guard retriesDue > 0 else { return }
        retriesDue -= 1
        if let first = retryTimes.indices.min(by: { retryTimes[$0] < retryTimes[$1] }) {
            now = max(now, retryTimes.remove(at: first))
        }
        apply(machine.retryDue(at: now))
    }

    /// The writer ends: its last write, then the rename (or the clean-up). Its records claim
    /// bytes written where the file keeps records and bytes were placed (or a resume's, before
    /// a file is opened).
    mutating func finishWriter(renameFails: DownloadError? = nil) {
        guard writerFinishing, !isDone else { return }
        let keptRecords = machine.opening.map { $0.keepsRecords && !placed.isEmpty } ?? true
        apply(machine.writerFinished(keptRecords: keptRecords, at: now))
        if renamedTo != nil, !isDone { apply(machine.completed(renameFails.map { .failure($0) } ?? .success(()))) }
    }

    /// Runs the world until the download ends: answers, bodies in `chunk`-byte slices, cancels
    /// carried out, retries and ticks when nothing else moves.
    mutating func runToEnd(chunk: Int = 4096, limit: Int = 100_000) {
        for _ in 0..<limit where !isDone {
            if let number = transfers.keys.sorted().first(where: { transfers[$0]!.cancelled }) {
                end(number)
            } else if let number = transfers.keys.sorted().first(where: {
                !transfers[$0]!.answered && !silent.contains(transfers[$0]!.request.url)
            }) {
                answer(number)
            } else if let number = transfers.keys.sorted().first(where: { transfers[$0]!.answered && transfers[$0]!.paused == nil }) {
                deliver(number, count: chunk)
            } else if let number = transfers.keys.sorted().first(where: { [.disk, .order].contains(transfers[$0]!.paused) }) {
                apply(machine.diskHasRoom(at: now))
                _ = number
            } else if let number = transfers.keys.sorted().first(where: { transfers[$0]!.paused == .rateLimit }) {
                apply(machine.rateGranted(number, at: now))
            } else if writerFinishing {
                finishWriter()
            } else if retriesDue > 0 {
                retry()
            } else {
                tick()
            }
        }
    }

    /// The final event, if one was told.
    var finalEvent: DownloadEvent? {
        events.last.flatMap { event in
            switch event {
            case .finished, .failed: event
            default: nil
            }
        }
    }

    /// Checks the rules that hold at the end of every run.
    func checkEnd() {
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        let finals = events.filter { if case .finished = $0 { true } else if case .failed = $0 { true } else { false } }
        #expect(finals.count == 1, "final events: \(finals)")
        #expect(outcomes.count == 1)
        #expect(finalEvent != nil, "the final event comes last")
        if case .success(let result)? = outcomes.first {
            #expect(renamedTo == "/d/f")
            #expect(placed.ranges == (server.size > 0 ? [0..<server.size] : []))
            #expect(result.bytes == server.size)
        } else {
            #expect(renamedTo == nil || discarded != nil)
        }
    }
}
