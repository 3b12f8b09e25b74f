#!/usr/bin/env bash
# Builds the release binary (.build/release/slipstream) the way it is meant to run:
# - Swift's own libraries linked in (--static-swift-stdlib): it starts about 7 ms sooner, as the
#   dynamic loader no longer resolves their symbols at every start;
# - linked by lld (ld.gold warns about a mktemp call inside the toolchain's static Foundation);
# - optimized across modules (-cross-module-optimization): more of one module's generic code
#   used by another is specialized for its types instead of looked up at run time (not all:
#   EventChannel's delivery still is); a thousand small downloads take about 10% less CPU;
# - its relative relocations packed (-z pack-relative-relocs, glibc 2.36 and later): the loader
#   reads 8 KB of them instead of 950 KB, which stayed resident (0.85 MiB less for every run);
# - no dynamic symbol table of its own (--no-export-dynamic, after SwiftPM's --export-dynamic,
#   which exists for tests that link an executable's debug build): nothing looks a symbol up
#   in the executable, and every package or public declaration of the libraries was in it
#   (185 KB of .dynsym and 434 KB of .dynstr once the media module made the format code
#   `package`; 9 KB and 11 KB without).
# - its functions laid out in the order of scripts/slipstream.order (written by scripts/order.sh):
#   those a download or a playback runs next to each other, so that fewer pages of code are
#   resident (the kernel maps 64 KiB around each one it faults in). Only the runtime's C++ and
#   Dispatch are in sections of their own per function, so only those move: `--version` peaked
#   at 7.2 MiB, now 5.7 MiB, and a download or a playback holds 1.6-2 MiB less.
# Extra arguments go to `swift build`, e.g. --scratch-path DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xswiftc -cross-module-optimization \
    -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
    -Xlinker --symbol-ordering-file="$PWD/scripts/slipstream.order" -Xlinker --no-warn-symbol-ordering \
    --product slipstream "$@"
