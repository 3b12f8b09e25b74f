import CCurl

/// Maps libcurl's result codes to `HTTPError.Code`.
enum CurlResultCode {
    static func errorCode(for code: CURLcode) -> HTTPError.Code {
        switch code {
        case CURLE_URL_MALFORMAT: .malformedURL
        case CURLE_UNSUPPORTED_PROTOCOL: .unsupportedScheme
        case CURLE_COULDNT_RESOLVE_HOST: .resolve
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY: .proxy
        case CURLE_COULDNT_CONNECT: .connect
        case CURLE_OPERATION_TIMEDOUT: .timeout
        case CURLE_TOO_MANY_REDIRECTS: .tooManyRedirects
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_USE_SSL_FAILED:
            .tls
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING,
            CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            .connectionLost
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING:
            .invalidResponse
        case CURLE_WRITE_ERROR: .writeFailed
        case CURLE_LOGIN_DENIED: .loginDenied
        case CURLE_REMOTE_FILE_NOT_FOUND: .remoteFileNotFound
        // An FTP server that refuses `REST`: no ranges there.
        case CURLE_FTP_COULDNT_USE_REST: .rangeNotHonoured
        case CURLE_ABORTED_BY_CALLBACK: .cancelled
        default: .other
        }
    }
}
