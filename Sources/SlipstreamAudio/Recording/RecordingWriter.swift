import Glibc

/// The recorder's writer: on the recorder's thread, it carries out the plan's decisions on
/// the files, writes the audio, keeps each file's facts and tells what happened (file started,
/// finished, or the recording failed). A disk error ends the recording: what was written stays,
/// everything after is ignored. Used on the writer thread only.
struct RecordingWriter {
    private var plan: RecordingPlan
    private let recording: AudioRecording
    private let report: @Sendable (AudioStreamerEvent) -> Void
    private var descriptor: Int32 = -1
    /// The open file's facts.
    private var file: AudioRecordingFile?
    /// Bytes dropped while no file was open: the next file's gap.
    private var droppedBeforeFile: Int64 = 0
    /// The most names tried in a folder for one title (`Title (999).mp3` is the last).
    static let maximumAttempts = 999
    /// Set once the recording failed: everything after is ignored.
    private(set) var hasFailed = false

    /// A writer for `recording`, telling its news to `report`.
    init(_ recording: AudioRecording, report: @escaping @Sendable (AudioStreamerEvent) -> Void) {
        self.recording = recording
        self.report = report
        if case .folder = recording.destination {
            plan = RecordingPlan(splitsAtTitles: true)
        } else {
            plan = RecordingPlan(splitsAtTitles: false)
        }
    }

    /// Carries out one item of the buffer; `chunk` holds the audio of an `.audio` item.
    mutating func handle(_ item: RecordingBuffer.Item, chunk: UnsafeRawBufferPointer, station: StationInfo?) {
        guard !hasFailed else { return }
        switch item {
        case .mark(.codec(let codec)):
            guard RecordingPlan.fileExtension(for: codec) != nil else {
                return refuse(
                    "\(RecordingPlan.name(of: codec)) audio: only MPEG audio, AAC, FLAC, Ogg Vorbis and Ogg Opus are recorded")
            }
            if plan.codecStarts(codec) { closeFile() }
        case .mark(.setup(let setup)):
            if plan.codec == .aacRaw, ADTSHeaderWriter.template(for: setup) == nil {
                return refuse(
                    "this AAC in MP4: an ADTS (.aac) file cannot state its setup (960-sample frames, or no channel configuration)")
            }
            if plan.setupStarts(setup) { closeFile() }
        case .mark(.title(let title)):
            if plan.titleStarts(title) { closeFile() }
        case .mark(.gap(let dropped)):
            if file != nil { file!.droppedBytes += dropped } else { droppedBeforeFile += dropped }
        case .audio(let count):
            if let new = plan.audioComes(station: station) {
                openFile(new)
                guard !hasFailed else { return }
            }
            guard file != nil else { return }
            write(UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            file?.audioBytes += Int64(count)
        }
    }

    /// Ends the recording: the open file closes, with the gap left at the end (`trailingGap`
    /// bytes dropped after its last packet).
    mutating func finish(trailingGap: Int64) {
        guard !hasFailed, file != nil else { return }
        file!.droppedBytes += trailingGap
        closeFile()
    }

    private mutating func openFile(_ new: RecordingPlan.NewFile) {
        let path: String
        switch recording.destination {
        case .file(let target):
            path = target
            descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        case .folder(let folder):
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            var attempt = 1
            var candidate = prefix + RecordingFileName.name(base: new.base, fileExtension: new.fileExtension, attempt: 1)
            while true {
                descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard descriptor < 0, errno == EEXIST, attempt < Self.maximumAttempts else { break }
                attempt += 1
                candidate = prefix + RecordingFileName.name(base: new.base, fileExtension: new.fileExtension, attempt: attempt)
            }
            path = candidate
        }
        guard descriptor >= 0 else { return fail(systemError("cannot create", path)) }
        file = AudioRecordingFile(path: path, title: new.title, droppedBytes: droppedBeforeFile)
        droppedBeforeFile = 0
        report(.recordingStarted(file!))
        if let tag = new.tag { tag.withUnsafeBytes { write($0) } }
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer) {
        recording.beforeWrite?(bytes.count)
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                return fail(systemError("cannot write", file!.path))
            }
            done += count
        }
    }

    private mutating func closeFile() {
        guard let file else { return }
        let status = close(descriptor)
        descriptor = -1
        // A file system that writes back late (NFS) reports the failure here.
        if status != 0 { return fail(systemError("cannot write", file.path)) }
        self.file = nil
        report(.recordingFinished(file))
    }

    /// Ends the recording for what it cannot record (`what`: the stream and why); the error
    /// names no file (a file that failed is named).
    private mutating func refuse(_ what: String) {
        fail(AudioStreamerError(.recording, "cannot record \(what)"))
    }

    /// Ends the recording with `error`: the open file is closed as it is.
    private mutating func fail(_ error: AudioStreamerError) {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        file = nil
        hasFailed = true
        report(.recordingFailed(error))
    }

    /// A recording error for `action` on `path`, from `errno`.
    private func systemError(_ action: String, _ path: String) -> AudioStreamerError {
        let number = errno
        return AudioStreamerError(.recording, "\(action) \(path): \(String(cString: strerror(number))); recording stopped", path: path)
    }
}
