// A program with a thread of its own (an audio or game loop, a C library's callback) that must
// never wait for the Swift concurrency pool: it fetches a small document with a completion
// handler, which runs on the engine's I/O thread, and gives up after five seconds by
// cancelling the transfer (the completion then gets `.cancelled`).
//   swift run FetchOnThread URL
import Dispatch
import SlipstreamHTTP

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1 else { fatalError("usage: FetchOnThread URL") }
let done = DispatchSemaphore(value: 0)
let transfer = HTTPEngine.shared.fetch(HTTPRequest(url: arguments[0]), maxBodyBytes: 64 << 10) { result in
    // On the engine's I/O thread: hand the result on; never block here.
    switch result {
    case .success(let response): print("HTTP \(response.head.status), \(response.body.count) bytes")
    case .failure(let error): print("failed (\(error.code)): \(error.message)")
    }
    done.signal()
}
if done.wait(timeout: .now() + 5) == .timedOut {
    transfer.cancel()
    done.wait()
}
