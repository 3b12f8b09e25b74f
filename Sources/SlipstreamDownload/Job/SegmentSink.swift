import SlipstreamHTTP

/// One connection of a download: forwards its transfer's callbacks to the job, tagged with
/// the connection's number.
final class SegmentSink: HTTPSink {
    /// The connection's number within the job.
    let connection: Int
    private let job: DownloadJob

    init(job: DownloadJob, connection: Int) {
        self.job = job
        self.connection = connection
    }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision {
        job.receive(head: head, on: connection)
    }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
        job.receive(body: body, on: connection)
    }

    func complete(_ result: Result<Void, HTTPError>) {
        job.complete(result, on: connection)
    }
}
