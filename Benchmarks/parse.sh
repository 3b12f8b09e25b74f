#!/usr/bin/env bash
# Measures the audio parser's throughput: `slipstream info --exact` (which reads a whole local
# file in 1 MiB reads and counts every packet) against `ffprobe -count_packets` (which demuxes
# without decoding) on the same large files, made by concatenating the test fixtures, and prints
# a table of packet counts (which must agree), median wall and CPU seconds, peak RSS, and the
# ratio of ffprobe's wall time to slipstream's (above 1.00: slipstream is faster).
#
#   Benchmarks/parse.sh [--runs N] [--size MiB]      (defaults: 3 runs, 200 MiB per file)
#
# SLIPSTREAM_SCRATCH sets the build folder (default .build).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
size=200
while (($#)); do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --size) size="$2"; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--size MiB]" >&2; exit 2 ;;
    esac
done

scratch="${SLIPSTREAM_SCRATCH:-.build}"
scripts/build.sh --scratch-path "$scratch" >/dev/null
bin="$PWD/$scratch/release/slipstream"
[[ "$scratch" == /* ]] && bin="$scratch/release/slipstream"

work="$(mktemp -d /tmp/slipstream-parse.XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "making test files..." >&2
scripts/make-audio-fixtures.sh "$work/fixtures"

# big NAME FIXTURE: FIXTURE doubled until it is at least $size MiB (no Xing header: every
# packet must be counted).
big() {
    cp "$work/fixtures/$2" "$work/$1"
    while (($(stat -c %s "$work/$1") < size << 20)); do
        cat "$work/$1" "$work/$1" > "$work/tmp" && mv "$work/tmp" "$work/$1"
    done
}
big cbr128.mp3 mp3-cbr128-noxing.mp3
big vbr-v2.mp3 mp3-vbr-v2-noxing.mp3
big aac-128k.aac aac-lc-128k.aac

# measure TOOL FILE COMMAND...: runs the command $runs times (the file warm in the page cache
# after a first untimed read), prints "packets wall cpu rss_kib" with the median wall time.
measure() {
    local tool="$1" file="$2"
    shift 2
    cat "$file" > /dev/null
    local packets="" i
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -o "$work/time.txt" -f "%e %U %S %M" "$@" > "$work/out.txt"
        if [[ "$tool" == slipstream ]]; then
            packets="$(sed -n 's/^ *"packetCount" : \([0-9]*\).*/\1/p' "$work/out.txt")"
        else
            packets="$(tr -d ' \n' < "$work/out.txt")"
        fi
        awk -v p="$packets" '{ printf "%s %.2f %.2f %d\n", p, $1, $2 + $3, $4 }' "$work/time.txt"
    done | sort -k2 -n | sed -n "$(((runs + 1) / 2))p"
}

printf '%-14s %9s %21s %13s %13s %15s %7s\n' file MiB "packets (ours/ffprobe)" "wall s (o/f)" "cpu s (o/f)" "RSS MiB (o/f)" ratio
for name in cbr128.mp3 vbr-v2.mp3 aac-128k.aac; do
    file="$work/$name"
    read -r ours_packets ours_wall ours_cpu ours_rss < <(measure slipstream "$file" "$bin" info --exact --json "$file")
    read -r ff_packets ff_wall ff_cpu ff_rss < <(measure ffprobe "$file" ffprobe -v error -count_packets \
        -select_streams a:0 -show_entries stream=nb_read_packets -of csv=p=0 "$file")
    mark=""
    [[ "$ours_packets" == "$ff_packets" ]] || mark=" MISMATCH"
    awk -v n="$name" -v s="$(stat -c %s "$file")" -v op="$ours_packets" -v fp="$ff_packets" -v ow="$ours_wall" \
        -v fw="$ff_wall" -v oc="$ours_cpu" -v fc="$ff_cpu" -v orss="$ours_rss" -v frss="$ff_rss" -v m="$mark" 'BEGIN {
        printf "%-14s %9.1f %21s %13s %13s %15s %7.2f%s\n", n, s / 1048576, op "/" fp, ow "/" fw, oc "/" fc,
            sprintf("%.1f/%.1f", orss / 1024, frss / 1024), (ow > 0 ? fw / ow : 0), m
    }'
done
