#!/usr/bin/env bash
# Sets up the machine, starts nginx on a free loopback port, runs every test, stops nginx
# (also on failure) and exits with the tests' status.
#   scripts/test.sh [extra swift test arguments, e.g. --filter PieceMap]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
source scripts/nginx.sh
source scripts/pulse.sh

work="$(mktemp -d /tmp/slipstream-test.XXXXXX)"
cleanup() { pulse_stop; nginx_stop; rm -rf "$work"; }
trap cleanup EXIT

nginx_start "$work"
export SLIPSTREAM_TEST_NGINX_PORT="$NGINX_PORT"
export SLIPSTREAM_TEST_PROXY_PORT="$NGINX_PROXY_PORT"
export SLIPSTREAM_TEST_WWW="$work/www/files"
export SLIPSTREAM_TEST_WORK="$work"
# A headless PulseAudio server with a null sink (empty if it cannot run: its tests skip).
pulse_start "$work"
export SLIPSTREAM_TEST_PULSE_SERVER="$PULSE_TEST_SERVER"
# Audio fixtures, generated from Debian's encoders (never committed).
if [[ -x scripts/make-audio-fixtures.sh ]]; then
    scripts/make-audio-fixtures.sh "$work/audio"
    export SLIPSTREAM_TEST_AUDIO="$work/audio"
fi

swift build
status=0
swift test "$@" || status=$?
exit "$status"
