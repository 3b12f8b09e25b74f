#!/usr/bin/env bash
# Runs the client tests (Tests/Clients, pytest): aria2's clients (aria2p, a WebSocket client,
# raw JSON-RPC) and the page in chromium against `slipstream daemon`, and the same requests
# against `aria2c --enable-rpc` with the answers' shapes compared. Builds nothing: the binary is
# $SLIPSTREAM_BIN (default .build/debug/slipstream). Installs the Python packages it needs, and
# Debian's aria2 and chromium through scripts/setup.sh.
#   scripts/clients.sh [pytest arguments, e.g. -k compare or -x]
# Uses the test nginx that scripts/test.sh starts (SLIPSTREAM_TEST_NGINX_PORT, SLIPSTREAM_TEST_WWW,
# SLIPSTREAM_TEST_WORK); run alone, it starts one of its own and stops it at the end.
# SLIPSTREAM_CLIENTS_TARGETS=aria2c runs the two-server tests against aria2c alone.
set -euo pipefail
cd "$(dirname "$0")/.."

{ command -v aria2c && command -v chromium; } >/dev/null || scripts/setup.sh
# Playwright drives Debian's chromium in the page's test (test_page.py); no browser of its own.
python3 -c 'import aria2p, websocket, pytest, playwright' 2>/dev/null || pip install -q aria2p websocket-client pytest playwright

export SLIPSTREAM_BIN="${SLIPSTREAM_BIN:-$PWD/.build/debug/slipstream}"
if [[ -z "${SLIPSTREAM_TEST_NGINX_PORT:-}" || -z "${SLIPSTREAM_TEST_WWW:-}" ]]; then
    source scripts/nginx.sh
    work="$(mktemp -d /tmp/slipstream-clients.XXXXXX)"
    trap 'nginx_stop; rm -rf "$work"' EXIT
    nginx_start "$work"
    export SLIPSTREAM_TEST_NGINX_PORT="$NGINX_PORT"
    export SLIPSTREAM_TEST_WWW="$work/www/files"
    export SLIPSTREAM_TEST_WORK="$work"
fi
# The tests start servers and read their files: descriptors as scripts/test.sh allows them.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# No caches or bytecode left in the tree.
PYTHONDONTWRITEBYTECODE=1 python3 -m pytest Tests/Clients -q -p no:cacheprovider "$@"
