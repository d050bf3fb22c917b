#!/usr/bin/env bash
# Builds the Debian packages flotilla and flotilla-monitor with CPack, then checks them.
#
#   packaging/build-debs.sh             configure a Release build in ./build-debs (hardened with
#                                       dpkg-buildflags; incremental on later runs), build, package
#   packaging/build-debs.sh BUILD_DIR   package an existing CMake build tree (CI: the packaging_debs
#   FLOTILLA_DEBS_REUSE=BUILD_DIR ...   test passes its own tree, so nothing compiles twice)
#
# Packages land in BUILD_DIR/packaging/debs (or $FLOTILLA_DEBS_OUT). Checks: dpkg-deb --info and
# --contents (expected files and dependencies), lintian (no errors; every warning printed and
# listed with its reason in packaging/lintian-expected.txt, an unexpected one fails),
# the user unit (ExecStart passes --token-file %h/.config/flotilla/token, the sandbox leaves the
# home writable; systemd-analyze verify and security), desktop-file-validate, appstreamcli
# validate, and the man page against `flotillad --help`. Exit status: 0 only if all pass.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
reuse="${1:-${FLOTILLA_DEBS_REUSE:-}}"
fail=0
failed() { echo "build-debs: FAIL: $*" >&2; fail=1; }
step() { printf '\n== %s\n' "$*"; }

# A standalone run first installs what is missing (idempotent; the tools checked below included).
if [ -z "$reuse" ]; then
  "$src/scripts/install-deps.sh"
fi

for tool in cmake cpack dpkg-deb dpkg-shlibdeps lintian systemd-analyze desktop-file-validate \
            appstreamcli fakeroot; do
  command -v "$tool" >/dev/null || { echo "build-debs: $tool missing (scripts/install-deps.sh)" >&2; exit 2; }
done

if [ -n "$reuse" ]; then
  build="$(cd "$reuse" && pwd)"
  [ -f "$build/CMakeCache.txt" ] || { echo "build-debs: $build is not a CMake build tree" >&2; exit 2; }
  step "reusing build tree $build"
else
  build="${FLOTILLA_DEBS_BUILD_DIR:-$src/build-debs}"
  step "configuring a Release build in $build"
  # Debian's hardening flags (stack protector, fortify, relro/now), as a Debian build would use.
  export DEB_BUILD_MAINT_OPTIONS="hardening=+all"
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DFLOTILLA_BUILD_TESTS=OFF -DFLOTILLA_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)" \
    -DCMAKE_EXE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)"
fi

monitor=0
grep -q '^FLOTILLA_BUILD_MONITOR:BOOL=ON' "$build/CMakeCache.txt" && monitor=1
targets=(flotillad)
[ "$monitor" = 1 ] && targets+=(flotilla-monitor)
step "building ${targets[*]} (a no-op when the tree is up to date)"
cmake --build "$build" --target "${targets[@]}" -j "${FLOTILLA_JOBS:-2}"

out="${FLOTILLA_DEBS_OUT:-$build/packaging/debs}"
step "cpack -G DEB into $out"
rm -rf "$out"
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out" --config CPackConfig.cmake)
rm -rf "$out/_CPack_Packages"

version="$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")"
release="$(sed -n 's/^set(CPACK_DEBIAN_PACKAGE_RELEASE "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")"
arch="$(dpkg --print-architecture)"
service_deb="$out/flotilla_${version}-${release}_${arch}.deb"
monitor_deb="$out/flotilla-monitor_${version}-${release}_${arch}.deb"
debs=("$service_deb")
[ "$monitor" = 1 ] && debs+=("$monitor_deb")
for deb in "${debs[@]}"; do
  [ -f "$deb" ] || { echo "build-debs: FAIL: $deb was not built; $out holds: $(ls "$out")" >&2; exit 1; }
done

# --- dpkg-deb --info / --contents ----------------------------------------------------------
field() { dpkg-deb --field "$1" "$2"; }
expect_dep() { # deb field regex
  field "$1" "$2" | grep -Eq "$3" || failed "$(basename "$1"): $2 lacks $3: $(field "$1" "$2")"
}
expect_paths() { # deb path...
  local deb="$1"; shift
  local listing; listing="$(dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|')"
  for p in "$@"; do
    grep -qxF "$p" <<<"$listing" || failed "$(basename "$deb") lacks $p"
  done
}

