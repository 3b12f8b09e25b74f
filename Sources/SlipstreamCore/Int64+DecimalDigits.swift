extension Int64 {
    /// Parses a non-empty run of ASCII digits only (no sign, no spaces), rejecting overflow.
    package init?(decimalDigits text: Substring) {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            value = sum
        }
        self = value
    }
}
