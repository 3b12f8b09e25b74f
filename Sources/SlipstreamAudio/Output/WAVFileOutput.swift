import Glibc

/// Writes PCM to a RIFF WAVE file (16-bit PCM or 32-bit IEEE float; see `WAVHeader`).
///
/// Not paced: a player writing to it decodes as fast as it can (an hour of MP3 in seconds), and
/// its clock counts the frames written. A live stream is read as it arrives.
///
/// Samples go through a fixed 64 KiB buffer (nothing is allocated per write; a pipe's reader,
/// which may be a player listening as it comes, gets each write at once), and the header's
/// size fields are rewritten in place (`pwrite`) every `syncSeconds` of audio and at every
/// `flush()`, `drain()` and `close()`: a process that dies leaves a valid file holding at least
/// everything up to the last of those (bytes after it are left past the `data` chunk's end).
/// Nothing is `fsync`ed: the kernel has the file, a power cut may lose it.
///
/// The file holds one format: `open` again with the same format goes on appending (the clock
/// starts again at 0), with another format it is an error. After `close()`, `open` creates the
/// file anew. `close()` cannot report errors; call `drain()` first to see them.
public final class WAVFileOutput: AudioOutput {
    /// The file's path.
    public let path: String
    /// Seconds of audio between rewrites of the header's size fields: 0.5.
    public static let syncSeconds = 0.5
    /// Bytes of samples held before they are written to the file.
    static let bufferSize = 64 * 1024

    private let buffer: UnsafeMutableRawPointer
    private var buffered = 0
    private var descriptor: Int32 = -1
    private var format: PCMFormat?
    private var header: WAVHeader?
    /// Bytes of samples in the file (not counting those still buffered).
    private var dataBytes: Int64 = 0
    /// `dataBytes` when the header's sizes were last rewritten.
    private var syncedBytes: Int64 = 0
    private var framesWritten: Int64 = 0
    /// False for a pipe (`-` is standard output): the header's sizes stay at their maximum.
    private var isSeekable = true

    /// Creates an output that will write `path` (replacing any file there) when opened; `-`
    /// writes to standard output (a pipe gets a header whose sizes say "until the end").
    public init(path: String) {
        self.path = path
        buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    public func open(_ format: PCMFormat) throws(AudioOutputError) {
        if let current = self.format {
            guard current == format else {
                throw AudioOutputError(
                    .formatNotSupported, "\(name): holds \(current), cannot switch to \(format)",
                    output: name, path: path)
            }
            framesWritten = 0
            return
        }
        let opened =
            path == "-"
            ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)
            : Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw fileError("cannot create it") }
        descriptor = opened
        isSeekable = lseek(opened, 0, SEEK_CUR) >= 0
        var header = WAVHeader(format)
        // A pipe cannot have its sizes written afterwards: they say "as long as it goes".
        if !isSeekable { header.markUnknownLength() }
        self.format = format
        self.header = header
        dataBytes = 0
        syncedBytes = 0
        framesWritten = 0
        // The header goes out through the (empty) sample buffer: it is far smaller.
        buffer.copyMemory(from: header.bytes, byteCount: header.bytes.count)
        do throws(AudioOutputError) {
            try writeAll(UnsafeRawBufferPointer(start: buffer, count: header.bytes.count))
        } catch {
            close()
            throw error
        }
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        guard let format, let source = frames.baseAddress else {
            if format == nil { throw AudioOutputError(.fileFailed, "\(name): not open", output: name, path: path) }
            return
        }
        var offset = 0
        while offset < frames.count {
            let count = min(frames.count - offset, Self.bufferSize - buffered)
            (buffer + buffered).copyMemory(from: source + offset, byteCount: count)
            buffered += count
            offset += count
            if buffered == Self.bufferSize { try writeBuffer() }
        }
        // A pipe's reader hears what is written as it comes: nothing waits for a full buffer
        // (64 KiB is a third of a second of CD audio, held back until the next write).
        if !isSeekable { try writeBuffer() }
        framesWritten += Int64(frames.count / format.bytesPerFrame)
        if dataBytes - syncedBytes >= Int64(Self.syncSeconds * Double(format.sampleRate * format.bytesPerFrame)) {
            try syncHeader()
        }
    }

    /// Frames written since `open` or the last `flush()`: a file plays everything at once.
    public func framesPlayed() -> Int64 { framesWritten }

    /// A file is not listened to as it is written; a pipe may feed a player (`wav:- | aplay`).
    public var playsInRealTime: Bool { !isSeekable }

    /// Does nothing: a file has no sound to pause.
    public func setPaused(_ paused: Bool) throws(AudioOutputError) {}

    /// Writes out what is buffered and rewrites the header's sizes (a file drops nothing); the
    /// clock starts again at 0.
    public func flush() throws(AudioOutputError) {
        try drain()
        framesWritten = 0
    }

    /// Writes out what is buffered and rewrites the header's sizes.
    public func drain() throws(AudioOutputError) {
        guard format != nil else { return }
        try writeBuffer()
        try syncHeader()
    }

    public func close() {
        guard descriptor >= 0 else { return }
        try? drain()
        _ = Glibc.close(descriptor)
        descriptor = -1
        format = nil
        header = nil
    }

    /// Appends the buffered samples to the file.
    private func writeBuffer() throws(AudioOutputError) {
        guard buffered > 0 else { return }
        try writeAll(UnsafeRawBufferPointer(start: buffer, count: buffered))
        dataBytes += Int64(buffered)
        buffered = 0
    }

    /// Rewrites the header's size fields for the samples in the file.
    private func syncHeader() throws(AudioOutputError) {
        guard isSeekable, let header, let format else { return }
        let sizes = header.sizes(dataBytes: dataBytes, format: format)
        try writeField(sizes.riff, at: header.riffSizeOffset)
        if let factOffset = header.factOffset { try writeField(sizes.frames, at: factOffset) }
        try writeField(sizes.data, at: header.dataSizeOffset)
        syncedBytes = dataBytes
    }

    /// Writes `value` little-endian at `offset`.
    private func writeField(_ value: UInt32, at offset: Int) throws(AudioOutputError) {
        var field = value.littleEndian
        let written = withUnsafeBytes(of: &field) { pwrite(descriptor, $0.baseAddress, 4, off_t(offset)) }
        guard written == 4 else { throw fileError("cannot write its header") }
    }

    /// Writes all of `bytes` at the file's current offset.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(AudioOutputError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw fileError("cannot write")
            }
            offset += written
        }
    }

    /// An error naming the file, the action and `errno`'s message.
    private func fileError(_ action: String) -> AudioOutputError {
        let number = errno
        return AudioOutputError(
            .fileFailed, "\(name): \(action): \(String(cString: strerror(number)))", output: name, path: path,
            systemStatus: number)
    }

    /// `WAV file "out.wav"`, for messages.
    private var name: String { "WAV file \"\(path)\"" }
}
