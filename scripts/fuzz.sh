#!/usr/bin/env bash
# Fuzzes the audio stream parser with libFuzzer for SECONDS (default 600), in one process.
#   scripts/fuzz.sh [SECONDS]
# Builds Fuzz/AudioParserFuzzer.swift together with Sources/SlipstreamAudio as one module with
# -sanitize=fuzzer,address, seeds a corpus with the first 64 KiB of each audio fixture
# (scripts/make-audio-fixtures.sh), and runs with a per-input timeout and a memory limit, so
# crashes, broken invariants, hangs and memory blow-ups all stop the run with a saved input.
# Everything it writes stays in FUZZ_DIR (default /tmp/slipstream-fuzz, outside the repository):
# audio-parser-fuzzer the binary, seeds/ the fixture heads,
# corpus/ the inputs worth keeping (reused by the next run), crashes/ the failing inputs,
# fixtures/ the generated fixtures. Replay a saved input with: FUZZ_DIR/audio-parser-fuzzer FILE
set -euo pipefail

seconds="${1:-600}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${FUZZ_DIR:-/tmp/slipstream-fuzz}"
swiftc="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"
mkdir -p "$dir/corpus" "$dir/crashes" "$dir/seeds"

# One module from the fuzzer and the parser's sources; -O, with the sanitizers' checks on top.
mapfile -t sources < <(find "$repo/Sources/SlipstreamAudio" -name '*.swift' | sort)
"$swiftc" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 \
    -module-name SlipstreamAudio -warnings-as-errors -use-ld=lld \
    "$repo/Fuzz/AudioParserFuzzer.swift" "${sources[@]}" -o "$dir/audio-parser-fuzzer"

# Seeds: the first 64 KiB of every fixture (the head holds the tags, headers and first frames).
"$repo/scripts/make-audio-fixtures.sh" "$dir/fixtures"
for file in "$dir"/fixtures/*.{mp3,mp2,aac,wav}; do
    head -c 65536 "$file" > "$dir/seeds/$(basename "$file")"
done

# -timeout: seconds per input before it counts as a hang; -rss_limit_mb / -malloc_limit_mb:
# memory before it counts as a blow-up. Crash inputs go to crashes/ (artifact_prefix). Swift's
# own backtracer is off: it fights ASan over a crashing process, and libFuzzer reports anyway.
SWIFT_BACKTRACE=enable=no \
"$dir/audio-parser-fuzzer" "$dir/corpus" "$dir/seeds" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$dir/crashes/"
