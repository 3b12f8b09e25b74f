import SlipstreamHTTP

extension DownloadJob {
    /// The `.part` and resume record of an earlier run of this download (expected at `path`,
    /// which gets the `.part` suffix), when they can be used,
    /// and whether resume records may be on disk (unless none was found, they are removed
    /// before a fresh start). Anything unusable is said in a notice (and the download starts over).
    func findResumePoint(at path: String) -> (point: ResumePoint?, recordsOnDisk: Bool) {
        guard configuration.resume else { return (nil, true) }
        let store = ResumeStore(partPath: path + ".part")
        switch store.load() {
        case .nothing:
            return (nil, false)
        case .damaged(let reason):
            events.yield(.notice("\(reason); starting over"))
            return (nil, true)
        case .record(let record):
            return (resumePoint(from: record, store: store), true)
        }
    }

    /// Where to resume from with `record`, if the `.part` file and the record's validators allow it.
    private func resumePoint(from record: ControlFile, store: ResumeStore) -> ResumePoint? {
        guard FileSystem.size(of: store.partPath) == record.size else {
            events.yield(.notice("\(store.partPath) is missing or not \(record.size) bytes long; starting over"))
            return nil
        }
        let hasValidator = record.etag != nil || record.lastModified != nil
        guard hasValidator || (configuration.trustSize && record.url == url) else {
            events.yield(.notice("the server gave no ETag or Last-Modified to prove \(url) unchanged since "
                + "\(store.partPath) was written; starting over (--trust-size resumes on an equal size)"))
            return nil
        }
        var written = record.writtenRanges
        var missing = ByteRanges([0..<record.size])
        for range in written { missing.remove(range) }
        // Everything was written but not yet renamed: fetch the last piece again, which also
        // proves the remote file unchanged.
        if missing.isEmpty, record.size > 0 {
            let last = ((record.size - 1) / record.pieceSize) * record.pieceSize
            written.remove(last..<record.size)
            missing.insert(last..<record.size)
        }
        guard let firstMissing = missing.ranges.first?.lowerBound else { return nil }
        return ResumePoint(record: record, store: store, written: written, firstMissing: firstMissing)
    }

    /// Opens `FILE.part` for the first answer (lock held): created afresh (its old records
    /// removed), or reopened as it is when resuming; then its writer, which keeps resume records
    /// when the download can be resumed (ranges work).
    func openFile(size: Int64?, segmented: Bool, head: HTTPResponseHead, state: inout State) throws(DownloadError) {
        let resume = state.resume
        let held = resume == nil && size.map { $0 <= Self.heldFileSize } ?? false
        let path = if resume != nil || state.precreated != nil && head.contentDispositionFileName == nil && head.effectiveURL == url {
            // The expected name (found free when the `.part` was made, if it was).
            expectedPath
        } else {
            try destination.finalPath(contentDisposition: head.contentDispositionFileName,
                                      effectiveURL: head.effectiveURL, overwrite: configuration.overwrite)
        }
        let store = ResumeStore(partPath: path + ".part")
        let file: PartFile
        if resume != nil {
            file = try PartFile(resuming: store.partPath)
        } else if let precreated = state.precreated, precreated.path == store.partPath,
                  held || (try? precreated.name()) != nil {
            // Unnamed, a file held in memory stays so until it is complete; any other is named
            // now, and records left from an earlier run, if any, go (they would describe it).
            file = precreated
            if !held, state.recordsOnDisk { store.remove() }
            state.recordsOnDisk = false
        } else {
            discardPrecreatedFile(&state)
            file = try PartFile(creating: store.partPath)
            // Records of an earlier run: those looked for, or any under a name the answer chose.
            if state.recordsOnDisk || store.partPath != expectedPath + ".part" { store.remove() }
            state.recordsOnDisk = false
        }
        state.precreated = nil
        state.file = file
        state.finalPath = path
        let onError: @Sendable (DownloadError) -> Void = { [weak self] error in self?.stop(with: error) }
        // A new file of at most `heldFileSize` is held in memory and written at the end, off
        // the network thread (no writer thread, no resume records: a crash costs at most that
        // size again), and not reserved first (a full disk is found as soon by that write).
        if held, let size {
            state.writer = DiskWriter(holding: Int(size), file: file, onError: onError)
            return
        }
        if let size { try file.reserve(size, allocate: configuration.preallocate) }
        var checkpoint: DiskWriter.Checkpoint?
        if segmented, let size {
            var record = resume?.record ?? ControlFile(
                url: url, size: size, etag: head.hasStrongETag ? head.etag : nil, lastModified: head.lastModified)
            record.record(resume?.written ?? ByteRanges())
            // A new download's records are written at once (by the writer thread), so that they
            // exist, and their space is taken, from the start; except for a small file, which
            // would pay three fsyncs for little: its live record comes after a tenth of a second
            // if it is still running, and a crash before that costs at most its size again.
            checkpoint = DiskWriter.Checkpoint(store: store, record: record,
                                               durableInterval: configuration.durableRecordInterval,
                                               writeAtStart: resume == nil && size > Self.smallFileSize)
        }
        let slotSize = configuration.request(url, range: nil).receiveBufferSize
        state.writer = DiskWriter(
            file: file, slotSize: slotSize,
            maxSlots: configuration.connections * max(1, configuration.writeBufferPerConnection / slotSize),
            written: resume?.written ?? ByteRanges(), checkpoint: checkpoint, onError: onError)
    }

    /// Makes a fresh download's `.part` file (`partPath`, under the name expected from the URL;
    /// the first answer may still choose another) before its first request, so that creating it
    /// (which can take a disk a while) runs on the starting thread, in parallel with the network
    /// thread's transfers, not on that thread. Nil when it is taken or cannot be made (the first
    /// answer then decides, and says why).
    func precreatePartFile(at partPath: String, recordsOnDisk: inout Bool) -> PartFile? {
        // Only a new file: an existing one may be another download's, or an earlier run's that
        // the first answer decides about.
        guard let file = PartFile.creatingNew(partPath) else { return nil }
        // Records of a `.part` that was gone describe nothing.
        if recordsOnDisk { ResumeStore(partPath: partPath).remove() }
        recordsOnDisk = false
        return file
    }

    /// Closes and removes a `.part` file made before the first answer that no answer took (lock held).
    func discardPrecreatedFile(_ state: inout State) {
        guard let precreated = state.precreated else { return }
        state.precreated = nil
        precreated.close()
        precreated.remove()
    }
}
