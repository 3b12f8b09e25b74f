import Dispatch
import Synchronization

/// Records a stream's audio while it plays (`AudioStreamerConfiguration.recording`). The
/// network side hands it every packet it stores (`take`, under the network side's lock): the
/// packet is copied into a bounded `RecordingBuffer` and the call returns at once, whatever the
/// disk does; when the buffer is full the packet is dropped (a gap). A thread of its own drains
/// the buffer through a `RecordingWriter` into the files, and tells what happened as events.
final class StreamRecorder: Sendable {
    private struct State {
        var buffer: RecordingBuffer
        /// Vorbis and Opus packets go into the buffer as Ogg pages.
        var ogg = OggRecordingPager(firstSerial: UInt32.random(in: 0...UInt32.max))
        /// The setup last stored (FLAC's STREAMINFO, which its files' headers need; the
        /// AudioSpecificConfig of AAC from MP4, whose frames get ADTS headers).
        var setup: [UInt8]?
        /// The ADTS header of AAC frames from MP4 (nil when ADTS cannot state their setup), and
        /// the bytes of a frame with it (kept from frame to frame).
        var adts: [UInt8]?
        var framed: [UInt8] = []
        /// The station's facts, for naming the file before the first title.
        var station: StationInfo?
        /// The writer waits for `wake`.
        var isWriterWaiting = false
        /// No more packets are taken; the writer ends once the buffer is empty.
        var isClosing = false
        /// The recording failed: packets are no longer taken.
        var hasFailed = false
        /// Called once the writer has ended (after its last event).
        var whenClosed: (@Sendable () -> Void)?
    }

    /// The writer's chunk: the most it takes from the buffer for one write.
    static let chunkSize = 64 << 10

    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)

    /// Starts recording as `recording` says, telling the events (file started, finished, or the
    /// recording failed) to `report` on the writer's thread.
    init(_ recording: AudioRecording, report: @escaping @Sendable (AudioStreamerEvent) -> Void) {
        state = Mutex(State(buffer: RecordingBuffer(capacity: recording.bufferSize)))
        IOThread.start(name: "slipstream-rec") { [self] in runWriter(RecordingWriter(recording, report: report)) }
    }

    /// Takes a packet of `format` (its bytes, valid only during the call) that decodes to
    /// `frameCount` frames and starts `title`, if it does. Never waits for the disk.
    func take(_ bytes: UnsafeRawBufferPointer, format: AudioFormat, frameCount: Int, title: StreamTitle?) {
        let wakeWriter = state.withLock { state -> Bool in
            guard !state.isClosing, !state.hasFailed else { return false }
            let stored: Bool
            if OggRecordingPager.pages(format.codec) {
                stored = state.ogg.add(bytes, format: format, frameCount: frameCount, title: title, into: &state.buffer)
            } else {
                let codec = format.codec
                let setup = (codec == .flac || codec == .aacRaw) && format.magicCookie != state.setup ? format.magicCookie : nil
                if let setup {
                    // (A setup dropped with its packet goes with the next one stored.)
                    state.setup = setup
                    state.adts = codec == .aacRaw ? ADTSHeaderWriter.template(for: setup) : nil
                }
                if codec == .aacRaw, let template = state.adts {
                    stored = Self.appendFramed(bytes, template: template, title: title, setup: setup, state: &state)
                } else {
                    // (AAC from MP4 whose setup ADTS cannot state: the writer refuses it at its setup.)
                    stored = state.buffer.append(bytes, codec: codec, title: title, setup: setup)
                }
            }
            guard stored else { return false }
            defer { state.isWriterWaiting = false }
            return state.isWriterWaiting
        }
        if wakeWriter { wake.signal() }
    }

    /// Stores a raw AAC frame behind its ADTS header (one too long for ADTS is dropped).
    private static func appendFramed(
        _ frame: UnsafeRawBufferPointer, template: [UInt8], title: StreamTitle?, setup: [UInt8]?, state: inout State
    ) -> Bool {
        guard frame.count <= ADTSHeaderWriter.maximumPayload else {
            state.buffer.drop(frame.count)
            return false
        }
        var framed: [UInt8] = []
        swap(&framed, &state.framed)
        defer { swap(&framed, &state.framed) }
        framed.removeAll(keepingCapacity: true)
        ADTSHeaderWriter.append(template, payload: frame.count, to: &framed)
        framed.append(contentsOf: frame)
        return framed.withUnsafeBytes { state.buffer.append($0, codec: .aacRaw, title: title, setup: setup) }
    }

    /// A connection answered with the station's facts.
    func stationFound(_ station: StationInfo) {
        state.withLock { $0.station = station }
    }

    /// Ends the recording: what the buffer holds is written, the open file closed and told of,
    /// then `done` is called (on the writer's thread). Packets taken from now on are ignored.
    func close(then done: @escaping @Sendable () -> Void) {
        state.withLock { state in
            // An Ogg recording's link ends with its last page.
            _ = state.ogg.finish(into: &state.buffer)
            state.isClosing = true
            state.whenClosed = done
        }
        wake.signal()
    }

    private func runWriter(_ writer: RecordingWriter) {
        var writer = writer
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        enum Step {
            case item(RecordingBuffer.Item, StationInfo?)
            case wait
            case close(trailingGap: Int64, done: (@Sendable () -> Void)?)
        }
        while true {
            let step = state.withLock { state -> Step in
                if let item = state.buffer.take(into: chunk) { return .item(item, state.station) }
                if state.isClosing { return .close(trailingGap: state.buffer.takeTrailingGap(), done: state.whenClosed) }
                state.isWriterWaiting = true
                return .wait
            }
            switch step {
            case .item(let item, let station):
                writer.handle(item, chunk: UnsafeRawBufferPointer(chunk), station: station)
                if writer.hasFailed { state.withLock { $0.hasFailed = true } }
            case .wait:
                wake.wait()
            case .close(let trailingGap, let done):
                writer.finish(trailingGap: trailingGap)
                done?()
                return
            }
        }
    }
}
