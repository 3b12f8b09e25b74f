extension String {
    /// `bytes` as UTF-8 when they are valid UTF-8, else as Windows-1252 (the superset of
    /// ISO-8859-1 that servers and tag writers mean when they send "Latin-1"). Radio stations
    /// send both in their titles and headers.
    package init(utf8OrWindows1252 bytes: some Collection<UInt8>) {
        if let text = String(validating: bytes, as: UTF8.self) {
            self = text
            return
        }
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let high = (0x80...0x9F).contains(byte) ? windows1252High[Int(byte) - 0x80] : 0
            scalars.append(high == 0 ? Unicode.Scalar(byte) : Unicode.Scalar(high)!)
        }
        self = String(scalars)
    }
}

/// Windows-1252's characters for 0x80...0x9F (0 where it has none: the C1 control is kept).
private let windows1252High: [UInt16] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
]
