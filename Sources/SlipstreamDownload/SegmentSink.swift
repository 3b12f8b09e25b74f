import SlipstreamHTTP

/// One connection of a download: forwards its transfer's callbacks to the job, tagged with
/// the connection's number and the range it asked for.
final class SegmentSink: HTTPSink {
    /// The connection's number within the job.
    let connection: Int
    /// The first byte asked for.
    let requestStart: Int64
    /// One past the last byte asked for; nil when the request was open-ended (`bytes=0-` or none).
    let requestEnd: Int64?
    private let job: DownloadJob

    init(job: DownloadJob, connection: Int, requestStart: Int64, requestEnd: Int64?) {
        self.job = job
        self.connection = connection
        self.requestStart = requestStart
        self.requestEnd = requestEnd
    }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision {
        job.receive(head: head, on: self)
    }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
        job.receive(body: body, on: self)
    }

    func complete(_ result: Result<Void, HTTPError>) {
        job.complete(result, on: self)
    }
}
