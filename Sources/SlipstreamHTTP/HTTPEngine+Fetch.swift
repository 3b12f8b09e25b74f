import Synchronization

/// A whole small response: its head and body.
public struct HTTPResponse: Sendable {
    /// The final response head.
    public var head: HTTPResponseHead
    /// The body bytes (at most the limit given to `fetch`).
    public var body: [UInt8]
}

extension HTTPEngine {
    /// Fetches a response into memory, for small bodies (heads of files, tags, tests).
    /// Stops reading after `maxBodyBytes` (default 1 MiB) and returns what it has; cancelling
    /// the calling task cancels the transfer.
    public func fetch(_ request: HTTPRequest, maxBodyBytes: Int = 1 << 20) async throws(HTTPError) -> HTTPResponse {
        let started = StartedTransfer()
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                started.attach(fetch(request, maxBodyBytes: maxBodyBytes) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            started.cancel()
        }
        return try result.get()
    }

    /// Fetches a response into memory as `fetch(_:maxBodyBytes:)` does, for a caller on a
    /// thread of its own that must not wait for the Swift concurrency pool: `completion` gets
    /// the response (or the error; `.cancelled` after `cancel()` on the returned transfer)
    /// once, on the engine's I/O thread, where it must not block.
    @discardableResult
    public func fetch(
        _ request: HTTPRequest, maxBodyBytes: Int = 1 << 20,
        completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    ) -> HTTPTransfer {
        start(request, sink: CollectingSink(limit: maxBodyBytes, completion: completion))
    }
}

/// A transfer that may be cancelled before it is known (a task cancelled while it starts).
private final class StartedTransfer: Sendable {
    private let state = Mutex<(transfer: HTTPTransfer?, isCancelled: Bool)>((nil, false))

    func attach(_ transfer: HTTPTransfer) {
        if state.withLock({ state in
            state.transfer = transfer
            return state.isCancelled
        }) {
            transfer.cancel()
        }
    }

    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            return state.transfer
        }?.cancel()
    }
}

/// Keeps the head and up to `limit` body bytes, then hands them to `completion`.
private final class CollectingSink: HTTPSink {
    private struct State {
        var head: HTTPResponseHead?
        var body: [UInt8] = []
    }

    private let limit: Int
    private let completion: @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    private let state = Mutex(State())

    init(limit: Int, completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void) {
        self.limit = limit
        self.completion = completion
    }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision {
        state.withLock { $0.head = head }
        return .proceed
    }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
        state.withLock { state in
            let room = limit - state.body.count
            state.body.append(contentsOf: body.prefix(room))
            return body.count >= room ? .finish : .proceed
        }
    }

    func complete(_ result: Result<Void, HTTPError>) {
        let outcome = state.withLock { state in
            result.flatMap { () -> Result<HTTPResponse, HTTPError> in
                guard let head = state.head else {
                    return .failure(HTTPError(.invalidResponse, url: "", message: "no response head"))
                }
                return .success(HTTPResponse(head: head, body: state.body))
            }
        }
        completion(outcome)
    }
}
