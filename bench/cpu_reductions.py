#!/usr/bin/env python3
"""Reductions on the CPU evaluator beside NumPy's own, in one run, interleaved.

    python3 bench/cpu_reductions.py BUILD/bench/bench_cpu_reductions OUT.md

Programs over float32 and float64 x (and y) of 10^6, 10^7 and 10^8 elements:
sum, mean, max, argmax, std, sum(x*y), and sums over each axis of (n/1000, 1000).
NumPy runs the same jobs on the same values in this process (x.sum(), x.mean(),
..., (x*y).sum(), x.sum(axis=0)); cujit's times are evaluate() calls on host
arrays (bench/cpu_reductions.cpp) on all cores. Each figure is the median of
REPS calls after a warm-up; the two sides alternate case by case. It starts
once the 1-minute load average is below LOAD_MAX (0.5), waiting up to WAIT
seconds (1800).
"""
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

BIN, OUT = sys.argv[1], sys.argv[2]
REPS = int(os.environ.get("REPS", "11"))
SIZES = [int(s) for s in os.environ.get("SIZES", "1000000,10000000,100000000").split(",")]

PROGRAMS = [
    ("sum", "s = sum(x)", lambda x, y: x.sum()),
    ("mean", "s = mean(x)", lambda x, y: x.mean()),
    ("max", "s = max(x)", lambda x, y: x.max()),
    ("argmax", "s = argmax(x)", lambda x, y: x.argmax()),
    ("std", "s = std(x)", lambda x, y: x.std()),
    ("sum(x*y)", "s = sum(x*y)", lambda x, y: (x * y).sum()),
    ("sum axis 0", "s = sum(x, axis=0)", lambda x, y: x.sum(axis=0)),
    ("sum axis 1", "s = sum(x, axis=1)", lambda x, y: x.sum(axis=1)),
]


def values(n, prime, shift, dt):
    k = np.arange(n, dtype=np.int64)
    return (((k * prime) % 1000) / 1000.0 - shift).astype(dt)


def numpy_ms(f, x, y):
    f(x, y)
    t = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        f(x, y)
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)


def cujit_ms(pid, program, dt, shape):
    line = f"{pid}|{program}|{dt}|{'x'.join(map(str, shape))}\n"
    p = subprocess.run([BIN, str(REPS)], input=line, capture_output=True, text=True, check=True)
    return float(p.stdout.split()[1])


def wait_for_quiet():
    """Waits (up to WAIT seconds) until the 1-minute load average is below LOAD_MAX: on a
    shared machine another job's threads take the cores both sides are measured on."""
    limit, deadline = float(os.environ.get("LOAD_MAX", "0.5")), time.time() + float(os.environ.get("WAIT", "1800"))
    while os.getloadavg()[0] >= limit and time.time() < deadline:
        time.sleep(10)
    return os.getloadavg()[0]


def main():
    load_start = wait_for_quiet()
    rows = []
    for dt in ("float32", "float64"):
        for n in SIZES:
            if dt == "float64" and n > 10_000_000:
                continue
            x1, y1 = values(n, 7919, 0.5, dt), values(n, 104729, 0.0, dt)
            for name, program, f in PROGRAMS:
                axis = "axis" in name
                shape = (n // 1000, 1000) if axis else (n,)
                x, y = x1.reshape(shape), y1.reshape(shape)
                c = cujit_ms(f"{name.replace(' ', '_')}:{dt}:{n}", program, dt, shape)
                nm = numpy_ms(f, x, y)
                rows.append((name, dt, n, c, nm))
                print(f"{name} {dt} {n}: cujit {c:.3f} ms, NumPy {nm:.3f} ms, {nm / c:.2f}x", file=sys.stderr)
    cpu = "unknown"
    try:
        cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
    except (OSError, IndexError):
        pass
    try:  # the commit measured: the one the build was made from, where the script is
        here = os.path.dirname(os.path.abspath(__file__))
        commit = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    L = [f"# Reductions on the CPU: cujit's evaluator beside NumPy ({time.strftime('%Y-%m-%d')})", "",
         f"cujit at commit {commit}. CPU: {cpu}, {os.cpu_count()} cores (cujit uses all; NumPy's reductions use one). NumPy {np.__version__}, "
         f"Python {platform.python_version()}. Medians of {REPS} calls after a warm-up, cujit and NumPy alternating "
         f"case by case; 1-minute load average {load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end.", "",
         f"Command: `python3 bench/cpu_reductions.py BUILD/bench/bench_cpu_reductions {OUT}`", "",
         "| program | dtype | elements | cujit ms | NumPy ms | NumPy / cujit |", "|---|---|---|---|---|---|"]
    for name, dt, n, c, nm in rows:
        L.append(f"| {name} | {dt} | {n} | {c:.3f} | {nm:.3f} | {nm / c:.2f} |")
    with open(OUT, "w") as fh:
        fh.write("\n".join(L) + "\n")


main()
