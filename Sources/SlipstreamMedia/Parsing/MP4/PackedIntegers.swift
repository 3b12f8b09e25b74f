/// A growing list of non-negative integers held in the narrowest width every value so far fits:
/// 2 bytes each while all are below 65 536 (an AAC access unit's size always is), 4 below 2^32,
/// else 8. MP4 sample sizes and chunk offsets are kept in these: an hour of 44.1 kHz AAC has
/// about 155 000 samples, 310 KB of sizes.
package struct PackedIntegers: Hashable, Sendable {
    private enum Storage: Hashable, Sendable {
        case narrow([UInt16])
        case medium([UInt32])
        case wide([Int64])
    }

    private var storage = Storage.narrow([])

    /// How many values are held.
    package var count: Int {
        switch storage {
        case .narrow(let values): values.count
        case .medium(let values): values.count
        case .wide(let values): values.count
        }
    }

    /// The value at `index` (which must be below `count`).
    package subscript(index: Int) -> Int64 {
        switch storage {
        case .narrow(let values): Int64(values[index])
        case .medium(let values): Int64(values[index])
        case .wide(let values): values[index]
        }
    }

    /// Reserves room for `capacity` values in the current width.
    package mutating func reserve(_ capacity: Int) {
        switch storage {
        case .narrow(var values):
            storage = .narrow([])
            values.reserveCapacity(capacity)
            storage = .narrow(values)
        case .medium(var values):
            storage = .medium([])
            values.reserveCapacity(capacity)
            storage = .medium(values)
        case .wide(var values):
            storage = .wide([])
            values.reserveCapacity(capacity)
            storage = .wide(values)
        }
    }

    /// Appends `value` (not negative), widening the storage when it does not fit.
    package mutating func append(_ value: Int64) {
        switch storage {
        case .narrow(var values):
            if value <= Int64(UInt16.max) {
                storage = .narrow([])
                values.append(UInt16(value))
                storage = .narrow(values)
            } else {
                storage = value <= Int64(UInt32.max) ? .medium(values.map(UInt32.init)) : .wide(values.map(Int64.init))
                append(value)
            }
        case .medium(var values):
            if value <= Int64(UInt32.max) {
                storage = .medium([])
                values.append(UInt32(value))
                storage = .medium(values)
            } else {
                storage = .wide(values.map(Int64.init))
                append(value)
            }
        case .wide(var values):
            storage = .wide([])
            values.append(value)
            storage = .wide(values)
        }
    }

    /// Bytes the values take.
    package var byteCount: Int {
        switch storage {
        case .narrow(let values): 2 * values.count
        case .medium(let values): 4 * values.count
        case .wide(let values): 8 * values.count
        }
    }
}
