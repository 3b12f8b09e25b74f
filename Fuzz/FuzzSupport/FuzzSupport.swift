// What every fuzz target shares: libFuzzer's driver, the crash that makes libFuzzer keep an
// input, and a seeded generator (so a saved input replays exactly).

import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with `test` as the function it fuzzes: called from a fuzz target's
/// `main.swift`, with libFuzzer's flags and corpus folders on the command line. `test` gets
/// each input (nil and 0 for the empty one) and returns 0.
///
/// When the environment variable `SLIPSTREAM_FUZZ_SEEDS` names a folder, it writes `seeds`
/// there instead (`seed-1`, `seed-2`, ...) and exits: `scripts/fuzz.sh` makes each target's
/// first inputs so, from values the target builds with the code it fuzzes (nothing binary is
/// committed, and a seed never goes stale when a format changes).
public func runFuzzer(seeds: @autoclosure () -> [[UInt8]], _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32)
    -> Never
{
    if let folder = getenv("SLIPSTREAM_FUZZ_SEEDS").map({ String(cString: $0) }), !folder.isEmpty {
        for (index, seed) in seeds().enumerated() {
            let path = folder + "/seed-\(index + 1)"
            guard let file = fopen(path, "wb"), fwrite(seed, 1, seed.count, file) == seed.count, fclose(file) == 0 else {
                fatalError("cannot write \(path)")
            }
        }
        exit(0)
    }
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// Crashes with `message` unless `condition` holds; unlike `precondition`, the message is
/// printed in an optimised build too. libFuzzer saves the input that made it crash.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, copied into an array.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

extension Result {
    /// The error, if this is a failure.
    public var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
