import Dispatch
import SlipstreamHTTP
import Synchronization

/// The playback thread: takes packets from the queue, decodes them just ahead of the output,
/// trims what gapless playback and seeks leave out, applies the volume and writes to the
/// output, whose blocking `write` paces it. It owns the decoder and the output: nothing else
/// touches them. Talks to the rest of the streamer through the shared core and the state
/// machine's inputs.
final class PlaybackLoop {
    private let streamer: AudioStreamer
    private var decoder: (any AudioDecoder)?
    private var output: (any AudioOutput)?
    private var openFormat: PCMFormat?
    private var isOutputPaused = false
    private let pcm: PCMBuffer
    /// Packet bytes copied out of the queue (so the lock is not held while decoding).
    private var scratch: UnsafeMutableRawBufferPointer
    private var flushGeneration = 0
    /// Output before this raw stream frame is discarded (a seek target).
    private var seekFrame: Int64?
    /// Which decoded frames gapless playback keeps.
    private var trim = GaplessTrim.none
    /// Presentation frame of the first frame written since the last flush.
    private var basePresentation: Int64?
    /// Frames written since the last flush.
    private var framesWritten: Int64 = 0
    private var hasNotifiedStart = false
    private var hasNotifiedUnderrun = false
    private var hasEnded = false
    private var hasFailed = false
    /// Frames since the last seek are estimates: no gapless trimming.
    private var positionsEstimated = false

