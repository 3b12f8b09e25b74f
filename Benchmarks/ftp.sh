#!/usr/bin/env bash
# FTP and SFTP benchmark: segmented downloads from servers with a per-connection limit,
# `slipstream get` against the peers that split a file over FTP or SFTP connections, all in
# one run, with the same table of wall seconds, CPU seconds, peak RSS, correctness and ratios
# as Benchmarks/download.sh.
#
#   Benchmarks/ftp.sh [--runs N] [--only f|s] [--size MIB]
#   SLIPSTREAM_BUILD_PATH=DIR  the build folder to use (default .build)
#
# The servers are the tests' (scripts/ftp-servers.sh): pyftpdlib and OpenSSH's sshd.
# (f) FTP: a SIZE MiB file (default 256) from pyftpdlib limiting each data connection to
#     8 MiB/s (scripts/ftp-server.py --rate: a steady limit), 8 connections: slipstream -n 8
#     against aria2c -x8 -s8 -k1M and axel -n 8; the ideal is SIZE / (8 x 8 MiB/s).
# (s) SFTP: the same file from sshd through Benchmarks/relay.py, a loopback relay that holds
#     each connection to 8 MiB/s (sshd has no limit of its own, and tc needs root), 8
#     connections, by key: slipstream -n 8 against lftp's `pget -n 8` (through ssh), and
#     aria2c -x8 -s8 -k1M, whose SFTP logs in by password only: as root, a second sshd, the same
#     but for passwords (and an ECDSA host key: aria2c's libssh2 may predate ed25519), lets a
#     user made for the run (and removed after it) in by a random password, through a relay of
#     its own; not as root, aria2c is not measured. Target: faster than each peer.
set -euo pipefail
cd "$(dirname "$0")/.."

source Benchmarks/lib.sh
size=256
arguments=()
while (($#)); do
    case "$1" in
        --size) size="$2"; shift 2 ;;
        *) arguments+=("$1"); shift ;;
    esac
done
bench_arguments 3 "f|s" "${arguments[@]+"${arguments[@]}"}"
bench_start ftp-bench

rate=$((8 << 20))
source scripts/ftp-servers.sh
ftp_start "$work/ftp" "$rate" >&2
relay_port=""
access_port relay_port
python3 Benchmarks/relay.py "$relay_port" "$SFTP_PORT" "$rate" &
relay_pid=$!
password_sshd_pid=""
password_relay_pid=""
password_user=""
trap 'kill "$relay_pid" $password_relay_pid $password_sshd_pid 2>/dev/null; ftp_stop; nginx_stop
    [[ -z "$password_user" ]] || userdel "$password_user" 2>/dev/null; rm -rf "$work"' EXIT
known="$work/known_hosts"
sed "s/\]:$SFTP_PORT /]:$relay_port /" "$SFTP_KNOWN_HOSTS" > "$known"
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$relay_port") 2>/dev/null && break; sleep 0.1; done

echo "making the test file ($size MiB)..." >&2
head -c $((size << 20)) /dev/urandom > "$FTP_ROOT/file.bin"
sync
sha=$(sha256sum "$FTP_ROOT/file.bin" | cut -d' ' -f1)

# start_password_sshd: as root, the second sshd for aria2c (see the top); sets aria_sftp_url.
aria_sftp_url=""
start_password_sshd() {
    [[ $(id -u) -eq 0 ]] && command -v useradd > /dev/null || return 0
    local ssh="$work/password-sshd" sshd_port sshd_relay password
    mkdir -p "$ssh"
    password_user="slipstream-bench-$$"
    password="$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    useradd -M -d / -s /usr/sbin/nologin "$password_user"
    echo "$password_user:$password" | chpasswd
    # The file's folders readable by that user.
    chmod 755 "$work" "$(dirname "$FTP_ROOT")" "$FTP_ROOT"
    chmod 644 "$FTP_ROOT/file.bin"
    ssh-keygen -q -t ecdsa -N '' -C host -f "$ssh/host_key"
    access_port sshd_port
    sed -e "s/^Port .*/Port $sshd_port/" -e "s|^HostKey .*|HostKey $ssh/host_key|" \
        -e "s/^PasswordAuthentication no/PasswordAuthentication yes/" \
        -e "s/^AllowUsers .*/AllowUsers $password_user/" "$(dirname "$SFTP_KNOWN_HOSTS")/sshd_config" \
        > "$ssh/sshd_config"
    /usr/sbin/sshd -D -e -f "$ssh/sshd_config" > "$ssh/sshd.log" 2>&1 &
    password_sshd_pid=$!
    access_port sshd_relay
    python3 Benchmarks/relay.py "$sshd_relay" "$sshd_port" "$rate" &
    password_relay_pid=$!
    for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$sshd_relay") 2>/dev/null && break; sleep 0.1; done
    aria_sftp_url="sftp://$password_user:$password@127.0.0.1:$sshd_relay$FTP_ROOT/file.bin"
}
echo "ideal with 8 connections at 8 MiB/s: $(awk -v s="$size" 'BEGIN { printf "%.2f", s / 64 }') s" >&2

if [[ -z "$only" || "$only" == f ]]; then
    echo "(f) FTP, $size MiB at 8 MiB/s per connection" >&2
    url="ftp://127.0.0.1:$FTP_PORT/file.bin"
    login="ftp://test:secret@127.0.0.1:$FTP_PORT/file.bin"
    clients=(
        "slipstream -n 8|$bin get -q --force -n 8 --user test:secret -o $out/file $url"
        "aria2c -x8 -s8 -k1M|$aria -x8 -s8 -k1M $login"
        "axel -n 8|axel -q -n 8 -o $out/file $login"
    )
    measure ftp "$sha"
fi

if [[ -z "$only" || "$only" == s ]]; then
    echo "(s) SFTP, $size MiB at 8 MiB/s per connection (relay)" >&2
    url="sftp://127.0.0.1:$relay_port$FTP_ROOT/file.bin"
    # lftp's commands in a file: `measure` splits a client's command line on spaces.
    cat > "$work/lftp.txt" <<LFTP
set sftp:connect-program "ssh -a -x -i $SFTP_KEY -o UserKnownHostsFile=$known -o StrictHostKeyChecking=yes -o BatchMode=yes"
open sftp://$SFTP_USER:unused@127.0.0.1:$relay_port
pget -n 8 $FTP_ROOT/file.bin -o $out/file
quit
LFTP
    clients=(
        "slipstream -n 8|$bin get -q --force -n 8 --ssh-key $SFTP_KEY --known-hosts $known -o $out/file $url"
        "lftp pget -n 8|lftp -f $work/lftp.txt"
    )
    start_password_sshd
    [[ -z "$aria_sftp_url" ]] || clients+=("aria2c -x8 -s8 -k1M|$aria -x8 -s8 -k1M $aria_sftp_url")
    measure sftp "$sha"
fi

python3 Benchmarks/report.py "$results" --runs "$runs"
