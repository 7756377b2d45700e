#!/usr/bin/env python3
"""Tables from bench/reductions.py's log (its per-case lines: cujit, the
ceiling and the best peer), for a run whose reductions.md did not come back.

  summary.py BENCH.LOG > summary.md
"""
import re
import sys

pat = re.compile(r"^(\w+):(\w+):(\w+):([\dx]+):(\S+): cujit (\d+) GB/s \(([\d.]+) us\), ceiling (\d+), best peer (\S+) (\d+)")
rows = [m.groups() for m in map(pat.match, open(sys.argv[1])) if m]
print("| case | dtype | shape | axis | cujit µs | cujit GB/s | ceiling GB/s | cujit / ceiling | best peer | peer GB/s | cujit / best peer |")
print("|---|---|---|---|---:|---:|---:|---:|---|---:|---:|")
axis_ok = axis_n = axis_ahead = 0
for kind, op, dt, shape, axis, g, us, c, peer, p in rows:
    g, c, p = int(g), int(c), int(p)
    print(f"| {kind} {op} | {dt} | {shape} | {axis} | {us} | {g} | {c} | {g / c:.2f} | {peer} | {p} | {g / p:.2f} |")
    if kind in ("first", "last", "middle"):
        axis_n += 1
        axis_ok += g / c >= 0.85
        axis_ahead += g >= p
print(f"\nAxis points (float32 sums): {axis_ok} of {axis_n} at >= 0.85 of the ceiling, {axis_ahead} ahead of or level with the best peer.")
