/// A set of byte offsets kept as sorted, disjoint, non-adjacent half-open ranges.
package struct ByteRanges: Sendable, Equatable, Sequence {
    /// The ranges, sorted by start; no two overlap or touch.
    package private(set) var ranges: [Range<Int64>] = []

    /// An empty set.
    package init() {}

    /// The union of the given ranges.
    package init(_ ranges: some Sequence<Range<Int64>>) {
        for range in ranges { insert(range) }
    }

    /// The number of bytes in the set.
    package var byteCount: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    /// Whether the set holds no byte.
    package var isEmpty: Bool { ranges.isEmpty }

    /// The longest range (the first of equal ones), or nil when empty.
    package var largest: Range<Int64>? {
        ranges.max { $0.count < $1.count }
    }

    /// Adds a range, merging it with any it overlaps or touches.
    package mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound
        var upper = range.upperBound
        // The first range that could touch: the first whose upper bound reaches `lower`.
        let first = ranges.partitioningIndex { $0.upperBound >= lower }
        var last = first
        while last < ranges.count, ranges[last].lowerBound <= upper {
            lower = Swift.min(lower, ranges[last].lowerBound)
            upper = Swift.max(upper, ranges[last].upperBound)
            last += 1
        }
        // The common cases (growing one range, adding one) without a temporary array.
        switch last - first {
        case 0: ranges.insert(lower..<upper, at: first)
        case 1: ranges[first] = lower..<upper
        default: ranges.replaceSubrange(first..<last, with: CollectionOfOne(lower..<upper))
        }
    }

    /// Removes a range, splitting any range that straddles it.
    package mutating func remove(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        let first = ranges.partitioningIndex { $0.upperBound > range.lowerBound }
        var last = first
        var kept: [Range<Int64>] = []
        while last < ranges.count, ranges[last].lowerBound < range.upperBound {
            let existing = ranges[last]
            if existing.lowerBound < range.lowerBound { kept.append(existing.lowerBound..<range.lowerBound) }
            if existing.upperBound > range.upperBound { kept.append(range.upperBound..<existing.upperBound) }
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: kept)
    }

    /// Whether any byte of `range` is in the set.
    package func overlaps(_ range: Range<Int64>) -> Bool {
        guard !range.isEmpty else { return false }
        let index = ranges.partitioningIndex { $0.upperBound > range.lowerBound }
        return index < ranges.count && ranges[index].lowerBound < range.upperBound
    }

    /// The range of the set that holds `offset`, if any.
    package func range(containing offset: Int64) -> Range<Int64>? {
        let index = ranges.partitioningIndex { $0.upperBound > offset }
        return index < ranges.count && ranges[index].lowerBound <= offset ? ranges[index] : nil
    }

    /// Iterates the ranges in order.
    package func makeIterator() -> IndexingIterator<[Range<Int64>]> { ranges.makeIterator() }
}

extension Array {
    /// The first index whose element satisfies `predicate`, for a predicate that is false
    /// for a prefix of the array and true for the rest (binary search).
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
