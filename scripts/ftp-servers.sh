#!/usr/bin/env bash
# Starts and stops the servers of the FTP, FTPS and SFTP tests: pyftpdlib (scripts/ftp-server.py)
# on four loopback ports and OpenSSH's sshd on a fifth, all serving one folder, with a
# certificate of the test CA (access_make_ca, as for nginx), an SSH host key and client keys
# made at start under RUN_DIR (nothing is committed). Source it, then:
#   ftp_start RUN_DIR [RATE] -> sets and exports
#     FTP_PORT           FTP, user test, password secret (anonymous refused)
#     FTP_NOREST_PORT    the same, refusing REST: no restarts, no ranges
#     FTP_EXPLICIT_PORT  FTP with AUTH TLS (explicit FTPS)
#     FTP_IMPLICIT_PORT  implicit FTPS (TLS from the first byte)
#     FTP_CA             the test CA (PEM) the FTPS certificate (for 127.0.0.1, localhost) is signed by
#     FTP_ROOT           the folder served (its files are ftp://HOST:PORT/NAME)
#     FTP_LOG            pyftpdlib's log: a line per login, per command and per transfer
#     SFTP_PORT          sshd: SFTP for user SFTP_USER (the user running this) by key only;
#                        files are sftp://127.0.0.1:PORT$FTP_ROOT/NAME
#     SFTP_USER          that user
#     SFTP_KEY           a client key (ed25519, no passphrase) sshd takes
#     SFTP_PASSPHRASE_KEY a client key sshd takes, encrypted with the passphrase SFTP_PASSPHRASE
#     SFTP_OTHER_KEY     a client key sshd does not take
#     SFTP_KNOWN_HOSTS   a known hosts file with sshd's host key for [127.0.0.1]:SFTP_PORT
#     SFTP_LOG           sshd's log
#   RATE (bytes per second) limits each FTP data connection without TLS (benchmarks).
#   ftp_stop            -> stops pyftpdlib and sshd by their pids
ftp_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$ftp_here/access-servers.sh"

ftp_start() {
    local run="$1" rate="${2:-0}"
    mkdir -p "$run/ftp-root" "$run/ftp-tls/new" "$run/ssh"
    chmod 755 "$run" "$run/ftp-root"
    access_make_ca "$run/ftp-tls"
    (cd "$run/ftp-tls" && access_certificate ftp "DNS:localhost,IP:127.0.0.1")
    access_port FTP_PORT
    access_port FTP_NOREST_PORT
    access_port FTP_EXPLICIT_PORT
    access_port FTP_IMPLICIT_PORT
    access_port SFTP_PORT
    FTP_ROOT="$run/ftp-root"
    FTP_CA="$run/ftp-tls/ca.pem"
    FTP_LOG="$run/ftp.log"
    /usr/bin/python3 "$ftp_here/ftp-server.py" --root "$FTP_ROOT" --user test --password secret \
        --plain "$FTP_PORT" --norest "$FTP_NOREST_PORT" --explicit "$FTP_EXPLICIT_PORT" \
        --implicit "$FTP_IMPLICIT_PORT" --cert "$run/ftp-tls/ftp.pem" --key "$run/ftp-tls/ftp.key" \
        --rate "$rate" --log "$FTP_LOG" > "$run/ftp.out" 2>&1 &
    FTP_PID=$!
    ftp_start_sshd "$run" || return 1
    local port
    for port in "$FTP_PORT" "$FTP_NOREST_PORT" "$FTP_EXPLICIT_PORT" "$FTP_IMPLICIT_PORT" "$SFTP_PORT"; do
        for _ in $(seq 1 100); do
            (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue 2
            kill -0 "$FTP_PID" 2>/dev/null && kill -0 "$SFTP_PID" 2>/dev/null || break
            sleep 0.1
        done
        echo "the FTP or SSH server did not start on port $port; their output:" >&2
        cat "$run/ftp.out" "$SFTP_LOG" >&2
        return 1
    done
    export FTP_PORT FTP_NOREST_PORT FTP_EXPLICIT_PORT FTP_IMPLICIT_PORT FTP_CA FTP_ROOT FTP_LOG FTP_PID \
        SFTP_PORT SFTP_USER SFTP_KEY SFTP_PASSPHRASE_KEY SFTP_PASSPHRASE SFTP_OTHER_KEY SFTP_KNOWN_HOSTS SFTP_LOG SFTP_PID
}

# ftp_start_sshd RUN_DIR: sshd on SFTP_PORT, run as the user running this, its keys in RUN_DIR/ssh.
ftp_start_sshd() {
    local run="$1" ssh="$1/ssh"
    command -v ssh-keygen > /dev/null && [[ -x /usr/sbin/sshd ]] || {
        echo "sshd is not installed (openssh-server)" >&2
        return 1
    }
    ssh-keygen -q -t ed25519 -N '' -C host -f "$ssh/host_key"
    ssh-keygen -q -t ed25519 -N '' -C client -f "$ssh/client_key"
    SFTP_PASSPHRASE="open sesame"
    ssh-keygen -q -t ed25519 -N "$SFTP_PASSPHRASE" -C client-passphrase -f "$ssh/passphrase_key"
    ssh-keygen -q -t ed25519 -N '' -C other -f "$ssh/other_key"
    cat "$ssh/client_key.pub" "$ssh/passphrase_key.pub" > "$ssh/authorized_keys"
    chmod 600 "$ssh/authorized_keys" "$ssh/host_key"
    printf '[127.0.0.1]:%s %s\n' "$SFTP_PORT" "$(cut -d' ' -f1,2 "$ssh/host_key.pub")" > "$ssh/known_hosts"
    SFTP_USER="$(id -un)"
    SFTP_KEY="$ssh/client_key"
    SFTP_PASSPHRASE_KEY="$ssh/passphrase_key"
    SFTP_OTHER_KEY="$ssh/other_key"
    SFTP_KNOWN_HOSTS="$ssh/known_hosts"
    SFTP_LOG="$run/sshd.log"
    # As root, sshd separates privileges into an empty folder Debian's package makes at boot.
    if [[ $(id -u) -eq 0 && ! -d /run/sshd ]]; then
        mkdir -p -m 755 /run/sshd
    fi
    cat > "$ssh/sshd_config" <<CONF
Port $SFTP_PORT
ListenAddress 127.0.0.1
HostKey $ssh/host_key
PidFile none
AuthorizedKeysFile $ssh/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowUsers $SFTP_USER
Subsystem sftp internal-sftp
LogLevel VERBOSE
CONF
    /usr/sbin/sshd -D -e -f "$ssh/sshd_config" > "$SFTP_LOG" 2>&1 &
    SFTP_PID=$!
}

ftp_stop() {
    local pid
    for pid in "${FTP_PID:-}" "${SFTP_PID:-}"; do
        [[ -n "$pid" ]] || continue
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    FTP_PID=""
    SFTP_PID=""
}
