extension DownloadStateMachine {
    /// Whether every byte of the file was taken for writing.
    var isComplete: Bool { map?.isComplete ?? stream?.completed ?? false }

    /// Finishes once nothing runs any more and the download is complete or stopped (a retry
    /// still waiting for its delay is then moot): the writer's queued writes first.
    mutating func finishIfIdle() -> [Action] {
        guard isRunning, connections.isEmpty, fatal != nil || isComplete || notModified else { return [] }
        phase = .finishing(phase.body)
        return [.finishWriter(keepRecord: fatal != nil && !removeFilesAtEnd)]
    }

    /// The writer wrote everything it was given (or failed): a complete file is renamed into
    /// place; a failed download ends, its files kept for a resume unless it was cancelled
    /// with `removingFiles`. `keptRecords`: the `.part` file has resume records on disk that
    /// claim bytes written (else it is removed: a `.part` without them resumes nothing, and a
    /// download that never wrote a byte leaves nothing behind).
    mutating func writerFinished(keptRecords: Bool, at now: Double) -> [Action] {
        guard phase.stage == .finishing else { return [] }
        if var error = fatal {
            let keeps = resumable && keptRecords
            if error.code == .noSpace, opening != nil {
                let progress = progress(at: now)
                let missing = progress.totalBytes.map { "\($0 - progress.completedBytes) bytes" } ?? "the rest"
                error.message += "; \(missing) still to fetch"
            }
            if !removeFilesAtEnd, keeps, error.resumableFile == nil {
                error.resumableFile = (path ?? settings.expectedPath) + ".part"
            }
            return end(.failure(error), after: [.discard(removingFiles: removeFilesAtEnd || !keeps)])
        }
        if notModified, let existing {
            return end(
                .success(
                    DownloadResult(
                        url: settings.url,
                        path: settings.expectedPath, bytes: existing.size, segmented: false, bytesReceived: 0,
                        resumedBytes: 0, notModified: true)), after: [.discard(removingFiles: false)])
        }
        guard isComplete, let path else {
            return end(
                .failure(DownloadError(.httpStatus, "\(settings.url): no usable response", url: settings.url)),
                after: [.discard(removingFiles: false)])
        }
        return [.complete(path: path)]
    }

    /// The complete file was checked and renamed into place, or that failed (then it stays
    /// `FILE.part`, its records removed).
    mutating func completed(_ result: Result<Void, DownloadError>) -> [Action] {
        guard phase.stage == .finishing else { return [] }
        switch result {
        case .success:
            return end(
                .success(
                    DownloadResult(
                        url: settings.url,
                        path: path ?? settings.expectedPath, bytes: map?.size ?? stream?.written ?? 0,
                        segmented: map != nil, bytesReceived: bytesReceived,
                        resumedBytes: resumedBytes)), after: [])
        case .failure(let error):
            return end(.failure(error), after: [.discard(removingFiles: false)])
        }
    }

    /// The one final event, and the outcome for those who wait.
    private mutating func end(_ outcome: Result<DownloadResult, DownloadError>, after actions: [Action]) -> [Action] {
        phase = .done(phase.body)
        let event: DownloadEvent =
            switch outcome {
            case .success(let result): .finished(result)
            case .failure(let error): .failed(error)
            }
        return actions + [.emit(event), .finish(outcome)]
    }
}
