import CPulse

/// Whether a PulseAudio server answers, found out quickly: one connection attempt with
/// PulseAudio's asynchronous API, without starting a server (no autospawn), given up after a
/// deadline, printing nothing.
enum PulseServerProbe {
    /// How long `auto` waits for the default server before taking ALSA, in seconds: 0.5.
    static let automaticTimeoutSeconds = 0.5
    /// How long a server the user named may take to answer, in seconds: 5 (a loaded machine's
    /// server can take more than half a second).
    static let namedServerTimeoutSeconds = 5.0

    /// Whether `server` (`nil`: the default server) accepts a connection within `timeout` seconds.
    static func answers(server: String?, within timeout: Double) -> Bool {
        guard let loop = slipstream_pa_mainloop_new() else { return false }
        defer { slipstream_pa_mainloop_free(loop) }
        guard let context = slipstream_pa_context_new(slipstream_pa_mainloop_get_api(loop), "slipstream probe") else { return false }
        defer {
            slipstream_pa_context_disconnect(context)
            slipstream_pa_context_unref(context)
        }
        guard slipstream_pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else { return false }
        let deadline = MonotonicTime.now() + Int64(timeout * 1e9)
        while true {
            let state = slipstream_pa_context_get_state(context)
            if state == PA_CONTEXT_READY { return true }
            if PA_CONTEXT_IS_GOOD(state) == 0 { return false }
            let remaining = deadline - MonotonicTime.now()
            guard remaining > 0 else { return false }
            // Wait at most until the deadline (microseconds) for the connection to move on.
            guard slipstream_pa_mainloop_prepare(loop, Int32(remaining / 1000)) >= 0, slipstream_pa_mainloop_poll(loop) >= 0,
                slipstream_pa_mainloop_dispatch(loop) >= 0
            else { return false }
        }
    }
}
