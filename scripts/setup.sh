#!/usr/bin/env bash
# Sets up a Debian machine with Swift for camrtp, then either runs the demo or the tests.
#
#   scripts/setup.sh demo   install what is missing, build, stream the test pattern to a real
#                           receiver (ffmpeg) on this machine and print what it decoded
#   scripts/setup.sh test   install what is missing and run the test suite
set -euo pipefail

cd "$(dirname "$0")/.."

packages=(
    pkg-config libv4l-dev libvpx-dev libsrtp2-dev libyuv-dev libjpeg-dev libturbojpeg0-dev libpng-dev libssl-dev openssl
    libnice-dev zlib1g-dev python3-aiortc python3-aiohttp iproute2 curl nftables
    ffmpeg vpx-tools gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good janus chromium coturn
    firefox-esr python3-prometheus-client python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
)

install_missing() {
    local missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return
    echo "Installing: ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if ! command -v swift >/dev/null; then
    echo "Swift 6 is needed and is not on PATH: install it from swift.org, then run this again." >&2
    exit 1
fi

case "${1:-}" in
    demo)
        install_missing
        swift build -c release   # camrtp and camrtp-webrtc
        .build/release/camrtp loopback --source testsrc:1280x720@30 --duration 5 --headless --stats
        ;;
    test)
        install_missing
        scripts/check-module-graph.py
        swift build --build-tests
        swift test --skip-build
        ;;
    *)
        echo "usage: $0 demo|test" >&2
        exit 2
        ;;
esac
