import Testing
@testable import SlipstreamDownload

@Suite struct XMLReaderTests {
    static func read(_ text: String, limits: XMLReader.Limits = XMLReader.Limits()) throws(MetalinkError) -> XMLElement {
        try XMLReader.parse(Array(text.utf8), limits: limits)
    }

    @Test func readsElementsAttributesAndText() throws {
        let root = try Self.read(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <!-- before -->
            <?stylesheet href="x"?>
            <a x="1" y='two'>
              head<b/>tail<c z="&lt;&amp;&gt;">in c</c>
            </a>
            <!-- after -->

            """)
        #expect(root.name == "a" && root.namespace == nil && root.line == 4)
        #expect(root.attributes == [.init(name: "x", value: "1"), .init(name: "y", value: "two")])
        #expect(root.text == "\n  headtail\n")
        #expect(root.children.map(\.name) == ["b", "c"])
        #expect(root.children[1].attribute("z") == "<&>" && root.children[1].text == "in c" && root.children[1].line == 5)
    }

    @Test(arguments: [
        ("&amp;&lt;&gt;&quot;&apos;", "&<>\"'"),
        ("&#65;&#x42;&#x263A;&#128512;", "AB\u{263A}\u{1F600}"),
        ("<![CDATA[<not> &amp; markup]]>", "<not> &amp; markup"),
        ("a<!-- c -->b<?pi data?>c", "abc"),
        ("one\r\ntwo\rthree\n", "one\ntwo\nthree\n"),
        ("&#13;", "\r"),
        ("caf\u{E9} \u{1F600}", "caf\u{E9} \u{1F600}"),
    ])
    func expandsReferencesAndSections(content: String, text: String) throws {
        #expect(try Self.read("<r>\(content)</r>").text == text)
    }

    @Test func normalisesAttributeWhiteSpace() throws {
        let root = try Self.read("<r a=\"x\ty\r\nz\" b=\"&#9;&#10;\"/>")
        #expect(root.attribute("a") == "x y z")
        #expect(root.attribute("b") == "\t\n")
    }

    @Test func resolvesNamespacesByPrefix() throws {
        let root = try Self.read(
            """
            <m:a xmlns:m="urn:one" xmlns="urn:default">
              <b/><m:c/><d xmlns=""/><m:e xmlns:m="urn:two" m:attr="v"/>
            </m:a>
            """)
        #expect(root.namespace == "urn:one" && root.name == "a" && root.attributes.isEmpty)
        #expect(root.children.map(\.namespace) == ["urn:default", "urn:one", nil, "urn:two"])
        #expect(root.children[3].attribute("m:attr") == "v")
    }

    @Test func readsADeclaredLatin1Document() throws {
        let bytes: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r>caf".utf8) + [0xE9] + Array("</r>".utf8)
        #expect(try XMLReader.parse(bytes).text == "caf\u{E9}")
    }

    @Test func skipsAByteOrderMark() throws {
        #expect(try XMLReader.parse([0xEF, 0xBB, 0xBF] + Array("<r/>".utf8)).name == "r")
    }

    static let refused: [(String, Int, String)] = [
        ("<a><b></a></b>", 1, "</a> where </b>"),
        ("<a>\n<b>\n</a>", 3, "</a> where </b> (opened on line 2)"),
        ("<a>\n\n", 3, "<a> (line 1) is never closed"),
        ("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", 1, "DOCTYPE"),
        ("<a>&x;</a>", 1, "the entity '&x;'"),
        ("<a>&amp</a>", 1, "starts no reference"),
        ("<a>&#0;</a>", 1, "not a character XML allows"),
        ("<a>&#xD800;</a>", 1, "not a character XML allows"),
        ("<a>&#x110000;</a>", 1, "not a character XML allows"),
        ("<a>&#12a;</a>", 1, "not a number"),
        ("<a x=\"1\" x=\"2\"/>", 1, "the attribute 'x' twice"),
        ("<a x=1/>", 1, "not in quotes"),
        ("<a x=\"<\"/>", 1, "a '<' in an attribute value"),
        ("<a x=\"1\"y=\"2\"/>", 1, "expected white space"),
        ("<p:a/>", 1, "the prefix 'p' is not declared"),
        ("<a:b:c xmlns:a=\"u\"/>", 1, "not a name or prefix:name"),
        ("<a xmlns:=\"u\"/>", 1, "binds no prefix"),
        ("<a xmlns:p=\"\"/>", 1, "binds no prefix or binds it to nothing"),
        ("<a/>\n<b/>", 2, "a second root element"),
        ("<a/>\ntext", 2, "text outside the root element"),
        ("", 1, "no root element"),
        ("<a><!-- x -- y --></a>", 1, "'--' inside a comment"),
        ("<a><![CDATA[x</a>", 1, "never ends"),
        ("<a><?xml version=\"1.0\"?></a>", 1, "not at the start"),
        ("<1a/>", 1, "a name that starts with '1'"),
        ("<a>\n\u{1}</a>", 2, "a control character (0x1)"),
        ("<?xml version=\"1.0\" encoding=\"windows-1252\"?><a/>", 1, "the encoding 'windows-1252'"),
        ("<?xml version=\"2.0\"?><a/>", 1, "only 1.x"),
    ]

    @Test(arguments: refused)
    func refusesWhatIsNotWellFormed(text: String, line: Int, message: String) {
        #expect {
            try Self.read(text)
        } throws: { error in
            let error = error as! MetalinkError
            return error.line == line && error.message.contains(message)
        }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: MetalinkError(line: 2, "bytes that are not UTF-8")) {
            try XMLReader.parse(Array("<a>\n".utf8) + [0xC3, 0x28] + Array("</a>".utf8))
        }
        #expect(throws: MetalinkError(line: 1, "a UTF-16 document: only UTF-8 (or a declared ISO-8859-1) is read")) {
            try XMLReader.parse([0xFF, 0xFE, 0x3C, 0x00])
        }
    }

    @Test func refusesPastItsBounds() {
        let deep = String(repeating: "<a>", count: 33) + String(repeating: "</a>", count: 33)
        #expect(throws: MetalinkError(line: 1, "elements nested more than 32 deep")) { try Self.read(deep) }
        #expect(throws: Never.self) { try Self.read(String(repeating: "<a>", count: 32) + String(repeating: "</a>", count: 32)) }

        var limits = XMLReader.Limits()
        limits.maxElements = 3
        #expect(throws: MetalinkError(line: 1, "more than 3 elements")) { try Self.read("<a><b/><c/><d/></a>", limits: limits) }

        limits = XMLReader.Limits()
        limits.maxBytes = 10
        #expect(throws: MetalinkError(line: 0, "the document is 11 bytes, more than the 10 read")) {
            try Self.read("<a>123</a>!", limits: limits)
        }

        limits = XMLReader.Limits()
        limits.maxTextBytes = 4
        #expect(throws: MetalinkError(line: 1, "more than 4 bytes of text in <a>")) { try Self.read("<a>12<b/>345</a>", limits: limits) }
        #expect(throws: MetalinkError(line: 1, "an attribute value longer than 4 bytes")) {
            try Self.read("<a b=\"12345\"/>", limits: limits)
        }

        limits = XMLReader.Limits()
        limits.maxAttributes = 2
        #expect(throws: MetalinkError(line: 1, "more than 2 attributes in <a>")) {
            try Self.read("<a x=\"\" y=\"\" z=\"\"/>", limits: limits)
        }
    }

    /// The "billion laughs": refused at its DOCTYPE, before any entity could expand.
    @Test func refusesEntityExpansion() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
             <!ENTITY lol "lol">
             <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            ]>
            <lolz>&lol2;</lolz>
            """
        #expect(throws: MetalinkError(line: 2, "a DOCTYPE or ENTITY declaration: refused (no DTD is read, so no entity expands)")) {
            try Self.read(laughs)
        }
    }
}
