#!/usr/bin/env python3
"""Random reductions against NumPy through jitrun --device cpu: the oracle on programs nobody wrote.

    numpy_reductions_diff.py JITRUN [CASES] [SEED]

Each case draws an array (0-3 dimensions, some extents 0 or 1; any dtype; NaNs, infinities, ties and
integer extremes mixed in), a reduction of the language with NumPy's keywords (axis as an int, a
negative int or a tuple, keepdims, ddof, dtype), and a form: the reduction alone, of a map (x*2), or
broadcast back against x (x - mean(x, axis=...)). The result's dtype, shape and values must be
NumPy's (exact for integers, bools, min/max/arg*/any/all; within a few ulps of the dtype for floating
sums); where NumPy raises, jitrun must fail with a usage, program or data error (1, 2 or 3), never
crash. Exit 1 naming each case that differs (with the program and the input's dtype and shape).

Left out, each a documented difference (docs/language.md): NaN-ignoring minima and maxima of complex
values (refused with a hint); complex values reduced into a real dtype= (refused: NumPy drops the
imaginary part with a warning); floats converted to an integer dtype= where NaN or out of range
(platform-defined in NumPy; cujit converts them as its casts do: NaN to 0, out of range saturated);
complex products through infinities (the order of the multiplications decides NaN against infinity); float16 products (cujit accumulates them in
float32, so they overflow to inf, and then to NaN at a 0, later than NumPy's); and means into
an integer dtype of nothing (0/0) or into a 64-bit one (the float64 quotient of a sum near 2^63
converts out of range).
"""
import os
import random
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
except ImportError:
    print("numpy_reductions_diff: NumPy is missing (python3-numpy): skipped")
    sys.exit(77)

# NumPy 2's promotion (NEP 50) is the contract; NumPy 1.24-1.26 (Debian 12, Ubuntu 24.04) have it
# behind an experimental switch, which makes their results those of NumPy 2 for these programs.
if np.lib.NumpyVersion(np.__version__) < "2.0.0":
    np._set_promotion_state("weak")

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
          "float32", "float64", "complex64", "complex128"]
OPS = ["sum", "prod", "min", "max", "mean", "var", "std", "any", "all", "argmin", "argmax", "nansum", "nanprod",
       "nanmean", "nanvar", "nanstd", "nanmin", "nanmax", "nanargmin", "nanargmax"]
EXACT = {"min", "max", "argmin", "argmax", "nanmin", "nanmax", "nanargmin", "nanargmax", "any", "all"}


