#!/usr/bin/env bash
# Rate limit benchmark: how closely `slipstream get --limit-rate 8M` holds 8 MiB/s on a local
# nginx, against curl --limit-rate 8M and aria2c --max-overall-download-limit=8M.
#
#   Benchmarks/ratelimit.sh [--runs N]
#   SLIPSTREAM_BUILD_PATH=DIR  the build folder to use (default .build)
#
# (r) 64 MiB at 8 MiB/s: the ideal is 8.00 s; the target is within 5% (7.6-8.4 s). slipstream
#     with 1 and 8 connections (the 8 share one limit), curl, aria2c -x8 -s8 -k1M.
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 3 "r" "$@"
bench_start ratelimit-bench

echo "making the test file..." >&2
sha=$(bench_random_file 64m.bin 64)

echo "(r) 64 MiB at --limit-rate 8M" >&2
url="$base/files/64m.bin"
clients=(
    "slipstream -n 1|$bin get -q --force -n 1 --limit-rate 8M -o $out/file $url"
    "slipstream -n 8|$bin get -q --force -n 8 --limit-rate 8M -o $out/file $url"
    "curl|curl -s --limit-rate 8M -o $out/file $url"
    "aria2c -x8 -s8 -k1M|$aria -x8 -s8 -k1M --max-overall-download-limit=8M $url"
)
measure r "$sha"

python3 Benchmarks/report.py "$results" --runs "$runs"
