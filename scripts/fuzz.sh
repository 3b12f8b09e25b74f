#!/usr/bin/env bash
# Fuzzes the parsers of untrusted bytes with libFuzzer: each target in turn, for SECONDS each
# (default 600), in one process each.
#   scripts/fuzz.sh [SECONDS] [TARGET...]          (default: every target)
# Targets (Fuzz/TARGET/, declared by Package.swift only when SLIPSTREAM_FUZZ=1):
#   AudioParserFuzzer   the audio stream parser, seeded with the first 64 KiB of each audio
#                       fixture (scripts/make-audio-fixtures.sh), those it refuses included
#   MP4ParserFuzzer     the MP4 stage, seeded with the MP4 fixtures whole: any split, jumping
#                       over the audio or not, gives the same packets, each the stream's bytes
#   FLACParserFuzzer    native FLAC: the parser in any split and across a discontinuity, and
#                       libFLAC fed every frame it finds; seeded with the heads of the FLAC
#                       fixtures
#   ICYMetadataFuzzer   a radio stream's ICY metadata: the filter under any cut of the stream,
#                       and each block's title
#   ResumeRecordFuzzer  the resume records beside a .part file (ControlFile, ResumeStore)
#   DownloadListFuzzer  download lists and session files (DownloadList), aria2's options kept
#   RPCRequestFuzzer    the daemon's JSON reader and writer, JSON-RPC requests and batches,
#                       aria2's GET form (base64 params, JSONP names), aria2's options and
#                       the Range header of a stream's request
#   MetalinkFuzzer      Metalink 4 and 3 documents (MetalinkDocument) and the XML reader under
#                       them: safe names, mirrors in order, hashes checked, written and read back
#   ExternalTextFuzzer  the readers of numbers and text from outside: the strict decimal
#                       reader, the checked conversions, and a text made fit to show (a URL's
#                       password out, terminal controls escaped)
#   ResponseHeadFuzzer  response heads: header lines, Content-Range, Content-Disposition file
#                       names, Retry-After and HTTP dates
#   WebSocketFramingFuzzer  what a WebSocket client sends after its handshake, to a real
#                       WebServer on a loopback port: only well-formed frames come back, the
#                       connection closes, and the server answers a good POST after each input
#   OggParserFuzzer     Ogg streams made from a script of pages (good checksums unless asked
#                       otherwise): pages, lacing, packets across pages, chained links, codec
#                       headers, and every packet decoded by libvorbis/libopus to its frames;
#                       seeded with the first pages of Ogg Vorbis and Opus files made by
#                       oggenc and opusenc
#   PlaylistFuzzer      playlists: telling them from audio (in any split), the M3U, PLS and
#                       XSPF parsers, the resolution of their entries and the walk through
#                       them; the HLS playlist reader, its choice of variant and the plan of
#                       get --hls
#   TransportStreamFuzzer  MPEG transport streams (HLS segments): the demuxer and the HLS segment
#                       reader (packed audio's ID3 tags, kinds told by the first bytes), whole
#                       and in any split; seeded with the first packets of streams ffmpeg
#                       muxes from the AAC and MP3 fixtures
# Each target checks invariants (round trips, bounds, agreement between ways of parsing), not
# only that nothing crashes; the non-audio ones write their own seeds from real values
# (SLIPSTREAM_FUZZ_SEEDS). They are built by SwiftPM itself, so they follow the package's real
# module graph: release mode with -sanitize=fuzzer,address, and -enable-testing (they check
# internal state), in a build folder of their own (.build/fuzz) so the normal build is untouched.
# A crash, a broken invariant, a hang (-timeout) or a memory blow-up ends that target's run with
# the input saved; the others still run, and the script exits 1 if any failed.
# Everything a run writes stays in FUZZ_DIR (default /tmp/slipstream-fuzz, outside the
# repository): TARGET/seeds, TARGET/corpus (the inputs worth keeping, reused by the next run),
# TARGET/crashes, and fixtures/ (or the fixtures in SLIPSTREAM_TEST_AUDIO, when set).
# Replay a saved input with: .build/fuzz/release/TARGET FILE
set -euo pipefail

seconds="${1:-600}"
shift || true
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${FUZZ_DIR:-/tmp/slipstream-fuzz}"
all=(AudioParserFuzzer MP4ParserFuzzer FLACParserFuzzer OggParserFuzzer ICYMetadataFuzzer ResumeRecordFuzzer DownloadListFuzzer RPCRequestFuzzer MetalinkFuzzer ExternalTextFuzzer ResponseHeadFuzzer PlaylistFuzzer TransportStreamFuzzer WebSocketFramingFuzzer)
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")
for target in "${targets[@]}"; do
    [[ " ${all[*]} " == *" $target "* ]] || { echo "fuzz: no target $target (${all[*]})" >&2; exit 2; }
done

