#!/usr/bin/env python3
"""Issue 22's three first-day programs against NumPy on the CPU, as a markdown table.

    python3 bench/first_day/first_day.py BINDIR [REPS] [WORKDIR] > bench/results/first_day_cpu.md

BINDIR holds first_day_gamma, first_day_black_scholes and first_day_physics (bench/first_day/).
The same inputs (fixed seed) go to both through .npy files in WORKDIR (a temporary folder by
default). Per job and repetition the cujit program runs as its own process and the NumPy version
in this one, alternating which goes first; both time loading, computing and saving the same way
(inside the process, so neither counts process start-up; the cujit process's wall time is a
column of its own). NumPy is the oracle: each job's results are compared with NumPy's on the
first repetition, with the tolerance printed beside it, and a mismatch exits 1.
CUJIT_FIRST_DAY_SMALL=1 runs the same jobs on small inputs (CTest's first_day_numpy); without NumPy
the script exits 77 (skipped).
"""
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    print("skipped: NumPy (python3-numpy) is not installed")
    sys.exit(77)

SMALL = os.environ.get("CUJIT_FIRST_DAY_SMALL") == "1"
IMAGE = (64, 48) if SMALL else (4096, 4096)
OPTIONS = 10_007 if SMALL else 10_000_000
PARTICLES = 10_007 if SMALL else 4 << 20
STEPS, DT = 100, 0.01
GAMMA, A, B = 0.7, 1.2, -10.0
RATE, VOL = 0.02, 0.3


def numpy_gamma(d):
    img = np.load(f"{d}/img.npy")
    t1 = time.perf_counter()
    out = np.clip(255 * (img.astype(np.float32) / 255) ** GAMMA * A + B, 0, 255).astype(np.uint8)
    t2 = time.perf_counter()
    np.save(f"{d}/np_out.npy", out)
    return t1, t2


def cnd(d):
    k = 1 / (1 + 0.2316419 * np.abs(d))
    p = 0.3989422804014327 * np.exp(-0.5 * d * d) * (
        k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    return np.where(d > 0, 1 - p, p)


def numpy_black_scholes(d):
    s, x, t = (np.load(f"{d}/{n}.npy") for n in "sxt")
    t1 = time.perf_counter()
    sq = np.sqrt(t)
    d1 = (np.log(s / x) + (RATE + 0.5 * VOL * VOL) * t) / (VOL * sq)
    d2 = d1 - VOL * sq
    c1, c2 = cnd(d1), cnd(d2)
    disc = x * np.exp(-RATE * t)
    call = s * c1 - disc * c2
    put = disc * (1 - c2) - s * (1 - c1)
    t2 = time.perf_counter()
    np.save(f"{d}/np_call.npy", call)
    np.save(f"{d}/np_put.npy", put)
    return t1, t2


def numpy_physics(d):
    x, v, a = (np.load(f"{d}/{n}.npy") for n in "xva")
    t1 = time.perf_counter()
    for _ in range(STEPS):
        v += DT * a
        x += DT * v
    t2 = time.perf_counter()
    np.save(f"{d}/np_x_end.npy", x)
    np.save(f"{d}/np_v_end.npy", v)
    return t1, t2


def numpy_physics_out(d):
    """The same loop as a NumPy user tuning it writes: one scratch array, no temporary per step."""
    x, v, a = (np.load(f"{d}/{n}.npy") for n in "xva")
    t1 = time.perf_counter()
    tmp = np.empty_like(x)
    for _ in range(STEPS):
        np.multiply(a, DT, out=tmp)
        v += tmp
        np.multiply(v, DT, out=tmp)
        x += tmp
    t2 = time.perf_counter()
    np.save(f"{d}/np_x_end.npy", x)
    np.save(f"{d}/np_v_end.npy", v)
    return t1, t2


def make_inputs(work, rng):
    dirs = {}
    d = dirs["gamma"] = f"{work}/gamma"
    os.makedirs(d)
    np.save(f"{d}/img.npy", rng.integers(0, 256, IMAGE, dtype=np.uint8))
    for dt in ("float32", "float64"):
        d = dirs["bs_" + dt] = f"{work}/bs_{dt}"
        os.makedirs(d)
        np.save(f"{d}/s.npy", rng.uniform(5, 30, OPTIONS).astype(dt))
        np.save(f"{d}/x.npy", rng.uniform(1, 100, OPTIONS).astype(dt))
        np.save(f"{d}/t.npy", rng.uniform(0.25, 10, OPTIONS).astype(dt))
    d = dirs["physics"] = f"{work}/physics"
    os.makedirs(d)
    np.save(f"{d}/x.npy", rng.uniform(-1, 1, PARTICLES))
    np.save(f"{d}/v.npy", rng.normal(0, 0.1, PARTICLES))
    np.save(f"{d}/a.npy", rng.normal(0, 1, PARTICLES) - 9.81)
    return dirs


def check(job, d):
    """(what was compared and how, passed)."""
    if job == "gamma":
        got, want = np.load(f"{d}/out.npy"), np.load(f"{d}/np_out.npy")
        diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
        return (f"uint8 {got.dtype == want.dtype}; max |diff| {diff.max()} grey level(s), "
                f"{np.count_nonzero(diff)} of {diff.size} pixels differ (tolerance: 1 level, float32 pow's last bit)",
                got.dtype == want.dtype and diff.max() <= 1)
    if job.startswith("bs_"):
        tol = 1e-4 if job.endswith("32") else 1e-10
        worst, ok = 0.0, True
        for n in ("call", "put"):
            got, want = np.load(f"{d}/{n}.npy"), np.load(f"{d}/np_{n}.npy")
            ok = ok and got.dtype == want.dtype and np.allclose(got, want, rtol=tol, atol=tol)
            worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))))
        return f"{got.dtype}; max |diff| {worst:.2e} (tolerance: rtol = atol = {tol:g})", ok
    worst, ok = 0.0, True
    for n in ("x_end", "v_end"):
        got, want = np.load(f"{d}/{n}.npy"), np.load(f"{d}/np_{n}.npy")
        ok = ok and got.dtype == want.dtype and np.allclose(got, want, rtol=1e-12, atol=1e-12)
        worst = max(worst, float(np.max(np.abs(got - want))))
    return f"{got.dtype}; max |diff| {worst:.2e} (tolerance: rtol = atol = 1e-12)", ok


