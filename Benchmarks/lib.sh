# Shared by the benchmark scripts: once and measure (source it; they use $work, $out, $results
# and $runs).
# once CASE CLIENT EXPECTED_SHA COMMAND...: runs the command once in an empty $out, after
# flushing earlier writes to disk (so no run pays for another's), and appends
# "case client wall cpu rss_kib ok" to $results.
once() {
    local case="$1" client="$2" sha="$3"
    shift 3
    rm -rf "$out" && mkdir -p "$out"
    sync
    local status=0
    /usr/bin/time -o "$work/time.txt" -f "%e %U %S %M" "$@" >/dev/null 2>&1 || status=$?
    local got ok=0 wall user sys rss
    got=$(sha256sum "$out/file" 2>/dev/null | cut -d' ' -f1 || true)
    [[ $status -eq 0 && "$got" == "$sha" ]] && ok=1
    read -r wall user sys rss < <(tail -1 "$work/time.txt")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$client" "$wall" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss" "$ok" >> "$results"
    echo "  $case $client: ${wall}s ok=$ok" >&2
}

# measure CASE SHA: runs every client of the case (the array `clients`, "label|command") once
# per round, `runs` rounds, so that noise spreads over all of them alike.
measure() {
    local case="$1" sha="$2" round entry
    for round in $(seq 1 "$runs"); do
        for entry in "${clients[@]}"; do
            # shellcheck disable=SC2086
            once "$case" "${entry%%|*}" "$sha" ${entry#*|}
        done
    done
}
