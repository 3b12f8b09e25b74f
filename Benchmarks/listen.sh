#!/usr/bin/env bash
# Listening while it downloads (issue 30): `slipstream play URL --keep FILE -n 8` against the
# ways to do it without it, in the same run, and prints a table per format.
#
#   Benchmarks/listen.sh [--runs N] [--only mp3|flac]      (default 3 runs; medians)
#   LISTEN_MINUTES=M     the audio's length (default 60); the seek goes to three quarters of it
#   LISTEN_CACHE=DIR     where the audio is kept between runs (default ~/.cache/slipstream-benchmarks)
#   LISTEN_LIMIT=S       how long a first audio or a seek may take before it counts as none (60)
#   SLIPSTREAM_BIN=FILE  the slipstream binary to measure (default: built here, as lib.sh does)
# With SLIPSTREAM_BASELINE set to another slipstream binary, its rows are measured too ("before: ").
#
# The audio, made with ffmpeg the first time and kept in LISTEN_CACHE (a stamp of the recipe
# beside it):
#   mp3:  M minutes of 44.1 kHz stereo pink noise and a 440 Hz tone, LAME CBR 320 kbit/s;
#   flac: M minutes of 192 kHz 24-bit stereo white noise (two independent channels, amplitude
#         0.0004 of full scale), FLAC level 0: about 5.5 Mbit/s, so that 1.5x its rate is about
#         1 MiB/s.
# Served by the benchmarks' nginx, each connection held to 1.5x the file's own bit rate (its
# size over its duration; nginx's limit_rate): one connection plays with room to spare, 8
# fetch the file in 1 / 12 of its duration.
#
# The clients:
#   slipstream play URL               one connection, nothing kept
#   slipstream play URL --keep FILE -n 8
#                                     (rows "n/a" while the binary's `play --help` has no --keep)
#   mpv (cache)                       mpv --cache=yes URL
#   mpv (cache) fastseek              the same with --demuxer-lavf-o=fflags=+fastseek, first
#                                     audio and seek only: without it, FFmpeg's MP3 demuxer
#                                     seeks by reading every byte up to the target (one request
#                                     that runs at 1.5x real time), with it by the bit rate
#   aria2c inorder + mpv              aria2c -x8 -s8 -k1M --stream-piece-selector=inorder
#                                     --file-allocation=none --disk-cache=0 (its 16 MiB cache
#                                     writes a piece only when it is whole: mpv's first audio
#                                     came 17 s later with it), and mpv playing the file it
#                                     writes (appending://FILE, mpv's way of reading a file that
#                                     grows), started once the file exists and is not empty
#   slipstream get -n 8               the download alone
# Every player writes WAV to a pipe (slipstream `--output wav:-`, mpv `--ao=pcm` to standard
# output) that Benchmarks/listen.py drains in real time at the rate the WAV header states, as a
# sound card would: the same measure for every player.
#   first audio   start (of aria2c, for its row) to the first PCM byte after the WAV header;
#                 the requests nginx logged for the file until then
#   seek          the same with the start at three quarters (45:00 of 60 minutes): slipstream
#                 `--start`, mpv `--start=`, before anything is fetched
#   fetched seek  `play URL --keep FILE --start 45:00` again once FILE is complete: a seek into
#                 fetched bytes (the player's own seek, a key on a terminal, tells no script when
#                 its audio comes)
#   complete      to the file complete: get and aria2c exit, FILE renamed into place by --keep;
#                 compared with the source byte for byte
#   underruns     while the file downloads (the players side by side, each observed for 1.1x
#                 the ideal download time, and on until its file is complete): times the pipe
#                 ran dry by more than 0.1 s of audio; seconds waited; seconds of digital
#                 silence (the audio is noise: a hole played as zeros)
# The side-by-side part runs all the clients of a format at once: each connection has its own
# limit, and decoding in real time is a small load.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_arguments 3 "mp3|flac" "$@"
minutes="${LISTEN_MINUTES:-60}"
cache="${LISTEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipstream-benchmarks}"
limit="${LISTEN_LIMIT:-60}"
bench_start listen
seconds=$((minutes * 60))
seek=$((seconds * 3 / 4))
seek_label="$(printf '%d:%02d' $((seek / 60)) $((seek % 60)))"
ideal=$((seconds / 12))
watch=$((ideal * 11 / 10))

