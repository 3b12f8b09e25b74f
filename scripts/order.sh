#!/usr/bin/env bash
# Writes scripts/slipstream.order, the order scripts/build.sh has the linker lay the release
# binary's functions out in (--symbol-ordering-file): the functions that a download and the
# playback of each kind of stream run, first those that every command runs, next to each other.
# A page of code is resident once any function on it runs, and the kernel maps 64 KiB around
# each page it faults in: scattered, the functions a download runs kept 5.7 MiB of the binary
# resident; together, far less (Docs/memory.md has the figures). A function missing from the
# list (new, renamed) still works, it only lies elsewhere: run this again after large changes.
#
#   scripts/order.sh      (builds the release binary first; runs it under valgrind's callgrind,
#                          against a loopback nginx; about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
# (The build reads the list: an empty one, the first time.)
[[ -e scripts/slipstream.order ]] || : > scripts/slipstream.order
scripts/build.sh >/dev/null
bin="$(realpath .build/release/slipstream)"
source scripts/nginx.sh
work="$(mktemp -d /tmp/slipstream-order.XXXXXX)"
trap 'nginx_stop; rm -rf "$work"' EXIT
nginx_start "$work"
files="$work/www/files"
base="http://127.0.0.1:$NGINX_PORT/files"
scripts/make-audio-fixtures.sh "$work/fixtures" >/dev/null
head -c $((16 << 20)) /dev/urandom > "$files/16m.bin"
for fixture in mp3-cbr128.mp3 flac-16-seektable.flac mp4-aac-long-faststart.m4a; do
    cp "$work/fixtures/$fixture" "$files/"
done
ffmpeg -nostdin -loglevel error -i "$work/fixtures/aac-lc-128k.aac" -c copy -f hls -hls_time 2 \
    -hls_playlist_type vod -hls_segment_filename "$files/h_%d.ts" "$files/h.m3u8"

runs=(
    "--version"
    "info $base/mp3-cbr128.mp3"
    "get -q -n 1 -o $work/out1 $base/16m.bin"
    "get -q -n 8 -o $work/out8 $base/16m.bin"
    "get -q -n 16 -o $work/out16 $base/16m.bin"
    "play $base/mp3-cbr128.mp3 --output null -q"
    "play $base/flac-16-seektable.flac --output null -q"
    "play $base/mp4-aac-long-faststart.m4a --output null -q"
    "play $base/h.m3u8 --output null -q"
)
for i in "${!runs[@]}"; do
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/run.$i" "$bin" ${runs[$i]} >/dev/null 2>&1
done

# The binary's functions that ran, those of more runs first, else in the order they first ran.
python3 - "$bin" "$work"/run.* > scripts/slipstream.order <<'EOF'
import collections, re, subprocess, sys

binary, profiles = sys.argv[1], sorted(sys.argv[2:], key=lambda p: int(p.rsplit(".", 1)[1]))
nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True)
functions = {f[2] for f in (line.split(maxsplit=2) for line in nm.stdout.splitlines()) if len(f) == 3 and f[1] in "tTwW"}
runs, first = collections.Counter(), {}
for profile in profiles:
    names, seen = {}, set()
    for line in open(profile, errors="replace"):
        match = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not match:
            continue
        if match.group(2):
            names[match.group(1)] = match.group(2)
        name = names.get(match.group(1))
        if name in functions and name not in seen:
            seen.add(name)
            first.setdefault(name, len(first))
    runs.update(seen)
for name in sorted(runs, key=lambda n: (-runs[n], first[n])):
    print(name)
EOF
echo "scripts/slipstream.order: $(wc -l < scripts/slipstream.order) functions"
# Linked again in the new order (swift build does not know the linker reads the list).
rm -f "$bin"
scripts/build.sh >/dev/null
