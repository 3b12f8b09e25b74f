#!/usr/bin/env bash
# Measures slipstream on each audio format against ffmpeg and the format's own reference tool,
# in the same run, and prints a table per measure. The audio: FORMATS_MINUTES (default 60)
# minutes of 44.1 kHz stereo pink noise from sox, encoded once per format: FLAC (flac -5), Ogg
# Vorbis (oggenc -q 4), Ogg Opus (opusenc 96 kbit/s), M4A (ffmpeg's AAC, 128 kbit/s, its index
# after the audio as ffmpeg writes it), AIFF and CAF (16-bit PCM), and MP3 (lame 128 kbit/s)
# for comparison with the older formats.
#  (a) decode speed: `slipstream play FILE --output null` (parser, queue, decoder, as fast as
#      possible) against `ffmpeg -f null` and the reference decoder writing to /dev/null
#      (flac -d, oggdec, opusdec, faad, sox, mpg123 -t); wall and CPU seconds, x real time,
#      the reference's wall time over slipstream's (target: >= 1), peak RSS (target: <= 24 MiB).
#  (b) parse speed: `slipstream info --exact FILE` (every packet counted) against
#      `ffprobe -count_packets` (demuxing without decoding); ffprobe's wall time over
#      slipstream's (target: >= 2).
#  (c) start to first audio over HTTP from the loopback nginx: the first byte of WAV on a pipe
#      (`--output wav:-`, `ffmpeg -f wav -`), and the requests made until then.
#  (d) seek to the middle over HTTP: the same with `--start T` and `ffmpeg -ss T`.
# A format slipstream cannot play yet shows as "refused" (exit status 6) in its rows.
#
#   Benchmarks/formats.sh [--runs N] [--only a|b|c|d]      (default 3 runs; medians)
#   FORMATS=flac,opus FORMATS_MINUTES=10 Benchmarks/formats.sh --runs 1   (a short run)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_arguments 3 "a|b|c|d" "$@"
minutes="${FORMATS_MINUTES:-60}"
formats="${FORMATS:-flac,vorbis,opus,m4a,aiff,caf,mp3}"
bench_start formats

seconds=$((minutes * 60))
echo "making $minutes minutes of audio and encoding it..." >&2
sox -n -r 44100 -c 2 -b 16 "$work/source.wav" synth "$seconds" pinknoise vol 0.3
# file FORMAT: the file of FORMAT under $files.
file() {
    case "$1" in
        flac) echo "$files/audio.flac" ;;
        vorbis) echo "$files/audio.ogg" ;;
        opus) echo "$files/audio.opus" ;;
        m4a) echo "$files/audio.m4a" ;;
        aiff) echo "$files/audio.aiff" ;;
        caf) echo "$files/audio.caf" ;;
        mp3) echo "$files/audio.mp3" ;;
    esac
}
# encode FORMAT: makes its file from the source.
encode() {
    local out
    out="$(file "$1")"
    case "$1" in
        flac) flac -s -5 -f -o "$out" "$work/source.wav" ;;
        vorbis) oggenc -Q -q 4 -o "$out" "$work/source.wav" ;;
        opus) opusenc --quiet --bitrate 96 "$work/source.wav" "$out" ;;
        m4a) ffmpeg -v error -y -i "$work/source.wav" -c:a aac -b:a 128k "$out" ;;
        aiff) sox "$work/source.wav" "$out" ;;
        caf) ffmpeg -v error -y -i "$work/source.wav" -c:a pcm_s16be -f caf "$out" ;;
        mp3) lame --quiet -b 128 "$work/source.wav" "$out" ;;
    esac
}
# reference FORMAT: the reference decoder's command, writing PCM to /dev/null.
reference() {
    local in
    in="$(file "$1")"
    case "$1" in
        flac) echo "flac -d|flac -s -d -f -o /dev/null $in" ;;
        vorbis) echo "oggdec|oggdec -Q -o /dev/null $in" ;;
        opus) echo "opusdec|opusdec --quiet $in /dev/null" ;;
        m4a) echo "faad|faad -q -o /dev/null $in" ;;
        aiff | caf) echo "sox|sox $in -t null -" ;;
        mp3) echo "mpg123 -t|mpg123 -q -t $in" ;;
    esac
}
IFS=, read -r -a chosen <<< "$formats"
for f in "${chosen[@]}"; do encode "$f"; done
rm -f "$work/source.wav"

# ratio A B: A / B to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# status COMMAND...: the exit status of one run, to tell a refused format.
status() { "$@" >/dev/null 2>&1 && echo 0 || echo $?; }

