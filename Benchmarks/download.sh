#!/usr/bin/env bash
# Measures `slipstream get` against curl, aria2c and axel on a local nginx, all in one run,
# and prints tables of wall seconds, CPU seconds, peak RSS, correctness and ratios.
#
#   Benchmarks/download.sh [--runs N] [--only a|b|c]
#
# (a) 1 GiB unthrottled: slipstream -n 1, -n 8 and -n 16 against curl and aria2c -x8 -s8.
# (b) 256 MiB at 20 MiB/s per connection (nginx limit_rate), N = 1, 4, 8, 16 connections,
#     against aria2c -xN -sN -k1M, axel -n N and the ideal time size / (N x rate).
# (c) stragglers: 256 MiB where one connection in five gets 1 MiB/s and the rest 20 MiB/s,
#     8 connections, against aria2c -x8 -s8 -k1M and axel -n 8.
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 3 "a|b|c" "$@"
bench_start bench

echo "making test files..." >&2
sha_1g=$(bench_random_file 1g.bin 1024)
sha_256m=$(bench_random_file 256m.bin 256)

if [[ -z "$only" || "$only" == a ]]; then
    echo "(a) 1 GiB unthrottled" >&2
    url="$base/files/1g.bin"
    clients=(
        "slipstream -n 1|$bin get -q --force -n 1 -o $out/file $url"
        "slipstream -n 8|$bin get -q --force -n 8 -o $out/file $url"
        "slipstream -n 16|$bin get -q --force -n 16 -o $out/file $url"
        "curl|curl -s -o $out/file $url"
        "aria2c -x8 -s8|$aria -x8 -s8 $url"
    )
    measure a "$sha_1g"
fi

if [[ -z "$only" || "$only" == b ]]; then
    echo "(b) 256 MiB at 20 MiB/s per connection" >&2
    url="$base/slow/256m.bin"
    for n in 1 4 8 16; do
        clients=(
            "slipstream -n $n|$bin get -q --force -n $n -o $out/file $url"
            "aria2c -x$n -s$n -k1M|$aria -x$n -s$n -k1M $url"
            "axel -n $n|axel -q -n $n -o $out/file $url"
        )
        measure "b$n" "$sha_256m"
    done
fi

if [[ -z "$only" || "$only" == c ]]; then
    echo "(c) stragglers: 256 MiB, one connection in five at 1 MiB/s" >&2
    url="$base/straggle/256m.bin"
    clients=(
        "slipstream -n 8|$bin get -q --force -n 8 -o $out/file $url"
        "aria2c -x8 -s8 -k1M|$aria -x8 -s8 -k1M $url"
        "axel -n 8|axel -q -n 8 -o $out/file $url"
    )
    measure c "$sha_256m"
fi

python3 Benchmarks/report.py "$results" --runs "$runs"
