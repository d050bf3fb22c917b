#!/usr/bin/env python3
"""Writes fuzz/corpus/fuzz_rest seeds: requests the tests send, in fuzz_rest's input layout.

    FLOTILLA_FUZZ_LIST_ROUTES=1 build-asan/fuzz/fuzz_rest | fuzz/make_rest_seeds.py

Layout: [route index] [flags] [param bytes] [query length] [query] [body]. A param byte below 0xC0
picks a known value: 0 agent 0, 1 agent 1, 2 the area, 3 the secret FUZZ_SECRET, 4 a missing id.
In queries and bodies, fuzz_rest replaces AGENT0, AGENT1 and AREA by those ids.
"""
import json
import os
import sys

AGENT0, AGENT1, AREA, SECRET, MISSING = 0, 1, 2, 3, 4
J = lambda o: json.dumps(o, separators=(",", ":")).encode()
SEEDS = [
    ("GET", "/api/health", [], "", b""),
    ("GET", "/api/agents", [], "", b""),
    ("GET", "/api/agents/status", [], "", b""),
    ("GET", "/api/agents/:id", [AGENT0], "", b""),
    ("POST", "/api/agents", [], "", J({"name": "worker", "cwd": "/tmp", "class": "worker", "provider": "claude", "model": "sonnet"})),
    ("PATCH", "/api/agents/:id", [AGENT0], "", J({"taskLabel": "t", "trackingStatus": "in_progress", "trackingStatusDetail": "d"})),
    ("DELETE", "/api/agents/:id", [MISSING], "", b""),
    ("POST", "/api/agents/:id/message", [AGENT1], "", J({"message": "hello"})),
    ("POST", "/api/agents/bulk/stop", [], "", J({"agentIds": ["AGENT1", "y"]})),
    ("POST", "/api/agents/bulk/clear-context", [], "", J({"agentIds": []})),
    ("POST", "/api/agents/bulk/change-model", [], "", J({"agentIds": ["AGENT1"], "provider": "claude", "model": "opus"})),
    ("POST", "/api/agents/bulk/delete", [], "", J({"agentIds": ["nope"]})),
    ("POST", "/api/agents/bulk/move-area", [], "", J({"agentIds": ["AGENT0", "nope"], "areaId": "AREA"})),
    ("GET", "/api/agents/tool-history", [], "limit=5&agentId=AGENT0", b""),
    ("POST", "/api/notify", [], "", J({"agentId": "AGENT0", "title": "T", "message": "M", "iconUrl": "https://x/i.png"})),
    ("GET", "/api/notifications", [], "limit=3", b""),
    ("POST", "/api/agents/system-settings/prompt", [], "", J({"prompt": "Be brief."})),
    ("GET", "/api/config/categories", [], "", b""),
    ("GET", "/api/agents/:id/history", [AGENT0], "limit=50&offset=0&includeSubagents=true", b""),
    ("GET", "/api/agents/:id/search", [AGENT0], "q=hello&limit=5", b""),
    ("GET", "/api/agents/:id/sessions", [AGENT0], "", b""),
    ("POST", "/api/areas", [], "", J({"name": "Backend", "color": "#336699"})),
    ("DELETE", "/api/areas/:id", [AREA], "", b""),
    ("POST", "/api/focus-agent", [], "", J({"agentId": "AGENT1"})),
    ("GET", "/api/activity", [], "limit=10", b""),
    ("GET", "/api/config/export", [], "categories=agents,areas&includeSecrets=false", b""),
    ("POST", "/api/config/import", [], "dryRun=true", J({"version": 1, "categories": {"areas": [{"id": "a1", "name": "A"}]}})),
    ("POST", "/api/exec", [], "", J({"agentId": "AGENT0", "command": "echo {{FUZZ_SECRET}}", "cwd": "/tmp", "timeoutMs": 1000})),
    ("GET", "/api/exec/tasks/:agentId", [AGENT0], "", b""),
    ("DELETE", "/api/exec/tasks/:taskId", [MISSING], "", b""),
    ("GET", "/api/secrets", [], "", b""),
    ("PUT", "/api/secrets/:name", [SECRET], "", J({"value": "another"})),
    ("DELETE", "/api/secrets/:name", [SECRET], "", b""),
    ("POST", "/api/agents/:id/report-task", [AGENT1], "", J({"summary": "done", "status": "completed"})),
    ("GET", "/api/agents/:id/delegations", [AGENT0], "limit=5", b""),
    ("GET", "/api/work-plans", [], "bossId=AGENT0", b""),
    ("GET", "/api/work-plans/:id", [MISSING], "", b""),
    ("POST", "/api/agents/:id/permission-check", [AGENT0], "", J({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, "hook_event_name": "PreToolUse"})),
    ("POST", "/api/agents/:id/permission-check", [AGENT1], "", J({"session_id": "s", "tool_name": "Write", "tool_input": {"file_path": "/tmp/x"}, "hook_event_name": "PermissionRequest"})),
    ("POST", "/api/agents/bulk/delete", [], "", J({"agentIds": ["AGENT1"]})),
    ("POST", "/api/agents/bulk/stop", [], "", b"[1,2"),
]

routes = {}
for line in sys.stdin:
    idx, method, pattern = line.split()
    routes[(method, pattern)] = int(idx)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_rest")
os.makedirs(out, exist_ok=True)
for method, pattern, params, query, body in SEEDS:
    if (method, pattern) not in routes:
        print("no route", method, pattern, file=sys.stderr)
        continue
    q = query.encode()
    data = bytes([routes[(method, pattern)], 0]) + bytes(params) + bytes([len(q)]) + q + body
    name = (method + pattern).lower().replace("/", "-").replace(":", "")
    while os.path.exists(os.path.join(out, name)):
        name += "-2"
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
