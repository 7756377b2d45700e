#!/usr/bin/env python3
"""Writes tests/data/reduction_cases.txt: the reductions of the language, evaluated by NumPy 2.

Every reduction x dtype x (shape, axis, keepdims) pattern, including 0-size arrays, length-1 axes and
3-D arrays, with ties, NaNs and wrapping, in the format of eval_cases.txt (tests/unit/reference.hpp
loads both). The C++ test (tests/unit/test_reductions.cpp) runs every case on C-contiguous inputs and
again on transposed and strided views of the same values, and loads each case's `error` line as the
expected first line of any cujit::Error (a program error or NumPy's data error).

Run: python3 tests/data/gen_reductions.py   (numpy 2 and ml_dtypes; the output is deterministic).
"""
import os
import sys

import numpy as np
import ml_dtypes

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261124
BF16 = np.dtype(ml_dtypes.bfloat16)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
PLAIN = ["sum", "prod", "min", "max", "mean", "var", "std", "any", "all", "argmin", "argmax"]
NAN = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax", "nanargmin", "nanargmax"]

# (shape, axis as the program writes it or None, keepdims)
PATTERNS = [
    ((), None, False),
    ((7,), None, False),
    ((7,), 0, True),
    ((1,), None, False),
    ((0,), None, False),
    ((3, 4), None, False),
    ((3, 4), 0, False),
    ((3, 4), -1, False),
    ((3, 4), 1, True),
    ((1, 5), 0, False),
    ((0, 3), 1, False),
    ((3, 0), 1, False),
    ((0, 3), None, True),
    ((2, 3, 4), None, False),
    ((2, 3, 4), 1, False),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (2, 0), True),
    ((2, 3, 4), (-1, -2), False),
    ((4, 1, 3), 1, True),
    ((130, 3), 0, False),  # more than one leaf of 128 per result
]

# The pattern with more than one leaf per result, for the dtypes whose accumulation differs.
LONG_DTYPES = {"bool", "int8", "uint64", "float16", "bfloat16", "float32", "float64", "complex64"}
FLOATS = {"float16", "bfloat16", "float32", "float64", "complex64", "complex128"}
# ulps for floating results of sums, means, variances and products: the order of accumulation
# differs from NumPy's; the data below is well conditioned (|x| in [0.5, 2), few signs).
ARITH_TOL = {"float16": 1, "bfloat16": 1, "float32": 32, "float64": 32, "complex64": 32, "complex128": 32}


def npdt(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def dtname(dt):
    return "bfloat16" if dt == BF16 else np.dtype(dt).name


def values(rng, dt, shape, op):
    n = int(np.prod(shape)) if shape else 1
    if dt == "bool":
        a = rng.integers(0, 2, n).astype(bool)
        if op in ("all",):
            a = rng.random(n) < 0.9
    elif dt.startswith("int") or dt.startswith("uint"):
        info = np.iinfo(npdt(dt))
        if op in ("prod", "nanprod"):
            lo, hi = (0, 4) if dt.startswith("u") else (-3, 4)
            a = rng.integers(lo, hi, n)
        elif op in ("argmin", "argmax", "nanargmin", "nanargmax", "min", "max", "nanmin", "nanmax"):
            a = rng.integers(max(info.min, -3), min(info.max, 3) + 1, n)  # ties
        else:
            a = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64 if info.max < 2**63 else np.uint64)
        a = np.asarray(a).astype(npdt(dt))
    elif dt.startswith("complex"):
        re = rng.uniform(0.5, 2.0, n) * rng.choice([1, 1, 1, -1], n)
        im = rng.uniform(0.5, 2.0, n) * rng.choice([1, -1], n)
        if op in ("argmin", "argmax", "min", "max"):
            re = np.round(re)  # ties in the real part: the imaginary part decides
        a = (re + 1j * im).astype(npdt(dt))
    else:
        if op in ("prod", "nanprod"):
            a = rng.uniform(0.8, 1.25, n)
        elif op in ("argmin", "argmax", "nanargmin", "nanargmax", "min", "max", "nanmin", "nanmax"):
            a = np.round(rng.uniform(-4, 4, n) * 2) / 2  # ties
        else:
            a = rng.uniform(0.5, 2.0, n) * rng.choice([1, 1, 1, -1], n)
        a = a.astype(npdt(dt))
    return a.reshape(shape)


def with_nans(rng, a, op):
    """NaNs in about a quarter of the elements, and one row of NaNs alone where there are rows."""
    a = a.copy()
    flat = a.reshape(-1)
    if flat.size:
        mask = rng.random(flat.size) < 0.25
        flat[mask] = np.nan
    if a.ndim == 2 and a.shape[0] > 1 and not op.endswith("argmin") and not op.endswith("argmax"):
        a[0, :] = np.nan
    return a


