import CALSA

/// ALSA's own error messages, kept instead of printed to stderr, so that a failure becomes one
/// `AudioOutputError` naming its cause.
///
/// The only file that calls the shim's error functions: they are static C, and each object file
/// that used them would get a buffer of its own.
enum ALSAErrorLog {
    /// Installs the handler, process-wide, the first time an ALSA output needs it.
    private static let installed: Void = slipstream_alsa_error_install()

    /// Installs the handler (once) and forgets the message kept on this thread: call before the
    /// ALSA calls whose failure should be explained.
    static func begin() {
        _ = installed
        slipstream_alsa_error_clear()
    }

    /// The first message ALSA reported on this thread since `begin()`, if any.
    static func message() -> String? {
        slipstream_alsa_error_message().map { String(cString: $0) }
    }
}
