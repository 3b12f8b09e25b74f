#!/usr/bin/env bash
# Starts and stops the servers of the TLS, login, cookie and proxy tests: one nginx with
# several loopback ports, and the certificates, password file and cookie rules they need, all
# made at start under RUN_DIR (nothing is committed); lighttpd for Digest logins, tinyproxy
# (an HTTP proxy) and danted (Dante, a SOCKS5 proxy) on loopback. Source it, then:
#   access_start RUN_DIR -> sets and exports
#     ACCESS_HTTP_PORT     plain HTTP: /files/, /basic/ (auth_basic, user test, password
#                          secret), /basic-away/ (the same login, then a redirect to
#                          ACCESS_OTHER_PORT), /cookie/ (403 without the cookie pass=open-sesame),
#                          /login/ (sets that cookie and redirects to /cookie/)
#     ACCESS_OTHER_PORT    plain HTTP, /files/ only: the server a redirect leads to
#     ACCESS_TLS_PORT      HTTPS and HTTP/2 with a certificate for localhost, 127.0.0.1 and ::1
#     ACCESS_EXPIRED_PORT  HTTPS with an expired certificate
#     ACCESS_WRONGNAME_PORT HTTPS with a certificate for wrong.example only
#     ACCESS_HTTP6_PORT    plain HTTP on [::1] (/files/), empty when there is no IPv6 loopback
#     ACCESS_CA            the test CA's certificate (PEM); ACCESS_CAPATH a folder holding it,
#                          hashed; ACCESS_PIN the TLS server's key as sha256//BASE64
#     ACCESS_WWW           the folder served under /files/ (and /basic/, /cookie/ ...)
#     ACCESS_LOG           the access log: port client-port "request" status "authorization" "cookie" protocol
#     ACCESS_PID           nginx's pid
#     ACCESS_DIGEST_PORT   lighttpd: /files/ behind a Digest login (user test, password
#                          secret); its log RUN_DIR/lighttpd.log (written in batches).
#                          Empty when lighttpd is not installed
#     ACCESS_HTTP_PROXY_PORT tinyproxy's port (its log: RUN_DIR/tinyproxy.log), empty when
#                          tinyproxy is not installed
#     ACCESS_SOCKS_PORT    danted's port (its log: RUN_DIR/danted.log), empty when danted is
#                          not installed
#   access_stop          -> stops nginx and the proxies by their pids
access_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$access_here/nginx.sh"

# access_make_ca DIR: the test CA in DIR (ca.pem, ca.key, and the ca.cnf that
# access_certificate signs with, run in DIR).
access_make_ca() {
    (
        cd "$1"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem \
            -days 3650 -subj "/CN=Slipstream Test CA" 2> /dev/null
        : > index.txt
        echo 01 > serial
        cat > ca.cnf <<CNF
[ca]
default_ca = test
[test]
dir = .
database = index.txt
new_certs_dir = new
serial = serial
certificate = ca.pem
private_key = ca.key
default_md = sha256
default_days = 3650
policy = anything
unique_subject = no
[anything]
commonName = supplied
CNF
    )
}

# access_certificate NAME SAN [openssl ca date options...]: NAME.key and NAME.pem, signed by
# the test CA, for the subjectAltName SAN.
access_certificate() {
    local name="$1" san="$2"
    shift 2
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$name.key" -out "$name.csr" \
        -subj "/CN=$name" 2> /dev/null
    printf 'subjectAltName=%s\n' "$san" > "$name.ext"
    openssl ca -batch -notext -config ca.cnf -in "$name.csr" -out "$name.pem" -extfile "$name.ext" "$@" 2> /dev/null
}

# access_port NAME: sets the variable NAME to a free loopback port not handed out before in
# this run: a port free now may be one a server started a moment ago is about to take.
ACCESS_TAKEN_PORTS=" "
access_port() {
    local port
    port="$(nginx_free_port)"
    while [[ "$ACCESS_TAKEN_PORTS" == *" $port "* ]]; do port="$(nginx_free_port)"; done
    ACCESS_TAKEN_PORTS+="$port "
    printf -v "$1" '%s' "$port"
}