echo
echo "Medians of $runs runs; $minutes minutes of audio per file."
if [[ -z "$only" || "$only" == a ]]; then
    echo
    echo "### (a) decode speed, as fast as possible (reference / slipstream: >= 1 is the target)"
    echo
    printf '| %-6s | %-24s | %8s | %8s | %9s | %8s | %8s |\n' format client "wall s" "CPU s" "x realtime" "ref/this" "RSS MiB"
    printf '|%s|%s|%s|%s|%s|%s|%s|\n' -------- -------------------------- ---------- ---------- ----------- ---------- ----------
    for f in "${chosen[@]}"; do
        in="$(file "$f")"
        ref="$(reference "$f")"
        # shellcheck disable=SC2086
        read -r r_wall _ _ < <(median_of "$runs" timed ${ref#*|})
        mapfile -t entries < <(with_baseline "${ref}" "ffmpeg -f null|ffmpeg -v error -i $in -f null -" \
            "slipstream play|$bin play $in --output null -q")
        for entry in "${entries[@]}"; do
            # shellcheck disable=SC2086
            if [[ "$entry" == *slipstream* && "$(status ${entry#*|})" == 6 ]]; then
                printf '| %-6s | %-24s | %8s | %8s | %9s | %8s | %8s |\n' "$f" "${entry%%|*}" refused - - - -
                continue
            fi
            # shellcheck disable=SC2086
            read -r wall cpu rss < <(median_of "$runs" timed ${entry#*|})
            awk -v f="$f" -v c="${entry%%|*}" -v w="$wall" -v u="$cpu" -v s="$seconds" -v r="$r_wall" -v m="$rss" 'BEGIN {
                printf "| %-6s | %-24s | %8.2f | %8.2f | %9.0fx | %7.2fx | %8.1f |\n", f, c, w, u, s / w, r / w, m / 1024 }'
        done
    done
fi
if [[ -z "$only" || "$only" == b ]]; then
    echo
    echo "### (b) parse speed: info --exact against ffprobe -count_packets (ffprobe / slipstream: >= 2 is the target)"
    echo
    printf '| %-6s | %-24s | %8s | %8s | %12s |\n' format client "wall s" "CPU s" "ffprobe/this"
    printf '|%s|%s|%s|%s|%s|\n' -------- -------------------------- ---------- ---------- --------------
    for f in "${chosen[@]}"; do
        in="$(file "$f")"
        read -r p_wall p_cpu _ < <(median_of "$runs" timed ffprobe -v error -count_packets -show_entries stream=nb_read_packets "$in")
        printf '| %-6s | %-24s | %8.2f | %8.2f | %12s |\n' "$f" "ffprobe -count_packets" "$p_wall" "$p_cpu" 1.00x
        mapfile -t entries < <(with_baseline "slipstream info --exact|$bin info --exact $in")
        for entry in "${entries[@]}"; do
            # shellcheck disable=SC2086
            if [[ "$(status ${entry#*|})" == 6 ]]; then
                printf '| %-6s | %-24s | %8s | %8s | %12s |\n' "$f" "${entry%%|*}" refused - -
                continue
            fi
            # shellcheck disable=SC2086
            read -r wall cpu _ < <(median_of "$runs" timed ${entry#*|})
            printf '| %-6s | %-24s | %8.2f | %8.2f | %11sx |\n' "$f" "${entry%%|*}" "$wall" "$cpu" "$(ratio "$p_wall" "$wall")"
        done
    done
fi
# first_audio LABEL FORMAT START COMMAND...: a row of the median time to the first byte of
# WAV the command writes, and the requests nginx served the file for in the median run.
first_audio() {
    local label="$1" f="$2" start="$3" name
    shift 3
    name="$(basename "$(file "$f")")"
    for ((r = 0; r < runs; r++)); do
        local before after t
        before=$(grep -c " /files/$name " "$work/access.log" || true)
        t=$(python3 Benchmarks/firstbyte.py "$@")
        sleep 0.2
        after=$(grep -c " /files/$name " "$work/access.log" || true)
        echo "$t $((after - before))"
    done | sort -n -k1 | sed -n "$(((runs + 1) / 2))p" | {
        read -r t requests
        if [[ "$t" == nan ]]; then
            printf '| %-6s | %-7s | %-28s | %10s | %8s |\n' "$f" "$start" "$label" "no audio" -
        else
            awk -v f="$f" -v s="$start" -v c="$label" -v t="$t" -v q="$requests" 'BEGIN {
                printf "| %-6s | %-7s | %-28s | %10.1f | %8d |\n", f, s, c, t * 1000, q }'
        fi
    }
}
for measure in c d; do
    [[ -z "$only" || "$only" == "$measure" ]] || continue
    echo
    if [[ "$measure" == c ]]; then
        echo "### (c) start to first audio over HTTP (loopback nginx)"
    else
        echo "### (d) seek to the middle over HTTP: first audio after --start / -ss"
    fi
    echo
    printf '| %-6s | %-7s | %-28s | %10s | %8s |\n' format start client "first, ms" requests
    printf '|%s|%s|%s|%s|%s|\n' -------- --------- ------------------------------ ------------ ----------
    for f in "${chosen[@]}"; do
        url="$base/files/$(basename "$(file "$f")")"
        if [[ "$measure" == c ]]; then
            first_audio "ffmpeg -f wav -" "$f" 0 ffmpeg -v error -i "$url" -f wav -
            first_audio "slipstream play" "$f" 0 "$bin" play "$url" --output wav:- -q
        else
            middle=$((seconds / 2))
            first_audio "ffmpeg -ss T -f wav -" "$f" "$middle" ffmpeg -v error -ss "$middle" -i "$url" -f wav -
            first_audio "slipstream play --start T" "$f" "$middle" "$bin" play "$url" --start "$middle" --output wav:- -q
        fi
    done
done
