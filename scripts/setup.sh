#!/usr/bin/env bash
# Installs the Debian packages that Slipstream's build, tests and benchmarks need.
# Idempotent: packages already present are left as they are. Needs root (or sudo).
set -euo pipefail

packages=(
    pkg-config
    libcurl4-openssl-dev   # the HTTP engine (SlipstreamHTTP)
    libssl-dev             # libcrypto's digests for --checksum (SlipstreamDownload)
    nginx-light            # the real web server the integration tests and benchmarks use
    curl                   # a peer in the benchmarks
    lame sox ffmpeg mpg123 # audio test fixtures and the reference decoders they are checked against
    libmpg123-dev          # the MP3 decoder (SlipstreamAudio/Decoding)
    libfaad-dev            # the AAC (ADTS) decoder
    libasound2-dev         # ALSA output; its `null` device plays where there is no sound card
    libpulse-dev           # PulseAudio output (the simple API)
    pulseaudio             # a headless server with a null sink, for the paced-output tests
)
# Benchmarks only: the download peers.
if [[ "${1:-}" == "--benchmarks" ]]; then
    packages+=(aria2 axel time python3)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