# access_listening: whether each of nginx's loopback ports accepts a connection.
access_listening() {
    local port
    for port in "$ACCESS_HTTP_PORT" "$ACCESS_OTHER_PORT" "$ACCESS_TLS_PORT" "$ACCESS_EXPIRED_PORT" \
        "$ACCESS_WRONGNAME_PORT"; do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || return 1
    done
}

access_start() {
    local run="$1"
    mkdir -p "$run/www/files" "$run/tls/new" "$run/tls/capath"
    chmod 755 "$run" "$run/www" "$run/www/files"
    access_make_ca "$run/tls"
    (
        cd "$run/tls"
        access_certificate good "DNS:localhost,IP:127.0.0.1,IP:::1"
        access_certificate wrongname "DNS:wrong.example"
        access_certificate expired "DNS:localhost,IP:127.0.0.1" -startdate 20200101000000Z -enddate 20200201000000Z
        cp ca.pem capath/
        openssl rehash capath 2> /dev/null || c_rehash capath > /dev/null
        openssl x509 -in good.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary \
            | openssl base64 -A > pin
        printf 'test:%s\n' "$(openssl passwd -apr1 secret)" > htpasswd
    )
    access_port ACCESS_HTTP_PORT
    access_port ACCESS_OTHER_PORT
    access_port ACCESS_TLS_PORT
    access_port ACCESS_EXPIRED_PORT
    access_port ACCESS_WRONGNAME_PORT
    ACCESS_HTTP6_PORT=""
    local listen6=""
    if [[ -e /proc/net/if_inet6 ]] && grep -q "^0*1 " /proc/net/if_inet6; then
        access_port ACCESS_HTTP6_PORT
        listen6="server { listen [::1]:$ACCESS_HTTP6_PORT; root $run/www; access_log $run/access.log access; location /files/ { } }"
    fi
    local user=""
    [[ $(id -u) -eq 0 ]] && user="user root;"
    sed -e "s|@HTTP@|$ACCESS_HTTP_PORT|g" -e "s|@OTHER@|$ACCESS_OTHER_PORT|g" -e "s|@TLS@|$ACCESS_TLS_PORT|g" \
        -e "s|@EXPIRED@|$ACCESS_EXPIRED_PORT|g" -e "s|@WRONGNAME@|$ACCESS_WRONGNAME_PORT|g" \
        -e "s|@LISTEN6@|$listen6|g" -e "s|@ROOT@|$run/www|g" -e "s|@RUN@|$run|g" -e "s|@USER@|$user|g" \
        "$access_here/nginx-access.conf.in" > "$run/nginx.conf"
    nginx -e "$run/error.log" -p "$run" -c "$run/nginx.conf" &
    ACCESS_PID=$!
    access_start_proxies "$run"
    access_start_digest "$run"
    ACCESS_CA="$run/tls/ca.pem"
    ACCESS_CAPATH="$run/tls/capath"
    ACCESS_PIN="sha256//$(cat "$run/tls/pin")"
    ACCESS_WWW="$run/www/files"
    ACCESS_LOG="$run/access.log"
    local i
    for i in $(seq 1 100); do
        # Every port, and nginx's own log clean: a port taken meanwhile by another service
        # accepts too, while nginx, which could not bind it, has ended.
        if access_listening && ! grep -q "\[emerg\]" "$run/error.log" 2> /dev/null; then
            export ACCESS_HTTP_PORT ACCESS_OTHER_PORT ACCESS_TLS_PORT ACCESS_EXPIRED_PORT ACCESS_WRONGNAME_PORT \
                ACCESS_HTTP6_PORT ACCESS_CA ACCESS_CAPATH ACCESS_PIN ACCESS_WWW ACCESS_LOG ACCESS_PID \
                ACCESS_HTTP_PROXY_PORT ACCESS_SOCKS_PORT ACCESS_DIGEST_PORT
            return 0
        fi
        kill -0 "$ACCESS_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "nginx (access tests) did not start; its log:" >&2
    cat "$run/error.log" >&2
    return 1
}

