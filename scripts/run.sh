#!/usr/bin/env bash
# Installs what is missing, builds, and runs flotillad in the foreground.
# Extra arguments go to flotillad, e.g. ./scripts/run.sh --port 5175 --data-dir /tmp/fl
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh >/dev/null
echo "run: starting flotillad (Ctrl+C stops it)"
exec "${FLOTILLA_BUILD_DIR:-build}/service/flotillad" "$@"
