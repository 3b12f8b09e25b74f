import SlipstreamHTTP

extension DownloadStateMachine {
    /// What the transfer does next, for the engine.
    enum Verdict: Sendable, Equatable {
        case proceed
        /// End the transfer successfully (an empty file: nothing to read).
        case finish
        case abort(HTTPError)
    }

    /// What the machine makes of an answer.
    enum Answer: Sendable {
        /// The first answer is usable: open this file, then tell `fileOpened`.
        case open(FileOpening)
        /// Carry on or stop, after these actions.
        case verdict(Verdict, [Action])
    }

    /// The head of connection `number`'s answer. `wallClock` (seconds since 1970) reads a
    /// `Retry-After` date.
    mutating func head(_ head: HTTPResponseHead, on number: Int, wallClock: Double) -> Answer {
        if let fatal { return .verdict(.abort(HTTPError(.cancelled, url: settings.url, message: fatal.message)), []) }
        guard connections[number] != nil else {
            return .verdict(.abort(HTTPError(.cancelled, url: settings.url, message: "stopped")), [])
        }
        guard phase.stage == .probing else { return validateSegment(head, on: number, wallClock: wallClock) }
        let source = sourceURL(reference)
        if let resume {
            var answer = ResumeAnswer.from(
                head: head, record: resume.record, firstMissing: resume.firstMissing, url: source, now: wallClock)
            if answer == .resume, let reason = unprovableResume { answer = .changed(reason) }
            switch answer {
            case .failure(let error):
                return .verdict(.abort(error), [])
            case .changed(let reason):
                self.resume = nil
                restartFresh = true
                return .verdict(
                    .abort(HTTPError(.cancelled, url: source, message: reason)),
                    [.emit(.notice("\(source): \(reason); starting over"))])
            case .resume:
                return open(
                    FileOpening(
                        size: resume.record.size, segmented: true, resuming: true, held: false,
                        written: resume.written, askedURL: source))
            }
        }
        if head.status == 304, existing != nil {
            notModified = true
            return .verdict(.finish, [])
        }
        switch ProbeAnswer.from(head: head, url: source, now: wallClock) {
        case .failure(let error):
            return .verdict(.abort(error), [])
        case .success(let answer):
            let held = settings.inOrderPieceSize == nil && answer.size.map { $0 <= settings.heldFileSize } ?? false
            return open(
                FileOpening(
                    size: answer.size, segmented: answer.segmentedSize != nil, resuming: false,
                    held: held, written: ByteRanges(), empty: answer.isEmptyFile, askedURL: source))
        }
    }

    /// Opens the file for the first answer, unless it is larger than `maxFileSize` (then the
    /// download fails before the body; a fresh download's files go).
    private mutating func open(_ opening: FileOpening) -> Answer {
        guard let limit = settings.maxFileSize, let size = opening.size, size > limit else { return .open(opening) }
        let error = tooLarge(size: size)
        if !opening.resuming { removeFilesAtEnd = true }
        return .verdict(.abort(HTTPError(.cancelled, url: settings.url, message: error.message)), [])
    }

    /// Stops the download: the file is larger than `maxFileSize`, `size` bytes where the
    /// server said (else it passed the limit with no size announced).
    mutating func tooLarge(size: Int64?) -> DownloadError {
        let limit = settings.maxFileSize ?? 0
        let what = size.map { "is \($0) bytes" } ?? "passed \(limit) bytes with no size announced"
        let error = DownloadError(.tooLarge, "\(settings.url): the file \(what), more than the \(limit) allowed", url: settings.url)
        if fatal == nil { fatal = error }
        return error
    }

    /// The file for the first answer of connection `number` is open at `result`'s path (a
    /// failure stops the download).
    mutating func fileOpened(
        _ result: Result<String, DownloadError>, for opening: FileOpening,
        head: HTTPResponseHead, on number: Int, at now: Double
    ) -> (Verdict, [Action]) {
        switch result {
        case .failure(let error):
            if fatal == nil { fatal = error }
            return (.abort(HTTPError(.writeFailed, url: settings.url, message: error.message)), [])
        case .success(let path):
            let actions = takeFile(
                opening, path: path, firstConnection: number, effectiveURL: head.effectiveURL,
                etag: head.etag, at: now)
            return (opening.empty ? .finish : .proceed, actions)
        }
    }

    /// Checks a range answer before any of its bytes is written. A mirror that answers wrongly,
    /// or with another file than the first answer's (the `reference` source's), is dropped at once.
    private mutating func validateSegment(_ head: HTTPResponseHead, on number: Int, wallClock: Double) -> Answer {
        guard let map, let connection = connections[number] else { return .verdict(.proceed, []) }
        let source = mirrors[connection.mirror].url
        let asked = "bytes \(connection.requestStart)-\((connection.requestEnd ?? map.size) - 1)"
        let problem: String
        switch RangeAnswer(head, start: connection.requestStart, expectedTotal: map.size) {
        case .partial:
            guard connection.mirror != reference, let expected = etag, let theirs = head.etag, theirs != expected else {
                return .verdict(.proceed, [])
            }
            problem = "serves a different file (ETag \(theirs), not \(expected))"
        case .wrongRange(let contentRange):
            problem = "answered \(asked) with Content-Range \(contentRange ?? "(none)")"
        case .wrongTotal(let total):
            problem =
                connection.mirror == reference
                ? "changed size: Content-Range \(head.headers["Content-Range"] ?? "") for a file of \(map.size) bytes"
                : "serves a file of \(total.map { "\($0) bytes" } ?? "unknown size"), not \(map.size) bytes"
        case .whole:
            problem = "answered \(asked) with status 200"
        case .otherStatus(let status) where (200..<300).contains(status):
            problem = "answered \(asked) with status \(status)"
        case .otherStatus:
            return .verdict(.abort(ProbeAnswer.statusError(head, url: source, now: wallClock)), [])
        }
        if connection.mirror != reference {
            connections[number]?.dropped = .mirror
            let actions = dropMirror(connection.mirror, because: problem)
            return .verdict(.abort(HTTPError(.cancelled, url: source, message: problem)), actions)
        }
        return .verdict(
            .abort(
                HTTPError(
                    .rangeNotHonoured, url: source, message: "the server \(problem)",
                    status: head.status)), [])
    }
}
