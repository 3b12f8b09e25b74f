/// aria2's name of a download: 64 bits written as 16 lower-case hex digits, given at random
/// (never 0) and kept across restarts in the session file.
public struct GID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The 64 bits.
    public let value: UInt64

    /// The GID of `value`, which is not 0.
    public init?(_ value: UInt64) {
        guard value != 0 else { return nil }
        self.value = value
    }

    /// Reads 16 hex digits (either case); nil for anything else.
    public init?(_ text: String) {
        guard text.utf8.count == 16, let value = UInt64(text, radix: 16), !text.hasPrefix("+"), !text.hasPrefix("-") else {
            return nil
        }
        self.init(value)
    }

    /// A random GID not in `taken`.
    static func random(avoiding taken: (GID) -> Bool) -> GID {
        var generator = SystemRandomNumberGenerator()
        while true {
            if let gid = GID(UInt64.random(in: 1...UInt64.max, using: &generator)), !taken(gid) { return gid }
        }
    }

    /// 16 lower-case hex digits.
    public var description: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    public static func < (lhs: GID, rhs: GID) -> Bool { lhs.value < rhs.value }
}
