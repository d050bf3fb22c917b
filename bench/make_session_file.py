#!/usr/bin/env python3
"""Writes a synthetic Claude Code session file (JSONL) of a given size for bench_history.

The line mix and sizes follow real session files written by Claude Code 2.1.329 (see
tests/data/history/README.md): per turn two queue-operation lines, the user prompt, a few
attachment lines (0.4-14 KB; a 57 KB prompt snapshot every ~20 turns; a 1-4 MB attachment every
~300 turns), api-request records, then 0-6 tool rounds of assistant text / tool_use lines and
user tool_result lines (outputs up to 30 KB, duplicated in toolUseResult like the CLI does), and
bookkeeping lines (last-prompt, atis-latch, tools-used, cost-state). Texts contain quotes,
backslashes, newlines and non-ASCII so escaping is exercised. Deterministic for a given seed.

Prints a JSON summary (lines by type, conversation entries by the history API's rules) on stdout.

Usage: make_session_file.py OUT.jsonl SIZE [--seed N]     SIZE like 50M, 1G, 1073741824
"""
import argparse
import json
import random
import sys
import uuid as uuidlib
from datetime import datetime, timedelta, timezone

WORDS = ("the of and to in is that for it with as was on be by this are or from at an not "
         "function return const value error file test build index line session agent tool "
         "résumé naïve 数据 ünïcödé \"quoted\" back\\slash path/to/file.cpp {brace} [x] <tag>").split()


def corpus(rng, n):
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
        if rng.random() < 0.08:
            out.append("\n")
    return " ".join(out)


class Gen:
    def __init__(self, seed, cwd, session):
        self.rng = random.Random(seed)
        self.text = corpus(self.rng, 1 << 21)  # 2 MiB of text to slice from
        self.cwd, self.session = cwd, session
        self.t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        self.parent = None
        self.counts, self.entries = {}, 0

    def words(self, lo, hi):
        n = self.rng.randint(lo, hi)
        if n >= len(self.text):
            return (self.text * (n // len(self.text) + 1))[:n]
        start = self.rng.randrange(0, len(self.text) - n)
        return self.text[start:start + n]

    def ts(self):
        self.t += timedelta(milliseconds=self.rng.randint(5, 4000))
        return self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def base(self, kind):
        u = str(uuidlib.UUID(int=self.rng.getrandbits(128)))
        d = {"parentUuid": self.parent, "isSidechain": False, "type": kind, "uuid": u,
             "timestamp": self.ts(), "userType": "external", "entrypoint": "sdk-cli",
             "cwd": self.cwd, "sessionId": self.session, "version": "2.1.329", "gitBranch": "main"}
        self.parent = u
        return d

    def emit(self, d, entries=0):
        self.counts[d["type"]] = self.counts.get(d["type"], 0) + 1
        self.entries += entries
        return json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n"

    def small(self, kind, **extra):
        d = {"type": kind, "sessionId": self.session}
        d.update(extra)
        return self.emit(d)

    def attachment(self, lo, hi):
        d = self.base("attachment")
        d["attachment"] = {"type": "skill_listing", "content": self.words(lo, hi)}
        return self.emit(d)

    def user_prompt(self):
        d = self.base("user")
        d["message"] = {"role": "user", "content": self.words(20, 2000)}
        d["promptSource"] = "sdk"
        return self.emit(d, 1)

    def assistant(self, blocks, entries):
        d = self.base("assistant")
        d["message"] = {"id": "msg_%08x" % self.rng.getrandbits(32), "type": "message",
                        "role": "assistant", "model": "claude-opus-5-5", "content": blocks,
                        "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 20,
                                                             "cache_read_input_tokens": 5000}}
        return self.emit(d, entries)

    def tool_round(self):
        out = []
        if self.rng.random() < 0.3:
            out.append(self.assistant([{"type": "thinking", "thinking": self.words(50, 2000),
                                        "signature": "sig"}], 0))
        if self.rng.random() < 0.6:
            out.append(self.assistant([{"type": "text", "text": self.words(20, 1500)}], 1))
        tid = "toolu_%016x" % self.rng.getrandbits(64)
        tool = self.rng.choice(["Bash", "Read", "Edit", "Grep"])
        tool_input = {"Bash": {"command": self.words(5, 200), "description": self.words(5, 60)},
                      "Read": {"file_path": "/work/src/" + self.words(3, 30)},
                      "Edit": {"file_path": "/work/src/x.cpp", "old_string": self.words(10, 3000),
                               "new_string": self.words(10, 3000)},
                      "Grep": {"pattern": self.words(3, 20), "path": "/work"}}[tool]
        out.append(self.assistant([{"type": "tool_use", "id": tid, "name": tool,
                                    "input": tool_input}], 1))
        output = self.words(2, 30000 if self.rng.random() < 0.2 else 2000)
        d = self.base("user")
        d["message"] = {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result",
                                                     "content": output, "is_error": False}]}
        d["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False}
        out.append(self.emit(d, 1))
        if self.rng.random() < 0.3:
            out.append(self.attachment(300, 3000))
        return out

    def turn(self, n):
        out = [self.small("queue-operation", operation="enqueue", timestamp=self.ts(),
                          content=self.words(10, 60)),
               self.small("queue-operation", operation="dequeue", timestamp=self.ts()),
               self.user_prompt()]
        for _ in range(self.rng.randint(1, 4)):
            out.append(self.attachment(300, 14000))
        if n % 20 == 0:
            out.append(self.attachment(57000, 57000))
        if n % 300 == 299:
            out.append(self.attachment(1 << 20, 4 << 20))
        if n % 50 == 0:
            out.append(self.small("api-request-shape", shapeHash="%064x" % n,
                                  shape={"system": [{"type": "text", "text": self.words(38000, 38000)}]}))
        out.append(self.small("atis-latch", atis="x"))
        for _ in range(self.rng.randint(0, 6)):
            out.append(self.small("api-request", id="req_%d" % n, params={"model": "m"},
                                  requestDigest=self.words(800, 1000)))
            out.extend(self.tool_round())
        out.append(self.assistant([{"type": "text", "text": self.words(20, 1500)}], 1))
        out.append(self.small("last-prompt", lastPrompt=self.words(10, 80)))
        if self.rng.random() < 0.2:
            out.append(self.small("cost-state", totalCostUSD=0.1, modelUsage={}))
        return out


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * mult[s[-1].upper()]) if s[-1].upper() in mult else int(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("size")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cwd", default="/work/project")
    ap.add_argument("--session", default="5e55105e-0000-4000-8000-000000000001")
    a = ap.parse_args()
    target = parse_size(a.size)
    g = Gen(a.seed, a.cwd, a.session)
    written, n = 0, 0
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        while written < target:
            chunk = "".join(g.turn(n))
            f.write(chunk)
            written += len(chunk.encode("utf-8"))
            n += 1
    json.dump({"file": a.out, "bytes": written, "turns": n, "entries": g.entries,
               "lines": sum(g.counts.values()), "linesByType": g.counts}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