def reduce_np(op, a, axis, keepdims, dtype_arg=None, ddof=None):
    # Of values that cannot be NaN NumPy's nanvar and nanstd are var and std (no NaN where
    # n - ddof <= 0), also once the values below are widened to long double.
    f = getattr(np, op[3:] if op in ("nanvar", "nanstd") and a.dtype.kind in "biu" else op)
    kw = {"axis": axis}
    if op not in ("argmin", "argmax", "nanargmin", "nanargmax") or keepdims:
        kw["keepdims"] = keepdims
    if dtype_arg is not None:
        kw["dtype"] = npdt(dtype_arg)
    if ddof is not None:
        kw["ddof"] = ddof
    base = op[3:] if op.startswith("nan") else op
    want = result_dtype(op, dtname(a.dtype), dtype_arg)
    if base in ("sum", "prod", "mean", "var", "std") and want.kind in "fc":
        # Floating sums, products, means and variances: the exact result (in long double, of the
        # elements converted to dtype= first, as NumPy converts them) rounded once; cujit's result
        # is within the case's tol of it. NumPy's own result is as close only where it sums
        # pairwise (not along a strided axis, not for float16 variances, which round every step).
        work = a.astype(npdt(dtype_arg)) if dtype_arg else a
        if work.dtype == BF16:
            work = work.astype(np.float32)
        hi = work.astype(np.clongdouble if work.dtype.kind == "c" else np.longdouble)
        kw.pop("dtype", None)
        return np.asarray(f(hi, **kw)).astype(want)
    if a.dtype == BF16:
        r = np.asarray(f(a.astype(np.float32), **kw))
        return r.astype(BF16) if r.dtype == np.float32 else r
    return np.asarray(f(a, **kw))


def result_dtype(op, dt, dtype_arg=None):
    base = op[3:] if op.startswith("nan") else op
    d = npdt(dt)
    if base in ("sum", "prod"):
        if dtype_arg:
            return npdt(dtype_arg)
        if d == np.bool_ or (d.kind == "i" and d.itemsize < 8):
            return np.dtype("int64")
        if d.kind == "u" and d.itemsize < 8:
            return np.dtype("uint64")
        return d
    if base == "mean":
        if dtype_arg:
            return npdt(dtype_arg)
        return np.dtype("float64") if d.kind in "biu" else d
    if base in ("var", "std"):
        if d.kind in "biu":
            return np.dtype("float64")
        if d.kind == "c":
            return np.dtype("float32") if d == np.complex64 else np.dtype("float64")
        return d
    if base in ("any", "all"):
        return np.dtype("bool")
    if base in ("argmin", "argmax"):
        return np.dtype("int64")
    return d


def axis_text(axis):
    if axis is None:
        return ""
    if isinstance(axis, tuple):
        return ", axis=(" + ", ".join(str(a) for a in axis) + ")"
    return ", axis=%d" % axis


def tol_for(op, dt_out):
    base = op[3:] if op.startswith("nan") else op
    name = dtname(dt_out)
    if base in ("sum", "prod", "mean", "var", "std") and name in ARITH_TOL:
        return ARITH_TOL[name]
    return 0


def hexvals(a):
    a = np.ascontiguousarray(a)
    b = a.tobytes()
    s = a.dtype.itemsize
    return [b[k * s:(k + 1) * s].hex() for k in range(a.size)]


def shape_str(a):
    return "()" if a.ndim == 0 else "x".join(str(d) for d in a.shape)


def valid(op, dt):
    if dt.startswith("complex") and op in ("nanmin", "nanmax", "nanargmin", "nanargmax"):
        return False  # the language refuses them (a check error case covers it)
    return True


class Writer:
    def __init__(self):
        self.lines = []
        self.ids = set()
        self.count = 0

    def case(self, cid, program, inputs, outputs=None, error=None):
        assert cid not in self.ids, cid
        self.ids.add(cid)
        L = self.lines
        L.append("case " + cid)
        L.append("program " + program)
        for name, a in inputs:
            L.append("input %s %s %s %s" % (name, dtname(a.dtype), shape_str(a), " ".join(hexvals(a))))
        if error is not None:
            L.append("error " + error)
        for name, a, tol in outputs or []:
            L.append("output %s %s %s tol=%d %s" % (name, dtname(a.dtype), shape_str(a), tol, " ".join(hexvals(a))))
        L.append("end")
        self.count += 1


