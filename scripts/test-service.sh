#!/usr/bin/env bash
# Starts one thing the tests need, for a test process run without scripts/test.sh (a plain
# `swift test`): Tests/TestSupport/TestServices.swift runs it on first use.
#   scripts/test-service.sh nginx   nginx on a free loopback port, with its forward proxy
#   scripts/test-service.sh pulse   a headless PulseAudio server with a null sink
# Each makes a folder of its own under /tmp, prints the variables scripts/test.sh would set
# (NAME=VALUE lines) and then `ready`, and keeps the service until its standard input closes:
# the test process holds the other end, so the service stops, and its folder goes, when that
# process ends, however it ends. Exits 1, having said why on standard error, when the service
# cannot start.
#   scripts/test-service.sh audio DIR
# Makes the audio fixtures in DIR (scripts/make-audio-fixtures.sh, one process at a time, under
# a lock; a DIR already made by the same script is kept), prints SLIPSTREAM_TEST_AUDIO=DIR and
# `ready`, and exits.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

# Every other descriptor of the test process is closed already (Foundation's Process closes
# them in the child) but one: a socket whose closing tells Foundation that this process ended.
# It must stay open (Foundation then waits for this process, blocking the thread that reaps
# every other child of the test process), and the services keep it too: it closes when they
# and this script are gone.

case "${1:-}" in
nginx)
    source "$here/nginx.sh"
    run="$(mktemp -d /tmp/slipstream-swift-test.XXXXXX)"
    trap 'nginx_stop; rm -rf "$run"' EXIT
    trap 'exit 1' INT TERM HUP
    command -v nginx > /dev/null || { echo "nginx is not installed" >&2; exit 1; }
    # Its output goes to standard error: standard output is for the variables alone.
    nginx_start "$run" >&2
    echo "SLIPSTREAM_TEST_NGINX_PORT=$NGINX_PORT"
    echo "SLIPSTREAM_TEST_PROXY_PORT=$NGINX_PROXY_PORT"
    echo "SLIPSTREAM_TEST_WWW=$run/www/files"
    echo "SLIPSTREAM_TEST_WORK=$run"
    ;;
pulse)
    source "$here/pulse.sh"
    run="$(mktemp -d /tmp/slipstream-swift-test.XXXXXX)"
    trap 'pulse_stop; rm -rf "$run"' EXIT
    trap 'exit 1' INT TERM HUP
    pulse_start "$run" >&2
    [[ -n "$PULSE_TEST_SERVER" ]] || exit 1
    echo "SLIPSTREAM_TEST_PULSE_SERVER=$PULSE_TEST_SERVER"
    ;;
audio)
    dir="${2:?usage: test-service.sh audio DIR}"
    mkdir -p "$(dirname "$dir")"
    exec 9> "$dir.lock"
    flock 9
    "$here/make-audio-fixtures.sh" "$dir" >&2
    echo "SLIPSTREAM_TEST_AUDIO=$dir"
    echo ready
    exit 0
    ;;
*)
    echo "usage: test-service.sh nginx|pulse|audio DIR" >&2
    exit 2
    ;;
esac
echo ready
# Nothing more on standard output (the test process has stopped reading it): wait for the end
# of standard input, then the EXIT trap stops the service.
exec >&2
cat > /dev/null || true
