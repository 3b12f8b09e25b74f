/// The playback side of an `AudioStreamer`, on a thread of its own: takes packets from the
/// queue, decodes them just ahead of the output, trims what gapless playback and seeks leave
/// out, applies the volume and writes to the output, whose blocking `write` paces it.
///
/// It owns the decoder, the gapless trim, the output and the clock's arithmetic: nothing else
/// touches them. Commands come through its mailbox; seeks (flushes) and formats in band through
/// the packet queue; it tells the streamer what happened as state-machine inputs and hands the
/// position back through the queue.
final class PlaybackLoop {
    private let streamer: AudioStreamer
    private let queue: SharedPacketQueue
    private let mailbox: PlaybackMailbox
    private let sampleType: PCMFormat.SampleType
    private let makeOutput: @Sendable () throws(AudioOutputError) -> any AudioOutput

    private var decoder: (any AudioDecoder)?
    /// The queue's index of the decoder's format, and the raw frame the format starts at.
    private var formatIndex: Int?
    private var formatFirstFrame: Int64 = 0
    /// Which decoded frames gapless playback keeps: the stream's first format's, kept for the
    /// stream's life (its frames are the only ones it trims).
    private var trim: GaplessTrim?
    private var output: (any AudioOutput)?
    /// The format the output is open for.
    private var openFormat: PCMFormat?
    /// The stream's format changed since the output was opened: open it again before writing.
    private var needsReopen = false
    /// Converts the decoded PCM to the output's format, when the output could not take the
    /// stream's new one (a WAV file holds one format).
    private var converter: PCMConverter?
    private var isOutputPaused = false
    /// Whether the open output is heard as it plays (`AudioOutput.playsInRealTime`, asked when
    /// it opens); true while none is open.
    private var isOutputHeard = true
    /// Decoded frames gathered for one write to the output (`batchFrames`): a sound server or
    /// device is woken a few times a second, not for every packet. The first write after a
    /// start or a seek goes at once, and what is gathered is written whenever the queue has
    /// nothing more to give right away, so batching never delays sound or starves the output.
    private let batch: PCMBuffer
    /// The title that starts with the batch's first frame (a title always starts a batch).
    private var batchTitle: Int?
    /// Frames gathered before a write: about 93 ms at 44.1 kHz.
    static let batchFrames = 4096
    /// Packet bytes copied out of the queue (so its lock is not held while decoding).
    private var scratch: UnsafeMutableRawBufferPointer
    private var isRunning = false
    private var volume: Double
    /// The seek being played: its number, and the raw frame output starts at.
    private var flushGeneration = 0
    private var seekFrame: Int64?
    /// The clock: the position (ns) of the first frame written since the last flush or output
    /// reopening, and the frames written since.
    private var basePosition: Int64?
    private var framesWritten: Int64 = 0
    /// Radio titles written and not yet heard: the position each starts at, and its id in
    /// the queue (a few at most; room for them is made once).
    private var titleMarks: [(position: Int64, id: Int)] = []
    /// A title whose packet was trimmed away entirely: it starts with the next frame written.
    private var carriedTitle: Int?
    private var hasNotifiedStart = false
    private var hasNotifiedUnderrun = false
    private var hasEnded = false
    private var hasFailed = false
    /// The frames the decoders could not decode, against all they were given.
    private var tally = DecodeTally()

    private init(
        streamer: AudioStreamer, queue: SharedPacketQueue, mailbox: PlaybackMailbox,
        configuration: AudioStreamerConfiguration, volume: Double
    ) {
        self.streamer = streamer
        self.queue = queue
        self.mailbox = mailbox
        sampleType = configuration.sampleType
        makeOutput = configuration.output
        self.volume = volume
        batch = PCMBuffer(format: PCMFormat(sampleRate: 44100, channels: 2, sampleType: configuration.sampleType))
        scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        titleMarks.reserveCapacity(PacketQueue.keptTitles)
    }

    deinit { scratch.deallocate() }

