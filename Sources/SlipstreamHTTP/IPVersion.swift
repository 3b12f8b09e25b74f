/// Which IP version a transfer connects over.
public enum IPVersion: Sendable, Equatable {
    /// Whichever the host's addresses offer (the default).
    case any
    /// IPv4 addresses only.
    case v4
    /// IPv6 addresses only.
    case v6
}
