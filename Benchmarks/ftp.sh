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
#     connections, by key: slipstream -n 8 against lftp's `pget -n 8` (through ssh). aria2c's
#     SFTP logs in by password only, and the test sshd takes keys only: it is not measured.
#     Target: faster than each peer.
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
trap 'kill "$relay_pid" 2>/dev/null; ftp_stop; nginx_stop; rm -rf "$work"' EXIT
known="$work/known_hosts"
sed "s/\]:$SFTP_PORT /]:$relay_port /" "$SFTP_KNOWN_HOSTS" > "$known"
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$relay_port") 2>/dev/null && break; sleep 0.1; done

echo "making the test file ($size MiB)..." >&2
head -c $((size << 20)) /dev/urandom > "$FTP_ROOT/file.bin"
sync
sha=$(sha256sum "$FTP_ROOT/file.bin" | cut -d' ' -f1)
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
    measure sftp "$sha"
fi

python3 Benchmarks/report.py "$results" --runs "$runs"
