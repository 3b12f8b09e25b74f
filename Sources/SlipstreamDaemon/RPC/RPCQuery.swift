/// aria2's GET form of a request: `GET /jsonrpc?method=M&id=ID&params=BASE64` (params: the
/// base64 of the JSON array of parameters), or without `method` a batch, `params` being the
/// base64 of the JSON array of request objects; `jsoncallback=NAME` asks for JSONP (the
/// answer wrapped in `NAME(...)`, served as JavaScript). Pure: arguments in, request out.
public struct RPCQuery: Sendable, Equatable {
    /// The request the arguments make.
    public var request: RPCRequest
    /// The JSONP function to call with the answer, when asked for.
    public var callback: String?

    /// Reads the query's arguments, as the server decoded them (a `+` already turned into a
    /// space: base64 has no spaces, so a space is put back as `+`).
    public init(arguments: [(name: String, value: String)]) {
        func argument(_ name: String) -> String? { arguments.first { $0.name == name }?.value }
        callback = argument("jsoncallback").flatMap { Self.isCallbackName($0) ? $0 : nil }
        guard let encoded = argument("params") ?? (argument("method") != nil ? "" : nil) else {
            request = .single(.failure(RPCFailure(.invalidRequest, id: .null)))
            return
        }
        let params: JSONValue
        if encoded.isEmpty {
            params = .array([])
        } else {
            // As aria2: params that are not base64 of JSON make an invalid request.
            guard let bytes = Base64.decode(encoded.replacing(" ", with: "+")), let value = try? JSONParser.parse(bytes) else {
                request = .single(.failure(RPCFailure(.invalidRequest, id: .null)))
                return
            }
            params = value
        }
        guard let method = argument("method") else {
            request = RPCRequest.read(params)
            return
        }
        let id: JSONValue = argument("id").map { .string($0) } ?? .null
        guard case .array(let elements) = params else {
            request = .single(.failure(RPCFailure(.invalidParams, id: id)))
            return
        }
        request = .single(.success(RPCCall(method: method, params: elements, id: id)))
    }

    /// The answer's body: the JSON, or `NAME(JSON)` for JSONP.
    public func body(_ json: [UInt8]) -> [UInt8] {
        guard let callback else { return json }
        return Array(callback.utf8) + [UInt8(ascii: "(")] + json + [UInt8(ascii: ")")]
    }

    /// The answer's type (aria2's for JSON).
    public var contentType: String { callback == nil ? "application/json-rpc" : "text/javascript" }

    /// A JSONP callback is a JavaScript name (letters, digits, `_`, `$`, `.`), at most 128
    /// characters: anything else could inject script into the answer.
    static func isCallbackName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128, let first = name.utf8.first, !(0x30...0x39).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }
}
