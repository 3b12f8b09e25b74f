/// Turns what the server received into the answer it sends: JSON-RPC over POST, GET (JSONP)
/// and WebSocket messages, answered by aria2's methods. Runs on the daemon's call queue.
enum DaemonRequests {
    static func answer(_ request: WebServer.Request, service: Aria2Service) -> WebServer.Reply {
        switch request {
        case .post(let body):
            return reply(RPCRequest.parse(body), service: service)
        case .message(let text, _):
            return reply(RPCRequest.parse(text), service: service)
        case .get(let arguments):
            let query = RPCQuery(arguments: arguments)
            let (answers, batch) = service.answer(query.request)
            var reply = WebServer.Reply(body: query.body(RPCAnswer.text(of: answers, batch: batch)))
            reply.contentType = query.contentType
            reply.status = RPCAnswer.httpStatus(of: answers, batch: batch)
            return reply
        }
    }

    private static func reply(_ request: RPCRequest, service: Aria2Service) -> WebServer.Reply {
        let (answers, batch) = service.answer(request)
        var reply = WebServer.Reply(body: RPCAnswer.text(of: answers, batch: batch))
        reply.contentType = "application/json-rpc"
        reply.status = RPCAnswer.httpStatus(of: answers, batch: batch)
        return reply
    }
}

extension Aria2Service {
    /// aria2's notification for a queue event, if it has one: a start, a completion, an
    /// error, or the removal of a running download ("stop"). Pauses are told by the calls that
    /// make them.
    func notification(for event: DownloadQueueEvent) -> [UInt8]? {
        let kind: Aria2Notification
        switch event {
        case .started: kind = .start
        case .finished: kind = .complete
        case .failed(let id, let error):
            let entry = book.withLock { $0.entries[id] }
            guard error.code == .cancelled, entry?.removed == true else {
                kind = .error
                break
            }
            // As aria2: only the removal of a running download is told.
            guard entry?.removedWhileActive == true else { return nil }
            kind = .stop
        default: return nil
        }
        guard let gid = book.withLock({ $0.entries[event.id]?.gid }) else { return nil }
        return kind.text(gid)
    }
}

extension DownloadQueueEvent {
    /// Whether the daemon tells it or writes its session after it: a start or an end (the
    /// queue's other events, thousands at a time when a list is added, wake nobody).
    var concernsTheDaemon: Bool {
        switch self {
        case .started, .finished, .failed: true
        default: false
        }
    }
}
