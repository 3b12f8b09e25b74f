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
        let sink = CollectingSink(limit: maxBodyBytes)
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                sink.onComplete(continuation)
                sink.attach(start(request, sink: sink))
            }
        } onCancel: {
            sink.cancel()
        }
        return try result.get()
    }
}

/// Keeps the head and up to `limit` body bytes, then hands them to one continuation.
private final class CollectingSink: HTTPSink {
    private struct State {
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        var continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>?
        var transfer: HTTPTransfer?
        var cancelled = false
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    func onComplete(_ continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func attach(_ transfer: HTTPTransfer) {
        let cancelled = state.withLock { state in
            state.transfer = transfer
            return state.cancelled
        }
        if cancelled { transfer.cancel() }
    }

    func cancel() {
        let transfer = state.withLock { state in
            state.cancelled = true
            return state.transfer
        }
        transfer?.cancel()
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
        let (continuation, outcome) = state.withLock { state in
            defer { state.continuation = nil }
            let outcome: Result<HTTPResponse, HTTPError> = result.flatMap {
                guard let head = state.head else {
                    return .failure(HTTPError(.invalidResponse, url: "", message: "no response head"))
                }
                return .success(HTTPResponse(head: head, body: state.body))
            }
            return (state.continuation, outcome)
        }
        continuation?.resume(returning: outcome)
    }
}