    /// Starts the playback thread for `streamer`, reading `queue`, at `volume`; returns its mailbox.
    static func start(
        for streamer: AudioStreamer, queue: SharedPacketQueue,
        configuration: AudioStreamerConfiguration, volume: Double
    ) -> PlaybackMailbox {
        let mailbox = PlaybackMailbox(queue: queue)
        IOThread.start(name: "slipstream-play") {
            PlaybackLoop(streamer: streamer, queue: queue, mailbox: mailbox, configuration: configuration, volume: volume).run()
        }
        return mailbox
    }

    private func run() {
        while true {
            for command in mailbox.take() {
                switch command {
                case .run(let run): isRunning = run
                case .volume(let value): volume = value
                case .stop:
                    batch.removeAll()
                    output?.close()
                    output = nil
                    decoder = nil
                    return
                }
            }
            if hasFailed {
                // The streamer stops: wait for it.
                queue.waitForNews(seconds: 0.2)
                continue
            }
            let (step, resumeEpisode) = queue.withLock { queue in
                queue.next(decoderFormat: formatIndex, running: isRunning) { entry, bytes in
                    if bytes.count > scratch.count {
                        scratch.deallocate()
                        scratch = .allocate(byteCount: bytes.count, alignment: 16)
                    }
                    scratch.copyMemory(from: bytes)
                }
            }
            if let resumeEpisode { streamer.send(.producerResumable(episode: resumeEpisode)) }
            if case .packet = step {} else if case .flush = step { batch.removeAll() } else { writeBatch() }
            switch step {
            case .flush(let flush):
                self.flush(flush)
            case .format(let index, let record):
                changeFormat(to: index, record)
            case .packet(let entry):
                hasNotifiedUnderrun = false
                play(entry)
            case .idle:
                announceTitles()
                if openFormat != nil, !isOutputPaused {
                    isOutputPaused = true
                    perform { output throws(AudioOutputError) in try output.setPaused(true) }
                }
                queue.waitForNews(seconds: clockWait)
            case .empty:
                announceTitles()
                if !hasNotifiedUnderrun {
                    hasNotifiedUnderrun = true
                    streamer.send(.underrun(heard: isOutputHeard))
                }
                queue.waitForNews(seconds: clockWait)
            case .ended:
                if !hasEnded, tally.isMostlyUndecodable(atEnd: true) {
                    failUndecodable()
                } else if !hasEnded {
                    hasEnded = true
                    reportUndecodable(final: true)
                    flushConverter()
                    if openFormat != nil { perform { output throws(AudioOutputError) in try output.drain() } }
                    // Drained: every frame written has been heard, whatever the device's clock says.
                    publishPosition(drained: true)
                    announceTitles(drained: true)
                    streamer.send(.endOfStream)
                }
                queue.waitForNews(seconds: 0.2)
            }
        }
    }

    /// How long to wait for news with nothing to play: a fifth of a second while an output
    /// heard as it plays may still be playing what it holds (its clock moves on: titles reached,
    /// the position); until news for one that nobody hears (its clock is the frames written).
    private var clockWait: Double? { isOutputHeard ? 0.2 : nil }

    /// A seek: the decoder forgets the stream, the output drops what it holds, and output
    /// starts again at the target.
    private func flush(_ flush: PacketQueue.Flush) {
        flushGeneration = flush.generation
        seekFrame = flush.seekFrame
        basePosition = nil
        framesWritten = 0
        hasNotifiedStart = false
        hasEnded = false
        titleMarks.removeAll(keepingCapacity: true)
        carriedTitle = nil
        decoder?.reset()
        converter?.reset()
        if openFormat != nil { perform { output throws(AudioOutputError) in try output.flush() } }
    }

