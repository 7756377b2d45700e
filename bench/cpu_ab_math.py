#!/usr/bin/env python3
"""Builds of cujit's CPU evaluator side by side with NumPy on the compute-bound
float32 programs of bench/cpu_peers.py (its inputs: x, y uniform in [0.1, 2.1)),
interleaved in one run:

    python3 bench/cpu_ab_math.py LABEL=BENCH_CPU [LABEL=BENCH_CPU ...] [--sizes 1e5,1e6] [--reps 15]
        [--programs 'out = x**y;out = x**1.5 + y'] [--threads 1] [--out OUT.md]

Each BENCH_CPU is a bench_cpu binary (bench/cpu_bench.cpp) of one build.
Every repetition times each program once in each build and in NumPy (one
thread; each repetition starting with the next system in turn), each time the
mean of --calls calls back to back after 3 untimed ones, as cpu_peers.py does
from 1e5 down. The table holds medians in milliseconds and NumPy's time over
each build's (above 1: the build is faster).
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import tempfile
import time

import numpy as np

# cujit's program text -> the same computation in NumPy
NUMPY = {
    "out = x**y": lambda d: d["x"] ** d["y"],
    "out = x**1.5 + y": lambda d: d["x"] ** np.float32(1.5) + d["y"],
    "out = x**0.3": lambda d: d["x"] ** np.float32(0.3),
    "out = tanh(x)": lambda d: np.tanh(d["x"]),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="+", help="LABEL=PATH of a bench_cpu")
    ap.add_argument("--sizes", default="1e5,1e6")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--programs", default="out = x**y;out = x**1.5 + y")
    ap.add_argument("--threads", default=os.environ.get("CUJIT_NUM_THREADS") or str(os.cpu_count()))
    ap.add_argument("--out", help="also write the table here (markdown)")
    args = ap.parse_args()
    builds = [b.split("=", 1) for b in args.builds]
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    programs = [p.strip() for p in args.programs.split(";")]
    env = dict(os.environ, CUJIT_NUM_THREADS=args.threads)
    procs = {label: subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
             for label, path in builds}

    def cmd(p, line):
        p.stdin.write(line + "\n")
        p.stdin.flush()
        reply = p.stdout.readline().strip()
        if not reply or reply.startswith("error"):
            raise SystemExit(f"bench_cpu: {line!r} -> {reply!r}")
        return reply

    def numpy_ms(f, d):
        for _ in range(3):
            f(d)
        t0 = time.perf_counter()
        for _ in range(args.calls):
            f(d)
        return (time.perf_counter() - t0) * 1e3 / args.calls

    info = {label: cmd(p, "info") for label, p in procs.items()}
    rng = np.random.default_rng(0)
    started = datetime.datetime.now(datetime.timezone.utc)
    load0 = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        for n in sizes:
            d = {k: (rng.random(n, dtype=np.float32) * 2 + np.float32(0.1)).astype(np.float32) for k in ("x", "y")}
            for k, v in d.items():
                np.save(f"{tmp}/{k}.npy", v)
                for p in procs.values():
                    cmd(p, f"load {k} {tmp}/{k}.npy")
            for prog in programs:
                systems = [label for label, _ in builds] + ["NumPy"]
                times = {s: [] for s in systems}
                for r in range(args.reps):
                    for s in systems[r % len(systems):] + systems[:r % len(systems)]:
                        if s == "NumPy":
                            times[s].append(numpy_ms(NUMPY[prog], d))
                        else:
                            cmd(procs[s], f"runs 3 x,y {prog}")
                            times[s].append(float(cmd(procs[s], f"runs {args.calls} x,y {prog}").split()[0]))
                med = {s: statistics.median(v) for s, v in times.items()}
                rows.append((prog, n, med))
                print(f"{prog!r:24} n={n:.0e} " + "  ".join(f"{s} {m:.4f}" for s, m in med.items()), flush=True)
    for p in procs.values():
        p.stdin.write("quit\n")
        p.stdin.flush()
        p.wait()
    labels = [label for label, _ in builds]
    lines = [
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"NumPy {np.__version__} (one thread); cujit threads {args.threads}; "
        f"{started:%Y-%m-%d %H:%M} UTC; load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end.",
        "Builds: " + "; ".join(f"{label}: {info[label]}" for label in labels),
        f"Medians of {args.reps} interleaved repetitions, each the mean of {args.calls} calls after 3 untimed ones (ms).",
        "",
        "| program | n | " + " | ".join(f"{label} ms" for label in labels) + " | NumPy ms | "
        + " | ".join(f"NumPy / {label}" for label in labels) + " |",
        "|---|---:|" + "---:|" * (2 * len(labels) + 1),
    ]
    for prog, n, med in rows:
        lines.append(f"| `{prog}` | {n:.0e} | " + " | ".join(f"{med[label]:.4f}" for label in labels)
                     + f" | {med['NumPy']:.4f} | " + " | ".join(f"{med['NumPy'] / med[label]:.2f}" for label in labels) + " |")
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
