#!/usr/bin/env bash
# Installs every Debian package Flotilla needs to build, run and test. Idempotent:
# packages already present are skipped, so a second run costs one dpkg query.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  qt6-base-dev qt6-base-dev-tools qt6-httpserver-dev qt6-websockets-dev
  libqt6sql6-sqlite libgl-dev
  clang-format
  clang clang-tidy libclang-rt-14-dev llvm-14 lld
  xvfb xauth
  wrk procps time curl dpkg-dev
  openssh-client openssh-server
  bubblewrap socat
  chromium chromium-driver python3-selenium openssl
  qtkeychain-qt6-dev
  lintian systemd appstream desktop-file-utils fakeroot
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
"$(dirname "$0")/install-claude.sh"
"$(dirname "$0")/install-codex.sh"
"$(dirname "$0")/install-mcp-sdk.sh"
