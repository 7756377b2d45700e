#!/usr/bin/env python3
"""Reductions against the memory ceiling and the peers, in one run on one GPU.

Cases (issue 20, "Speed"):
  - whole reductions sum, max, argmax, sum(x*y) of float32/float64/float16/int32
    at 2^20 ... 2^30 elements;
  - float32 sums of (2^k, 2^(26-k)) over axis -1 and axis 0, k = 0, 2, ..., 26,
    and of (4, 2^k, 2^(24-k)) over the middle axis;
  - the row normalisation (x - mean) / std over axis 1 of (65536, 4096) float32.
Systems: cujit (bench_reductions, the C++ launcher), "cujit call" (the same
cases as programs through the call path a user's call takes:
CUJIT_BENCH_PATH=call), the ceilings and CUB
(reductions_cub.cu, compiled here with nvcc: a tuned read-only stream for
whole reductions, a read+write stream otherwise), PyTorch eager,
torch.compile, CuPy with CUB and without (routine and reduction
accelerators), cupy.ReductionKernel. Each time is the median of 25 calls
after a warm-up, each between two events after a ~100 us spin kernel.
GB/s counts the bytes read + written (a whole reduction's output is not
counted). Writes reductions.md (tables) and reductions_*.png to OUT_DIR.

  python3 bench/reductions.py BENCH_REDUCTIONS_BINARY OUT_DIR

RED_MAX_LOG2=K stops whole reductions at 2^K; RED_QUICK=1 measures fewer
sizes and leaves torch.compile out (a first pass).
"""
import os
import statistics
import subprocess
import sys
import time

import cupy as cp
import numpy as np
import torch

BIN = sys.argv[1]
OUTDIR = sys.argv[2] if len(sys.argv) > 2 else "bench/results/reductions"
HERE = os.path.dirname(os.path.abspath(__file__))
QUICK = os.environ.get("RED_QUICK") == "1"
MAX_LOG2 = int(os.environ.get("RED_MAX_LOG2", "30"))
REPS = 25
SLEEP = 200000
ITEM = {"float16": 2, "float32": 4, "float64": 8, "int32": 4}
TDT = {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64, "int32": torch.int32}


class Case:
    def __init__(self, group, op, dt, shape, axis, title):
        self.group, self.op, self.dt, self.shape, self.axis, self.title = group, op, dt, shape, axis, title
        self.id = f"{group}:{op}:{dt}:{'x'.join(map(str, shape))}:{axis}"

    def oli(self):  # [outer, len, inner]
        s = self.shape
        if self.axis is None:
            return 1, int(np.prod(s)), 1
        if self.op == "norm":
            return s[0], s[1], 1
        a = self.axis % len(s)
        return int(np.prod(s[:a])), s[a], int(np.prod(s[a + 1:]))

    def n(self):
        return int(np.prod(self.shape))

    def bytes(self):
        o, l, i = self.oli()
        n = self.n() * ITEM[self.dt]
        if self.op == "norm":
            return 2 * n
        if self.axis is None:
            return n * (2 if self.op == "dot" else 1)
        return n + o * i * ITEM[self.dt]


def cases():
    out = []
    sizes = [20, 24, 28, 30] if QUICK else [20, 22, 24, 26, 28, 30]
    for op in ["sum", "max", "argmax", "dot"]:
        for dt in ["float32", "float64", "float16", "int32"]:
            for lg in sizes:
                if lg <= MAX_LOG2:
                    out.append(Case("full", op, dt, (1 << lg,), None, f"{op} {dt}"))
    ks = range(0, 27, 4 if QUICK else 2)
    for k in ks:
        out.append(Case("last", "sum", "float32", (1 << k, 1 << (26 - k)), -1, "sum axis -1"))
        out.append(Case("first", "sum", "float32", (1 << k, 1 << (26 - k)), 0, "sum axis 0"))
        if k <= 24:
            out.append(Case("middle", "sum", "float32", (4, 1 << k, 1 << (24 - k)), 1, "sum middle axis"))
    out.append(Case("norm", "norm", "float32", (65536, 4096), 1, "(x - mean) / std, axis 1"))
    return out