# recipe FORMAT: the ffmpeg arguments that make the audio of FORMAT.
recipe() {
    local d="d=$seconds"
    case "$1" in
        mp3) echo "-f lavfi -i anoisesrc=$d:c=pink:a=0.3:r=44100 -f lavfi -i sine=f=440:$d" \
            "-filter_complex amix=inputs=2 -ac 2 -c:a libmp3lame -b:a 320k" ;;
        flac) echo "-f lavfi -i anoisesrc=$d:c=white:a=0.0004:r=192000:seed=1" \
            "-f lavfi -i anoisesrc=$d:c=white:a=0.0004:r=192000:seed=2" \
            "-filter_complex [0][1]join=inputs=2:channel_layout=stereo" \
            "-sample_fmt s32 -bits_per_raw_sample 24 -c:a flac -compression_level 0" ;;
    esac
}
# fixture FORMAT: the path of its audio in the cache, made when missing or of another recipe.
fixture() {
    local path="$cache/listen-$minutes-min.$1" stamp
    stamp="$(recipe "$1" | sha256sum | cut -d' ' -f1)"
    if [[ ! -f "$path" || "$(cat "$path.stamp" 2>/dev/null)" != "$stamp" ]]; then
        mkdir -p "$cache"
        echo "making $minutes minutes of $1 in $cache (once)..." >&2
        # shellcheck disable=SC2046
        ffmpeg -nostdin -v error -y $(recipe "$1") "$path.tmp.$1"
        mv "$path.tmp.$1" "$path"
        echo "$stamp" > "$path.stamp"
    fi
    echo "$path"
}

mpv=(mpv --no-config --no-terminal --no-video --ao=pcm --ao-pcm-file=/dev/stdout)
aria_inorder="aria2c -q --allow-overwrite=true --auto-file-renaming=false --file-allocation=none"
aria_inorder+=" --summary-interval=0 -x8 -s8 -k1M --stream-piece-selector=inorder --disk-cache=0"
# keeps BINARY: whether its `play` has --keep (grep reads it all: with pipefail, grep -q could
# end the pipe early and the help, cut off by SIGPIPE, fail the test).
keeps() { "$1" play --help 2>/dev/null | grep -- '--keep' >/dev/null; }

# The clients: "label|kind|binary".
clients=("slipstream play URL|play|$bin" "slipstream play URL --keep FILE -n 8|keep|$bin"
    "mpv (cache)|mpv|" "mpv (cache) fastseek|mpvfast|" "aria2c inorder + mpv|aria2c|"
    "slipstream get -n 8|get|$bin")
if [[ -n "${SLIPSTREAM_BASELINE:-}" ]]; then
    for entry in "${clients[@]}"; do
        [[ "$entry" == slipstream* ]] && clients+=("before: ${entry%%|*}|$(cut -d'|' -f2 <<< "$entry")|$SLIPSTREAM_BASELINE")
    done
fi

# client_args KIND BINARY DIR START: sets $largs, listen.py's arguments for the client of KIND
# writing into DIR, starting at START seconds (0: the beginning); $url and $name are the file's.
client_args() {
    local kind="$1" exe="$2" dir="$3" start="$4" from=() mpv_from=()
    local file="$dir/$name"
    if ((start)); then
        from=(--start "$start")
        mpv_from=("--start=$start")
    fi
    case "$kind" in
        play) largs=(-- "$exe" play "$url" "${from[@]}" --output wav:- -q) ;;
        keep) largs=(--complete "$file" -- "$exe" play "$url" --keep "$file" -n 8 "${from[@]}" --output wav:- -q) ;;
        mpv) largs=(-- "${mpv[@]}" "--log-file=$dir.mpv.log" --cache=yes "${mpv_from[@]}" "$url") ;;
        mpvfast) largs=(-- "${mpv[@]}" --cache=yes --demuxer-lavf-o=fflags=+fastseek "${mpv_from[@]}" "$url") ;;
        aria2c) largs=(--fetch "$aria_inorder -d $dir -o $name $url" --after "$file"
            -- "${mpv[@]}" "--log-file=$dir.mpv.log" "${mpv_from[@]}" "appending://$file") ;;
        get) largs=(--fetch "$exe get -q --force -n 8 -o $file $url") ;;
    esac
}
# record FORMAT LABEL MEASURE VALUE: a line of the results.
record() { printf '%s\t%s\t%s\t%s\n' "$@" >> "$results"; }
# requests: the requests nginx has logged for the file so far.
requests() { grep -c " /rate/$name?" "$work/access.log" || true; }
# first FORMAT LABEL KIND BINARY MEASURE START [DIR]: one first audio (MEASURE first, seek or
# fetched) and the requests made for it; DIR, if given, is the folder with the client's file
# (by default a new empty one).
first() {
    local format="$1" label="$2" kind="$3" exe="$4" measure="$5" start="$6" line before
    local dir="${7:-$out/$kind}"
    if [[ -z "${7:-}" ]]; then
        rm -rf "$dir" && mkdir -p "$dir"
        sync
    fi
    client_args "$kind" "$exe" "$dir" "$start"
    before=$(requests)
    line=$(python3 Benchmarks/listen.py --first --limit "$limit" --log "$work/$kind.log" "${largs[@]}")
    # nginx logs a request when its connection ends: the client's, stopped just now.
    sleep 1
    record "$format" "$label" "$measure" "$(cut -f1 <<< "$line")"
    record "$format" "$label" "${measure}_requests" "$(($(requests) - before))"
    [[ -n "$(cut -f7 <<< "$line")" ]] && record "$format" "$label" note "$measure: $(cut -f7 <<< "$line")"
    echo "  $format $label $measure: $(cut -f1 <<< "$line") s" >&2
}

