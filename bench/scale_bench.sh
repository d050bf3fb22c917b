#!/usr/bin/env bash
# 1,000 agents and 200 connected WebSocket clients: REST latency (wrk) and flotillad's memory.
# Loopback, the real flotillad; clients are bench_stream client processes (idle, but each gets
# every event). Usage: bench/scale_bench.sh [build_dir=build] [agents=1000] [clients=200] [seconds=10]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"; agents="${2:-1000}"; clients="${3:-200}"; duration="${4:-10}"
bin="$build/service/flotillad"; client="$build/bench/bench_stream"
[ -x "$bin" ] && [ -x "$client" ] || { echo "build $build first (flotillad, bench_stream)" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill ${pids:-} 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
QT_LOGGING_RULES='*.info=false' "$bin" --port "$port" --data-dir "$work/data" 2>"$work/err" &
pid=$!; pids="$pid"
until curl -sf -o /dev/null "$base/api/health"; do sleep 0.05; done
rss() { awk '/^VmRSS:/ {print $2}' /proc/$pid/status; }
idle=$(rss)
for i in $(seq 1 "$agents"); do
  printf '{"name":"scale-%d","cwd":"%s","class":"builder"}\n' "$i" "$work"
done | while read -r body; do curl -sf -o /dev/null -X POST -H "Content-Type: application/json" "$base/api/agents" -d "$body"; done
with_agents=$(rss)
per=$(( (clients + 1) / 2 ))
for p in 1 2; do
  "$client" client --url "ws://127.0.0.1:$port/ws" --clients "$per" --finals 0 --timeout $((duration * 4 + 60)) > "$work/c$p" &
  pids="$pids $!"
done
until [ "$(cat "$work/c1" "$work/c2" 2>/dev/null | grep -c ready)" = 2 ]; do sleep 0.1; done
with_clients=$(rss)
results="["
for path in /api/agents/status /api/agents /api/agents/simple /api/health; do
  out=$(wrk -t2 -c64 -d"${duration}s" --latency "$base$path")
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  echo "$path: $rps req/s p50 $p50 p99 $p99"
  results+="{\"path\":\"$path\",\"rps\":$rps,\"p50\":\"$p50\",\"p99\":\"$p99\"},"
done
# A change with 200 clients connected: one PATCH fans out agent_updated to all of them.
first=$(curl -s "$base/api/agents/simple" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
t0=$(date +%s%N)
curl -sf -o /dev/null -X PATCH -H "Content-Type: application/json" "$base/api/agents/$first" -d '{"taskLabel":"x"}'
patch_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
peak=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status)
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
mkdir -p bench/results
cat > "bench/results/scale-$stamp.json" <<JSON
{"date":"$stamp","machine":"$(nproc) cores, $(uname -r)","agents":$agents,"clients":$clients,
 "rss_kib":{"idle":$idle,"with_agents":$with_agents,"with_clients":$with_clients,"hwm":$peak},
 "patch_with_clients_ms":$patch_ms,"wrk":${results%,}]}
JSON
echo "RSS KiB: idle $idle, $agents agents $with_agents, + $clients clients $with_clients, peak $peak"
echo "wrote bench/results/scale-$stamp.json"
