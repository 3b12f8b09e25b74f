#!/usr/bin/env bash
# Builds each library's documentation with the toolchain's docc, every warning an error (an
# unresolved symbol link, a broken article reference): scripts/test.sh, and so CI, runs it.
#   scripts/docs.sh [OUTPUT_DIR]      (default .build/docs)
# The symbol graphs come from building the libraries with -emit-symbol-graph, which also lists
# the public part of SlipstreamCore that each library re-exports (EventStream and the rest;
# `swift package dump-symbol-graph` leaves it out). The flags differ from a normal build's, so it
# builds in a folder of its own (.build/docs-build): the normal build is not redone, and after
# the first time only what changed is rebuilt (a module rewrites its graph when it is rebuilt).
# Each catalog, Sources/MODULE/MODULE.docc, is converted with its module's graphs into
# OUTPUT_DIR/MODULE.doccarchive. To read one while writing: docc preview
# Sources/MODULE/MODULE.docc --additional-symbol-graph-dir OUTPUT_DIR/symbol-graphs/MODULE
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-.build/docs}"
modules=(SlipstreamHTTP SlipstreamDownload SlipstreamMedia SlipstreamAudio SlipstreamDaemon)
scratch=.build/docs-build
graphs="$PWD/$scratch/symbol-graphs"

# A graph can only be missing when its folder was removed and the build was not: start over.
for module in "${modules[@]}"; do
    [[ -f "$graphs/$module.symbols.json" ]] || { rm -rf "$scratch"; break; }
done
mkdir -p "$graphs"
for module in "${modules[@]}"; do
    swift build --scratch-path "$scratch" --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
done

mkdir -p "$out"
for module in "${modules[@]}"; do
    # The module's own graph, and those of its extensions to other modules' types.
    rm -rf "$out/symbol-graphs/$module" "$out/$module.doccarchive"
    mkdir -p "$out/symbol-graphs/$module"
    cp "$graphs/$module.symbols.json" "$out/symbol-graphs/$module/"
    for extension in "$graphs/$module"@*.symbols.json; do
        if [[ -e "$extension" ]]; then cp "$extension" "$out/symbol-graphs/$module/"; fi
    done
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$out/symbol-graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.slipstream.$module" \
        --output-dir "$out/$module.doccarchive" --warnings-as-errors
done
