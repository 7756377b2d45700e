#!/usr/bin/env python3
"""A fresh process's first call, cujit beside CuPy, in one run on one GPU.

Each measurement is a new process (R of each, medians): `z = sin(x)*5` on
2^20 float32 elements, timed from after CUDA context creation until the
first call's kernel is done, with
  - a cold kernel cache (a fresh, empty cache folder), and
  - a disk-cache hit (a new process over the folder the cold run filled);
the second call of the same process (the in-memory path) and the context
creation are shown too. CuPy: ElementwiseKernel, CUPY_CACHE_DIR fresh /
filled the same way. Python's start-up and imports are outside the times.

  python3 bench/first_call.py BENCH_FIRST_CALL_BINARY [REPS] > first_call.md
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 7

CUPY = r"""
import time, cupy as cp
t0 = time.perf_counter()
x = cp.empty(1 << 20, dtype=cp.float32); z = cp.empty_like(x); cp.cuda.Device().synchronize()
t1 = time.perf_counter()
k = cp.ElementwiseKernel("float32 x", "float32 z", "z = sin(x)*5", "first_call")
k(x, z); cp.cuda.Device().synchronize()
t2 = time.perf_counter()
k(x, z); cp.cuda.Device().synchronize()
t3 = time.perf_counter()
print(f"{(t1-t0)*1e3:.3f} {(t2-t1)*1e3:.3f} {(t3-t2)*1e3:.3f}")
"""


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    v = [float(t) for t in p.stdout.split()[:5]]
    return v + [0.0] * (5 - len(v))


def measure(system):
    cold, warm = [], []
    for _ in range(REPS):
        d = tempfile.mkdtemp(prefix="first-call-")
        env = dict(os.environ)
        if system == "cujit":
            env["CUJIT_CACHE_DIR"] = d
            cmd = [BIN]
        else:
            env["CUPY_CACHE_DIR"] = d
            cmd = [sys.executable, "-c", CUPY]
        cold.append(run(cmd, env))
        warm.append(run(cmd, env))
        shutil.rmtree(d, ignore_errors=True)
    return cold, warm


def med(rows, k):
    return statistics.median(r[k] for r in rows)


def main():
    import torch  # only for the device's name
    gpu = torch.cuda.get_device_name(0)
    cj_cold, cj_warm = measure("cujit")
    cp_cold, cp_warm = measure("cupy")
    print(f"# First call in a fresh process\n\n{gpu}, {time.strftime('%Y-%m-%d', time.gmtime())}; "
          f"`z = sin(x)*5`, 2^20 float32; medians of {REPS} fresh processes each; times in ms, after "
          "context creation (shown apart). `bash bench/run_all.sh` made this file.\n")
    print("| system | context | first call, cold cache | of which NVRTC | first call, disk-cache hit | of which cache read | second call |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| cujit | {med(cj_cold, 0):.1f} | {med(cj_cold, 1):.2f} | {med(cj_cold, 3):.2f} | "
          f"{med(cj_warm, 1):.3f} | {med(cj_warm, 4):.3f} | {med(cj_warm, 2):.3f} |")
    print(f"| CuPy ElementwiseKernel | {med(cp_cold, 0):.1f} | {med(cp_cold, 1):.2f} | - | "
          f"{med(cp_warm, 1):.3f} | - | {med(cp_warm, 2):.3f} |")
    print(f"\nGoals (issue 11): compile <= 25 ms, first call beyond context creation <= 30 ms, disk-cache hit <= 0.3 ms.")
    print(f"cujit: compile {med(cj_cold, 3):.1f} ms, first call {med(cj_cold, 1):.1f} ms, "
          f"disk-cache hit: first call {med(cj_warm, 1):.3f} ms, of which reading the entry {med(cj_warm, 4):.3f} ms.")
    print("\nRaw rows (ctx, first, second, nvrtc, cache read) per process:\n")
    for name, rows in (("cujit cold", cj_cold), ("cujit disk hit", cj_warm), ("CuPy cold", cp_cold), ("CuPy disk hit", cp_warm)):
        print(f"- {name}: " + "; ".join(" ".join(f"{v:.2f}" for v in r[:5]) for r in rows))


if __name__ == "__main__":
    main()
