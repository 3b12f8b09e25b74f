#!/usr/bin/env bash
# Measures `slipstream play` against mpg123 (and ffmpeg) on the same machine and prints a table:
#  (a) decode speed through the whole pipeline (parser, queue, decoder, output) into the null
#      output as fast as possible, as x real time, against `mpg123 -t` (the same decoder, no
#      output) and `ffmpeg -f null`; a 60-minute 128 kbit/s MP3, from a local file and over
#      HTTP from the loopback nginx;
#  (b) time from start to the first audio at the output (both write WAV to a pipe; the time to
#      its first byte, the header written as the output opens) on loopback, and from a server
#      that sends at twice the bit rate from the first byte (Benchmarks/throttle.py);
#  (c) peak RSS while streaming the 60 minutes with default buffering.
#
#   Benchmarks/play.sh [--runs N]       (default 3; medians)
# With SLIPSTREAM_BASELINE set to another slipstream binary, each slipstream row is also
# measured with it ("before: ..."), in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_arguments 3 "a|b|c" "$@"
bench_start play

echo "making a 60-minute 128 kbit/s MP3..." >&2
scripts/make-audio-fixtures.sh "$work/fixtures" >/dev/null
piece="$work/fixtures/mp3-cbr128-noxing.mp3"
hour="$files/hour.mp3"
: > "$hour"
copies=$(python3 -c "import sys; print(int(3600 / float(sys.argv[1])) + 1)" \
    "$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$piece")")
for ((i = 0; i < copies; i++)); do cat "$piece"; done > "$hour"
seconds=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$hour")
short="$work/fixtures/mp3-cbr128.mp3"
cp "$short" "$files/short.mp3"
throttle_port=$((NGINX_PORT + 17))
python3 Benchmarks/throttle.py "$files" "$throttle_port" 32000 & # 2 x 128 kbit/s
throttle_pid=$!
trap 'kill $throttle_pid 2>/dev/null; nginx_stop; rm -rf "$work"' EXIT
sleep 0.5

echo
echo "Medians of $runs runs."
if [[ -z "$only" || "$only" == a ]]; then
    echo
    echo "### (a) decode speed, 60-minute 128 kbit/s MP3 (${seconds%.*} s of audio), as fast as possible"
    echo
    printf '| %-44s | %8s | %8s | %9s | %12s |\n' client "wall s" "CPU s" "x realtime" "vs mpg123 -t"
    printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" ---------- ---------- ----------- --------------
    read -r m_wall m_cpu _ < <(median_of "$runs" timed mpg123 -q -t "$hour")
    mapfile -t entries < <(with_baseline "mpg123 -t FILE|mpg123 -q -t $hour" \
        "ffmpeg -f null FILE|ffmpeg -v error -i $hour -f null -" \
        "slipstream play FILE --output null|$bin play $hour --output null -q" \
        "slipstream play URL --output null|$bin play $base/files/hour.mp3 --output null -q")
    for entry in "${entries[@]}"; do
        # shellcheck disable=SC2086
        read -r wall cpu _ < <(median_of "$runs" timed ${entry#*|})
        awk -v c="${entry%%|*}" -v w="$wall" -v u="$cpu" -v s="$seconds" -v m="$m_wall" 'BEGIN {
            printf "| %-44s | %8.2f | %8.2f | %9.0fx | %11.2fx |\n", c, w, u, s / w, m / w }'
    done
fi
if [[ -z "$only" || "$only" == b ]]; then
    echo
    echo "### (b) start to first audio at the output (WAV header on a pipe), 128 kbit/s MP3"
    echo
    printf '| %-12s | %-28s | %10s | %14s |\n' link client "first, ms" "vs mpg123"
    printf '|%s|%s|%s|%s|\n' -------------- ------------------------------ ------------ ----------------
    for link in "loopback|$base/files/short.mp3" "2x bit rate|http://127.0.0.1:$throttle_port/short.mp3"; do
        url="${link#*|}"
        m=$(median_of "$runs" python3 Benchmarks/firstbyte.py mpg123 -q -w - "$url")
        s=$(median_of "$runs" python3 Benchmarks/firstbyte.py "$bin" play "$url" --output wav:- -q)
        awk -v l="${link%%|*}" -v m="$m" -v s="$s" 'BEGIN {
            printf "| %-12s | %-28s | %10.1f | %14s |\n", l, "mpg123 -w -", m * 1000, "1.00x"
            printf "| %-12s | %-28s | %10.1f | %13.2fx |\n", l, "slipstream play --output wav:-", s * 1000, s / m }'
        if [[ -n "${SLIPSTREAM_BASELINE:-}" ]]; then
            b=$(median_of "$runs" python3 Benchmarks/firstbyte.py "$SLIPSTREAM_BASELINE" play "$url" --output wav:- -q)
            awk -v l="${link%%|*}" -v m="$m" -v s="$b" 'BEGIN {
                printf "| %-12s | %-28s | %10.1f | %13.2fx |\n", l, "before: slipstream play", s * 1000, s / m }'
        fi
    done
fi
if [[ -z "$only" || "$only" == c ]]; then
    echo
    echo "### (c) peak RSS streaming the 60 minutes over HTTP (default buffering)"
    echo
    printf '| %-44s | %12s |\n' client "peak RSS MiB"
    printf '|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" --------------
    mapfile -t entries < <(with_baseline "slipstream play URL --output null|$bin play $base/files/hour.mp3 --output null -q" \
        "mpg123 -t URL|mpg123 -q -t $base/files/hour.mp3" \
        "ffmpeg -i URL -f null|ffmpeg -v error -i $base/files/hour.mp3 -f null -")
    for entry in "${entries[@]}"; do
        # shellcheck disable=SC2086
        read -r _ _ rss < <(median_of "$runs" timed ${entry#*|})
        awk -v c="${entry%%|*}" -v r="$rss" 'BEGIN { printf "| %-44s | %12.1f |\n", c, r / 1024 }'
    done
fi
