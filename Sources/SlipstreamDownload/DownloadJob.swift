import SlipstreamHTTP
import Synchronization

/// Runs one download: the first request finds out the size and whether ranges work, then
/// connections fetch the ranges the piece map hands out and write them at their offsets.
///
/// Transfer callbacks arrive on the engine's I/O thread, the writer's on its own thread, and
/// `cancel`, `progress` and `result` may come from any thread, so all state sits behind one
/// mutex. The network thread hands each slice to the `DiskWriter` (a copy into its bounded pool,
/// or a direct write when the disk is behind); the writer thread last closes and renames.
final class DownloadJob: Sendable {
    /// One connection written in order: bytes written, and the size when the server gave one.
    private struct Stream {
        var written: Int64 = 0
        var size: Int64?
    }

    private struct Connection {
        var assignment: Int?
        /// One past the last byte its request asked for; nil for the open-ended first request.
        var requestEnd: Int64?
        var transfer: HTTPTransfer?
    }

    private struct Plan {
        var connection: Int
        var assignment: PieceMap.Assignment
    }

    private struct State {
        /// Set when ranges work: many connections, each with an assignment of the map.
        /// Kept outside any enum so that it is mutated in place, never copied.
        var map: PieceMap?
        /// Set when ranges don't work (or the body can't be split). Neither set: probing.
        var stream: Stream?
        var file: PartFile?
        var writer: DiskWriter?
        var finalPath: String?
        var requestURL: String
        var connections: [Int: Connection] = [:]
        var nextConnection = 1
        var failures = 0
        /// Range requests answered with something else. After the first, no connection is
        /// added while one is running; after `maxRangeLies`, the download fails.
        var rangeLies = 0
        var lastError: DownloadError?
        /// Set when the download must stop: cancelled, a disk error, an unusable first answer.
        var fatal: DownloadError?
        var outcome: Result<DownloadResult, DownloadError>?
        var waiters: [CheckedContinuation<Result<DownloadResult, DownloadError>, Never>] = []
        var meter: SpeedMeter
        var lastProgressEvent = -1.0
        var bytesReceived: Int64 = 0
    }

    /// Wrong answers to range requests a download tolerates.
    static let maxRangeLies = 3

    private let engine: HTTPEngine
    private let configuration: DownloadConfiguration
    private let url: String
    private let destination: DownloadDestination
    private let events: AsyncStream<DownloadEvent>.Continuation
    private let clock = ContinuousClock()
    private let startTime: ContinuousClock.Instant
    private let state: Mutex<State>

    init(engine: HTTPEngine, configuration: DownloadConfiguration, url: String,
         destination: DownloadDestination, events: AsyncStream<DownloadEvent>.Continuation) {
        self.engine = engine
        self.configuration = configuration
        self.url = url
        self.destination = destination
        self.events = events
        startTime = clock.now
        state = Mutex(State(requestURL: url, meter: SpeedMeter(start: 0)))
    }

