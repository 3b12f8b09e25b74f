import Dispatch
import Synchronization

/// The controls of a connection whose bytes a thread of its own reads and delivers (a file's,
/// a running download's): `resume()` after a `.pause`, `cancel()`, and the delivery that
/// honours both.
final class PausableDelivery: Sendable {
    private struct Control {
        /// Counts `resume()` calls: a pause waits for one made after the bytes were offered.
        var resumes = 0
        var cancelled = false
    }

    private let control = Mutex(Control())
    private let wake = DispatchSemaphore(value: 0)

    init() {}

    /// Lets a delivery paused by its receiver go on.
    func resume() {
        control.withLock { $0.resumes += 1 }
        wake.signal()
    }

    /// Ends the deliveries: a paused one returns false at once.
    func cancel() {
        control.withLock { $0.cancelled = true }
        wake.signal()
    }

    /// Whether `cancel()` was called.
    var isCancelled: Bool { control.withLock { $0.cancelled } }

    /// Hands `bytes` over, again after each pause once resumed; false when the connection is to
    /// end (cancelled, or the receiver said `.stop`).
    func deliver(_ bytes: UnsafeRawBufferPointer, at offset: Int64, to receiver: any AudioSourceReceiver) -> Bool {
        while true {
            let resumes = control.withLock { $0.resumes }
            switch receiver.sourceReceived(bytes, at: offset) {
            case .proceed:
                return true
            case .stop:
                return false
            case .pause:
                // A resume made while the bytes were being offered counts: it comes after the
                // receiver's decision to pause.
                while control.withLock({ $0.resumes == resumes && !$0.cancelled }) { wake.wait() }
                if isCancelled { return false }
            }
        }
    }
}
