#!/usr/bin/env bash
# Sets up the machine, starts nginx, Icecast and a headless PulseAudio server, makes the audio
# fixtures, runs every test and then the other checks, stops what it started (also on failure),
# prints how long each step took, and exits 1 if any step failed.
#   scripts/test.sh [extra swift test arguments, e.g. --filter PieceMap]
# With swift test arguments only the tests run. Without, the steps after them run too, each on
# by default (CI runs them all):
#   fuzz smoke  each fuzz target for SLIPSTREAM_FUZZ_SMOKE seconds (default 7; 0 skips it), with
#               its corpus and any failing input in .build/fuzz-smoke (kept after the run)
#   lint        scripts/lint.sh, as SLIPSTREAM_LINT says: strict fails on any finding, warn
#               lists the findings by rule without failing, off skips it (default: lint_default)
#   docs        scripts/docs.sh: each library's DocC catalog, warnings as errors
#               (SLIPSTREAM_DOCS=0 skips it)
#   examples    scripts/examples.sh: the Examples package builds, the README shows its
#               marked parts to the letter, and its tests (the libraries' public API as a
#               program meets it) pass against these services
#   clients     scripts/clients.sh: `slipstream daemon` driven by aria2p, a WebSocket client
#               and raw JSON-RPC, its page in chromium (Playwright), and the same requests
#               sent to `aria2c --enable-rpc` with the answers' shapes compared
set -euo pipefail

# The tree is formatted (scripts/lint.sh --format): any finding fails the run.
lint_default=strict
cd "$(dirname "$0")/.."

scripts/setup.sh
# A whole run holds some 700 descriptors at its peak (the in-test servers, connections and files
# of the tests running at once): where the soft limit is 1024, take the hard one. A server out of
# descriptors stops accepting, and a download held at its gate then waits for good.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
source scripts/nginx.sh
source scripts/pulse.sh
source scripts/icecast.sh

work="$(mktemp -d /tmp/slipstream-test.XXXXXX)"
cleanup() { icecast_stop; pulse_stop; nginx_stop; rm -rf "$work"; }
trap cleanup EXIT

nginx_start "$work"
export SLIPSTREAM_TEST_NGINX_PORT="$NGINX_PORT"
export SLIPSTREAM_TEST_PROXY_PORT="$NGINX_PROXY_PORT"
export SLIPSTREAM_TEST_WWW="$work/www/files"
export SLIPSTREAM_TEST_WORK="$work"
# Icecast, for the live-stream tests (its folder inside $work, which nginx_start opened to it).
icecast_start "$work/icecast"
export SLIPSTREAM_TEST_ICECAST_PORT="$ICECAST_PORT"
export SLIPSTREAM_TEST_ICECAST_SOURCE_PASSWORD="$ICECAST_SOURCE_PASSWORD"
export SLIPSTREAM_TEST_ICECAST_ADMIN_USER="$ICECAST_ADMIN_USER"
export SLIPSTREAM_TEST_ICECAST_ADMIN_PASSWORD="$ICECAST_ADMIN_PASSWORD"
export SLIPSTREAM_TEST_ICECAST_TINY_METAINT="$ICECAST_TINY_METAINT"
# A headless PulseAudio server with a null sink (empty if it cannot run: its tests skip).
pulse_start "$work"
export SLIPSTREAM_TEST_PULSE_SERVER="$PULSE_TEST_SERVER"
# Audio fixtures, generated from Debian's encoders (never committed).
scripts/make-audio-fixtures.sh "$work/audio"
export SLIPSTREAM_TEST_AUDIO="$work/audio"

# step NAME COMMAND...: runs a step, timing it; a failing step fails the run, after the others.
summary=()
failed=0
step() {
    local name="$1" start status=0
    shift
    echo "==> $name"
    start=$SECONDS
    "$@" || status=$?
    summary+=("$(printf '%-12s %-6s %4d s' "$name" "$( ((status == 0)) && echo ok || echo FAILED)" $((SECONDS - start)))")
    ((status == 0)) || failed=1
}

