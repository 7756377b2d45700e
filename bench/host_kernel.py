#!/usr/bin/env python3
"""ElementwiseKernel on host arrays beside evaluate() and NumPy's own forms (issue 22), one run on
this machine: bench_host_kernel's medians and NumPy's for the same work, as a markdown table.

    python3 bench/host_kernel.py BENCH_HOST_KERNEL [N] [REPS] > bench/results/host_kernel_cpu.md
"""
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

binary = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 8 << 20
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 21


def median_ms(f):
    f()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)


x = 0.001 * (np.arange(n) % 1000).astype(np.float64)
y = np.empty_like(x)
a = np.ones(n)
numpy = {
    "evaluate": ("x + 1.5 (new array)", median_ms(lambda: x + 1.5)),
    "k(x)": ("x + 1.5 (new array)", median_ms(lambda: x + 1.5)),
    "k(x,y)": ("np.add(x, 1.5, out=y)", median_ms(lambda: np.add(x, 1.5, out=y))),
    "k(x,x)": ("np.add(y, 1.5, out=y)", median_ms(lambda: np.add(y, 1.5, out=y))),
    "k(a,a)decay": ("a *= 0.99; a += 0.5", median_ms(lambda: (np.multiply(a, 0.99, out=a), np.add(a, 0.5, out=a)))),
}
out = subprocess.run([binary, str(n), str(reps)], capture_output=True, text=True, check=True).stdout
cj = {l.split()[0]: float(l.split()[1]) for l in out.splitlines()}
cpu = platform.processor() or platform.machine()
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except (OSError, StopIteration):
    pass
print(f"# ElementwiseKernel on host arrays, evaluate() and NumPy ({cpu}, {os.cpu_count()} cores, "
      f"{time.strftime('%Y-%m-%d', time.gmtime())})\n")
print(f"`python3 bench/host_kernel.py build/bench/bench_host_kernel {n} {reps}`: float64, {n} elements, "
      f"medians of {reps} calls after a warm-up; cujit on all cores, NumPy on one (its own loops).\n")
print("| form | cujit (ms) | NumPy form | NumPy (ms) | NumPy / cujit |\n|---|---:|---|---:|---:|")
for k, (form, ms) in numpy.items():
    print(f"| `{k}` | {cj[k]:.2f} | `{form}` | {ms:.2f} | {ms / cj[k]:.2f} |")
