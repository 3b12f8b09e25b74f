#!/usr/bin/env bash
# Installs the Debian packages that Slipstream's build, tests and benchmarks need.
# Idempotent: packages already present are left as they are. Needs root (or sudo).
set -euo pipefail

packages=(
    pkg-config
    libcurl4-openssl-dev   # the HTTP engine (SlipstreamHTTP)
    libssl-dev             # libcrypto's digests for --checksum (SlipstreamDownload)
    nginx-light            # the real web server the integration tests and benchmarks use
    openssl                # the test CA and certificates of the TLS tests (scripts/access-servers.sh)
    lighttpd               # the Digest login the login tests sign in to (nginx has no Digest)
    tinyproxy              # the HTTP proxy the proxy tests go through (scripts/access-servers.sh)
    dante-server           # danted, the SOCKS5 proxy they go through
    python3-pyftpdlib python3-openssl # the FTP and FTPS servers of the FTP tests (scripts/ftp-server.py)
    openssh-server         # sshd, the SFTP server of the SFTP tests (scripts/ftp-servers.sh)
    attr                   # getfattr: the tests read the ETag a download keeps in an extended attribute
    curl                   # a peer in the benchmarks
    lame sox ffmpeg mpg123 # audio test fixtures and the reference decoders they are checked against
    libmpg123-dev          # the MP3 decoder (SlipstreamAudio/Decoding)
    libfaad-dev            # the AAC (ADTS) decoder
    libogg-dev libvorbis-dev # Ogg Vorbis (the Ogg pages are parsed by our own code)
    libopus-dev            # Opus
    libflac-dev            # FLAC, native and in Ogg (frames found by our own parser)
    flac vorbis-tools opus-tools faad # reference decoders the new formats are checked against
    libsoxr-dev            # the resampler for outputs that keep one format when a stream's changes
    libasound2-dev         # ALSA output; its `null` device plays where there is no sound card
    libpulse-dev           # PulseAudio output (the simple API)
    libwebsockets-dev libwebsockets17 # the daemon's HTTP and WebSocket server (its headers; the 4.1 library it loads)
    pulseaudio             # a headless server with a null sink, for the paced-output tests
    icecast2               # the real radio server the live-stream tests play from (scripts/icecast.sh)
    ezstream               # a source that streams a playlist of files to it as they are
    valgrind               # callgrind: the functions scripts/order.sh lays out together
    gdb                    # the stacks scripts/test.sh prints of tests that run past its limit
    aria2                  # aria2c --enable-rpc: the client tests compare the daemon's answers with its
    chromium               # the browser the daemon's page is tested in (Tests/Clients/test_page.py)
    mpv                    # a player of a running download the daemon serves (Tests/Clients/test_stream.py)
)
# Benchmarks only: the download and radio peers.
if [[ "${1:-}" == "--benchmarks" ]]; then
    packages+=(axel lftp time python3)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    # Installed services are not started (icecast2's would serve on port 8000, nginx's on port
    # 80): the tests and benchmarks run their own, on free loopback ports. A policy-rc.d
    # that refuses every start does that, for this install alone, unless the machine has one.
    # icecast2's debconf questions keep their defaults (its own config left unconfigured).
    policy=/usr/sbin/policy-rc.d
    placed=0
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\n# Placed by scripts/setup.sh for one apt-get install.\nexit 101\n' | $sudo tee "$policy" > /dev/null
        $sudo chmod 755 "$policy"
        placed=1
        trap '$sudo rm -f "$policy"' EXIT
    fi
    echo "icecast2 icecast2/icecast-setup boolean false" | $sudo debconf-set-selections
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
    if ((placed)); then
        $sudo rm -f "$policy"
        trap - EXIT
    fi
fi
