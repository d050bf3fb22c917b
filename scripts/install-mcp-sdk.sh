#!/usr/bin/env bash
# Installs the official MCP TypeScript SDK at the version pinned in third_party/mcp-sdk/package.json
# (and its package-lock.json) into third_party/mcp-sdk/node_modules, where tst_mcp_sdk's client
# (tests/mcp/sdk-client.mjs) imports it from. The SDK is a library with no binary, so unlike
# install-npm-pin.sh the installed version is read from its package.json. Idempotent: nothing is
# downloaded when that version is the pin. Only the npm registry is used.
set -euo pipefail
tag="install-mcp-sdk"
package="@modelcontextprotocol/sdk"

dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/mcp-sdk"
installed_json="$dir/node_modules/$package/package.json"

pinned="$(sed -n 's/.*"@modelcontextprotocol\/sdk": *"\([^"]*\)".*/\1/p' "$dir/package.json" |
  head -n 1)"
if [ -z "$pinned" ]; then
  echo "$tag: no $package version pinned in $dir/package.json" >&2
  exit 1
fi

"$(dirname "$0")/ensure-npm.sh" "$tag"

installed_version() { # empty when missing or broken
  if [ -f "$installed_json" ]; then
    node -p 'require(process.argv[1]).version' "$installed_json" 2>/dev/null || true
  fi
}

current="$(installed_version)"
if [ "$current" = "$pinned" ]; then
  echo "$tag: $package $current already installed in $dir"
  exit 0
fi

echo "$tag: installing $package $pinned (found: ${current:-none})"
cd "$dir"
npm ci --no-audit --no-fund

current="$(installed_version)"
if [ "$current" != "$pinned" ]; then
  echo "$tag: $installed_json reports '${current:-nothing}', expected $pinned" >&2
  exit 1
fi
echo "$tag: $package $current installed in $dir"
