/// Whether logins are looked up in a `.netrc` file, by the host of each connection.
public enum NetrcUse: Sendable, Equatable {
    /// No `.netrc` file is read (the default).
    case off
    /// `~/.netrc`, when it exists; a login given in `Credentials` wins.
    case defaultFile
    /// The file at this path; a login given in `Credentials` wins.
    case file(String)
}
