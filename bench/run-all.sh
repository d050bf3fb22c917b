#!/usr/bin/env bash
# Runs every benchmark (Release build, loopback only, each bounded in time) and writes
#   bench/results/<date>.json      every figure, with the per-benchmark result files it came from
#   docs/performance.md            the summary table between the bench:table markers
# Usage: bench/run-all.sh [--quick]   (--quick: short runs to check the pipeline, not to quote)
# Needs what scripts/install-deps.sh installs (wrk, python3) and the pinned CLI (for agents).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0; [ "${1:-}" = "--quick" ] && quick=1
build=build-release
export FLOTILLA_BENCH_BUILD="$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOTILLA_BUILD_TESTS=ON \
  -DFLOTILLA_BUILD_MONITOR=ON -DFLOTILLA_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j2 --target flotillad bench_history bench_exec bench_stream bench_monitor >/dev/null
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
runs="bench/results/run-$stamp"
mkdir -p "$runs"
log() { printf '\n== %s\n' "$*"; }
newest() { ls -t bench/results/$1 2>/dev/null | head -1; }

if [ $quick = 1 ]; then dur=2; rep=1; sizes="50M"; exec_runs=1; secs=3; agents=100; else dur=10; rep=3; sizes="50M 1G"; exec_runs=5; secs=10; agents=1000; fi

log "REST, start-up, memory (bench/http_bench.sh $dur s x $rep)"
bench/http_bench.sh "$dur" "$rep" | tee "$runs/http.txt"
cp "$(newest 'http-*.json')" "$runs/http.json"

for size in $sizes; do
  log "history on a $size session file"
  f="$build/bench/session-$size.jsonl"
  [ -f "$f" ] || python3 bench/make_session_file.py "$f" "$size" --seed 1
  "$build/bench/bench_history" "$f" 5 "$runs/history-$size.json" | tail -5
done

log "exec: seq 1 100000 to 50 WebSocket clients"
"$build/bench/bench_exec" --flotillad "$build/service/flotillad" --clients 50 --runs "$exec_runs" \
  --command "seq 1 100000" --results "$runs/exec.json" | tail -3

log "output streaming: 10 agents x 1,000 deltas/s, 50 clients (real CLI, mock model)"
"$build/bench/bench_stream" --agents 10 --clients 50 --rate 1000 --seconds "$secs" \
  --out "$runs/stream.json" | tail -25 || echo "(stream bench reported lost deltas or incomplete clients)"
# The same message rate per client from one agent: separates flotillad's fan-out from the cost of
# ten CLI processes sharing the two cores.
"$build/bench/bench_stream" --agents 1 --clients 50 --rate 1000 --seconds "$secs" \
  --out "$runs/stream-1agent.json" | tail -25 || echo "(stream bench reported lost deltas or incomplete clients)"

log "scale: $agents agents, 200 WebSocket clients"
bench/scale_bench.sh "$build" "$agents" 200 "$dur" | tee "$runs/scale.txt"
mv "$(newest 'scale-*.json')" "$runs/scale.json"

log "monitor (offscreen)"
QT_QPA_PLATFORM=offscreen "$build/bench/bench_monitor" > "$runs/monitor.txt" 2>/dev/null || true
tail -6 "$runs/monitor.txt"

python3 bench/summarize.py "$runs" "bench/results/$stamp.json" docs/performance.md $quick
