import Testing

@testable import SlipstreamDaemon

@Suite struct RPCRequestTests {
    private func request(_ text: String) -> RPCRequest { RPCRequest.parse(Array(text.utf8)) }

    @Test func readsOneCall() throws {
        let parsed = request(#"{"jsonrpc":"2.0","id":"q","method":"aria2.tellStatus","params":["token:s","2089b05ecca3d829"]}"#)
        guard case .single(.success(let call)) = parsed else {
            Issue.record("not one call: \(parsed)")
            return
        }
        #expect(call.method == "aria2.tellStatus")
        #expect(call.params == ["token:s", "2089b05ecca3d829"])
        #expect(call.id == "q")
    }

    @Test func aCallWithoutAnIdIsInvalidAsAria2HasIt() {
        #expect(request(#"{"jsonrpc":"2.0","method":"aria2.getVersion"}"#) == .single(.failure(RPCFailure(.invalidRequest, id: .null))))
    }

    @Test func anEmptyBatchIsAnsweredByAnEmptyOne() {
        #expect(request("[]") == .batch([]))
        #expect(RPCAnswer.text(of: [], batch: true) == Array("[]".utf8))
    }

    @Test func aBatchReadsEachCallOnItsOwn() {
        guard case .batch(let calls) = request(#"[{"id":1,"method":"a"},{"id":2},{"id":3,"method":"c","params":{}}, 7]"#) else {
            Issue.record("not a batch")
            return
        }
        #expect(calls.count == 4)
        #expect((try? calls[0].get())?.method == "a")
        #expect(calls[1] == .failure(RPCFailure(.invalidRequest, id: .number(2))))
        #expect(calls[2] == .failure(RPCFailure(.invalidParams, id: .number(3))))
        #expect(calls[3] == .failure(RPCFailure(.invalidRequest, id: .null)))
    }

    @Test(arguments: [
        ("{", RPCFailure.Kind.parseError), ("7", .invalidRequest),
        (#"{"method":1,"id":1}"#, .invalidRequest), (#"{"method":"a","id":[1]}"#, .invalidRequest),
        (#"{"jsonrpc":"1.0","method":"a","id":1}"#, .invalidRequest),
    ])
    func aBadRequestIsOneFailure(_ text: String, _ kind: RPCFailure.Kind) {
        guard case .single(.failure(let failure)) = request(text) else {
            Issue.record("not a failure")
            return
        }
        #expect(failure.kind == kind)
    }

    @Test func aBatchIsBounded() {
        let many = "[" + Array(repeating: #"{"id":1,"method":"a"}"#, count: RPCRequest.maximumBatch + 1).joined(separator: ",") + "]"
        #expect(request(many) == .single(.failure(RPCFailure(.invalidRequest, id: .null))))
    }

    @Test func answersAreWrittenAsJSONRPCSays() {
        let answers: [RPCAnswer] = [.result("OK", id: .number(1)), .failure(RPCFailure(.unauthorized, id: "x"))]
        #expect(
            String(decoding: RPCAnswer.text(of: answers, batch: true), as: UTF8.self)
                == #"[{"id":1,"jsonrpc":"2.0","result":"OK"},{"id":"x","jsonrpc":"2.0","error":{"code":1,"message":"Unauthorized"}}]"#)
        #expect(RPCAnswer.text(of: [], batch: false).isEmpty)
        // aria2's statuses: 400 for one call that failed, 500 for text that is not JSON.
        #expect(RPCAnswer.httpStatus(of: answers, batch: true) == 200)
        #expect(RPCAnswer.httpStatus(of: [answers[1]], batch: false) == 400)
        #expect(RPCAnswer.httpStatus(of: [.failure(RPCFailure(.parseError, id: .null))], batch: false) == 500)
        #expect(RPCAnswer.httpStatus(of: [answers[0]], batch: false) == 200)
    }
}
