import Glibc

/// A local file as an audio source: its connections read from their offsets, one after the
/// other, on a thread of the source's own (one thread, and one heap of glibc's, for all of a
/// source's reads: a thread per read kept a heap each), in 64 KiB slices (a read of a known
/// length in slices of up to 1 MiB), honouring `.pause` like an HTTP transfer does. Ranges are
/// always honoured; a file is never live.
package final class FileAudioSource: AudioSource {
    /// The file, as given.
    package let path: String
    private let thread = SerialIOThread()

    /// A source reading `path`.
    package init(path: String) {
        self.path = path
    }

    deinit { thread.finish() }

    package var location: AudioLocation { .file(path: path) }

    /// The slice a stream (a read of no set length: the player's) is read in, in bytes. The
    /// player's backpressure works by slices (the queue's limit is 64 KiB at least); measured
    /// on an hour of 16-bit AIFF, 16 KiB slices cost a read, a parse call and a wake-up of the
    /// playback thread four times as often.
    static let streamSliceSize = 64 * 1024

    /// Opens a connection: it reads once the connections opened before it are done (a
    /// connection replaced by another is cancelled, and done at once).
    package func open(_ request: AudioSourceRequest, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        let reader = Reader(sliceSize: request.length.map { Int(min(max($0, 16 * 1024), 1 << 20)) } ?? Self.streamSliceSize)
        let path = path
        thread.run { reader.run(path: path, request: request, receiver: receiver) }
        return reader
    }

    /// One connection: its reading loop and its controls.
    private final class Reader: AudioSourceConnection {
        private let delivery = PausableDelivery()
        /// Where each slice is read: `streamSliceSize` for a stream, up to 1 MiB for a read of
        /// a known length (the info reader's: far fewer calls). Made here, on the opening
        /// thread (so in its heap, not in a heap of the short-lived reading thread, which would
        /// keep the memory), then used by the reading thread alone.
        private let chunk: SliceMemory

        init(sliceSize: Int) {
            chunk = SliceMemory(bytes: .allocate(byteCount: sliceSize, alignment: 16))
        }

        deinit { chunk.bytes.deallocate() }

        func resume() { delivery.resume() }

        func cancel() { delivery.cancel() }

        private var isCancelled: Bool { delivery.isCancelled }

        func run(path: String, request: AudioSourceRequest, receiver: any AudioSourceReceiver) {
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let number = errno
                if !isCancelled { receiver.sourceEnded(Self.failure(path, nil, number)) }
                return
            }
            defer { close(fd) }
            var info = stat()
            let isStated = fstat(fd, &info) == 0
            if isStated, info.st_mode & S_IFMT == S_IFDIR {
                if !isCancelled {
                    receiver.sourceEnded(AudioStreamerError(.file, "\(path): is a folder, not a file", path: path))
                }
                return
            }
            let size: Int64? = isStated && info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : nil
            let answer = AudioSourceAnswer(offset: request.offset, totalSize: size, rangesSupported: true, isLive: false)
            guard !isCancelled, case .proceed = receiver.sourceOpened(answer) else { return }
            var position = request.offset
            let end = request.length.map { request.offset + $0 } ?? .max
            while position < end {
                if isCancelled { return }
                let wanted = Int(min(Int64(chunk.bytes.count), end - position))
                let count = pread(fd, chunk.bytes.baseAddress, wanted, off_t(position))
                if count < 0 {
                    if errno == EINTR { continue }
                    let number = errno
                    if !isCancelled {
                        receiver.sourceEnded(Self.failure(path, "cannot read at byte \(position)", number, offset: position))
                    }
                    return
                }
                if count == 0 { break }
                guard delivery.deliver(UnsafeRawBufferPointer(rebasing: chunk.bytes[0..<count]), at: position, to: receiver) else { return }
                position += Int64(count)
            }
            if !isCancelled { receiver.sourceEnded(nil) }
        }

        /// A file error naming the path, what failed (nil: opening it) and the system's words
        /// for `number`, e.g. `song.mp3: No such file or directory`.
        private static func failure(_ path: String, _ action: String?, _ number: Int32, offset: Int64? = nil) -> AudioStreamerError {
            AudioStreamerError(
                .file, "\(path): " + (action.map { "\($0): " } ?? "") + String(cString: strerror(number)),
                path: path, offset: offset)
        }
    }
}
