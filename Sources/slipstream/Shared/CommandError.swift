/// A failure a command reports: one line for stderr, naming the URL or file, and the exit
/// status it ends with.
struct CommandError: Error {
    /// The exit status.
    var status: ExitStatus
    /// What went wrong, in one line.
    var message: String
}
