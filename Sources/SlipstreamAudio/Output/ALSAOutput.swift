import CALSA

/// Plays PCM on an ALSA device: `default` (which ALSA's configuration may route to PulseAudio),
/// a card such as `hw:0` or `plughw:0`, or `null`.
///
/// The device is opened blocking, interleaved, at exactly the format's rate (an error otherwise:
/// there is no resampling here), with periods of about 40 ms and a buffer of about 320 ms.
/// Underruns are recovered silently. ALSA prints nothing: its messages become the cause in one
/// `AudioOutputError` naming the device.
///
/// Pause uses `snd_pcm_pause` where the device supports it. A device that cannot pause drops what
/// it holds (at most the buffer, about 0.32 s, is skipped) and the clock counts those frames as
/// played, so the position stays true to what plays after the resume.
public final class ALSAOutput: AudioOutput {
    /// The ALSA device name, e.g. `default`, `hw:0`, `null`.
    public let device: String

    /// Requested period (ALSA takes the nearest it can), in microseconds.
    static let periodMicroseconds: UInt32 = 40_000
    /// Requested buffer (ALSA takes the nearest it can), in microseconds.
    static let bufferMicroseconds: UInt32 = 320_000

    private var pcm: OpaquePointer?
    private var format: PCMFormat?
    private var framesWritten: Int64 = 0
    private var canPause = false
    private var pause = PauseState.playing

    /// How the output is paused, which says how to resume.
    private enum PauseState {
        case playing
        /// Paused with `snd_pcm_pause`: resume with it.
        case device
        /// Nothing was playing (or the queue was dropped): the next write starts the device.
        case stopped
    }

    /// Creates an output for `device` (default `default`); nothing is opened until `open(_:)`.
    public init(device: String = "default") {
        self.device = device
    }

    deinit { close() }

    public func open(_ format: PCMFormat) throws(AudioOutputError) {
        if pcm != nil, self.format == format {
            try flush()
            return
        }
        close()
        ALSAErrorLog.begin()
        var handle: OpaquePointer?
        let status = slipstream_snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard status >= 0, let handle else {
            throw failure(.unavailable, "cannot open", status)
        }
        do throws(AudioOutputError) {
            try configure(handle, for: format)
        } catch {
            slipstream_snd_pcm_close(handle)
            throw error
        }
        pcm = handle
        self.format = format
        framesWritten = 0
        pause = .playing
    }

    /// Sets the hardware parameters for `format` on `handle`.
    private func configure(_ handle: OpaquePointer, for format: PCMFormat) throws(AudioOutputError) {
        var params: OpaquePointer?
        guard slipstream_snd_pcm_hw_params_malloc(&params) >= 0, let params else {
            throw AudioOutputError(.deviceFailed, "\(name): out of memory", output: name)
        }
        defer { slipstream_snd_pcm_hw_params_free(params) }
        try check(slipstream_snd_pcm_hw_params_any(handle, params), .formatNotSupported, "cannot read its parameters")
        try check(
            slipstream_snd_pcm_hw_params_set_access(handle, params, SND_PCM_ACCESS_RW_INTERLEAVED),
            .formatNotSupported, "cannot play interleaved samples")
        let sampleFormat = format.sampleType == .signed16 ? SND_PCM_FORMAT_S16_LE : SND_PCM_FORMAT_FLOAT_LE
        try check(
            slipstream_snd_pcm_hw_params_set_format(handle, params, sampleFormat),
            .formatNotSupported, "cannot play \(format)")
        try check(
            slipstream_snd_pcm_hw_params_set_channels(handle, params, UInt32(format.channels)),
            .formatNotSupported, "cannot play \(format.channels) channels")
        var rate = UInt32(format.sampleRate)
        try check(
            slipstream_snd_pcm_hw_params_set_rate_near(handle, params, &rate, nil),
            .formatNotSupported, "cannot play \(format.sampleRate) Hz")
        guard rate == UInt32(format.sampleRate) else {
            throw AudioOutputError(.formatNotSupported, "\(name): plays \(rate) Hz, not \(format.sampleRate) Hz", output: name)
        }
        var period = Self.periodMicroseconds
        try check(
            slipstream_snd_pcm_hw_params_set_period_time_near(handle, params, &period, nil),
            .formatNotSupported, "cannot take a period of \(period) µs")
        var buffer = Self.bufferMicroseconds
        try check(
            slipstream_snd_pcm_hw_params_set_buffer_time_near(handle, params, &buffer, nil),
            .formatNotSupported, "cannot take a buffer of \(buffer) µs")
        try check(slipstream_snd_pcm_hw_params(handle, params), .formatNotSupported, "cannot play \(format)")
        canPause = slipstream_snd_pcm_hw_params_can_pause(params) == 1
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        let pcm = try openDevice()
        guard let format, let base = frames.baseAddress else { return }
        if pause != .playing { try setPaused(false) }
        let width = format.bytesPerFrame
        let total = frames.count / width
        var done = 0
        while done < total {
            ALSAErrorLog.begin()
            let written = slipstream_snd_pcm_writei(pcm, base + done * width, snd_pcm_uframes_t(total - done))
            if written >= 0 {
                done += written
                framesWritten += Int64(written)
            } else {
                // An underrun (EPIPE) or a suspend (ESTRPIPE): prepare the device and go on.
                try check(slipstream_snd_pcm_recover(pcm, Int32(written), 1), .deviceFailed, "cannot play")
            }
        }
    }

