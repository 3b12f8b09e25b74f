#!/usr/bin/env bash
# Starts one thing the tests need, for a test process run without scripts/test.sh (a plain
# `swift test`): Tests/TestSupport/TestServices.swift runs it on first use.
#   scripts/test-service.sh nginx   nginx on a free loopback port, with its forward proxy
#   scripts/test-service.sh pulse   a headless PulseAudio server with a null sink
#   scripts/test-service.sh icecast Icecast on a free loopback port (scripts/icecast.sh)
#   scripts/test-service.sh access  the TLS, login and cookie servers (scripts/access-servers.sh)
#   scripts/test-service.sh ftp     the FTP, FTPS and SFTP servers (scripts/ftp-servers.sh)
# Each makes a folder of its own under /tmp, prints the variables scripts/test.sh would set
# (NAME=VALUE lines) and then `ready`, and keeps the service until its standard input closes:
# the test process holds the other end, so the service stops, and its folder goes, when that
# process ends, however it ends. Exits 1, having said why on standard error, when the service
# cannot start. Icecast also takes commands on standard input, one a line, each answered on
# standard output by `ok` or `failed`: `stop` stops the server (dropping every source and
# listener), `start` starts it again on the same port with the same passwords.
#   scripts/test-service.sh source COMMAND...
# Runs COMMAND (a source streaming to Icecast) with its output on standard error, prints `ready`,
# and stops COMMAND when standard input closes; exits when COMMAND does, with its status. Tied
# so to the test process, a source never outlives it.
#   scripts/test-service.sh audio DIR
# Makes the audio fixtures in DIR (scripts/make-audio-fixtures.sh, one process at a time, under
# a lock; a DIR already made by the same script is kept), prints SLIPSTREAM_TEST_AUDIO=DIR and
# `ready`, and exits.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

# Foundation's Process starts this script with the signal mask of the thread that ran it (the
# threads of Dispatch and of the Swift concurrency pool block most signals), and every child
# inherits it: a server or source whose SIGTERM is blocked never stops. Start again with none
# blocked (perl: the one tool at hand that sets a signal mask and execs). Once: bash itself
# blocks SIGCHLD at times, so the mask it shows is no guide.
if [[ -z "${SLIPSTREAM_TEST_SERVICE_UNBLOCKED:-}" ]]; then
    export SLIPSTREAM_TEST_SERVICE_UNBLOCKED=1
    exec perl -MPOSIX -e 'sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die "sigprocmask: $!"; exec @ARGV or die "exec: $!"' \
        -- "$0" "$@"
fi

# start_with_retries STOP START...: runs START (which picks free ports), and when it fails runs
# STOP, empties $run and tries again, three times in all: between picking a free port and
# binding it, another service of the same test process may take it.
start_with_retries() {
    local stop="$1" attempt
    shift
    for attempt in 1 2 3; do
        "$@" >&2 && return 0
        "$stop"
        rm -rf "${run:?}"/*
        echo "test-service.sh: starting again (attempt $attempt failed)" >&2
    done
    return 1
}

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
access)
    source "$here/access-servers.sh"
    run="$(mktemp -d /tmp/slipstream-swift-test.XXXXXX)"
    trap 'access_stop; rm -rf "$run"' EXIT
    trap 'exit 1' INT TERM HUP
    command -v nginx > /dev/null || { echo "nginx is not installed" >&2; exit 1; }
    command -v openssl > /dev/null || { echo "openssl is not installed" >&2; exit 1; }
    start_with_retries access_stop access_start "$run" || exit 1
    for name in HTTP_PORT OTHER_PORT TLS_PORT EXPIRED_PORT WRONGNAME_PORT HTTP6_PORT CA CAPATH PIN WWW LOG \
        HTTP_PROXY_PORT SOCKS_PORT DIGEST_PORT; do
        variable="ACCESS_$name"
        echo "SLIPSTREAM_TEST_ACCESS_$name=${!variable}"
    done
    ;;
ftp)
    source "$here/ftp-servers.sh"
    run="$(mktemp -d /tmp/slipstream-swift-test.XXXXXX)"
    trap 'ftp_stop; rm -rf "$run"' EXIT
    trap 'exit 1' INT TERM HUP
    /usr/bin/python3 -c 'import pyftpdlib, OpenSSL' 2> /dev/null || {
        echo "pyftpdlib is not installed (python3-pyftpdlib, python3-openssl)" >&2
        exit 1
    }
    start_with_retries ftp_stop ftp_start "$run" || exit 1
    for name in FTP_PORT FTP_NOREST_PORT FTP_EXPLICIT_PORT FTP_IMPLICIT_PORT FTP_CA FTP_ROOT FTP_LOG SFTP_PORT SFTP_USER \
        SFTP_KEY SFTP_PASSPHRASE_KEY SFTP_PASSPHRASE SFTP_OTHER_KEY SFTP_KNOWN_HOSTS SFTP_LOG; do
        echo "SLIPSTREAM_TEST_$name=${!name}"
    done
    ;;
icecast)
    source "$here/icecast.sh"
    run="$(mktemp -d /tmp/slipstream-swift-test.XXXXXX)"
    trap 'icecast_stop; rm -rf "$run"' EXIT
    trap 'exit 1' INT TERM HUP
    command -v icecast2 > /dev/null || { echo "icecast2 is not installed" >&2; exit 1; }
    start_with_retries icecast_stop icecast_start "$run" || exit 1
    echo "SLIPSTREAM_TEST_ICECAST_PORT=$ICECAST_PORT"
    echo "SLIPSTREAM_TEST_ICECAST_SOURCE_PASSWORD=$ICECAST_SOURCE_PASSWORD"
    echo "SLIPSTREAM_TEST_ICECAST_ADMIN_USER=$ICECAST_ADMIN_USER"
    echo "SLIPSTREAM_TEST_ICECAST_ADMIN_PASSWORD=$ICECAST_ADMIN_PASSWORD"
    echo "SLIPSTREAM_TEST_ICECAST_TINY_METAINT=$ICECAST_TINY_METAINT"
    echo ready
    while read -r command; do
        case "$command" in
        stop) icecast_stop && echo ok || echo failed ;;
        start) icecast_start "$run" "$ICECAST_PORT" >&2 && echo ok || echo failed ;;
        *) echo failed ;;
        esac
    done
    exit 0
    ;;
source)
    shift
    "$@" < /dev/null >&2 &
    child=$!
    # SIGTERM, and SIGKILL if it has not ended (it is gone or a zombie) 5 s later.
    stop_child() {
        kill "$child" 2>/dev/null || return 0
        for _ in {1..50}; do
            case "$(ps -o stat= -p "$child")" in Z* | "") break ;; esac
            sleep 0.1
        done
        kill -KILL "$child" 2>/dev/null
        wait "$child" 2>/dev/null
    }
    trap 'stop_child || true' EXIT
    trap 'exit 1' INT TERM HUP
    echo ready
    # Until standard input ends (read fails, not by its timeout) or the command does.
    while kill -0 "$child" 2>/dev/null; do
        read -r -t 0.5 _ || (($? > 128)) || exit 0
    done
    trap - EXIT
    wait "$child"
    exit
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
    echo "usage: test-service.sh nginx|pulse|icecast|access|ftp|source COMMAND...|audio DIR" >&2
    exit 2
    ;;
esac
echo ready
# Nothing more on standard output (the test process has stopped reading it): wait for the end
# of standard input, then the EXIT trap stops the service.
exec >&2
cat > /dev/null || true