step "dpkg-deb --info $(basename "$service_deb")"
dpkg-deb --info "$service_deb"
step "dpkg-deb --contents $(basename "$service_deb")"
dpkg-deb --contents "$service_deb"
expect_dep "$service_deb" Depends 'libqt6core6'
expect_dep "$service_deb" Depends 'libqt6httpserver6'
expect_dep "$service_deb" Depends 'libqt6sql6-sqlite'
expect_dep "$service_deb" Recommends 'bubblewrap'
expect_dep "$service_deb" Recommends 'socat'
expect_paths "$service_deb" /usr/bin/flotillad /usr/lib/systemd/user/flotillad.service \
  /usr/share/man/man1/flotillad.1.gz /usr/share/doc/flotilla/copyright \
  /usr/share/doc/flotilla/changelog.Debian.gz /usr/share/doc/flotilla/examples/flotillad.env \
  /usr/share/doc/flotilla/README.md /usr/share/doc/flotilla/api.md

if [ "$monitor" = 1 ]; then
  step "dpkg-deb --info $(basename "$monitor_deb")"
  dpkg-deb --info "$monitor_deb"
  step "dpkg-deb --contents $(basename "$monitor_deb")"
  dpkg-deb --contents "$monitor_deb"
  expect_dep "$monitor_deb" Depends 'libqt6widgets6'
  expect_dep "$monitor_deb" Depends 'qt6-qpa-plugins'
  expect_dep "$monitor_deb" Recommends '(^|, )flotilla($|,| )'
  app_id=invalid.flotilla.Monitor
  expect_paths "$monitor_deb" /usr/bin/flotilla-monitor \
    "/usr/share/applications/$app_id.desktop" "/usr/share/metainfo/$app_id.metainfo.xml" \
    "/usr/share/icons/hicolor/scalable/apps/$app_id.svg" \
    "/usr/share/icons/hicolor/256x256/apps/$app_id.png" \
    /usr/share/man/man1/flotilla-monitor.1.gz /usr/share/doc/flotilla-monitor/copyright \
    /usr/share/doc/flotilla-monitor/changelog.Debian.gz
fi

# Unpack both into a staging root for the file-level checks.
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$stage/root"; done

# --- lintian ----------------------------------------------------------------------------------
step "lintian"
expected="$src/packaging/lintian-expected.txt"
lintian_out="$stage/lintian.txt"
# --fail-on error: errors fail; warnings must be in the expected list; info tags are printed
# (reusing a tree built without dpkg-buildflags, e.g. CI's, shows hardening-no-fortify-functions
# and hardening-no-bindnow: the packages from the default mode are built with them).
if ! lintian --fail-on error --display-info "${debs[@]}" >"$lintian_out" 2>"$stage/lintian.err"; then
  cat "$lintian_out" "$stage/lintian.err"
  failed "lintian reported errors"
else
  grep -v '^running with root privileges' "$stage/lintian.err" >&2 || true
  cat "$lintian_out"
fi
while IFS= read -r line; do
  case "$line" in W:*|E:*) ;; *) continue ;; esac
  # "W: flotilla: tag-name [extra]" -> "flotilla tag-name"
  key="$(awk '{sub(/:$/, "", $2); print $2, $3}' <<<"$line")"
  grep -Eq "^${key}( |$)" "$expected" ||
    failed "unexpected lintian tag: $line (fix it, or list it with a reason in $expected)"
done <"$lintian_out"
echo "lintian: $(grep -c '^E:' "$lintian_out" || true) errors, $(grep -c '^W:' "$lintian_out" || true) warnings, $(grep -c '^I:' "$lintian_out" || true) info"