def run_lines(cmd, lines, env=None):
    p = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        print(p.stdout[-3000:], p.stderr[-3000:], file=sys.stderr)
    res = {}
    for ln in p.stdout.splitlines():
        parts = ln.split(" ", 2)
        if len(parts) >= 2:
            res[parts[0]] = (float(parts[1]), parts[2] if len(parts) > 2 else "")
    return res


def build_cub():
    exe = "/tmp/reductions_cub"
    cmd = ["nvcc", "-O3", "-std=c++17", "-arch=native", "--extended-lambda", "-o", exe,
           os.path.join(HERE, "reductions_cub.cu")]
    subprocess.run(cmd, check=True)
    return exe


def native_lines(cs):
    cj, cub = [], []
    for c in cs:
        o, l, i = c.oli()
        cj.append(f"{c.id}|{c.op}|{c.dt}|{o}|{l}|{i}")
        ceil = "read" if c.axis is None else "rw"
        cub.append(f"ceil:{c.id}|{ceil}|{c.op}|{c.dt}|{o}|{l}|{i}")
        cub.append(f"cub:{c.id}|cub|{c.op}|{c.dt}|{o}|{l}|{i}")
    return cj, cub


def timed(fn):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    # Slow peers (CuPy's one-block whole reductions take ~100 ms at 2^28) get
    # fewer calls, so that one run fits the device's time.
    warm = a.elapsed_time(b)
    reps = REPS if warm < 4 else max(3, min(REPS, int(100 / warm)))
    ms = []
    for _ in range(reps):
        torch.cuda._sleep(SLEEP)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms)


def set_cub(on):
    acc = ["cub"] if on else []
    cp._core.set_routine_accelerators(acc)
    cp._core.set_reduction_accelerators(acc)


RK_SUM = {}


def rk(kind, dt):
    key = (kind, dt)
    if key not in RK_SUM:
        if kind == "sum":
            RK_SUM[key] = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "cj_rk_sum")
        else:
            RK_SUM[key] = cp.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "cj_rk_dot")
    return RK_SUM[key]


COMPILED = {}


def compiled(name, fn):
    if name not in COMPILED:
        COMPILED[name] = torch.compile(fn, dynamic=True)
    return COMPILED[name]


def torch_fn(c):
    op, ax = c.op, c.axis
    if op == "norm":
        return lambda x, y: (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)
    if ax is None:
        return {"sum": lambda x, y: torch.sum(x), "max": lambda x, y: torch.amax(x),
                "argmax": lambda x, y: torch.argmax(x), "dot": lambda x, y: torch.sum(x * y)}[op]
    return lambda x, y: torch.sum(x, dim=ax)


def cupy_fn(c):
    op, ax = c.op, c.axis
    if op == "norm":
        return lambda x, y: (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True, ddof=1)
    if ax is None:
        return {"sum": lambda x, y: cp.sum(x), "max": lambda x, y: cp.max(x), "argmax": lambda x, y: cp.argmax(x),
                "dot": lambda x, y: cp.sum(x * y)}[op]
    return lambda x, y: cp.sum(x, axis=ax)


