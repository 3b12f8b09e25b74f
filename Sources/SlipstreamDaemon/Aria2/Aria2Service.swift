import Synchronization

/// aria2's JSON-RPC methods on a `DownloadQueue`: what AriaNg, aria2p, Motrix and browser
/// extensions call (aria2's manual, "RPC interface"). Calls are answered one at a time on the
/// caller's thread (the daemon calls it from a queue of its own, never the server's thread).
///
/// Each download has a GID; the queue's downloads and its kept outcomes are aria2's active,
/// waiting, paused and stopped downloads. The secret, when set, is the first parameter of
/// every call (`token:SECRET`), compared in constant time.
public final class Aria2Service: Sendable {
    /// What the service keeps of each download besides the queue's own record.
    struct Entry: Sendable {
        var gid: GID
        var options: Aria2Options
        /// Removed by `remove`/`forceRemove` (its outcome is "removed", not "error").
        var removed = false
        /// Removed while it ran: its end is told (aria2's onDownloadStop), a waiting one's not.
        var removedWhileActive = false
        /// Paused by a call: it may be unpaused even while its transfers are still stopping.
        var pauseAsked = false
        /// The token of its stream's path, once asked for (`slipstream.getStreamPath`).
        var streamToken: String?
    }

    struct Book: Sendable {
        var ids: [GID: DownloadQueue.ID] = [:]
        var entries: [DownloadQueue.ID: Entry] = [:]
        var global: Aria2GlobalOptions
        /// The size of `entries` past which `forgetOldEntries` looks again.
        var pruneAt = 2048
    }

    /// What the service asks of the program that runs it.
    public struct Actions: Sendable {
        /// Saves the session file now; throws a message when it cannot.
        public var saveSession: @Sendable () throws(RPCFailure.Kind) -> Void
        /// Stops the daemon soon (after the answer is sent); `force`: without waiting.
        public var shutdown: @Sendable (_ force: Bool) -> Void
        /// A call changed what the session holds (a download added, paused, moved, an option
        /// changed): the session file is to be written again.
        public var changed: @Sendable () -> Void
        /// Sends a notification (its JSON-RPC text) to every listening client: the service
        /// tells the pauses it makes; the daemon tells the starts and ends it sees.
        public var notify: @Sendable ([UInt8]) -> Void

        /// Actions that do these.
        public init(
            saveSession: @escaping @Sendable () throws(RPCFailure.Kind) -> Void, shutdown: @escaping @Sendable (Bool) -> Void,
            changed: @escaping @Sendable () -> Void = {}, notify: @escaping @Sendable ([UInt8]) -> Void = { _ in }
        ) {
            self.saveSession = saveSession
            self.shutdown = shutdown
            self.changed = changed
            self.notify = notify
        }
    }

    let queue: DownloadQueue
    let folder: DownloadFolder
    let secret: [UInt8]?
    let book: Mutex<Book>
    let actions: Actions
    /// aria2's `getSessionInfo` id: 40 hex digits, new at every start.
    let sessionID: String

    /// A service on `queue`, its downloads inside `folder`, guarded by `secret` (nil: none).
    init(queue: DownloadQueue, folder: DownloadFolder, secret: String?, global: Aria2GlobalOptions, actions: Actions) {
        self.queue = queue
        self.folder = folder
        self.secret = secret.map { Array($0.utf8) }
        self.actions = actions
        book = Mutex(Book(global: global))
        var generator = SystemRandomNumberGenerator()
        sessionID = (0..<20).map { _ in Aria2Status.hex([UInt8.random(in: 0...255, using: &generator)]) }.joined()
    }

    // MARK: Answering

    /// The answers to a request (none for notifications), and whether it was a batch.
    public func answer(_ request: RPCRequest) -> (answers: [RPCAnswer], batch: Bool) {
        switch request {
        case .single(let call): (answer(call).map { [$0] } ?? [], false)
        case .batch(let calls): (calls.compactMap(answer), true)
        }
    }

