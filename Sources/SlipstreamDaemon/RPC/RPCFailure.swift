/// A JSON-RPC error answer: a code, a message, and the id of the call it answers (null when
/// the call's id could not be read).
public struct RPCFailure: Error, Sendable, Equatable {
    /// An error's code and its standard message (thrown by the methods, answered with the
    /// call's id).
    public struct Kind: Error, Sendable, Equatable {
        /// The code: JSON-RPC's (-32700 to -32600) or aria2's (1 for a failed method).
        public var code: Int
        /// The message.
        public var message: String

        /// A kind of `code` with `message`.
        public init(code: Int, message: String) {
            self.code = code
            self.message = message
        }

        /// The text is not JSON.
        public static let parseError = Kind(code: -32700, message: "Parse error.")
        /// The JSON is not a request.
        public static let invalidRequest = Kind(code: -32600, message: "Invalid Request.")
        /// No method of that name.
        public static let methodNotFound = Kind(code: -32601, message: "Method not found.")
        /// The parameters are not what the method takes.
        public static let invalidParams = Kind(code: -32602, message: "Invalid params.")
        /// The secret is missing or wrong (aria2's code and message, which clients match).
        public static let unauthorized = Kind(code: 1, message: "Unauthorized")

        /// aria2's answer to a method that failed: code 1 and what went wrong.
        public static func failed(_ message: String) -> Kind { Kind(code: 1, message: message) }
    }

    /// The code and message.
    public var kind: Kind
    /// The id of the call answered.
    public var id: JSONValue

    /// A failure of `kind` answering `id`.
    public init(_ kind: Kind, id: JSONValue) {
        self.kind = kind
        self.id = id
    }
}
