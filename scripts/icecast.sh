#!/usr/bin/env bash
# Starts and stops the project's Icecast 2.4 (Debian's icecast2) on a free loopback port. Source
# it, then:
#   icecast_start RUN_DIR [PORT]  -> writes RUN_DIR/icecast.xml (from scripts/icecast.xml.in:
#                                    127.0.0.1 only, logs in RUN_DIR/log, passwords of its own)
#                                    and starts it, on PORT if given (a restart) or on a free
#                                    port; sets ICECAST_PORT, ICECAST_PID, ICECAST_SOURCE_PASSWORD,
#                                    ICECAST_ADMIN_USER and ICECAST_ADMIN_PASSWORD
#   icecast_stop                  -> stops it by its pid
# Mounts are made by the sources that connect (user `source`, ICECAST_SOURCE_PASSWORD); a mount
# under /tiny-metaint/ sends a metadata block every ICECAST_TINY_METAINT bytes, and one under
# /utf8-metadata/ keeps its titles in UTF-8 (the default for MP3 is ISO8859-1). Icecast refuses
# to run as root: as root, it drops to Debian's `icecast2` user after binding (<changeowner>),
# and RUN_DIR is made readable for it, its log folder writable. Icecast runs in the foreground of
# a background job (no daemon); nothing outside RUN_DIR is touched.

source "$(dirname "${BASH_SOURCE[0]}")/nginx.sh" # nginx_free_port

ICECAST_TINY_METAINT=7

icecast_start() {
    local run="$1"
    local here
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    mkdir -p "$run/log"
    chmod 755 "$run"
    ICECAST_PORT="${2:-$(nginx_free_port)}"
    if [[ ! -f "$run/icecast.xml" ]]; then
        # Passwords of its own, kept across restarts in the folder.
        ICECAST_SOURCE_PASSWORD="source-$RANDOM$RANDOM"
        ICECAST_ADMIN_PASSWORD="admin-$RANDOM$RANDOM"
    fi
    ICECAST_ADMIN_USER=admin
    local owner=""
    if [[ $(id -u) -eq 0 ]]; then
        owner="<changeowner><user>icecast2</user><group>icecast</group></changeowner>"
        chown icecast2:icecast "$run/log"
    fi
    sed -e "s|@PORT@|$ICECAST_PORT|g" -e "s|@RUN@|$run|g" -e "s|@CHANGEOWNER@|$owner|g" \
        -e "s|@SOURCEPASSWORD@|$ICECAST_SOURCE_PASSWORD|g" -e "s|@RELAYPASSWORD@|relay-$RANDOM$RANDOM|g" \
        -e "s|@ADMINPASSWORD@|$ICECAST_ADMIN_PASSWORD|g" -e "s|@TINYINTERVAL@|$ICECAST_TINY_METAINT|g" \
        "$here/icecast.xml.in" > "$run/icecast.xml"
    chmod 644 "$run/icecast.xml"
    icecast2 -c "$run/icecast.xml" > "$run/log/stdout.log" 2>&1 &
    ICECAST_PID=$!
    local i
    for i in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$ICECAST_PORT") 2>/dev/null; then
            export ICECAST_PORT ICECAST_PID ICECAST_SOURCE_PASSWORD ICECAST_ADMIN_USER ICECAST_ADMIN_PASSWORD \
                ICECAST_TINY_METAINT
            return 0
        fi
        kill -0 "$ICECAST_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "icecast did not start; its output and log:" >&2
    cat "$run/log/stdout.log" "$run/log/error.log" >&2 2>/dev/null
    icecast_stop
    return 1
}

icecast_stop() {
    if [[ -n "${ICECAST_PID:-}" ]]; then
        kill "$ICECAST_PID" 2>/dev/null || true
        # Icecast 2.4 can hang in its shutdown (joining a client's thread): SIGKILL 10 s later.
        local i
        # (Ended, it stays a zombie until waited for: `kill -0` would still find it.)
        for i in $(seq 1 100); do
            case "$(ps -o stat= -p "$ICECAST_PID")" in Z* | "") break ;; esac
            sleep 0.1
        done
        if ((i == 100)); then
            echo "icecast did not stop within 10 s of SIGTERM: killed" >&2
            kill -KILL "$ICECAST_PID" 2>/dev/null || true
        fi
        wait "$ICECAST_PID" 2>/dev/null || true
        ICECAST_PID=""
    fi
}
