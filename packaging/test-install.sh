#!/usr/bin/env bash
# Real install test of the two .debs, as root, in a fresh Debian 12 (bookworm) root:
#   debootstrap (minbase, from deb.debian.org) -> apt-get install ./flotilla_*.deb
#   ./flotilla-monitor_*.deb (dependencies from the archive) -> every library resolves ->
#   flotillad runs as a normal user on a free port with --token-file ~/.config/flotilla/token,
#   as the unit runs it -> the token file is made (0600, 0700 directory), GET /api/health, the
#   token enforced (401 without, 200 with `cat` of the file) -> SIGTERM, exit 0 -> a
#   group-readable token file is refused (exit 2) -> the same under the packaged unit with
#   systemctl --user start (token file made inside the sandbox; an agent's bubblewrap sandbox
#   works under the unit's hardening: an exec task cannot write /etc; AUTH_TOKEN in flotillad.env
#   overrides the token file) -> apt-get remove --purge -> no file of ours is left.
#
#   packaging/test-install.sh [DEB_DIR]     default DEB_DIR: build-debs/packaging/debs (made
#                                           with packaging/build-debs.sh when it has no .debs)
# Needs root and network (deb.debian.org). Not run in CI (a few minutes). The bootstrapped root
# is cached as a tarball in /var/cache/flotilla-test-install (FLOTILLA_TEST_INSTALL_CACHE), and
# so are the downloaded .debs, so reruns mostly skip the network. KEEP_ROOT=1 keeps the root.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
debs_dir="${1:-$src/build-debs/packaging/debs}"
suite=bookworm
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
cache="${FLOTILLA_TEST_INSTALL_CACHE:-/var/cache/flotilla-test-install}"
tarball="$cache/$suite-minbase.tar.gz"
start_time=$SECONDS

log() { printf '[test-install %4ds] %s\n' "$((SECONDS - start_time))" "$*"; }
die() { log "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot, mounts)"
command -v curl >/dev/null || die "curl missing (scripts/install-deps.sh)"

if ! ls "$debs_dir"/flotilla_*.deb >/dev/null 2>&1; then
  log "no packages in $debs_dir: building them with packaging/build-debs.sh"
  "$src/packaging/build-debs.sh"
  debs_dir="$src/build-debs/packaging/debs"
fi
service_deb="$(ls "$debs_dir"/flotilla_*.deb | head -n1)"
monitor_deb="$(ls "$debs_dir"/flotilla-monitor_*.deb | head -n1)"
log "packages: $(basename "$service_deb") $(basename "$monitor_deb")"

if ! command -v debootstrap >/dev/null; then
  log "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null ||
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; }
fi

root="$(mktemp -d /var/tmp/flotilla-test-install.XXXXXX)"
chmod 755 "$root" # it becomes /: users and apt's _apt must traverse it
flotillad_pid=""
manager_pid=""
unit_cg=""

