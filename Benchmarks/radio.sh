#!/usr/bin/env bash
# Measures `slipstream play` on live radio against its peers, in the same run, and prints a
# table. The station: Debian's Icecast 2.4 on a loopback port (scripts/icecast.sh), an MP3
# mount (128 kbit/s, 44.1 kHz stereo) that ffmpeg feeds at real time, its title changed through
# the admin API every RADIO_TITLE_EVERY seconds (default 30). Icecast sends a new listener its
# last 64 KiB at once (burst-on-connect, its default), then the stream at real time.
#  (a) time from start to first audio: each client writes WAV to a pipe and the time to its
#      first byte is taken (Benchmarks/firstbyte.py): the WAV header, which each writes as its
#      output opens, with the first decoded audio in hand. slipstream `--output wav:-`,
#      `mpg123 -w -`, `ffmpeg -f wav -` and `mpv --ao=pcm` to standard output: the same moment
#      for each, where `-f null` or `--ao=null` would show nothing. Medians of --runs runs.
#      Icecast answers a new listener on a cadence of its own (its burst comes anywhere in a
#      window of about 100 ms), so a client started right after the one before it got its
#      audio would meet that cadence at the same point run after run, and the order of the
#      clients would show as a difference between them: each run of each client starts after
#      a random pause of up to a second.
#  (b) CPU seconds per 10 minutes of live radio: the clients play the mount side by side for
#      RADIO_CPU_SECONDS (default 600), slipstream and mpg123 each to a sound server (a headless
#      PulseAudio with a null sink, started here) and with no sound (slipstream `--output null`,
#      `mpg123 -o dummy`; `mpv --ao=null`, `ffmpeg -f null`: a live stream arrives at real time,
#      so all decode at real time), and the CPU time each took is scaled to 10 minutes
#      (Benchmarks/livewatch.py).
#  (c) resident memory over RADIO_RSS_SECONDS (default 1800) of live radio with title changes,
#      the clients side by side as in (b): RSS 10 s in, halfway and at the end (flat is the
#      aim), and the peak (VmHWM).
#
#   Benchmarks/radio.sh [--runs N] [--only a|b|c]      (default 15 runs for (a))
#   RADIO_CPU_SECONDS=60 RADIO_RSS_SECONDS=60 Benchmarks/radio.sh     (a short smoke run)
# With SLIPSTREAM_BASELINE set to another slipstream binary, it is measured too ("before: ").
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_arguments 15 "a|b|c" "$@"
cpu_seconds="${RADIO_CPU_SECONDS:-600}"
rss_seconds="${RADIO_RSS_SECONDS:-1800}"
title_every="${RADIO_TITLE_EVERY:-30}"
bench_start radio

echo "starting Icecast and the station..." >&2
scripts/make-audio-fixtures.sh "$work/fixtures" > /dev/null
source scripts/icecast.sh
icecast_start "$work/icecast" >&2
source_pid=""
titles_pid=""
trap 'kill $titles_pid $source_pid 2>/dev/null; pulse_stop; icecast_stop; nginx_stop; rm -rf "$work"' EXIT
# A headless PulseAudio with a null sink: the sound server the "pulse" clients play to.
source scripts/pulse.sh
pulse_start "$work" >&2
[[ -n "$PULSE_TEST_SERVER" ]] || { echo "PulseAudio could not start" >&2; exit 1; }
export PULSE_SERVER="$PULSE_TEST_SERVER"
mount=/radio.mp3
url="http://127.0.0.1:$ICECAST_PORT$mount"
ffmpeg -nostdin -v error -re -stream_loop -1 -i "$work/fixtures/mp3-cbr128-noxing.mp3" -c copy -f mp3 \
    -write_xing 0 -id3v2_version 0 -content_type audio/mpeg -ice_name "Slipstream Benchmark Radio" \
    -ice_genre Benchmark "icecast://source:$ICECAST_SOURCE_PASSWORD@127.0.0.1:$ICECAST_PORT$mount" &
source_pid=$!
# title N: sets the title "Song N - Benchmark Artist" through the admin API.
title() {
    curl -sf -o /dev/null -u "$ICECAST_ADMIN_USER:$ICECAST_ADMIN_PASSWORD" \
        "http://127.0.0.1:$ICECAST_PORT/admin/metadata?mount=$mount&mode=updinfo&song=Song%20$1%20-%20Benchmark%20Artist"
}
# titles: a new title every $title_every s until SIGTERM (its sleep ends with it).
titles() {
    local n=1 nap=""
    trap 'kill $nap 2>/dev/null; exit 0' TERM
    while true; do
        sleep "$title_every" &
        nap=$!
        wait "$nap"
        title $((++n)) || true
    done
}
titles &
titles_pid=$!
# The first title, once the source is live.
for _ in $(seq 1 100); do
    title 1 && break
    sleep 0.1
done
if ! title 1; then
    echo "the station's mount did not go live; Icecast's log:" >&2
    tail -5 "$work/icecast/log/error.log" >&2
    exit 1
fi
# Icecast's burst fills after 4 s at 128 kbit/s: every client then starts as it would on a
# station that has been on the air for a while.
sleep 5

