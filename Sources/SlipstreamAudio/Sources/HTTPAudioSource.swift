import SlipstreamHTTP
import Synchronization

/// An `http(s)://` URL as an audio source, through the HTTP engine.
///
/// A connection from offset 0 is a plain GET; from a later offset (or for a length) it asks for
/// a range, with `If-Range` once the server gave a strong ETag, and the answer must be a 206
/// from the byte asked for (`RangeAnswer`) or a 200, the whole stream from byte 0 (no ranges
/// here: the receiver reads and drops what comes before). A 416 to a range from byte 0 of an
/// empty file is an empty stream. A stream whose answers gave no size and no range is live:
/// later connections ask for no range (they start at "now").
package final class HTTPAudioSource: AudioSource {
    /// What the answers so far said.
    private struct Knowledge {
        var hasAnswered = false
        var totalSize: Int64?
        var hasAnsweredARange = false
        var strongETag: String?

        /// No size and no range so far: a stream with no end.
        var isLive: Bool { hasAnswered && totalSize == nil && !hasAnsweredARange }
    }

    /// The request every connection starts from: URL, proxy, headers, timeouts.
    private let template: HTTPRequest
    private let engine: HTTPEngine
    private let knowledge = Mutex(Knowledge())

    /// A source for `template`'s URL, fetched on `engine`.
    package init(template: HTTPRequest, engine: HTTPEngine) {
        self.template = template
        self.engine = engine
    }

    package var location: AudioLocation { .url(template.url) }

    package func open(_ request: AudioSourceRequest, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        let (isLive, etag) = knowledge.withLock { ($0.isLive, $0.strongETag) }
        var http = template
        // A live stream is reopened from "now"; a file from the byte needed.
        let ranged = (request.offset > 0 || request.length != nil) && !isLive
        if ranged {
            http.range = HTTPRequest.ByteRange(start: request.offset, end: request.length.map { request.offset + $0 - 1 })
            if let etag { http.headers.add(name: "If-Range", value: etag) }
        }
        let sink = Sink(source: self, receiver: receiver, requestedRange: ranged ? http.range : nil, url: template.url)
        return Connection(engine.start(http, sink: sink), sink: sink)
    }

    /// Notes what an answer said; returns whether the stream is live.
    fileprivate func learn(totalSize: Int64?, rangesSupported: Bool?, strongETag: String?) -> Bool {
        knowledge.withLock { knowledge in
            knowledge.totalSize = totalSize ?? knowledge.totalSize
            knowledge.hasAnswered = true
            if rangesSupported == true { knowledge.hasAnsweredARange = true }
            if let strongETag { knowledge.strongETag = strongETag }
            return knowledge.isLive
        }
    }

    /// A transfer as a source connection.
    private final class Connection: AudioSourceConnection {
        let transfer: HTTPTransfer
        let sink: Sink

        init(_ transfer: HTTPTransfer, sink: Sink) {
            self.transfer = transfer
            self.sink = sink
        }

        func resume() { transfer.resume() }

        func gatherReads(every interval: Duration?) { transfer.gatherReads(every: interval) }

        func cancel() {
            sink.isCancelled.store(true, ordering: .relaxed)
            transfer.cancel()
        }
    }

    /// Turns one transfer's callbacks into the receiver's, checking the answer on the way: an
    /// error status ends the connection; an answer to a range request must be a 206 from the
    /// byte asked for, or a 200 (the whole stream from byte 0).
    private final class Sink: HTTPSink {
        private let source: HTTPAudioSource
        private let receiver: any AudioSourceReceiver
        private let requestedRange: HTTPRequest.ByteRange?
        private let url: String
        // Atomics, relaxed: the engine calls a sink on its I/O thread only, one call at a time
        // (see HTTPSink), and only the sink's calls touch the first three.
        /// The stream offset of the next body byte.
        private let offset = Atomic<Int64>(0)
        /// The receiver said `.stop`: it is told nothing more.
        private let isStopped = Atomic(false)
        /// The answer was an empty stream (a 416 for an empty file): its body is not the stream's.
        private let isEmpty = Atomic(false)
        /// The connection was cancelled: the receiver is told nothing more.
        let isCancelled = Atomic(false)

        init(source: HTTPAudioSource, receiver: any AudioSourceReceiver, requestedRange: HTTPRequest.ByteRange?, url: String) {
            self.source = source
            self.receiver = receiver
            self.requestedRange = requestedRange
            self.url = url
        }

        func receive(head: HTTPResponseHead) -> HTTPSinkDecision {
            let start = requestedRange?.start ?? 0
            // The length of a 200 counts the stream's bytes unless they came encoded.
            var totalSize = head.contentEncoding == nil ? head.contentLength : nil
            var rangesSupported: Bool?
            var offset: Int64 = 0
            switch RangeAnswer(head, start: start) {
            case .partial(let contentRange):
                offset = start
                totalSize = contentRange.total
                rangesSupported = true
            case .wrongRange(let contentRange):
                return .abort(
                    HTTPError(
                        .rangeNotHonoured, url: url,
                        message: "asked for bytes \(requestedRange.map { "\($0)" } ?? "0-") "
                            + "but the server sent Content-Range \(contentRange ?? "(none)")", status: head.status))
            case .otherStatus(416) where start == 0 && head.contentRange?.total == 0:
                // An empty file: nothing to send from byte 0.
                (totalSize, rangesSupported) = (0, true)
                isEmpty.store(true, ordering: .relaxed)
            case .otherStatus where !head.isSuccess:
                return .abort(HTTPError(.httpStatus, url: url, message: "the server answered HTTP \(head.statusText)", status: head.status))
            case .whole, .wrongTotal, .otherStatus:
                // The whole stream from byte 0: the receiver reads and drops what comes before.
                if requestedRange != nil || head.headers["Accept-Ranges"]?.lowercased() == "none" { rangesSupported = false }
            }
            self.offset.store(offset, ordering: .relaxed)
            let isLive = source.learn(
                totalSize: totalSize, rangesSupported: rangesSupported, strongETag: head.hasStrongETag ? head.etag : nil)
            let answer = AudioSourceAnswer(
                offset: offset, totalSize: totalSize, rangesSupported: rangesSupported, isLive: isLive,
                contentType: head.contentType,
                effectiveURL: head.effectiveURL.isEmpty || head.effectiveURL == url ? nil : head.effectiveURL,
                headers: head.headers)
            return decide(receiver.sourceOpened(answer))
        }

        func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
            if isEmpty.load(ordering: .relaxed) { return .proceed }
            let decision = decide(receiver.sourceReceived(body, at: offset.load(ordering: .relaxed)))
            if case .proceed = decision { offset.add(Int64(body.count), ordering: .relaxed) }
            return decision
        }

        func complete(_ result: Result<Void, HTTPError>) {
            guard !isStopped.load(ordering: .relaxed), !isCancelled.load(ordering: .relaxed) else { return }
            switch result {
            case .success: receiver.sourceEnded(nil)
            case .failure(let error): receiver.sourceEnded(AudioStreamerError(error, offset: offset.load(ordering: .relaxed)))
            }
        }

        private func decide(_ decision: AudioSourceDecision) -> HTTPSinkDecision {
            switch decision {
            case .proceed: return .proceed
            case .pause: return .pause
            case .stop:
                isStopped.store(true, ordering: .relaxed)
                return .finish
            }
        }
    }
}