build="$repo/.build/fuzz"
for target in "${targets[@]}"; do
    SLIPSTREAM_FUZZ=1 swift build --package-path "$repo" --scratch-path "$build" -c release --product "$target" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -g -Xswiftc -use-ld=lld
done

failed=()
# What failed, for scripts/test.sh to print again after its summary (a CI log is read from its end).
failures="$dir/failures.txt"
mkdir -p "$dir"
rm -f "$failures"
for target in "${targets[@]}"; do
    work="$dir/$target"
    mkdir -p "$work/corpus" "$work/crashes" "$work/seeds"
    flags=()
    if [[ "$target" == AudioParserFuzzer || "$target" == FLACParserFuzzer ]]; then
        # The first 64 KiB of every fixture: the head holds the tags, headers and first frames.
        fixtures="${SLIPSTREAM_TEST_AUDIO:-$dir/fixtures}"
        "$repo/scripts/make-audio-fixtures.sh" "$fixtures"
        seeds=("$fixtures"/*.{mp3,mp2,aac,wav,flac,aiff,caf} "$fixtures"/unsupported-*)
        [[ "$target" == FLACParserFuzzer ]] && seeds=("$fixtures"/*.flac)
        for file in "${seeds[@]}"; do
            head -c 65536 "$file" > "$work/seeds/$(basename "$file")"
        done
        flags+=(-max_len=65536)
    elif [[ "$target" == MP4ParserFuzzer ]]; then
        fixtures="${SLIPSTREAM_TEST_AUDIO:-$dir/fixtures}"
        "$repo/scripts/make-audio-fixtures.sh" "$fixtures"
        cp "$fixtures"/mp4-*.m4a "$fixtures"/mp4-*.m4b "$fixtures"/mp4-*.mp4 "$work/seeds/"
        flags+=(-max_len=65536)
    elif [[ "$target" == TransportStreamFuzzer ]]; then
        fixtures="${SLIPSTREAM_TEST_AUDIO:-$dir/fixtures}"
        "$repo/scripts/make-audio-fixtures.sh" "$fixtures"
        for name in aac-lc-128k.aac aac-lc-22050-mono.aac mp3-cbr128-noxing.mp3; do
            # A leading 0: the byte that seeds the read sizes.
            ffmpeg -v error -y -i "$fixtures/$name" -map 0:a -c copy -f mpegts "$work/whole.ts"
            { printf '\0'; head -c 32768 "$work/whole.ts"; } > "$work/seeds/$name.ts"
            rm "$work/whole.ts"
        done
        flags+=(-max_len=65536)
    elif [[ "$target" == OggParserFuzzer ]]; then
        ogg="$work/ogg"
        mkdir -p "$ogg"
        sox -R -D -n -r 44100 -c 2 -b 16 "$ogg/s.wav" synth 1 sine 220-3520 pinknoise gain -6
        oggenc -Q -q 1 -o "$ogg/q1.ogg" "$ogg/s.wav"
        oggenc -Q -q 6 --resample 22050 -o "$ogg/q6-22050.ogg" "$ogg/s.wav"
        opusenc --quiet --bitrate 32 "$ogg/s.wav" "$ogg/32k.opus"
        opusenc --quiet --bitrate 96 --framesize 5 --title T "$ogg/s.wav" "$ogg/96k.opus"
        cat "$ogg/q1.ogg" "$ogg/32k.opus" > "$ogg/chained.ogg"
        rm "$ogg/s.wav"
        SLIPSTREAM_FUZZ_SEEDS="$work/seeds" SLIPSTREAM_FUZZ_OGG="$ogg" "$build/release/$target"
        flags+=(-max_len=65536)
    else
        SLIPSTREAM_FUZZ_SEEDS="$work/seeds" "$build/release/$target"
    fi
    echo "fuzz: $target for $seconds s"
    # -timeout: seconds per input before it counts as a hang; -rss_limit_mb / -malloc_limit_mb:
    # memory before it counts as a blow-up. Swift's own backtracer is off: it fights ASan over a
    # crashing process, and libFuzzer reports anyway.
    status=0
    # TMPDIR: where a target keeps files of its own (ResumeRecordFuzzer's records), also after a crash.
    TMPDIR="$work" SWIFT_BACKTRACE=enable=no "$build/release/$target" "$work/corpus" "$work/seeds" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
        -print_final_stats=1 -artifact_prefix="$work/crashes/" "${flags[@]}" \
        > "$work/log" 2>&1 || status=$?
    grep -E '^(Done [0-9]+ runs|#[0-9]+ +DONE)' "$work/log" || true
    if ((status != 0)); then
        failed+=("$target")
        tail -n 40 "$work/log" >&2
        { echo "== $target (status $status)"; tail -n 40 "$work/log"; } >> "$failures"
        echo "fuzz: $target failed (status $status); the input is in $work/crashes/;" \
            "replay it with $build/release/$target FILE" >&2
    fi
done
if ((${#failed[@]})); then
    echo "fuzz: failed: ${failed[*]}" >&2
    exit 1
fi
