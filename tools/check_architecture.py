#!/usr/bin/env python3
"""Keeps docs/architecture.md true: every path it names exists, every folder of src/ (and every
file of src/, templates/ and include/cujit/) is named in it, and its folder order is the one
tools/check_deps.py enforces.

    python3 tools/check_architecture.py [ROOT]    # exit 0: true; 1: what is wrong, printed

A path is a backticked word that starts with src/, templates/, include/, tools/, tests/, bench/,
docs/ or cmake/; a glob (`src/plan/*.cpp`), a brace list (`src/lang/{lex,parse}.cpp`) or a
folder (`src/plan/`) names every file it matches.
"""
import glob
import os
import re
import sys

PREFIXES = ("src/", "templates/", "include/", "tools/", "tests/", "bench/", "docs/", "cmake/")


def expand(word):
    m = re.search(r"\{([^}]*)\}", word)
    if not m:
        return [word]
    out = []
    for alt in m.group(1).split(","):
        out += expand(word[:m.start()] + alt.strip() + word[m.end():])
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    doc_path = os.path.join(root, "docs", "architecture.md")
    text = open(doc_path, encoding="utf-8").read()
    problems, named = [], set()
    for word in re.findall(r"`([^`\s]+)`", text):
        if not word.startswith(PREFIXES):
            continue
        for w in expand(word.rstrip(".,;:")):
            hits = glob.glob(os.path.join(root, w)) if any(c in w for c in "*?[") else (
                [os.path.join(root, w)] if os.path.exists(os.path.join(root, w)) else [])
            if not hits:
                problems.append("docs/architecture.md names `%s`, which does not exist" % w)
            for h in hits:
                if os.path.isdir(h):
                    for dp, _, ns in os.walk(h):
                        named.update(os.path.relpath(os.path.join(dp, n), root) for n in ns)
                    named.add(os.path.relpath(h, root) + "/")
                else:
                    named.add(os.path.relpath(h, root))
    for d in sorted(os.listdir(os.path.join(root, "src"))):
        if os.path.isdir(os.path.join(root, "src", d)) and "src/%s/" % d not in named:
            problems.append("the folder src/%s/ is not described in docs/architecture.md" % d)
    for base in ("src", "templates", "include/cujit"):
        for dp, _, ns in os.walk(os.path.join(root, base)):
            for n in ns:
                rel = os.path.relpath(os.path.join(dp, n), root)
                if n.endswith((".cpp", ".hpp", ".cu", ".cuh", ".def")) and rel not in named:
                    problems.append("%s is not named in docs/architecture.md (name it, or the folder it is in)" % rel)
    # The order the page draws is the one check_deps enforces.
    sys.path.insert(0, os.path.join(root, "tools"))
    import check_deps
    m = re.search(r"<!-- folders: ([^>]*) -->", text)
    if not m:
        problems.append("docs/architecture.md has no '<!-- folders: ... -->' line listing the folders from the top down")
    else:
        order = [f.strip() for f in m.group(1).split(",")]
        if set(order) != set(check_deps.FOLDERS):
            problems.append("the folders line lists %s; check_deps.FOLDERS has %s" % (sorted(order), sorted(check_deps.FOLDERS)))
        for a, allowed in check_deps.FOLDERS.items():
            for b in allowed:
                if a in order and b in order and order.index(b) < order.index(a):
                    problems.append("check_deps lets %s include %s, but the page puts %s above %s" % (a, b, b, a))
    for p in problems:
        print("check_architecture: " + p)
    if problems:
        return 1
    print("check_architecture: %d paths named, every folder and source file described" % len(named))
    return 0


if __name__ == "__main__":
    sys.exit(main())
