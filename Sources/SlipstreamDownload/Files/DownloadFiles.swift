import Dispatch
import Glibc
import SlipstreamCore
import SlipstreamHTTP

/// The files of one download: what an earlier run left to resume, the `.part` file (made
/// before the first request where it is new), its writer and resume records, and at the end
/// the checksum, the rename and the clean-up. `DownloadJob` keeps it behind its lock and calls
/// it for the state machine's file actions; the slow steps (naming, creating or reopening the
/// file, reserving its size, writing) run on the writer's thread, never on the network thread.
struct DownloadFiles: Sendable {
    let configuration: DownloadConfiguration
    let url: String
    let destination: DownloadDestination
    /// Where the download goes unless its first answer names another file.
    let expectedPath: String
    /// The records of the download being resumed, and the record they hold.
    var resumeStore: ResumeStore?
    var resumeRecord: ControlFile?
    /// Whether resume records of an earlier run may be on disk (to be removed at the end).
    var recordsOnDisk = true
    /// Whether the writer reopened the `.part` of the download resumed, beside its records.
    var reopened = false
    /// The `.part` file made before the first request, until the first answer takes it (or
    /// the download ends without one, and it is removed).
    var precreated: PartFile?
    var writer: DiskWriter?
    /// The writer of a stream destination (instead of `writer`: no file, no records).
    var ordered: OrderedWriter?
    /// The file, once the writer has finished with it (or, held in memory, from the start).
    var file: PartFile?
    /// Signalled once the file of a stream that restarted is closed: the next one waits for
    /// it, as it holds the `.part` file's lock until then.
    var restartedFileClosed: DispatchSemaphore?

    /// The file already there, when `timestamping` asks to fetch it only if it changed.
    var existing: FileStamp?
    /// The server's `Last-Modified` (seconds since 1970) and ETag, given to the finished file
    /// when `remoteTime` or `timestamping` asks for them.
    var remoteStamp: (modified: Double?, etag: String?)?

    /// Files up to this size (bytes) get no resume records at their start (see `open`).
    static let smallFileSize: Int64 = 4 << 20

    init(configuration: DownloadConfiguration, url: String, destination: DownloadDestination) {
        self.configuration = configuration
        self.url = url
        self.destination = destination
        expectedPath = destination.expectedPath(for: url)
    }

    // MARK: Before the first request

    /// Looks for a download to resume, else makes the fresh download's file; returns the
    /// resume point, and notices about anything unusable found (the download then starts over).
    mutating func prepare() throws(DownloadError) -> (point: DownloadStateMachine.ResumePoint?, notices: [String]) {
        if case .stream(let descriptor) = destination {
            try Self.checkStream(descriptor, configuration)
            return (nil, [])
        }
        // A device or a pipe is never replaced, even where existing files may be.
        if case .file(let path) = destination, let kind = FileSystem.specialKind(path) {
            throw DownloadDestination.notRegularError(path, kind)
        }
        let partPath = expectedPath + ".part"
        if FileSystem.isFolder(partPath) {
            throw DownloadError(
                .output, "\(partPath) is a folder: the download's part file cannot have that name", path: expectedPath)
        }
        if configuration.timestamping { existing = FileStamp.read(expectedPath) }
        // A fresh file is made before the request only where its name is free (or may be replaced).
        let nameFree = configuration.replacesExisting || !FileSystem.exists(expectedPath)
        if nameFree, configuration.resume, !FileSystem.exists(partPath) {
            // Nothing to resume without a `.part` file, so records are not even looked for (any
            // left beside none describe nothing, and go when a `.part` is next named here). The
            // file starts unnamed (`PartFile.unnamed`): making it does not hold the folder, so
            // files are made side by side, and a small file is never named `.part` at all.
            precreated = PartFile.unnamed(for: partPath)
        }
        var found: (point: DownloadStateMachine.ResumePoint?, notices: [String]) = (nil, [])
        if precreated == nil {
            found = findResumePoint()
            if found.point == nil, nameFree, let file = PartFile.creatingNew(partPath) {
                // Records of a `.part` that was gone describe nothing.
                if recordsOnDisk { ResumeStore(partPath: partPath).remove() }
                recordsOnDisk = false
                precreated = file
            }
        }
        // Where the `.part` file was just made, the folder is usable; otherwise say what is wrong.
        if precreated == nil, found.point == nil { try destination.check(overwrite: configuration.replacesExisting) }
        return found
    }

