#!/usr/bin/env bash
# Standard output benchmark: `slipstream get -o -` into a pipe against the same download to a
# file and against `curl -o -`, on a link limited per connection (Benchmarks/connlimit.py: each
# TCP connection at a steady rate over all its requests; nginx's limit_rate holds each request,
# and -o - asks for many small ranges on each connection).
#
#   Benchmarks/stdout.sh [--runs N]
#   SLIPSTREAM_BUILD_PATH=DIR  the build folder to use (default .build)
#
# (o) 256 MiB at 20 MiB/s per connection, 8 connections: slipstream to a file (-o FILE),
#     slipstream -o - | cat > FILE (the bytes in order through a pipe, through its 32 MiB
#     reorder buffer), curl -o - | cat > FILE (one connection: 12.8 s at best). Target:
#     -o - at least 90% of the speed to a file.
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 3 "o" "$@"
bench_start stdout-bench

echo "making the test file..." >&2
sha=$(bench_random_file 256m.bin 256)

echo "(o) 256 MiB at 20 MiB/s per connection, to a file and through a pipe" >&2
python3 Benchmarks/connlimit.py "$files" $((20 << 20)) > "$work/port" &
limiter=$!
trap 'kill $limiter 2>/dev/null; nginx_stop; rm -rf "$work"' EXIT
until [[ -s "$work/port" ]]; do sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")/256m.bin"
# The pipelines as scripts of their own (a client is a command split on spaces).
printf '%s\n' "set -o pipefail; \"$bin\" get -q -n 8 -o - '$url' | cat > $out/file" > "$work/slipstream-pipe.sh"
printf '%s\n' "set -o pipefail; curl -s -o - '$url' | cat > $out/file" > "$work/curl-pipe.sh"
clients=(
    "slipstream -o FILE|$bin get -q --force -n 8 -o $out/file $url"
    "slipstream -o - (pipe)|bash $work/slipstream-pipe.sh"
    "curl -o - (pipe)|bash $work/curl-pipe.sh"
)
measure o "$sha"

python3 Benchmarks/report.py "$results" --runs "$runs"