unmount_all() { # deepest first; lazy, so a busy mount still goes
  local m
  for m in $(awk -v r="$root" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" || true
  done
}
cleanup() {
  local rc=$?
  if [ -n "$flotillad_pid" ] && kill -0 "$flotillad_pid" 2>/dev/null; then
    kill -KILL "$flotillad_pid" 2>/dev/null || true
  fi
  if [ -n "${manager_pid:-}" ]; then kill -TERM "$manager_pid" 2>/dev/null || true; sleep 1; fi
  if [ -n "${unit_cg:-}" ] && [ -d "$unit_cg" ]; then
    find "$unit_cg" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    sleep 0.2
    find "$unit_cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
  fi
  unmount_all
  if awk -v r="$root" 'index($2, r) == 1 {found = 1} END {exit !found}' /proc/mounts; then
    log "mounts remain under $root: not deleting it"
  elif [ "${KEEP_ROOT:-0}" = 1 ]; then
    log "kept $root"
  else
    rm -rf --one-file-system "$root"
  fi
  log "total time $((SECONDS - start_time)) s, exit $rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- a fresh Debian 12 root ----------------------------------------------------------------
mkdir -p "$cache/archives"
if [ -f "$tarball" ]; then
  log "unpacking cached $suite root $tarball"
  tar -xzf "$tarball" -C "$root"
else
  log "debootstrap --variant=minbase $suite from $mirror"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log"; die "debootstrap failed"; }
  rm -f "$root"/var/cache/apt/archives/*.deb
  tar -czf "$tarball.tmp" -C "$root" --exclude=./proc --exclude=./sys --exclude=./dev . &&
    mv "$tarball.tmp" "$tarball"
fi
chmod 755 "$root" # again: the cached tarball carries the mode of mktemp's directory
grep -q '^12' "$root/etc/debian_version" || die "not Debian 12: $(cat "$root/etc/debian_version")"
mkdir -p "$root/proc" "$root/dev" "$root/sys"
# The root is a mount point of its own, as systemd's namespace set-up (the unit phase) expects.
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# As a Debian 12 installation has them: updates and security (debootstrap adds only main).
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb http://deb.debian.org/debian-security $suite-security main
EOF
# No daemons start inside the chroot (dependencies such as dbus ship init scripts).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive "$@"; }

# --- install -------------------------------------------------------------------------------
mkdir -p "$root/tmp/debs"
cp "$service_deb" "$monitor_deb" "$root/tmp/debs/"
log "apt-get update"
in_root apt-get update -q >/dev/null
log "apt-get install -y ./$(basename "$service_deb") ./$(basename "$monitor_deb")"
before="$(in_root dpkg-query -W -f='${Package}\n' | wc -l)"
in_root sh -c "cd /tmp/debs && apt-get install -y -q ./$(basename "$service_deb") \
  ./$(basename "$monitor_deb")" >"$root/tmp/apt-install.log" 2>&1 ||
  { tail -30 "$root/tmp/apt-install.log"; die "apt-get install failed"; }
after="$(in_root dpkg-query -W -f='${Package}\n' | wc -l)"
grep -E '^(Setting up flotilla|The following NEW packages)' "$root/tmp/apt-install.log" || true
log "installed: $((after - before)) packages (flotilla, flotilla-monitor and their dependencies)"
for p in flotilla flotilla-monitor; do
  in_root dpkg-query -W -f='${Package} ${Version} ${Status}\n' "$p" | grep 'install ok installed' ||
    die "$p is not installed"
done

owned="$root/tmp/owned.txt"
in_root dpkg -L flotilla flotilla-monitor | sort -u >"$owned"
log "the packages own $(wc -l <"$owned") paths"
for bin in /usr/bin/flotillad /usr/bin/flotilla-monitor; do
  missing="$(in_root ldd "$bin" | grep 'not found' || true)"
  [ -z "$missing" ] || die "$bin: unresolved libraries: $missing"
done
log "every library of flotillad and flotilla-monitor resolves"
in_root sh -c 'ls /usr/lib/*/qt6/plugins/sqldrivers/libqsqlite.so' >/dev/null ||
  die "the Qt SQLite driver is not installed"
in_root sh -c 'ls /usr/lib/*/qt6/plugins/platforms/libqxcb.so' >/dev/null ||
  die "the Qt xcb platform plugin is not installed"
in_root test -f /usr/lib/systemd/user/flotillad.service || die "user unit missing"
in_root flotillad --version
# The monitor starts with the offscreen platform (no display here): it must find its libraries
# and plugins. Its own behaviour is tested elsewhere; 124 means still running after 3 s.
rc=0
in_root runuser -u nobody -- env HOME=/tmp QT_QPA_PLATFORM=offscreen \
  timeout 3 flotilla-monitor >"$root/tmp/monitor.log" 2>&1 || rc=$?
if grep -Eq 'error while loading shared libraries|Could not (load|find) the Qt platform plugin' \
     "$root/tmp/monitor.log"; then
  cat "$root/tmp/monitor.log"; die "flotilla-monitor cannot start"
fi
log "flotilla-monitor -platform offscreen: exit $rc after 3 s (124 = still running)"

# --- run flotillad as a normal user ---------------------------------------------------------
in_root useradd --create-home --shell /bin/bash flotest
# The user's real home, not a directory under /tmp: the unit phase below runs flotillad with
# PrivateTmp=yes, where /tmp is private, so a home there would not be the one the unit sees.
home=/home/flotest
flotest_uid="$(in_root id -u flotest)"
# Where the packaged unit keeps the token (ExecStart=... --token-file %h/.config/flotilla/token).
token_file="$home/.config/flotilla/token"
[ ! -e "$root$home/.config/flotilla" ] || die "$home/.config/flotilla exists before any start"
# The token flotillad made in $token_file, checked as the unit's users rely on it: a regular file
# of flotest, mode 600, in a directory of mode 700, holding 64 hex digits and a newline. Prints
# what is wrong (and returns 1), or nothing.
token_file_problem() {
  local f="$root$token_file" st
  if [ -L "$f" ] || [ ! -f "$f" ]; then echo "$token_file is missing or not a regular file"; return 1; fi
  st="$(stat -c '%a %u' "$f")"
  [ "$st" = "600 $flotest_uid" ] ||
    { echo "$token_file: mode and owner '$st', expected '600 $flotest_uid'"; return 1; }
  st="$(stat -c '%a %u' "$(dirname "$f")")"
  [ "$st" = "700 $flotest_uid" ] ||
    { echo "$(dirname "$token_file"): mode and owner '$st', expected '700 $flotest_uid'"; return 1; }
  if ! grep -Eqx '[0-9a-fA-F]{64}' "$f" || [ "$(wc -c <"$f")" != 65 ]; then
    echo "$token_file does not hold 64 hex digits and a newline ($(wc -c <"$f") bytes)"; return 1
  fi
}
# The X-Auth-Token header line for curl's -H @file, through a pipe: a token on curl's argv could
# be read by every user through ps.
auth_header() { printf 'X-Auth-Token: %s\n' "$1"; }
# HTTP status of GET /api/agents on PORT, with TOKEN as X-Auth-Token unless it is empty.
agents_status() { # port token
  # (the header pipe must be opened on curl's own command: one made earlier is closed by then)
  if [ -z "$2" ]; then
    curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/api/agents"
  else
    curl -s -o /dev/null -w '%{http_code}' -H @<(auth_header "$2") "http://127.0.0.1:$1/api/agents"
  fi
}
# --port 0 picks a free port; flotillad prints it ("listening on 127.0.0.1:PORT"). No AUTH_TOKEN:
# the token comes from the file flotillad makes on this first start, as under the unit.
log "starting flotillad as flotest, HOME=$home, --port 0, --token-file $token_file"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin runuser -u flotest -- \
  /usr/bin/env -i PATH=/usr/bin:/bin HOME="$home" \
  /usr/bin/flotillad --port 0 --token-file "$token_file" >"$root/tmp/flotillad.log" 2>&1 &
flotillad_pid=$!
port=""
for _ in $(seq 1 100); do
  port="$(sed -n 's/^flotillad: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$root/tmp/flotillad.log")"
  [ -n "$port" ] && break
  kill -0 "$flotillad_pid" 2>/dev/null || { cat "$root/tmp/flotillad.log"; die "flotillad exited"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$root/tmp/flotillad.log"; die "flotillad did not report a port"; }
# chroot execs env, which execs runuser; runuser's child is flotillad.
daemon_pid="$(pgrep -P "$flotillad_pid" -x flotillad)" || die "no flotillad process"
log "flotillad pid $daemon_pid listening on 127.0.0.1:$port"

health="$(curl -fsS "http://127.0.0.1:$port/api/health")" || die "GET /api/health failed"
log "GET /api/health -> $health"
grep -q '"status":"ok"' <<<"$health" || die "health is not ok"
grep -q '"authRequired":true' <<<"$health" || die "health does not report the token"
problem="$(token_file_problem)" || die "token file: $problem"
token="$(cat "$root$token_file")"
log "token file: $(stat -c '%A %U' "$root$token_file") $token_file, in a $(stat -c '%A' "$(dirname "$root$token_file")") directory"
code="$(agents_status "$port" "")"
[ "$code" = 401 ] || die "GET /api/agents without the token -> $code, expected 401"
code="$(agents_status "$port" "$token")"
[ "$code" = 200 ] || die "GET /api/agents with the token of $token_file -> $code, expected 200"
log "GET /api/agents: 401 without the token, 200 with the token of the file"
# In a chroot the kernel refuses user namespaces, so the sandbox probe should say why (logged only:
# the unit phase below checks a working sandbox).
log "sandbox in the chroot: $(curl -fsS -H @<(auth_header "$token") "http://127.0.0.1:$port/api/health" |
  sed -n 's/.*\("sandbox":{[^}]*}\).*/\1/p')"
[ -d "$root$home/.local/share/flotilla" ] || die "no data directory in $home/.local/share/flotilla"
log "data directory: $(cd "$root$home/.local/share/flotilla" && ls | tr '\n' ' ')"

kill -TERM "$daemon_pid"
rc=0
wait "$flotillad_pid" || rc=$?
flotillad_pid=""
cat "$root/tmp/flotillad.log"
[ "$rc" = 0 ] || die "flotillad exited with $rc after SIGTERM, expected 0"
log "flotillad stopped cleanly on SIGTERM (exit 0)"
! grep -qF "$token" "$root/tmp/flotillad.log" || die "flotillad logged its token"
# A token file others can read is refused: exit 2 (the unit does not restart on it).
chmod 640 "$root$token_file"
rc=0
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin runuser -u flotest -- \
  /usr/bin/env -i PATH=/usr/bin:/bin HOME="$home" timeout 10 \
  /usr/bin/flotillad --port 0 --token-file "$token_file" >"$root/tmp/flotillad-refused.log" 2>&1 ||
  rc=$?
chmod 600 "$root$token_file"
cat "$root/tmp/flotillad-refused.log"
[ "$rc" = 2 ] || die "flotillad with a token file of mode 640: exit $rc, expected 2"
log "a token file of mode 640 is refused (exit 2)"

# --- the same through the packaged systemd user unit ----------------------------------------
# A user manager (systemd --user) for flotest inside the root, in a cgroup delegated to it as
# user@.service would, then: systemctl --user start flotillad. This runs the unit's sandboxing
# for real. It needs cgroup and user-namespace support from the host; where the manager itself
# cannot start, the phase is skipped with the reason (FLOTILLA_TEST_UNIT=0 skips it always,
# =1 makes a skip a failure).
unit_phase() {
  log "unit phase: apt-get install systemd (the user manager), systemctl --user start flotillad"
  in_root apt-get install -y -q --no-install-recommends systemd >"$root/tmp/apt-systemd.log" 2>&1 ||
    { tail "$root/tmp/apt-systemd.log"; die "installing systemd in the root failed"; }
  local uid cg run env_file
  uid="$(in_root id -u flotest)"
  run="/run/user/$uid"
  in_root install -d -o flotest -g flotest -m 700 "$run"
  # systemd --user refuses to run unless the system looks booted with systemd (sd_booted()).
  in_root install -d /run/systemd/system
  cg=""
  for base in /sys/fs/cgroup/unified /sys/fs/cgroup/systemd /sys/fs/cgroup; do
    if [ -f "$base/cgroup.procs" ] && mkdir "$base/flotilla-test-install-$$" 2>/dev/null; then
      cg="$base/flotilla-test-install-$$"
      unit_cg="$cg"
      break
    fi
  done
  [ -n "$cg" ] || { unit_result="SKIP: no writable cgroup hierarchy to delegate"; return 0; }
  chown -R "$uid:$uid" "$cg"
  # Out of the box: no ~/.config/flotilla at all (the plain run's token file goes), so the
  # unit's first start must make the token file from inside its sandbox.
  rm -rf "$root$home/.config/flotilla"
  # Start the manager inside the delegated cgroup (the subshell moves itself there first), in a
  # mount namespace whose root *is* the test root (pivot_root, not chroot: the kernel refuses
  # user namespaces, which the unit's sandboxing uses, to chrooted processes).
  in_root systemd-machine-id-setup >/dev/null 2>&1 || true
  mkdir -p "$root/.oldroot"
  (
    echo "$BASHPID" >"$cg/cgroup.procs"
    exec unshare --mount --propagation private sh -c "cd '$root' && pivot_root . .oldroot &&
      cd / && umount -l /.oldroot && exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
      runuser -u flotest -- /usr/bin/env -i PATH=/usr/bin:/bin HOME='$home' \
      XDG_RUNTIME_DIR='$run' /usr/lib/systemd/systemd --user"
  ) >"$root/tmp/systemd-user.log" 2>&1 &
  manager_pid=$!
  ctl=(chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin runuser -u flotest --
       /usr/bin/env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$run")
  for _ in $(seq 1 100); do
    [ -S "$root$run/systemd/private" ] && break
    kill -0 "$manager_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ ! -S "$root$run/systemd/private" ]; then
    unit_result="SKIP: systemd --user did not start here: $(tail -n 3 "$root/tmp/systemd-user.log" | tr '\n' ' ')"
    return 0
  fi
  # The port the plain run just used and freed, through the manager's environment (no
  # flotillad.env yet: that is the out-of-the-box start).
  uport="$port"
  "${ctl[@]}" systemctl --user set-environment "FLOTILLA_PORT=$uport"

  # 1. First start: the unit makes the token file and requires its token.
  unit_start || return 0
  local problem file_token env_token
  if ! problem="$(token_file_problem)"; then
    unit_result="FAIL: under the unit, token file: $problem"; return 0
  fi
  file_token="$(cat "$root$token_file")"
  log "unit: token file $token_file made on first start: $(stat -c '%A %U' "$root$token_file")"
  unit_expect_agents "" 401 "without a token" || return 0
  unit_expect_agents "$file_token" 200 "with the token of $token_file" || return 0
  log "unit: GET /api/agents: 401 without the token, 200 with the token of the file"
  # Inside the sandbox: the file system is read-only but for the home, /tmp is private.
  log "unit: NoNewPrivs=$(awk '/NoNewPrivs/ {print $2}' "/proc/$upid/status") Seccomp=$(awk '/^Seccomp:/ {print $2}' "/proc/$upid/status")"
  unit_sandbox "$file_token" || return 0
  unit_stop || return 0

  # 2. AUTH_TOKEN in ~/.config/flotilla/flotillad.env (read by the unit, as documented) overrides
  #    the token file.
  env_file="$home/.config/flotilla/flotillad.env"
  env_token="test-install-$RANDOM$RANDOM"
  in_root runuser -u flotest -- install -m 600 /dev/null "$env_file"
  printf 'AUTH_TOKEN=%s\n' "$env_token" >"$root$env_file"
  unit_start || return 0
  unit_expect_agents "$env_token" 200 "with AUTH_TOKEN of flotillad.env" || return 0
  unit_expect_agents "$file_token" 401 "with the token file's token while AUTH_TOKEN is set" ||
    return 0
  log "unit: AUTH_TOKEN from flotillad.env overrides the token file (200 with it, 401 with the file's)"
  unit_stop || return 0
  unit_result="PASS"
}
# systemctl --user start flotillad, then wait for GET /api/health on $uport; sets upid. Returns 1
# with unit_result set when it fails.
unit_start() {
  if ! "${ctl[@]}" systemctl --user start flotillad; then
    "${ctl[@]}" systemctl --user status --no-pager flotillad || true
    unit_result="FAIL: systemctl --user start flotillad failed"
    return 1
  fi
  upid=""
  for _ in $(seq 1 100); do
    upid="$("${ctl[@]}" systemctl --user show -p MainPID --value flotillad)"
    [ -n "$upid" ] && [ "$upid" != 0 ] && curl -fsS -o /dev/null "http://127.0.0.1:$uport/api/health" \
      2>/dev/null && break
    sleep 0.1
  done
  "${ctl[@]}" systemctl --user status --no-pager flotillad | head -n 12 || true
  local h
  if ! h="$(curl -fsS "http://127.0.0.1:$uport/api/health")"; then
    log "unit: flotillad environment: $(tr '\0' ' ' <"/proc/$upid/environ" 2>/dev/null | sed 's/AUTH_TOKEN=[^ ]*/AUTH_TOKEN=.../')"
    log "unit: its sockets: $(ss -Hltnp 2>/dev/null | grep "pid=$upid," || echo none)"
    unit_result="FAIL: GET /api/health under the unit"
    return 1
  fi
  log "unit: flotillad pid $upid on port $uport, GET /api/health -> $h"
  grep -q '"authRequired":true' <<<"$h" ||
    { unit_result="FAIL: flotillad runs without a token under the unit"; return 1; }
}
# Agents' sandboxes under the unit's hardening (issue 25): bubblewrap, recommended by the package,
# must work inside the unit (user namespaces, @mount, a writable /proc). The probe says so in
# GET /api/health, and an exec task of a `workspace` agent is confined: a write to /etc fails with a
# read-only file system, one in the project lands on the host, the token file reads empty.
unit_sandbox() { # token
  local h body agent out
  in_root dpkg-query -W -f='${Package} ${Version}\n' bubblewrap socat ||
    { unit_result="FAIL: bubblewrap and socat (Recommends of flotilla) were not installed"; return 1; }
  h="$(curl -fsS -H @<(auth_header "$1") "http://127.0.0.1:$uport/api/health")"
  log "unit: GET /api/health (with the token) -> $h"
  grep -q '"sandbox":{[^}]*"available":true' <<<"$h" ||
    { unit_result="FAIL: under the unit, no sandbox can start: $h"; return 1; }
  in_root runuser -u flotest -- mkdir -p "$home/project"
  rm -f "$root/etc/flotilla-escape"
  body="{\"name\":\"boxed\",\"cwd\":\"$home/project\",\"sandbox\":{\"mode\":\"workspace\"}}"
  agent="$(curl -sS -H @<(auth_header "$1") -H 'Content-Type: application/json' -d "$body" \
    "http://127.0.0.1:$uport/api/agents")"
  local id
  id="$(sed -n 's/.*"id":"\([0-9a-f-]*\)".*/\1/p' <<<"$agent" | head -n1)"
  [ -n "$id" ] || { unit_result="FAIL: under the unit, creating a sandboxed agent: $agent"; return 1; }
  body="{\"agentId\":\"$id\",\"command\":\"touch /etc/flotilla-escape; touch inside && echo wrote-inside; cat ~/.config/flotilla/token | wc -c\"}"
  out="$(curl -sS -H @<(auth_header "$1") -H 'Content-Type: application/json' -d "$body" \
    "http://127.0.0.1:$uport/api/exec")"
  log "unit: exec in the sandboxed agent -> $out"
  grep -q 'Read-only file system' <<<"$out" ||
    { unit_result="FAIL: under the unit, a sandboxed write to /etc did not fail read-only"; return 1; }
  [ ! -e "$root/etc/flotilla-escape" ] ||
    { unit_result="FAIL: under the unit, a sandboxed exec wrote /etc/flotilla-escape"; return 1; }
  grep -q 'wrote-inside' <<<"$out" && [ -f "$root$home/project/inside" ] ||
    { unit_result="FAIL: under the unit, a sandboxed exec could not write its project"; return 1; }
  grep -q 'wrote-inside\\n0\\n' <<<"$out" ||
    { unit_result="FAIL: under the unit, the token file can be read in the sandbox"; return 1; }
  log "unit: sandboxed exec: /etc read-only, the project writable, the token file reads empty"
}
unit_expect_agents() { # token expected-status what
  local code
  code="$(agents_status "$uport" "$1")"
  [ "$code" = "$2" ] ||
    { unit_result="FAIL: under the unit, GET /api/agents $3 -> $code, expected $2"; return 1; }
}
unit_stop() {
  "${ctl[@]}" systemctl --user stop flotillad
  local result
  result="$("${ctl[@]}" systemctl --user show -p Result -p ExecMainStatus flotillad | tr '\n' ' ')"
  log "unit: stopped: $result"
  case "$result" in *"Result=success"*) ;;
    *) unit_result="FAIL: stop result $result"; return 1 ;; esac
}
ctl=()
upid=""
uport=""
unit_result="SKIP: FLOTILLA_TEST_UNIT=0"
manager_pid=""
if [ "${FLOTILLA_TEST_UNIT:-auto}" != 0 ]; then unit_phase; fi
if [ -n "$manager_pid" ]; then
  kill -TERM "$manager_pid" 2>/dev/null || true
  wait "$manager_pid" 2>/dev/null || true
  manager_pid=""
