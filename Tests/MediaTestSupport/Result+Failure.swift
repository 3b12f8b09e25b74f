extension Result {
    /// The error, for a failure.
    package var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
