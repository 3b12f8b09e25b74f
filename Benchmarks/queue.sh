#!/usr/bin/env bash
# Measures many small downloads: 1000 files of 64 KiB from the local nginx, 16 at a time, with
# `slipstream get -i LIST -j 16` against `aria2c -i LIST -j 16` and
# `curl --parallel --parallel-max 16`, and prints a table of wall seconds, CPU seconds, peak
# RSS, correctness (every file, by name and content) and ratios.
#
#   Benchmarks/queue.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 3 "q" "$@"
bench_start queue

echo "making 1000 files of 64 KiB..." >&2
mkdir -p "$files/q"
list="$work/list.txt"
: > "$list"
urls=()
for i in $(seq -w 1 1000); do
    head -c $((64 << 10)) /dev/urandom > "$files/q/f$i.bin"
    echo "$base/files/q/f$i.bin" >> "$list"
    urls+=("$base/files/q/f$i.bin")
done
sync

# The digest of every file's name and content, in name order.
tree_digest() {
    (cd "$1" && find . -type f | sort | xargs sha256sum) | sha256sum | cut -d' ' -f1
}
bench_digest() {
    tree_digest "$out" 2>/dev/null || true
}
sha=$(tree_digest "$files/q")

echo "(q) 1000 files of 64 KiB, 16 at a time" >&2
clients=(
    "slipstream -j 16|$bin get -q -i $list -j 16 -d $out"
    "aria2c -j 16|aria2c -q -i $list -j 16 -d $out --allow-overwrite=true --auto-file-renaming=false --file-allocation=falloc --summary-interval=0"
    "curl --parallel-max 16|curl -s --parallel --parallel-max 16 --output-dir $out --remote-name-all ${urls[*]}"
)
measure q "$sha"

python3 Benchmarks/report.py "$results" --runs "$runs"
