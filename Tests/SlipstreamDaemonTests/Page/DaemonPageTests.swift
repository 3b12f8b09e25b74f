import Testing

@testable import SlipstreamDaemon

/// The page's files as the server gets them: the three paths, and texts that keep to what the
/// daemon's Content-Security-Policy allows (files of its own origin, no inline script or style).
/// The page's behaviour is tested in a browser: Tests/Clients/test_page.py.
@Suite struct DaemonPageTests {
    private func text(_ path: String) throws -> String {
        try #require(DaemonPage.files.first { $0.path == path }?.text)
    }

    private func matches(_ pattern: String, in text: String) throws -> [Substring] {
        try text.matches(of: Regex<AnyRegexOutput>(pattern)).map { text[$0.range] }
    }

    @Test func servesThePageItsScriptAndItsStyleSheet() {
        #expect(DaemonPage.files.map(\.path) == ["/", "/app.js", "/app.css"])
        #expect(
            DaemonPage.files.map(\.contentType) == [
                "text/html; charset=utf-8", "text/javascript; charset=utf-8", "text/css; charset=utf-8",
            ])
        #expect(DaemonPage.files.allSatisfy { !$0.text.isEmpty })
    }

    @Test func thePageHasNoInlineScriptOrStyle() throws {
        let html = try text("/")
        let scripts = try matches("<script[^>]*>", in: html)
        #expect(scripts.count == 1)
        #expect(scripts.allSatisfy { $0.contains("src=\"app.js\"") })
        #expect(try matches("<style", in: html).isEmpty)
        #expect(try matches("\\sstyle=", in: html).isEmpty)
        #expect(try matches("\\son[a-z]+=", in: html).isEmpty)
    }

    @Test func nothingIsLoadedFromElsewhere() throws {
        let html = try text("/")
        let links = try matches("(src|href)=\"[^\"]*\"", in: html)
        #expect(links.count == 2)
        #expect(links.allSatisfy { !$0.contains(":") && !$0.contains("//") })
        let css = try text("/app.css")
        #expect(try matches("url\\(|@import", in: css).isEmpty)
        let script = try text("/app.js")
        #expect(try matches("https?://|eval\\(|new Function|innerHTML|import\\(", in: script).isEmpty)
    }

    @Test func everyElementTheScriptLooksUpIsOnThePage() throws {
        let html = try text("/"), script = try text("/app.js")
        let ids = try matches("\\$\\('[a-z-]+'\\)", in: script).map { $0.dropFirst(3).dropLast(2) }
        #expect(ids.count > 20)
        for id in Set(ids) {
            #expect(html.contains("id=\"\(id)\""), "no element \(id)")
        }
        for list in ["active", "waiting", "stopped"] {
            for suffix in ["list", "count", "empty"] {
                #expect(html.contains("id=\"\(list)-\(suffix)\""))
            }
        }
    }
}
