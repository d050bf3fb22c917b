#!/usr/bin/env bash
# Configures and builds Flotilla into ./build (or $FLOTILLA_BUILD_DIR). Warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${FLOTILLA_BUILD_DIR:-build}"
jobs="${FLOTILLA_JOBS:-2}"
cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="${FLOTILLA_BUILD_TYPE:-RelWithDebInfo}" \
  -DFLOTILLA_WERROR=ON "$@"
cmake --build "$build_dir" -j "$jobs"
