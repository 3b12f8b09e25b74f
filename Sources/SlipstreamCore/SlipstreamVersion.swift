/// The version of this package.
public enum SlipstreamVersion {
    /// The version, e.g. `0.1.0`.
    public static let string = "0.1.0"
}
