import CCurl
import Synchronization

/// The transfer engine: libcurl's multi interface driven by one dedicated I/O thread.
///
/// Many transfers share one engine, its connection cache and its DNS cache. Calls from any
/// thread (`start`, and `resume`/`cancel` on a transfer) are queued and picked up by the I/O
/// thread, which `curl_multi_wakeup` interrupts when it may be waiting (not when it is busy:
/// it looks at the queue before it waits); sinks are called on the I/O thread only.
/// An engine lives until `shutdown()`; `HTTPEngine.shared` lives as long as the process.
public final class HTTPEngine: Sendable {
    /// Engine-wide settings.
    public struct Configuration: Sendable {
        /// Whether transfers to one HTTP/2 host may share a connection. Default false: a
        /// segmented download wants one TCP connection per segment.
        public var multiplexing = false
        /// The most connections kept open for reuse. Default 64.
        public var connectionCacheSize = 64

        /// The defaults.
        public init() {}
    }

    /// The engine most callers share.
    public static let shared = HTTPEngine()

    private struct Inbox {
        var commands: [EngineLoop.Command] = []
        var nextID: UInt64 = 1
        var isShutDown = false
        /// Whether the I/O thread may be waiting in `curl_multi_poll`: set when it found no
        /// commands just before waiting, cleared when it takes commands or is woken.
        var ioThreadMayWait = false

        /// Queues `command`; true when the I/O thread must be woken for it.
        mutating func append(_ command: EngineLoop.Command) -> Bool {
            commands.append(command)
            defer { ioThreadMayWait = false }
            return ioThreadMayWait
        }
    }

    /// The multi handle. Only the I/O thread uses it, except for `curl_multi_wakeup`, which
    /// libcurl documents as safe to call from any thread.
    nonisolated(unsafe) private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())

    /// Starts an engine and its I/O thread.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, idleWaitMilliseconds: 1000)
    }

    /// An engine whose I/O thread, when no transfer needs it sooner, waits at most
    /// `idleWaitMilliseconds` before looking again (tests make that long, so that a missed
    /// wake-up would show).
    init(configuration: Configuration, idleWaitMilliseconds: Int32) {
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else {
            fatalError("curl_multi_init failed: libcurl is out of memory")
        }
        self.multi = multi
        _ = slipstream_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, configuration.multiplexing ? 2 : 0)
        _ = slipstream_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.connectionCacheSize)
        IOThread.start(name: "slipstream-http") { [self] in
            EngineLoop(multi: self.multi, idleWaitMilliseconds: idleWaitMilliseconds)
                .run(next: { self.takeCommands() }, mayWait: { self.mayWait() })
        }
    }

    /// Starts a transfer; `sink` receives its response on the I/O thread. After `shutdown()`
    /// the sink is completed at once with `.cancelled`.
    @discardableResult
    public func start(_ request: HTTPRequest, sink: any HTTPSink) -> HTTPTransfer {
        let queued: (id: UInt64, wake: Bool)? = inbox.withLock { inbox in
            guard !inbox.isShutDown else { return nil }
            let id = inbox.nextID
            inbox.nextID += 1
            return (id, inbox.append(.add(id: id, request: request, sink: sink)))
        }
        guard let queued else {
            sink.complete(.failure(HTTPError(.cancelled, url: request.url, message: "the HTTP engine was shut down")))
            return HTTPTransfer(id: 0, engine: self)
        }
        if queued.wake { curl_multi_wakeup(multi) }
        return HTTPTransfer(id: queued.id, engine: self)
    }

    /// Cancels every transfer (their sinks complete with `.cancelled`) and stops the I/O thread.
    public func shutdown() {
        send(.shutdown)
    }

    func resume(_ id: UInt64) { send(.resume(id: id)) }
    func cancel(_ id: UInt64) { send(.cancel(id: id)) }

    private func send(_ command: EngineLoop.Command) {
        let wake = inbox.withLock { inbox in
            guard !inbox.isShutDown else { return false }
            if case .shutdown = command { inbox.isShutDown = true }
            return inbox.append(command)
        }
        if wake { curl_multi_wakeup(multi) }
    }

    /// Called by the I/O thread before it waits: false when commands came meanwhile (then it
    /// takes them instead of waiting), else from now on a new command wakes it.
    private func mayWait() -> Bool {
        inbox.withLock { inbox in
            guard inbox.commands.isEmpty else { return false }
            inbox.ioThreadMayWait = true
            return true
        }
    }

    private func takeCommands() -> [EngineLoop.Command] {
        inbox.withLock { inbox in
            inbox.ioThreadMayWait = false
            guard !inbox.commands.isEmpty else { return [] }
            defer { inbox.commands.removeAll(keepingCapacity: true) }
            return inbox.commands
        }
    }
}

/// A running transfer: resume it after its sink paused it, or cancel it. Safe to use from
/// any thread, any number of times, also after the transfer ended (then it does nothing).
public final class HTTPTransfer: Sendable {
    private let id: UInt64
    private let engine: HTTPEngine

    init(id: UInt64, engine: HTTPEngine) {
        self.id = id
        self.engine = engine
    }

    /// Delivers the body again after the sink answered `.pause`.
    public func resume() { if id != 0 { engine.resume(id) } }

    /// Stops the transfer; its sink completes with `.cancelled` unless it already completed.
    public func cancel() { if id != 0 { engine.cancel(id) } }
}

/// `curl_global_init`, once per process, before the first handle.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(slipstream_curl_global_all) == CURLE_OK
    }()

    static func initialize() {
        precondition(initialized, "curl_global_init failed")
    }
}
