#if canImport(Glibc)
import Glibc
#endif

/// Parses the HTTP date format (IMF-fixdate, RFC 9110 section 5.6.7), e.g.
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Pure.
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970 for an IMF-fixdate, or nil.
    package static func secondsSince1970(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        // The year is four digits: a larger one would not fit `tm_year` (Int32), and trapped.
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]), (0...9999).contains(year),
            let month = months.firstIndex(of: String(parts[2]))
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(clock[0])
        fields.tm_min = Int32(clock[1])
        fields.tm_sec = Int32(clock[2])
        return Double(timegm(&fields))
    }

    /// The IMF-fixdate of `seconds` since 1970, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func text(secondsSince1970 seconds: Int) -> String {
        var time = time_t(seconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(fields.tm_wday)]), \(two(fields.tm_mday)) \(months[Int(fields.tm_mon)]) \(fields.tm_year + 1900) "
            + "\(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec)) GMT"
    }
}
