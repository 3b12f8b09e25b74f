extension Substring {
    /// Without leading and trailing spaces and tabs (looked at as bytes, not characters).
    package func trimmingSpaces() -> Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 32 || bytes[start] == 9 { start = bytes.index(after: start) }
        while start < end, bytes[bytes.index(before: end)] == 32 || bytes[bytes.index(before: end)] == 9 {
            end = bytes.index(before: end)
        }
        return self[start..<end]
    }
}
