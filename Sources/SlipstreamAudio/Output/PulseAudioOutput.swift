import CPulse

/// Plays PCM through a PulseAudio server with its simple API (`pa_simple`), channels in WAVE
/// order (as `WAVFileOutput` writes them).
///
/// The stream asks the server for a target buffer of `targetLatencySeconds` (0.2 s) instead of
/// its default 2 s, so that pausing and the clock follow the sound closely, and for more audio
/// only once `requestSeconds` (0.1 s) of it has room: the server's default asks in small pieces,
/// and each one wakes its client thread and the playback thread (measured on live radio: the
/// two threads took a third of the CPU time with this, or less, as they did with the default).
/// The clock is the frames written minus the stream's latency as the server reports it, never
/// negative and never going back.
///
/// Pause: `pa_simple` cannot cork a stream. Pausing only stops writing: the server plays what it
/// holds (at most about 0.2 s) and waits; nothing is lost, and the clock, which counts what the
/// server has played, stops when the sound does. `flush()` drops what the server holds.
public final class PulseAudioOutput: AudioOutput {
    /// The server, in PulseAudio's spelling (`unix:/run/user/1000/pulse/native`,
    /// `tcp:host:4713`, ...), or `nil` for the default one (`PULSE_SERVER`, the configuration,
    /// then the user's and the system's sockets).
    public let server: String?
    /// The name the server shows for this client and its stream.
    public let applicationName: String
    /// The buffer the stream asks the server for, in seconds: 0.2.
    public static let targetLatencySeconds = 0.2
    /// The least the server asks for at once, in seconds: 0.1.
    public static let requestSeconds = 0.1

    private var stream: OpaquePointer?
    private var format: PCMFormat?
    private var framesWritten: Int64 = 0
    /// The clock's last answer: it never goes back, though the latency the server reports wobbles.
    private var lastFramesPlayed: Int64 = 0

    /// Creates an output for `server` (default: the default server); nothing connects until
    /// `open(_:)`.
    public init(server: String? = nil, applicationName: String = "slipstream") {
        self.server = server
        self.applicationName = applicationName
    }

    deinit { close() }

    public func open(_ format: PCMFormat) throws(AudioOutputError) {
        if stream != nil, self.format == format {
            try flush()
            return
        }
        close()
        var spec = pa_sample_spec(
            format: format.sampleType == .signed16 ? PA_SAMPLE_S16LE : PA_SAMPLE_FLOAT32LE,
            rate: UInt32(clamping: format.sampleRate), channels: UInt8(clamping: format.channels))
        let bytesPerSecond = Double(format.sampleRate * format.bytesPerFrame)
        // (uint32_t)-1 asks for the server's default.
        var attributes = pa_buffer_attr(
            maxlength: .max, tlength: UInt32(clamping: Int64(clamping: bytesPerSecond * Self.targetLatencySeconds)), prebuf: .max,
            minreq: UInt32(clamping: Int64(clamping: bytesPerSecond * Self.requestSeconds)),
            fragsize: .max)
        // Channels in WAVE order (front left, front right, centre, LFE, ...), as in WAV files.
        var map = pa_channel_map()
        slipstream_pa_channel_map_init_extend(&map, UInt32(spec.channels), PA_CHANNEL_MAP_WAVEEX)
        var error: Int32 = 0
        guard
            let opened = slipstream_pa_simple_new(
                server, applicationName, PA_STREAM_PLAYBACK, nil, applicationName,
                &spec, &map, &attributes, &error)
        else {
            let unsupported = error == Int32(PA_ERR_INVALID.rawValue) || error == Int32(PA_ERR_NOTSUPPORTED.rawValue)
            throw failure(
                unsupported ? .formatNotSupported : .unavailable,
                unsupported ? "cannot play \(format)" : "cannot connect", error)
        }
        stream = opened
        self.format = format
        framesWritten = 0
        lastFramesPlayed = 0
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        let stream = try openStream()
        guard let format, frames.count > 0 else { return }
        var error: Int32 = 0
        guard slipstream_pa_simple_write(stream, frames.baseAddress, frames.count, &error) >= 0 else {
            throw failure(.deviceFailed, "cannot play", error)
        }
        framesWritten += Int64(frames.count / format.bytesPerFrame)
    }

    public func framesPlayed() -> Int64 {
        guard let stream, let format else { return 0 }
        var error: Int32 = 0
        let latency = slipstream_pa_simple_get_latency(stream, &error)
        // No answer (the connection failed): keep the last one; the next write reports the error.
        guard latency != .max else { return lastFramesPlayed }
        let queued = Int64(min(latency, UInt64(Int64.max / 1_000_000))) * Int64(format.sampleRate) / 1_000_000
        lastFramesPlayed = max(lastFramesPlayed, framesWritten - queued)
        return lastFramesPlayed
    }

    /// Does nothing but let the caller stop writing: the server plays what it holds (about
    /// `targetLatencySeconds`) and waits for more (see the type's notes).
    public func setPaused(_ paused: Bool) throws(AudioOutputError) {
        _ = try openStream()
    }

    public func flush() throws(AudioOutputError) {
        let stream = try openStream()
        var error: Int32 = 0
        guard slipstream_pa_simple_flush(stream, &error) >= 0 else { throw failure(.deviceFailed, "cannot flush", error) }
        framesWritten = 0
        lastFramesPlayed = 0
    }

    public func drain() throws(AudioOutputError) {
        let stream = try openStream()
        var error: Int32 = 0
        guard slipstream_pa_simple_drain(stream, &error) >= 0 else { throw failure(.deviceFailed, "cannot drain", error) }
        // Everything written has played; the latency the server last told may be older.
        lastFramesPlayed = framesWritten
    }

    public func close() {
        guard let stream else { return }
        slipstream_pa_simple_free(stream)
        self.stream = nil
        format = nil
        framesWritten = 0
        lastFramesPlayed = 0
    }

    /// The open stream, or an error naming the server.
    private func openStream() throws(AudioOutputError) -> OpaquePointer {
        guard let stream else { throw AudioOutputError(.deviceFailed, "\(Self.name(of: server)): not open", output: Self.name(of: server)) }
        return stream
    }

    /// One error naming the server, what was being done and PulseAudio's message for `error`.
    private func failure(_ code: AudioOutputError.Code, _ action: String, _ error: Int32) -> AudioOutputError {
        AudioOutputError(
            code, "\(Self.name(of: server)): \(action): \(String(cString: slipstream_pa_strerror(error)))",
            output: Self.name(of: server), systemStatus: error)
    }

    /// "PulseAudio server \"unix:/x\"", or "PulseAudio (default server)", for messages.
    static func name(of server: String?) -> String {
        server.map { "PulseAudio server \"\($0)\"" } ?? "PulseAudio (default server)"
    }
}
