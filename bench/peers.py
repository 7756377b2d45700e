#!/usr/bin/env python3
"""The peers on the same GPU, in the same session as bench_gpu: CuPy's
ElementwiseKernel, PyTorch eager ops and PyTorch's jiterator, for the programs
bench_gpu times. Prints markdown tables: median kernel time (CUDA events, 25
calls after a warm-up), GB/s, host microseconds per call (enqueue of 100 calls,
N = 2^12, median of 40 batches) and CuPy's cold first-call latency (fresh
kernel cache directory)."""
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("CUPY_CACHE_DIR", tempfile.mkdtemp(prefix="cupy-cold-"))
import cupy as cp  # noqa: E402
import torch  # noqa: E402

MAX_LOG2 = int(sys.argv[1]) if len(sys.argv) > 1 else 28


def timed(fn, reps=25):
    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return statistics.median(times)


def host_us(fn, batches=40, batch=100):
    fn()
    per = []
    for _ in range(batches):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        per.append((time.perf_counter() - t0) / batch * 1e6)
    torch.cuda.synchronize()
    return statistics.median(per)


saxpy = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x*y + 5", "cj_peer_fma")
sin5 = cp.ElementwiseKernel("float32 x", "float32 z", "z = sinf(x)*5", "cj_peer_sin")
jit_fma = torch.cuda.jiterator._create_jit_fn("template <typename T> T f(T x, T y) { return x * y + T(5); }")
jit_sin = torch.cuda.jiterator._create_jit_fn("template <typename T> T g(T x) { return sin(x) * T(5); }")

print(f"peers on {torch.cuda.get_device_name(0)}: CuPy {cp.__version__}, PyTorch {torch.__version__}, "
      f"{time.strftime('%Y-%m-%d', time.gmtime())}\n")
print("| program | N | CuPy ElementwiseKernel ms | GB/s | PyTorch eager ms | GB/s | PyTorch jiterator ms | GB/s |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for label, nin in (("z = x*y + 5", 2), ("out = sin(x)*5", 1)):
    for lg in (20, 24, 28):
        if lg > MAX_LOG2:
            continue
        n = 1 << lg
        x = cp.random.uniform(-4, 4, n, dtype=cp.float32)
        y = cp.random.uniform(-4, 4, n, dtype=cp.float32)
        z = cp.empty(n, dtype=cp.float32)
        tx, ty = torch.as_tensor(x, device="cuda"), torch.as_tensor(y, device="cuda")
        tz = torch.empty_like(tx)
        if nin == 2:
            c = timed(lambda: saxpy(x, y, z))
            e = timed(lambda: torch.add(torch.mul(tx, ty), 5, out=tz))
            j = timed(lambda: jit_fma(tx, ty))
        else:
            c = timed(lambda: sin5(x, z))
            e = timed(lambda: torch.mul(torch.sin(tx), 5, out=tz))
            j = timed(lambda: jit_sin(tx))
        b = n * 4 * (nin + 1)
        print(f"| {label} | 2^{lg} | {c:.4f} | {b / c / 1e6:.0f} | {e:.4f} | {b / e / 1e6:.0f} | {j:.4f} | {b / j / 1e6:.0f} |")

print("\n| program | CuPy call us (N = 2^12) | PyTorch eager us | PyTorch jiterator us |")
print("|---|---:|---:|---:|")
n = 1 << 12
x = cp.random.uniform(-4, 4, n, dtype=cp.float32)
y = cp.random.uniform(-4, 4, n, dtype=cp.float32)
z = cp.empty(n, dtype=cp.float32)
tx, ty = torch.as_tensor(x, device="cuda"), torch.as_tensor(y, device="cuda")
tz = torch.empty_like(tx)
print(f"| z = x*y + 5 | {host_us(lambda: saxpy(x, y, z)):.2f} | "
      f"{host_us(lambda: torch.add(torch.mul(tx, ty), 5, out=tz)):.2f} | {host_us(lambda: jit_fma(tx, ty)):.2f} |")
print(f"| out = sin(x)*5 | {host_us(lambda: sin5(x, z)):.2f} | "
      f"{host_us(lambda: torch.mul(torch.sin(tx), 5, out=tz)):.2f} | {host_us(lambda: jit_sin(tx)):.2f} |")

# CuPy's cold first call: a kernel it has never seen (fresh cache directory, new source).
cold = []
for k in range(5):
    kern = cp.ElementwiseKernel("float32 x", "float32 z", f"z = sinf(x)*{5 + k}", f"cj_cold_{k}")
    xs = cp.ones(1024, dtype=cp.float32)
    zs = cp.empty_like(xs)
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    kern(xs, zs)
    cp.cuda.Device().synchronize()
    cold.append((time.perf_counter() - t0) * 1e3)
print(f"\nCuPy cold first call of `z = sinf(x)*5`-like kernels (compile + load + launch): median {statistics.median(cold):.1f} ms "
      f"over {len(cold)} new kernels")
