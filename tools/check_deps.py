#!/usr/bin/env python3
"""Fails when two parts of the library depend on each other, directly or through others, or
when a folder of src/ includes a folder above it in the pipeline.

    python3 tools/check_deps.py [ROOT]      # exit 0: no cycle; 1: cycles, printed

Folders: each folder of src/ (and include/cujit, tools/) may include only the folders FOLDERS
gives it, which run one way, from the tools down to the ground floor:
    tools -> api -> {cpu, gpu} -> plan -> lang -> core, with cache and io beside.
A tool that reaches below the API names the folder in TOOL_REACH with the reason.

A part is a file stem: src/lang/check.cpp and src/lang/check.hpp are the part "check", and a
public header include/cujit/array.hpp belongs with its implementation src/api/array.cpp. Part A
depends on part B when a file of A has `#include "..."` naming a file of B (resolved against the
including file's folder, then src/, cache/ (src/cache/), include/ and templates/, as the build's
include paths are). Includes in comments or string literals are not seen: only lines that start
with #include. A cycle is reported as the chain of parts and the include lines that make it.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


# Each folder and the folders it may include (besides itself and templates/).
FOLDERS = {
    "include": set(),                      # the public headers: cujit/ only
    "core": {"include"},                   # arrays, dtypes, the driver, errors, names, numbers
    "lang": {"core", "include"},           # lex, parse, check: the checked program
    "plan": {"lang", "core", "include"},   # shapes, layouts, generators: what both back ends share
    "cache": {"core", "include"},          # the disk cache and its archives, record mode
    "io": {"core", "include"},             # .npy and printing
    "cpu": {"plan", "lang", "core", "include"},
    "gpu": {"plan", "lang", "cache", "core", "include"},
    "api": {"cpu", "gpu", "plan", "lang", "cache", "io", "core", "include"},
    "tools": {"api", "io", "core", "include"},
}
# Where a tool reaches below the library's API, and why.
TOOL_REACH = {
    "cache": "jitcache inspects, verifies, prunes, exports and imports the cache itself",
    "gpu": "jitrun --emit/--bench and jitcache precompile show and time the kernels the API would run",
    "cpu": "jitrun -v reports the CPU evaluator's threads and math library",
    "lang": "the tools print the language's diagnostics and lex generator arguments",
    "plan": "jitrun checks an output shape (--shape) and makes generators as the library does",
}


def folder_of(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "src":
        return rel[1] if len(rel) > 2 else "src"
    return {"include": "include", "tools": "tools"}.get(rel[0], rel[0])


def check_folders(root, edges_by_file):
    bad = []
    for f, target, ln, text in edges_by_file:
        a, b = folder_of(root, f), folder_of(root, target)
        if a == b or b == "templates":
            continue
        allowed = FOLDERS.get(a)
        if allowed is None:
            bad.append("%s: the folder '%s' is not in check_deps.FOLDERS: give it its place in the pipeline" % (f, a))
        elif b not in allowed and not (a == "tools" and b in TOOL_REACH):
            bad.append("%s:%d: %s -> %s is against the pipeline's direction (%s)" % (os.path.relpath(f, root), ln, a, b, text))
    return bad


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    scan = [d for d in ("src", "cache", "include/cujit", "tools") if os.path.isdir(os.path.join(root, d))]
    search = [os.path.join(root, d) for d in ("src", "cache", "include", "templates")]
    files = []
    for d in scan:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for n in names:
                if n.endswith((".cpp", ".hpp", ".def", ".h")):
                    files.append(os.path.join(dirpath, n))

    def part(path):
        return os.path.splitext(os.path.basename(path))[0]

    # A stem shared by unrelated files would merge them into one part and hide a cycle.
    homes = {}
    for f in files:
        homes.setdefault(part(f), set()).add(os.path.dirname(os.path.relpath(f, root)))
    for p, dirs in sorted(homes.items()):
        dirs = {d for d in dirs if not d.startswith("tools")}  # each tool is a program of its own
        if len(dirs) > 1 and not (len(dirs) == 2 and "include/cujit" in dirs):
            print("check_deps: the name '%s' is used in %s: rename one, so each part has one name" % (p, ", ".join(sorted(dirs))))
            return 1

    edges = {}  # part -> {part: (file, line number, text)}
    by_file = []  # (file, target, line number, text)
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            for ln, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = None
                for base in [os.path.dirname(f)] + search:
                    cand = os.path.normpath(os.path.join(base, m.group(1)))
                    if os.path.isfile(cand):
                        target = cand
                        break
                if target is None or not target.startswith(root + os.sep):
                    continue  # generated (cujit_templates.inc, export.hpp) or outside the tree
                by_file.append((f, target, ln, line.strip()))
                a, b = part(f), part(target)
                if a != b and folder_of(root, f) != "tools":
                    edges.setdefault(a, {}).setdefault(b, (os.path.relpath(f, root), ln, line.strip()))

    # Cycles: strongly connected components with more than one part (Tarjan's algorithm).
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
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
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted({part(f) for f in files if folder_of(root, f) != "tools"}):
        if v not in index:
            visit(v)
    bad = check_folders(root, by_file)
    for b in bad:
        print("check_deps: " + b)
    if not comps and not bad:
        print("check_deps: %d files, %d parts, %d folders one way, no cycles" %
              (len(files), len({part(f) for f in files}), len({folder_of(root, f) for f in files})))
        return 0
    if not comps:
        print("check_deps: move the code to the folder it belongs in, or pass what it needs in from above")
        return 1
    for comp in comps:
        print("check_deps: these parts depend on each other: %s" % ", ".join(comp))
        members = set(comp)
        for a in comp:
            for b, (f, ln, text) in sorted(edges.get(a, {}).items()):
                if b in members:
                    print("  %s -> %s   (%s:%d: %s)" % (a, b, f, ln, text))
    print("check_deps: break each cycle (move what both need into a third file, or pass it in)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