def one(w, rng, op, dt, pi, shape, axis, keepdims, nan=False, extra=""):
    a = values(rng, dt, shape, op)
    if nan:
        a = with_nans(rng, a, op)
    kd = ", keepdims=true" if keepdims else ""
    prog = "out = %s(x%s%s%s)" % (op, axis_text(axis), kd, extra)
    cid = "%s.%s.p%d%s" % (op, dt, pi, ".nan" if nan else "")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ddof = int(extra.split("ddof=")[1].split(",")[0].rstrip(")")) if "ddof=" in extra else None
            dtype_arg = extra.split("dtype=")[1].rstrip(")") if "dtype=" in extra else None
            r = reduce_np(op, a, axis, keepdims, dtype_arg, ddof)
        except ValueError as e:
            if op.endswith("argmin") or op.endswith("argmax"):
                assert "empty sequence" in str(e) or "All-NaN" in str(e), e
            w.case(cid, prog, [("x", a)], error=str(e).split("\n")[0])
            return
    r = np.asarray(r)
    want = result_dtype(op, dt, dtype_arg)
    assert r.dtype == want, (cid, r.dtype, want)
    tol = tol_for(op, r.dtype)
    base = op[3:] if op.startswith("nan") else op
    if tol and base in ("sum", "mean") and r.size:
        # Under cancellation the error is relative to sum(|x|), not to the result: scale the ulps
        # by the condition number sum(|x|) / |sum(x)| of the worst result.
        mag = np.abs(a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64))
        mag = np.where(np.isnan(mag), 0, mag)
        absum = np.sum(mag, axis=axis, keepdims=keepdims)
        if base == "mean":
            absum = absum / max(1, a.size // max(1, r.size))
        rc = r.astype(np.complex128)
        res = np.maximum(np.nan_to_num(np.abs(rc.real), nan=0.0), np.nan_to_num(np.abs(rc.imag), nan=0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            cond = np.where(res > 0, absum / np.where(res > 0, res, 1), 1.0)
        cond = np.nan_to_num(cond, nan=1.0, posinf=1.0)
        tol = int(min(1 << 20, np.ceil(tol * max(1.0, float(np.max(cond))))))
    w.case(cid + extra.replace(", ", ".").replace("=", ""), prog, [("x", a)], [("out", r, tol)])


def main():
    rng = np.random.default_rng(SEED)
    w = Writer()
    for op in PLAIN + NAN:
        for dt in DTYPES:
            if not valid(op, dt):
                continue
            for pi, (shape, axis, keepdims) in enumerate(PATTERNS):
                if op in ("argmin", "argmax", "nanargmin", "nanargmax") and isinstance(axis, tuple):
                    continue
                if shape == (130, 3) and dt not in LONG_DTYPES:
                    continue
                one(w, rng, op, dt, pi, shape, axis, keepdims)
                if dt in FLOATS and shape in ((7,), (3, 4), (2, 3, 4)):
                    one(w, rng, op, dt, pi, shape, axis, keepdims, nan=True)
    # Keywords: ddof and dtype.
    for op in ("var", "std", "nanvar", "nanstd"):
        for dt in ("int32", "float32", "float64", "complex128"):
            for pi in (1, 6, 14):
                shape, axis, keepdims = PATTERNS[pi]
                one(w, rng, op, dt, pi, shape, axis, keepdims, extra=", ddof=1")
    for op in ("sum", "prod", "mean", "nansum", "nanmean"):
        for dt, to in (("int8", "int8"), ("int32", "float64"), ("uint8", "int16"), ("float32", "float64"),
                       ("float64", "float32"), ("bool", "bool"), ("int16", "float16")):
            if op in ("mean", "nanmean") and to in ("int8", "int16", "bool"):
                continue  # integer means: their own stream below
            for pi in (1, 7):
                shape, axis, keepdims = PATTERNS[pi]
                one(w, rng, op, dt, pi, shape, axis, keepdims, extra=", dtype=%s" % to)
    # Reductions anywhere in a program.
    x = rng.uniform(0.5, 2.0, (3, 5)).astype(np.float64)
    y = rng.uniform(0.5, 2.0, (3, 5)).astype(np.float64)
    progs = [
        ("fused.dot", "s = sum(x*y)", lambda: [("s", np.sum(x * y))]),
        ("fused.normalise", "out = x / sum(x)", lambda: [("out", x / np.sum(x))]),
        ("fused.rows", "z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)",
         lambda: [("z", (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True))]),
        ("fused.nested", "out = sum(x - mean(x))", lambda: [("out", np.sum(x - np.mean(x)))]),
        ("fused.shapes", "s = sum(x, axis=0); m = max(y); d = x - y", lambda: [("s", x.sum(axis=0)), ("m", np.max(y)), ("d", x - y)]),
        ("fused.local", "t = x*y; s = sum(t); out = t / s", lambda: [("out", (x * y) / np.sum(x * y))]),
        ("fused.softmax", "ex = exp(x - max(x, axis=1, keepdims=true)); out = ex / sum(ex, axis=1, keepdims=true)",
         lambda: [("out", np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True))]),
        ("fused.norm", "out = sqrt(sum(x*x, axis=-1))", lambda: [("out", np.sqrt(np.sum(x * x, axis=-1)))]),
        ("fused.count", "out = sum(x > 1)", lambda: [("out", np.sum(x > 1))]),
        ("fused.argmax_of_map", "out = argmax(x*y, axis=0)", lambda: [("out", np.argmax(x * y, axis=0))]),
    ]
    for cid, prog, res in progs:
        outs = []
        for name, r in res():
            r = np.asarray(r)
            outs.append((name, r, 0 if r.dtype.kind in "biu" else 32))
        w.case(cid, prog, [("x", x), ("y", y)] if "y" in prog else [("x", x)], outs)
    # Floats of both signs summed into signed integers: each element truncated toward zero first
    # (-1.5 adds -1), as NumPy converts them. A stream of its own, so the cases above keep their data.
    rng2 = np.random.default_rng(SEED + 1)
    for op in ("sum", "prod", "nansum", "nanprod"):
        for dt, to in (("float32", "int64"), ("float64", "int32"), ("float16", "int64")):
            for pi in (1, 7, 19):
                shape, axis, keepdims = PATTERNS[pi]
                one(w, rng2, op, dt, pi, shape, axis, keepdims, extra=", dtype=%s" % to)
    # Means into an integer dtype=: the elements converted to it and summed in it (wrapping), that sum
    # divided in float64 and truncated back, as NumPy's; 130 elements per result overflow an int8
    # count. A stream of its own, so the cases above keep their data.
    rng3 = np.random.default_rng(SEED + 2)
    for op in ("mean", "nanmean"):
        for dt, to in (("int8", "int8"), ("int32", "int8"), ("uint8", "uint8"), ("int16", "uint8"),
                       ("int64", "int32"), ("bool", "int16")):
            for pi in (1, 7, 19):
                shape, axis, keepdims = PATTERNS[pi]
                one(w, rng3, op, dt, pi, shape, axis, keepdims, extra=", dtype=%s" % to)
    # Variances with n - ddof <= 0: NaN for nanvar/nanstd of floats, var's division by 0 for integers
    # and bools (inf, or NaN where every value is the mean), also under the nan- names.
    rng4 = np.random.default_rng(SEED + 3)
    for op in ("var", "std", "nanvar", "nanstd"):
        for dt in ("int32", "bool", "float64"):
            for pi, ddof in ((6, 3), (1, 7), (3, 2)):
                shape, axis, keepdims = PATTERNS[pi]
                one(w, rng4, op, dt, pi, shape, axis, keepdims, extra=", ddof=%d" % ddof)
    # NaN-ignoring sums and products of floats with NaNs into an integer or bool dtype=: NaN is absent
    # (0 for a sum, 1 for a product), not converted to 0 first.
    rng5 = np.random.default_rng(SEED + 4)
    for op in ("nansum", "nanprod"):
        for dt, to in (("float32", "int32"), ("float64", "int8"), ("float16", "int64"), ("float64", "bool")):
            for pi in (1, 7, 14):
                shape, axis, keepdims = PATTERNS[pi]
                one(w, rng5, op, dt, pi, shape, axis, keepdims, extra=", dtype=%s" % to, nan=True)
    header = ("# generated by tests/data/gen_reductions.py: numpy %s, ml_dtypes %s, python %s, seed %d\n"
              "# The reductions of the language evaluated by NumPy 2, in the format of eval_cases.txt (see its\n"
              "# header). tol: sums, products, means, variances of float data are within tol ulps of NumPy's\n"
              "# result (cujit's order of accumulation differs; the data is well conditioned); float16 and\n"
              "# bfloat16 means/variances (and every bfloat16 sum) are the float64 result rounded once, as the\n"
              "# contract accumulates 16-bit floats in float32. min/max/arg*/any/all and integers: exact.\n"
              "# An `error` line is the first line of NumPy's ValueError (cujit raises a Data error).\n"
              % (np.__version__, ml_dtypes.__version__, sys.version.split()[0], SEED))
    with open(os.path.join(HERE, "reduction_cases.txt"), "w") as f:
        f.write(header + "\n".join(w.lines) + "\n")
    print("%d cases" % w.count)


if __name__ == "__main__":
    main()
