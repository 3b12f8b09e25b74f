#!/usr/bin/env bash
# Builds the release binary (.build/release/slipstream) the way it is meant to run: Swift's own
# libraries linked in (--static-swift-stdlib), so that it starts about 7 ms sooner (the dynamic
# loader no longer resolves their symbols at every start), and linked by lld (ld.gold warns
# about a mktemp call inside the toolchain's static Foundation). Extra arguments go to
# `swift build`, e.g. --scratch-path DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib -Xswiftc -use-ld=lld --product slipstream "$@"
