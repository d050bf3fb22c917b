#!/usr/bin/env bash
# Installs the pinned Codex CLI into third_party/codex (see install-npm-pin.sh). The npm package
# carries the native binary as an optional dependency (@openai/codex-linux-x64); nothing is
# fetched at run time. "codex-cli 0.169.0" -> "0.169.0".
exec "$(dirname "$0")/install-npm-pin.sh" "Codex CLI" codex @openai/codex codex \
  '$1 == "codex-cli" { print $2 }'
