#!/usr/bin/env python3
"""cujit's CPU evaluator against numexpr, NumPy and Numba, side by side in one run.

    python3 bench/cpu_peers.py --bench-cpu build/bench/bench_cpu [--sizes 1e3,1e5,1e6,1e7,1e8]
        [--reps 5] [--threads N] [--before OLD_BENCH_CPU] [--isa native|avx2] [--out bench/results/cpu_DATE.md] [--plot FILE.png]

For each size the inputs are made once with NumPy (seeded), written as .npy to
a temporary folder (in /dev/shm when there is one) and mapped by both this
script and the bench_cpu process, so that every system reads the same pages. Then, for every program and
repetition, cujit, numexpr and NumPy run back to back (interleaved), so a
change of machine load hits all three alike; the table gives medians.
cujit's time is one cujit::evaluate call (check, plan, output allocation,
compute); numexpr's one numexpr.evaluate call; NumPy's the expression;
Numba's one call of the program as a @vectorize(target='parallel') ufunc
(compiled before the clock starts). numexpr, Numba and cujit use the same
number of threads. A STREAM triad (bench_cpu's `triad`: a = b + 3c on float64,
24 bytes an element, the arrays kept between calls) runs in the same
interleaving at each size: the machine's streaming bandwidth, which the
table holds each cujit call's bytes (inputs read + output written) against.
Every cujit result is checked against NumPy's once per size. At 10^3 elements
a call is a few microseconds, most of it fixed cost, and one call right after
another process's is mostly the wake-up of an idle core (seen: 5 to 35 us for
calls whose steady cost is 2-4 us), so there each sample is the mean of
SMALL_BATCH calls back to back (every system alike), SMALL_REPS_FACTOR times
the repetitions; the goal there is a call within 2x NumPy's rather than ahead
of it (issue 21).
"""
import argparse
import datetime
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import math

# Numba's OpenMP threads (libgomp) spin for milliseconds after each call by
# default, holding a core through whatever the benchmark runs next (another
# system's call, the triad); they sleep between calls, as cujit's and
# numexpr's threads do, unless the caller says otherwise.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# --isa avx2: every system as on a CPU with AVX2 and no AVX-512 (issue 21's
# goal holds on both), set before NumPy and Numba are imported, since both
# pick their code at import: NumPy's dispatch without its AVX-512 targets,
# Numba's LLVM for Haswell, cujit's loops forced to AVX2 (bench_cpu's
# `target`) with SLEEF's AVX2 functions (CUJIT_CPU_MATH=avx2). numexpr's loops
# have no dispatch (its wheel's one build runs on both).
ISA = next((a.split("=", 1)[1] if "=" in a else sys.argv[i + 1]
            for i, a in enumerate(sys.argv) if a.startswith("--isa") and ("=" in a or i + 1 < len(sys.argv))), "native")
NPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"  # NumPy 2.4's AVX-512 dispatch targets
if ISA == "avx2":
    os.environ["NPY_DISABLE_CPU_FEATURES"] = NPY_AVX512
    os.environ["NUMBA_CPU_NAME"] = "haswell"

import numba
import numexpr as ne
import numpy as np

