import SlipstreamHTTP

extension DownloadError {
    /// aria2's exit code for this failure (its manual's "EXIT STATUS"), which its clients show
    /// as a download's `errorCode`: 3 a resource not found, 6 a network problem, 9 no space,
    /// 32 a checksum mismatch, ...
    var aria2Code: Int {
        let http = underlying as? HTTPError
        switch code {
        case .httpStatus:
            switch http?.status {
            case 404?, 410?: return 3
            case 401?, 403?, 407?: return 24
            case 503?: return 29
            default: return 22
            }
        case .network:
            switch http?.code {
            case .resolve?: return 19
            case .timeout?: return 2
            case .tooManyRedirects?: return 23
            case .loginDenied?: return 24
            case .invalidResponse?: return 22
            default: return 6
            }
        case .rangeNotHonoured: return 8
        case .noSpace: return 9
        case .disk: return 17
        case .output, .outputClosed: return 16
        case .exists: return 13
        case .checksum: return 32
        case .invalidURL, .invalidChecksum, .input: return 28
        case .cancelled: return 5
        default: return 1
        }
    }
}