    /// Decodes one packet straight into the batch (no copy in between) and keeps what is heard
    /// of it; the batch is written first when the packet starts a title or is of another
    /// format, and after it when it is full (or nothing has been heard yet).
    private func play(_ entry: PacketRing.Entry) {
        guard let decoder else { return }
        let title = entry.titleID ?? carriedTitle
        if title != nil || decoder.outputFormat != batch.format { writeBatch() }
        if batch.count == 0 {
            batch.format = decoder.outputFormat
            batchTitle = title
        }
        let first = batch.frameCount
        // The decoder counts frames from its format's start (to line itself up after a reset).
        var packet = entry.packet
        packet.startFrame = packet.startFrame.map { $0 - formatFirstFrame }
        do throws(AudioDecoderError) {
            tally.count(try decoder.decode(UnsafeRawBufferPointer(rebasing: scratch[0..<entry.size]), packet: packet, into: batch))
        } catch {
            fail(AudioStreamerError(decoderError: error))
            return
        }
        if tally.isMostlyUndecodable() { return failUndecodable() }
        if tally.hasUnreported { reportUndecodable() }
        let rawStart = entry.startFrame ?? 0
        let decoded = batch.frameCount - first
        let kept = keptFrames(rawStart: rawStart, count: decoded, estimated: entry.isEstimated)
        if let target = seekFrame, rawStart + Int64(decoded) > target { seekFrame = nil }
        batch.keepFrames(kept, after: first)
        guard !kept.isEmpty else {
            carriedTitle = title
            return
        }
        carriedTitle = nil
        if basePosition == nil {
            let frame = (trim ?? .none).presentationFrame(ofRawFrame: rawStart + Int64(kept.lowerBound))
            basePosition = MonotonicTime.nanoseconds(frames: frame, rate: decoder.outputFormat.sampleRate)
        }
        if volume < 1 { PCMVolume.scale(batch, fromFrame: first, by: volume) }
        if !hasNotifiedStart || batch.frameCount >= Self.batchFrames { writeBatch() }
    }

    /// Writes what the batch holds.
    private func writeBatch() {
        guard batch.count > 0 else { return }
        write(batch, title: batchTitle)
        batch.removeAll()
        batchTitle = nil
    }

    /// Writes decoded frames to the output, opening it (or reopening it for a new format), and
    /// converted to the output's format where it kept another; title `title` starts with them.
    private func write(_ decoded: PCMBuffer, title: Int?) {
        guard openOutput(for: decoded.format) else { return }
        if let title, let base = basePosition, let format = openFormat {
            if titleMarks.count == PacketQueue.keptTitles { titleMarks.removeFirst() }
            titleMarks.append((base + MonotonicTime.nanoseconds(frames: framesWritten, rate: format.sampleRate), title))
        }
        send(converter?.convert(decoded) ?? decoded)
    }

    /// Writes what the converter still holds (its resampler's delay), before the output plays
    /// out: at the end of the stream, or of a format.
    private func flushConverter() {
        guard let converter, openFormat != nil else { return }
        let tail = converter.flush()
        if tail.frameCount > 0 { send(tail) }
    }

    /// Writes frames in the output's format to the open output.
    private func send(_ buffer: PCMBuffer) {
        if isOutputPaused {
            isOutputPaused = false
            perform { output throws(AudioOutputError) in try output.setPaused(false) }
        }
        perform { output throws(AudioOutputError) in try output.write(buffer.bytes) }
        framesWritten += Int64(buffer.frameCount)
        publishPosition()
        announceTitles()
        if !hasNotifiedStart {
            hasNotifiedStart = true
            streamer.send(.outputStarted)
        }
    }

    /// The frames of a decoded block starting at raw frame `rawStart` that are heard.
    private func keptFrames(rawStart: Int64, count: Int, estimated: Bool) -> Range<Int> {
        let kept = estimated ? 0..<count : (trim ?? .none).keptFrames(start: rawStart, frameCount: count)
        guard let target = seekFrame, target > rawStart else { return kept }
        let lower = max(kept.lowerBound, Int(min(target - rawStart, Int64(count))))
        return lower < kept.upperBound ? lower..<kept.upperBound : 0..<0
    }
}

// MARK: - Decoder and output

