#!/usr/bin/env bash
# Runs every libFuzzer target for a while on its seed corpus (fuzz/corpus/<target>), two at a
# time (the CI machine has 2 cores). New inputs go to a scratch corpus, never into the checked-in
# one; a crash leaves its input in build-asan/fuzz-artifacts/ and fails the script.
#
#   fuzz/smoke.sh [seconds per target, default 30] [targets...]
#
# Needs build-asan with the fuzz targets (scripts/test-sanitizers.sh builds it).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(fuzz_claude_line fuzz_codex_line fuzz_history fuzz_secrets fuzz_rest fuzz_ws fuzz_mcp fuzz_http_head fuzz_egress_request)
bin=build-asan/fuzz
artifacts="$(pwd)/build-asan/fuzz-artifacts"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$artifacts"
if [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:quarantine_size_mb=64"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$(pwd)/tests/sanitizers/lsan.supp:print_suppressions=0"

run() {
  local t="$1"
  mkdir -p "$scratch/$t"
  "$bin/$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
    "$scratch/$t" "fuzz/corpus/$t" > "$scratch/$t.log" 2>&1
  local rc=$?
  local stats
  stats=$(grep -E '^#[0-9]+.*(DONE|INITED)' "$scratch/$t.log" | tail -1)
  echo "fuzz smoke: $t exit $rc: $stats"
  if [ $rc -ne 0 ]; then
    tail -60 "$scratch/$t.log"
  fi
  return $rc
}

failed=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for t in "${targets[@]:i:2}"; do
    run "$t" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do
    wait "$p" || failed=1
  done
done
exit $failed