    /// Refuses what a stream destination cannot do: a checksum (checked on a whole file before
    /// it is named), a conditional fetch (of a file already there).
    private static func checkStream(_ descriptor: Int32, _ configuration: DownloadConfiguration) throws(DownloadError) {
        let path = DownloadDestination.streamPath(descriptor)
        if configuration.checksum != nil {
            throw DownloadError(.output, "a checksum is checked on a file, not on a stream (\(path))", path: path)
        }
        if configuration.timestamping {
            throw DownloadError(.output, "timestamping compares a file already there; a stream (\(path)) has none", path: path)
        }
    }

    /// The `.part` and resume record of an earlier run, when they can be used.
    private mutating func findResumePoint() -> (point: DownloadStateMachine.ResumePoint?, notices: [String]) {
        guard configuration.resume else { return (nil, []) }
        let store = ResumeStore(partPath: expectedPath + ".part")
        switch store.load() {
        case .nothing:
            recordsOnDisk = false
            return (nil, [])
        case .damaged(let reason):
            return (nil, ["\(reason); starting over"])
        case .record(let record):
            guard FileSystem.size(of: store.partPath) == record.size else {
                return (nil, ["\(store.partPath) is missing or not \(record.size) bytes long; starting over"])
            }
            let urls = ([url] + configuration.mirrors).map(\.redactingLogins)
            guard record.etag != nil || record.lastModified != nil || configuration.trustSize && urls.contains(record.url) else {
                return (
                    nil,
                    [
                        "the server gave no ETag or Last-Modified to prove \(url) unchanged since "
                            + "\(store.partPath) was written; starting over"
                    ]
                )
            }
            resumeStore = store
            resumeRecord = record
            return (Self.resumePoint(from: record), [])
        }
    }

    /// Where to resume from with `record`: its written ranges and first missing byte.
    private static func resumePoint(from record: ControlFile) -> DownloadStateMachine.ResumePoint? {
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
        return DownloadStateMachine.ResumePoint(record: record, written: written, firstMissing: firstMissing)
    }

    // MARK: The first answer