: > "$results"
formats=(mp3 flac)
[[ -n "$only" ]] && formats=("$only")
for format in "${formats[@]}"; do
    source_file="$(fixture "$format")"
    name="hour.$format"
    ln -sf "$source_file" "$files/$name"
done
for ((round = 1; round <= runs; round++)); do
    for format in "${formats[@]}"; do
        name="hour.$format"
        source_file="$files/$name"
        rate=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$source_file" |
            awk -v size="$(stat -L -c %s "$source_file")" '{ printf "%d", 1.5 * size / $1 }')
        url="$base/rate/$name?rate=$rate"
        echo "round $round, $format at $rate bytes/s per connection" >&2
        ((round == 1)) && record "$format" - rate "$rate"
        record "$format" - load "$(cut -d' ' -f1 /proc/loadavg)"
        for entry in "${clients[@]}"; do
            IFS='|' read -r label kind exe <<< "$entry"
            [[ "$kind" == get ]] && continue
            if [[ "$kind" == keep ]] && ! keeps "$exe"; then continue; fi
            first "$format" "$label" "$kind" "$exe" first 0
            first "$format" "$label" "$kind" "$exe" seek "$seek"
        done
        echo "  $format: the clients side by side, $watch s or more..." >&2
        pids=()
        for entry in "${clients[@]}"; do
            IFS='|' read -r label kind exe <<< "$entry"
            [[ "$kind" == mpvfast ]] && continue
            if [[ "$kind" == keep ]] && ! keeps "$exe"; then continue; fi
            dir="$out/${label//[^a-z0-9]/_}"
            rm -rf "$dir" && mkdir -p "$dir"
            client_args "$kind" "$exe" "$dir" 0
            python3 Benchmarks/listen.py --watch "$watch" --limit $((ideal * 3)) --log "$dir.log" \
                "${largs[@]}" > "$dir.txt" &
            pids+=($!)
        done
        wait "${pids[@]}"
        for entry in "${clients[@]}"; do
            IFS='|' read -r label kind exe <<< "$entry"
            dir="$out/${label//[^a-z0-9]/_}"
            [[ -f "$dir.txt" ]] || continue
            IFS=$'\t' read -r _ complete underruns stalled silent heard note < "$dir.txt" || true
            record "$format" "$label" complete "$complete"
            if [[ "$kind" != get ]]; then
                record "$format" "$label" underruns "$underruns"
                record "$format" "$label" stalled "$stalled"
                record "$format" "$label" silent "$silent"
                record "$format" "$label" heard "$heard"
            fi
            [[ -n "$note" ]] && record "$format" "$label" note "side by side: $note"
            if [[ -f "$dir.mpv.log" ]]; then
                # mpv's errors and warnings ("[e]", "[w]" in its log), e.g. on holes in the file.
                problems=$(grep -c '\]\[[ew]\]\[' "$dir.mpv.log" || true)
                ((problems)) && record "$format" "$label" note \
                    "side by side: mpv logged $problems errors and warnings, first: $(grep -m1 '\]\[[ew]\]\[' "$dir.mpv.log" | cut -c1-120)"
            fi
            if [[ "$complete" != - ]]; then
                exact=0
                cmp -s "$dir/$name" "$source_file" && exact=1
                record "$format" "$label" exact "$exact"
                if [[ "$kind" == keep ]] && ((exact)); then
                    first "$format" "$label" "$kind" "$exe" fetched "$seek" "$dir"
                fi
            fi
            echo "  $format $label: complete $complete s, underruns $underruns" >&2
            rm -rf "$dir" "$dir.txt" "$dir.mpv.log"
        done
    done
done

python3 Benchmarks/listenreport.py "$results" --runs "$runs" --minutes "$minutes" --seek "$seek_label"
