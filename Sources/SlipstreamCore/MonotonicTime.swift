import Glibc

/// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`), and sleeping until one of them.
package enum MonotonicTime {
    /// Now, in nanoseconds since an arbitrary start.
    package static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Blocks the calling thread until `deadline` (nanoseconds, as `now()`) has passed.
    package static func sleep(until deadline: Int64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }

    /// The nanoseconds that `frames` last at `rate` frames per second, held to 64 bits (a
    /// count from outside, as an Ogg granule, may be absurd; it never traps).
    package static func nanoseconds(frames: Int64, rate: Int) -> Int64 {
        Int64(clamping: Int128(frames) * 1_000_000_000 / Int128(rate))
    }

    /// The whole frames at `rate` frames per second that fit in `nanoseconds`, held to 64 bits.
    package static func frames(nanoseconds: Int64, rate: Int) -> Int64 {
        Int64(clamping: Int128(nanoseconds) * Int128(rate) / 1_000_000_000)
    }
}
