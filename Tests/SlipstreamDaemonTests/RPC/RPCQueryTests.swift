import Testing

@testable import SlipstreamDaemon

@Suite struct RPCQueryTests {
    @Test func readsMethodIdAndBase64Params() {
        // ["token:a+b?",1] in base64 has a '+', which the server's decoding turned into a space.
        let query = RPCQuery(arguments: [
            ("method", "aria2.tellWaiting"), ("id", "7"), ("params", "WyJ0b2tlbjphK2I/IiwxXQ=="),
        ])
        #expect(query.request == .single(.success(RPCCall(method: "aria2.tellWaiting", params: ["token:a+b?", .number(1)], id: "7"))))
        let spaced = RPCQuery(arguments: [
            ("method", "aria2.tellWaiting"), ("id", "1"), ("params", "WyJ0b2tlbjphK2I/IiwxXQ==".replacing("+", with: " ")),
        ])
        #expect(spaced.request == query.request.withID("1"))
    }

    @Test func withoutAMethodTheParamsAreABatch() {
        // [{"method":"aria2.getVersion","id":1}]
        let query = RPCQuery(arguments: [("params", "W3sibWV0aG9kIjoiYXJpYTIuZ2V0VmVyc2lvbiIsImlkIjoxfV0=")])
        #expect(query.request == .batch([.success(RPCCall(method: "aria2.getVersion", params: [], id: .number(1)))]))
    }

    @Test func jsonpWrapsTheAnswerAndRefusesABadCallbackName() {
        let query = RPCQuery(arguments: [("method", "aria2.getVersion"), ("id", "1"), ("jsoncallback", "jQuery_1.cb$")])
        #expect(query.contentType == "text/javascript")
        #expect(String(decoding: query.body(Array("{}".utf8)), as: UTF8.self) == "jQuery_1.cb$({})")
        for bad in ["alert(1)//", "1a", "", "a b", "a;b", String(repeating: "a", count: 129)] {
            let refused = RPCQuery(arguments: [("method", "m"), ("jsoncallback", bad)])
            #expect(refused.callback == nil, "\(bad)")
            #expect(refused.contentType == "application/json-rpc")
        }
    }

    @Test(arguments: ["%%%", "WyJh", "e30=", "W10===", "W1=0"])
    func badParamsAreAFailure(_ params: String) {
        let query = RPCQuery(arguments: [("method", "m"), ("id", "1"), ("params", params)])
        guard case .single(.failure) = query.request else {
            Issue.record("\(params) was read as \(query.request)")
            return
        }
    }

    @Test func base64DecodesWithOrWithoutPadding() {
        #expect(Base64.decode("YWJj") == Array("abc".utf8))
        #expect(Base64.decode("YWI=") == Array("ab".utf8))
        #expect(Base64.decode("YWI") == Array("ab".utf8))
        #expect(Base64.decode("YQ==") == Array("a".utf8))
        #expect(Base64.decode("YR==") == nil)
        #expect(Base64.decode("Y") == nil)
        #expect(Base64.decode("") == [])
    }
}

extension RPCRequest {
    fileprivate func withID(_ id: JSONValue) -> RPCRequest {
        guard case .single(.success(var call)) = self else { return self }
        call.id = id
        return .single(.success(call))
    }
}
