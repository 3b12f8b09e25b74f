import SlipstreamHTTP
import Testing

/// What `scripts/fuzz.sh` found in the parsers of response heads, kept as tests.
@Suite struct FuzzRegressionTests {
    /// An HTTP date with a year of more than four digits trapped (it did not fit `tm_year`): any
    /// server could stop a download with such a `Retry-After`.
    @Test(arguments: ["Wed, 21 Oct 99999999999 07:28:00 GMT", "Wed, 21 Oct -99999999999 07:28:00 GMT", "Wed, 21 Oct 10000 07:28:00 GMT"])
    func aDateWithAHugeYearIsNoDate(value: String) {
        let head = HTTPResponseHead(status: 503, headers: ["Retry-After": value], effectiveURL: "http://a.test/")
        #expect(head.retryAfter(now: 0) == nil)
    }

    @Test func aFourDigitYearStillCounts() {
        let head = HTTPResponseHead(status: 503, headers: ["Retry-After": "Thu, 01 Jan 1970 00:01:40 GMT"], effectiveURL: "http://a.test/")
        #expect(head.retryAfter(now: 0) == 100)
    }
}
