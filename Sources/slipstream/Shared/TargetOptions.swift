import SlipstreamHTTP

/// The options of a command that takes one URL or local file (`info`, `play`): the shared part
/// of their parsing. Pure.
protocol TargetOptions {
    /// The command's name, for messages.
    static var command: String { get }
    init()
    /// The URL or file.
    var target: String? { get set }
    /// Print the help and do nothing else.
    var help: Bool { get }
    /// The proxy for a URL.
    var proxy: String? { get }
    /// Extra request headers for a URL.
    var headers: HTTPHeaders { get }
    /// TLS trust, login and cookies for a URL.
    var access: AccessOptions { get }
    /// Takes option `name` (with its inline value, or the next argument from `reader`).
    mutating func apply(_ name: String, inline: String?, reader: inout CommandLineArguments) throws(UsageError)
}

extension TargetOptions {
    /// Parses the arguments after the command's name: one URL or file and the options.
    static func parse(_ arguments: [String]) throws(UsageError) -> Self {
        var options = Self()
        var reader = CommandLineArguments(arguments)
        while let token = reader.next() {
            switch token {
            case .positional(let value):
                guard options.target == nil else {
                    throw UsageError("only one URL or file, please (got '\(options.target!)' and '\(value)')")
                }
                options.target = value
            case .option(let name, let inline):
                try options.apply(name, inline: inline, reader: &reader)
            }
        }
        if !options.help, options.target == nil { throw UsageError("\(command) needs a URL or a file") }
        if !options.isURL, options.proxy != nil || options.headers.count > 0 || options.access.isSet {
            throw UsageError(
                "--proxy, -H and the TLS, login and cookie options apply to a URL, not to the file '\(options.target ?? "")'")
        }
        return options
    }

    /// Whether the target is a URL rather than a file: it has a scheme (`http://`, or any
    /// other, which the HTTP engine then refuses with a clear error).
    var isURL: Bool { target?.contains("://") ?? false }
}