# swift test, ended if it runs past SLIPSTREAM_TEST_LIMIT seconds (default 1500; a whole run
# takes about 5-10 minutes): a hung test then fails the run with the tests that never ended and
# every thread's stack printed, where it hangs, instead of running into CI's own limit with
# nothing said. The same list is printed again after the summary (.build/tests-hung.txt), where
# the tail of a long log shows it.
tests_within_limit() {
    local limit="${SLIPSTREAM_TEST_LIMIT:-1500}" start=$SECONDS pid status=0
    local log=.build/tests.log hung=.build/tests-hung.txt
    rm -f "$hung"
    swift test "$@" > >(tee "$log") 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if ((SECONDS - start > limit)); then
            {
                echo "tests ran past ${limit} s; these started and never ended:"
                unfinished_tests "$log"
                for test_pid in $(pgrep -f 'PackageTests.xctest'); do
                    echo "threads of $test_pid in this project's code (whole stacks in the log above):"
                    gdb -p "$test_pid" -batch -ex "thread apply all bt 40" 2>&1 \
                        | grep -E '^(Thread|#)' | tee -a "$log" \
                        | grep -E '^Thread|Slipstream|Tests' | grep -v -E 'XCTest|swift_task|Testing\.' | head -150
                done
            } | tee "$hung"
            pkill -9 -f 'PackageTests.xctest' || true
            break
        fi
        sleep 5
    done
    wait "$pid" || status=$?
    return "$status"
}

# unfinished_tests LOG: the tests LOG says started, less those it says ended (swift-testing's
# and XCTest's lines both; a parameterised test's cases are left out, their test is named).
unfinished_tests() {
    awk '
        /^[^ ]+ Test case passing / { next }
        /^[^ ]+ Test .* started\.$/ { sub(/^[^ ]+ Test /, ""); sub(/ started\.$/, ""); open[$0]++; next }
        /^[^ ]+ Test .* (passed|failed|skipped)/ {
            n = $0; sub(/^[^ ]+ Test /, "", n); sub(/ (passed|failed|skipped).*$/, "", n); open[n]--; next
        }
        /^Test Case .* started/ { n = $0; sub(/^Test Case ./, "", n); sub(/. started.*$/, "", n); open[n]++; next }
        /^Test Case .* (passed|failed|skipped)/ {
            n = $0; sub(/^Test Case ./, "", n); sub(/. (passed|failed|skipped).*$/, "", n); open[n]--; next
        }
        END { for (n in open) if (open[n] > 0) print "  " n }
    ' "$1"
}

step build swift build
step tests tests_within_limit "$@"
lint_warn() {
    scripts/lint.sh --summary || echo "lint: not failing the run (SLIPSTREAM_LINT=warn); scripts/lint.sh lists them"
}
if (($# == 0)); then
    if [[ "${SLIPSTREAM_FUZZ_SMOKE:-7}" != 0 ]]; then
        step "fuzz smoke" env FUZZ_DIR="$PWD/.build/fuzz-smoke" scripts/fuzz.sh "${SLIPSTREAM_FUZZ_SMOKE:-7}"
    fi
    case "${SLIPSTREAM_LINT:-$lint_default}" in
    strict) step lint scripts/lint.sh ;;
    warn) step "lint (warn)" lint_warn ;;
    off) ;;
    *) echo "SLIPSTREAM_LINT must be strict, warn or off" >&2; exit 2 ;;
    esac
    if [[ "${SLIPSTREAM_DOCS:-1}" != 0 ]]; then
        step docs scripts/docs.sh
    fi
    step examples scripts/examples.sh
    # The daemon driven by aria2's real clients and its page in chromium, beside aria2c itself.
    step clients env SLIPSTREAM_BIN="$PWD/.build/debug/slipstream" scripts/clients.sh
fi

echo "==> summary"
printf '%s\n' "${summary[@]}"
if (($# == 0)) && [[ "${SLIPSTREAM_FUZZ_SMOKE:-7}" != 0 && -s .build/fuzz-smoke/failures.txt ]]; then
    echo "==> fuzz smoke failures (inputs in .build/fuzz-smoke/TARGET/crashes)"
    cat .build/fuzz-smoke/failures.txt
fi
if [[ -s .build/tests-hung.txt ]]; then
    echo "==> hung tests"
    cat .build/tests-hung.txt
fi
exit "$failed"
