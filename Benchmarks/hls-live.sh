#!/usr/bin/env bash
# Measures `slipstream play` on a live HLS stream against ffmpeg and mpv, in the same run, and
# prints a table. The stream: ffmpeg encodes a looped MP3 fixture at real time to AAC 128
# kbit/s in MPEG-TS segments of 2 s, a live sliding window of 6 segments (`-hls_list_size 6
# -hls_flags delete_segments+omit_endlist`), served by nginx on a loopback port. Each client
# starts about three target durations from the live end, as RFC 8216 asks (ffmpeg's demuxer,
# which mpv uses, starts three segments from it).
#  (a) time from start to first audio: each client writes WAV to a pipe and the time to its
#      first byte is taken (Benchmarks/firstbyte.py): the WAV header, which each writes as its
#      output opens, with the first decoded audio in hand. slipstream `--output wav:-`,
#      `ffmpeg -f wav -` and `mpv --ao=pcm` to standard output. Medians of --runs runs.
#
#   Benchmarks/hls-live.sh [--runs N]      (default 9 runs)
# With SLIPSTREAM_BASELINE set to another slipstream binary, it is measured too ("before: ").
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_arguments 9 "a" "$@"
bench_start hls-live

echo "starting the live HLS stream..." >&2
scripts/make-audio-fixtures.sh "$work/fixtures" > /dev/null
live="$files/live"
mkdir -p "$live"
ffmpeg -nostdin -v error -re -stream_loop -1 -i "$work/fixtures/mp3-cbr128-noxing.mp3" -c:a aac -b:a 128k \
    -f hls -hls_time 2 -hls_list_size 6 -hls_flags delete_segments+omit_endlist \
    -hls_segment_filename "$live/s%d.ts" "$live/index.m3u8" &
source_pid=$!
trap 'kill $source_pid 2>/dev/null; nginx_stop; rm -rf "$work"' EXIT
url="$base/files/live/index.m3u8"
# A full window: every client then starts as on a stream that has been on the air for a while.
for _ in $(seq 1 300); do
    [[ -f "$live/index.m3u8" ]] && (($(grep -c '^#EXTINF' "$live/index.m3u8") >= 6)) && break
    sleep 0.1
done
(($(grep -c '^#EXTINF' "$live/index.m3u8") >= 6)) || { echo "the live stream did not fill its window" >&2; exit 1; }

mapfile -t entries < <(with_baseline "slipstream|$bin play $url --output wav:- -q" \
    "ffmpeg|ffmpeg -nostdin -v error -i $url -f wav -" \
    "mpv|mpv --no-config --no-terminal --no-video --ao=pcm --ao-pcm-file=/dev/stdout $url")

echo
echo "Live HLS on loopback (nginx): AAC 128 kbit/s in MPEG-TS segments of 2 s, a window of 6."
echo
echo "### (a) start to first audio (WAV header on a pipe), medians of $runs runs"
echo
: > "$work/a.txt"
for ((r = 0; r < runs; r++)); do
    for entry in "${entries[@]}"; do
        # shellcheck disable=SC2086
        printf '%s\t%s\n' "${entry%%|*}" "$(python3 Benchmarks/firstbyte.py ${entry#*|})" >> "$work/a.txt"
    done
done
printf '| %-22s | %10s | %10s | %10s |\n' client "median ms" "min ms" "max ms"
printf '|%s|%s|%s|%s|\n' ------------------------ ------------ ------------ ------------
for entry in "${entries[@]}"; do
    label="${entry%%|*}"
    awk -F'\t' -v l="$label" '$1 == l { print $2 * 1000 }' "$work/a.txt" | sort -g > "$work/one.txt"
    median=$(awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$work/one.txt")
    printf '| %-22s | %10.1f | %10.1f | %10.1f |\n' "$label" "$median" "$(head -1 "$work/one.txt")" "$(tail -1 "$work/one.txt")"
done