def main():
    bindir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if len(sys.argv) > 3:
        return run(bindir, reps, sys.argv[3])
    with tempfile.TemporaryDirectory(prefix="cujit_first_day_") as work:
        return run(bindir, reps, work)


def run(bindir, reps, work):
    dirs = make_inputs(work, np.random.default_rng(22))
    jobs = {
        "gamma": ([f"{bindir}/first_day_gamma", f"{dirs['gamma']}/img.npy", f"{dirs['gamma']}/out.npy",
                   str(GAMMA), str(A), str(B)], numpy_gamma),
        "bs_float32": ([f"{bindir}/first_day_black_scholes", dirs["bs_float32"], str(RATE), str(VOL)],
                       numpy_black_scholes),
        "bs_float64": ([f"{bindir}/first_day_black_scholes", dirs["bs_float64"], str(RATE), str(VOL)],
                       numpy_black_scholes),
        "physics": ([f"{bindir}/first_day_physics", dirs["physics"], str(STEPS), str(DT)], numpy_physics),
        "physics_out": ([f"{bindir}/first_day_physics", dirs["physics"], str(STEPS), str(DT)], numpy_physics_out),
    }
    dirs["physics_out"] = dirs["physics"]
    loads = [os.getloadavg()[0]]
    rows, checks, failed = [], [], False
    for job, (cmd, numpy_job) in jobs.items():
        t = {k: [] for k in ("cj_c", "cj_e", "cj_wall", "cj1_c", "np_c", "np_e")}
        for r in range(reps):
            order = ["cj", "np", "cj1"]
            for who in order[r % 3:] + order[:r % 3]:
                if who == "cj1":
                    # The same program on one thread, as NumPy's loops run.
                    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                                         env=dict(os.environ, CUJIT_NUM_THREADS="1")).stdout.split()
                    t["cj1_c"].append(float(out[3]))
                elif who == "cj":
                    w0 = time.perf_counter()
                    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
                    t["cj_wall"].append((time.perf_counter() - w0) * 1e3)
                    load, compute, save = (float(out[i]) for i in (1, 3, 5))
                    t["cj_c"].append(compute)
                    t["cj_e"].append(load + compute + save)
                else:
                    t0 = time.perf_counter()
                    t1, t2 = numpy_job(dirs[job])
                    t3 = time.perf_counter()
                    t["np_c"].append((t2 - t1) * 1e3)
                    t["np_e"].append((t3 - t0) * 1e3)
            if r == 0:
                what, ok = check(job, dirs[job])
                checks.append((job, what, ok))
                failed = failed or not ok
        loads.append(os.getloadavg()[0])
        m = {k: statistics.median(v) for k, v in t.items()}
        rows.append((job, m))
    cpu = platform.machine()
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"# Issue 22's first-day programs against NumPy ({cpu}, {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})\n")
    print(f"`python3 bench/first_day/first_day.py {' '.join(sys.argv[1:])}`; NumPy {np.__version__}, Python "
          f"{platform.python_version()}; medians of {reps} runs, cujit and NumPy interleaved. "
          f"1-minute load average {', '.join(f'{l:.2f}' for l in loads)} (before, then after each job).\n")
    print(f"Jobs: `gamma` {IMAGE[0]}x{IMAGE[1]} uint8 (gamma {GAMMA}, a {A}, b {B}); `bs_*` Black-Scholes call and put "
          f"on {OPTIONS} options; `physics` {PARTICLES} float64 particles, {STEPS} steps of `v += dt*a; x += dt*v` "
          "(NumPy as written, a temporary per operation); `physics_out` the same cujit program against NumPy's "
          "tuned form (`np.multiply(a, dt, out=tmp); v += tmp; np.multiply(v, dt, out=tmp); x += tmp`).\n")
    print(f"cujit runs on all {os.cpu_count()} cores (its thread pool), NumPy on one (its own loops); the "
          "`1 thread` columns are the cujit program with `CUJIT_NUM_THREADS=1`.\n")
    print("| job | cujit compute (ms) | NumPy compute (ms) | NumPy / cujit | cujit 1 thread compute (ms) "
          "| NumPy / cujit 1 thread | cujit load+compute+save (ms) | NumPy load+compute+save (ms) | NumPy / cujit "
          "| cujit process wall (ms) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for job, m in rows:
        print(f"| `{job}` | {m['cj_c']:.1f} | {m['np_c']:.1f} | {m['np_c'] / m['cj_c']:.2f} | {m['cj1_c']:.1f} "
              f"| {m['np_c'] / m['cj1_c']:.2f} | {m['cj_e']:.1f} | {m['np_e']:.1f} | {m['np_e'] / m['cj_e']:.2f} "
              f"| {m['cj_wall']:.1f} |")
    print("\nResults against NumPy (the oracle), first repetition:\n")
    for job, what, ok in checks:
        print(f"- `{job}`: {'match' if ok else 'MISMATCH'}: {what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