    /// Opens the file for the first answer and its writer; returns the final path. Only the
    /// name is chosen here (it may look at the disk once, for a folder's name taken); the
    /// `.part` file is named, made or reopened, and sized, on the writer's thread.
    mutating func open(
        _ opening: DownloadStateMachine.FileOpening, head: HTTPResponseHead,
        hooks: DiskWriter.Hooks
    ) throws(DownloadError) -> String {
        if case .stream(let descriptor) = destination {
            ordered = OrderedWriter(descriptor: descriptor, capacity: configuration.streamRingSize, hooks: hooks)
            return DownloadDestination.streamPath(descriptor)
        }
        // A mirror asked after the download's URL failed names the file as that URL would have,
        // unless it redirected.
        let namingURL = head.effectiveURL == opening.askedURL ? url : head.effectiveURL
        let path =
            if opening.resuming || precreated != nil && head.contentDispositionFileName == nil && namingURL == url {
                // The expected name (found free when the `.part` was made, if it was).
                expectedPath
            } else {
                try destination.finalPath(
                    contentDisposition: head.contentDispositionFileName,
                    effectiveURL: namingURL, overwrite: configuration.replacesExisting)
            }
        if configuration.remoteTime || configuration.timestamping {
            remoteStamp = (head.lastModified.flatMap(HTTPDate.secondsSince1970), head.etag)
        }
        let store = ResumeStore(partPath: path + ".part")
        // Nothing is written under a name that cannot hold it, or its records.
        if !opening.held { try Self.checkNameLengths(path: path, store: store, records: opening.keepsRecords) }
        var reusable = precreated?.path == store.partPath ? precreated : nil
        if reusable == nil { discardPrecreatedFile() }
        precreated = nil
        // A new file of at most the held size is held in memory and written at the end, off the
        // network thread (no writer thread, no resume records: a crash costs at most that size
        // again), and not reserved first (a full disk is found as soon by that write).
        if opening.held, let size = opening.size {
            // Unnamed, it stays so until it is complete (and needs no lock meanwhile).
            let file =
                if let reusable = reusable ?? PartFile.unnamed(for: store.partPath) {
                    reusable
                } else {
                    try PartFile(creating: store.partPath)
                }
            if reusable == nil, recordsOnDisk || store.partPath != expectedPath + ".part" { store.remove() }
            recordsOnDisk = false
            self.file = file
            writer = DiskWriter(holding: Int(size), file: file, hooks: hooks)
            return path
        }
        // Records of an earlier run go (they would describe the new file): those looked for,
        // or any under a name the answer chose.
        let removeRecords = !opening.resuming && (recordsOnDisk || store.partPath != expectedPath + ".part")
        if !opening.resuming { recordsOnDisk = false }
        reopened = opening.resuming
        let (size, allocate, resuming) = (opening.size, configuration.preallocate, opening.resuming)
        let fresh = reusable
        reusable = nil
        let previousClosed = restartedFileClosed
        restartedFileClosed = nil
        let openFile: @Sendable () throws(DownloadError) -> PartFile = { () throws(DownloadError) in
            previousClosed?.wait()
            let file: PartFile
            if resuming {
                file = try PartFile(resuming: store.partPath)
            } else if let fresh, (try? fresh.name()) != nil {
                file = fresh
            } else {
                fresh?.close()
                file = try PartFile(creating: store.partPath)
            }
            if removeRecords { store.remove() }
            guard let size else { return file }
            do throws(DownloadError) { try file.reserve(size, allocate: allocate) } catch {
                // A new file that cannot have its size (a full disk) goes: not a byte is in it.
                if !resuming { file.removeIfStillNamed() }
                file.close()
                throw error
            }
            return file
        }
        let slots = configuration.writerSlots(for: url)
        writer = DiskWriter(
            opening: openFile, slotSize: slots.size, maxSlots: slots.count, written: opening.written,
            checkpoint: checkpoint(for: opening, store: store, head: head), hooks: hooks)
        return path
    }

    /// Refuses `path` when its `.part` file's name, or with `records` the longest name of its
    /// resume records, would pass `NAME_MAX` (255 bytes on Linux's filesystems), before
    /// anything is made: found only by the first record, the file would be made and sized first.
    private static func checkNameLengths(path: String, store: ResumeStore, records: Bool) throws(DownloadError) {
        let longest = records ? store.longestPath : store.partPath
        let length = FileSystem.name(of: longest).utf8.count
        guard length > NAME_MAX else { return }
        let what = records ? "its resume record's name" : "its part file's name"
        throw DownloadError(
            .output,
            "\(path): the name is too long to download to: \(what) (\(FileSystem.name(of: longest))) would be "
                + "\(length) bytes, more than the \(NAME_MAX) a name may have", path: path)
    }

    /// What the writer records for a resume: nothing unless ranges work.
    private func checkpoint(
        for opening: DownloadStateMachine.FileOpening, store: ResumeStore,
        head: HTTPResponseHead
    ) -> DiskWriter.Checkpoint? {
        guard opening.keepsRecords, let size = opening.size else { return nil }
        // A new record names the URL whose answer made the file (a mirror, where the download's
        // URL failed): its size alone is trusted (`trustSize`) only for that URL.
        var record =
            (opening.resuming ? resumeRecord : nil)
            ?? ControlFile(
                url: opening.askedURL, size: size, etag: head.hasStrongETag ? head.etag : nil, lastModified: head.lastModified)
        record.record(opening.written)
        // A new download's records are written at once (by the writer thread), so that they
        // exist, and their space is taken, from the start; except for a small file, which
        // would pay three fsyncs for little: its live record comes after a tenth of a second
        // if it is still running, and a crash before that costs at most its size again.
        return DiskWriter.Checkpoint(
            store: store, record: record, durableInterval: configuration.durableRecordInterval,
            writeAtStart: !opening.resuming && size > Self.smallFileSize)
    }