# (name, cujit program, its inputs, numexpr expression, NumPy function)
PROGRAMS = [
    ("sin", "out = sin(x)*5", "x", "sin(x)*5", lambda d: np.sin(d["x"]) * 5),
    ("fma", "out = x*y + 5", "x,y", "x*y + 5", lambda d: d["x"] * d["y"] + 5),
    ("gauss", "out = exp(-x*x)*cos(y)", "x,y", "exp(-x*x)*cos(y)", lambda d: np.exp(-d["x"] * d["x"]) * np.cos(d["y"])),
    ("where", "out = where(x > y, x, y*2)", "x,y", "where(x > y, x, y*2)", lambda d: np.where(d["x"] > d["y"], d["x"], d["y"] * 2)),
    ("clip", "out = clip(x, 0.5, 1.5)", "x", "where(x < 0.5, 0.5, where(x > 1.5, 1.5, x))", lambda d: np.clip(d["x"], 0.5, 1.5)),
    ("int32", "out = (a*3 + b) % 7", "a,b", "(a*3 + b) % 7", lambda d: (d["a"] * 3 + d["b"]) % 7),
    ("f64 hypot", "out = sqrt(u*u + v*v)", "u,v", "sqrt(u*u + v*v)", lambda d: np.sqrt(d["u"] * d["u"] + d["v"] * d["v"])),
    ("f64 poly", "out = ((u*0.5 + 1.5)*u - 2)*u + 3", "u", "((u*0.5 + 1.5)*u - 2)*u + 3",
     lambda d: ((d["u"] * 0.5 + 1.5) * d["u"] - 2) * d["u"] + 3),
    ("power", "out = x**y", "x,y", "x**y", lambda d: d["x"] ** d["y"]),
    # numexpr rewrites a half-integral constant exponent as products and sqrt
    # (x*sqrt(x) here), which is cheaper but not NumPy's (or cujit's) pow.
    ("power 1.5", "out = x**1.5 + y", "x,y", "x**1.5 + y", lambda d: d["x"] ** 1.5 + d["y"]),
    ("compare", "out = (x > 0.5) & (x < 1.5) | (y > 1)", "x,y", "(x > 0.5) & (x < 1.5) | (y > 1)",
     lambda d: (d["x"] > 0.5) & (d["x"] < 1.5) | (d["y"] > 1)),
    ("log", "out = log(x)*y + 1", "x,y", "log(x)*y + 1", lambda d: np.log(d["x"]) * d["y"] + 1),
    ("tanh", "out = tanh(x)", "x", "tanh(x)", lambda d: np.tanh(d["x"])),
    ("arctan2", "out = arctan2(x, y)", "x,y", "arctan2(x, y)", lambda d: np.arctan2(d["x"], d["y"])),
    ("broadcast", "out = m*r + 1", "m,r", "m*r + 1", lambda d: d["m"] * d["r"] + 1),
]
ISSUE_PROGRAMS = ("sin", "fma", "gauss")  # issue 9's before/after programs

# Each program as Numba writes it: a scalar function made a parallel ufunc,
# with its NumPy signature (float32 in, float32 out, as the other systems).
F32, F64, I32 = "float32", "float64", "int32"
NUMBA = {
    "sin": (f"{F32}({F32})", lambda x: math.sin(x) * 5),
    "fma": (f"{F32}({F32},{F32})", lambda x, y: x * y + 5),
    "gauss": (f"{F32}({F32},{F32})", lambda x, y: math.exp(-x * x) * math.cos(y)),
    "where": (f"{F32}({F32},{F32})", lambda x, y: x if x > y else y * 2),
    "clip": (f"{F32}({F32})", lambda x: min(max(x, 0.5), 1.5)),
    "int32": (f"{I32}({I32},{I32})", lambda a, b: (a * 3 + b) % 7),
    "f64 hypot": (f"{F64}({F64},{F64})", lambda u, v: math.sqrt(u * u + v * v)),
    "f64 poly": (f"{F64}({F64})", lambda u: ((u * 0.5 + 1.5) * u - 2) * u + 3),
    "power": (f"{F32}({F32},{F32})", lambda x, y: x ** y),
    "power 1.5": (f"{F32}({F32},{F32})", lambda x, y: x ** 1.5 + y),
    "compare": (f"boolean({F32},{F32})", lambda x, y: (x > 0.5) & (x < 1.5) | (y > 1)),
    "log": (f"{F32}({F32},{F32})", lambda x, y: math.log(x) * y + 1),
    "tanh": (f"{F32}({F32})", lambda x: math.tanh(x)),
    "arctan2": (f"{F32}({F32},{F32})", lambda x, y: math.atan2(x, y)),
    "broadcast": (f"{F32}({F32},{F32})", lambda m, r: m * r + 1),
}


