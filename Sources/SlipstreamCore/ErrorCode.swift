/// The kind of failure of an error of type `Domain`: a stable name, compared by value. Each
/// error type of the libraries names its codes this way (`DownloadError.Code` is
/// `ErrorCode<DownloadError>`), so that new codes don't break callers (a `switch` over them has
/// a `default`) and a code of one error type cannot be compared with, or passed for, another's:
///
/// ```swift
/// if error.code == .network { ... }        // error: DownloadError
/// switch error.code {
/// case .httpStatus, .rangeNotHonoured: ...
/// default: ...
/// }
/// ```
///
/// The codes of a type are declared in a constrained extension, one static property each, and
/// only by the libraries:
///
/// ```swift
/// extension ErrorCode where Domain == DownloadError {
///     /// The network failed (resolve, connect, TLS, timeout, connection lost, ...).
///     public static var network: Self { Self("network") }
/// }
/// ```
public struct ErrorCode<Domain: Error>: Hashable, Sendable, CustomStringConvertible {
    /// The stable name of the code: lower-case words separated by single spaces, such as
    /// `http status` or `no space`. Programs may show it and match on it (the command line's
    /// JSON events carry it); it does not change.
    public let name: String

    /// The code named `name`, which must be well formed (`isWellFormedName`).
    package init(_ name: String) {
        assert(Self.isWellFormedName(name), "an error code's name is lower-case words separated by single spaces, not '\(name)'")
        self.name = name
    }

    /// The name.
    public var description: String { name }

    /// Whether `name` is one or more words of ASCII lower-case letters and digits, separated by
    /// single spaces: the one spelling every code's name has.
    package static func isWellFormedName(_ name: String) -> Bool {
        var previousWasSpace = true
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                previousWasSpace = false
            case UInt8(ascii: " ") where !previousWasSpace:
                previousWasSpace = true
            default:
                return false
            }
        }
        return !previousWasSpace
    }
}
