extension AudioStreamParser {
    /// Feeds `input` through the steps: straight from `input` when nothing is held, else by
    /// topping the held bytes up to what the next step needs. Only bytes a step asked for are
    /// held; bytes being skipped are dropped as they arrive.
    package mutating func run(_ input: UnsafeRawBufferPointer, isFinal: Bool, sink: inout some AudioStreamSink) throws(AudioParserError) {
        if case .failed(let error) = stage { throw error }
        var input = input
        while true {
            if skipRemaining > 0 {
                let fromHeld = Int(min(Int64(heldCount), skipRemaining))
                skipRemaining -= Int64(fromHeld)
                dropHeld(fromHeld)
                let fromInput = Int(min(Int64(input.count), skipRemaining))
                skipRemaining -= Int64(fromInput)
                position += Int64(fromInput)
                input = UnsafeRawBufferPointer(rebasing: input[fromInput...])
                if skipRemaining > 0 { return }
            }
            if heldCount > 0 {
                let take = min(max(needed - heldCount, 0), input.count)
                pending.append(contentsOf: input[..<take])
                input = UnsafeRawBufferPointer(rebasing: input[take...])
                let isLast = isFinal && input.isEmpty
                guard heldCount >= needed || isLast else { return }
                // A copy of the (unchanged) buffer: `apply` mutates `self`, which must not be
                // borrowed meanwhile.
                let held = pending, start = pendingStart
                let used = held.withUnsafeBytes { raw in
                    Result { () throws(AudioParserError) in
                        try apply(UnsafeRawBufferPointer(rebasing: raw[start...]), isFinal: isLast, sink: &sink)
                    }
                }
                dropHeld(try used.get())
                if takeJump() { return }
                // What is still held came from this input: it is read from there again, and
                // feeding goes back to straight from the input (no copy of every byte after
                // a step that crossed two inputs).
                if heldCount > 0, heldCount <= take, let end = input.baseAddress {
                    input = UnsafeRawBufferPointer(start: end - heldCount, count: input.count + heldCount)
                    pending.removeAll(keepingCapacity: true)
                    pendingStart = 0
                }
            } else {
                if input.isEmpty { return }
                guard input.count >= needed || isFinal else {
                    pending.removeAll(keepingCapacity: true)
                    pendingStart = 0
                    pending.append(contentsOf: input)
                    return
                }
                let used = try apply(input, isFinal: isFinal, sink: &sink)
                position += Int64(used)
                input = UnsafeRawBufferPointer(rebasing: input[used...])
                if takeJump() { return }
            }
        }
    }

    /// Carries out a jump a step asked for: nothing held or fed after it counts; the next bytes
    /// are expected from the jump's target. Whether there was one.
    private mutating func takeJump() -> Bool {
        guard let target = jumpTarget else { return false }
        jumpTarget = nil
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        skipRemaining = 0
        needed = 1
        position = target
        return true
    }

    /// Bytes held and not yet used.
    package var heldCount: Int { pending.count - pendingStart }

    /// Drops `count` held bytes, compacting the buffer once more than half of it is dead.
    private mutating func dropHeld(_ count: Int) {
        guard count > 0 else { return }
        pendingStart += count
        position += Int64(count)
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart > pending.count / 2 {
            pending.removeSubrange(0..<pendingStart)
            pendingStart = 0
        }
    }

    /// Takes one step on `window` (which starts at `position`) and carries it out; returns the
    /// bytes used from the window.
    private mutating func apply(
        _ window: UnsafeRawBufferPointer, isFinal: Bool, sink: inout some AudioStreamSink
    ) throws(AudioParserError) -> Int {
        var step = try nextStep(window, isFinal: isFinal)
        needed = 1
        if case .need(let count) = step {
            // At the end nothing more will come; a step never asks for what it already has.
            guard !isFinal else { step = .skip(Int64(window.count)); return carryOut(step, window, sink: &sink) }
            needed = max(count, window.count + 1)
        }
        return carryOut(step, window, sink: &sink)
    }