    private func answer(_ read: Result<RPCCall, RPCFailure>) -> RPCAnswer? {
        switch read {
        case .failure(let failure): return .failure(failure)
        case .success(let call):
            let result = perform(call.method, call.params)
            guard let id = call.id else { return nil }
            return switch result {
            case .success(let value): .result(value, id: id)
            case .failure(let kind): .failure(RPCFailure(kind, id: id))
            }
        }
    }

    /// Runs one method with its parameters (the token first, when a secret is set).
    func perform(_ method: String, _ params: [JSONValue]) -> Result<JSONValue, RPCFailure.Kind> {
        switch method {
        case "system.listMethods": return .success(.array((Self.methodNames + Self.systemMethods).map { .string($0) }))
        case "system.listNotifications": return .success(.array(Aria2Notification.names.map { .string($0) }))
        case "system.multicall": return multicall(params)
        default: break
        }
        // As aria2: an unknown method is its failure (code 1), not JSON-RPC's -32601.
        guard Self.methodNames.contains(method) else { return .failure(.failed("No such method: \(method)")) }
        var params = params
        if let token = params.first?.string, token.hasPrefix("token:") {
            params.removeFirst()
            guard authorized(Array(token.utf8.dropFirst(6))) else { return .failure(.unauthorized) }
        } else if secret != nil {
            return .failure(.unauthorized)
        }
        do throws(RPCFailure.Kind) {
            let result = try run(method, Aria2Params(values: params))
            if Self.changingMethods.contains(method) { actions.changed() }
            return .success(result)
        } catch {
            return .failure(error)
        }
    }

    /// Whether `token` is the secret, compared in constant time (of the token's length).
    private func authorized(_ token: [UInt8]) -> Bool {
        guard let secret else { return true }
        return Self.matches(token, secret)
    }

    /// Whether `given` is `expected` (not empty), compared in constant time (of `given`'s length).
    static func matches(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = expected.count == given.count ? 0 : 1
        for index in given.indices { difference |= given[index] ^ expected[index % max(expected.count, 1)] }
        return difference == 0 && !expected.isEmpty
    }

    /// `system.multicall([{methodName, params}, ...])`: each result wrapped in an array, each
    /// failure as `{code, message}`; the token goes inside each call's params.
    private func multicall(_ params: [JSONValue]) -> Result<JSONValue, RPCFailure.Kind> {
        guard params.count == 1, let calls = params[0].array else {
            return .failure(.failed("system.multicall takes one array of {methodName, params}"))
        }
        guard calls.count <= RPCRequest.maximumBatch else { return .failure(.failed("too many calls in one multicall")) }
        var results: [JSONValue] = []
        results.reserveCapacity(calls.count)
        for call in calls {
            guard let name = call["methodName"]?.string, name != "system.multicall" else {
                results.append(Self.failureStruct(.failed("a call of system.multicall needs a methodName (not system.multicall)")))
                continue
            }
            let arguments: [JSONValue]
            switch call["params"] {
            case nil: arguments = []
            case .array(let elements)?: arguments = elements
            default:
                results.append(Self.failureStruct(.invalidParams))
                continue
            }
            switch perform(name, arguments) {
            case .success(let value): results.append(.array([value]))
            case .failure(let kind): results.append(Self.failureStruct(kind))
            }
        }
        return .success(.array(results))
    }

    private static func failureStruct(_ kind: RPCFailure.Kind) -> JSONValue {
        ["code": .number(Double(kind.code)), "message": .string(kind.message)]
    }

    /// The methods after which the session file is written again.
    static let changingMethods: Set<String> = [
        "aria2.addUri", "aria2.addMetalink", "aria2.remove", "aria2.forceRemove", "aria2.pause", "aria2.forcePause",
        "aria2.pauseAll", "aria2.forcePauseAll", "aria2.unpause", "aria2.unpauseAll", "aria2.changePosition",
        "aria2.changeUri", "aria2.changeOption", "aria2.changeGlobalOption",
    ]

