#!/usr/bin/env bash
# Installs the Claude Code CLI version pinned in third_party/claude-code/package.json (and its
# package-lock.json) into third_party/claude-code/node_modules, where the agent tests expect it.
# Idempotent: when node_modules/.bin/claude already reports the pinned version nothing is
# downloaded. Installs Debian's nodejs and npm first when npm is missing.
set -euo pipefail

dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/claude-code"
bin="$dir/node_modules/.bin/claude"

pinned="$(sed -n 's/.*"@anthropic-ai\/claude-code": *"\([^"]*\)".*/\1/p' "$dir/package.json" | head -n 1)"
if [ -z "$pinned" ]; then
  echo "install-claude: no @anthropic-ai/claude-code version pinned in $dir/package.json" >&2
  exit 1
fi

installed_version() {
  # "2.1.329 (Claude Code)" -> "2.1.329"; empty when missing or broken.
  if [ -x "$bin" ]; then
    "$bin" --version 2>/dev/null | awk 'NR == 1 { print $1 }' || true
  fi
}

current="$(installed_version)"
if [ "$current" = "$pinned" ]; then
  echo "install-claude: Claude Code $current already installed at $bin"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
  fi
  echo "install-claude: npm missing, installing nodejs and npm"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends nodejs npm
fi

echo "install-claude: installing Claude Code $pinned (found: ${current:-none})"
cd "$dir"
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi

current="$(installed_version)"
if [ "$current" != "$pinned" ]; then
  echo "install-claude: $bin reports '${current:-nothing}', expected $pinned" >&2
  exit 1
fi
echo "install-claude: Claude Code $current installed at $bin"