extension PlaybackLoop {
    /// Makes the decoder for format `index`: as soon as the stream's first format is known
    /// (before playback starts, so a seek planned early knows the gapless trim), and again where
    /// the format changes. A change in the middle of playback to other PCM first lets the output
    /// play out what it holds; the output is reopened for the new PCM at its next write. A new
    /// decoder of the same PCM (the next link of a chained Ogg stream, a station's next song)
    /// writes on to the open output, without a gap.
    private func changeFormat(to index: Int, _ record: PacketQueue.FormatRecord) {
        let next: any AudioDecoder
        do throws(AudioDecoderError) {
            next = try AudioDecoders.make(for: record.format, sampleType: sampleType)
        } catch {
            fail(AudioStreamerError(decoderError: error))
            return
        }
        let samePCM = openFormat.map { (converter?.input ?? $0) == next.outputFormat } ?? false
        if decoder != nil, openFormat != nil, basePosition != nil, !samePCM {
            flushConverter()
            perform { output throws(AudioOutputError) in try output.drain() }
            // The clock goes on from where the old format's audio ended; the output is opened
            // again (its clock from 0) at the next write, even for the same PCM.
            publishPosition(drained: true)
            basePosition = currentPosition(drained: true)
            framesWritten = 0
            needsReopen = true
        }
        decoder = next
        formatIndex = index
        formatFirstFrame = record.firstFrame
        if trim == nil { trim = GaplessTrim(properties: record.properties, decoderDelay: next.decoderDelay) }
        streamer.send(.decoderReady(.init(trim: trim ?? .none, primingPackets: next.primingPacketCount)))
        // Made now (not opened): finding a sound server can take a moment, better spent while
        // the network fills the buffer.
        if output == nil {
            do throws(AudioOutputError) {
                output = try makeOutput()
            } catch {
                fail(AudioStreamerError(outputError: error))
            }
        }
    }

    /// Opens the output for `format`, or again for a new one; an output that refuses the new
    /// format keeps its old one and gets the PCM converted to it. False after reporting a failure.
    private func openOutput(for format: PCMFormat) -> Bool {
        if output != nil, let open = openFormat, !needsReopen, (converter?.input ?? open) == format { return true }
        needsReopen = false
        isOutputPaused = false
        do throws(AudioOutputError) {
            if output == nil { output = try makeOutput() }
            do {
                try output!.open(format)
                openFormat = format
                converter = nil
            } catch  where error.code == .formatNotSupported && openFormat != nil {
                let kept = openFormat!
                try output!.open(kept)
                converter = kept == format ? nil : try PCMConverter(from: format, to: kept)
            }
            let heard = output!.playsInRealTime
            isOutputHeard = heard
            queue.withLock { $0.isOutputHeard = heard }
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

    /// The position now (ns): the base plus what the output has played (or, `drained`, every
    /// frame written); nil before the first frame.
    private func currentPosition(drained: Bool = false) -> Int64? {
        guard let output, let base = basePosition, let format = openFormat else { return nil }
        let frames = drained ? framesWritten : output.framesPlayed()
        return base + MonotonicTime.nanoseconds(frames: frames, rate: format.sampleRate)
    }

    /// Tells the streamer of each title whose first frame has been heard (or, `drained`, written).
    private func announceTitles(drained: Bool = false) {
        guard !titleMarks.isEmpty, let position = currentPosition(drained: drained) else { return }
        while let mark = titleMarks.first, mark.position <= position {
            titleMarks.removeFirst()
            streamer.playbackReachedTitle(mark.id)
        }
    }

    private func publishPosition(drained: Bool = false) {
        guard let position = currentPosition(drained: drained) else { return }
        let generation = flushGeneration
        queue.withLock { $0.publishPosition(position, generation: generation) }
    }

    /// Tells the streamer how many frames could not be decoded, when the count grew and the
    /// tally says it is time (`final`: the stream ends or fails).
    private func reportUndecodable(final: Bool = false) {
        guard tally.hasUnreported, let report = tally.report(now: MonotonicTime.now(), final: final) else { return }
        streamer.send(.undecodableFrames(count: report.count, total: report.total))
    }

    /// Stops playback: most of the stream could not be decoded (`DecodeTally`), after telling
    /// the final count.
    private func failUndecodable() {
        reportUndecodable(final: true)
        let location = streamer.location
        fail(
            AudioStreamerError(
                .undecodable,
                "\(location.text): most of the stream could not be decoded: \(tally.undecodable) of \(tally.total) frames",
                url: location.url, path: location.path))
    }

    private func fail(_ error: AudioStreamerError) {
        hasFailed = true
        output?.close()
        output = nil
        openFormat = nil
        converter = nil
        streamer.send(.fatal(error))
    }
}
