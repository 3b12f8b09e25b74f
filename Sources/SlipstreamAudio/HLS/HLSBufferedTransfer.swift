import Dispatch
import Synchronization

/// A segment fetched ahead, handed to its receiver as a transfer would hand it: on a thread of
/// its own, an answer, the bytes in slices (a slice the receiver pauses is offered again, whole,
/// after `resume()`), then the end.
final class HLSBufferedTransfer: AudioSourceConnection {
    /// The most bytes given in one call.
    static let sliceSize = 64 << 10

    private struct Control {
        var isCancelled = false
        var isResumed = false
    }

    private let control = Mutex(Control())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts giving `body`, the resource's bytes from `offset`, to `receiver`.
    static func start(_ body: [UInt8], offset: Int64, receiver: any AudioSourceReceiver) -> HLSBufferedTransfer {
        let transfer = HLSBufferedTransfer()
        IOThread.start(name: "slipstream-hls-buffered") { transfer.run(body, offset: offset, receiver: receiver) }
        return transfer
    }

    func resume() {
        control.withLock { $0.isResumed = true }
        wake.signal()
    }

    func cancel() {
        control.withLock { $0.isCancelled = true }
        wake.signal()
    }

    private func run(_ body: [UInt8], offset: Int64, receiver: any AudioSourceReceiver) {
        let answer = AudioSourceAnswer(offset: offset, totalSize: nil, rangesSupported: nil, isLive: false)
        guard !isCancelled, case .proceed = receiver.sourceOpened(answer) else { return }
        var index = 0
        while index < body.count {
            let count = min(Self.sliceSize, body.count - index)
            let decision = body.withUnsafeBytes { bytes in
                receiver.sourceReceived(UnsafeRawBufferPointer(rebasing: bytes[index..<index + count]), at: offset + Int64(index))
            }
            switch decision {
            case .proceed:
                index += count
            case .stop:
                return
            case .pause:
                guard waitForResume() else { return }
            }
            if isCancelled { return }
        }
        receiver.sourceEnded(nil)
    }

    private var isCancelled: Bool { control.withLock { $0.isCancelled } }

    /// Waits until resumed (true) or cancelled (false).
    private func waitForResume() -> Bool {
        while true {
            let (cancelled, resumed) = control.withLock { control in
                defer { control.isResumed = false }
                return (control.isCancelled, control.isResumed)
            }
            if cancelled { return false }
            if resumed { return true }
            wake.wait()
        }
    }
}
