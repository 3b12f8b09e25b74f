import Testing

@testable import SlipstreamDaemon

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00"}, "e": ""} "#)
        #expect(value["a"] == [.number(1), .number(-2.5), .number(300), true, false, .null])
        #expect(value["b"]?["c"] == "d\né😀")
        #expect(value["e"] == "")
        #expect(value.members?.map(\.key) == ["a", "b", "e"])
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "'a'", "\"a", "\"\\x\"",
        "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"", "{1:2}", "{\"a\" 1}", "[1 2]", "1 2", "\"a\u{01}\"", "NaN", "Infinity",
        "1e400", "[] x", "/* c */ 1",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try parse(text) }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0x5C, 0x6E, 0xC3, 0x22]) }
    }

    @Test func boundsTheNesting() throws {
        let deep = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(try parse(deep).array != nil)
        let tooDeep = "[" + deep + "]"
        let failure = #expect(throws: JSONParser.Failure.self) { try parse(tooDeep) }
        #expect(failure?.message.contains("deeper") == true)
        // A stack-breaking depth fails as cleanly.
        #expect(throws: JSONParser.Failure.self) { try parse(String(repeating: "[", count: 1_000_000)) }
    }

    @Test func failuresSayWhere() {
        let failure = #expect(throws: JSONParser.Failure.self) { try parse(#"{"a": [1, 2,, 3]}"#) }
        #expect(failure?.offset == 12)
    }

    @Test(arguments: [
        #"{"a":[1,2.5,-3,true,false,null,"x\"\\\/\b\f\n\r\t"],"b":{}}"#, #"[]"#, #""\u0000\u001f\u2028""#,
        #"[1e-7,123456789012345]"#,
    ])
    func whatIsWrittenReadsBackTheSame(_ text: String) throws {
        let value = try parse(text)
        #expect(try JSONParser.parse(value.jsonBytes) == value)
    }

    @Test func writesCompactTextWithTheEscapesJavaScriptNeeds() {
        let value: JSONValue = ["a": "x\"\u{7F}\u{2028}é", "n": .number(3), "f": .number(0.5), "z": .number(.infinity)]
        #expect(String(decoding: value.jsonBytes, as: UTF8.self) == #"{"a":"x\"\u007f\u2028é","n":3,"f":0.5,"z":null}"#)
    }
}
