#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (CTest). Exit status is CTest's.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
cd "${FLOTILLA_BUILD_DIR:-build}"
ctest --output-on-failure --timeout 600 "$@"
