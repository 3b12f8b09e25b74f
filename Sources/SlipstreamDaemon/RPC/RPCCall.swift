/// One call of a JSON-RPC 2.0 request: the method, its positional parameters and the id its
/// answer carries (none for a notification, which gets no answer).
public struct RPCCall: Sendable, Equatable {
    /// The method's name, e.g. `aria2.addUri`.
    public var method: String
    /// The parameters, in order (aria2's methods take positional parameters only).
    public var params: [JSONValue]
    /// The id to answer with. A call read from JSON always has one (as aria2, which answers a
    /// call without an id as an invalid request); nil makes a notification, answered by nothing.
    public var id: JSONValue?

    /// A call of `method`.
    public init(method: String, params: [JSONValue] = [], id: JSONValue? = .number(1)) {
        self.method = method
        self.params = params
        self.id = id
    }

    /// Reads one call from a request object; a failure carries the id when the object had one.
    static func read(_ value: JSONValue) -> Result<RPCCall, RPCFailure> {
        guard value.isObject else { return .failure(RPCFailure(.invalidRequest, id: .null)) }
        let id = value["id"]
        if let id {
            switch id {
            case .string, .number, .null: break
            default: return .failure(RPCFailure(.invalidRequest, id: .null))
            }
        }
        if let version = value["jsonrpc"], version != "2.0" {
            return .failure(RPCFailure(.invalidRequest, id: id ?? .null))
        }
        guard let method = value["method"]?.string else { return .failure(RPCFailure(.invalidRequest, id: id ?? .null)) }
        // As aria2: a call needs an id (it answers no notifications).
        guard id != nil else { return .failure(RPCFailure(.invalidRequest, id: .null)) }
        let params: [JSONValue]
        switch value["params"] {
        case nil: params = []
        case .array(let elements)?: params = elements
        default: return .failure(RPCFailure(.invalidParams, id: id ?? .null))
        }
        return .success(RPCCall(method: method, params: params, id: id))
    }
}
