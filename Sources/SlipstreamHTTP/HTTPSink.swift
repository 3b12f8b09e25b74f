/// Receives one transfer's response. The engine calls these methods on its I/O thread,
/// one at a time and in order: `receive(head:)` once before any body byte, then
/// `receive(body:)` for each slice, then `complete(_:)` exactly once. They must return quickly.
public protocol HTTPSink: AnyObject, Sendable {
    /// The final response head, before the first body byte (or at the end, for a response
    /// without a body). Return `.abort` to drop the response without reading its body.
    func receive(head: HTTPResponseHead) -> HTTPSinkDecision

    /// A slice of the body, valid only during the call (libcurl's own buffer; copy what you keep).
    /// `.proceed` means every byte was taken; `.pause` means none was, and the same bytes come
    /// again after `HTTPTransfer.resume()`; `.proceedThenPause` means every byte was taken and
    /// the transfer stops reading until `resume()`; `.finish` ends the transfer successfully
    /// after taking what was wanted; `.abort` ends it with the given error.
    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision

    /// The transfer is over: `.success` when the whole response was received (or the sink said
    /// `.finish`), otherwise the reason it failed.
    func complete(_ result: Result<Void, HTTPError>)
}

/// What a sink tells the engine to do next.
public enum HTTPSinkDecision: Sendable {
    /// Carry on (for a body slice: every byte was taken).
    case proceed
    /// Stop delivering until `HTTPTransfer.resume()`; the slice was not taken.
    case pause
    /// Every byte of the slice was taken; read nothing more until `HTTPTransfer.resume()`. The
    /// rest of what libcurl already read comes first, in more slices (this too is the sink's
    /// to take or to refuse with `.pause`): unlike `.pause`, libcurl then keeps no copy of it.
    /// For a sink whose room runs low.
    case proceedThenPause
    /// End the transfer now, successfully: the sink has all it wants.
    case finish
    /// End the transfer now with this error.
    case abort(HTTPError)
}
