import Testing
@testable import slipstream

/// `slipstream info`'s option parsing, without running anything.
@Suite struct InfoOptionsTests {
    @Test func everyOption() throws {
        let options = try InfoOptions.parse([
            "--json", "--exact", "--proxy=socks5h://127.0.0.1:9", "-H", "X-A: 1", "--header=X-B:2", "http://h/a.mp3",
        ])
        #expect(options.target == "http://h/a.mp3")
        #expect(options.isURL)
        #expect(options.json && options.exact)
        #expect(options.proxy == "socks5h://127.0.0.1:9")
        #expect(options.headers["x-a"] == "1")
        #expect(options.headers["X-B"] == "2")
        #expect(!options.help)
    }

    @Test func aFileAndDefaults() throws {
        let options = try InfoOptions.parse(["--", "-odd name.mp3"])
        #expect(options.target == "-odd name.mp3")
        #expect(!options.isURL && !options.json && !options.exact && options.proxy == nil && options.headers.count == 0)
        #expect(try InfoOptions.parse(["-h"]).help)
    }

    @Test(
        arguments: [
            ([], "info needs a URL or a file"),
            (["a.mp3", "b.mp3"], "only one URL or file, please (got 'a.mp3' and 'b.mp3')"),
            (["--json=yes", "a.mp3"], "--json takes no value"),
            (["--proxy", "gopher://p", "http://h/a"], "--proxy must start with one of"),
            (["-H", "No Colon", "http://h/a"], "-H must look like 'Name: value'"),
            (
                ["--proxy", "http://p:3128", "a.mp3"],
                "--proxy, -H and the TLS, login and cookie options apply to a URL, not to the file 'a.mp3'"
            ),
            (["-n", "4", "a.mp3"], "unknown option -n for info"),
        ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            try InfoOptions.parse(arguments)
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }
}
