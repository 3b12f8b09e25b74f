import CCurl

/// Cookies shared by every request that carries this session, on any engine and thread: what
/// one response sets, the next request to that site sends. All connections of a segmented
/// download carry the same session, so they all send the same cookies.
///
/// It starts from a Netscape cookie file (what curl, wget and browsers' export extensions
/// write), when given one; with a jar, every cookie it holds is written there (Netscape format,
/// replaced atomically) each time a transfer that carries it ends.
// Unchecked: it wraps libcurl's share handle, whose lock libcurl takes around every use.
public final class CookieSession: @unchecked Sendable {
    /// The share handle and its lock. libcurl takes the lock around every use of the cookies,
    /// so the session can be used from any thread; freed when the last transfer is gone (each
    /// transfer's request holds the session).
    private let shared: UnsafeMutablePointer<slipstream_cookie_share>
    /// Where the cookies are written, if anywhere.
    public let jarPath: String?

    /// A session with the cookies of the Netscape cookie file at `file` (none when nil; a file
    /// that cannot be read adds none, so check it first where that matters), written to `jar`
    /// (when not nil) at the end of each transfer.
    public init(readingFrom file: String? = nil, savingTo jar: String? = nil) {
        CurlGlobal.initialize()
        guard let shared = slipstream_cookie_share_new() else {
            fatalError("curl_share_init failed: libcurl is out of memory")
        }
        self.shared = shared
        jarPath = jar
        if let file {
            withHandle { easy in
                _ = slipstream_curl_easy_setopt_string(easy, CURLOPT_COOKIEFILE, file)
                _ = slipstream_curl_easy_setopt_string(easy, CURLOPT_COOKIELIST, "RELOAD")
            }
        }
    }

    deinit {
        slipstream_cookie_share_free(shared)
    }

    /// Writes every cookie to the jar now (nothing without one). libcurl writes a temporary
    /// file and renames it, so a reader never sees half a jar.
    public func save() {
        guard let jarPath else { return }
        // An easy handle with a jar writes it when it is cleaned up.
        withHandle { easy in _ = slipstream_curl_easy_setopt_string(easy, CURLOPT_COOKIEJAR, jarPath) }
    }

    /// Makes `easy` use these cookies.
    func attach(to easy: UnsafeMutableRawPointer) {
        _ = slipstream_curl_easy_setopt_pointer(easy, CURLOPT_SHARE, UnsafeMutableRawPointer(shared.pointee.share))
        // An empty file name turns the cookie engine on without reading a file.
        _ = slipstream_curl_easy_setopt_string(easy, CURLOPT_COOKIEFILE, "")
    }

    /// Runs `body` with a short-lived easy handle on the share.
    private func withHandle(_ body: (UnsafeMutableRawPointer) -> Void) {
        guard let easy = slipstream_curl_easy_init() else { return }
        _ = slipstream_curl_easy_setopt_pointer(easy, CURLOPT_SHARE, UnsafeMutableRawPointer(shared.pointee.share))
        body(easy)
        slipstream_curl_easy_cleanup(easy)
    }
}
