#!/usr/bin/env bash
# Builds Flotilla with clang, AddressSanitizer + UndefinedBehaviorSanitizer (the `asan` preset in
# CMakePresets.json: ./build-asan, Debug at -O1, with the libFuzzer targets) and runs the whole
# CTest suite under the sanitizers, the monitor's core suites and fuzz corpus replays included.
#
# Left out to keep CI within ~25 minutes on 2 cores: the monitor's window (src/ui, its Xvfb suites;
# the preset sets FLOTILLA_BUILD_MONITOR_UI=OFF). They were ~30% of this tree's compile time, and
# the code under them is widgets over the core models, which are here; ./scripts/test.sh runs them.
# Debug info is line tables only (stack traces need no more), and the suites' own code is -O0.
#
# Left out: the packaging_debs test (label "packaging"). It packages the tree it runs in, and a
# sanitizer build is not what we ship (lintian and the hardening checks judge release binaries);
# ./scripts/test.sh runs it on the normal build. Also the layering tests (label "layering"): they
# check which headers each floor's build can see, nothing that runs, and ./scripts/test.sh runs
# them (about a minute of compiling probes saved here).
#
# Every instrumented process (test suites, the flotillad binaries they start, fuzzers) logs its
# sanitizer reports to build-asan/sanitizer-logs/; any report there fails this script even when a
# test ignored its child's exit status. The Claude CLI (node) and shells are not instrumented:
# the options below are environment variables only they ignore, and LD_PRELOAD is never used.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build_dir=build-asan
jobs="${FLOTILLA_JOBS:-2}"

start=$(date +%s)
cmake --preset asan >/dev/null
cmake --build "$build_dir" -j "$jobs"
built=$(date +%s)

logs="$(pwd)/$build_dir/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
supp="$(pwd)/tests/sanitizers/lsan.supp"
# halt_on_error: the first report ends the process (its test fails). abort_on_error=0: exit code,
# not a core dump. quarantine_size_mb: freed memory is kept poisoned for use-after-free detection;
# 16 MB (default 256) keeps the RSS-bound tests meaningful: at 64 MB, tst_websocket_backpressure's
# "a stalled client costs < 100 MiB" saw ~200 MiB of quarantined buffers, at 16 MB it passes.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:print_stacktrace=1:check_initialization_order=1:strict_init_order=1:quarantine_size_mb=16:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1:log_path=$logs/ubsan"
# Symbolised stacks (llvm-14, from install-deps.sh).
if [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0"

# The reliability suites (tst_soak...) shorten themselves under sanitizers.
export FLOTILLA_SANITIZE_RUN=1

set +e
(cd "$build_dir" && ctest --output-on-failure --timeout 900 -j "${FLOTILLA_TEST_JOBS:-2}" -LE "packaging|layering" "$@")
rc=$?
set -e
echo "test-sanitizers: build $(( built - start )) s, tests $(( $(date +%s) - built )) s"

reports=$(find "$logs" -type f -size +0 | sort)
if [ -n "$reports" ]; then
  echo "test-sanitizers: sanitizer reports:"
  for r in $reports; do
    echo "===== $r"
    head -c 20000 "$r"
  done
  [ $rc -ne 0 ] || rc=1
fi
exit $rc
