import SlipstreamHTTP

/// Turns one HTTP transfer's callbacks into the player's feed calls, checking the answer on the
/// way: an error status ends the connection; an answer to a range request must be a 206 from the
/// byte asked for, or a 200 (the whole stream from byte 0: the feed reads and discards).
final class HTTPStreamSink: HTTPSink {
    private let feed: any StreamFeed
    private let generation: Int
    private let requestedOffset: Int64?
    private let url: String

    init(feed: any StreamFeed, generation: Int, requestedOffset: Int64?, url: String) {
        self.feed = feed
        self.generation = generation
        self.requestedOffset = requestedOffset
        self.url = url
    }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision {
        guard head.isSuccess else {
            let error = HTTPError(.httpStatus, url: url, message: "the server answered \(head.statusText)", status: head.status)
            return .abort(error)
        }
        var answer = StreamAnswer(offset: 0, totalSize: head.contentLength, rangesSupported: nil,
                                  strongETag: head.hasStrongETag ? head.etag : nil, contentType: head.contentType)
        switch RangeAnswer(head, start: requestedOffset ?? 0) {
        case .partial(let contentRange):
            answer.offset = requestedOffset ?? 0
            answer.totalSize = contentRange.total
            answer.rangesSupported = true
        case .wrongRange(let contentRange):
            return .abort(HTTPError(.rangeNotHonoured, url: url,
                                    message: "asked for bytes from \(requestedOffset ?? 0), the server sent \(contentRange ?? "no Content-Range")"))
        case .whole, .wrongTotal, .otherStatus:
            // The whole stream from byte 0: the feed reads and drops what comes before the offset.
            if requestedOffset != nil || head.headers["Accept-Ranges"]?.lowercased() == "none" { answer.rangesSupported = false }
        }
        if let error = feed.accept(answer, generation: generation) {
            return .abort(HTTPError(.cancelled, url: url, message: error.message))
        }
        return .proceed
    }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
        feed.consume(body, generation: generation)
    }

    func complete(_ result: Result<Void, HTTPError>) {
        switch result {
        case .success: feed.finish(nil, generation: generation)
        case .failure(let error): feed.finish(AudioStreamerError(error), generation: generation)
        }
    }
}
