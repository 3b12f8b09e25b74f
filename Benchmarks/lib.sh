# Shared by the benchmark scripts (source it from the repository's top folder):
# bench_arguments and bench_start set up a run; once and measure time the clients.

# bench_arguments DEFAULT_RUNS CASES "$@": reads --runs N and --only CASE into $runs and $only.
bench_arguments() {
    runs="$1"
    only=""
    local cases="$2"
    shift 2
    while (($#)); do
        case "$1" in
            --runs) runs="$2"; shift 2 ;;
            --only) only="$2"; shift 2 ;;
            *) echo "usage: $0 [--runs N] [--only $cases]" >&2; exit 2 ;;
        esac
    done
}

# bench_start NAME: installs the peers, builds slipstream as the README does (scripts/build.sh;
# folder from SLIPSTREAM_BUILD_PATH, default .build) into $bin, or takes the binary
# SLIPSTREAM_BIN names (no build), starts nginx on a loopback port in a new work folder ($work,
# stopped and removed on exit) and sets $base, $files, $out and $results.
bench_start() {
    local build="${SLIPSTREAM_BUILD_PATH:-.build}"
    scripts/setup.sh --benchmarks
    if [[ -n "${SLIPSTREAM_BIN:-}" ]]; then
        bin="$(realpath "$SLIPSTREAM_BIN")"
    else
        scripts/build.sh --scratch-path "$build" >/dev/null
        bin="$(cd "$build" && pwd)/release/slipstream"
    fi
    source scripts/nginx.sh
    work="$(mktemp -d "/tmp/slipstream-$1.XXXXXX")"
    trap 'nginx_stop; rm -rf "$work"' EXIT
    nginx_start "$work"
    base="http://127.0.0.1:$NGINX_PORT"
    files="$work/www/files"
    out="$work/out"
    mkdir -p "$out"
    results="$work/results.tsv"
    : > "$results"
    # aria2c writing $out/file, as every single-file case runs it.
    aria="aria2c -q --allow-overwrite=true --auto-file-renaming=false --file-allocation=falloc --summary-interval=0 -d $out -o file"
}

# bench_random_file NAME MIB: makes $files/NAME of MIB MiB of random bytes (flushed to disk)
# and prints its sha256.
bench_random_file() {
    head -c $(($2 << 20)) /dev/urandom > "$files/$1"
    sync
    sha256sum "$files/$1" | cut -d' ' -f1
}
# bench_digest: what `once` compares with the expected sha256: by default that of $out/file
# (a script that fetches many files defines its own).
bench_digest() {
    sha256sum "$out/file" 2>/dev/null | cut -d' ' -f1 || true
}

# once CASE CLIENT EXPECTED_SHA COMMAND...: runs the command once in an empty $out, after
# flushing earlier writes to disk (so no run pays for another's), and appends
# "case client wall cpu rss_kib ok" to $results.
once() {
    local case="$1" client="$2" sha="$3"
    shift 3
    rm -rf "$out" && mkdir -p "$out"
    sync
    local status=0 started="$EPOCHREALTIME"
    /usr/bin/time -o "$work/time.txt" -f "%U %S %M" "$@" >/dev/null 2>&1 || status=$?
    local wall
    wall=$(bench_seconds_since "$started")
    local got ok=0 user sys rss
    got=$(bench_digest)
    [[ $status -eq 0 && "$got" == "$sha" ]] && ok=1
    read -r user sys rss < <(tail -1 "$work/time.txt")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$client" "$wall" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss" "$ok" >> "$results"
    echo "  $case $client: ${wall}s ok=$ok" >&2
}

# measure CASE SHA: runs every client of the case (the array `clients`, "label|command") once
# per round, `runs` rounds, so that noise spreads over all of them alike. With
# SLIPSTREAM_BASELINE set to another slipstream binary (say, the last release's), each
# slipstream client also runs with it, as "before: LABEL", in the same rounds.
measure() {
    local case="$1" sha="$2" round entry
    local all=("${clients[@]}")
    if [[ -n "${SLIPSTREAM_BASELINE:-}" ]]; then
        for entry in "${clients[@]}"; do
            [[ "$entry" == slipstream* ]] && all+=("before: ${entry%%|*}|${entry#*|}") && all[-1]="${all[-1]//$bin/$SLIPSTREAM_BASELINE}"
        done
    fi
    for round in $(seq 1 "$runs"); do
        for entry in "${all[@]}"; do
            # shellcheck disable=SC2086
            once "$case" "${entry%%|*}" "$sha" ${entry#*|}
        done
    done
}

# timed COMMAND...: prints "wall cpu rss_kib" of one run of COMMAND (output dropped).
timed() {
    local started="$EPOCHREALTIME"
    /usr/bin/time -o "$work/time.txt" -f "%U %S %M" "$@" >/dev/null 2>&1 || echo "  (exit $?)" >&2
    awk -v wall="$(bench_seconds_since "$started")" '{ printf "%s %.2f %d\n", wall, $1 + $2, $3 }' "$work/time.txt"
}
# bench_seconds_since EPOCHREALTIME: the wall seconds since then, to the microsecond (GNU time's
# %e has hundredths, too coarse where peers end within milliseconds of each other).
# (EPOCHREALTIME is written with the locale's decimal mark.)
bench_seconds_since() {
    local to="$EPOCHREALTIME"
    awk -v from="${1/,/.}" -v to="${to/,/.}" 'BEGIN { printf "%.6f", to - from }'
}
# with_baseline ENTRY...: the entries ("label|command"), and for each slipstream one the same
# with $SLIPSTREAM_BASELINE, if set, as "before: label".
with_baseline() {
    local entry
    for entry in "$@"; do
        echo "$entry"
        if [[ -n "${SLIPSTREAM_BASELINE:-}" && "$entry" == slipstream* ]]; then
            echo "before: ${entry%%|*}|$(sed "s#$bin#$SLIPSTREAM_BASELINE#g" <<< "${entry#*|}")"
        fi
    done
}
# median_of N COMMAND...: the run with the median first field of N runs of COMMAND.
median_of() {
    local n="$1"; shift
    for ((r = 0; r < n; r++)); do "$@"; done | sort -n -k1 | sed -n "$(((n + 1) / 2))p"
}
