import Foundation
import Testing
import TestSupport
@testable import SlipstreamHTTP

/// TLS trust, logins and cookies against the access tests' nginx (HTTPS and HTTP/2 with a test
/// CA, `auth_basic`, a cookie-guarded location).
@Suite struct TransferAccessTests {
    let engine = HTTPEngine.shared

    func fetch(_ url: String, _ configure: (inout TransferAccess) -> Void = { _ in }) async throws(HTTPError) -> HTTPResponse {
        var request = HTTPRequest(url: url)
        configure(&request.access)
        return try await engine.fetch(request)
    }

    @Test func aPrivateCAIsTrustedByFileOrFolderOverHTTP2() async throws {
        let servers = try await TestAccessServers.shared()
        try servers.makeFile("tls-small.bin", size: 1000)
        let url = servers.url("tls-small.bin", port: servers.tlsPort, tls: true)
        let byFile = try await fetch(url) { $0.security.caFile = servers.caFile }
        #expect(byFile.head.status == 200 && byFile.body.count == 1000)
        let byFolder = try await fetch(url) { $0.security.caPath = servers.caPath }
        #expect(byFolder.body.count == 1000)
        // HTTP/2: nginx logged the requests with that protocol.
        #expect(try servers.logLines(forTargetsStartingWith: "/files/tls-small.bin").allSatisfy { $0.hasSuffix("HTTP/2.0") })
    }

    /// Each check that fails is named: the one a person must act on.
    @Test(arguments: [
        ("tls", false, TLSProblem.unknownAuthority, "not signed by a trusted certificate authority"),
        ("expired", true, .expired, "has expired"),
        ("wrongname", true, .nameMismatch, "not for this host name"),
    ])
    func aFailedCheckIsNamed(server: String, trustsCA: Bool, problem: TLSProblem, words: String) async throws {
        let servers = try await TestAccessServers.shared()
        try servers.makeFile("tls-small.bin", size: 1000)
        let port = ["tls": servers.tlsPort, "expired": servers.expiredPort, "wrongname": servers.wrongNamePort][server]!
        do {
            _ = try await fetch(servers.url("tls-small.bin", port: port, tls: true)) {
                if trustsCA { $0.security.caFile = servers.caFile }
            }
            Issue.record("the fetch succeeded")
        } catch {
            #expect(error.code == .tls)
            #expect(error.tlsProblem == problem)
            #expect(error.message.contains(words), "\(error.message)")
            #expect(!error.isRetryable)
        }
    }

    @Test func aPinnedKeyIsCheckedEvenWithoutVerification() async throws {
        let servers = try await TestAccessServers.shared()
        try servers.makeFile("tls-small.bin", size: 1000)
        let url = servers.url("tls-small.bin", port: servers.tlsPort, tls: true)
        let pinned = try await fetch(url) {
            $0.security.caFile = servers.caFile
            $0.security.pinnedPublicKey = servers.pin
        }
        #expect(pinned.body.count == 1000)
        let insecure = try await fetch(url) { $0.security.verifiesPeer = false }
        #expect(insecure.body.count == 1000)
        do {
            _ = try await fetch(url) {
                $0.security.verifiesPeer = false
                $0.security.pinnedPublicKey = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
            }
            Issue.record("a wrong pin was accepted")
        } catch {
            #expect(error.tlsProblem == .pinMismatch)
        }
        do {
            _ = try await fetch(url) { $0.security.caFile = "/no/such/ca.pem" }
            Issue.record("a missing CA file was accepted")
        } catch {
            #expect(error.tlsProblem == .unreadableTrust)
        }
    }

    @Test(arguments: [Credentials.Methods.any, .basic])
    func aLoginGetsIn(methods: Credentials.Methods) async throws {
        let servers = try await TestAccessServers.shared()
        try servers.makeFile("login-small.bin", size: 1000)
        let url = servers.url("login-small.bin", location: "basic")
        #expect(try await fetch(url).head.status == 401)
        let wrong = try await fetch(url) { $0.credentials = Credentials(user: "test", password: "wrong", methods: methods) }
        #expect(wrong.head.status == 401)
        let right = try await fetch(url) { $0.credentials = Credentials(user: "test", password: "secret", methods: methods) }
        #expect(right.head.status == 200 && right.body.count == 1000)
    }