def values(rng, r, dt, shape, op):
    n = int(np.prod(shape))
    # Products stay small: where one overflows to inf before a 0 joins it, the order decides
    # between 0 and NaN, and cujit's order is not NumPy's.
    prod = op in ("prod", "nanprod")
    if dt == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dt.startswith(("int", "uint")):
        info = np.iinfo(dt)
        lo, hi = (max(info.min, -3), 3) if prod else (max(info.min, -50), min(info.max, 50))
        a = rng.integers(lo, hi + 1, n).astype(dt)
        if n and r.random() < 0.2 and not prod:
            a[rng.integers(0, n, max(n // 3, 1))] = info.max  # sums that wrap
        return a.reshape(shape)
    a = rng.uniform(0.8, 1.25, n) if prod else rng.standard_normal(n) * r.choice([1, 3, 100])
    if dt.startswith("complex"):
        a = a + 1j * rng.standard_normal(n)
    a = a.astype(dt)
    if n and r.random() < 0.3:
        a[rng.integers(0, n, max(1, n // 4))] = np.nan
    if n and r.random() < 0.2:
        a[rng.integers(0, n, max(1, n // 5))] = r.choice([np.inf, -np.inf])
    if r.random() < 0.2:
        a = np.round(a)  # ties
    return a.reshape(shape)


def draw(rng, r):
    nd = r.choice([0, 1, 1, 2, 2, 3])
    shape = tuple(r.choice([0, 1, 2, 3, 5, 7, 16, 33]) for _ in range(nd))
    dt, op = r.choice(DTYPES), r.choice(OPS)
    kw, src = {}, []
    if nd and r.random() < 0.7:
        if r.random() < 0.7 or op.endswith(("argmin", "argmax")):
            ax = r.randrange(-nd, nd)
            src.append("axis=%d" % ax)
        else:
            ax = tuple(sorted(r.sample(range(nd), r.randint(1, nd))))
            src.append("axis=(%s%s)" % (", ".join(map(str, ax)), "," if len(ax) == 1 else ""))
        kw["axis"] = ax
    if r.random() < 0.3:
        kw["keepdims"] = True
        src.append("keepdims=true")
    if op.endswith(("var", "std")) and r.random() < 0.4:
        kw["ddof"] = r.choice([0, 1, 2])
        src.append("ddof=%d" % kw["ddof"])
    if op in ("sum", "prod", "mean", "nansum", "nanprod", "nanmean") and r.random() < 0.3:
        kw["dtype"] = r.choice(["float64", "float32", "int64", "int32", "uint8", "float16"])
        src.append("dtype=" + kw["dtype"])
    return shape, dt, op, kw, src


def left_out(dt, op, kw, shape):
    to = kw.get("dtype", "")
    cplx = dt.startswith("complex")
    return ((cplx and op in ("nanmin", "nanmax", "nanargmin", "nanargmax")) or
            (cplx and to and not to.startswith("complex")) or
            (to.startswith(("int", "uint")) and dt.startswith(("float", "complex"))) or
            (cplx and op in ("prod", "nanprod")) or
            (op in ("prod", "nanprod") and "float16" in (dt, to)) or
            (to.startswith(("int", "uint")) and op in ("mean", "nanmean") and (0 in shape or to.endswith("64"))))


def same(got, want, op, x, kw):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind in "biu" or op in EXACT:
        return np.array_equal(got, want, equal_nan=want.dtype.kind in "fc")
    # The coarsest float involved (float16 sums: NumPy rounds each step, cujit accumulates in
    # float32), relative to the larger of the result and the inputs (x - mean(x) cancels).
    eps = 0.0
    for t in (want.dtype, x.dtype, np.dtype(kw.get("dtype", "float64"))):
        t = np.dtype(t)
        if t.kind in "fc":
            eps = max(eps, float(np.finfo(t.type(0).real.dtype if t.kind == "c" else t).eps))
    if op in ("prod", "nanprod"):
        eps *= max(1, x.size) / 16  # n roundings in either order: an error of up to n ulps
    with np.errstate(all="ignore"):
        mags = np.abs(x.astype(np.complex128)) if x.size else np.zeros(1)
        mag = float(np.max(np.where(np.isfinite(mags), mags, 0), initial=1.0))
    parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else [(got, want)]
    for g, w in parts:
        g, w = g.astype(np.float64), w.astype(np.float64)
        with np.errstate(all="ignore"):
            close = (g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= 64 * eps * np.maximum(np.abs(w), mag))
        if not np.all(close):
            return False
    return True


def main():
    jitrun = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261128
    rng, r = np.random.default_rng(seed), random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="cujit_numpy_diff_")
    xp, rp = os.path.join(tmp, "x.npy"), os.path.join(tmp, "r.npy")
    bad = ran = 0
    for k in range(cases):
        shape, dt, op, kw, src = draw(rng, r)
        x = values(rng, r, dt, shape, op)
        if left_out(dt, op, kw, shape):
            continue
        form = r.choice(["plain", "plain", "map", "broadcast"])
        arg = "x" if form != "map" else ("x & x" if dt == "bool" else "x*2")
        call = "%s(%s%s)" % (op, arg, "".join(", " + s for s in src))
        prog = "r = " + (call if form != "broadcast" else "x - " + call)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                xa = x if form != "map" else (x & x if dt == "bool" else x * 2)
                want = np.asarray(getattr(np, op)(xa, **kw))
                if form == "broadcast":
                    want = np.asarray(x - want)
                raised = None
            except Exception as e:  # NumPy's refusal: jitrun must refuse too
                want, raised = None, "%s: %s" % (type(e).__name__, e)
        if form == "broadcast" and dt == "bool" and raised is None and want.dtype == bool:
            continue  # NumPy refuses bool subtraction itself
        np.save(xp, x)
        if os.path.exists(rp):
            os.remove(rp)
        p = subprocess.run([jitrun, "--device", "cpu", "-i", "x=" + xp, "-o", "r=" + rp, prog],
                           capture_output=True, text=True)
        ran += 1
        tag = "case %d: %s  (x: %s %s)" % (k, prog, dt, list(shape))
        if raised is not None:
            if p.returncode not in (1, 2, 3):
                print("FAIL %s: NumPy raises %s; jitrun exit %d: %s" % (tag, raised, p.returncode, p.stderr[-300:]))
                bad += 1
            continue
        if p.returncode != 0:
            print("FAIL %s: NumPy gives %s %s; jitrun exit %d: %s" % (tag, want.dtype, list(want.shape), p.returncode,
                                                                     p.stderr.strip()[:400]))
            bad += 1
            continue
        got = np.load(rp)
        if not same(got, want, op, x, kw):
            print("FAIL %s: NumPy %s %s %s; jitrun %s %s %s" % (tag, want.dtype, list(want.shape), want.ravel()[:6],
                                                                 got.dtype, list(got.shape), got.ravel()[:6]))
            bad += 1
    print("%d programs against NumPy %s (seed %d), %d differ" % (ran, np.__version__, seed, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
