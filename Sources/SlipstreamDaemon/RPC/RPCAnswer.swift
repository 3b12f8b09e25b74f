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

    /// The text of the answers to a request: one object, an array for a batch, or nothing
    /// (empty) when every call was a notification.
    public static func text(of answers: [RPCAnswer], batch: Bool) -> [UInt8] {
        if batch { return answers.isEmpty ? [] : JSONValue.array(answers.map(\.json)).jsonBytes }
        return answers.first?.json.jsonBytes ?? []
    }
}
