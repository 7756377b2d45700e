#!/usr/bin/env python3
"""Two builds of cujit on the layouts benchmark's cases, in one run on one GPU:
the check that a restructuring changed no kernel's speed (issue 19: within +-2%).

    python3 bench/compare_builds.py BEFORE_BENCH_LAYOUTS AFTER_BENCH_LAYOUTS OUT.md [ROUNDS]

Each round runs every case line (bench/layouts.py's, printed with
LAYOUTS_PRINT_LINES=1, from 2^20 up) through both binaries, alternating which
goes first; each binary reports the median of its own timed calls. The table
holds, per case, the median over the rounds of each build's time and their
ratio (after / before: above 1 is slower).
"""
import os
import statistics
import subprocess
import sys
import time

before, after, out = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, LAYOUTS_PRINT_LINES="1")
lines = subprocess.run([sys.executable, os.path.join(here, "layouts.py"), after], env=env, capture_output=True,
                       text=True, check=True).stdout.split("\n")


def log2_of(line):
    tail = line.split("|")[0].split("@")[-1]
    return int(tail[2:]) if tail.startswith("2^") and tail[2:].isdigit() else None


lines = [l for l in lines if log2_of(l) is not None and 20 <= log2_of(l) <= 28]


def run(binary):
    p = subprocess.run([binary], input="\n".join(lines) + "\n", capture_output=True, text=True)
    res = {}
    for ln in p.stdout.splitlines():
        f = ln.split(" ", 2)
        if len(f) >= 2 and f[1] != "error":
            res[f[0]] = float(f[1])
    return res


times = {"before": {}, "after": {}}
for r in range(rounds):
    order = [("before", before), ("after", after)] if r % 2 == 0 else [("after", after), ("before", before)]
    for name, b in order:
        for k, v in run(b).items():
            times[name].setdefault(k, []).append(v)
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                     text=True).stdout.strip()
rows, ratios = [], []
for k in times["after"]:
    if k not in times["before"]:
        continue
    b, a = statistics.median(times["before"][k]), statistics.median(times["after"][k])
    ratios.append(a / b)
    rows.append(f"| {k} | {b * 1000:.2f} | {a * 1000:.2f} | {a / b:.3f} |")
with open(out, "w") as f:
    f.write(f"# Before/after a restructuring: kernel time on the layouts cases ({gpu}, "
            f"{time.strftime('%Y-%m-%d', time.gmtime())})\n\n")
    f.write(f"`python3 bench/compare_builds.py BEFORE AFTER OUT {rounds}`: {rounds} rounds, each build's "
            "median kernel time per case (bench_layouts), then the median over rounds.\n\n")
    f.write(f"Cases: {len(rows)}; after/before ratio: median {statistics.median(ratios):.3f}, "
            f"min {min(ratios):.3f}, max {max(ratios):.3f}; outside +-2%: "
            f"{sum(1 for r in ratios if abs(r - 1) > 0.02)}\n\n")
    f.write("| case | before (us) | after (us) | after/before |\n|---|---:|---:|---:|\n")
    f.write("\n".join(rows) + "\n")
print(open(out).read())
