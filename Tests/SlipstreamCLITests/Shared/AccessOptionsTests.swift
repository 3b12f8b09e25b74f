import SlipstreamHTTP
import Testing
@testable import slipstream

/// Parsing of the TLS, login and cookie options `get`, `play` and `info` share.
@Suite struct AccessOptionsTests {
    @Test func everyOptionOfGet() throws {
        let options = try GetOptions.parse([
            "--cacert", "ca.pem", "--capath=certs", "--pinnedpubkey", "sha256//x=", "-k", "--user", "me:pa:ss",
            "--auth", "digest", "--netrc-file", "n", "--cookies", "c.txt", "--cookie-jar=j.txt", "http://h/f",
        ])
        let access = options.access
        #expect(access.security.caFile == "ca.pem" && access.security.caPath == "certs")
        #expect(access.security.pinnedPublicKey == "sha256//x=" && !access.security.verifiesPeer)
        #expect(access.user == "me" && access.password == "pa:ss" && access.methods == .digest)
        #expect(access.netrc == .file("n"))
        #expect(access.cookieFile == "c.txt" && access.cookieJar == "j.txt")
    }

    @Test func aUserWithoutAPasswordIsAskedLater() throws {
        let options = try PlayOptions.parse(["--user", "me", "--netrc", "http://h/a.mp3"])
        #expect(options.access.user == "me" && options.access.password == nil)
        #expect(options.access.netrc == .defaultFile)
        let empty = try InfoOptions.parse(["--user", "me:", "http://h/a.mp3"])
        #expect(empty.access.password == "")
    }

    @Test(arguments: [
        (["get", "--user", ":pw", "http://h/"], "--user needs a user name"),
        (["get", "--auth", "ntlm", "http://h/"], "--auth must be any, basic or digest, not 'ntlm'"),
        (["get", "--cacert", "", "http://h/"], "--cacert needs a file name"),
        (["info", "--cookies", "c.txt", "/a/file.mp3"], "apply to a URL, not to the file"),
        (["play", "-k", "/a/file.mp3"], "apply to a URL, not to the file"),
    ])
    func mistakesAreSaid(arguments: [String], message: String) {
        do {
            switch arguments[0] {
            case "get": _ = try GetOptions.parse(Array(arguments.dropFirst()))
            case "info": _ = try InfoOptions.parse(Array(arguments.dropFirst()))
            default: _ = try PlayOptions.parse(Array(arguments.dropFirst()))
            }
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }
}
