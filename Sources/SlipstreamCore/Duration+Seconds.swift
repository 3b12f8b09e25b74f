extension Duration {
    /// The duration in seconds, as a `Double`, for any duration (`components` traps on one
    /// of more than 2^63 seconds, which a caller can make).
    package var seconds: Double {
        self / .seconds(1)
    }
}
