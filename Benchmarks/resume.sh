#!/usr/bin/env bash
# Resume and stall benchmarks for `slipstream get` against aria2c and axel on a local nginx.
#
#   Benchmarks/resume.sh [--runs N] [--only a|b]
#   SLIPSTREAM_BUILD_PATH=DIR  the build folder to use (default .build)
#
# (a) resume overhead: 256 MiB at 1.25 MiB/s per connection, 8 connections (about 26 s),
#     killed with SIGKILL up to 10 times at seeded random moments 0.5-4 s into each run and
#     resumed with the same command until done; bytes fetched in total (nginx's access log,
#     body_bytes_sent) against the size. The same kill sequence for aria2c -c -x8 -s8 -k1M.
# (b) stragglers plus full stalls: 256 MiB from nginx's /stall/ location, where one connection
#     in ten (client port: tens digit odd, last digit 6 or 7) gets limit_rate 1 (not even the
#     response head arrives), one in five (port ending in 0 or 5) 1 MiB/s and the rest 20 MiB/s;
#     8 connections, wall time: slipstream with --stall-timeout 5 and with its default (20 s),
#     aria2c -x8 -s8 -k1M and axel -n 8 at their defaults, each peer stopped after 300 s
#     (axel can wait for a stalled connection for ever; a stopped run counts as failed).
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 1 "a|b" "$@"
bench_start resume-bench

echo "making the test file..." >&2
head -c $((256 << 20)) /dev/urandom > "$files/256m.bin"
sync
sha=$(sha256sum "$files/256m.bin" | cut -d' ' -f1)
aria="aria2c -q --allow-overwrite=true --auto-file-renaming=false --file-allocation=falloc --summary-interval=0"

# killed CLIENT PATH COMMAND...: runs COMMAND (which downloads $base/rate/PATH to $out/file) in
# $out, kills it with SIGKILL after each of the seeded delays and starts it again (unless it
# has finished by then), then lets the last run finish; prints a markdown row: kills that hit
# a running download, wall seconds in total, bytes fetched, the ratio to the size, sha256 ok.
killed() {
    local client="$1" path="$2"
    shift 2
    rm -rf "$out" && mkdir -p "$out"
    local before started delay pid status=0 kills=0
    before=$(awk -v p="/rate/$path" 'index($7, p) == 1 { s += $10 } END { print s + 0 }' "$work/access.log")
    started=$(date +%s.%N)
    RANDOM=42
    for _ in $(seq 1 10); do
        delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.5 + 3.5 * r / 32767 }')
        (cd "$out" && exec "$@" >/dev/null 2>&1) &
        pid=$!
        sleep "$delay"
        kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1))
        wait "$pid" 2>/dev/null || true
        [[ -f "$out/file" && ! -e "$out/file.part" && ! -e "$out/file.aria2" ]] && break
    done
    if [[ ! -f "$out/file" || -e "$out/file.part" || -e "$out/file.aria2" ]]; then
        (cd "$out" && "$@" >/dev/null 2>&1) || status=$?
    fi
    local wall fetched ok=0
    wall=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    sleep 1  # the last requests of killed runs are logged when nginx notices the closed socket
    fetched=$(awk -v p="/rate/$path" 'index($7, p) == 1 { s += $10 } END { print s + 0 }' "$work/access.log")
    fetched=$((fetched - before))
    [[ $status -eq 0 && "$(sha256sum "$out/file" | cut -d' ' -f1)" == "$sha" ]] && ok=1
    printf '| %s | %s | %s | %.1f | %.3fx | %s |\n' "$client" "$kills" "$wall" \
        "$(awk -v f="$fetched" 'BEGIN { print f / 1048576 }')" "$(awk -v f="$fetched" 'BEGIN { print f / (256 * 1048576) }')" "$ok"
}

if [[ -z "$only" || "$only" == a ]]; then
    echo "(a) resume overhead: 10 x kill -9 of 256 MiB at 8 x 1.25 MiB/s" >&2
    # Each client has its own name for the same bytes, so the access log tells them apart.
    ln "$files/256m.bin" "$files/a-slipstream.bin"
    ln "$files/256m.bin" "$files/a-aria2c.bin"
    rows=()
    for _ in $(seq 1 "$runs"); do
        rows+=("$(killed "slipstream -n 8" a-slipstream.bin \
            "$bin" get -q -n 8 -o file "$base/rate/a-slipstream.bin?rate=1280k")")
        rows+=("$(killed "aria2c -c -x8 -s8 -k1M" a-aria2c.bin \
            $aria -c -x8 -s8 -k1M -d . -o file "$base/rate/a-aria2c.bin?rate=1280k")")
    done
    {
        echo "### (a) resume overhead: 256 MiB, 8 x 1.25 MiB/s, up to 10 x kill -9, each time resumed"
        echo
        echo "| client | kills | wall s (all runs) | MiB fetched | fetched / size | sha256 ok |"
        echo "|---|---|---|---|---|---|"
        printf '%s\n' "${rows[@]}"
        echo
    } > "$work/resume-table.md"
fi

if [[ -z "$only" || "$only" == b ]]; then
    echo "(b) stragglers and stalls: 256 MiB, 8 connections" >&2
    url="$base/stall/256m.bin"
    clients=(
        "slipstream -n 8 --stall-timeout 5|$bin get -q --force -n 8 --stall-timeout 5 -o $out/file $url"
        "slipstream -n 8 (stall timeout 20 s)|$bin get -q --force -n 8 -o $out/file $url"
        "aria2c -x8 -s8 -k1M|timeout 300 $aria -d $out -o file -x8 -s8 -k1M $url"
        "axel -n 8|timeout 300 axel -q -n 8 -o $out/file $url"
    )
    measure s "$sha"
fi

[[ -f "$work/resume-table.md" ]] && cat "$work/resume-table.md"
[[ -s "$results" ]] && python3 Benchmarks/report.py "$results" --runs "$runs"
exit 0
