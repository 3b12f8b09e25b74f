import CCurl

/// Which TLS check failed, where libcurl says: the reason a `.tls` error gives. A struct
/// rather than an enum so that new kinds don't break callers.
public struct TLSProblem: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Sendable {
        case unknownAuthority = "unknown certificate authority"
        case nameMismatch = "name mismatch"
        case expired
        case notYetValid = "not yet valid"
        case revoked
        case pinMismatch = "public key pin mismatch"
        case unreadableTrust = "unreadable CA file or folder"
        case handshake
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The certificate chain does not lead to a trusted authority (a private CA not given with
    /// `caFile`/`caPath`, or a self-signed certificate).
    public static let unknownAuthority = TLSProblem(.unknownAuthority)
    /// The certificate is not for the host name (or address) in the URL.
    public static let nameMismatch = TLSProblem(.nameMismatch)
    /// A certificate in the chain has expired.
    public static let expired = TLSProblem(.expired)
    /// A certificate in the chain is not valid yet (or the clock is wrong).
    public static let notYetValid = TLSProblem(.notYetValid)
    /// A certificate in the chain was revoked.
    public static let revoked = TLSProblem(.revoked)
    /// The server's public key is not the pinned one.
    public static let pinMismatch = TLSProblem(.pinMismatch)
    /// The CA file or folder given could not be read.
    public static let unreadableTrust = TLSProblem(.unreadableTrust)
    /// Any other handshake failure (no common protocol or cipher, a broken peer).
    public static let handshake = TLSProblem(.handshake)

    /// A stable name, e.g. `name mismatch`.
    public var name: String { kind.rawValue }

    /// The name.
    public var description: String { name }

    /// What a person reads: the check that failed.
    var explanation: String {
        switch kind {
        case .unknownAuthority: "the server's certificate is not signed by a trusted certificate authority"
        case .nameMismatch: "the server's certificate is not for this host name"
        case .expired: "the server's certificate (or one in its chain) has expired"
        case .notYetValid: "the server's certificate (or one in its chain) is not valid yet"
        case .revoked: "the server's certificate (or one in its chain) was revoked"
        case .pinMismatch: "the server's public key does not match the pinned one"
        case .unreadableTrust: "the CA certificate file or folder cannot be read"
        case .handshake: "the TLS handshake failed"
        }
    }

    private static func code(_ code: CURLcode) -> Int { Int(code.rawValue) }

    /// The problem behind libcurl's result `curlCode` (a `CURLcode`'s value), given the
    /// certificate check's result `verifyResult` (`CURLINFO_SSL_VERIFYRESULT`: OpenSSL's
    /// `X509_V_ERR_*`, 0 when the chain was fine); nil when `curlCode` is no TLS failure. Pure.
    static func classify(curlCode: Int, verifyResult: Int) -> TLSProblem? {
        switch curlCode {
        case code(CURLE_PEER_FAILED_VERIFICATION):  // the chain, or libcurl's own host name check
            switch verifyResult {
            // libcurl checks the name itself, after a good chain, and then reports the chain's
            // result as 0 or 1 (X509_V_ERR_UNSPECIFIED); 62 and 64 are OpenSSL's own name checks.
            case 0, 1, 62, 64: return .nameMismatch
            case 9: return .notYetValid
            case 10: return .expired
            case 23: return .revoked
            default: return .unknownAuthority
            }
        case code(CURLE_SSL_PINNEDPUBKEYNOTMATCH): return .pinMismatch
        case code(CURLE_SSL_CACERT_BADFILE): return .unreadableTrust
        case code(CURLE_SSL_CONNECT_ERROR), code(CURLE_SSL_CERTPROBLEM), code(CURLE_SSL_CIPHER),
            code(CURLE_SSL_ENGINE_NOTFOUND), code(CURLE_SSL_ENGINE_SETFAILED), code(CURLE_SSL_ISSUER_ERROR),
            code(CURLE_SSL_INVALIDCERTSTATUS), code(CURLE_SSL_CRL_BADFILE), code(CURLE_SSL_SHUTDOWN_FAILED),
            code(CURLE_USE_SSL_FAILED):
            return .handshake
        default: return nil
        }
    }
}