def peers(c):
    res = {}
    t = TDT[c.dt]
    if c.dt == "int32":
        x = torch.randint(-100, 100, c.shape, device="cuda", dtype=t)
    else:
        x = torch.randn(c.shape, device="cuda", dtype=t)
    y = torch.randn_like(x) if c.op == "dot" and c.dt != "int32" else (x.clone() if c.op == "dot" else None)
    cx = cp.from_dlpack(x)
    cy = cp.from_dlpack(y) if y is not None else None

    def attempt(name, fn):
        try:
            res[name] = timed(fn)
        except Exception as e:  # a peer that cannot run a case is left out of it, with the reason
            print(f"  {name} {c.id}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)

    tf = torch_fn(c)
    attempt("torch", lambda: tf(x, y))
    if not QUICK and (c.dt == "float32"):
        cf = compiled(f"{c.group}:{c.op}:{c.axis}", tf)
        attempt("torch.compile", lambda: cf(x, y))
    cf2 = cupy_fn(c)
    set_cub(True)
    attempt("cupy+cub", lambda: cf2(cx, cy))
    set_cub(False)
    attempt("cupy", lambda: cf2(cx, cy))
    if c.op in ("sum", "dot"):
        k = rk(c.op, c.dt)
        if c.op == "sum":
            attempt("ReductionKernel", lambda: k(cx, axis=c.axis))
        else:
            attempt("ReductionKernel", lambda: k(cx, cy))
    set_cub(True)
    del x, y, cx, cy
    cp.get_default_memory_pool().free_all_blocks()
    torch.cuda.empty_cache()
    return res


SYSTEMS = ["cujit", "cujit call", "cub", "torch", "torch.compile", "cupy+cub", "cupy", "ReductionKernel"]


def gbs(b, ms):
    return b / (ms * 1e-3) / 1e9 if ms and ms > 0 else float("nan")


def fmt(v, d=0):
    return "" if v is None or v != v else f"{v:.{d}f}"


def main():
    os.makedirs(OUTDIR, exist_ok=True)
    t0 = time.time()
    cs = cases()
    cj_lines, cub_lines = native_lines(cs)
    cj = run_lines([BIN], cj_lines)
    print(f"cujit: {len(cj)} cases, {time.time() - t0:.0f} s", file=sys.stderr)
    # The same cases as programs through the call path a user's call takes.
    cjc = run_lines([BIN], cj_lines, {"CUJIT_BENCH_PATH": "call"})
    print(f"cujit call path: {len(cjc)} cases, {time.time() - t0:.0f} s", file=sys.stderr)
    nat = run_lines([build_cub()], cub_lines)
    print(f"ceilings and CUB: {time.time() - t0:.0f} s", file=sys.stderr)
    if os.environ.get("RED_NCU") == "1":
        profile(cs, cj, nat)
    rows = []
    for k, c in enumerate(cs):
        r = {"cujit": cj.get(c.id, (None, ""))[0], "cujit call": cjc.get(c.id, (None, ""))[0]}
        plan = cj.get(c.id, (None, ""))[1]
        if f"cub:{c.id}" in nat:
            r["cub"] = nat[f"cub:{c.id}"][0]
        ceil = nat.get(f"ceil:{c.id}", (None,))[0]
        r.update(peers(c))
        rows.append((c, r, ceil, plan))
        b = c.bytes()
        best = max([(gbs(b, v), n) for n, v in r.items() if not n.startswith("cujit") and v] or [(float("nan"), "")])
        print(f"{c.id}: cujit {gbs(b, r['cujit']):.0f} GB/s ({(r['cujit'] or 0) * 1e3:.1f} us), ceiling "
              f"{gbs(b, ceil):.0f}, best peer {best[1]} {best[0]:.0f} [{time.time() - t0:.0f} s]", file=sys.stderr)
        if k % 10 == 9:
            write(rows, plot=False)  # a run cut short still leaves its tables
    print(f"peers: {time.time() - t0:.0f} s", file=sys.stderr)
    write(rows)


def profile(cs, cj, nat):
    """Nsight Compute on cujit's kernel for the cases furthest from the ceiling
    (and the 2^20 float32 sum, the latency goal): ncu.txt in OUT_DIR."""
    def ratio(c):
        t, ceil = cj.get(c.id, (None,))[0], nat.get(f"ceil:{c.id}", (None,))[0]
        return t and ceil and ceil / t
    big = [c for c in cs if c.axis is not None or c.n() >= 1 << 24]
    worst = sorted([c for c in big if ratio(c)], key=ratio)[:3]
    first = [c for c in cs if c.group == "full" and c.op == "sum" and c.dt == "float32" and c.n() == 1 << 20]
    with open(os.path.join(OUTDIR, "ncu.txt"), "w") as f:
        for c in first + worst:
            o, l, i = c.oli()
            line = f"{c.id}|{c.op}|{c.dt}|{o}|{l}|{i}\n"
            cmd = ["ncu", "-k", "regex:cj_reduce", "--launch-skip", "1", "--launch-count", "1",
                   "--section", "SpeedOfLight", "--section", "MemoryWorkloadAnalysis", "--section", "Occupancy",
                   "--section", "LaunchStats", BIN]
            p = subprocess.run(cmd, input=line, capture_output=True, text=True, timeout=120)
            f.write(f"######## {c.id}: cujit/ceiling {ratio(c):.2f}\n{p.stdout[-6000:]}\n{p.stderr[-1000:]}\n")


def write(rows, plot=True):
    gpu = torch.cuda.get_device_name(0)
    date = time.strftime("%Y-%m-%d")
    L = [f"# Reductions on {gpu} ({date})", "",
         "GB/s = bytes read + written / median kernel time (a whole reduction: the bytes read). "
         "Ceiling: a tuned read-only stream (whole reductions) or read+write stream (axis reductions, "
         "normalisation) of the same bytes, in the same run.", "",
         "## Summary", "",
         "| case | shape | cujit µs | cujit GB/s | ceiling GB/s | cujit / ceiling | best peer | peer GB/s | cujit / best peer | plan | call path µs | call path / ceiling | call path / best peer |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c, r, ceil, plan in rows:
        b = c.bytes()
        peer = [(gbs(b, v), k) for k, v in r.items() if not k.startswith("cujit") and v]
        best = max(peer) if peer else (float("nan"), "")
        g = gbs(b, r.get("cujit"))
        gcall = gbs(b, r.get("cujit call"))
        gc = gbs(b, ceil)
        L.append(f"| {c.title} | {'x'.join(map(str, c.shape))} | {fmt((r.get('cujit') or float('nan')) * 1e3, 1)} | "
                 f"{fmt(g)} | {fmt(gc)} | {fmt(g / gc, 2)} | {best[1]} | {fmt(best[0])} | {fmt(g / best[0], 2)} | {plan} | "
                 f"{fmt((r.get('cujit call') or float('nan')) * 1e3, 1)} | {fmt(gcall / gc, 2)} | {fmt(gcall / best[0], 2)} |")
    L += ["", "## Every system (GB/s)", "", "| case | shape | " + " | ".join(SYSTEMS) + " | ceiling |",
          "|---|---|" + "---|" * (len(SYSTEMS) + 1)]
    for c, r, ceil, plan in rows:
        b = c.bytes()
        L.append(f"| {c.title} | {'x'.join(map(str, c.shape))} | " +
                 " | ".join(fmt(gbs(b, r.get(s))) for s in SYSTEMS) + f" | {fmt(gbs(b, ceil))} |")
    with open(os.path.join(OUTDIR, "reductions.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    if plot:
        plots(rows, gpu)


def plots(rows, gpu):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(4, 4, figsize=(18, 16))
    for i, op in enumerate(["sum", "max", "argmax", "dot"]):
        for j, dt in enumerate(["float32", "float64", "float16", "int32"]):
            ax = axes[i][j]
            rs = [(c, r, ceil) for c, r, ceil, _ in rows if c.group == "full" and c.op == op and c.dt == dt]
            xs = [np.log2(c.n()) for c, _, _ in rs]
            for s in SYSTEMS:
                ax.plot(xs, [gbs(c.bytes(), r.get(s)) for c, r, _ in rs], "o-" if s == "cujit" else ".-", label=s)
            ax.plot(xs, [gbs(c.bytes(), ceil) for c, _, ceil in rs], "k--", label="ceiling")
            ax.set_title(f"{op} {dt}")
            ax.set_xlabel("log2 n")
            ax.set_ylabel("GB/s")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"Whole reductions, {gpu}")
    fig.tight_layout()
    fig.savefig(os.path.join(OUTDIR, "reductions_full.png"), dpi=80)
    fig, axes = plt.subplots(1, 3, figsize=(18, 5))
    for ax, g, t in zip(axes, ["last", "first", "middle"], ["axis -1 of (2^k, 2^(26-k))", "axis 0 of (2^k, 2^(26-k))",
                                                             "axis 1 of (4, 2^k, 2^(24-k))"]):
        rs = [(c, r, ceil) for c, r, ceil, _ in rows if c.group == g]
        xs = [int(np.log2(c.shape[1 if g == "middle" else 0])) for c, _, _ in rs]
        for s in SYSTEMS:
            ax.plot(xs, [gbs(c.bytes(), r.get(s)) for c, r, _ in rs], "o-" if s == "cujit" else ".-", label=s)
        ax.plot(xs, [gbs(c.bytes(), ceil) for c, _, ceil in rs], "k--", label="ceiling")
        ax.set_title(f"float32 sum, {t}")
        ax.set_xlabel("k")
        ax.set_ylabel("GB/s")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(OUTDIR, "reductions_axis.png"), dpi=80)


if __name__ == "__main__":
    main()