# access_start_proxies RUN_DIR: tinyproxy and danted in the foreground of background jobs,
# each where installed (ACCESS_HTTP_PROXY_PORT, ACCESS_SOCKS_PORT; empty where not).
access_start_proxies() {
    local run="$1"
    ACCESS_HTTP_PROXY_PORT=""
    ACCESS_SOCKS_PORT=""
    ACCESS_TINYPROXY_PID=""
    ACCESS_DANTED_PID=""
    if command -v tinyproxy > /dev/null; then
        access_port ACCESS_HTTP_PROXY_PORT
        cat > "$run/tinyproxy.conf" <<CONF
Port $ACCESS_HTTP_PROXY_PORT
Listen 127.0.0.1
Timeout 60
Allow 127.0.0.1
LogFile "$run/tinyproxy.log"
LogLevel Info
MaxClients 100
DisableViaHeader Yes
CONF
        # No ConnectPort line: CONNECT (HTTPS through the proxy) to any port, for the loopback servers.
        tinyproxy -d -c "$run/tinyproxy.conf" > "$run/tinyproxy.out" 2>&1 &
        ACCESS_TINYPROXY_PID=$!
    fi
    if [[ -x /usr/sbin/danted ]]; then
        access_port ACCESS_SOCKS_PORT
        local users=""
        [[ $(id -u) -eq 0 ]] && users=$'user.privileged: root\nuser.unprivileged: nobody'
        cat > "$run/danted.conf" <<CONF
logoutput: $run/danted.log
internal: 127.0.0.1 port = $ACCESS_SOCKS_PORT
external: 127.0.0.1
clientmethod: none
socksmethod: none
$users
client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }
socks pass { from: 127.0.0.0/8 to: 127.0.0.0/8 log: connect }
CONF
        /usr/sbin/danted -f "$run/danted.conf" -N 1 > "$run/danted.out" 2>&1 &
        ACCESS_DANTED_PID=$!
    fi
    local port
    for port in $ACCESS_HTTP_PROXY_PORT $ACCESS_SOCKS_PORT; do
        for _ in $(seq 1 100); do
            (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
            sleep 0.1
        done
    done
}

# access_start_digest RUN_DIR: lighttpd serving RUN_DIR/www with /files/ behind a Digest
# login, where it is installed (ACCESS_DIGEST_PORT; empty where not).
access_start_digest() {
    local run="$1"
    ACCESS_DIGEST_PORT=""
    ACCESS_LIGHTTPD_PID=""
    [[ -x /usr/sbin/lighttpd ]] || return 0
    access_port ACCESS_DIGEST_PORT
    printf 'test:slipstream:%s\n' "$(printf 'test:slipstream:secret' | openssl md5 -r | cut -d' ' -f1)" > "$run/tls/htdigest"
    cat > "$run/lighttpd.conf" <<CONF
server.document-root = "$run/www"
server.port = $ACCESS_DIGEST_PORT
server.bind = "127.0.0.1"
server.errorlog = "$run/lighttpd-error.log"
server.modules = ("mod_auth", "mod_authn_file", "mod_accesslog")
accesslog.filename = "$run/lighttpd.log"
accesslog.format = "%p \\"%r\\" %s \\"%{Authorization}i\\""
auth.backend = "htdigest"
auth.backend.htdigest.userfile = "$run/tls/htdigest"
auth.require = ("/files/" => ("method" => "digest", "realm" => "slipstream", "require" => "valid-user"))
CONF
    /usr/sbin/lighttpd -D -f "$run/lighttpd.conf" > "$run/lighttpd.out" 2>&1 &
    ACCESS_LIGHTTPD_PID=$!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$ACCESS_DIGEST_PORT") 2>/dev/null && break
        sleep 0.1
    done
}

access_stop() {
    local pid
    for pid in "${ACCESS_PID:-}" "${ACCESS_TINYPROXY_PID:-}" "${ACCESS_DANTED_PID:-}" "${ACCESS_LIGHTTPD_PID:-}"; do
        [[ -n "$pid" ]] || continue
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    ACCESS_PID=""
    ACCESS_TINYPROXY_PID=""
    ACCESS_DANTED_PID=""
    ACCESS_LIGHTTPD_PID=""
}
