#!/usr/bin/env python3
"""The A/B table of a call's raw lines `VARIANT ROUND ID MS ...` (bench_reductions,
bench_layouts, and the ceilings as `ceil ROUND ceil:ID MS`): medians in µs, each
variant against the ceiling where there is one, and every variant against the first.

  ab_table.py AB.TXT FIRST [OTHER ...]
"""
import collections
import statistics as st
import sys

path, vs = sys.argv[1], sys.argv[2:]
t = collections.defaultdict(list)
plan = {}
ids = []
for line in open(path):
    f = line.split()
    if len(f) < 4:
        continue
    who, cid = f[0], f[2].replace("ceil:", "")
    try:
        t[(who, cid)].append(float(f[3]))
    except ValueError:
        continue
    if who != "ceil" and cid not in ids:
        ids.append(cid)
    if who == vs[-1]:
        plan[cid] = " ".join(f[4:])
med = {k: st.median(v) * 1e3 for k, v in t.items()}
nan = float("nan")
hdr = ["case", "ceiling µs"] + [f"{v} µs" for v in vs] + [f"{v} / ceiling" for v in vs] + [f"{v} / {vs[0]}" for v in vs[1:]] + ["plan"]
print("| " + " | ".join(hdr) + " |")
print("|---|" + "---:|" * (len(hdr) - 2) + "---|")
for c in ids:
    ce = med.get(("ceil", c), nan)
    ms = [med.get((v, c), nan) for v in vs]
    row = [c, f"{ce:.1f}"] + [f"{m:.1f}" for m in ms] + [f"{ce / m:.2f}" for m in ms] + [f"{ms[0] / m:.3f}" for m in ms[1:]] + [plan.get(c, "")]
    print("| " + " | ".join(row) + " |")
