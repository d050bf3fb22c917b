#!/usr/bin/env bash
# Installs an agent CLI at the version pinned in third_party/<dir>/package.json (and its
# package-lock.json) into third_party/<dir>/node_modules, where the product's tests expect it.
# Idempotent: when the installed binary already reports the pinned version nothing is
# downloaded. Only the npm registry is used. Installs Debian's nodejs and npm first when npm is
# missing.
#
#   install-npm-pin.sh LABEL DIR PACKAGE BIN VERSION_AWK
#
# VERSION_AWK turns the first line of `BIN --version` into the bare version, e.g.
# '{ print $1 }' for "2.1.329 (Claude Code)", '$1 == "codex-cli" { print $2 }' for
# "codex-cli 0.169.0".
set -euo pipefail
label="$1" dir_name="$2" package="$3" bin_name="$4" version_awk="$5"
tag="install-$bin_name"

dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/$dir_name"
bin="$dir/node_modules/.bin/$bin_name"

escaped="$(printf '%s' "$package" | sed 's/[\/.]/\\&/g')"
pinned="$(sed -n "s/.*\"$escaped\": *\"\\([^\"]*\\)\".*/\\1/p" "$dir/package.json" | head -n 1)"
if [ -z "$pinned" ]; then
  echo "$tag: no $package version pinned in $dir/package.json" >&2
  exit 1
fi

installed_version() { # empty when missing or broken
  if [ -x "$bin" ]; then
    "$bin" --version 2>/dev/null | head -n 1 | awk "$version_awk" || true
  fi
}

current="$(installed_version)"
if [ "$current" = "$pinned" ]; then
  echo "$tag: $label $current already installed at $bin"
  exit 0
fi

"$(dirname "$0")/ensure-npm.sh" "$tag"

echo "$tag: installing $label $pinned (found: ${current:-none})"
cd "$dir"
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi

current="$(installed_version)"
if [ "$current" != "$pinned" ]; then
  echo "$tag: $bin reports '${current:-nothing}', expected $pinned" >&2
  exit 1
fi
echo "$tag: $label $current installed at $bin"
