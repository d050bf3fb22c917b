#!/usr/bin/env bash
# Installs the pinned Claude Code CLI into third_party/claude-code (see install-npm-pin.sh).
# "2.1.329 (Claude Code)" -> "2.1.329".
exec "$(dirname "$0")/install-npm-pin.sh" "Claude Code" claude-code @anthropic-ai/claude-code claude \
  '{ print $1 }'
