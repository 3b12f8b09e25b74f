/// A command given to `--on-complete` or `--on-error`: its words, split as a shell splits a
/// simple command (blanks separate words; '...' keeps everything, "..." keeps all but \" and
/// \\ escapes, a backslash outside quotes keeps the next character), but never run by a
/// shell: the download's path, URL and status reach it only in its environment. Pure.
struct HookCommand: Equatable, Sendable {
    /// The program (looked up on the PATH when it has no slash) and its arguments.
    var words: [String]

    /// Splits `text`; fails on an unclosed quote or no words at all.
    init(parsing text: String, for option: String) throws(UsageError) {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                if quote == "\"", character != "\"", character != "\\" { word.append("\\") }
                word.append(character)
                escaped = false
                continue
            }
            switch (quote, character) {
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case ("'", _):
                word.append(character)
            case (_, "\\"):
                escaped = true
                inWord = true
            case (nil, "'"), (nil, "\""):
                quote = character
                inWord = true
            case (nil, " "), (nil, "\t"), (nil, "\n"):
                if inWord { words.append(word) }
                word = ""
                inWord = false
            default:
                word.append(character)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { throw UsageError("\(option): the command has an unclosed quote or a trailing \\") }
        if inWord { words.append(word) }
        guard !words.isEmpty else { throw UsageError("\(option) needs a command") }
        self.words = words
    }
}
