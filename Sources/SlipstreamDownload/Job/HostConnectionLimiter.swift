import Dispatch
import Synchronization

/// Permits for connections, at most `connectionsPerHost` at a time to each host (scheme, host
/// and port of the request URL), shared by every download that uses the limiter: ten downloads
/// from one server share its limit instead of opening ten times as many connections.
///
/// A download holds one permit while it runs (its first connection, taken by whoever starts
/// it) and takes one more for each further connection, giving it back when that connection
/// ends. A download that could use another connection but finds none free waits for the next
/// release. Starting downloads come first: while one waits for a host (`reserveStarts`), further
/// connections of running downloads to that host are refused, so permits drain to it.
public final class HostConnectionLimiter: Sendable {
    private struct Host {
        var inUse = 0
        var waitingStarts = 0
        /// Running downloads waiting for a further connection.
        var waiters: [@Sendable () -> Void] = []
        /// Who to tell when a start may find a permit (the last `reserveStarts` caller's wake).
        var startWaiter: (@Sendable () -> Void)?

        var isUnused: Bool { inUse == 0 && waitingStarts == 0 && waiters.isEmpty && startWaiter == nil }
    }

    /// The most connections to one host at a time (at least 1).
    public let connectionsPerHost: Int
    private let hosts = Mutex<[String: Host]>([:])

    /// A limiter of `connectionsPerHost` connections per host (at least 1).
    public init(connectionsPerHost: Int) {
        self.connectionsPerHost = max(connectionsPerHost, 1)
    }

    /// Connections to `host` (as given by `host(of:)`) holding permits now.
    public func connections(to host: String) -> Int {
        hosts.withLock { $0[host]?.inUse ?? 0 }
    }

    /// Permits of `host` not taken now.
    func freePermits(_ host: String) -> Int {
        connectionsPerHost - connections(to: host)
    }

    /// The key a URL's connections are counted under: `scheme://host:port`, lower-cased, with
    /// the default port for http and https when none is given.
    /// (Read as bytes: once per queued download, where Characters cost more than the rest.)
    public static func host(of url: String) -> String {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            return url.lowercased()
        }
        let scheme = url[..<colon].lowercased()
        let afterSlashes = bytes.index(colon, offsetBy: 3)
        let end =
            bytes[afterSlashes...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? bytes.endIndex
        let start = bytes[afterSlashes..<end].lastIndex(of: UInt8(ascii: "@")).map(bytes.index(after:)) ?? afterSlashes
        let authority = url[start..<end].lowercased()
        let hasPort = authority.utf8.last != UInt8(ascii: "]") && authority.utf8.contains(UInt8(ascii: ":"))
        return scheme + "://" + authority + (hasPort ? "" : scheme == "https" ? ":443" : ":80")
    }

    /// Takes the permit for a download's first connection, if one is free (a waiting start
    /// of the host, said by `reserveStarts`, is then counted as started).
    func acquireStart(_ host: String) -> Bool {
        hosts.withLock { hosts in
            var entry = hosts[host] ?? Host()
            guard entry.inUse < connectionsPerHost else { return false }
            entry.inUse += 1
            entry.waitingStarts = max(0, entry.waitingStarts - 1)
            hosts[host] = entry
            return true
        }
    }

    /// Says that `count` downloads wait to start on `host` (0: none any more): until they get
    /// their permits, running downloads get no further connections there. `wake` runs (once,
    /// on Dispatch) at the next release for the host, in place of any `wake` given before: the
    /// caller schedules all its starts at once, however often it said they wait.
    func reserveStarts(_ host: String, count: Int, wake: @escaping @Sendable () -> Void) {
        hosts.withLock { hosts in
            var entry = hosts[host] ?? Host()
            entry.waitingStarts = count
            entry.startWaiter = count > 0 ? wake : nil
            hosts[host] = entry.isUnused ? nil : entry
        }
    }

    /// Takes a permit for a further connection of a running download, if one is free and no
    /// download waits to start; otherwise `wake` runs (once, on Dispatch) at the next release.
    func acquireExtra(_ host: String, orWait wake: @escaping @Sendable () -> Void) -> Bool {
        hosts.withLock { hosts in
            var entry = hosts[host] ?? Host()
            defer { hosts[host] = entry }
            guard entry.inUse + entry.waitingStarts < connectionsPerHost else {
                entry.waiters.append(wake)
                return false
            }
            entry.inUse += 1
            return true
        }
    }

    /// Gives a permit back and wakes everything waiting for `host` (on Dispatch, so that it is
    /// safe to call with any lock held), unless `wakingWaiters` is false: a permit taken a
    /// moment ago and not used.
    func release(_ host: String, wakingWaiters: Bool = true) {
        let waiters: [@Sendable () -> Void] = hosts.withLock { hosts in
            guard var entry = hosts[host] else { return [] }
            entry.inUse = max(0, entry.inUse - 1)
            var waiters: [@Sendable () -> Void] = []
            if wakingWaiters {
                waiters = entry.waiters + (entry.startWaiter.map { [$0] } ?? [])
                entry.waiters = []
                entry.startWaiter = nil
            }
            hosts[host] = entry.isUnused ? nil : entry
            return waiters
        }
        guard !waiters.isEmpty else { return }
        DispatchQueue.global().async { waiters.forEach { $0() } }
    }
}

/// A download's share of a `HostConnectionLimiter`: the host its connections count under.
struct ConnectionPermits: Sendable {
    let limiter: HostConnectionLimiter
    let host: String
}