    static let systemMethods = ["system.listMethods", "system.listNotifications", "system.multicall"]

    /// aria2's methods (and the page's), as `system.listMethods` tells them.
    static let methodNames = [
        "aria2.addUri", "aria2.addMetalink", "aria2.addTorrent", "aria2.remove", "aria2.forceRemove", "aria2.pause",
        "aria2.forcePause", "aria2.pauseAll", "aria2.forcePauseAll", "aria2.unpause", "aria2.unpauseAll",
        "aria2.tellStatus", "aria2.getUris", "aria2.getFiles", "aria2.getPeers", "aria2.getServers", "aria2.tellActive",
        "aria2.tellWaiting", "aria2.tellStopped", "aria2.changePosition", "aria2.changeUri", "aria2.getOption",
        "aria2.changeOption", "aria2.getGlobalOption", "aria2.changeGlobalOption", "aria2.getGlobalStat",
        "aria2.purgeDownloadResult", "aria2.removeDownloadResult", "aria2.getVersion", "aria2.getSessionInfo",
        "aria2.shutdown", "aria2.forceShutdown", "aria2.saveSession", "slipstream.getPieces",
        "slipstream.getStreamPath",
    ]

    /// Runs the method `name` (one of `methodNames`).
    private func run(_ name: String, _ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        switch name {
        case "aria2.addUri": return try addUri(params)
        case "aria2.addMetalink": return try addMetalink(params)
        case "aria2.addTorrent": throw .failed("BitTorrent is not supported: slipstream downloads over HTTP, FTP and SFTP")
        case "aria2.getPeers": throw .failed("getPeers is for BitTorrent, which is not supported")
        case "aria2.remove", "aria2.forceRemove": return try remove(params)
        case "aria2.pause", "aria2.forcePause": return try pause(params)
        case "aria2.pauseAll", "aria2.forcePauseAll": return pauseAll()
        case "aria2.unpause": return try unpause(params)
        case "aria2.unpauseAll": return unpauseAll()
        case "aria2.tellStatus": return try tellStatus(params)
        case "aria2.getUris": return try getUris(params)
        case "aria2.getFiles": return try getFiles(params)
        case "aria2.getServers": return try getServers(params)
        case "aria2.tellActive": return try tellActive(params)
        case "aria2.tellWaiting": return try tellWaiting(params)
        case "aria2.tellStopped": return try tellStopped(params)
        case "aria2.changePosition": return try changePosition(params)
        case "aria2.changeUri": return try changeUri(params)
        case "aria2.getOption": return try getOption(params)
        case "aria2.changeOption": return try changeOption(params)
        case "aria2.getGlobalOption": return getGlobalOption()
        case "aria2.changeGlobalOption": return try changeGlobalOption(params)
        case "aria2.getGlobalStat": return getGlobalStat()
        case "aria2.purgeDownloadResult": return purgeDownloadResult()
        case "aria2.removeDownloadResult": return try removeDownloadResult(params)
        case "aria2.getVersion": return Self.version
        case "aria2.getSessionInfo": return ["sessionId": .string(sessionID)]
        case "aria2.saveSession":
            try actions.saveSession()
            return "OK"
        case "aria2.shutdown", "aria2.forceShutdown":
            actions.shutdown(name == "aria2.forceShutdown")
            return "OK"
        case "slipstream.getPieces": return try getPieces(params)
        case "slipstream.getStreamPath": return try getStreamPath(params)
        default: throw .methodNotFound
        }
    }

    /// `getVersion`: this program's version, and the features aria2's clients look for.
    static let version: JSONValue = [
        "version": .string(SlipstreamVersion.string),
        "enabledFeatures": ["Async DNS", "GZip", "HTTPS", "Metalink", "SFTP", "Checksum"],
    ]
}
