#!/usr/bin/env bash
# Mirrors benchmark: one file from two mirrors of very different speed, `slipstream get
# --same-file` against aria2c given both URLs, on a local nginx.
#
#   Benchmarks/mirrors.sh [--runs N]
#   SLIPSTREAM_BUILD_PATH=DIR  the build folder to use (default .build)
#
# (m) 256 MiB from two mirrors, nginx's /rate/ location at 20 MiB/s per connection (fast) and
#     at 2 MiB/s per connection (slow), 8 connections in all: slipstream with both (fast one
#     first, and slow one first), aria2c -x8 -s8 -k1M with both, and slipstream with the fast
#     mirror alone for reference (its ideal: 256 MiB / (8 x 20 MiB/s) = 1.6 s), all in the same
#     rounds; and the fast one beside a crawling one (128 KiB/s per connection, 160 times
#     slower), slipstream and aria2c. Targets: with both mirrors within 5% of the fast mirror
#     alone (a mirror must never make a download slower; report.py prints the ratio), and
#     faster than aria2c.
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 3 "m" "$@"
bench_start mirrors-bench

echo "making the test file..." >&2
sha=$(bench_random_file 256m.bin 256)

echo "(m) 256 MiB from a mirror at 20 MiB/s and one at 2 MiB/s per connection" >&2
fast="$base/rate/256m.bin?rate=20m"
slow="$base/rate/256m.bin?rate=2m"
crawling="$base/rate/256m.bin?rate=128k"
clients=(
    "slipstream fast+slow|$bin get -q --force -n 8 -o $out/file $fast $slow --same-file"
    "slipstream slow+fast|$bin get -q --force -n 8 -o $out/file $slow $fast --same-file"
    "slipstream fast+crawling|$bin get -q --force -n 8 -o $out/file $fast $crawling --same-file"
    "slipstream fast alone|$bin get -q --force -n 8 -o $out/file $fast"
    "aria2c -x8 -s8 -k1M|$aria -x8 -s8 -k1M $fast $slow"
    "aria2c fast+crawling|$aria -x8 -s8 -k1M $fast $crawling"
)
measure m "$sha"

python3 Benchmarks/report.py "$results" --runs "$runs"
