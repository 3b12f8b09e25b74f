import SlipstreamDownload
import Synchronization

/// A running download as an audio source (`AudioStreamer(download:url:configuration:)`): each
/// connection is a `DownloadReader` at its offset, so the player's seek moves the download's
/// window there (the bytes already written are read at once, with no request) and the reading
/// waits for those not written yet. Ranges are always honoured, the size is the download's, and
/// the stream is never live. Its connections read one after the other on a thread of the
/// source's own (a connection replaced by another is cancelled, and done at once); the stream's
/// byte rate, once the player knows it, sizes each reader's window.
package final class DownloadAudioSource: AudioSource {
    private struct State {
        /// The stream's bytes per second, once known.
        var bytesPerSecond: Double?
        /// The readers of the open connections.
        var readers: [ObjectIdentifier: DownloadReader] = [:]
    }

    /// The download read.
    package let download: Download
    /// The URL downloaded, for messages and errors.
    package let url: String
    private let state = Mutex(State())
    private let thread = SerialIOThread()

    /// A source reading `download`, the download of `url`.
    package init(download: Download, url: String) {
        self.download = download
        self.url = url
    }

    deinit { thread.finish() }

    package var location: AudioLocation { .url(url) }

    /// Opens a connection: its reader is there at once (the download's window moves now); it
    /// reads once the connections opened before it are done.
    package func open(_ request: AudioSourceRequest, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        let reader = download.reader(at: request.offset, bytesPerSecond: state.withLock { $0.bytesPerSecond })
        state.withLock { $0.readers[ObjectIdentifier(reader)] = reader }
        let connection = Connection(reader: reader, url: url)
        thread.run { [self] in
            connection.run(request: request, receiver: receiver, size: { [download] in download.progress.totalBytes })
            state.withLock { _ = $0.readers.removeValue(forKey: ObjectIdentifier(reader)) }
            reader.close()
        }
        return connection
    }

    /// Sizes the readers' windows at the stream's byte rate: its bit rate, else its audio's
    /// bytes over its duration.
    package func streamFound(_ properties: AudioStreamProperties) {
        let rate =
            properties.bitRate.map { $0.bitsPerSecond / 8 }
            ?? properties.duration.flatMap { duration in properties.audioDataByteCount.map { Double($0) / duration } }
        guard let rate, rate.isFinite, rate > 0 else { return }
        let readers = state.withLock { state -> [DownloadReader] in
            state.bytesPerSecond = rate
            return Array(state.readers.values)
        }
        for reader in readers { reader.setBytesPerSecond(rate) }
    }

    /// One connection: its reading loop and its controls.
    private final class Connection: AudioSourceConnection {
        private let delivery = PausableDelivery()
        private let reader: DownloadReader
        private let url: String
        /// Where each slice is read: made here, on the opening thread, then used by the reading
        /// thread alone.
        private let chunk = SliceMemory(bytes: .allocate(byteCount: FileAudioSource.streamSliceSize, alignment: 16))

        init(reader: DownloadReader, url: String) {
            self.reader = reader
            self.url = url
        }

        deinit { chunk.bytes.deallocate() }

        func resume() { delivery.resume() }

        /// Cancels the deliveries and the reader (a read waiting for its bytes ends at once).
        func cancel() {
            delivery.cancel()
            reader.close()
        }

        /// Reads from the request's offset, answering once the first byte is there (when the
        /// download knows its size); `size` tells the download's size.
        func run(request: AudioSourceRequest, receiver: any AudioSourceReceiver, size: () -> Int64?) {
            var position = request.offset
            let end = request.length.map { request.offset + $0 } ?? .max
            var count = 0
            guard read(at: position, before: end, into: &count, receiver: receiver) else { return }
            let answer = AudioSourceAnswer(offset: request.offset, totalSize: size(), rangesSupported: true, isLive: false)
            guard !delivery.isCancelled, case .proceed = receiver.sourceOpened(answer) else { return }
            while count > 0 {
                let bytes = UnsafeRawBufferPointer(rebasing: chunk.bytes[0..<count])
                guard delivery.deliver(bytes, at: position, to: receiver) else { return }
                position += Int64(count)
                guard read(at: position, before: end, into: &count, receiver: receiver) else { return }
            }
            if !delivery.isCancelled { receiver.sourceEnded(nil) }
        }

        /// Reads the bytes at `position` (before `end`) into the slice, waiting for the first of
        /// them, their count into `count` (0 at the end); false when the connection is to end:
        /// cancelled, or the download failed without them (told to `receiver`).
        private func read(at position: Int64, before end: Int64, into count: inout Int, receiver: any AudioSourceReceiver) -> Bool {
            guard position < end else {
                count = 0
                return true
            }
            let wanted = Int(min(Int64(chunk.bytes.count), end - position))
            do throws(DownloadError) {
                count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk.bytes[0..<wanted]), at: position)
                return true
            } catch {
                if !delivery.isCancelled {
                    receiver.sourceEnded(
                        AudioStreamerError(
                            .network, "\(url): the download stopped: \(error.message)", underlying: error, url: url, offset: position,
                            retryable: false))
                }
                return false
            }
        }
    }
}
