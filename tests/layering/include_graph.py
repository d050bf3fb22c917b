#!/usr/bin/env python3
"""The include graph of service/src, folder by folder: fails on an include that goes up a floor
(which the floors' include roots already make a build error) and on a cycle between folders
(which the build cannot see: folders of one floor share a library). Prints the graph.

    include_graph.py <service/src>
"""
import os
import re
import sys

FLOORS = ["model", "edge", "engine", "api", "main"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z_]+)/', re.M)


def folders(src):
    """{folder: floor index} for every folder directly under a floor."""
    out = {}
    for i, floor in enumerate(FLOORS):
        for name in os.listdir(os.path.join(src, floor)):
            if os.path.isdir(os.path.join(src, floor, name)):
                out[name] = i
    return out


def graph(src, where):
    edges = {name: set() for name in where}
    for i, floor in enumerate(FLOORS):
        base = os.path.join(src, floor)
        for root, _, files in os.walk(base):
            rel = os.path.relpath(root, base).split(os.sep)[0]
            if rel == ".":
                continue  # main.cpp: the executable, above everything
            for f in files:
                if not f.endswith((".h", ".cpp")):
                    continue
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    for target in INCLUDE.findall(fh.read()):
                        if target in where and target != rel:
                            edges[rel].add(target)
    return edges


def cycles(edges):
    """Strongly connected components with more than one folder (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    src = sys.argv[1]
    where = folders(src)
    edges = graph(src, where)
    problems = []
    for a in sorted(edges):
        print(f"{FLOORS[where[a]]:>6}/{a} -> {', '.join(sorted(edges[a])) or '-'}")
        for b in sorted(edges[a]):
            if where[b] > where[a]:
                problems.append(f"upward include: {a} ({FLOORS[where[a]]}) -> {b} ({FLOORS[where[b]]})")
    for comp in cycles(edges):
        problems.append("include cycle between folders: " + " <-> ".join(comp))
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
