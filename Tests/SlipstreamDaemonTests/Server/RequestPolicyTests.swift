import Testing

@testable import SlipstreamDaemon

/// The Host and Origin rules on their own.
@Suite struct RequestPolicyTests {
    let loopback = RequestPolicy(port: 6800, listenAll: false, allowedOrigins: ["http://ariang.example/"], allowAnyOrigin: false)
    let everywhere = RequestPolicy(port: 6800, listenAll: true, allowedOrigins: [], allowAnyOrigin: false)

    @Test func loopbackNamesOnlyItsOwnAddresses() {
        for host in ["127.0.0.1:6800", "localhost:6800", "[::1]:6800", "LocalHost:6800"] {
            #expect(loopback.acceptsHost(host), "\(host)")
        }
        for host in ["127.0.0.1", "127.0.0.1:6801", "192.168.1.2:6800", "evil.example:6800", "127.0.0.1.evil.example:6800", "", nil] {
            #expect(!loopback.acceptsHost(host), "\(host ?? "none")")
        }
    }

    @Test func listeningEverywhereTakesAnyAddressButNoName() {
        for host in ["192.168.1.2:6800", "[fe80::1]:6800", "localhost:6800", "10.0.0.1:6800"] {
            #expect(everywhere.acceptsHost(host), "\(host)")
        }
        for host in ["nas.local:6800", "192.168.1.2:80", "[zz::1]:6800", "1.2.3:6800", "rebind.example:6800"] {
            #expect(!everywhere.acceptsHost(host), "\(host)")
        }
    }

    @Test func originsAreOursAllowedOrRefused() {
        #expect(loopback.verdict(origin: nil, host: "127.0.0.1:6800") == .absent)
        #expect(loopback.verdict(origin: "http://127.0.0.1:6800", host: "127.0.0.1:6800") == .sameOrigin)
        #expect(loopback.verdict(origin: "http://localhost:6800", host: "127.0.0.1:6800") == .refused)
        #expect(loopback.verdict(origin: "https://127.0.0.1:6800", host: "127.0.0.1:6800") == .refused)
        #expect(loopback.verdict(origin: "http://ariang.example", host: "127.0.0.1:6800") == .allowedCrossOrigin("http://ariang.example"))
        #expect(loopback.verdict(origin: "null", host: "127.0.0.1:6800") == .refused)
        let any = RequestPolicy(port: 6800, listenAll: false, allowedOrigins: [], allowAnyOrigin: true)
        #expect(any.verdict(origin: "http://x.example", host: "127.0.0.1:6800") == .allowedCrossOrigin("*"))
    }

    @Test func aScriptOfAnotherSiteIsRefused() {
        #expect(loopback.acceptsFetchSite(nil, origin: .absent))
        #expect(loopback.acceptsFetchSite("same-origin", origin: .absent))
        #expect(loopback.acceptsFetchSite("none", origin: .absent))
        #expect(!loopback.acceptsFetchSite("cross-site", origin: .absent))
        #expect(!loopback.acceptsFetchSite("same-site", origin: .absent))
        #expect(loopback.acceptsFetchSite("cross-site", origin: .allowedCrossOrigin("http://ariang.example")))
    }
}