    public func framesPlayed() -> Int64 {
        guard let pcm else { return 0 }
        var delay: snd_pcm_sframes_t = 0
        // No delay to read (not started, stopped by an underrun): everything written was played.
        if pause == .stopped || slipstream_snd_pcm_delay(pcm, &delay) < 0 { delay = 0 }
        return max(0, framesWritten - Int64(min(max(delay, 0), Int(framesWritten))))
    }

    public func setPaused(_ paused: Bool) throws(AudioOutputError) {
        let pcm = try openDevice()
        ALSAErrorLog.begin()
        switch (paused, pause) {
        case (true, .playing):
            if slipstream_snd_pcm_state(pcm) != SND_PCM_STATE_RUNNING {
                pause = .stopped
            } else if canPause, slipstream_snd_pcm_pause(pcm, 1) == 0 {
                pause = .device
            } else {
                // No pause here: drop the queue and count it as played (skipped).
                try check(slipstream_snd_pcm_drop(pcm), .deviceFailed, "cannot pause")
                try check(slipstream_snd_pcm_prepare(pcm), .deviceFailed, "cannot pause")
                pause = .stopped
            }
        case (false, .device):
            if slipstream_snd_pcm_pause(pcm, 0) < 0 {
                // Resuming failed (e.g. the device was suspended meanwhile): start over empty.
                try check(slipstream_snd_pcm_prepare(pcm), .deviceFailed, "cannot resume")
            }
            pause = .playing
        case (false, .stopped):
            pause = .playing
        default:
            break
        }
    }

    public func flush() throws(AudioOutputError) {
        let pcm = try openDevice()
        ALSAErrorLog.begin()
        try check(slipstream_snd_pcm_drop(pcm), .deviceFailed, "cannot flush")
        try check(slipstream_snd_pcm_prepare(pcm), .deviceFailed, "cannot flush")
        framesWritten = 0
        pause = .playing
    }

    public func drain() throws(AudioOutputError) {
        let pcm = try openDevice()
        if pause != .playing { try setPaused(false) }
        ALSAErrorLog.begin()
        // After an underrun everything written has been played already.
        if slipstream_snd_pcm_state(pcm) != SND_PCM_STATE_XRUN {
            try check(slipstream_snd_pcm_drain(pcm), .deviceFailed, "cannot drain")
        }
        // Drained, the device stops: prepare it for more.
        try check(slipstream_snd_pcm_prepare(pcm), .deviceFailed, "cannot drain")
        pause = .playing
    }

    public func close() {
        guard let pcm else { return }
        slipstream_snd_pcm_close(pcm)
        self.pcm = nil
        format = nil
        framesWritten = 0
    }

    /// The open device, or an error naming it.
    private func openDevice() throws(AudioOutputError) -> OpaquePointer {
        guard let pcm else { throw AudioOutputError(.deviceFailed, "\(name): not open", output: name) }
        return pcm
    }

    /// Throws an error of `code` if `status` is an ALSA error (negative).
    private func check(_ status: Int32, _ code: AudioOutputError.Code, _ action: String) throws(AudioOutputError) {
        if status < 0 { throw failure(code, action, status) }
    }

    /// One error for a failed ALSA call: the device, what was being done, ALSA's error and the
    /// first message it reported, e.g. `ALSA device "hw:9": cannot open: No such file or
    /// directory (Cannot get card index for 9)`.
    private func failure(_ code: AudioOutputError.Code, _ action: String, _ status: Int32) -> AudioOutputError {
        var message = "\(name): \(action): \(String(cString: slipstream_snd_strerror(status)))"
        if let detail = ALSAErrorLog.message() { message += " (\(detail))" }
        return AudioOutputError(code, message, output: name, systemStatus: status)
    }

    /// `ALSA device "default"`, for messages.
    private var name: String { "ALSA device \"\(device)\"" }
}