    private init(streamer: AudioStreamer) {
        self.streamer = streamer
        pcm = PCMBuffer(format: PCMFormat(sampleRate: 44100, channels: 2, sampleType: streamer.configuration.sampleType))
        scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit { scratch.deallocate() }

    /// Starts the playback thread for `streamer`.
    static func start(for streamer: AudioStreamer) {
        IOThread.start { PlaybackLoop(streamer: streamer).run() }
    }

    private enum Step {
        case stop
        case flush(generation: Int, seekFrame: Int64?)
        case idle
        /// Create the decoder for the stream's format (the properties tell its gapless trim).
        case prepare(AudioFormat, AudioStreamProperties)
        case packet(PacketQueue.Entry, volume: Double, estimated: Bool)
        case ended
        case underrun
    }

    private func run() {
        while true {
            var resume: (any StreamConnection)?
            let step = streamer.core.withLock { core in takeStep(&core, resume: &resume) }
            resume?.resume()
            switch step {
            case .stop:
                output?.close()
                output = nil
                decoder = nil
                return
            case .flush(let generation, let target):
                flushGeneration = generation
                seekFrame = target
                basePresentation = nil
                framesWritten = 0
                hasNotifiedStart = false
                hasEnded = false
                decoder?.reset()
                if openFormat != nil { perform { output throws(AudioOutputError) in try output.flush() } }
            case .prepare(let format, let properties):
                prepareDecoder(format, properties)
            case .idle:
                if openFormat != nil, !isOutputPaused {
                    isOutputPaused = true
                    perform { output throws(AudioOutputError) in try output.setPaused(true) }
                }
                _ = streamer.playbackWake.wait(timeout: .now() + 0.2)
            case .underrun:
                if !hasNotifiedUnderrun {
                    hasNotifiedUnderrun = true
                    streamer.send(.underrun)
                }
                _ = streamer.playbackWake.wait(timeout: .now() + 0.2)
            case .ended:
                if !hasEnded {
                    hasEnded = true
                    if openFormat != nil { perform { output throws(AudioOutputError) in try output.drain() } }
                    // Drained: every frame written has been heard, whatever the device's clock says.
                    publishPosition(drained: true)
                    streamer.send(.endOfStream)
                }
                _ = streamer.playbackWake.wait(timeout: .now() + 0.2)
            case .packet(let entry, let volume, let estimated):
                hasNotifiedUnderrun = false
                positionsEstimated = estimated
                play(entry, volume: volume)
            }
        }
    }

    /// Decides the next step under the lock.
    private func takeStep(_ core: inout PlayerCore, resume: inout (any StreamConnection)?) -> Step {
        if core.stopRequested { return .stop }
        if core.flushGeneration != flushGeneration { return .flush(generation: core.flushGeneration, seekFrame: core.seekFrame) }
        if decoder == nil, !hasFailed, let format = core.properties.format {
            return .prepare(format, core.properties)
        }
        guard core.queue != nil, decoder != nil else { return .idle }
        if core.queue!.isEnded, core.queue!.unplayedCount == 0, core.streamEnded { return .ended }
        guard core.run else { return .idle }
        let copied = core.queue!.playNext { entry, bytes -> PacketQueue.Entry in
            if bytes.count > scratch.count {
                scratch.deallocate()
                scratch = .allocate(byteCount: bytes.count, alignment: 16)
            }
            scratch.copyMemory(from: bytes)
            return entry
        }
        guard let entry = copied else {
            if !core.isUnderrun {
                core.isUnderrun = true
                core.readyAnnounced = false
                core.readyThreshold = streamer.configuration.restartThreshold
            }
            return .underrun
        }
        core.isUnderrun = false
        if core.isBackpressured, let limit = core.queue!.limit,
           core.queue!.needsData(lowWatermark: Int(Double(limit) * streamer.configuration.resumeFraction)) {
            core.isBackpressured = false
            core.lastActivity = MonotonicTime.now()
            resume = core.connection
        }
        return .packet(entry, volume: core.volume, estimated: core.positionsEstimated)
    }

    /// Decodes one packet and writes what is kept of it.
    private func play(_ entry: PacketQueue.Entry, volume: Double) {
        guard let decoder else { return }
        pcm.removeAll()
        do throws(AudioDecoderError) {
            try decoder.decode(UnsafeRawBufferPointer(rebasing: scratch[0 ..< entry.size]), packet: entry.packet, into: pcm)
        } catch {
            fail(AudioStreamerError(decoderError: error))
            return
        }
        let rawStart = entry.startFrame ?? 0
        let kept = keptFrames(rawStart: rawStart, count: pcm.frameCount)
        if let target = seekFrame, rawStart + Int64(pcm.frameCount) > target { seekFrame = nil }
        guard !kept.isEmpty else { return }
        pcm.keepFrames(kept)
        if basePresentation == nil {
            basePresentation = trim.presentationFrame(ofRawFrame: rawStart + Int64(kept.lowerBound))
        }
        if volume < 1 { PCMVolume.scale(pcm, by: volume) }
        guard openOutput(for: pcm.format) else { return }
        if isOutputPaused {
            isOutputPaused = false
            perform { output throws(AudioOutputError) in try output.setPaused(false) }
        }
        perform { output throws(AudioOutputError) in try output.write(pcm.bytes) }
        framesWritten += Int64(pcm.frameCount)
        publishPosition()
        if !hasNotifiedStart {
            hasNotifiedStart = true
            streamer.send(.outputStarted)
        }
    }

    /// The frames of a decoded block starting at raw frame `rawStart` that are heard.
    private func keptFrames(rawStart: Int64, count: Int) -> Range<Int> {
        let kept = positionsEstimated ? 0 ..< count : trim.keptFrames(start: rawStart, frameCount: count)
        guard let target = seekFrame, target > rawStart else { return kept }
        let lower = max(kept.lowerBound, Int(min(target - rawStart, Int64(count))))
        return lower < kept.upperBound ? lower ..< kept.upperBound : 0 ..< 0
    }

    /// Creates the decoder as soon as the format is known (before playback starts, so a seek
    /// planned early knows the gapless trim) and publishes what the rest needs from it.
    private func prepareDecoder(_ format: AudioFormat, _ properties: AudioStreamProperties) {
        let decoder: any AudioDecoder
        do throws(AudioDecoderError) {
            decoder = try AudioDecoders.make(for: format, sampleType: streamer.configuration.sampleType)
        } catch {
            hasFailed = true
            fail(AudioStreamerError(decoderError: error))
            return
        }
        self.decoder = decoder
        pcm.format = decoder.outputFormat
        let trim = GaplessTrim(properties: properties, decoderDelay: decoder.decoderDelay)
        self.trim = trim
        let priming = decoder.primingPacketCount
        streamer.core.withLock { core in
            core.trim = trim
            core.primingPackets = priming
            core.isDecoderReady = true
        }
        streamer.decoderBecameReady()
        // Made now (not opened): finding a sound server can take a moment, better spent
        // while the network fills the buffer.
        if output == nil {
            do throws(AudioOutputError) {
                output = try streamer.configuration.output()
            } catch {
                fail(AudioStreamerError(outputError: error))
            }
        }
    }

    /// Opens (or reopens) the output for `format`; false after reporting a failure.
    private func openOutput(for format: PCMFormat) -> Bool {
        if output != nil, openFormat == format { return true }
        do throws(AudioOutputError) {
            if output == nil { output = try streamer.configuration.output() }
            try output!.open(format)
            openFormat = format
            isOutputPaused = false
            return true
        } catch {
            fail(AudioStreamerError(outputError: error))
            return false
        }
    }

    /// Runs an output call; a failure stops playback with an output error.
    private func perform(_ call: (any AudioOutput) throws(AudioOutputError) -> Void) {
        guard let output else { return }
        do throws(AudioOutputError) {
            try call(output)
        } catch {
            fail(AudioStreamerError(outputError: error))
        }
    }

    private func publishPosition(drained: Bool = false) {
        guard let output, let base = basePresentation else { return }
        let position = base + (drained ? framesWritten : output.framesPlayed())
        streamer.core.withLock { $0.positionFrame = position }
    }

    private func fail(_ error: AudioStreamerError) {
        output?.close()
        output = nil
        openFormat = nil
        streamer.core.withLock { $0.run = false }
        streamer.send(.fatal(error))
    }
}
