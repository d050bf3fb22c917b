#!/usr/bin/env bash
# REST throughput/latency, start-up time and memory of flotillad. Release build, loopback only,
# load generator (wrk) on the same 2-core machine. Writes a JSON summary to bench/results/.
# Usage: bench/http_bench.sh [duration_seconds=10] [repeats=3]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-10}"
repeats="${2:-3}"
# bench/run-all.sh passes its own Release tree; alone, this script makes a minimal one.
build="${FLOTILLA_BENCH_BUILD:-build-release}"
if [ -z "${FLOTILLA_BENCH_BUILD:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOTILLA_BUILD_TESTS=OFF -DFLOTILLA_BUILD_MONITOR=OFF >/dev/null
fi
cmake --build "$build" -j2 --target flotillad >/dev/null
bin="$build/service/flotillad"
# The bare Qt 6.4.2 baseline is built with the benchmarks (-DFLOTILLA_BUILD_BENCH=ON).
bare="$build/bench/bench_bare_qhttpserver"
[ -x "$bare" ] || bare=""
work=$(mktemp -d)
# Never "kill 0" (the whole process group, run-all.sh included) when no server is running.
trap '[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
token=bench-token
base="http://127.0.0.1:$port"

# --- start-up: exec -> first 200 from /api/health (fresh data dir each time), 15 times
startup_of() { # command... ; prints "min median max" in microseconds
  local times=() i t0 t1 p
  for i in $(seq 1 15); do
    t0=$(date +%s%N)
    "$@" "$work/start$i" 2>/dev/null &
    p=$!
    until curl -sf -o /dev/null "$base/api/health"; do :; done
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
    kill $p; wait $p 2>/dev/null || true
  done
  local sorted; sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "$(echo "$sorted" | head -1) $(echo "$sorted" | sed -n 8p) $(echo "$sorted" | tail -1)"
}
# exec: started with &, the function's subshell becomes the server, so $! is the server's pid.
flotillad_at() { AUTH_TOKEN=$token QT_LOGGING_RULES='*.info=false' exec "$bin" --port "$port" --data-dir "$1"; }
bare_at() { exec "$bare" "$port"; }
read -r smin smed smax < <(startup_of flotillad_at)
bare_startup="null"
if [ -n "$bare" ]; then
  read -r bmin bmed bmax < <(startup_of bare_at)
  bare_startup="{\"min\":$bmin,\"median\":$bmed,\"max\":$bmax}"
fi

# The measured server runs under /usr/bin/time -v: its "Maximum resident set size" is the peak
# RSS over the whole run, as the kernel counted it.
AUTH_TOKEN=$token QT_LOGGING_RULES='*.info=false' /usr/bin/time -v -o "$work/time.txt" \
  "$bin" --port "$port" --data-dir "$work/data" 2>/dev/null &
tpid=$!
until curl -sf -o /dev/null "$base/api/health"; do :; done
pid=$(pgrep -P $tpid)
sleep 1
idle_rss=$(ps -o rss= -p $pid | tr -d ' ')
for i in $(seq 1 100); do
  curl -sf -o /dev/null -X POST -H "X-Auth-Token: $token" -H "Content-Type: application/json" "$base/api/agents" \
    -d "{\"name\":\"agent-$i\",\"cwd\":\"$work\",\"class\":\"builder\"}"
done
agent=$(curl -s -H "X-Auth-Token: $token" "$base/api/agents/simple" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
status_bytes=$(curl -s -H "X-Auth-Token: $token" "$base/api/agents/status" | wc -c)
rss_100=$(ps -o rss= -p $pid | tr -d ' ')

cat > "$work/post.lua" <<LUA
counter = 0
-- each wrk thread has its own Lua state: seed from its table address so names never collide
function init(args) math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16)) end
request = function()
  counter = counter + 1
  local body = '{"name":"w' .. counter .. '-' .. math.random(1e9) .. '","cwd":"$work"}'
  return wrk.format("POST", "/api/agents", {["X-Auth-Token"]="$token", ["Content-Type"]="application/json"}, body)
