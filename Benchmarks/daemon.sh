#!/usr/bin/env bash
# Measures `slipstream daemon` against `aria2c --enable-rpc`, both started with the same
# arguments and driven through JSON-RPC on loopback (Benchmarks/daemon.py does the driving),
# and prints a table of medians and ratios (daemon / aria2c; the issue's target: each at most
# aria2c's).
#
#   Benchmarks/daemon.sh [--runs N] [--only multicall|poll|idle|waiting|big]
#
# (1) multicall  1,000 addUri (paused: only the RPC is measured) in one system.multicall: wall
#                time of the call and the server's CPU
# (2) poll       a UI's polling (tellActive + tellWaiting(0,1000) + tellStopped(-1,1000) +
#                getGlobalStat; a UI sends them once a second, here back to back) with 100 active
#                downloads, each held at 4 KiB/s by nginx: the server's CPU seconds per 60
#                polls (from /proc/PID/stat), what it spends downloading in as long, and the rest
# (3) idle       RSS and VmHWM one second after start
# (4) waiting    RSS and VmHWM with 10,000 waiting downloads (added paused, 1,000 per multicall)
# (5) big        a 1 GiB download added through RPC (-x8 -s8, as download.sh's aria2c), polled
#                until complete: wall, the server's CPU, VmHWM; the file checked by sha256
#
# SLIPSTREAM_DAEMON_BENCH_CLIENTS="slipstream aria2c" (the default) says which servers run;
# without slipstream nothing is built (aria2c alone, say, before the daemon exists).
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 3 "multicall|poll|idle|waiting|big" "$@"
servers="${SLIPSTREAM_DAEMON_BENCH_CLIENTS:-slipstream aria2c}"
if [[ " $servers " == *" slipstream "* ]]; then
    bench_start daemon
else
    # bench_start without the build.
    scripts/setup.sh --benchmarks
    source scripts/nginx.sh
    work="$(mktemp -d /tmp/slipstream-daemon.XXXXXX)"
    trap 'nginx_stop; rm -rf "$work"' EXIT
    nginx_start "$work"
    base="http://127.0.0.1:$NGINX_PORT"
    files="$work/www/files"
    results="$work/results.tsv"
    : > "$results"
fi
# Some 200 connections at once in (2): the descriptors scripts/test.sh allows too.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

wanted() { [[ -z "$only" || "$only" == "$1" ]]; }
echo "making test files..." >&2
head -c $((4 << 20)) /dev/urandom > "$files/poll.bin"
if wanted big; then
    SHA_1G=$(bench_random_file 1g.bin 1024)
    export SHA_1G
fi
export BASE="$base" FILES="$files" WORK="$work" results

# Each server with the same arguments: 100 downloads at once (for (2)), 8 connections each.
common=(-j 100 -x 8 -s 8 -k 1M)
command_of() {
    case "$1" in
        slipstream) echo "$bin daemon ${common[*]}" ;;
        # --no-conf: no user configuration; falloc and overwriting, as download.sh runs it.
        aria2c) echo "aria2c --enable-rpc --no-conf -q ${common[*]} --file-allocation=falloc --allow-overwrite=true --auto-file-renaming=false" ;;
    esac
}

for case in multicall poll idle waiting big; do
    wanted "$case" || continue
    echo "($case)" >&2
    for round in $(seq 1 "$runs"); do
        for server in $servers; do
            sync
            # shellcheck disable=SC2046
            python3 Benchmarks/daemon.py run "$case" "$server" $(command_of "$server") -- ||
                printf '%s\t%s\tfailed\n' "$case" "$server" >&2
        done
    done
done

python3 Benchmarks/daemon.py report "$results" --runs "$runs"
