import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

// Seeds: the first pages of the Ogg files in the folder SLIPSTREAM_FUZZ_OGG names (scripts/fuzz.sh
// makes them with oggenc and opusenc), as page scripts.
runFuzzer(seeds: oggSeeds(), fuzzOggParser)

/// The scripts of the first 16 KiB of pages of every file in `SLIPSTREAM_FUZZ_OGG`.
func oggSeeds() -> [[UInt8]] {
    guard let folder = getenv("SLIPSTREAM_FUZZ_OGG").map({ String(cString: $0) }), let directory = opendir(folder) else { return [] }
    defer { closedir(directory) }
    var seeds: [[UInt8]] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard !name.hasPrefix("."), let file = fopen(folder + "/" + name, "rb") else { continue }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        fclose(file)
        seeds.append(OggPageScript.script(of: bytes, limit: 16 << 10))
    }
    return seeds
}
