#!/usr/bin/env python3
"""Builds of cujit's CPU evaluator side by side on the memory-bound programs of
bench/cpu_peers.py, with the STREAM triad, interleaved in one run:

    python3 bench/cpu_builds.py OUT.md LABEL=BENCH_CPU [LABEL=BENCH_CPU ...] [--sizes 1e7,1e8] [--reps 7]

Each BENCH_CPU is a bench_cpu binary (bench/cpu_bench.cpp) of one build. Every
repetition times each program once in each build and the triad once (each
repetition starting with the next build), with $CUJIT_NUM_THREADS threads (all
cores by default) for the builds and the triad alike. The table holds medians in milliseconds, GB/s of
inputs read and outputs written, and that over the triad's GB/s (24 bytes an
element: a = b + 3c in float64), the goal of issue 21 being 0.9.
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import tempfile

import numpy as np

# name, program, inputs (name: dtype), bytes an element read + written
PROGRAMS = [
    ("x*y + 5", "out = x*y + 5", {"x": np.float32, "y": np.float32}, 12),
    ("clip", "out = clip(x, 0.5, 1.5)", {"x": np.float32}, 8),
    ("(x > 0.5) & (x < 1.5) | (y > 1)", "out = (x > 0.5) & (x < 1.5) | (y > 1)", {"x": np.float32, "y": np.float32}, 9),
    ("sqrt(u*u + v*v)", "out = sqrt(u*u + v*v)", {"u": np.float64, "v": np.float64}, 24),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("builds", nargs="+", help="LABEL=PATH of a bench_cpu")
    ap.add_argument("--sizes", default="1e7,1e8")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    builds = [b.split("=", 1) for b in args.builds]
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    threads = os.environ.get("CUJIT_NUM_THREADS") or str(os.cpu_count())
    env = dict(os.environ, CUJIT_NUM_THREADS=threads)  # bench_cpu's triad runs on one thread without it
    procs = {label: subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
             for label, path in builds}

    def cmd(p, line):
        p.stdin.write(line + "\n")
        p.stdin.flush()
        reply = p.stdout.readline().strip()
        if not reply or reply.startswith("error"):
            raise SystemExit(f"bench_cpu: {line!r} -> {reply!r}")
        return reply

    rng = np.random.default_rng(2026)
    rows = []
    started = datetime.datetime.now(datetime.timezone.utc)
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        for n in sizes:
            for name, prog, inputs, bpe in PROGRAMS:
                for p in procs.values():
                    cmd(p, "clear")
                for v, dt in inputs.items():
                    path = os.path.join(tmp, f"{v}.npy")
                    np.save(path, (rng.random(n) * 2).astype(dt))
                    for p in procs.values():
                        cmd(p, f"load {v} {path}")
                names = ",".join(inputs)
                times = {label: [] for label, _ in builds}
                triad = []
                order = [label for label, _ in builds]
                for r in range(args.reps):
                    for label in order[r % len(order):] + order[:r % len(order)]:
                        times[label].append(float(cmd(procs[label], f"run {names} {prog}").split()[0]))
                    triad.append(float(cmd(procs[order[0]], f"triad {n}").split()[0]))
                tri_gbs = 24 * n / statistics.median(triad) / 1e6
                med = {label: statistics.median(t) for label, t in times.items()}
                rows.append((name, n, med, tri_gbs, bpe))
                print(name, n, {k: round(v, 3) for k, v in med.items()}, f"triad {tri_gbs:.1f} GB/s", flush=True)
    for p in procs.values():
        p.stdin.close()
        p.wait()
    labels = [label for label, _ in builds]
    with open(args.out, "w") as f:
        f.write(f"# CPU evaluator builds on memory-bound programs ({started:%Y-%m-%d %H:%M} UTC)\n\n")
        f.write(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; threads "
                f"{threads} for every build and the triad. Load (1 minute) "
                f"{load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end. {args.reps} repetitions, interleaved; "
                "medians in ms of one `cujit::evaluate` call (check, plan, output allocation, compute); GB/s counts "
                "inputs read and the output written; `of triad` is that over a STREAM triad's GB/s in the same run.\n\n")
        f.write("Builds: " + ", ".join(f"`{label}` = `{path}`" for label, path in builds) + "\n\n")
        f.write("| program | n | " + " | ".join(f"{l} ms" for l in labels) + " | triad GB/s | "
                + " | ".join(f"{l} of triad" for l in labels) + " |\n")
        f.write("|---|---:|" + "---:|" * (2 * len(labels) + 1) + "\n")
        for name, n, med, tri, bpe in rows:
            f.write(f"| `{name.replace('|', chr(92) + '|')}` | {n:.0e} | " + " | ".join(f"{med[l]:.3g}" for l in labels) + f" | {tri:.1f} | "
                    + " | ".join(f"{bpe * n / med[l] / 1e6 / tri:.2f}" for l in labels) + " |\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