fi
log "unit phase: $unit_result"
case "$unit_result" in
  FAIL*) die "systemd user unit: $unit_result" ;;
  SKIP*) [ "${FLOTILLA_TEST_UNIT:-auto}" != 1 ] || die "systemd user unit: $unit_result" ;;
esac

# --- remove ----------------------------------------------------------------------------------
log "apt-get remove --purge -y flotilla flotilla-monitor"
in_root apt-get remove --purge -y -q flotilla flotilla-monitor >"$root/tmp/apt-remove.log" 2>&1 ||
  { cat "$root/tmp/apt-remove.log"; die "apt-get remove failed"; }
grep -E '^(Removing|Purging)' "$root/tmp/apt-remove.log" || true
for p in flotilla flotilla-monitor; do
  if in_root dpkg -L "$p" >/dev/null 2>&1; then die "dpkg -L $p still lists files"; fi
  status="$(in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  case "$status" in "" | "unknown ok not-installed" | "purge ok not-installed") ;;
    *) die "$p status after purge: $status" ;; esac
done
left=0
while IFS= read -r path; do
  [ -n "$path" ] && [ "$path" != /. ] || continue
  if [ -d "$root$path" ] && [ ! -L "$root$path" ]; then
    # Shared directories (/usr/bin, /usr/share/man/man1...) stay; ours must be gone.
    case "$path" in /usr/share/doc/flotilla* ) log "left: $path/"; left=1 ;; esac
  elif [ -e "$root$path" ] || [ -L "$root$path" ]; then
    log "left: $path"; left=1
  fi
done <"$owned"
[ "$left" = 0 ] || die "files of the packages remain after purge"
log "purged: dpkg -L lists nothing, none of the $(wc -l <"$owned") paths remain"
log "PASS"
