#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (CTest). Exit status is CTest's.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
cd "${FLOTILLA_BUILD_DIR:-build}"
# Two suites at a time (the CI machine has 2 cores): every suite is hermetic (own port, HOME,
# data dir), and most of a suite's time is spent waiting for the CLI or the mock model.
ctest --output-on-failure --timeout 600 -j "${FLOTILLA_TEST_JOBS:-2}" "$@"