    private mutating func carryOut(_ step: ParseStep, _ window: UnsafeRawBufferPointer, sink: inout some AudioStreamSink) -> Int {
        var used = 0
        switch step {
        case .need:
            break
        case .skip(let count):
            used = Int(min(count, Int64(window.count)))
            skipRemaining = count - Int64(used)
        case .jump(let target):
            jumpTarget = target
        case .packet(let size, let frames):
            let packet = state.recordPacket(offset: position, size: size, frameCount: frames)
            notifyIfChanged(&sink)
            sink.audioStream(packet: packet, bytes: UnsafeRawBufferPointer(rebasing: window[..<size]))
            used = size
        case .assembledPacket(let offset, let frames, let skip):
            if case .ogg(let parser) = stage {
                parser.withAssembledPacket { bytes in
                    let packet = state.recordPacket(offset: offset, size: bytes.count, frameCount: frames)
                    notifyIfChanged(&sink)
                    sink.audioStream(packet: packet, bytes: bytes)
                }
            }
            used = min(skip, window.count)
            skipRemaining = Int64(skip - used)
        }
        notifyIfChanged(&sink)
        return used
    }

    private mutating func notifyIfChanged(_ sink: inout some AudioStreamSink) {
        guard state.changed else { return }
        state.changed = false
        sink.audioStream(propertiesChanged: state.snapshot())
    }

    /// The next step: the tag being read, a tag starting, or the stage's own.
    private mutating func nextStep(_ window: UnsafeRawBufferPointer, isFinal: Bool) throws(AudioParserError) -> ParseStep {
        if var reader = tagReader {
            let before = state.properties.tags
            let step = reader.step(window, isFinal: isFinal, tags: &state.properties.tags)
            if state.properties.tags != before { state.changed = true }
            if let step {
                tagReader = reader
                return step
            }
            tagReader = nil
        }
        switch stage {
        case .sniffing, .mpeg, .adts:
            let before = state.properties.tags
            switch TagReader.detect(window, isFinal: isFinal, tags: &state.properties.tags) {
            case .need(let count):
                return .need(count)
            case .tag(let step, let reader):
                if state.properties.tags != before { state.changed = true }
                tagReader = reader
                return step
            case .none:
                break
            }
        case .wav, .mp4, .flac, .aiff, .caf, .ogg, .failed:
            break
        }
        switch stage {
        case .sniffing(var sniffer):
            let outcome: FormatSniffer.Outcome
            do { outcome = try sniffer.step(window, offset: position, isFinal: isFinal, hints: state.hints) } catch {
                throw fail(error)
            }
            switch outcome {
            case .step(let step):
                stage = .sniffing(sniffer)
                if case .skip(let count) = step { state.properties.junkByteCount += count }
                return step
            case .found(.mpeg): stage = .mpeg(MPEGAudioParser())
            case .found(.adts): stage = .adts(ADTSParser())
            case .found(.wav): stage = .wav(WAVParser())
            case .found(.mp4): stage = .mp4(MP4Parser())
            case .found(.flac): stage = .flac(FLACParser())
            case .found(.aiff): stage = .aiff(AIFFParser())
            case .found(.caf): stage = .caf(CAFParser())
            case .found(.ogg): stage = .ogg(OggParser())
            }
            return try nextStep(window, isFinal: isFinal)
        case .mpeg(var parser):
            let step = parser.step(window, offset: position, isFinal: isFinal, state: &state)
            stage = .mpeg(parser)
            return step
        case .adts(var parser):
            let step = parser.step(window, isFinal: isFinal, state: &state)
            stage = .adts(parser)
            return step
        case .wav(var parser):
            do {
                let step = try parser.step(window, offset: position, isFinal: isFinal, state: &state)
                stage = .wav(parser)
                return step
            } catch {
                throw fail(error)
            }
        case .mp4(var parser):
            do {
                let step = try parser.step(window, offset: position, isFinal: isFinal, state: &state)
                stage = .mp4(parser)
                return step
            } catch {
                throw fail(error)
            }
        case .flac(var parser):
            do {
                let step = try parser.step(window, offset: position, isFinal: isFinal, state: &state)
                stage = .flac(parser)
                return step
            } catch {
                throw fail(error)
            }
        case .aiff(var parser):
            do {
                let step = try parser.step(window, offset: position, isFinal: isFinal, state: &state)
                stage = .aiff(parser)
                return step
            } catch {
                throw fail(error)
            }
        case .caf(var parser):
            do {
                let step = try parser.step(window, offset: position, isFinal: isFinal, state: &state)
                stage = .caf(parser)
                return step
            } catch {
                throw fail(error)
            }
        case .ogg(var parser):
            do {
                let step = try parser.step(window, offset: position, isFinal: isFinal, state: &state)
                stage = .ogg(parser)
                return step
            } catch {
                throw fail(error)
            }
        case .failed(let error):
            throw error
        }
    }
}
