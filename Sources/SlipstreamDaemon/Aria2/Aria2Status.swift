/// One download as aria2's `tellStatus` tells it: the facts gathered from the queue (its
/// status, progress, outcome) and, asked for only when a key needs them, its live details.
/// `json(keys:)` writes aria2's struct: every number a string, `gid` 16 hex digits, `status`
/// one of active, waiting, paused, error, complete, removed.
struct Aria2Status {
    /// aria2's words for where a download is.
    enum Word: String {
        case active, waiting, paused, error, complete, removed
    }

    var gid: GID
    var word: Word
    var totalLength: Int64
    var completedLength: Int64
    var downloadSpeed: Double
    var connections: Int
    /// The folder it writes into.
    var dir: String
    /// The file's path, "" until known.
    var path: String
    var uris: [String]
    var errorCode: Int?
    var errorMessage: String?
    /// Where its pieces and connections come from, read only when a key asks for them.
    var details: Details

    /// Where a status's pieces come from.
    enum Details {
        /// The queue's download: asked when needed.
        case live(DownloadQueue, DownloadQueue.ID)
        /// Known already (an ended download's), or none.
        case fixed(DownloadDetails?)

        /// The details.
        func read() -> DownloadDetails? {
            switch self {
            case .live(let queue, let id): queue.details(of: id)
            case .fixed(let details): details
            }
        }
    }

    /// The keys whose values need `details`.
    private static let detailKeys: Set<String> = ["bitfield", "pieceLength", "numPieces"]

    /// The struct, with only `keys` when given (aria2's key filter; unknown keys are left out).
    func json(keys: Set<String>?) -> JSONValue {
        func wanted(_ key: String) -> Bool { keys?.contains(key) ?? true }
        let details = keys.map { !$0.isDisjoint(with: Self.detailKeys) } ?? true ? self.details.read() : nil
        var members: [(key: String, value: JSONValue)] = []
        func add(_ key: String, _ value: @autoclosure () -> JSONValue) {
            if wanted(key) { members.append((key, value())) }
        }
        add("gid", .string(gid.description))
        add("status", .string(word.rawValue))
        add("totalLength", Self.text(totalLength))
        add("completedLength", Self.text(completedLength))
        add("uploadLength", "0")
        if let details, details.numPieces > 0 { add("bitfield", .string(Self.hex(details.completedPieces))) }
        add("downloadSpeed", Self.text(Int64(downloadSpeed.rounded())))
        add("uploadSpeed", "0")
        add("pieceLength", Self.text(details?.pieceLength ?? DownloadDetails.defaultPieceLength))
        add("numPieces", Self.text(Int64(details?.numPieces ?? Self.pieceCount(totalLength))))
        add("connections", Self.text(Int64(connections)))
        if let errorCode {
            add("errorCode", Self.text(Int64(errorCode)))
            add("errorMessage", .string(errorMessage ?? ""))
        }
        add("dir", .string(dir))
        add("files", .array([file]))
        return .object(members)
    }

    /// Its one file, as `getFiles` and `files` give it.
    var file: JSONValue {
        [
            "index": "1", "path": .string(path), "length": Self.text(totalLength),
            "completedLength": Self.text(completedLength), "selected": "true", "uris": uriList,
        ]
    }

    /// Its URIs, as `getUris` gives them: "waiting" while the download waits, "used" once it
    /// has run (aria2's words).
    var uriList: JSONValue {
        let status: JSONValue = word == .waiting || word == .paused ? "waiting" : "used"
        return .array(uris.map { ["uri": .string($0), "status": status] })
    }

    private static func pieceCount(_ length: Int64) -> Int {
        Int((length + DownloadDetails.defaultPieceLength - 1) / DownloadDetails.defaultPieceLength)
    }

    static func text(_ number: Int64) -> JSONValue { .string(String(number)) }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lower-case hex, two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        var digits: [UInt8] = []
        digits.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            digits.append(hexDigits[Int(byte >> 4)])
            digits.append(hexDigits[Int(byte & 0xF)])
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
