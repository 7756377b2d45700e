#!/usr/bin/env python3
"""The seed documents' in-place example, x *= 5; x *= x; x += x on 10^9 float64, beside CuPy.

Kernel times on one GPU, each the median of RUNS calls after a warm-up call, timed with CUDA
events around each call (no host wait inside):
  - cujit: `jitrun --device 0 --bench` on the program `x *= 5; x *= x; x += x` (x an input
    updated in place: one kernel reads each element once and writes it once), with jitrun's
    device-to-device copy of the same bytes as the ceiling;
  - CuPy ElementwiseKernel: the same three statements on an output parameter that is the array
    itself (`k(x)`, one kernel);
  - CuPy's in-place ufuncs: `x *= 5; x *= x; x += x` as NumPy code (three kernels).
GB/s = 16 bytes an element (read once + written once) / time, for every row: the three-ufunc
row moves three times the bytes, so its GB/s is what the program gets, not what the GPU does.
Values: after timing, one fresh call of each on the same input must give identical results
(x is reset before it).

  python3 bench/inplace_seed.py JITRUN [OUT_DIR] [--n N] [--runs R]
  python3 bench/inplace_seed.py --self-test     # the parsing and the table, no GPU needed

Writes OUT_DIR/inplace_seed.md (default bench/results) and prints it.
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile

SEED = "x *= 5; x *= x; x += x"
CUPY_OP = "x *= 5; x *= x; x += x"


def parse_jitrun_bench(text):
    """jitrun --bench's lines -> {kernel_ms, kernel_min, kernel_max, copy_ms, device}."""
    r = {}
    m = re.search(r"bench: \d+ runs on device (\d+) \((.*)\); ([\d.]+) MB read\+written", text)
    if m:
        r["device"] = m.group(2)
        r["mb"] = float(m.group(3))
    m = re.search(r"bench: kernel median ([\d.]+) ms \(min ([\d.]+), max ([\d.]+)\)", text)
    if not m:
        raise RuntimeError("no 'bench: kernel median' line in jitrun's output:\n" + text)
    r["kernel_ms"], r["kernel_min"], r["kernel_max"] = (float(g) for g in m.groups())
    m = re.search(r"bench: device-to-device copy of the same bytes: median ([\d.]+) ms", text)
    r["copy_ms"] = float(m.group(1)) if m else None
    m = re.search(r"layout (\S+);", text)
    r["layout"] = m.group(1) if m else "?"
    return r


def gbs(n, ms):
    return 16.0 * n / (ms * 1e-3) / 1e9 if ms else 0.0


