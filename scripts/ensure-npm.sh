#!/usr/bin/env bash
# Installs Debian's nodejs and npm when npm is missing (the pinned npm packages need it).
#
#   ensure-npm.sh TAG    (TAG prefixes the one line it prints)
set -euo pipefail
tag="${1:-ensure-npm}"
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
  fi
  echo "$tag: npm missing, installing nodejs and npm"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends nodejs npm
fi