def numba_ufuncs(programs):
    """Each program's parallel ufunc, compiled now (not on its first timed call)."""
    out = {}
    for pname, *_ in programs:
        sig, f = NUMBA[pname]
        out[pname] = numba.vectorize([sig], target="parallel")(f)
    return out


def make_inputs(n, rng):
    x = (rng.random(n, dtype=np.float32) * 2 + np.float32(0.1)).astype(np.float32)
    y = (rng.random(n, dtype=np.float32) * 2 + np.float32(0.1)).astype(np.float32)
    return {
        "x": x,
        "y": y,
        "a": rng.integers(0, 1000, n, dtype=np.int32),
        "b": rng.integers(0, 1000, n, dtype=np.int32),
        "u": rng.random(n) * 4 - 2,
        "v": rng.random(n) * 4 - 2,
        "m": x.reshape(n // 1000, 1000),  # a matrix times a broadcast row
        "r": rng.random(1000, dtype=np.float32),
    }


def isa_line():
    """What --isa chose, and the targets NumPy's own dispatch picked for these programs' ufuncs."""
    try:
        from numpy.lib.introspect import opt_func_info
        info = opt_func_info(func_name="sin|cos|exp|tanh|power|add|multiply|clip|sqrt|arctan2|where|greater",
                             signature="float32.*|float64.*|int32.*")
        picked = ", ".join(sorted({d["current"] for v in info.values() for d in v.values() if d.get("current")}))
    except Exception as e:  # an older NumPy
        picked = f"unknown ({e})"
    if ISA == "avx2":
        what = (f"AVX2 without AVX-512 for every system (NumPy with NPY_DISABLE_CPU_FEATURES=\"{NPY_AVX512}\", Numba "
                "with NUMBA_CPU_NAME=haswell, cujit's loops forced to AVX2 and SLEEF's AVX2 functions)")
    else:
        what = "each system's best for this CPU"
    return f"{what}; NumPy's loops for these programs dispatch to {picked}"


class Cujit:
    def __init__(self, exe, threads):
        env = dict(os.environ, CUJIT_NUM_THREADS=str(threads))
        if ISA == "avx2":
            env["CUJIT_CPU_MATH"] = "avx2"
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        if ISA == "avx2":
            self.cmd("target avx2")

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = self.p.stdout.readline().strip()
        if not out or out.startswith("error"):
            raise RuntimeError(f"bench_cpu: {line!r}: {out or 'no answer'}")
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def cpu_ms():
    u = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process (numexpr's too)
    return (u.ru_utime + u.ru_stime) * 1e3


def timed(f, batch=1):
    """Wall and CPU milliseconds of one call, the mean of `batch` back to back
    (freeing the last result comes after; each earlier one is freed as the
    next is assigned, as in bench_cpu's `runs`)."""
    c0 = cpu_ms()
    t0 = time.perf_counter()
    r = f()
    for _ in range(batch - 1):
        r = f()
    dt = (time.perf_counter() - t0) * 1e3 / batch
    dc = (cpu_ms() - c0) / batch
    del r
    return dt, dc


SMALL = 10**4  # at most this many elements: a call's fixed cost, timed many times
SMALL_REPS_FACTOR = 3
SMALL_BATCH = 20


def reps_at(reps, n):
    if n <= SMALL:
        return reps * SMALL_REPS_FACTOR
    return reps if n < 10**8 else max(3, reps // 2)


def md(text):
    return text.replace("|", "\\|")  # a table cell's pipe


def fmt_ms(v):
    return f"{v:.3g}" if v < 10 else f"{v:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-cpu", default="build/bench/bench_cpu")
    ap.add_argument("--before", help="a bench_cpu built from the previous evaluator: timed on the issue's programs at 1e7")
    ap.add_argument("--sizes", default="1e3,1e5,1e6,1e7,1e8")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3,
                    help="untimed interleaved calls of every system before each program's timed ones")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--isa", choices=["native", "avx2"], default="native",
                    help="avx2: every system without AVX-512 (NumPy's dispatch, Numba's target, cujit's loops and SLEEF)")
    ap.add_argument("--out", help="write the markdown table here")
    ap.add_argument("--plot", help="write a PNG plot here")
    args = ap.parse_args()

    sizes = [int(float(s)) for s in args.sizes.split(",")]
    programs = [p for p in PROGRAMS if not args.only or p[0] in args.only.split(",")]
    ne.set_num_threads(args.threads)
    ne.set_vml_num_threads(args.threads) if ne.use_vml else None
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    nb = numba_ufuncs(programs)
    load_before = os.getloadavg()
    started = datetime.datetime.now(datetime.timezone.utc)
    cj = Cujit(args.bench_cpu, args.threads)
    loops = cj.cmd("info")
    before = Cujit(args.before, args.threads) if args.before else None
    rng = np.random.default_rng(0)
    tmp = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    results = {}  # (program, n) -> {"cujit": [...], "numexpr": [...], "numpy": [...], "before": [...]}
    try:
        for n in sizes:
            data = make_inputs(n, rng)
            # Every system reads the same physical pages: the script's arrays
            # become maps of the files bench_cpu maps too, so no system finds
            # its inputs colder than another's (bench_cpu's own copy was cold
            # after every other system's call, which shared theirs).
            paths = []
            for name in list(data):
                path = os.path.join(tmp, name + ".npy")
                np.save(path, data[name])
                paths.append(path)
                data[name] = np.asarray(np.load(path, mmap_mode="r"))
                cj.cmd(f"map {name} {path}")
                if before and n == 10**7:
                    before.cmd(f"load {name} {path}")
            for pname, prog, names, nexpr, npf in programs:
                local = {k: data[k] for k in names.split(",")}
                # Correctness once per size: cujit's output against NumPy's.
                check = os.path.join(tmp, "check.npy")
                cj.cmd(f"save {check} {names} {prog}")
                got, want = np.load(check), npf(data)
                os.unlink(check)
                if got.dtype != want.dtype or not np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
                    raise RuntimeError(f"{pname} at n={n}: cujit's {got.dtype} output differs from NumPy's {want.dtype}")
                ne.evaluate(nexpr, local_dict=local)  # numexpr compiles its expression on first use
                nbf = nb[pname]
                nb_args = [data[k] for k in names.split(",")]
                got_nb = nbf(*nb_args)
                if not np.allclose(got_nb, want, rtol=1e-5, atol=1e-6, equal_nan=True):
                    raise RuntimeError(f"{pname} at n={n}: Numba's output differs from NumPy's")
                nbytes = sum(data[k].nbytes for k in names.split(",")) + want.nbytes
                reps = reps_at(args.reps, n)
                # Untimed calls first, interleaved as the timed ones: a process's
                # first calls on a new output size page-fault while malloc settles
                # on reusing its freed memory (seen: 8 calls of cujit at 10^6 after
                # switching programs, 4-8x a settled call), which would otherwise
                # fall on whichever system had not yet run that size.
                for _ in range(args.warmup if n < 10**8 else min(args.warmup, 1)):
                    cj.cmd(f"run {names} {prog}")
                    ne.evaluate(nexpr, local_dict=local)
                    npf(data)
                    nbf(*nb_args)
                r = results.setdefault((pname, n), {k: [] for k in ("cujit", "numexpr", "numpy", "numba", "triad", "before",
                                                                      "cujit cpu", "numexpr cpu", "numpy cpu")})
                r["bytes"] = nbytes
                batch = SMALL_BATCH if n <= SMALL else 1

                def run_cujit():
                    wall, cpu = map(float, cj.cmd(f"runs {batch} {names} {prog}").split())
                    r["cujit"].append(wall)
                    r["cujit cpu"].append(cpu)

                def run_numexpr():
                    wall, cpu = timed(lambda: ne.evaluate(nexpr, local_dict=local), batch)
                    r["numexpr"].append(wall)
                    r["numexpr cpu"].append(cpu)

                def run_numpy():
                    wall, cpu = timed(lambda: npf(data), batch)
                    r["numpy"].append(wall)
                    r["numpy cpu"].append(cpu)

                def run_numba():
                    r["numba"].append(timed(lambda: nbf(*nb_args), batch)[0])

                systems = [run_cujit, run_numexpr, run_numpy, run_numba]
                for rep in range(reps):
                    # Each repetition starts with the next system: the one after
                    # the triad finds its inputs evicted from the caches, the one
                    # after a system reading the same inputs finds them there (at
                    # 10^5 elements, 2-3x apart), so every system takes every place.
                    for k in range(len(systems)):
                        systems[(rep + k) % len(systems)]()
                    r["triad"].append(float(cj.cmd(f"triad {n}").split()[0]))
                    if before and n == 10**7 and pname in ISSUE_PROGRAMS:
                        r["before"].append(float(before.cmd(f"run {names} {prog}").split()[0]))
                med = {k: statistics.median(v) for k, v in r.items() if isinstance(v, list) and v}
                print(f"{pname:>10} n={n:>9}: cujit {med['cujit']:9.3f} ms  numexpr {med['numexpr']:9.3f} ms  "
                      f"numpy {med['numpy']:9.3f} ms  numba {med['numba']:9.3f} ms  triad {med['triad']:8.3f} ms  "
                      f"numexpr/cujit {med['numexpr'] / med['cujit']:5.2f}  "
                      f"CPU ms cujit {med['cujit cpu']:8.2f} numexpr {med['numexpr cpu']:8.2f}"
                      + (f"  before {med['before']:9.3f} ms" if "before" in med else ""), flush=True)
            cj.cmd("clear")
            if before:
                before.cmd("clear")
            data = local = nb_args = None  # the maps go with the files
            for path in paths:
                os.unlink(path)
    finally:
        cj.close()
        if before:
            before.close()
        os.rmdir(tmp)
    load_after = os.getloadavg()

    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import numba as _nb  # for its version
    lines = [
        f"# CPU evaluator: cujit vs numexpr vs NumPy vs Numba ({started:%Y-%m-%d %H:%M} UTC)",
        "",
        f"Machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, NumPy {np.__version__}, numexpr {ne.__version__} "
        f"(VML {'on' if ne.use_vml else 'off'}), Numba {_nb.__version__}. Threads: {args.threads} for cujit, numexpr "
        f"and Numba (NumPy: 1). cujit's {loops}.",
        f"Instruction sets: {isa_line()}.",
        f"Load average (1 minute) {load_before[0]:.2f} at the start, {load_after[0]:.2f} at the end. The systems ran "
        f"interleaved, back to back for each repetition, each repetition starting with the next system ({args.reps} repetitions, {max(3, args.reps // 2)} at 1e8, "
        f"{reps_at(args.reps, 1)} at {SMALL:.0e} elements or fewer, each there the mean of {SMALL_BATCH} calls back to back, "
        f"after {args.warmup} untimed ones, {min(args.warmup, 1)} at 1e8), "
        "so load affects all alike; Numba's OpenMP threads ran with "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')} (PASSIVE: they sleep between calls, as cujit's and "
        "numexpr's do, rather than spin through the next system's call). Times are medians in milliseconds of one call, wall clock (cujit: "
        "cujit::evaluate, including check, planning and output allocation; numexpr: numexpr.evaluate; Numba: "
        "the parallel ufunc's call, allocating its output); ratios above 1 mean cujit is faster. "
        "Triad: a STREAM triad on float64 arrays of n elements in the same interleaving (24 bytes an element); "
        "cujit GB/s counts its inputs read and output written, and `of triad` is that over the triad's GB/s "
        "(the goal for memory-bound programs: 0.9). cujit's time is taken inside bench_cpu (C++), the others' in "
        "Python (a call through the interpreter: a fraction of a microsecond more, which matters at 1e3 alone).",
        f"Command: `python3 bench/cpu_peers.py {' '.join(sys.argv[1:])}`",
        "",
        "| program | dtype | n | cujit ms | numexpr ms | NumPy ms | Numba ms | numexpr / cujit | NumPy / cujit | "
        "Numba / cujit | cujit GB/s | triad GB/s | of triad |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    dtypes = {"x": "float32", "a": "int32", "u": "float64", "m": "float32 (2-D x row)"}
    behind = []
    small_over = []  # small calls above 2x NumPy's time (issue 21's goal at 1e3)
    for pname, prog, names, _, _ in programs:
        for n in sizes:
            r = results.get((pname, n))
            if not r:
                continue
            c, e, p, nbt, tr = (statistics.median(r[k]) for k in ("cujit", "numexpr", "numpy", "numba", "triad"))
            gbs, tgbs = r["bytes"] / c / 1e6, 24 * n / tr / 1e6
            if n <= SMALL:
                if c > 2 * p:
                    small_over.append(f"{pname} at {n:.0e} ({c / p:.2f}x NumPy)")
            elif min(e, p, nbt) < c:
                behind.append(f"{pname} at {n:.0e} ({min(e, p, nbt) / c:.2f})")
            lines.append(f"| `{md(prog)}` | {dtypes[names.split(',')[0]]} | {n:.0e} | {fmt_ms(c)} | {fmt_ms(e)} | "
                         f"{fmt_ms(p)} | {fmt_ms(nbt)} | {e / c:.2f} | {p / c:.2f} | {nbt / c:.2f} | {gbs:.1f} | "
                         f"{tgbs:.1f} | {gbs / tgbs:.2f} |")
    if before:
        lines += ["", "Before / after (the per-element evaluator this replaced, same run, float32, n = 1e7):", "",
                  "| program | before ms | after ms | speed-up | numexpr ms |", "|---|---:|---:|---:|---:|"]
        for pname, prog, names, _, _ in programs:
            r = results.get((pname, 10**7))
            if r and r["before"]:
                b, c, e = (statistics.median(r[k]) for k in ("before", "cujit", "numexpr"))
                lines.append(f"| `{md(prog)}` | {fmt_ms(b)} | {fmt_ms(c)} | {b / c:.1f}x | {fmt_ms(e)} |")
    lines += ["", f"Cells above {SMALL:.0e} elements where a peer is faster than cujit (best peer's time / cujit's): " +
              (", ".join(behind) if behind else "none.")]
    if any(n <= SMALL for n in sizes):
        lines += ["", f"Cells of {SMALL:.0e} elements or fewer where cujit's call takes more than 2x NumPy's: " +
                  (", ".join(small_over) if small_over else "none.")]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.plot:
        plot(results, programs, sizes, args.plot, started)


def plot(results, programs, sizes, path, started):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = 4
    rows = (len(programs) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, (pname, prog, _, _, _) in zip(axes.flat, programs):
        for key, style in (("cujit", "o-"), ("numexpr", "s--"), ("numpy", "^:"), ("numba", "d-.")):
            ns = [n for n in sizes if (pname, n) in results]
            ax.loglog(ns, [n / statistics.median(results[(pname, n)][key]) / 1e3 for n in ns], style, label=key)
        ax.set_title(prog, fontsize=9)
        ax.set_xlabel("elements")
        ax.set_ylabel("M elements / s")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(programs):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"cujit CPU evaluator vs numexpr vs NumPy vs Numba, throughput (higher is better), {started:%Y-%m-%d}")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    main()