def table(n, runs, rows, device, copy_ms, notes):
    """rows: [(name, median_ms or None, min_ms, max_ms, kernels, note)]"""
    date = datetime.date.today().isoformat()
    out = ["# In place: `x *= 5; x *= x; x += x` on %s float64 (%s)" % (f"{n:,}".replace(",", " "), date), "",
           "Device: %s. Median of %d calls after a warm-up, CUDA events around each call. GB/s = 16 bytes an "
           "element (x read once and written once) / time." % (device, runs), "",
           "| implementation | kernels | median ms | min ms | max ms | GB/s | vs cujit | vs copy |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    base = rows[0][1] if rows and rows[0][1] else None
    for name, med, lo, hi, kernels, note in rows:
        if med is None:
            out.append("| %s | %s | n/a | | | | | %s |" % (name, kernels, note))
            continue
        vs = "%.2f" % (base / med) if base else ""
        vc = "%.3f" % (copy_ms / med) if copy_ms else ""
        out.append("| %s | %s | %.3f | %.3f | %.3f | %.0f | %s | %s |" % (name, kernels, med, lo, hi, gbs(n, med), vs, vc))
    if copy_ms:
        out.append("| device-to-device copy of the same bytes (jitrun's) | 1 | %.3f | | | %.0f | | 1.000 |"
                   % (copy_ms, gbs(n, copy_ms)))
    out.append("")
    out.append("\"vs cujit\": cujit's time / this row's (above 1: faster than cujit). \"vs copy\": the copy's "
               "time / this row's.")
    out.extend(notes)
    return "\n".join(out) + "\n"


def run_cujit(jitrun, n, runs):
    # The input's values do not change the kernel's time; `full` fills 8 GB on
    # the host much faster than a random generator.
    cmd = [jitrun, "--device", "0", "-v", "--bench", "--bench-runs", str(runs), "-i",
           "x=full(%d,0.001):float64" % n, SEED]
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = p.stdout + p.stderr
    if p.returncode != 0:
        raise RuntimeError("jitrun failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), text))
    return parse_jitrun_bench(text), text


def time_cupy(cp, fn, runs):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    fn()  # warm-up (compiles)
    cp.cuda.Device().synchronize()
    ms = []
    for _ in range(runs):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        ms.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(ms), min(ms), max(ms)


def run_cupy(n, runs, check_jitrun):
    try:
        import cupy as cp
    except ImportError as e:
        return None, "CuPy is not installed (%s)" % e, None
    x = cp.full(n, 0.001, dtype=cp.float64)
    # x as CuPy's output parameter (a reference the operation may read and
    # update); where a CuPy version refuses a kernel without inputs, the array
    # is passed as an input and as the output (CuPy's other in-place idiom).
    form = "`k(x)`, x an output"
    k = cp.ElementwiseKernel("", "float64 x", CUPY_OP, "cj_seed_inplace")
    try:
        k(x)
        cp.cuda.Device().synchronize()
    except Exception as e:  # noqa: BLE001 (any CuPy refusal)
        print("CuPy refused the output-only kernel (%s); passing x as input and output" % e, file=sys.stderr)
        k2 = cp.ElementwiseKernel("float64 a", "float64 x", "x = a * 5; x *= x; x += x", "cj_seed_inplace2")
        k = lambda v: k2(v, v)  # noqa: E731
        form = "`k(x, x)`, x an input and the output"

    def elementwise():
        k(x)

    def ufuncs():
        x.__imul__(5)
        x.__imul__(x)
        x.__iadd__(x)

    res = {"elementwise": time_cupy(cp, elementwise, runs), "ufuncs": time_cupy(cp, ufuncs, runs)}
    # Values: both CuPy forms and cujit (jitrun on the same small input) from one fresh start.
    m = 1 << 20
    base = cp.random.default_rng(1).random(m, dtype=cp.float64) * 2 - 1
    a, b = base.copy(), base.copy()
    k(a)
    b *= 5
    b *= b
    b += b
    same = bool(cp.array_equal(a, b))
    cj = check_jitrun(cp.asnumpy(base))
    same_cujit = cj is not None and bool((cp.asnumpy(a).view("int64") == cj.view("int64")).all())
    del x
    cp.get_default_memory_pool().free_all_blocks()
    return res, None, (same, same_cujit, form)


def make_check_jitrun(jitrun, tmp):
    def check(values):
        import numpy as np
        src, dst = os.path.join(tmp, "seed_in.npy"), os.path.join(tmp, "seed_out.npy")
        np.save(src, values)
        p = subprocess.run([jitrun, "--device", "0", "-i", "x=" + src, "-o", "x=" + dst, SEED], capture_output=True, text=True)
        if p.returncode != 0:
            print("jitrun value check failed:", p.stdout + p.stderr, file=sys.stderr)
            return None
        return np.load(dst)
    return check


def self_test():
    sample = """jitrun: device 0 (NVIDIA H100 80GB HBM3, sm_90); layout c.i64.v2|o:c|i:c; grid 1024 x block 256 for 1000000000 elements
bench: 20 runs on device 0 (NVIDIA H100 80GB HBM3); 16000.0 MB read+written
bench: kernel median 5.2900 ms (min 5.2800, max 5.3100)  3024.6 GB/s
bench: device-to-device copy of the same bytes: median 5.3000 ms  3018.9 GB/s
bench: kernel / copy bandwidth: 1.00
"""
    r = parse_jitrun_bench(sample)
    assert r["kernel_ms"] == 5.29 and r["kernel_min"] == 5.28 and r["kernel_max"] == 5.31, r
    assert r["copy_ms"] == 5.3 and r["device"] == "NVIDIA H100 80GB HBM3" and r["layout"] == "c.i64.v2|o:c|i:c", r
    try:
        parse_jitrun_bench("nothing")
        raise AssertionError("no error for output without a bench line")
    except RuntimeError:
        pass
    t = table(10**9, 20, [("cujit (jitrun)", 5.29, 5.28, 5.31, 1, ""), ("CuPy ElementwiseKernel", 5.6, 5.5, 5.7, 1, ""),
                          ("CuPy in-place ufuncs", None, None, None, 3, "not installed")], r["device"], r["copy_ms"], ["note"])
    assert "| cujit (jitrun) | 1 | 5.290 | 5.280 | 5.310 | 3025 | 1.00 | 1.002 |" in t, t
    assert "| CuPy ElementwiseKernel | 1 | 5.600 |" in t and "| 0.94 |" in t, t
    assert "| CuPy in-place ufuncs | 3 | n/a |" in t, t
    print(t)
    print("self-test passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("jitrun", nargs="?")
    ap.add_argument("out_dir", nargs="?", default="bench/results")
    ap.add_argument("--n", type=int, default=10**9)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.jitrun:
        ap.error("give the jitrun binary (e.g. build/tools/jitrun)")
    os.makedirs(a.out_dir, exist_ok=True)
    cj, text = run_cujit(a.jitrun, a.n, a.runs)
    print(text)
    layout = cj["layout"].replace("|", "\\|")  # a table cell
    rows = [("cujit (jitrun --bench, layout `%s`)" % layout, cj["kernel_ms"], cj["kernel_min"], cj["kernel_max"], 1, "")]
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        cupy, why, check = run_cupy(a.n, a.runs, make_check_jitrun(a.jitrun, tmp))
    if cupy is None:
        rows += [("CuPy ElementwiseKernel", None, None, None, 1, why),
                 ("CuPy in-place ufuncs", None, None, None, 3, why)]
    else:
        same, same_cujit, form = check
        rows += [("CuPy ElementwiseKernel (%s)" % form,) + cupy["elementwise"] + (1, ""),
                 ("CuPy in-place ufuncs (`x *= 5; x *= x; x += x`)",) + cupy["ufuncs"] + (3, "")]
        notes.append("")
        notes.append("Values on 2^20 random inputs: CuPy ElementwiseKernel %s CuPy's ufuncs; cujit %s CuPy."
                     % ("equals" if same else "DIFFERS FROM", "equals" if same_cujit else "DIFFERS FROM"))
        try:
            import cupy as cp
            notes.append("CuPy %s." % cp.__version__)
        except ImportError:
            pass
    md = table(a.n, a.runs, rows, cj.get("device", "?"), cj["copy_ms"], notes)
    path = os.path.join(a.out_dir, "inplace_seed.md")
    with open(path, "w") as f:
        f.write(md)
    print(md)
    print("wrote", path)


if __name__ == "__main__":
    sys.exit(main())
