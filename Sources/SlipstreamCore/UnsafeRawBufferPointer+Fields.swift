extension UnsafeRawBufferPointer {
    /// The big-endian unsigned integer in `count` (at most 8) bytes at `index`.
    package func bigEndian(at index: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in index..<index + count { value = value << 8 | UInt64(self[i]) }
        return value
    }

    /// The little-endian unsigned integer in `count` (at most 8) bytes at `index`.
    package func littleEndian(at index: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (index..<index + count).reversed() { value = value << 8 | UInt64(self[i]) }
        return value
    }

    /// The integer in `count` bytes at `index`, in the given byte order.
    package func integer(at index: Int, count: Int, bigEndian: Bool) -> UInt64 {
        bigEndian ? self.bigEndian(at: index, count: count) : littleEndian(at: index, count: count)
    }

    /// Whether the bytes at `index` are `ascii`, comparing only the bytes present: a window too
    /// short to hold all of `ascii` matches when its tail is a prefix of it.
    package func hasPrefix(_ ascii: StaticString, at index: Int = 0) -> Bool {
        let length = Swift.min(ascii.utf8CodeUnitCount, count - index)
        guard length > 0 else { return false }
        let pattern = ascii.utf8Start
        for i in 0..<length where self[index + i] != pattern[i] { return false }
        return true
    }

    /// Whether the bytes at `index` are all of `ascii`.
    package func starts(with ascii: StaticString, at index: Int = 0) -> Bool {
        count - index >= ascii.utf8CodeUnitCount && hasPrefix(ascii, at: index)
    }

    /// A 28-bit synchsafe integer (7 bits in each of 4 bytes) at `index`, or `nil` when a byte
    /// has its top bit set.
    package func synchsafe(at index: Int) -> Int? {
        var value = 0
        for i in index..<index + 4 {
            guard self[i] & 0x80 == 0 else { return nil }
            value = value << 7 | Int(self[i])
        }
        return value
    }
}
