/// Which mirror a new connection of a download goes to, and which mirror holds connections its
/// speed does not earn. Pure.
///
/// A connection is worth most where each connection gets the most bytes: a mirror whose speed
/// per connection is under `rebalanceRatio` of the fastest one's gets no connection at all
/// (each one it held would fetch less than on the faster mirror, so a slow mirror would make
/// the download slower than the fast one alone). Mirrors of closer speeds share the connections
/// in proportion to their speed per connection. A mirror nobody has tried gets a connection
/// first; one being measured gets no second one while another mirror is measured (one
/// connection tells its speed); while none is measured, they share alike.
enum MirrorChoice {
    /// One mirror as the choice sees it.
    struct Source: Equatable {
        /// Bytes per second per connection, once measured.
        var speed: Double?
        /// Connections it serves now.
        var connections: Int
        /// False once dropped: it gets no more connections.
        var usable = true
    }

    /// A mirror whose speed per connection is under this fraction of the fastest one's gets no
    /// connection, and gives up those it has; between closer speeds, moving a connection is
    /// not worth a new request.
    static let rebalanceRatio = 0.5

    /// The mirror for one more connection; nil when none is usable.
    static func next(_ sources: [Source]) -> Int? {
        let usable = sources.indices.filter { sources[$0].usable }
        if let untried = usable.first(where: { sources[$0].speed == nil && sources[$0].connections == 0 }) {
            return untried
        }
        let weights = self.weights(sources)
        let fastest = usable.map { weights[$0] }.max() ?? 0
        let anyMeasured = usable.contains { sources[$0].speed != nil }
        let worthy = usable.filter { index in
            sources[index].speed == nil ? !anyMeasured || sources[index].connections == 0 : weights[index] >= fastest * rebalanceRatio
        }
        let total = Double(worthy.map { sources[$0].connections }.reduce(0, +) + 1)
        let sum = worthy.map { weights[$0] }.reduce(0, +)
        // The mirror furthest below its share of the connections there will be.
        return worthy.max { a, b in
            let deficitA = total * weights[a] / sum - Double(sources[a].connections)
            let deficitB = total * weights[b] / sum - Double(sources[b].connections)
            return deficitA != deficitB ? deficitA < deficitB : a > b
        }
    }

    /// A mirror that should give up a connection: measured, under `rebalanceRatio` of the
    /// fastest speed per connection, and serving any connection (the one serving most first).
    /// Nil while any usable mirror with connections is unmeasured.
    static func surplus(_ sources: [Source]) -> Int? {
        let usable = sources.indices.filter { sources[$0].usable }
        guard usable.allSatisfy({ sources[$0].speed != nil || sources[$0].connections == 0 }) else { return nil }
        let weights = self.weights(sources)
        let fastest = usable.map { weights[$0] }.max() ?? 0
        let slow = usable.filter { weights[$0] < fastest * rebalanceRatio && sources[$0].connections > 0 }
        return slow.max { a, b in
            sources[a].connections != sources[b].connections ? sources[a].connections < sources[b].connections : a > b
        }
    }

    /// Each mirror's speed per connection, the measured mean for those not yet measured
    /// (1 when none is), 0 for unusable ones.
    private static func weights(_ sources: [Source]) -> [Double] {
        let measured = sources.filter(\.usable).compactMap(\.speed)
        let mean = measured.isEmpty ? 1 : measured.reduce(0, +) / Double(measured.count)
        return sources.map { $0.usable ? max($0.speed ?? mean, 1) : 0 }
    }
}
