import Glibc
import SlipstreamHTTP

extension DownloadJob {
    // MARK: Heads (I/O thread)

    func receive(head: HTTPResponseHead, on sink: SegmentSink) -> HTTPSinkDecision {
        var plans: [Plan] = []
        var started: DownloadInfo?
        var notice: String?
        var drop: MirrorDrop?
        let decision: HTTPSinkDecision = state.withLock { state in
            if let fatal = state.fatal { return .abort(HTTPError(.cancelled, url: url, message: fatal.message)) }
            guard state.map == nil, state.stream == nil else {
                return validateSegment(head, on: sink, state: &state, drop: &drop)
            }
            let wallClock = Double(time(nil))
            let size: Int64?
            let segmented: Bool
            var emptyFile = false
            if let resume = state.resume {
                switch ResumeAnswer.from(head: head, record: resume.record, firstMissing: resume.firstMissing,
                                         url: url, now: wallClock) {
                case .failure(let error):
                    return .abort(error)
                case .changed(let reason):
                    notice = "\(url): \(reason); starting over"
                    state.resume = nil
                    state.restartFresh = true
                    return .abort(HTTPError(.cancelled, url: url, message: reason))
                case .resume:
                    (size, segmented) = (resume.record.size, true)
                }
            } else {
                switch ProbeAnswer.from(head: head, url: url, now: wallClock) {
                case .failure(let error):
                    return .abort(error)
                case .success(let answer):
                    (size, segmented, emptyFile) = (answer.size, answer.segmentedSize != nil, answer.isEmptyFile)
                }
            }
            do throws(DownloadError) {
                try openFile(size: size, segmented: segmented, head: head, state: &state)
            } catch {
                state.fatal = error
                return .abort(HTTPError(.writeFailed, url: url, message: error.message))
            }
            state.mirrors[0].url = head.effectiveURL
            state.etag = head.etag
            if segmented, let size {
                let written = state.resume?.written ?? ByteRanges()
                var map = PieceMap(size: size, minimumSplitSize: configuration.minimumSplitSize, done: written)
                state.connections[sink.connection]?.assignment = map.assign(from: sink.requestStart)?.id
                state.map = map
                state.resumedBytes = written.byteCount
                plans = planConnections(state: &state)
            } else {
                state.stream = Stream(size: size)
            }
            state.resume = nil
            started = DownloadInfo(path: state.finalPath ?? "", totalBytes: size, segmented: segmented,
                                   effectiveURL: head.effectiveURL, resumedBytes: state.resumedBytes)
            return emptyFile ? .finish : .proceed
        }
        if let notice { events.yield(.notice(notice)) }
        if let drop { apply(drop) }
        if let started { events.yield(.started(started)) }
        launch(plans)
        return decision
    }

    /// Checks a range response before any of its bytes is written (lock held). A mirror that
    /// answers wrongly, or with another file than the first answer's, is dropped at once.
    private func validateSegment(_ head: HTTPResponseHead, on sink: SegmentSink, state: inout State,
                                 drop: inout MirrorDrop?) -> HTTPSinkDecision {
        guard let map = state.map else { return .proceed }
        let mirror = state.connections[sink.connection]?.mirror ?? 0
        let source = state.mirrors[mirror].url
        let asked = "bytes \(sink.requestStart)-\((sink.requestEnd ?? map.size) - 1)"
        let problem: String
        switch head.status {
        case 206:
            guard let range = head.contentRange, range.range?.lowerBound == sink.requestStart else {
                problem = "answered \(asked) with Content-Range \(head.headers["Content-Range"] ?? "(none)")"
                break
            }
            guard range.total == map.size else {
                problem = mirror == 0
                    ? "changed size: Content-Range \(head.headers["Content-Range"] ?? "") for a file of \(map.size) bytes"
                    : "serves a file of \(range.total.map { "\($0) bytes" } ?? "unknown size"), not \(map.size) bytes"
                break
            }
            if mirror != 0, let expected = state.etag, let etag = head.etag, etag != expected {
                problem = "serves a different file (ETag \(etag), not \(expected))"
                break
            }
            return .proceed
        case 200..<300:
            problem = "answered \(asked) with status \(head.status)"
        default:
            return .abort(ProbeAnswer.statusError(head, url: source, now: Double(time(nil))))
        }
        if mirror != 0 {
            state.connections[sink.connection]?.dropped = .mirror
            drop = dropMirror(mirror, because: problem, state: &state)
            return .abort(HTTPError(.cancelled, url: source, message: problem))
        }
        return .abort(HTTPError(.rangeNotHonoured, url: source, message: "the server \(problem)", status: head.status))
    }

    // MARK: Bodies (I/O thread)

    func receive(body: UnsafeRawBufferPointer, on sink: SegmentSink) -> HTTPSinkDecision {
        var progressEvent: DownloadProgress?
        let decision: HTTPSinkDecision = state.withLock { state in
            guard state.fatal == nil, let writer = state.writer,
                  state.connections[sink.connection]?.dropped == nil
            else { return .abort(HTTPError(.cancelled, url: url, message: "stopped")) }
            guard admit(body.count, connection: sink.connection, state: &state) else { return .pause }
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
            state.connections[sink.connection]?.recentBytes += Int64(count)
            if let mirror = state.connections[sink.connection]?.mirror, state.mirrors[mirror].failures > 0 {
                state.mirrors[mirror].failures = 0
            }
            state.connections[sink.connection]?.lastData = time
            var decision = HTTPSinkDecision.proceed
            if state.stream != nil {
                state.stream!.written += Int64(count)
                // A stream restarts from zero after a failure: only new ground ends a failure streak.
                if state.stream!.written > state.longestStream {
                    state.longestStream = state.stream!.written
                    state.failureStreak = 0
                }
            } else if let id = assignment {
                state.failureStreak = 0
                let end = state.map!.assignment(id)!.end
                if state.map!.commit(id, count: Int64(count)) {
                    state.connections[sink.connection]?.assignment = nil
                    // A request that ends where the assignment ends (an open-ended one: at the
                    // end of the file) completes by itself and keeps its connection for the
                    // next request; one whose tail was taken by another stops here.
                    let natural = (sink.requestEnd ?? state.map!.size) == end && count == body.count
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
}
