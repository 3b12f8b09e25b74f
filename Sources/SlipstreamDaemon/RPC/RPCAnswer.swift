/// The answer to one call: its result or its error, with the call's id.
public enum RPCAnswer: Sendable, Equatable {
    /// The method's result.
    case result(JSONValue, id: JSONValue)
    /// The call failed.
    case failure(RPCFailure)

    /// The answer as a JSON-RPC 2.0 response object.
    public var json: JSONValue {
        switch self {
        case .result(let result, let id):
            ["id": id, "jsonrpc": "2.0", "result": result]
        case .failure(let failure):
            [
                "id": failure.id, "jsonrpc": "2.0",
                "error": ["code": .number(Double(failure.kind.code)), "message": .string(failure.kind.message)],
            ]
        }
    }

    /// The text of the answers to a request: one object, or an array for a batch (empty
    /// for an empty batch); nothing for a lone notification.
    public static func text(of answers: [RPCAnswer], batch: Bool) -> [UInt8] {
        if batch { return JSONValue.array(answers.map(\.json)).jsonBytes }
        return answers.first?.json.jsonBytes ?? []
    }

    /// The HTTP status aria2 answers with: 200, but 400 for one call that failed, 500 when
    /// the text was not JSON.
    public static func httpStatus(of answers: [RPCAnswer], batch: Bool) -> Int {
        guard !batch, case .failure(let failure)? = answers.first else { return 200 }
        return failure.kind == .parseError ? 500 : 400
    }
}