end
LUA
cat > "$work/patch.lua" <<LUA
counter = 0
request = function()
  counter = counter + 1
  local body = '{"taskLabel":"t' .. counter .. '"}'
  return wrk.format("PATCH", "/api/agents/$agent", {["X-Auth-Token"]="$token", ["Content-Type"]="application/json"}, body)
end
LUA

peak_rss=0
sample_rss() { while kill -0 $pid 2>/dev/null; do r=$(ps -o rss= -p $pid | tr -d ' '); [ -n "$r" ] && echo "$r"; sleep 0.25; done; }
results="["
run() { # name, wrk args...
  local name=$1; shift
  for r in $(seq 1 "$repeats"); do
    sample_rss > "$work/rss.txt" & sp=$!
    out=$(wrk -t2 -c64 -d"${duration}s" --latency "$@")
    kill $sp 2>/dev/null || true; wait $sp 2>/dev/null || true
    m=$(sort -n "$work/rss.txt" | tail -1); [ "${m:-0}" -gt "$peak_rss" ] && peak_rss=$m
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1=="50%" {print $2}')
    p99=$(echo "$out" | awk '$1=="99%" {print $2}')
    errs=$(echo "$out" | awk '/Non-2xx/ {print $5}')
    echo "$name run $r: $rps req/s  p50 $p50  p99 $p99  non2xx ${errs:-0}"
    results+="{\"name\":\"$name\",\"run\":$r,\"rps\":$rps,\"p50\":\"$p50\",\"p99\":\"$p99\",\"non2xx\":${errs:-0}},"
  done
}
run status -H "X-Auth-Token: $token" "$base/api/agents/status"
# The same request as a page served by flotillad itself would send it: Origin and Sec-Fetch-Site
# go through the Host/Origin checks (docs/security.md), the path a browser client pays for.
run status_browser -H "X-Auth-Token: $token" -H "Origin: http://127.0.0.1:$port" \
  -H "Sec-Fetch-Site: same-origin" "$base/api/agents/status"
run health "$base/api/health"
run agent_by_id -H "X-Auth-Token: $token" "$base/api/agents/$agent"
run unauthorized "$base/api/agents/status"
run patch -s "$work/patch.lua" "$base"
run create -s "$work/post.lua" "$base"
kill $pid; wait $tpid 2>/dev/null || true; pid=
time_max_rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")

# The same wrk command against the bare Qt server with the same 13.9 KB body on this machine now:
# what any code above Qt 6.4.2's QHttpServer can reach here.
bare_idle_rss=null
if [ -n "$bare" ]; then
  "$bare" "$port" "$status_bytes" 2>/dev/null &
  pid=$!
  until curl -sf -o /dev/null "$base/api/health"; do :; done
  sleep 1
  bare_idle_rss=$(ps -o rss= -p $pid | tr -d ' ')
  run bare_status "$base/api/agents/status"
  kill $pid; wait $pid 2>/dev/null || true; pid=
fi
results="${results%,}]"

echo "startup to first 200 (us): min $smin median $smed max $smax${bare:+; bare Qt: $bmin $bmed $bmax}"
echo "RSS KiB: idle $idle_rss, with 100 agents $rss_100, peak under load $peak_rss (time -v: $time_max_rss); bare Qt idle $bare_idle_rss; status body $status_bytes bytes"
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
cat > "bench/results/http-$stamp.json" <<JSON
{"date":"$stamp","machine":"$(nproc) cores, $(awk '/MemTotal/ {print $2}' /proc/meminfo) KiB, $(uname -r)",
 "duration_s":$duration,"repeats":$repeats,"status_body_bytes":$status_bytes,
 "startup_us":{"min":$smin,"median":$smed,"max":$smax},"bare_startup_us":$bare_startup,
 "rss_kib":{"idle":$idle_rss,"agents100":$rss_100,"peak_under_load":$peak_rss,"time_v_max":${time_max_rss:-null},"bare_idle":$bare_idle_rss},
 "wrk":$results}
JSON
echo "wrote bench/results/http-$stamp.json"
