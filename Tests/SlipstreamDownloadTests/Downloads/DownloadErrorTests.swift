@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// A download error's shape: a code, a message, the facts as fields, the underlying error kept
/// and left out of equality, as the audio errors are.
struct DownloadErrorTests {
    static let base = DownloadError(.noSpace, "/data/big.iso: no space left", url: "http://h/big.iso", path: "/data/big.iso")

    @Test func equalityComparesTheFactsNotTheUnderlyingError() {
        var withCause = Self.base
        withCause.underlying = HTTPError(.writeFailed, url: "http://h/big.iso", message: "write failed")
        #expect(withCause == Self.base)
        #expect(withCause.hashValue == Self.base.hashValue)
        #expect(Set([withCause, Self.base]).count == 1)
    }

    @Test(arguments: [
        DownloadError(.disk, "/data/big.iso: no space left", url: "http://h/big.iso", path: "/data/big.iso"),
        DownloadError(.noSpace, "/data/big.iso: full", url: "http://h/big.iso", path: "/data/big.iso"),
        DownloadError(.noSpace, "/data/big.iso: no space left", url: "http://h/other.iso", path: "/data/big.iso"),
        DownloadError(.noSpace, "/data/big.iso: no space left", path: "/data/big.iso"),
        DownloadError(.noSpace, "/data/big.iso: no space left", url: "http://h/big.iso", path: "/tmp/big.iso"),
        {
            var error = base
            error.resumableFile = "/data/big.iso.part"
            return error
        }(),
    ])
    func errorsThatDifferInAFactDiffer(other: DownloadError) {
        #expect(other != Self.base)
    }

    @Test func aTransferErrorKeepsItsFactsAndCause() {
        let http = HTTPError(.httpStatus, url: "http://h/f", message: "the server answered HTTP 404", status: 404)
        let error = DownloadError(http)
        #expect(error.code == .httpStatus)
        #expect(error.url == "http://h/f")
        #expect(error.http == http)
        #expect(error == DownloadError(http))
        #expect(DownloadError(HTTPError(.malformedURL, url: "h", message: "bad")).code == .invalidURL)
        #expect(DownloadError(HTTPError(.connect, url: "http://h/f", message: "refused")).code == .network)
    }

    /// Passwords are out of the message before it is compared: two messages that differ only
    /// there are the same fact.
    @Test func messagesAreComparedWithoutPasswords() {
        let a = DownloadError(.network, "http://me:one@h/f: refused", url: "http://h/f")
        let b = DownloadError(.network, "http://me:two@h/f: refused", url: "http://h/f")
        #expect(a == b)
        #expect(a.message == "http://me:***@h/f: refused")
    }

    @Test func codesNameThemselves() {
        #expect(DownloadError.Code.httpStatus.description == "http status")
        #expect(DownloadError.Code.invalidURL.description == "invalid url")
        #expect(DownloadError.Code.noSpace.description == "no space")
    }
}
