/// A key the player reacts to.
enum PlayerKey: Equatable {
    case togglePause, seekBack, seekForward, volumeUp, volumeDown, quit
}

/// Turns the bytes a terminal in raw mode sends into player keys: space, `q`/`Q`, the arrow
/// keys' escape sequences (`ESC [ A`..`D` and `ESC O A`..`D`), `p` for pause and `+`/`-` for the
/// volume. Other bytes are ignored. Pure; sequences may arrive split across reads.
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// The keys completed by `bytes`.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [PlayerKey] {
        var keys: [PlayerKey] = []
        for byte in bytes {
            if !pending.isEmpty {
                pending.append(byte)
                if pending.count == 2 {
                    if byte != UInt8(ascii: "[") && byte != UInt8(ascii: "O") { pending.removeAll() }
                    continue
                }
                switch byte {
                case UInt8(ascii: "A"): keys.append(.volumeUp)
                case UInt8(ascii: "B"): keys.append(.volumeDown)
                case UInt8(ascii: "C"): keys.append(.seekForward)
                case UInt8(ascii: "D"): keys.append(.seekBack)
                default: break
                }
                pending.removeAll()
                continue
            }
            switch byte {
            case 0x1B: pending = [byte]
            case UInt8(ascii: " "), UInt8(ascii: "p"): keys.append(.togglePause)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
            case UInt8(ascii: "+"), UInt8(ascii: "="): keys.append(.volumeUp)
            case UInt8(ascii: "-"): keys.append(.volumeDown)
            default: break
            }
        }
        return keys
    }
}
