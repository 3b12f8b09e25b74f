import Synchronization

/// The resources of an `HLSDownload` as a player takes them while the download runs (`play
/// URL.m3u8 --keep FILE`): a player that wants a segment asks for it by URL, the download
/// fetches it before the others still waiting, and the player is handed the file of it once
/// it is on disk (at once for one already there, fetched or resumed). A player asking for a URL
/// the download does not have, or one that failed, is told so, and fetches it itself.
///
/// While a player holds it (`hold(_:)` until `release(_:)`), the download waits before its join:
/// the join removes the resources' files, which the player may still want as it plays behind
/// the download.
///
/// The download tells it of its plan, each resource fetched or failed, and its end; the player
/// asks from any thread. Callbacks run on the thread that tells the news, never with a lock held.
package final class HLSKeptResources: Sendable {
    /// What a player is handed: the file holding the resource's bytes, or why there is none.
    package typealias Answer = Result<String, DownloadError>

    private struct State {
        /// Resource index by URL, and each resource's file, once the plan is known.
        var indices: [String: Int] = [:]
        var files: [Int: String] = [:]
        var fetched: Set<Int> = []
        var failed: [Int: DownloadError] = [:]
        /// Set once the download ended: nothing more will be fetched.
        var over: DownloadError?
        /// Waiting players, by resource (or by URL before the plan is known).
        var waiting: [String: [@Sendable (Answer) -> Void]] = [:]
        /// Resources asked for before the plan was known, to fetch first once it is.
        var wantedEarly: [String] = []
        /// Players holding the files, and the join waiting for them to let go.
        var holders: Set<ObjectIdentifier> = []
        var joinWaiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Moves a resource's download to the front of the queue (the run sets it).
    private let front = Mutex<(@Sendable (Int) -> Void)?>(nil)

    package init() {}

    /// Calls `then` with the file of the resource at `url` once it is on disk (at once if it
    /// is), fetching it before the other resources still waiting; with an error when the
    /// download has no such resource or cannot fetch it.
    package func take(_ url: String, then: @escaping @Sendable (Answer) -> Void) {
        enum Next {
            case answer(Answer)
            case prioritize(Int)
            case wait
        }
        let next: Next = state.withLock { state in
            guard !state.files.isEmpty else {
                if let over = state.over { return .answer(.failure(over)) }
                state.waiting[url, default: []].append(then)
                state.wantedEarly.append(url)
                return .wait
            }
            guard let index = state.indices[url] else {
                return .answer(.failure(DownloadError(.invalidURL, "\(url) is not a resource of the HLS download", url: url)))
            }
            if let failure = state.over ?? state.failed[index] { return .answer(.failure(failure)) }
            if state.fetched.contains(index) { return .answer(.success(state.files[index]!)) }
            state.waiting[url, default: []].append(then)
            return .prioritize(index)
        }
        switch next {
        case .answer(let answer): then(answer)
        case .prioritize(let index): front.withLock { $0 }?(index)
        case .wait: break
        }
    }

    /// `holder` (a player) takes the files: the download's join waits until it lets go.
    package func hold(_ holder: AnyObject) {
        state.withLock { _ = $0.holders.insert(ObjectIdentifier(holder)) }
    }

    /// `holder` is done with the files (its playback ended or stopped); again does nothing.
    package func release(_ holder: AnyObject) {
        let joins = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.holders.remove(ObjectIdentifier(holder)) != nil, state.holders.isEmpty else { return [] }
            defer { state.joinWaiting = [] }
            return state.joinWaiting
        }
        for join in joins { join.resume() }
    }

    // MARK: What the download tells

    /// Returns once no player holds the files (at once when none does), or once the task is
    /// cancelled.
    func released() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if !state.holders.isEmpty, !Task.isCancelled { state.joinWaiting.append(continuation) }
                    return state.holders.isEmpty || Task.isCancelled
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let joins = state.withLock { state in
                defer { state.joinWaiting = [] }
                return state.joinWaiting
            }
            for join in joins { join.resume() }
        }
    }

    /// The plan: each resource's URL and file, those already on disk, and how to put one first.
    func planned(urls: [String], files: [String], fetched: Set<Int>, front moveToFront: @escaping @Sendable (Int) -> Void) {
        front.withLock { $0 = moveToFront }
        let (ready, early): ([(@Sendable (Answer) -> Void, Answer)], [Int]) = state.withLock { state in
            for (index, url) in urls.enumerated() where state.indices[url] == nil { state.indices[url] = index }
            state.files = Dictionary(uniqueKeysWithValues: files.enumerated().map { ($0.offset, $0.element) })
            // (Resources fetched before the plan was told were noted already.)
            state.fetched.formUnion(fetched)
            var ready: [(@Sendable (Answer) -> Void, Answer)] = []
            for (url, waiters) in state.waiting {
                guard let index = state.indices[url] else {
                    let failure = DownloadError(.invalidURL, "\(url) is not a resource of the HLS download", url: url)
                    ready += waiters.map { ($0, .failure(failure)) }
                    state.waiting[url] = nil
                    continue
                }
                guard state.fetched.contains(index) else { continue }
                ready += waiters.map { ($0, .success(files[index])) }
                state.waiting[url] = nil
            }
            defer { state.wantedEarly = [] }
            return (ready, state.wantedEarly.compactMap { state.indices[$0] }.filter { !state.fetched.contains($0) })
        }
        for (then, answer) in ready { then(answer) }
        for index in early.reversed() { moveToFront(index) }
    }

    /// Resource `index` is on disk.
    func fetched(_ index: Int) {
        let (waiters, file) = state.withLock { state -> ([@Sendable (Answer) -> Void], String?) in
            state.fetched.insert(index)
            guard let url = state.indices.first(where: { $0.value == index })?.key else { return ([], nil) }
            return (state.waiting.removeValue(forKey: url) ?? [], state.files[index])
        }
        if let file { for then in waiters { then(.success(file)) } }
    }

    /// Resource `index` failed: players waiting for it fetch it themselves.
    func failed(_ index: Int, _ error: DownloadError) {
        let waiters = state.withLock { state -> [@Sendable (Answer) -> Void] in
            state.failed[index] = error
            guard let url = state.indices.first(where: { $0.value == index })?.key else { return [] }
            return state.waiting.removeValue(forKey: url) ?? []
        }
        for then in waiters { then(.failure(error)) }
    }

    /// The download ended (joined, failed or cancelled): players still waiting are told
    /// `error` (after a join, the files are gone: they fetch what they still need themselves).
    func ended(_ error: DownloadError) {
        let waiters = state.withLock { state -> [@Sendable (Answer) -> Void] in
            state.over = error
            defer { state.waiting = [:] }
            return state.waiting.values.flatMap { $0 }
        }
        for then in waiters { then(.failure(error)) }
    }
}
