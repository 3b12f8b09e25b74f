/// Which mirror a new connection of a download goes to, and which mirror holds more connections
/// than its speed earns. Pure.
///
/// Mirrors share the connections in proportion to their speed per connection: one that gives
/// each connection ten times the bytes of another gets about ten times the connections (every
/// usable mirror keeps at least one, so it stays measured and helps). A mirror nobody has tried
/// gets a connection first; until measured, a mirror counts as fast as the measured ones' mean.
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

    /// A mirror whose speed per connection is under this fraction of the fastest one's gives
    /// up connections beyond its share; between closer speeds, moving a connection is not
    /// worth a new request.
    static let rebalanceRatio = 0.5

    /// The mirror for one more connection; nil when none is usable.
    static func next(_ sources: [Source]) -> Int? {
        let usable = sources.indices.filter { sources[$0].usable }
        if let untried = usable.first(where: { sources[$0].speed == nil && sources[$0].connections == 0 }) {
            return untried
        }
        let weights = self.weights(sources)
        let total = Double(sources.map(\.connections).reduce(0, +) + 1)
        let sum = usable.map { weights[$0] }.reduce(0, +)
        // The mirror furthest below its share of the connections there will be.
        return usable.max { a, b in
            let deficitA = total * weights[a] / sum - Double(sources[a].connections)
            let deficitB = total * weights[b] / sum - Double(sources[b].connections)
            return deficitA != deficitB ? deficitA < deficitB : a > b
        }
    }

    /// A mirror that should give up a connection: measured, under `rebalanceRatio` of the
    /// fastest speed per connection, and serving more than its share (at least one) of the
    /// connections now open. Nil while any usable mirror with connections is unmeasured.
    static func surplus(_ sources: [Source]) -> Int? {
        let usable = sources.indices.filter { sources[$0].usable }
        guard usable.allSatisfy({ sources[$0].speed != nil || sources[$0].connections == 0 }) else { return nil }
        let weights = self.weights(sources)
        let fastest = usable.map { weights[$0] }.max() ?? 0
        let total = Double(usable.map { sources[$0].connections }.reduce(0, +))
        let sum = usable.map { weights[$0] }.reduce(0, +)
        var worst: (index: Int, excess: Double)?
        for index in usable where weights[index] < fastest * rebalanceRatio {
            let share = max(1, (total * weights[index] / sum).rounded())
            let excess = Double(sources[index].connections) - share
            if excess >= 1, excess > worst?.excess ?? 0 { worst = (index, excess) }
        }
        return worst?.index
    }

    /// Each mirror's speed per connection, the measured mean for those not yet measured
    /// (1 when none is), 0 for unusable ones.
    private static func weights(_ sources: [Source]) -> [Double] {
        let measured = sources.filter(\.usable).compactMap(\.speed)
        let mean = measured.isEmpty ? 1 : measured.reduce(0, +) / Double(measured.count)
        return sources.map { $0.usable ? max($0.speed ?? mean, 1) : 0 }
    }
}
