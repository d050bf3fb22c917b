#!/usr/bin/env python3
"""Writes fuzz/corpus/fuzz_rest seeds: requests the tests send, in fuzz_rest's input layout.

    FLOTILLA_FUZZ_LIST_ROUTES=1 build-asan/fuzz/fuzz_rest | fuzz/make_rest_seeds.py

Layout: [route index] [flags] [browser headers] [param bytes] [query length] [query] [body]. A param
byte below 0xC0 picks a known value: 0 agent 0, 1 agent 1, 2 the area, 3 the secret FUZZ_SECRET, 4 a
missing id. In queries and bodies, fuzz_rest replaces AGENT0, AGENT1 and AREA by those ids.
Flags: 1 no token, 8 agent 0's own scoped token, 16 browser headers follow the flags: Host,
Origin, Sec-Fetch-Site, Content-Type, each as [length] [bytes] (docs/security.md).
Files are overwritten: running the script again writes the same corpus.
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

# Browser-shaped requests (flag 16) and an agent's own token (flag 8): (name, method, pattern,
# params, query, body, flags, [host, origin, sec-fetch-site, content-type]).
EXEC = J({"agentId": "AGENT0", "command": "touch x"})
BROWSER = [
    ("browser-exec-text-cross-origin", "POST", "/api/exec", [], "", EXEC, 16,
     ["127.0.0.1:5174", "http://evil.example", "cross-site", "text/plain;charset=UTF-8"]),
    ("browser-exec-form-no-origin", "POST", "/api/exec", [], "", EXEC, 16,
     ["127.0.0.1:5174", "", "", "application/x-www-form-urlencoded"]),
    ("browser-exec-json-own-origin", "POST", "/api/exec", [], "", EXEC, 16,
     ["localhost:5174", "http://localhost:5174", "same-origin", "application/json; charset=utf-8"]),
    ("browser-agents-rebinding", "GET", "/api/agents", [], "", b"", 16,
     ["evil.example:5174", "", "", ""]),
    ("browser-agents-listed-origin", "GET", "/api/agents", [], "", b"", 16,
     ["[::1]:5174", "https://app.example", "cross-site", ""]),
    ("browser-agents-allowed-host", "POST", "/api/agents", [], "", J({"name": "w", "cwd": "/tmp"}), 16,
     ["FLOTILLA.LAN", "http://flotilla.lan", "", "Application/JSON"]),
    ("agent-token-get-self", "GET", "/api/agents/:id", [AGENT0], "", b"", 8, None),
    ("agent-token-patch-other", "PATCH", "/api/agents/:id", [AGENT1], "", J({"taskLabel": "x"}), 8, None),
    ("agent-token-exec", "POST", "/api/exec", [], "", EXEC, 8, None),
    ("agent-token-notify-other", "POST", "/api/notify", [], "", J({"agentId": "AGENT1", "title": "t", "message": "m"}), 8, None),
    ("agent-token-report-self", "POST", "/api/agents/:id/report-task", [AGENT0], "", J({"summary": "s", "status": "completed"}), 8, None),
]

routes = {}
for line in sys.stdin:
    idx, method, pattern = line.split()
    routes[(method, pattern)] = int(idx)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_rest")
os.makedirs(out, exist_ok=True)
def seed(name, method, pattern, params, query, body, flags=0, headers=None):
    if (method, pattern) not in routes:
        print("no route", method, pattern, file=sys.stderr)
        return
    q = query.encode()
    data = bytes([routes[(method, pattern)], flags])
    for h in headers or []:
        data += bytes([len(h)]) + h.encode()
    data += bytes(params) + bytes([len(q)]) + q + body
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


seen = set()
for method, pattern, params, query, body in SEEDS:
    name = (method + pattern).lower().replace("/", "-").replace(":", "")
    while name in seen:
        name += "-2"
    seen.add(name)
    seed(name, method, pattern, params, query, body)
for name, method, pattern, params, query, body, flags, headers in BROWSER:
    seed(name, method, pattern, params, query, body, flags, headers)
