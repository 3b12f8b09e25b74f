import CCurl
import Dispatch
import SlipstreamCore
import Synchronization

/// The transfer engine: libcurl's multi interface driven by one dedicated I/O thread.
///
/// Many transfers share one engine, its connection cache and its DNS cache. Calls from any
/// thread (`start`, and `resume`/`cancel` on a transfer) are queued and picked up by the I/O
/// thread, which `curl_multi_wakeup` interrupts when it may be waiting (not when it is busy:
/// it looks at the queue before it waits); sinks are called on the I/O thread only. The I/O
/// thread also loads libcurl (with its TLS and other libraries) when the process has not yet:
/// making an engine, and queueing work on it, never waits for that.
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

    /// Starts the shared engine, whose I/O thread loads libcurl (with its TLS and other
    /// libraries) and initialises it, for a program that knows early that it will go on the
    /// network: its first request then finds libcurl loaded, or being loaded already. Any number
    /// of calls, from any thread.
    public static func prepare() { _ = shared }

    /// Waits until libcurl, if an engine's I/O thread is loading it, is loaded. Call it before
    /// the process exits: exiting while libcurl loads on another thread can crash.
    public static func settle() { CurlGlobal.settle() }

    private struct Inbox {
        var commands: [EngineLoop.Command] = []
        var nextID: UInt64 = 1
        var isShutDown = false
        /// How the I/O thread may be waiting: set when it found no commands just before
        /// waiting, cleared when it takes commands or is woken.
        var ioThreadWait: EngineLoop.Wait?
        /// The multi handle, once the I/O thread has made it (after loading libcurl): a wait on
        /// sockets, set only after it, is ended through it.
        var multi: MultiHandle?

        /// Queues `command`; how the I/O thread must be woken for it, if it must.
        mutating func append(_ command: EngineLoop.Command) -> Wake? {
            commands.append(command)
            defer { ioThreadWait = nil }
            switch ioThreadWait {
            case .sockets: return multi.map { .sockets($0) }
            case .gathering: return .gathering
            case nil: return nil
            }
        }
    }

    /// libcurl's multi handle. Only the I/O thread uses it, except for `curl_multi_wakeup`,
    /// which libcurl documents as safe to call from any thread.
    struct MultiHandle: @unchecked Sendable {
        // Unchecked: a pointer that other threads only pass to curl_multi_wakeup.
        let pointer: UnsafeMutableRawPointer
    }

    /// How to end the I/O thread's wait: `curl_multi_wakeup` on its multi handle, or the
    /// sleeper's signal.
    enum Wake: Sendable {
        case sockets(MultiHandle)
        case gathering
    }

    private let inbox = Mutex(Inbox())
    /// Ends the I/O thread's sleep while its transfers gather their reads. A signal that comes
    /// after the sleep ended only shortens the next one.
    private let sleeper = DispatchSemaphore(value: 0)

    /// Starts an engine and its I/O thread.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, idleWaitMilliseconds: 1000)
    }

    /// An engine whose I/O thread, when no transfer needs it sooner, waits at most
    /// `idleWaitMilliseconds` before looking again (tests make that long, so that a missed
    /// wake-up would show).
    init(configuration: Configuration, idleWaitMilliseconds: Int32) {
        CurlGlobal.willLoad()
        IOThread.start(name: "slipstream-http") { [self] in
            CurlGlobal.initialize()
            guard let multi = slipstream_curl_multi_init() else {
                fatalError("curl_multi_init failed: libcurl is out of memory")
            }
            _ = slipstream_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, configuration.multiplexing ? 2 : 0)
            _ = slipstream_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.connectionCacheSize)
            inbox.withLock { $0.multi = MultiHandle(pointer: multi) }
            EngineLoop(multi: multi, idleWaitMilliseconds: idleWaitMilliseconds)
                .run(
                    next: { self.takeCommands() }, mayWait: { self.mayWait($0) },
                    sleep: { _ = self.sleeper.wait(timeout: .now() + $0.seconds) })
        }
    }

    /// Starts a transfer; `sink` receives its response on the I/O thread. After `shutdown()`
    /// the sink is completed at once with `.cancelled`.
    @discardableResult
    public func start(_ request: HTTPRequest, sink: any HTTPSink) -> HTTPTransfer {
        let queued: (id: UInt64, wake: Wake?)? = inbox.withLock { inbox in
            guard !inbox.isShutDown else { return nil }
            let id = inbox.nextID
            inbox.nextID += 1
            return (id, inbox.append(.add(id: id, request: request, sink: sink)))
        }
        guard let queued else {
            sink.complete(.failure(HTTPError(.cancelled, url: request.url, message: "the HTTP engine was shut down")))
            return HTTPTransfer(id: 0, engine: self)
        }
        wake(queued.wake)
        return HTTPTransfer(id: queued.id, engine: self)
    }

    /// Cancels every transfer (their sinks complete with `.cancelled`) and stops the I/O thread.
    public func shutdown() {
        send(.shutdown)
    }

    func resume(_ id: UInt64) { send(.resume(id: id)) }
    func cancel(_ id: UInt64) { send(.cancel(id: id)) }
    func gatherReads(_ id: UInt64, interval: Duration?) { send(.gatherReads(id: id, interval: interval)) }

    private func send(_ command: EngineLoop.Command) {
        let wait = inbox.withLock { inbox -> Wake? in
            guard !inbox.isShutDown else { return nil }
            if case .shutdown = command { inbox.isShutDown = true }
            return inbox.append(command)
        }
        wake(wait)
    }

    /// Ends the I/O thread's wait, if it may be waiting.
    private func wake(_ wake: Wake?) {
        switch wake {
        case .sockets(let multi): slipstream_curl_multi_wakeup(multi.pointer)
        case .gathering: sleeper.signal()
        case nil: break
        }
    }

    /// Called by the I/O thread before it waits as `wait`: false when commands came meanwhile
    /// (then it takes them instead of waiting), else from now on a new command wakes it.
    private func mayWait(_ wait: EngineLoop.Wait) -> Bool {
        inbox.withLock { inbox in
            guard inbox.commands.isEmpty else { return false }
            inbox.ioThreadWait = wait
            return true
        }
    }

    private func takeCommands() -> [EngineLoop.Command] {
        inbox.withLock { inbox in
            inbox.ioThreadWait = nil
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

    /// Lets the response's bytes gather for up to `interval` before the engine reads them, so
    /// that one wake-up takes what a server sent in many small packets (a live stream, which
    /// arrives at its playing speed, to a player that holds seconds of it); `nil` (the default)
    /// reads bytes as they arrive. The engine sleeps so only while every transfer it runs
    /// gathers its reads; a new transfer or command ends the sleep at once.
    public func gatherReads(every interval: Duration?) { if id != 0 { engine.gatherReads(id, interval: interval) } }

    /// Stops the transfer; its sink completes with `.cancelled` unless it already completed.
    public func cancel() { if id != 0 { engine.cancel(id) } }
}

/// libcurl loaded and `curl_global_init` run, once per process, before the first handle. The
/// once is Swift's (a global's first use), not the C shim's: a static there has a copy in every
/// object file that inlines its function, and an optimised build had three, so two threads could
/// each load and initialise it.
enum CurlGlobal {
    /// What loading found (`slipstream_curl_load_and_initialize`); the first use loads.
    private static let outcome = slipstream_curl_load_and_initialize()
    /// Whether a thread was started that loads libcurl (`willLoad`).
    private static let loadsOnAnotherThread = Atomic<Bool>(false)

    static func initialize() {
        switch outcome {
        case 1: return
        case 3: fatalError("libcurl (libcurl.so.4) cannot be loaded: install libcurl4 (Debian: apt-get install libcurl4)")
        default: fatalError("curl_global_init failed")
        }
    }

    /// Says that a thread about to start (an engine's I/O thread) loads libcurl, for `settle`.
    static func willLoad() {
        loadsOnAnotherThread.store(true, ordering: .releasing)
    }

    /// Waits for the load another thread does, if one was started (or does it here, if that
    /// thread has not begun): a process that exits while libcurl and its libraries load on
    /// another thread runs their exit handlers on half-made state, and crashes (seen: 1 exit in
    /// 15 right after the start).
    static func settle() {
        if loadsOnAnotherThread.load(ordering: .acquiring) { _ = outcome }
    }
}