# --- systemd unit -----------------------------------------------------------------------------
step "systemd-analyze verify (user unit)"
# verify insists that ExecStart's binary exists and that Documentation's man page opens. The
# host has neither (and nothing is installed there), so verify a copy of the packaged unit whose
# ExecStart points into the staging root, with man looking in the staged man pages.
unit="$stage/root/usr/lib/systemd/user/flotillad.service"
# An installed service must never be open to the other local users: the unit runs flotillad
# with --token-file (the token is made there on first start), and the sandbox must let it
# create ~/.config/flotilla (the whole home read-write, no ProtectHome=).
[ "$(grep -c '^ExecStart=' "$unit")" = 1 ] || failed "the unit must have exactly one ExecStart="
exec_line="$(sed -n 's/^ExecStart=//p' "$unit")"
case " $exec_line " in
  *" --token-file %h/.config/flotilla/token "*)
    echo "ExecStart passes --token-file %h/.config/flotilla/token" ;;
  *) failed "ExecStart does not pass --token-file %h/.config/flotilla/token: $exec_line" ;;
esac
case " $exec_line " in
  *" \$FLOTILLAD_ARGS "*) ;;
  *) failed "ExecStart no longer passes \$FLOTILLAD_ARGS: $exec_line" ;;
esac
grep -qx 'ReadWritePaths=%h' "$unit" ||
  failed "the unit lacks ReadWritePaths=%h: flotillad could not create ~/.config/flotilla/token"
if grep -q '^ProtectHome=' "$unit"; then
  failed "the unit sets ProtectHome=: it would hide or freeze ~/.config/flotilla/token (and the agents' projects)"
fi
exec_bin="$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")"
[ -x "$stage/root$exec_bin" ] || failed "ExecStart=$exec_bin is not in the package"
mkdir -p "$stage/verify" "$stage/runtime"
sed "s|^ExecStart=$exec_bin|ExecStart=$stage/root$exec_bin|" "$unit" >"$stage/verify/flotillad.service"
verify_log="$stage/verify.log"
if ! XDG_RUNTIME_DIR="$stage/runtime" MANPATH="$stage/root/usr/share/man" \
     systemd-analyze --user verify "$stage/verify/flotillad.service" >"$verify_log" 2>&1; then
  failed "systemd-analyze verify: $(cat "$verify_log")"
elif [ -s "$verify_log" ]; then # unknown keys and bad values are only logged: fail on them too
  failed "systemd-analyze verify complained: $(cat "$verify_log")"
else
  echo "systemd-analyze verify: clean"
fi
# The exposure score (lower is better; 7.0 today: agents' sandboxes need @mount and no
# ProtectKernelTunables, which took it from 6.6) guards the hardening against silent removal.
# It rates the unit as if it ran as root (capability options count, though a user service holds
# no capabilities), and agents run node and arbitrary tools inside the unit, so it cannot go as
# low as a pure network daemon's.
if XDG_RUNTIME_DIR="$stage/runtime" systemd-analyze --user security --offline=yes --threshold=70 \
     "$stage/verify/flotillad.service" >"$stage/security.txt" 2>&1; then
  grep 'Overall exposure level' "$stage/security.txt"
else
  cat "$stage/security.txt"
  failed "systemd-analyze security: exposure above 7.0"
fi

# --- desktop file, AppStream, man page --------------------------------------------------------
if [ "$monitor" = 1 ]; then
  step "desktop-file-validate"
  if desktop-file-validate "$stage/root/usr/share/applications/$app_id.desktop"; then
    echo "desktop-file-validate: clean"
  else
    failed "desktop-file-validate"
  fi
  step "appstreamcli validate --no-net"
  appstreamcli validate --no-net --explain "$stage/root/usr/share/metainfo/$app_id.metainfo.xml" ||
    failed "appstreamcli validate"
fi

step "man page covers flotillad --help"
help="$("$stage/root/usr/bin/flotillad" --help)" || failed "flotillad --help"
man_src="$(zcat "$stage/root/usr/share/man/man1/flotillad.1.gz" | sed 's/\\-/-/g')"
for opt in $(grep -oE -- '--[a-z][a-z-]+' <<<"$help" | sort -u); do
  grep -qF -- "$opt" <<<"$man_src" || failed "flotillad(1) does not describe $opt"
done
"$stage/root/usr/bin/flotillad" --version | grep -qF "$version" ||
  failed "flotillad --version does not print $version"

step "result"
ls -l "${debs[@]}"
if [ "$fail" != 0 ]; then
  echo "build-debs: FAILED (see FAIL lines above)" >&2
  exit 1
fi
echo "build-debs: OK"
