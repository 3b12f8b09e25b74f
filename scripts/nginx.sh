#!/usr/bin/env bash
# Starts and stops the project's nginx on a free loopback port. Source it, then:
#   nginx_start RUN_DIR   -> serves RUN_DIR/www (files under /files/), sets NGINX_PORT and NGINX_PID,
#                            and runs a forward HTTP proxy on NGINX_PROXY_PORT
#   nginx_stop            -> stops it by its pid
# nginx runs in the foreground of a background job (no daemon); nothing outside RUN_DIR is touched.

nginx_free_port() {
    local port
    while true; do
        port=$((20000 + RANDOM % 30000))
        # Free when nothing answers a connection there.
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

nginx_start() {
    local run="$1"
    local here
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    mkdir -p "$run/www/files"
    chmod 755 "$run" "$run/www" "$run/www/files"
    NGINX_PORT="$(nginx_free_port)"
    NGINX_PROXY_PORT="$(nginx_free_port)"
    while [[ "$NGINX_PROXY_PORT" == "$NGINX_PORT" ]]; do NGINX_PROXY_PORT="$(nginx_free_port)"; done
    local user=""
    [[ $(id -u) -eq 0 ]] && user="user root;"
    sed -e "s|@PORT@|$NGINX_PORT|g" -e "s|@PROXYPORT@|$NGINX_PROXY_PORT|g" -e "s|@ROOT@|$run/www|g" -e "s|@RUN@|$run|g" -e "s|@USER@|$user|g" \
        "$here/nginx.conf.in" > "$run/nginx.conf"
    nginx -e "$run/error.log" -p "$run" -c "$run/nginx.conf" &
    NGINX_PID=$!
    local i
    for i in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$NGINX_PORT") 2>/dev/null; then
            export NGINX_PORT NGINX_PROXY_PORT NGINX_PID
            return 0
        fi
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "nginx did not start; its log:" >&2
    cat "$run/error.log" >&2
    return 1
}

nginx_stop() {
    if [[ -n "${NGINX_PID:-}" ]]; then
        kill "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
        NGINX_PID=""
    fi
}