# The clients: "label|command" each, slipstream first, "before: " ones after it when asked.
# clients CASE: the clients of case a, or of b and c.
clients() {
    local entries
    if [[ "$1" == a ]]; then
        entries=("slipstream|$bin play $url --output wav:- -q" "mpg123|mpg123 -q -w - $url"
            "ffmpeg|ffmpeg -nostdin -v error -i $url -f wav -"
            "mpv|mpv --no-config --no-terminal --no-video --ao=pcm --ao-pcm-file=/dev/stdout $url")
    else
        # Two pairs: playing to a sound server (the headless PulseAudio this script starts),
        # and decoding with no sound (mpg123's dummy output, slipstream's unpaced null: a live
        # stream arrives at real time, so both decode at real time).
        entries=("slipstream pulse|$bin play $url --output pulse -q" "mpg123 pulse|mpg123 -q -o pulse $url"
            "slipstream null|$bin play $url --output null -q" "mpg123 dummy|mpg123 -q -o dummy $url"
            "ffmpeg|ffmpeg -nostdin -v error -i $url -f null -"
            "mpv|mpv --no-config --no-terminal --no-video --ao=null $url")
    fi
    local entry
    for entry in "${entries[@]}"; do
        echo "$entry"
        if [[ -n "${SLIPSTREAM_BASELINE:-}" && "$entry" == slipstream* ]]; then
            echo "before: ${entry%%|*}|${entry#*|}" | sed "s#$bin#$SLIPSTREAM_BASELINE#"
        fi
    done
}

# ratios FILE COLUMN NAME: for each slipstream row of FILE ("label value..." lines), the ratio
# of its COLUMN to each peer's, one line each.
ratios() {
    awk -v col="$2" -v name="$3" '
        { label[NR] = $1; value[NR] = $col }
        END {
            for (i = 1; i <= NR; i++) {
                if (label[i] !~ /slipstream/) continue
                line = "- " label[i] " " name ":"
                for (j = 1; j <= NR; j++) {
                    if (label[j] ~ /slipstream/ || value[j] <= 0) continue
                    line = line sprintf(" %.2fx %s;", value[i] / value[j], label[j])
                }
                print line
            }
        }' "$1"
}

echo
echo "Live Icecast 2.4 MP3 mount on loopback, 128 kbit/s, title changed every $title_every s."
if [[ -z "$only" || "$only" == a ]]; then
    echo
    echo "### (a) start to first audio (WAV header on a pipe), medians of $runs runs"
    echo
    mapfile -t entries < <(clients a)
    : > "$work/a.txt"
    for ((r = 0; r < runs; r++)); do
        for entry in "${entries[@]}"; do
            sleep "$(awk -v seed="$RANDOM" 'BEGIN { srand(seed); printf "%.3f", rand() }')"
            # shellcheck disable=SC2086
            printf '%s\t%s\n' "${entry%%|*}" "$(python3 Benchmarks/firstbyte.py ${entry#*|})" >> "$work/a.txt"
        done
    done
    printf '| %-22s | %10s | %10s | %10s |\n' client "median ms" "min ms" "max ms"
    printf '|%s|%s|%s|%s|\n' ------------------------ ------------ ------------ ------------
    : > "$work/a-medians.txt"
    for entry in "${entries[@]}"; do
        label="${entry%%|*}"
        awk -F'\t' -v l="$label" '$1 == l { print $2 * 1000 }' "$work/a.txt" | sort -g > "$work/one.txt"
        median=$(awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$work/one.txt")
        printf '| %-22s | %10.1f | %10.1f | %10.1f |\n' "$label" "$median" "$(head -1 "$work/one.txt")" "$(tail -1 "$work/one.txt")"
        echo "${label// /_} $median" >> "$work/a-medians.txt"
    done
    echo
    ratios "$work/a-medians.txt" 2 "first audio"
fi
# watch SECONDS CASE: the clients of (b) and (c) side by side for SECONDS; livewatch.py's lines.
watch() {
    local arguments=() entry
    mapfile -t entries < <(clients b)
    for entry in "${entries[@]}"; do arguments+=("${entry%%|*}=${entry#*|}"); done
    python3 Benchmarks/livewatch.py "$1" "${arguments[@]}"
}
if [[ -z "$only" || "$only" == b ]]; then
    echo
    echo "### (b) CPU seconds per 10 minutes of live radio (measured over $cpu_seconds s, side by side)"
    echo
    echo "measuring (b) for $cpu_seconds s..." >&2
    watch "$cpu_seconds" > "$work/b.txt"
    printf '| %-22s | %10s | %14s | %8s |\n' client "CPU s" "CPU s / 10 min" "ran on"
    printf '|%s|%s|%s|%s|\n' ------------------------ ------------ ---------------- ----------
    awk -F'\t' -v s="$cpu_seconds" '{
        printf "| %-22s | %10.2f | %14.2f | %8s |\n", $1, $2, $2 * 600 / s, $7 ? "yes" : "EXITED" }' "$work/b.txt"
    echo
    awk -F'\t' '{ gsub(/ /, "_", $1); print $1, $2 }' "$work/b.txt" > "$work/b-cpu.txt"
    ratios "$work/b-cpu.txt" 2 CPU
fi
if [[ -z "$only" || "$only" == c ]]; then
    echo
    echo "### (c) resident memory over $rss_seconds s of live radio with title changes (side by side)"
    echo
    echo "measuring (c) for $rss_seconds s..." >&2
    watch "$rss_seconds" > "$work/c.txt"
    printf '| %-22s | %9s | %9s | %9s | %9s | %8s |\n' client "start MiB" "mid MiB" "end MiB" "peak MiB" "ran on"
    printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------ ----------- ----------- ----------- ----------- ----------
    awk -F'\t' '{
        printf "| %-22s | %9.1f | %9.1f | %9.1f | %9.1f | %8s |\n", $1, $3 / 1024, $4 / 1024, $5 / 1024, $6 / 1024, $7 ? "yes" : "EXITED" }' \
        "$work/c.txt"
    echo
    awk -F'\t' '{ gsub(/ /, "_", $1); print $1, $6 }' "$work/c.txt" > "$work/c-peak.txt"
    ratios "$work/c-peak.txt" 2 "peak RSS"
fi
