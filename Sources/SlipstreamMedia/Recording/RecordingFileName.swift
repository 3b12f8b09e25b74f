/// File names for a recording's files, made from radio titles (text a station chose): no `/`,
/// no NUL or other control character, no invisible direction overrides, no leading dot (no
/// hidden files, no `.` or `..`), and short enough for the 255 bytes a Linux file name may
/// have, with room for a numeric suffix and an extension. Pure.
package enum RecordingFileName {
    /// The longest base name, in UTF-8 bytes.
    package static let maximumBaseBytes = 200
    /// The base name when a label leaves nothing.
    package static let untitled = "untitled"

    /// `label` made safe as the base of a file name: `/` becomes `-`; control characters,
    /// direction overrides and any kind of space become one plain space between words; leading
    /// dots and spaces and trailing spaces go; cut at a character boundary to
    /// `maximumBaseBytes`. `untitled` when nothing is left.
    package static func base(_ label: String) -> String {
        var cleaned = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in label.unicodeScalars {
            if isSeparator(scalar) {
                pendingSpace = !cleaned.isEmpty
                continue
            }
            if cleaned.isEmpty, scalar == "." { continue }
            if pendingSpace {
                cleaned.append(" ")
                pendingSpace = false
            }
            cleaned.append(scalar == "/" ? "-" : scalar)
        }
        var result = ""
        var bytes = 0
        for character in String(cleaned) {
            bytes += character.utf8.count
            guard bytes <= maximumBaseBytes else { break }
            result.append(character)
        }
        while result.last == " " { result.removeLast() }
        return result.isEmpty ? untitled : result
    }

    /// The `attempt`-th name (from 1) to try for `base`: `base.ext`, then `base (2).ext`,
    /// `base (3).ext` ...
    package static func name(base: String, fileExtension: String, attempt: Int) -> String {
        attempt <= 1 ? "\(base).\(fileExtension)" : "\(base) (\(attempt)).\(fileExtension)"
    }

    /// Control characters (C0, DEL, C1), spaces of every kind, and the bidirectional
    /// overrides and isolates that make a name read other than it is.
    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: scalar.properties.isWhitespace
        }
    }
}
