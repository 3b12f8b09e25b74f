// The libFuzzer target for what the daemon reads from its clients: JSON-RPC requests as JSON
// text (POST bodies and WebSocket messages, `RPCRequest.parse`), their GET form (`RPCQuery`),
// and the calls answered by aria2's option reader, and the Range header of a stream's request
// (`RangeRequest`). Text that parses must survive being written and read back; a range answered
// lies inside the file; nothing may crash or hang.

import FuzzSupport
@testable import SlipstreamDaemon

/// The input is a request's bytes (invalid UTF-8 included, as a client may send it).
func fuzzRPCRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzInput(data, size)
    if let value = try? JSONParser.parse(bytes) {
        let written = value.jsonBytes
        guard let again = try? JSONParser.parse(written) else {
            fatalError("the value as written does not read back: \(String(decoding: written, as: UTF8.self))")
        }
        require(again == value, "the value read back differs")
        require(again.jsonBytes == written, "writing the value twice gives two texts")
        // Every object it holds, read as a call's options, is refused or read without a crash.
        if let members = value.members { _ = try? Aria2Options(.object(members)) }
    } else {
        do {
            _ = try JSONParser.parse(bytes)
        } catch {
            require(error.offset >= 0 && error.offset <= bytes.count && !error.message.isEmpty, "a useless error: \(error)")
        }
    }
    switch RPCRequest.parse(bytes) {
    case .single: break
    case .batch(let calls): require(calls.count <= RPCRequest.maximumBatch, "a batch of \(calls.count)")
    }
    // The same bytes as a GET's arguments: split at '&' and '='.
    let text = String(decoding: bytes, as: UTF8.self)
    let arguments = text.split(separator: "&").map { pair -> (name: String, value: String) in
        let parts = pair.split(separator: "=", maxSplits: 1)
        return (String(parts.first ?? ""), parts.count > 1 ? String(parts[1]) : "")
    }
    let query = RPCQuery(arguments: arguments)
    if let callback = query.callback { require(RPCQuery.isCallbackName(callback), "a callback that is not a name") }
    // The same text as a stream request's Range header, for files of a few sizes.
    for size: Int64? in [nil, 0, 1, 1000, Int64.max] {
        switch RangeRequest(header: text, size: size) {
        case .whole: break
        case .part(let range):
            require(
                size.map { !range.isEmpty && range.lowerBound >= 0 && range.upperBound <= $0 } ?? false,
                "\(range) of \(String(describing: size))")
        case .unsatisfiable:
            require(size != nil, "a file of unknown size told unsatisfiable")
        }
    }
    return 0
}

/// First inputs: what aria2's clients send.
let rpcSeeds: [[UInt8]] = [
    #"{"jsonrpc":"2.0","id":"qwer","method":"aria2.addUri","params":["token:s",["http://127.0.0.1/a"],{"dir":"x","split":"4"}]}"#,
    #"[{"jsonrpc":"2.0","id":1,"method":"aria2.tellActive","params":["token:s",["gid","status"]]},{"id":2,"method":"aria2.getGlobalStat"}]"#,
    #"{"jsonrpc":"2.0","id":1,"method":"system.multicall","params":[[{"methodName":"aria2.getVersion","params":["token:s"]}]]}"#,
    #"{"a":[1,-2.5e3,true,null,"\ud83d\ude00\n"],"b":{}}"#,
    "method=aria2.getVersion&id=1&params=WyJ0b2tlbjpzIl0=&jsoncallback=cb",
    "params=W3sibWV0aG9kIjoiYXJpYTIuZ2V0VmVyc2lvbiIsImlkIjoxfV0=",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    "bytes=0-499, -500, 9223372036854775806-",
].map { Array($0.utf8) }