    /// Takes `bytes` for `offset` for writing: `.refused` when the writer has no room for them
    /// now (it tells `onRoom` when it has). Throws once writing failed.
    func take(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) -> DiskWriter.Taking {
        if let ordered { return try ordered.take(bytes, at: offset) ? .taken : .refused }
        return try writer?.take(bytes, at: offset) ?? .refused
    }

    /// Why the writer refused a slice (`take` said false): a stream held up by a range at its
    /// write position waits for that range, anything else for the disk or the stream's reader.
    var refusal: DownloadStateMachine.PauseReason {
        ordered?.window.isHeldUpByAGap == true ? .order : .disk
    }

    // MARK: The end

    /// A stream that failed restarts from zero: its file is closed after the writer's last
    /// queued write, and removed (it has no records to resume from; the next attempt makes a
    /// new one, and one that fails before it leaves nothing behind).
    mutating func closeForRestart() {
        if let ordered {
            // Nothing of it was written out (a stream that did cannot start over).
            ordered.finish {}
            self.ordered = nil
        }
        guard let writer else { return }
        let closed = DispatchSemaphore(value: 0)
        writer.finish(keepRecord: false) { file in
            file?.removeIfStillNamed()
            file?.close()
            closed.signal()
        }
        restartedFileClosed = closed
        self.writer = nil
        file = nil
    }

    /// Checks the finished `file` against the expected checksum, renames it to `path` and
    /// removes its records; closes it. On a checksum mismatch the records go (resuming could
    /// only give the same bytes again) and the file stays `FILE.part`.
    func complete(_ file: PartFile, to path: String) throws(DownloadError) {
        // (Closed only at the end: an unnamed file is gone once closed.)
        defer { file.close() }
        if let expected = configuration.checksum {
            let actual = try Checksum.digest(of: file.readablePath, algorithm: expected.algorithm)
            guard actual == expected.digest else {
                try file.name()
                ResumeStore(partPath: file.path).remove()
                throw DownloadError(
                    .checksum,
                    "\(file.path): the \(expected.algorithm.rawValue) checksum is "
                        + "\(Checksum.hex(actual)), not \(Checksum.hex(expected.digest)) as expected; the file stays \(file.path)",
                    url: url, path: file.path)
            }
        }
        // The live record and the spare go first, the durable record (enough to resume the
        // whole `.part` if the process dies here) after the rename, so that a file that appears
        // has at most that one record beside it for that one step. (A small file often ends
        // before its first record: nothing to remove then.)
        let store = recordsOnDisk || writer?.hasWrittenRecords == true ? ResumeStore(partPath: file.path) : nil
        store?.removeAllButDurable()
        try file.rename(to: path, overwrite: configuration.replacesExisting)
        store?.remove()
        if let remoteStamp { FileStamp.write(path, modified: remoteStamp.modified, etag: remoteStamp.etag) }
    }

    /// The download failed: the file closes; with `removingFiles`, the `.part` file and its
    /// records go (the file written, unless it never had a name, or the one a resume had not
    /// reopened yet).
    mutating func discard(removingFiles: Bool) {
        discardPrecreatedFile()
        file?.close()
        let partPath = file.map { $0.isNamed ? $0.path : nil } ?? resumeStore?.partPath
        file = nil
        if removingFiles, let partPath {
            unlink(partPath)
            ResumeStore(partPath: partPath).remove()
        }
    }

    /// Whether the `.part` file has resume records on disk that claim bytes written: those its
    /// writer saved, or (reopened, or never opened) those of the run it resumes.
    var hasResumeRecords: Bool {
        guard let writer else { return resumeStore != nil }
        return (reopened || writer.hasWrittenRecords) && !writer.written.isEmpty
    }

    /// Closes and removes a `.part` file made before the first answer that no answer took.
    mutating func discardPrecreatedFile() {
        guard let precreated else { return }
        self.precreated = nil
        precreated.close()
        precreated.remove()
    }
}
