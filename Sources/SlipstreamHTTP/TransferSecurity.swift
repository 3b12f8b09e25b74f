/// Which servers a transfer trusts over TLS. Protocol-neutral: it applies to every TLS
/// connection a transfer makes (HTTPS, and any other TLS protocol the engine speaks).
public struct TransferSecurity: Sendable, Equatable {
    /// Whether the server's certificate chain and host name are checked. Default true; false
    /// (the command line's `-k`) accepts any certificate, but a `pinnedPublicKey` is still checked.
    public var verifiesPeer = true
    /// A PEM file of the certificate authorities to trust instead of the system's (libcurl's
    /// `CAINFO`). Default nil: the system's store.
    public var caFile: String?
    /// A folder of PEM certificate authorities named by their subject hash (`openssl rehash`),
    /// trusted instead of the system's folder (libcurl's `CAPATH`). Default nil.
    public var caPath: String?
    /// The server's public key must be this one: `sha256//BASE64` (several joined by `;`),
    /// or the path of a PEM or DER public key file (libcurl's `PINNEDPUBLICKEY`). Default nil:
    /// no pin.
    public var pinnedPublicKey: String?

    /// The defaults: the system's certificate authorities, verified, no pin.
    public init() {}
}
