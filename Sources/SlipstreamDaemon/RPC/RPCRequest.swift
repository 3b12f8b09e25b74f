/// A JSON-RPC 2.0 request as the daemon receives it: one call or a batch (an array of calls),
/// each read on its own so that one bad call in a batch fails alone.
public enum RPCRequest: Sendable, Equatable {
    /// One call (or the failure to read it).
    case single(Result<RPCCall, RPCFailure>)
    /// A batch: each element a call or the failure to read it.
    case batch([Result<RPCCall, RPCFailure>])

    /// The most calls in one batch: a bound on the work one request asks for (aria2's clients
    /// send one call per download in a batch: 10,000 is far above any of them).
    public static let maximumBatch = 10_000

    /// Reads a request from its JSON text: a parse error or an empty or oversized batch is one
    /// failed call with a null id.
    public static func parse(_ bytes: [UInt8]) -> RPCRequest {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            return .single(.failure(RPCFailure(.parseError, id: .null)))
        }
        return read(value)
    }

    /// Reads a request from a parsed JSON value.
    static func read(_ value: JSONValue) -> RPCRequest {
        guard case .array(let elements) = value else { return .single(RPCCall.read(value)) }
        // An empty batch is answered by an empty one, as aria2 answers it.
        guard elements.count <= maximumBatch else { return .single(.failure(RPCFailure(.invalidRequest, id: .null))) }
        return .batch(elements.map(RPCCall.read))
    }
}