    private var now: Double {
        let elapsed = startTime.duration(to: clock.now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }

    // MARK: Starting, cancelling, observing (any thread)

    /// Sends the first request: `Range: bytes=0-`, which also tells whether ranges work.
    func begin() {
        let sink = SegmentSink(job: self, connection: 0, requestStart: 0, requestEnd: nil)
        state.withLock { $0.connections[0] = Connection() }
        let transfer = engine.start(configuration.request(url, range: .init(start: 0)), sink: sink)
        attach(transfer, to: 0)
    }

    func cancel() {
        let transfers: [HTTPTransfer] = state.withLock { state in
            guard state.outcome == nil, state.fatal == nil else { return [] }
            state.fatal = DownloadError(.cancelled, "the download of \(url) was cancelled"
                + (state.file.map { "; what was fetched stays in \($0.path)" } ?? ""))
            return state.connections.values.compactMap(\.transfer)
        }
        transfers.forEach { $0.cancel() }
    }

    func progress() -> DownloadProgress {
        state.withLock { Self.snapshot(&$0, at: now) }
    }

    func result() async throws(DownloadError) -> DownloadResult {
        let outcome = await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }

    private func attach(_ transfer: HTTPTransfer, to connection: Int) {
        let stop = state.withLock { state in
            state.connections[connection]?.transfer = transfer
            return state.fatal != nil
        }
        if stop { transfer.cancel() }
    }

    private func launch(_ plans: [Plan]) {
        for plan in plans {
            let (requestURL, start, end) = (state.withLock { $0.requestURL }, plan.assignment.start, plan.assignment.end)
            let sink = SegmentSink(job: self, connection: plan.connection, requestStart: start, requestEnd: end)
            let transfer = engine.start(configuration.request(requestURL, range: .init(start: start, end: end - 1)), sink: sink)
            attach(transfer, to: plan.connection)
        }
    }

    // MARK: Transfer callbacks (I/O thread)

    func receive(head: HTTPResponseHead, on sink: SegmentSink) -> HTTPSinkDecision {
        var plans: [Plan] = []
        var started: DownloadInfo?
        let decision: HTTPSinkDecision = state.withLock { state in
            if let fatal = state.fatal { return .abort(HTTPError(.cancelled, url: url, message: fatal.message)) }
            guard state.map == nil, state.stream == nil else {
                return validateSegment(head, on: sink, state: &state)
            }
            switch ProbeAnswer.from(head: head, url: url) {
            case .failure(let error):
                state.fatal = DownloadError(error)
                return .abort(error)
            case .success(let answer):
                do throws(DownloadError) {
                    try openFile(for: answer, head: head, state: &state)
                } catch {
                    state.fatal = error
                    return .abort(HTTPError(.writeFailed, url: url, message: error.message))
                }
                state.requestURL = head.effectiveURL
                if let size = answer.segmentedSize {
                    var map = PieceMap(size: size, minimumSplitSize: configuration.minimumSplitSize)
                    state.connections[sink.connection]?.assignment = map.assign()?.id
                    state.map = map
                    plans = planConnections(state: &state)
                } else {
                    state.stream = Stream(size: answer.size)
                }
                started = DownloadInfo(path: state.finalPath ?? "", totalBytes: answer.size,
                                       segmented: answer.segmentedSize != nil, effectiveURL: head.effectiveURL)
                return answer.isEmptyFile ? .finish : .proceed
            }
        }
        if let started { events.yield(.started(started)) }
        launch(plans)
        return decision
    }

    func receive(body: UnsafeRawBufferPointer, on sink: SegmentSink) -> HTTPSinkDecision {
        var progressEvent: DownloadProgress?
        let decision: HTTPSinkDecision = state.withLock { state in
            guard state.fatal == nil, let writer = state.writer else {
                return .abort(HTTPError(.cancelled, url: url, message: "stopped"))
            }
            // Where these bytes go: the stream's end, or the assignment's next byte (never
            // past the assignment's end, which another connection may have taken).
            let assignment = state.connections[sink.connection]?.assignment
            let offset: Int64
            let count: Int
            if let stream = state.stream {
                (offset, count) = (stream.written, body.count)
            } else if let id = assignment, let current = state.map?.assignment(id) {
                (offset, count) = (current.next, Int(min(Int64(body.count), current.remaining)))
            } else {
                return .abort(HTTPError(.cancelled, url: url, message: "stopped"))
            }
            // Under the lock: the next slice's offset depends on this one being taken.
            do throws(DownloadError) {
                try writer.take(UnsafeRawBufferPointer(rebasing: body[..<count]), at: offset)
            } catch {
                if state.fatal == nil { state.fatal = error }
                return .abort(HTTPError(.writeFailed, url: url, message: error.message))
            }
            let time = now
            state.bytesReceived += Int64(count)
            state.meter.add(Int64(count), at: time)
            var decision = HTTPSinkDecision.proceed
            if state.stream != nil {
                state.stream!.written += Int64(count)
            } else if let id = assignment {
                let end = state.map!.assignment(id)!.end
                if state.map!.commit(id, count: Int64(count)) {
                    state.connections[sink.connection]?.assignment = nil
                    // A request that ends where the assignment ends completes by itself and
                    // keeps its connection; one whose tail was taken by another stops here.
                    let natural = sink.requestEnd == end && count == body.count
                    decision = natural ? .proceed : .finish
                }
            }
            if time - state.lastProgressEvent >= 0.1 {
                state.lastProgressEvent = time
                progressEvent = Self.snapshot(&state, at: time)
            }
            return decision
        }
        if let progressEvent { events.yield(.progress(progressEvent)) }
        return decision
    }

    func complete(_ result: Result<Void, HTTPError>, on sink: SegmentSink) {
        var plans: [Plan] = []
        var toCancel: [HTTPTransfer] = []
        let finished: Bool = state.withLock { state in
            let assignment = state.connections.removeValue(forKey: sink.connection)?.assignment
            if let stream = state.stream, case .success = result {
                if let size = stream.size, stream.written != size {
                    state.fatal = DownloadError(.network, "\(url): the body ended after \(stream.written) of \(size) bytes")
                }
            } else if state.map == nil, case .success = result {
                state.fatal = DownloadError(.http, "\(url): the server sent no response")
            } else if state.map == nil, case .failure(let error) = result {
                if state.fatal == nil { state.fatal = DownloadError(error) }
            } else if state.map != nil {
                if let assignment {
                    // Ended before its range did: the rest goes back to a running connection
                    // whose request still covers it, else to the pool.
                    state.map!.release(assignment)
                    Self.reclaimFreeRuns(&state.map!, connections: state.connections)
                    if state.fatal == nil {
                        state.failures += 1
                        let error = result.failureError
                        if error?.code == .rangeNotHonoured { state.rangeLies += 1 }
                        state.lastError = error.map(DownloadError.init)
                            ?? DownloadError(.network, "\(url): a connection ended before its range did")
                    }
                }
                if state.fatal == nil, !state.map!.isComplete {
                    if state.rangeLies >= Self.maxRangeLies, let lie = state.lastError {
                        state.fatal = DownloadError(.http, "\(lie.message); the server does not honour ranges "
                            + "reliably, try one connection (-n 1)", http: lie.http)
                    } else if state.failures <= configuration.connectionFailureBudget {
                        plans = planConnections(state: &state)
                    } else if state.connections.isEmpty {
                        let last = state.lastError?.message ?? "connections failed"
                        state.fatal = DownloadError(state.lastError?.code ?? .network,
                            "\(last) (gave up after \(state.failures) failed connections)", http: state.lastError?.http)
                    }
                }
            }
            if state.fatal != nil { toCancel = state.connections.values.compactMap(\.transfer) }
            return state.connections.isEmpty && plans.isEmpty
        }
        toCancel.forEach { $0.cancel() }
        launch(plans)
        if finished {
            // After the last staged write, on the writer's thread: the file is then complete.
            if let writer = state.withLock({ $0.writer }) {
                writer.finish { self.finish() }
            } else {
                finish()
            }
        }
    }

    // MARK: Helpers (called with the lock held, except `stop` and `finish`)

    /// Checks a range response before any of its bytes is written.
    private func validateSegment(_ head: HTTPResponseHead, on sink: SegmentSink, state: inout State) -> HTTPSinkDecision {
        guard let map = state.map else { return .proceed }
        let asked = "bytes \(sink.requestStart)-\((sink.requestEnd ?? map.size) - 1)"
        let problem: String?
        if head.status != 206 {
            problem = "answered \(asked) with status \(head.status)"
        } else if let range = head.contentRange, range.range?.lowerBound == sink.requestStart {
            problem = range.total == map.size ? nil : "changed size: Content-Range \(head.headers["Content-Range"] ?? "") for a file of \(map.size) bytes"
        } else {
            problem = "answered \(asked) with Content-Range \(head.headers["Content-Range"] ?? "(none)")"
        }
        guard let problem else { return .proceed }
        return .abort(HTTPError(.rangeNotHonoured, url: state.requestURL, message: "the server \(problem)", status: head.status))
    }

    /// New connections for idle capacity, each with an assignment.
    private func planConnections(state: inout State) -> [Plan] {
        guard state.map != nil else { return [] }
        var plans: [Plan] = []
        let limit = state.rangeLies > 0 ? 1 : configuration.connections
        while state.connections.count < limit, let assignment = state.map!.assign() {
            let connection = state.nextConnection
            state.nextConnection += 1
            state.connections[connection] = Connection(assignment: assignment.id, requestEnd: assignment.end)
            plans.append(Plan(connection: connection, assignment: assignment))
        }
        return plans
    }

    /// Gives free runs back to running connections whose requests still cover them.
    private static func reclaimFreeRuns(_ map: inout PieceMap, connections: [Int: Connection]) {
        for connection in connections.values {
            guard let id = connection.assignment else { continue }
            map.extend(id, upTo: connection.requestEnd ?? map.size)
        }
    }

    private func openFile(for answer: ProbeAnswer, head: HTTPResponseHead, state: inout State) throws(DownloadError) {
        let path = try destination.finalPath(contentDisposition: head.contentDispositionFileName,
                                             effectiveURL: head.effectiveURL, overwrite: configuration.overwrite)
        let file = try PartFile(creating: path + ".part")
        state.file = file
        state.finalPath = path
        if let size = answer.size { try file.preallocate(size) }
        let slotSize = configuration.request(url, range: nil).receiveBufferSize
        state.writer = DiskWriter(
            file: file, slotSize: slotSize,
            maxSlots: configuration.connections * max(1, configuration.writeBufferPerConnection / slotSize),
            onError: { [weak self] error in self?.stop(with: error) })
    }

    private func stop(with error: DownloadError) {
        let transfers: [HTTPTransfer] = state.withLock { state in
            if state.fatal == nil { state.fatal = error }
            return state.connections.values.compactMap(\.transfer)
        }
        transfers.forEach { $0.cancel() }
    }

    /// Called once, when no connection is left and every staged byte is written.
    private func finish() {
        let (file, finalPath, fatal, received, segmented, size) = state.withLock { state in
            let (segmented, size) = (state.map != nil, state.map?.size ?? state.stream?.written ?? 0)
            return (state.file, state.finalPath, state.fatal, state.bytesReceived, segmented, size)
        }
        file?.close()
        var outcome: Result<DownloadResult, DownloadError>
        if let fatal {
            outcome = .failure(fatal)
        } else if let file, let finalPath {
            do throws(DownloadError) {
                try file.rename(to: finalPath, overwrite: configuration.overwrite)
                outcome = .success(DownloadResult(path: finalPath, bytes: size, segmented: segmented, bytesReceived: received))
            } catch {
                outcome = .failure(error)
            }
        } else {
            outcome = .failure(DownloadError(.http, "\(url): no usable response"))
        }
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        switch outcome {
        case .success(let result): events.yield(.finished(result))
        case .failure(let error): events.yield(.failed(error))
        }
        events.finish()
        waiters.forEach { $0.resume(returning: outcome) }
    }

    private static func snapshot(_ state: inout State, at time: Double) -> DownloadProgress {
        let (completed, total): (Int64, Int64?) = if let map = state.map {
            (map.completedBytes, map.size)
        } else {
            (state.stream?.written ?? 0, state.stream?.size)
        }
        return DownloadProgress(completedBytes: completed, totalBytes: total,
                                bytesPerSecond: state.meter.rate(at: time),
                                activeConnections: state.connections.count)
    }
}

extension Result {
    var failureError: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