    @Test func aNetrcFileGivesTheLoginByHost() async throws {
        let servers = try await TestAccessServers.shared()
        try servers.makeFile("login-small.bin", size: 1000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "machine 127.0.0.1 login test password secret\n".write(toFile: folder + "/netrc", atomically: true, encoding: .utf8)
        let response = try await fetch(servers.url("login-small.bin", location: "basic")) { $0.netrc = .file(folder + "/netrc") }
        #expect(response.head.status == 200 && response.body.count == 1000)
    }

    /// The login reaches the server that asked for it, and not the other server its redirect
    /// leads to (another port on the same address is another server).
    @Test func theLoginDoesNotFollowARedirectToAnotherServer() async throws {
        let servers = try await TestAccessServers.shared()
        let name = "away-\(UInt32.random(in: 0...UInt32.max)).bin"
        try servers.makeFile(name, size: 1000)
        let response = try await fetch(servers.url(name, location: "basic-away")) {
            $0.credentials = Credentials(user: "test", password: "secret", methods: .basic)
        }
        #expect(response.head.status == 200 && response.body.count == 1000)
        #expect(response.head.effectiveURL == servers.url(name, port: servers.otherPort))
        let asked = try servers.logLines(forTargetsStartingWith: "/basic-away/\(name)")
        #expect(asked.count == 1 && asked[0].contains("\"Basic "))
        let other = try servers.logLines(forTargetsStartingWith: "/files/\(name)")
        #expect(other.count == 1 && other[0].hasPrefix("\(servers.otherPort) ") && other[0].contains(" \"-\" "), "\(other)")
    }

    @Test func cookiesFromAFileAreSentAndWhatTheServerSetsIsKept() async throws {
        let servers = try await TestAccessServers.shared()
        try servers.makeFile("cookie-small.bin", size: 1000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try await fetch(servers.url("cookie-small.bin", location: "cookie")).head.status == 403)

        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tpass\topen-sesame\n".write(
            toFile: folder + "/cookies.txt", atomically: true, encoding: .utf8)
        let fromFile = CookieSession(readingFrom: folder + "/cookies.txt")
        let response = try await fetch(servers.url("cookie-small.bin", location: "cookie")) { $0.cookies = fromFile }
        #expect(response.head.status == 200 && response.body.count == 1000)

        // /login/ sets the cookie on its redirect; the jar has it when the fetch returns.
        let jar = folder + "/jar.txt"
        let session = CookieSession(savingTo: jar)
        let login = try await fetch(servers.url("cookie-small.bin", location: "login")) { $0.cookies = session }
        #expect(login.head.status == 200 && login.body.count == 1000)
        let written = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(written.contains("\tpass\topen-sesame"))
        // The same session carries it to the next request.
        let again = try await fetch(servers.url("cookie-small.bin", location: "cookie")) { $0.cookies = session }
        #expect(again.head.status == 200)
    }

    @Test(arguments: [
        ("http://Example.COM/a", "http", "example.com", 80),
        ("https://user:pw@host:8443/x?y", "https", "host", 8443),
        ("http://[::1]:81/", "http", "::1", 81),
        ("HTTPS://h", "https", "h", 443),
    ])
    func origins(url: String, scheme: String, host: String, port: Int) {
        let origin = URLOrigin(url)
        #expect(origin?.scheme == scheme && origin?.host == host && origin?.port == port)
    }

    @Test func noOriginWithoutAHostOrWithABadPort() {
        #expect(URLOrigin("no-scheme") == nil)
        #expect(URLOrigin("http:///path") == nil)
        #expect(URLOrigin("http://h:99999/") == nil)
        #expect(URLOrigin("http://[::1/") == nil)
    }

    @Test func aScopedAccessDropsTheLoginForOtherServers() {
        var access = TransferAccess()
        access.credentials = Credentials(user: "u", password: "p")
        let origins = [URLOrigin("http://a.test/")!]
        #expect(access.scoped(to: "http://a.test:80/file", loginOrigins: origins).credentials != nil)
        #expect(access.scoped(to: "http://a.test:8080/file", loginOrigins: origins).credentials == nil)
        #expect(access.scoped(to: "https://a.test/file", loginOrigins: origins).credentials == nil)
        #expect(access.scoped(to: "http://b.test/file", loginOrigins: origins).credentials == nil)
    }

    @Test(arguments: [
        (60, 20, TLSProblem?.some(.unknownAuthority)), (60, 19, .unknownAuthority), (60, 18, .unknownAuthority),
        (60, 10, .expired), (60, 9, .notYetValid), (60, 0, .nameMismatch), (60, 1, .nameMismatch), (60, 62, .nameMismatch),
        (90, 0, .pinMismatch), (77, 0, .unreadableTrust), (35, 0, .handshake), (7, 0, nil), (28, 0, nil),
    ])
    func tlsProblemsFromLibcurlsCodes(curlCode: Int, verifyResult: Int, problem: TLSProblem?) {
        #expect(TLSProblem.classify(curlCode: curlCode, verifyResult: verifyResult) == problem)
    }
}

/// Digest logins against lighttpd (nginx has no Digest).
@Suite struct DigestLoginTests {
    @Test(arguments: [(Credentials.Methods.any, 200), (.digest, 200), (.basic, 401)])
    func aDigestLoginGetsInAsNegotiated(methods: Credentials.Methods, status: Int) async throws {
        let servers = try await TestAccessServers.shared()
        let port = try #require(servers.digestPort, "lighttpd is not installed (scripts/setup.sh installs it)")
        try servers.makeFile("digest-small.bin", size: 1000)
        var request = HTTPRequest(url: servers.url("digest-small.bin", port: port))
        request.access.credentials = Credentials(user: "test", password: "secret", methods: methods)
        let response = try await HTTPEngine.shared.fetch(request)
        #expect(response.head.status == status)
        if status == 200 { #expect(response.body.count == 1000) }
    }
}
