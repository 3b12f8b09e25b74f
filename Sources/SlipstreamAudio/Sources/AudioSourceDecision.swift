/// What a receiver tells a connection after each call.
package enum AudioSourceDecision: Sendable {
    /// Go on (for bytes: every byte was taken).
    case proceed
    /// Deliver nothing more until `resume()`; the bytes were not taken and come again.
    case pause
    /// End the connection now, quietly: nothing more is delivered, the end is not told.
    case stop
}
