import SlipstreamHTTP

extension TLSProblem {
    /// What to do about it, in the command line's options; nil where no option helps.
    var advice: String? {
        switch self {
        case .unknownAuthority: "give the server's CA with --cacert FILE or --capath DIR, or skip the check with -k"
        case .nameMismatch: "use the host name the certificate is for, or skip the check with -k"
        case .pinMismatch: "the key is not the one --pinnedpubkey names"
        default: nil
        }
    }

    /// The advice for the TLS problem behind `error`, if it is one and there is advice.
    static func advice(for error: (any Error)?) -> String? {
        (error as? HTTPError)?.tlsProblem?.advice
    }
}
