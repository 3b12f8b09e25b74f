#!/usr/bin/env bash
# HLS download benchmark (issue 16): `slipstream get --hls` against `ffmpeg -i URL -c copy` and
# yt-dlp (its own HLS downloader, no fixup), on a link limited per connection.
#
#   Benchmarks/hls.sh [--runs N] [--only h2|h6]
#   HLS_MINUTES=M              the stream's length (default 60)
#   HLS_RATE=BYTES             bytes per second per connection (default 1048576)
#   SLIPSTREAM_BUILD_PATH=DIR  the build folder to use (default .build)
#
# A stream of M minutes of 128 kb/s stereo AAC (pink noise and a tone), cut by ffmpeg into
# MPEG-TS segments of 2 s (h2) and 6 s (h6), VOD. Served by Benchmarks/throttle.py, which sends
# each connection's bytes at a steady HLS_RATE from the first byte (nginx's limit_rate lets the
# first second's bytes through at once: a whole segment). ffmpeg and yt-dlp fetch one segment
# after another; slipstream fetches -n at once. The check ("ok") is the output's length as
# ffprobe reads it: M minutes to the second. Target: slipstream at least 3x faster than ffmpeg.
# yt-dlp is used from PATH, else installed with pip; without it its rows are left out.
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
bench_arguments 1 "h2|h6" "$@"
bench_start hls-bench
minutes="${HLS_MINUTES:-60}"
rate="${HLS_RATE:-1048576}"

echo "making a $minutes-minute AAC stream in 2 s and 6 s segments..." >&2
ffmpeg -nostdin -loglevel error -y -f lavfi -i "anoisesrc=d=$((minutes * 60)):c=pink:a=0.3" \
    -f lavfi -i "sine=f=440:d=$((minutes * 60))" -filter_complex amix=inputs=2 -ac 2 -ar 44100 \
    -c:a aac -b:a 128k "$files/stream.aac"
for seconds in 2 6; do
    ffmpeg -nostdin -loglevel error -y -i "$files/stream.aac" -c copy -f hls -hls_time "$seconds" \
        -hls_playlist_type vod -hls_segment_filename "$files/h${seconds}_%d.ts" "$files/h$seconds.m3u8"
done

port="$(nginx_free_port)"
# (Its tracebacks of connections the clients reset are dropped.)
python3 Benchmarks/throttle.py "$files" "$port" "$rate" 2>/dev/null &
throttle=$!
trap 'kill "$throttle"; nginx_stop; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done

ytdlp=""
if command -v yt-dlp >/dev/null || python3 -m pip install -q yt-dlp >/dev/null 2>&1; then
    ytdlp="$(command -v yt-dlp || true)"
fi
[[ -z "$ytdlp" ]] && echo "yt-dlp is not installed and pip could not install it: its rows are left out" >&2

# The check: the output's length in whole seconds, as ffprobe reads it.
bench_digest() {
    ffprobe -v error -show_entries format=duration -of csv=p=0 "$out/file" 2>/dev/null | awk '{ printf "%.0f", $1 }' || true
}

for seconds in 2 6; do
    [[ -n "$only" && "$only" != "h$seconds" ]] && continue
    echo "(h$seconds) $minutes minutes in $seconds s segments at $rate bytes/s per connection" >&2
    url="http://127.0.0.1:$port/h$seconds.m3u8"
    clients=(
        "slipstream -n 8|$bin get -q --force --hls -n 8 -o $out/file $url"
        "slipstream -n 16|$bin get -q --force --hls -n 16 -o $out/file $url"
        "ffmpeg -c copy|ffmpeg -nostdin -loglevel error -y -i $url -c copy -f mpegts $out/file"
    )
    [[ -n "$ytdlp" ]] && clients+=("yt-dlp|$ytdlp -q --no-part --fixup never -o $out/file $url")
    measure "h$seconds" "$((minutes * 60))"
done

python3 Benchmarks/report.py "$results" --runs "$runs"
