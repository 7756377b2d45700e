#!/usr/bin/env python3
"""Generates cujit's NumPy reference data (the oracle for tests/unit/test_reference.cpp).

    python3 tests/data/gen_reference.py        # rewrites promotion.txt and eval_cases.txt beside it

Deterministic: one fixed seed, no dependence on time or environment. Needs numpy >= 2 (NEP 50
promotion), ml_dtypes (bfloat16 bit patterns) and mpmath (erf/erfc/lgamma/tgamma, which are not
NumPy ufuncs). The versions it ran with are written into the header of both files; regenerate with
the same versions for byte-identical output.

bfloat16 has no NumPy twin. Per the contract it promotes like float16 with an 8-bit exponent, and
bfloat16 op float16 gives float32. Its values are computed as the contract states ("compute in
float32, round once on store"): operands converted exactly to float32, NumPy's float32 loop, result
rounded to bfloat16 (round to nearest even). ml_dtypes' own promotion (bfloat16 * 2.5 -> float32)
is NOT used: it contradicts the contract.
"""
import math
import os
import sys
import warnings
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np

warnings.simplefilter("ignore")
np.seterr(all="ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240611
rng = np.random.default_rng(SEED)
mpmath.mp.prec = 160

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
SINTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
INTS = SINTS + UINTS
FLOATS = ["float16", "bfloat16", "float32", "float64"]
CPLX = ["complex64", "complex128"]
INEXACT = FLOATS + CPLX
FUNC_TOL = {"float16": 1, "bfloat16": 1, "float32": 4, "float64": 2, "complex64": 4, "complex128": 2}
INF, NAN = math.inf, math.nan


def npdt(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def dtname(a):
    a = np.asarray(a)
    return "bfloat16" if a.dtype == BF16 else a.dtype.name


def is_bf(a):
    return isinstance(a, np.ndarray) and a.dtype == BF16


def ftol(dt):
    return FUNC_TOL.get(dt, 0)


def finfo(dt):
    return ml_dtypes.finfo(ml_dtypes.bfloat16) if dt == "bfloat16" else np.finfo(npdt(dt))


def real_of(dt):
    return {"complex64": "float32", "complex128": "float64"}.get(dt, dt)


# --------------------------------------------------------------------------------------------
# Promotion (the contract's rules; NumPy's result_type for the 14 NumPy dtypes)
# --------------------------------------------------------------------------------------------
def _f16(d):
    return "float16" if d == "bfloat16" else d


def promote(a, b):
    if a == "bfloat16" or b == "bfloat16":
        other = b if a == "bfloat16" else a
        if other == "bfloat16":
            return "bfloat16"
        if other == "float16":
            return "float32"
        r = np.result_type(np.dtype("float16"), np.dtype(other)).name
        return "bfloat16" if r == "float16" else r
    return np.result_type(np.dtype(a), np.dtype(b)).name


def promote_weak(d, kind):
    lit = {"int": 1, "float": 1.0, "complex": 1j}[kind]
    r = np.result_type(np.dtype(_f16(d)), lit).name
    return "bfloat16" if (d == "bfloat16" and r == "float16") else r


def can_cast(a, b, casting):
    if a == b:
        return True
    if {a, b} == {"float16", "bfloat16"}:
        return casting != "safe"
    return bool(np.can_cast(np.dtype(_f16(a)), np.dtype(_f16(b)), casting))


def write_promotion(path, header):
    L = [header,
         "# cujit promotion reference: NumPy 2 result_type / NEP 50 weak scalars / can_cast.",
         "# bfloat16 rows and columns are derived from float16's (contract): bfloat16+bfloat16 =",
         "# bfloat16, bfloat16+float16 = float32, otherwise a float16 result becomes bfloat16.",
         "# can_cast: float16 <-> bfloat16 is not 'safe' (neither holds the other) but is 'same_kind'.",
         "# Sections: [promote] row a, column b -> result_type(a, b);",
         "#   [weak] dtype, then result of array(dtype) + python int / python float / python complex;",
         "#   [can_cast_safe] / [can_cast_same_kind]: row from, column to, 1 = allowed.",
         "dtypes " + " ".join(DTYPES), "", "[promote]"]
    for a in DTYPES:
        L.append(a + " " + " ".join(promote(a, b) for b in DTYPES))
    L += ["", "[weak]", "# dtype int float complex"]
    for a in DTYPES:
        L.append(a + " " + " ".join(promote_weak(a, k) for k in ("int", "float", "complex")))
    for casting in ("safe", "same_kind"):
        L += ["", "[can_cast_%s]" % casting]
        for a in DTYPES:
            L.append(a + " " + " ".join("1" if can_cast(a, b, casting) else "0" for b in DTYPES))
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
# Exact rounding helpers
# --------------------------------------------------------------------------------------------
def round_binary(x, mbits, emin, maxexp):
    """Correctly rounded (nearest even) value of a Python int or float in a binary floating format
    with mbits fraction bits, smallest normal exponent emin and overflow at 2**maxexp."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x) or x == 0):
        return x
    fr = Fraction(x)
    if fr == 0:
        return 0.0
    a = abs(fr)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if a < Fraction(2) ** e:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - mbits)
    v = round(a / ulp) * ulp  # Fraction rounding is half-to-even
    r = INF if v >= Fraction(2) ** maxexp else float(v)
    return -r if fr < 0 else r


def round_bf16_exact(x):
    return round_binary(x, 7, -126, 128)


def round_f32_exact(x):
    return round_binary(x, 23, -126, 128)


def to_bf16_exact(values):
    return np.array([round_bf16_exact(v) for v in values], dtype=np.float64).astype(np.float32).astype(BF16)


def bf16_double_rounding_differs(x):
    """True where rounding through float32 first gives another bfloat16 than direct rounding."""
    x = int(x) if isinstance(x, (int, np.integer)) else float(x)
    d = round_bf16_exact(x)
    if math.isnan(d):
        return False
    return round_bf16_exact(round_f32_exact(x)) != d


# --------------------------------------------------------------------------------------------
# Case model and writer
# --------------------------------------------------------------------------------------------
class Case:
    def __init__(self, cid, program):
        self.id, self.program = cid, program
        self.inputs = []     # (kind, name, array)
        self.outputs = []    # (name, array, tol)
        self.outspecs = []   # (name, dtype or "auto")
        self.error = None

    def inp(self, name, a, weak=False):
        self.inputs.append(("weak" if weak else "input", name, np.asarray(a)))
        return self

    def out(self, name, a, tol):
        self.outputs.append((name, np.asarray(a), tol))
        return self


CASES = []
IDS = set()
COUNTS = {}


def add(case, cat):
    assert case.id not in IDS, case.id
    assert " " not in case.id
    IDS.add(case.id)
    CASES.append(case)
    COUNTS[cat] = COUNTS.get(cat, 0) + 1
    return case


def hexvals(a):
    a = np.ascontiguousarray(a)
    b = a.tobytes()
    s = a.dtype.itemsize
    return [b[k * s:(k + 1) * s].hex() for k in range(a.size)]


def shape_str(a):
    return "()" if a.ndim == 0 else "x".join(str(d) for d in a.shape)


def write_cases(path, header):
    L = [header, CASES_DOC]
    for c in CASES:
        L.append("case " + c.id)
        L.append("program " + c.program.replace("\\", "\\\\").replace("\n", "\\n"))
        for name, dt in c.outspecs:
            L.append("outspec %s %s" % (name, dt))
        for kind, name, a in c.inputs:
            L.append("%s %s %s %s %s" % (kind, name, dtname(a), shape_str(a), " ".join(hexvals(a))))
        if c.error is not None:
            L.append("error " + c.error)
        for name, a, tol in c.outputs:
            L.append("output %s %s %s tol=%d %s" % (name, dtname(a), shape_str(a), tol, " ".join(hexvals(a))))
        L.append("end")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


CASES_DOC = """\
# cujit evaluation reference: programs of the contract's language, evaluated by NumPy.
#
# Format (line based; '#' lines and blank lines between cases are comments):
#   case <id>                      unique id: <op-or-function>.<dtype>[.<dtype>][.<variant>];
#                                  bad.* expect an error, *.special hold special values
#   program <source>               one line; '\\n' stands for a newline, '\\\\' for a backslash
#   outspec <name> <dtype|auto>    optional, repeated: pass these OutputSpecs to evaluate_cpu
#                                  (declared output dtypes); absent: outputs are inferred
#   input <name> <dtype> <shape> <v>...   an array input (strong)
#   weak <name> <dtype> <shape> <v>...    a weak (literal-like, NEP 50) 0-d input
#   output <name> <dtype> <shape> tol=<ulps> <v>...   an expected output, in order of first assignment;
#                                  an input the program updates in place (x *= 5) is an output of
#                                  its name: the input's values after the program
#   error <first line of what()>   the program must be rejected with ErrorCode::Program;
#                                  'error *' accepts any message
#   end
# <shape>: '()' for 0-d, '8', '2x4' (C order). <v>: one element as the hex of its little-endian
# bytes (float32 1.0 = 0000803f; bool = 00/01; complex = real bytes then imaginary bytes).
#
# Comparison rule (tests/unit/reference.cpp, values_match):
#   * bool and integer results: bit-exact.
#   * tol=0 (exact or exactly rounded operations: real + - * / sqrt square reciprocal, complex + -,
#     casts, comparisons, floor/ceil/trunc/rint/round, fmod/remainder/floor_divide (NumPy's
#     algorithm), min/max, copysign, where, clip, real abs/neg/sign, real/imag/conj, ...): bit-exact, so signed zeros must match; the only latitude is that any
#     NaN matches any NaN (payload and sign are ignored).
#   * tol=N > 0 (functions): float16/bfloat16/float32/float64 within N ulps of the expected value
#     (distance counted in representable values; +0 and -0 are the same point; an infinity only
#     matches the same infinity; NaN matches only NaN). Complex: real and imaginary parts checked
#     separately, each within N ulps of the LARGER magnitude of the expected part pair
#     (|got.re - want.re| <= N * ulp(max(|want.re|, |want.im|)), same for im); non-finite parts
#     must match as above.
#   Tolerances: float64 2, float32 4, float16/bfloat16 1 ulp (complex128 2, complex64 4).
#
# Values: NumPy's results (float16 ops as NumPy does them: in float32, rounded per operation).
# bfloat16: operands exactly in float32, NumPy's float32 op, rounded to nearest even bfloat16.
# erf/erfc/lgamma/tgamma (not NumPy ufuncs): mpmath at the argument (converted to the result dtype as
# NumPy converts a ufunc argument), correctly rounded; C99 special values (tgamma(-1) = nan,
# tgamma(-0) = -inf, lgamma(0) = lgamma(-1) = +inf).
# NumPy's transcendental functions are SIMD-dispatched (this data: x86-64 with AVX512_ICL), so a run on
# another machine may differ in the last ulp of function results (expected to stay within tolerance).
# Float -> int casts use in-range values (cast.*); cast_sat.* use the contract's saturating values
# (NaN -> 0, clamp to the target's min/max), which differ from NumPy's platform-defined result.
"""


# --------------------------------------------------------------------------------------------
# Value generation
# --------------------------------------------------------------------------------------------
def mk(dt, vals):
    if dt == "bfloat16":
        return np.array(vals, dtype=np.float64).astype(np.float32).astype(BF16)
    if dt in INTS:
        return np.array([int(v) for v in vals], dtype=np.dtype(dt))
    return np.array(vals, dtype=np.dtype(dt))


def imin(dt):
    return int(np.iinfo(np.dtype(dt)).min)


def imax(dt):
    return int(np.iinfo(np.dtype(dt)).max)


def rand_int(dt, n, lo=None, hi=None):
    info = np.iinfo(np.dtype(dt))
    lo = info.min if lo is None else max(lo, int(info.min))
    hi = info.max if hi is None else min(hi, int(info.max))
    return [int(v) for v in rng.integers(lo, hi, size=n, endpoint=True, dtype=np.dtype(dt))]


def rand_bool(n):
    return [bool(v) for v in rng.integers(0, 1, size=n, endpoint=True)]


def rand_float(dt, n, lo=-10.0, hi=10.0, log=False):
    if log:
        v = 10.0 ** rng.uniform(lo, hi, size=n)
    else:
        v = rng.uniform(lo, hi, size=n)
    return list(mk(dt, v).astype(np.float64)) if dt in FLOATS else list(v)


def rand_cplx(n, lo=-2.0, hi=2.0):
    return list(rng.uniform(lo, hi, size=n) + 1j * rng.uniform(lo, hi, size=n))


def fspecials(dt):
    fi = finfo(dt)
    return [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, float(fi.max), -float(fi.max),
            float(fi.smallest_normal), float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]


CSPECIALS = [0j, complex(-0.0, -0.0), 1 + 0j, -1 + 0j, 1j, -1j, complex(INF, 0), complex(-INF, 0),
             complex(0, INF), complex(NAN, 0), complex(0, NAN), complex(INF, NAN), complex(-4, 0),
             complex(-4, -0.0), complex(NAN, NAN), complex(-INF, INF)]


def generic_vals(dt, n, small=False):
    """Random values of a dtype: ints over (a sample of) the full range, floats moderate."""
    if dt == "bool":
        return rand_bool(n)
    if dt in INTS:
        if small:
            return rand_int(dt, n, -100, 100)
        k = n // 2
        return rand_int(dt, k) + rand_int(dt, n - k, -100, 100)
    if dt in FLOATS:
        return rand_float(dt, n, -100, 100)
    return rand_cplx(n, -10, 10)


# --------------------------------------------------------------------------------------------
# Computing with NumPy (bfloat16 emulated)
# --------------------------------------------------------------------------------------------
def lit_to(dt, v):
    """A weak Python literal converted to a (bfloat16) result dtype, as a strong float32 scalar."""
    return np.float32(round_bf16_exact(float(v)))


def apply(f, args, bf_result=None):
    """Apply a NumPy function. With bfloat16 operands, bf_result is the contract's result dtype."""
    if not any(is_bf(a) for a in args):
        return np.asarray(f(*args))
    assert bf_result is not None
    conv = []
    for a in args:
        if is_bf(a):
            conv.append(a.astype(np.float32))
        elif isinstance(a, (int, float)) and not isinstance(a, bool) and bf_result == "bfloat16":
            conv.append(lit_to("bfloat16", a))
        else:
            conv.append(a)
    r = np.asarray(f(*conv))
    if bf_result == "bfloat16":
        assert r.dtype == np.float32, (f, r.dtype)
        r = r.astype(BF16)
    assert dtname(r) == bf_result, (f, dtname(r), bf_result)
    return r


def result_bf(dts, fn_kind="arith"):
    """Contract result dtype for an operation over dtypes, only needed when bfloat16 is involved."""
    r = dts[0]
    for d in dts[1:]:
        r = promote(r, d)
    if fn_kind == "bool":
        return "bool"
    return r


# --------------------------------------------------------------------------------------------
# Operators
# --------------------------------------------------------------------------------------------
NO_BOOL = lambda d: d != "bool"
NO_CPLX = lambda d: d not in CPLX
INT_BOOL = lambda d: d == "bool" or d in INTS
INT_ONLY = lambda d: d in INTS
ALL = lambda d: True

# id, symbol, numpy function, accepts(dtype), exact(result dtype) -> bool, kind
BIN_OPS = [
    ("add", "+", np.add, ALL, lambda r: True, "arith"),
    ("sub", "-", np.subtract, NO_BOOL, lambda r: True, "arith"),
    ("mul", "*", np.multiply, ALL, lambda r: r not in CPLX, "arith"),
    ("div", "/", np.true_divide, ALL, lambda r: r not in CPLX, "div"),
    ("mod", "%", np.remainder, NO_CPLX, lambda r: True, "mod"),
    ("pow", "**", np.power, ALL, lambda r: r not in INEXACT, "pow"),
    ("and", "&", np.bitwise_and, INT_BOOL, lambda r: True, "bits"),
    ("or", "|", np.bitwise_or, INT_BOOL, lambda r: True, "bits"),
    ("xor", "^", np.bitwise_xor, INT_BOOL, lambda r: True, "bits"),
    ("lshift", "<<", np.left_shift, INT_ONLY, lambda r: True, "shift"),
    ("rshift", ">>", np.right_shift, INT_ONLY, lambda r: True, "shift"),
    ("lt", "<", np.less, ALL, lambda r: True, "cmp"),
    ("le", "<=", np.less_equal, ALL, lambda r: True, "cmp"),
    ("gt", ">", np.greater, ALL, lambda r: True, "cmp"),
    ("ge", ">=", np.greater_equal, ALL, lambda r: True, "cmp"),
    ("eq", "==", np.equal, ALL, lambda r: True, "cmp"),
    ("ne", "!=", np.not_equal, ALL, lambda r: True, "cmp"),
    ("land", "&&", np.logical_and, ALL, lambda r: True, "logic"),
    ("lor", "||", np.logical_or, ALL, lambda r: True, "logic"),
]


def float_pairs(dt, kind):
    fi = finfo(dt)
    mx, sub, tiny = float(fi.max), float(fi.smallest_subnormal), float(fi.smallest_normal)
    if kind in ("arith", "div"):
        return [(INF, -INF), (INF, INF), (-0.0, -0.0), (0.0, -0.0), (NAN, 1.0), (mx, mx), (1.0, -1.0),
                (0.0, INF), (sub, 0.5), (-mx, 2.0), (1.0, 0.0), (-1.0, -0.0), (0.0, 0.0), (tiny, 3.0)]
    if kind == "mod":
        return [(7.0, 0.0), (-7.0, 0.0), (-1.0, INF), (1.0, -INF), (INF, 2.0), (5.5, -2.0), (-5.5, 2.0),
                (-0.0, 1.0), (0.0, -1.0), (NAN, 1.0), (1.0, NAN), (-0.25, 1.0), (6.0, 3.0), (-6.0, 3.0)]
    if kind == "pow":
        return [(0.0, -1.0), (-0.0, -1.0), (-0.0, -2.0), (1.0, NAN), (NAN, 0.0), (-1.0, INF), (INF, -1.0),
                (-2.0, 3.0), (-2.0, 0.5), (2.0, 200.0), (0.5, 200.0), (-INF, 3.0), (4.0, 0.5), (10.0, -2.0)]
    if kind in ("cmp", "logic"):
        return [(NAN, NAN), (NAN, 1.0), (1.0, NAN), (0.0, -0.0), (-0.0, 0.0), (INF, INF), (-INF, INF),
                (INF, mx), (1.5, 1.5), (-2.0, -2.0), (0.0, 0.0), (sub, 0.0)]
    raise KeyError(kind)


def int_pairs(dt, kind):
    lo, hi = imin(dt), imax(dt)
    s = dt in SINTS
    w = np.dtype(dt).itemsize * 8
    if kind == "arith":
        p = [(hi, 1), (lo, hi), (hi, hi), (0, 0), (3, 5)]
        p += [(lo, -1), (lo, lo), (-7, 3)] if s else [(0, hi), (lo, 1), (hi, 2)]
        return p
    if kind == "div":
        p = [(1, 0), (0, 0), (hi, 1), (lo, 3), (7, 2)]
        p += [(-1, 0), (lo, -1), (-7, 2), (7, -2)] if s else [(hi, hi), (5, 7)]
        return p
    if kind == "mod":
        p = [(5, 0), (0, 0), (hi, 7), (7, 3), (6, 3), (0, 5)]
        p += [(-5, 0), (lo, -1), (-7, 3), (7, -3), (-7, -3), (lo, 7), (hi, -7), (-6, 3)] if s else [(hi, hi), (lo, 5), (3, 7)]
        return p
    if kind == "pow":
        p = [(0, 0), (2, w - 1), (2, w), (3, 40), (1, hi), (0, 3), (7, 0)]
        p += [(-1, 3), (-1, 4), (-2, w - 1), (-3, 5), (lo, 2)] if s else [(hi, 2), (hi, 3), (2, w + 1), (5, 7)]
        return p
    if kind == "shift":
        counts = [0, 1, w - 1, w, w + 1]
        counts += [-1, -w, 100] if s else [hi, 2 * w - 1]
        xs = [1, -1, lo, hi, 5, -128 if dt == "int8" else -5, 3, hi] if s else [1, hi, 5, hi, 3, 128, 1]
        return [(xs[k % len(xs)], c) for k, c in enumerate(counts)] + [(hi, 3), (lo, 1), (lo, w - 1)]
    if kind in ("cmp", "logic", "bits"):
        return [(0, 0), (hi, hi), (lo, hi), (hi, lo), (0, 1), (5, 5)] + ([(-1, 0), (-1, 1)] if s else [(1, 0)])
    raise KeyError(kind)


def cplx_pairs(kind):
    if kind in ("cmp", "logic"):
        return [(1 + 2j, 1 + 3j), (1 + 3j, 1 + 2j), (2 + 0j, 1 + 9j), (1 + 1j, 1 + 1j), (complex(NAN, 0), 1 + 0j),
                (0j, complex(0, -0.0)), (0j, 1j), (complex(0, NAN), 0j), (-1 + 2j, -1 + 2j)]
    if kind == "arith":
        return [(complex(INF, 0), 1 + 1j), (complex(NAN, 1), 1 + 0j), (0j, complex(-0.0, -0.0)),
                (complex(-0.0, -0.0), complex(-0.0, -0.0)), (1 + 1j, -1 - 1j)]
    return []


def pair_values(dt, kind, n_rand=8):
    """x, y value lists for a same-dtype binary op of a kind."""
    if dt == "bool":
        xs = [False, False, True, True] + rand_bool(4)
        ys = [False, True, False, True] + rand_bool(4)
        return xs, ys
    if dt in INTS:
        p = int_pairs(dt, kind)
        if kind == "pow":
            xs = rand_int(dt, n_rand // 2, -5 if dt in SINTS else 0, 5)
            ys = rand_int(dt, n_rand // 2, 0, 9)
        elif kind == "shift":
            w = np.dtype(dt).itemsize * 8
            xs = rand_int(dt, n_rand // 2)
            ys = rand_int(dt, n_rand // 2, 0, w - 1)
        else:
            xs = generic_vals(dt, n_rand // 2)
            ys = generic_vals(dt, n_rand // 2)
            if kind in ("mod", "div"):
                ys = [y if y != 0 else 3 for y in ys]
        return [a for a, b in p] + xs, [b for a, b in p] + ys
    if dt in FLOATS:
        p = float_pairs(dt, kind)
        if kind == "pow":
            xs = rand_float(dt, n_rand // 2, 0.05, 10)
            ys = rand_float(dt, n_rand // 2, -4, 4)
        else:
            xs = rand_float(dt, n_rand // 2, -100, 100)
            ys = rand_float(dt, n_rand // 2, -100, 100)
            if kind in ("cmp", "logic"):
                ys[0] = xs[0]
        return [a for a, b in p] + xs, [b for a, b in p] + ys
    # complex
    if kind == "pow":
        xs = rand_cplx(8)
        ys = rand_cplx(4) + [2 + 0j, 3 + 0j, -1 + 0j, 0.5 + 0j]
        return xs, ys
    p = cplx_pairs(kind) if kind in ("cmp", "logic") else []
    xs, ys = rand_cplx(n_rand), rand_cplx(n_rand)
    if kind in ("cmp", "logic"):
        ys[0] = xs[0]
    return [a for a, b in p] + xs, [b for a, b in p] + ys


def gen_binary_ops():
    for oid, sym, f, accepts, exact, kind in BIN_OPS:
        for dt in DTYPES:
            prog = "out = x %s y" % sym
            if not accepts(dt):
                c = Case("bad.%s.%s" % (oid, dt), prog)
                x, y = mk(dt, generic_vals(dt, 4)), mk(dt, generic_vals(dt, 4))
                c.inp("x", x).inp("y", y)
                c.error = "*"
                add(c, "errors (dtype rejected)")
                continue
            xs, ys = pair_values(dt, kind)
            x, y = mk(dt, xs), mk(dt, ys)
            rk = "bool" if kind in ("cmp", "logic") else result_bf([dt, dt])
            r = apply(f, [x, y], rk)
            rd = dtname(r)
            tol = 0 if exact(rd) else ftol(rd)
            c = Case("%s.%s" % (oid, dt), prog).inp("x", x).inp("y", y).out("out", r, tol)
            add(c, "binary operators")
            # complex specials for * and / (NumPy's textbook formulas with inf/nan)
            if dt in CPLX and oid in ("mul", "div", "add", "sub"):
                p = cplx_pairs("arith")
                x2, y2 = mk(dt, [a for a, b in p]), mk(dt, [b for a, b in p])
                r2 = apply(f, [x2, y2])
                add(Case("%s.%s.special" % (oid, dt), prog).inp("x", x2).inp("y", y2)
                    .out("out", r2, 0 if exact(dtname(r2)) else ftol(dtname(r2))), "binary operators")


def gen_unary_ops():
    for dt in DTYPES:
        if dt == "bool":
            vals = [True, False, True, False]
        elif dt in INTS:
            vals = [0, imin(dt), imax(dt), 1] + ([-1] if dt in SINTS else []) + generic_vals(dt, 6)
        elif dt in FLOATS:
            vals = fspecials(dt) + rand_float(dt, 4, -100, 100)
        else:
            vals = CSPECIALS[:10] + rand_cplx(4)
        x = mk(dt, vals)
        for oid, sym, f, ok in [("neg", "-", np.negative, dt != "bool"),
                                ("pos", "+", np.positive, dt != "bool"),
                                ("not", "!", np.logical_not, True),
                                ("inv", "~", np.invert, dt == "bool" or dt in INTS)]:
            prog = "out = %sx" % sym
            if not ok:
                c = Case("bad.%s.%s" % (oid, dt), prog).inp("x", x)
                c.error = "*"
                add(c, "errors (dtype rejected)")
                continue
            r = apply(f, [x], "bool" if oid == "not" else dt)
            add(Case("%s.%s" % (oid, dt), prog).inp("x", x).out("out", r, 0), "unary operators")


# --------------------------------------------------------------------------------------------
# Mixed dtypes
# --------------------------------------------------------------------------------------------
MIXED_PAIRS = [
    ("int8", "uint8"), ("uint8", "int8"), ("int8", "int16"), ("uint8", "int16"), ("int16", "uint16"),
    ("int32", "uint32"), ("int64", "uint64"), ("uint64", "int8"), ("uint16", "int8"), ("uint32", "int64"),
    ("int32", "float32"), ("int16", "float16"), ("int8", "float16"), ("uint8", "float16"),
    ("int64", "float32"), ("int64", "float64"), ("uint64", "float64"), ("float16", "float32"),
    ("float32", "float64"), ("float32", "complex64"), ("float64", "complex64"), ("float16", "complex64"),
    ("int8", "complex64"), ("int32", "complex64"), ("complex64", "complex128"),
    ("bool", "int8"), ("bool", "uint8"), ("bool", "float32"), ("bool", "float16"), ("bool", "complex64"),
    ("bfloat16", "float16"), ("float16", "bfloat16"), ("bfloat16", "int8"), ("bfloat16", "uint8"),
    ("bfloat16", "int16"), ("bfloat16", "uint16"), ("bfloat16", "float32"), ("bfloat16", "bool"),
    ("bfloat16", "complex64"), ("bfloat16", "float64"), ("bfloat16", "int32"), ("bfloat16", "int64"),
    ("bfloat16", "complex128"),
]
MIXED_OPS = [("add", "+", np.add), ("sub", "-", np.subtract), ("mul", "*", np.multiply),
             ("div", "/", np.true_divide), ("mod", "%", np.remainder), ("lt", "<", np.less),
             ("eq", "==", np.equal), ("max", "maximum", np.maximum), ("pow", "**", np.power)]


def fits(dt, v):
    """Whether value v (of another dtype) is exactly a value of dt."""
    if isinstance(v, complex) and dt not in CPLX:
        return False
    if dt == "bool":
        return v in (0, 1)
    if dt in INTS:
        return float(v) == int(v) and imin(dt) <= int(v) <= imax(dt)
    if dt in CPLX:
        return True
    return float(mk(dt, [float(v)])[0]) == float(v)


def mixed_vals(dt, n):
    if dt == "bool":
        return rand_bool(n)
    if dt in INTS:
        return rand_int(dt, n // 2) + rand_int(dt, n - n // 2, -50, 50)
    if dt in FLOATS:
        return rand_float(dt, n, -50, 50)
    return rand_cplx(n, -10, 10)


def gen_mixed():
    for a, b in MIXED_PAIRS:
        for oid, sym, f in MIXED_OPS:
            cplx = a in CPLX or b in CPLX
            if oid == "mod" and cplx:
                continue
            if oid == "pow" and (a == "bool" or b == "bool"):
                continue
            if oid == "pow":
                if a in INTS and b in INTS:
                    ys = rand_int(b, 8, 0, 7)
                elif b in INTS:
                    ys = rand_int(b, 8, 0, 7)
                else:
                    ys = rand_float(b, 8, -3, 3) if b in FLOATS else rand_cplx(8)
                xs = rand_float(a, 8, 0.1, 4) if a in FLOATS else (rand_int(a, 8, 0, 5) if a in INTS else rand_cplx(8))
            else:
                xs, ys = mixed_vals(a, 8), mixed_vals(b, 8)
                if oid in ("div", "mod"):
                    ys = [v if v != 0 else (True if b == "bool" else 3) for v in ys]
                if oid == "eq":
                    # Some equal values across the two dtypes.
                    for k in range(3):
                        if fits(b, xs[k]):
                            ys[k] = xs[k]
            if oid == "eq" and {a, b} == {"int64", "uint64"}:
                xs = [2**63 - 1, -1, 2**53 + 1, 5, 0, 2**62, -2**63, 7]
                ys = [2**63, 2**64 - 1, 2**53, 5, 0, 2**62, 2**63, 8]
            x, y = mk(a, xs), mk(b, ys)
            r0 = promote(a, b)
            rk = "bool" if oid in ("lt", "eq") else r0
            prog = "out = %s(x, y)" % sym if sym.isalpha() else "out = x %s y" % sym
            try:
                r = apply(f, [x, y], rk)
            except TypeError:
                continue  # e.g. bool - bool
            rd = dtname(r)
            if oid not in ("lt", "eq", "div", "pow"):
                assert rd == r0, (a, b, oid, rd, r0)
            exact = not (oid == "pow" and rd in INEXACT) and not (oid in ("mul", "div") and rd in CPLX)
            add(Case("%s.%s.%s" % (oid, a, b), prog).inp("x", x).inp("y", y)
                .out("out", r, 0 if exact else ftol(rd)), "mixed-dtype operators")
    # int64 vs uint64 ordering is exact in NumPy 2 (not through float64).
    xs = [2**63 - 1, -1, 2**53 + 1, -2**63, 0, 2**62, 5, -5]
    ys = [2**63, 2**64 - 1, 2**53, 2**63, 0, 2**62 + 1, 5, 0]
    x, y = mk("int64", xs), mk("uint64", ys)
    for oid, sym, f in [("lt", "<", np.less), ("ge", ">=", np.greater_equal), ("ne", "!=", np.not_equal)]:
        add(Case("%s.int64.uint64.exact" % oid, "out = x %s y" % sym).inp("x", x).inp("y", y)
            .out("out", f(x, y), 0), "mixed-dtype operators")


# --------------------------------------------------------------------------------------------
# Weak literals and weak inputs (NEP 50)
# --------------------------------------------------------------------------------------------
def gen_weak():
    for dt in DTYPES:
        xs = generic_vals(dt, 8, small=True)
        if dt in INTS:
            xs[:2] = [imax(dt), imax(dt) - 1]  # + 3 wraps
        # x + 3 (weak int)
        rk = promote_weak(dt, "int")
        if dt == "bfloat16":
            x = mk(dt, xs)
            r = (x.astype(np.float32) + lit_to("bfloat16", 3)).astype(BF16)
            add(Case("weak.int.bfloat16", "out = x + 3").inp("x", x).out("out", r, 0), "weak literals (NEP 50)")
        else:
            x = mk(dt, xs)
            r = np.asarray(x + 3)
            assert dtname(r) == rk, (dt, dtname(r), rk)
            add(Case("weak.int.%s" % dt, "out = x + 3").inp("x", x).out("out", r, 0), "weak literals (NEP 50)")
        # x * 2.5 (weak float): exact op in the result dtype (the literal is exactly representable)
        x = mk(dt, generic_vals(dt, 8, small=True))
        rk = promote_weak(dt, "float")
        if dt == "bfloat16":
            r = (x.astype(np.float32) * lit_to("bfloat16", 2.5)).astype(BF16)
        else:
            r = np.asarray(x * 2.5)
        assert dtname(r) == rk
        add(Case("weak.float.%s" % dt, "out = x * 2.5").inp("x", x)
            .out("out", r, 0 if rk not in CPLX else 0), "weak literals (NEP 50)")
        # x + 0.1: the literal is first rounded to the array's dtype (NumPy: f16(0.3) + 0.1 -> 0.3999)
        if dt in FLOATS:
            x = mk(dt, [0.3, 1.0, 2.0, -0.1, 100.0, 0.2, 1e-3, 3.0])
            r = (x.astype(np.float32) + lit_to("bfloat16", 0.1)).astype(BF16) if dt == "bfloat16" else np.asarray(x + 0.1)
            assert dtname(r) == dt
            add(Case("weak.float01.%s" % dt, "out = x + 0.1").inp("x", x).out("out", r, 0), "weak literals (NEP 50)")
            # comparison against a weak float happens in the array's dtype: f16(0.1) < 0.1 is False
            xl = mk(dt, [0.1, 0.1000001, 0.09, 0.11, -0.1, 0.0, 0.2, 0.1])
            r = (xl.astype(np.float32) <= lit_to("bfloat16", 0.1)) if dt == "bfloat16" else np.asarray(xl <= 0.1)
            add(Case("weak.cmp01.%s" % dt, "out = x <= 0.1").inp("x", xl).out("out", r, 0), "weak literals (NEP 50)")
        # weak inputs: int64, float64, complex128 0-d
        for kind, wdt, wv, op, f in [("int", "int64", 3, "*", np.multiply), ("float", "float64", 0.25, "-", np.subtract),
                                      ("complex", "complex128", 0.5 + 1.5j, "+", np.add)]:
            x = mk(dt, generic_vals(dt, 8, small=True))
            w = np.array(wv, dtype=np.dtype(wdt))
            rk = promote_weak(dt, kind)
            if dt == "bfloat16":
                if rk == "bfloat16":
                    r = f(x.astype(np.float32), lit_to("bfloat16", wv)).astype(BF16)
                else:
                    r = np.asarray(f(x.astype(np.float32), wv))
            else:
                r = np.asarray(f(x, wv))  # Python scalar: weak
            assert dtname(r) == rk, (dt, kind, dtname(r), rk)
            exact = not (rk in CPLX and op == "*")
            add(Case("weakin.%s.%s" % (kind, dt), "out = x %s a" % op).inp("x", x).inp("a", w, weak=True)
                .out("out", r, 0 if exact else ftol(rk)), "weak inputs (NEP 50)")
    # strong 0-d inputs are NOT weak: int8 array + 0-d int16 array -> int16
    x = mk("int8", [127, -128, 5, -5, 0, 100, -100, 1])
    s = np.array(300, dtype=np.int16)
    add(Case("strong0d.int8.int16", "out = x + s").inp("x", x).inp("s", s).out("out", x + s, 0), "weak inputs (NEP 50)")
    s = np.array(2.5, dtype=np.float64)
    x = mk("float32", rand_float("float32", 8))
    add(Case("strong0d.float32.float64", "out = x * s").inp("x", x).inp("s", s).out("out", x * s, 0), "weak inputs (NEP 50)")

    W = "weak literals (NEP 50)"
    def lit(cid, prog, dt, xs, f, tol=0):
        x = mk(dt, xs)
        r = np.asarray(f(x))
        add(Case(cid, prog).inp("x", x).out("out", r, tol), W)
    i8 = [127, -128, -7, 7, 0, 100, -1, 3]
    lit("weak.div.int8", "out = x / 2", "int8", i8, lambda x: x / 2)
    lit("weak.floordiv.int8", "out = floor_divide(x, 2.0)", "int8", i8, lambda x: np.floor_divide(x, 2.0))
    lit("weak.mod.int8", "out = x % 3", "int8", i8, lambda x: x % 3)
    lit("weak.modneg.int16", "out = x % -3", "int16", [7, -7, 0, 32767, -32768, 1, -1, 3], lambda x: x % -3)
    lit("weak.pow.int8", "out = x ** 2", "int8", i8, lambda x: x ** 2)
    lit("weak.rpow.int8", "out = 2 ** x", "int8", [0, 1, 6, 7, 8, 3, 2, 5], lambda x: 2 ** x)
    lit("weak.powf.int8", "out = x ** 2.0", "int8", i8, lambda x: x ** 2.0, tol=2)
    lit("weak.powneg.float32", "out = x ** -1", "float32", rand_float("float32", 8, 0.5, 20), lambda x: x ** -1, tol=4)
    lit("weak.and.bool", "out = x & 1", "bool", [True, False, True, False], lambda x: x & 1)
    lit("weak.add.bool", "out = x + 1", "bool", [True, False, True, False], lambda x: x + 1)
    lit("weak.mulf.bool", "out = x * 2.5", "bool", [True, False, True, False], lambda x: x * 2.5)
    lit("weak.lshift.int8", "out = x << 1", "int8", i8, lambda x: x << 1)
    lit("weak.sub.uint8", "out = x - 1", "uint8", [0, 1, 255, 128, 7, 3, 2, 100], lambda x: x - 1)
    lit("weak.add.int16", "out = x + 300", "int16", [32767, -32768, 0, 1, -300, 32467, 5, 7], lambda x: x + 300)
    lit("weak.gt.int8", "out = x > 2.5", "int8", i8, lambda x: x > 2.5)
    lit("weak.eq.int8", "out = x == 3", "int8", i8, lambda x: x == 3)
    lit("weak.mulf.int8", "out = x * 0.1", "int8", i8, lambda x: x * 0.1)
    lit("weak.add.uint64", "out = x + 1", "uint64", [2**64 - 1, 0, 2**63, 5], lambda x: x + 1)
    lit("weak.add.float16", "out = x + 1", "float16", [2048.0, 1.0, -1.0, 65504.0, 0.5], lambda x: x + 1)
    lit("weak.mul.float16.big", "out = x * 100000.0", "float16", [1.0, -1.0, 0.0, 1e-4, 0.5], lambda x: x * 100000.0)
    # out-of-range weak ints in comparisons: NumPy 2 compares exactly (no error, no wrap)
    lit("weak.lt_oob.int8", "out = x < 1000", "int8", i8, lambda x: x < 1000)
    lit("weak.eq_oob.uint8", "out = x == -1", "uint8", [255, 0, 1, 128], lambda x: x == -1)
    lit("weak.gt_oob.uint8", "out = x > -1", "uint8", [255, 0, 1, 128], lambda x: x > -1)
    # strong suffix
    lit("strong.f.float16", "out = x * 2.0f", "float16", [1.0, 0.1, 65504.0, -3.0], lambda x: x * np.float32(2.0))
    lit("strong.f.int8", "out = x + 1.5f", "int8", i8, lambda x: x + np.float32(1.5))
    lit("strong.f.int16", "out = x + 1.5f", "int16", [32767, -5, 3, 0], lambda x: x + np.float32(1.5))
    # the literal is converted double -> float16 directly (1 + 2^-11 + 2^-40 -> 1 + 2^-10), not via float32
    lit("weak.float16.literal_rounding", "out = x * 1.0004882812509095", "float16", [1.0, 2.0, -1.0, 0.5],
        lambda x: x * 1.0004882812509095)
    # folding literals among themselves keeps them weak (Python arithmetic on Python scalars)
    lit("weak.fold.int8", "out = x + (2 * 3 - 1)", "int8", i8, lambda x: x + (2 * 3 - 1))
    lit("weak.fold_div.float32", "out = x * (1 / 3)", "float32", [1.0, 3.0, -2.5, 100.0, 7.0, 0.1], lambda x: x * (1 / 3))
    lit("weak.mod0.int8", "out = x % 0", "int8", i8, lambda x: x % 0)
    lit("weak.floordiv0.int16", "out = floor_divide(x, 0)", "int16", [5, -5, 0, 32767, -32768, 1], lambda x: np.floor_divide(x, 0))
    # ...but NumPy's where() and ufuncs of Python scalars return STRONG int64/float64 values:
    # np.where(c, 1, 2) is an int64 array, np.sin(1.0) an np.float64 scalar
    lit("strong.ternary_literals.int8", "out = x + (x > 0 ? 1 : 2)", "int8", i8, lambda x: x + np.where(x > 0, 1, 2))
    lit("strong.fn_of_literal.float32", "out = x * sin(1.0)", "float32", [1.0, 3.0, -2.5, 100.0, 7.0, 0.1],
        lambda x: x * np.sin(1.0), tol=2)
    # a cast makes a literal strong: uint8 + int8 -> int16
    lit("strong.cast_literal.uint8", "out = x + int8(5)", "uint8", [0, 255, 128, 7], lambda x: x + np.int8(5))
    # literals that do not fit the array's integer dtype are errors (NumPy raises OverflowError)
    for cid, prog, dt in [("bad.weak.int8_1000", "out = x + 1000", "int8"), ("bad.weak.uint8_neg", "out = x + -1", "uint8"),
                          ("bad.weak.uint8_256", "out = x * 256", "uint8"), ("bad.weak.int16_big", "out = x - 40000", "int16")]:
        c = Case(cid, prog).inp("x", mk(dt, [1, 2, 3, 4]))
        c.error = "*"
        add(c, "errors (check)")


# --------------------------------------------------------------------------------------------
# Functions
# --------------------------------------------------------------------------------------------
def mp_fn(name):
    def erf(x):
        return mpmath.mpf(1 if x > 0 else -1) if abs(x) > 10 else mpmath.erf(x)
    def erfc(x):
        if x > 30:
            return mpmath.mpf(0)  # below the smallest float64 subnormal
        return mpmath.mpf(2) if x < -10 else mpmath.erfc(x)
    def lgamma(x):
        if x <= 0 and x == mpmath.floor(x):
            return mpmath.inf
        if x > 0:
            return mpmath.loggamma(x)
        return mpmath.log(abs(mpmath.gamma(x)))
    def tgamma(x):
        if x < 0 and x == mpmath.floor(x):
            return mpmath.nan
        if x > 200:
            return mpmath.inf
        if x < -200:
            return mpmath.mpf(0)  # underflows (sign irrelevant under tol > 0)
        return mpmath.gamma(x)
    return {"erf": erf, "erfc": erfc, "lgamma": lgamma, "tgamma": tgamma}[name]


def c_special(name, v):
    """C99 values at non-finite / pole arguments; None when mpmath should compute."""
    if math.isnan(v):
        return NAN
    if name == "erf" and math.isinf(v):
        return math.copysign(1.0, v)
    if name == "erfc" and math.isinf(v):
        return 0.0 if v > 0 else 2.0
    if name == "lgamma" and math.isinf(v):
        return INF
    if name == "tgamma":
        if v == INF:
            return INF
        if v == -INF:
            return NAN
        if v == 0:
            return math.copysign(INF, v)
    return None


def mp_apply(name, x, rdt):
    """erf/erfc/lgamma/tgamma of a float array (already in the result dtype), rounded to rdt."""
    out = []
    for v in x.astype(np.float64).ravel():
        v = float(v)
        s = c_special(name, v)
        if s is None:
            r = mp_fn(name)(mpmath.mpf(v))
            if mpmath.isnan(r):
                s = NAN
            elif mpmath.isinf(r):
                s = INF if r > 0 else -INF
            else:
                try:
                    s = float(r) if abs(r) < mpmath.mpf(2) ** 1024 else (INF if r > 0 else -INF)
                except OverflowError:
                    s = INF if r > 0 else -INF
        out.append(s)
    a = np.array(out, dtype=np.float64)
    if rdt == "bfloat16":
        return to_bf16_exact(list(a))
    return a.astype(npdt(rdt)).reshape(x.shape)


def fn_result_dtype(dt):
    """NumPy's dtype for a float function of dt (int8 -> float16, int16 -> float32, ...)."""
    if dt in INEXACT:
        return dt
    return np.sin(np.ones(1, dtype=np.dtype(dt))).dtype.name


def make_mp_ufunc(name):
    def f(x):
        rdt = fn_result_dtype(dtname(x))
        if dtname(x) == "bfloat16":
            xin = x
        elif dtname(x) in INTS or dtname(x) == "bool":
            xin = x.astype(npdt(rdt))  # as NumPy converts a ufunc argument
        else:
            xin = x
        return mp_apply(name, xin, rdt)
    return f


# name, numpy callable (None: mpmath), domain for floats (lo, hi, log), int domain (lo, hi),
# exact for real inputs, accepts complex
D = (-10.0, 10.0, False)
FUNCS1 = [
    ("sin", np.sin, D, (-10, 10), False, True),
    ("cos", np.cos, D, (-10, 10), False, True),
    ("tan", np.tan, (-1.5, 1.5, False), (-10, 10), False, True),
    ("arcsin", np.arcsin, (-1.0, 1.0, False), (-2, 2), False, True),
    ("arccos", np.arccos, (-1.0, 1.0, False), (-2, 2), False, True),
    ("arctan", np.arctan, (-20.0, 20.0, False), (-50, 50), False, True),
    ("sinh", np.sinh, (-5.0, 5.0, False), (-10, 10), False, True),
    ("cosh", np.cosh, (-5.0, 5.0, False), (-10, 10), False, True),
    ("tanh", np.tanh, (-5.0, 5.0, False), (-10, 10), False, True),
    ("arcsinh", np.arcsinh, (-50.0, 50.0, False), (-50, 50), False, True),
    ("arccosh", np.arccosh, (1.0, 50.0, False), (0, 50), False, True),
    ("arctanh", np.arctanh, (-0.99, 0.99, False), (-2, 2), False, True),
    ("exp", np.exp, (-8.0, 8.0, False), (-12, 12), False, True),
    ("exp2", np.exp2, (-12.0, 12.0, False), (-20, 20), False, True),
    ("expm1", np.expm1, (-3.0, 3.0, False), (-12, 12), False, True),
    ("log", np.log, (-3.0, 3.0, True), (0, 100), False, True),
    ("log2", np.log2, (-3.0, 3.0, True), (0, 100), False, True),
    ("log10", np.log10, (-3.0, 3.0, True), (0, 100), False, True),
    ("log1p", np.log1p, (-0.9, 5.0, False), (-1, 100), False, True),
    ("sqrt", np.sqrt, (-3.0, 3.0, True), (0, 100), True, True),
    ("cbrt", np.cbrt, (-100.0, 100.0, False), (-100, 100), False, False),
    ("square", np.square, (-100.0, 100.0, False), None, True, True),
    ("reciprocal", np.reciprocal, (-100.0, 100.0, False), None, True, True),
    ("absolute", np.absolute, (-100.0, 100.0, False), None, True, True),
    ("sign", np.sign, (-100.0, 100.0, False), None, True, True),
    ("floor", np.floor, (-100.0, 100.0, False), None, True, False),
    ("ceil", np.ceil, (-100.0, 100.0, False), None, True, False),
    ("trunc", np.trunc, (-100.0, 100.0, False), None, True, False),
    ("rint", np.rint, (-100.0, 100.0, False), None, True, True),
    ("round", np.round, (-100.0, 100.0, False), None, True, True),
    ("isnan", np.isnan, D, None, True, True),
    ("isinf", np.isinf, D, None, True, True),
    ("isfinite", np.isfinite, D, None, True, True),
    ("signbit", np.signbit, D, None, True, False),
    ("logical_not", np.logical_not, D, None, True, True),
    ("real", np.real, D, None, True, True),
    ("imag", np.imag, D, None, True, True),
    ("conj", np.conjugate, D, None, True, True),
    ("deg2rad", np.deg2rad, (-360.0, 360.0, False), (-180, 180), False, False),
    ("rad2deg", np.rad2deg, (-7.0, 7.0, False), (-7, 7), False, False),
    ("erf", None, (-4.0, 4.0, False), (-3, 3), False, False),
    ("erfc", None, (-4.0, 9.0, False), (-3, 9), False, False),
    ("lgamma", None, (0.1, 30.0, False), (1, 40), False, False),
    ("tgamma", None, (0.1, 10.0, False), (1, 12), False, False),
]
# NumPy refuses these dtypes (checked against numpy below); erf/erfc/lgamma/tgamma: complex refused by cujit.


def np_accepts(f, dt):
    if dt == "bfloat16":
        dt = "float16"
    try:
        f(np.ones(2, dtype=np.dtype(dt)))
        return True
    except TypeError:
        return False


def fn_values(name, dom, idom, dt, n=12):
    if dt == "bool":
        return [True] * n if name == "reciprocal" else [True, False] * (n // 2)
    if dt in INTS:
        if idom is None:
            vals = [0, 1, imax(dt), imin(dt)] + ([-1, -2] if dt in SINTS else [2, 3]) + rand_int(dt, n - 6, -100, 100)
        else:
            lo, hi = idom
            vals = rand_int(dt, n - 3, lo, hi) + [0, imax(dt), imin(dt)]
            if name == "reciprocal":
                vals = [v for v in vals if v != 0]
        if name == "reciprocal":
            vals = [v if v != 0 else 1 for v in vals]  # reciprocal(int 0) is undefined behaviour in NumPy
        return vals
    if dt in CPLX:
        return rand_cplx(n)
    lo, hi, log = dom
    vals = rand_float(dt, n, lo, hi, log)
    if name == "lgamma":
        vals = [v for v in vals if not (0.8 < v < 1.2 or 1.8 < v < 2.2)] + [1.0, 2.0, -0.5, -1.5, 0.5, 3.0]
        vals = list(mk(dt, vals).astype(np.float64))
    if name == "tgamma":
        vals = vals[:n - 4] + [-0.5, -1.5, -2.5, 1.0]
        vals = list(mk(dt, vals).astype(np.float64))
    if name in ("floor", "ceil", "trunc", "rint", "round"):
        vals = vals[:n - 8] + [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.2, 3.0]
    return vals


def gen_functions():
    for name, f, dom, idom, exact_real, cplx_ok in FUNCS1:
        npf = f if f is not None else make_mp_ufunc(name)
        for dt in DTYPES:
            prog = "out = %s(x)" % name
            if f is None:
                ok = dt not in CPLX
            else:
                ok = np_accepts(f, dt)
            if not ok:
                c = Case("bad.%s.%s" % (name, dt), prog).inp("x", mk(dt, generic_vals(dt, 4)))
                c.error = "*"
                add(c, "errors (dtype rejected)")
                continue
            x = mk(dt, fn_values(name, dom, idom, dt))
            if f is None:
                r = npf(x)
            elif dt == "bfloat16":
                xf = x.astype(np.float32)
                r = np.asarray(f(xf))
                r = r.astype(BF16) if r.dtype == np.float32 else r
            else:
                r = np.asarray(f(x))
            rd = dtname(r)
            exact = exact_real and dt not in CPLX or rd not in INEXACT or (name in ("real", "imag", "conj", "rint", "round", "isnan", "isinf", "isfinite", "logical_not"))
            tol = 0 if exact else ftol(rd)
            add(Case("%s.%s" % (name, dt), prog).inp("x", x).out("out", r, tol), "functions (unary)")
            # special values for float and complex inputs
            if dt in INEXACT:
                sv = fspecials(dt) if dt in FLOATS else CSPECIALS
                if name in ("lgamma", "tgamma"):
                    sv = sv + [-1.0, -2.0, 171.5 if dt == "float64" else 40.0]
                xs = mk(dt, sv)
                if f is None:
                    rs = npf(xs)
                elif dt == "bfloat16":
                    rs = np.asarray(f(xs.astype(np.float32)))
                    rs = rs.astype(BF16) if rs.dtype == np.float32 else rs
                else:
                    rs = np.asarray(f(xs))
                add(Case("%s.%s.special" % (name, dt), prog).inp("x", xs).out("out", rs, tol), "functions (unary, special values)")


FUNCS2 = [
    ("arctan2", np.arctan2, False, "atan2"),
    ("hypot", np.hypot, False, "hyp"),
    ("copysign", np.copysign, True, "copysign"),
    ("power", np.power, False, "pow"),
    ("fmod", np.fmod, True, "mod"),
    ("remainder", np.remainder, True, "mod"),
    ("floor_divide", np.floor_divide, True, "mod"),
    ("maximum", np.maximum, True, "minmax"),
    ("minimum", np.minimum, True, "minmax"),
    ("fmax", np.fmax, True, "minmax"),
    ("fmin", np.fmin, True, "minmax"),
    ("logical_and", np.logical_and, True, "logic"),
    ("logical_or", np.logical_or, True, "logic"),
    ("logical_xor", np.logical_xor, True, "logic"),
]


def fn2_pairs(dt, kind):
    if dt in FLOATS:
        fi = finfo(dt)
        mx, sub = float(fi.max), float(fi.smallest_subnormal)
        if kind == "atan2":
            return [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (1.0, INF), (INF, INF), (-INF, -INF),
                    (NAN, 1.0), (1.0, 0.0), (-1.0, 0.0), (1.0, -INF), (-1.0, -INF)]
        if kind == "hyp":
            return [(INF, NAN), (NAN, -INF), (3.0, 4.0), (mx, mx), (sub, sub), (0.0, -0.0), (NAN, 1.0), (-5.0, 12.0)]
        if kind == "copysign":
            return [(1.0, -0.0), (NAN, -1.0), (INF, -1.0), (-2.0, 0.0), (0.0, -3.0), (-0.0, 1.0), (5.0, NAN), (-5.0, -NAN)]
        if kind in ("pow", "mod"):
            return float_pairs(dt, kind)
        if kind == "minmax":
            return [(NAN, 1.0), (1.0, NAN), (NAN, NAN), (INF, -INF), (-INF, 3.0), (2.0, 2.0), (-0.0, -1.0), (sub, 0.0)]
        if kind == "logic":
            return float_pairs(dt, "logic")
    if dt in CPLX:
        if kind == "minmax":
            return [(complex(NAN, 0), 1 + 0j), (1 + 0j, complex(0, NAN)), (1 + 2j, 1 + 3j), (2 + 0j, 1 + 9j),
                    (complex(NAN, 0), complex(0, NAN)), (-1 - 1j, -1 + 1j)]
        if kind == "logic":
            return cplx_pairs("logic")
        return []
    if dt in INTS:
        if kind == "mod":
            return int_pairs(dt, "mod")
        if kind == "pow":
            return int_pairs(dt, "pow")
        lo, hi = imin(dt), imax(dt)
        if kind == "minmax":
            return [(lo, hi), (hi, lo), (0, 0), (5, 5), (lo, 0)]
        if kind == "logic":
            return int_pairs(dt, "logic")
        if kind in ("atan2", "hyp", "copysign"):
            return [(0, 0), (1, 0), (0, -1 if dt in SINTS else 1), (lo, hi), (hi, hi), (3, 4)]
    if dt == "bool":
        return [(False, False), (False, True), (True, False), (True, True)]
    return []


def gen_functions2():
    for name, f, exact_real, kind in FUNCS2:
        for dt in DTYPES:
            prog = "out = %s(x, y)" % name
            if not np_accepts(lambda a: f(a, a), dt):
                c = Case("bad.%s.%s" % (name, dt), prog)
                c.inp("x", mk(dt, generic_vals(dt, 4))).inp("y", mk(dt, generic_vals(dt, 4)))
                c.error = "*"
                add(c, "errors (dtype rejected)")
                continue
            p = fn2_pairs(dt, kind)
            if dt == "bool":
                xs, ys = [a for a, b in p] + rand_bool(4), [b for a, b in p] + rand_bool(4)
            elif dt in INTS:
                if kind == "pow":
                    rx, ry = rand_int(dt, 6, -5 if dt in SINTS else 0, 5), rand_int(dt, 6, 0, 9)
                elif kind in ("atan2", "hyp", "copysign"):
                    rx, ry = rand_int(dt, 6, -100, 100), rand_int(dt, 6, -100, 100)
                else:
                    rx, ry = generic_vals(dt, 6), generic_vals(dt, 6)
                    if kind == "mod":
                        ry = [v if v != 0 else 3 for v in ry]
                xs, ys = [a for a, b in p] + rx, [b for a, b in p] + ry
            elif dt in FLOATS:
                if kind == "pow":
                    rx, ry = rand_float(dt, 6, 0.05, 10), rand_float(dt, 6, -4, 4)
                else:
                    rx, ry = rand_float(dt, 6, -100, 100), rand_float(dt, 6, -100, 100)
                    if kind == "minmax":
                        rx = [v if v != 0 else 1.0 for v in rx]
                xs, ys = [a for a, b in p] + rx, [b for a, b in p] + ry
            else:
                if kind == "pow":
                    xs, ys = rand_cplx(8), rand_cplx(4) + [2 + 0j, 3 + 0j, -1 + 0j, 0.5 + 0j]
                else:
                    xs, ys = [a for a, b in p] + rand_cplx(6), [b for a, b in p] + rand_cplx(6)
            x, y = mk(dt, xs), mk(dt, ys)
            rk = "bool" if kind == "logic" else (fn_result_dtype(dt) if kind in ("atan2", "hyp", "copysign") else dt)
            r = apply(f, [x, y], rk)
            rd = dtname(r)
            exact = (exact_real and dt not in CPLX) or rd not in INEXACT or kind in ("minmax", "logic")
            add(Case("%s.%s" % (name, dt), prog).inp("x", x).inp("y", y).out("out", r, 0 if exact else ftol(rd)),
                "functions (binary)")
    # mixed-dtype function calls
    mixed = [("arctan2", np.arctan2, "float32", "float64", False), ("hypot", np.hypot, "int8", "float32", False),
             ("copysign", np.copysign, "int16", "float16", True), ("maximum", np.maximum, "int8", "uint8", True),
             ("fmin", np.fmin, "float16", "bfloat16", True), ("power", np.power, "int8", "float32", False),
             ("fmod", np.fmod, "int32", "float32", True), ("logical_and", np.logical_and, "int8", "float32", True),
             ("minimum", np.minimum, "bfloat16", "int8", True), ("hypot", np.hypot, "bfloat16", "float32", False),
             ("remainder", np.remainder, "uint8", "int8", True), ("floor_divide", np.floor_divide, "int16", "float16", True)]
    for name, f, a, b, exact in mixed:
        xs = mixed_vals(a, 8) if name != "power" else rand_int(a, 8, 0, 5)
        ys = mixed_vals(b, 8)
        if name in ("fmod", "remainder", "floor_divide"):
            ys = [v if v != 0 else 3 for v in ys]
        x, y = mk(a, xs), mk(b, ys)
        rk = "bool" if name.startswith("logical") else promote(a, b)
        r = apply(f, [x, y], rk)
        rd = dtname(r)
        add(Case("%s.%s.%s" % (name, a, b), "out = %s(x, y)" % name).inp("x", x).inp("y", y)
            .out("out", r, 0 if exact or rd not in INEXACT else ftol(rd)), "functions (binary)")


def gen_aliases():
    x = mk("float32", rand_float("float32", 8, -0.9, 0.9))
    xp = mk("float32", rand_float("float32", 8, 1.1, 20))
    y = mk("float32", rand_float("float32", 8, -3, 3))
    for alias, f, arg in [("asin", np.arcsin, x), ("acos", np.arccos, x), ("atan", np.arctan, x),
                          ("asinh", np.arcsinh, x), ("acosh", np.arccosh, xp), ("atanh", np.arctanh, x)]:
        add(Case("alias.%s.float32" % alias, "out = %s(x)" % alias).inp("x", arg).out("out", f(arg), 4), "function aliases")
    add(Case("alias.atan2.float32", "out = atan2(x, y)").inp("x", x).inp("y", y).out("out", np.arctan2(x, y), 4), "function aliases")
    add(Case("alias.pow.float32", "out = pow(x, y)").inp("x", xp).inp("y", y).out("out", np.power(xp, y), 4), "function aliases")
    xi = mk("int16", [2, 3, -2, 0, 5, 10, -1, 7])
    yi = mk("int16", [3, 2, 3, 0, 7, 4, 9, 1])
    add(Case("alias.pow.int16", "out = pow(x, y)").inp("x", xi).inp("y", yi).out("out", np.power(xi, yi), 0), "function aliases")
    for alias in ("abs", "fabs"):
        for dt in ("int8", "float32", "complex64"):
            v = mk(dt, [-128, 127, -1, 0, 5, -7] if dt == "int8" else ([-0.0, 1.5, -INF, NAN, -2.5, 3.0] if dt == "float32"
                                                                       else [3 + 4j, -1 - 1j, 0j, complex(-INF, 1)]))
            r = np.absolute(v)
            add(Case("alias.%s.%s" % (alias, dt), "out = %s(x)" % alias).inp("x", v)
                .out("out", r, 0 if dt != "complex64" else 4), "function aliases")
    xd = mk("float32", [0.5, 1.5, -2.5, 3.7])
    add(Case("alias.double", "out = double(x)").inp("x", xd).out("out", xd.astype(np.float64), 0), "function aliases")
    xh = mk("float32", [0.1, 1.0, 65520.0, -3.3])
    add(Case("alias.half", "out = half(x)").inp("x", xh).out("out", xh.astype(np.float16), 0), "function aliases")


# --------------------------------------------------------------------------------------------
# clip, where, ternary
# --------------------------------------------------------------------------------------------
def gen_clip_where():
    for dt in DTYPES:
        n = 10
        if dt == "bool":
            xs, los, his = rand_bool(n), [False] * n, [True] * (n - 2) + [False, False]
        elif dt in INTS:
            xs = generic_vals(dt, n)
            xs[:2] = [imin(dt), imax(dt)]
            los = rand_int(dt, n, -20 if dt in SINTS else 0, 10)
            his = [l + int(v) for l, v in zip(los, rand_int(dt, n, 0, 30))]
            his[-1] = los[-1] - 1 if los[-1] > imin(dt) else los[-1]  # lo > hi: NumPy gives hi
        elif dt in FLOATS:
            xs = rand_float(dt, n, -50, 50)
            xs[:3] = [NAN, INF, -INF]
            los = rand_float(dt, n, -20, 0)
            his = rand_float(dt, n, 1, 20)
            his[-1] = -30.0
            los[-2] = NAN
        else:
            xs, los, his = rand_cplx(n, -5, 5), rand_cplx(n, -2, 0), rand_cplx(n, 0, 2)
        x, lo, hi = mk(dt, xs), mk(dt, los), mk(dt, his)
        r = apply(np.clip, [x, lo, hi], dt)
        add(Case("clip.%s" % dt, "out = clip(x, lo, hi)").inp("x", x).inp("lo", lo).inp("hi", hi).out("out", r, 0),
            "clip/where/ternary")
        if dt != "bool":
            if dt in UINTS:
                l, h = 2, 100
            elif dt in CPLX or dt in FLOATS:
                l, h = -1.5, 2.5
            else:
                l, h = -3, 50
            if dt == "bfloat16":
                r = np.clip(x.astype(np.float32), lit_to(dt, l), lit_to(dt, h)).astype(BF16)
            else:
                r = np.asarray(np.clip(x, l, h))
            assert dtname(r) == dt
            add(Case("clip.literal.%s" % dt, "out = clip(x, %s, %s)" % (l, h)).inp("x", x).out("out", r, 0),
                "clip/where/ternary")
        # where / ternary
        c = mk("bool", rand_bool(n))
        ys = generic_vals(dt, n)
        zs = generic_vals(dt, n)
        if dt in FLOATS:
            ys[0], zs[1] = NAN, -0.0
        y, z = mk(dt, ys), mk(dt, zs)
        r = apply(np.where, [c, y, z], dt)
        add(Case("where.%s" % dt, "out = where(c, x, y)").inp("c", c).inp("x", y).inp("y", z).out("out", r, 0),
            "clip/where/ternary")
        add(Case("cond.%s" % dt, "out = c ? x : y").inp("c", c).inp("x", y).inp("y", z).out("out", r, 0),
            "clip/where/ternary")
    W = "clip/where/ternary"
    c = mk("bool", [True, False, True, False, True, False])
    x8 = mk("int8", [1, -2, 127, -128, 0, 5])
    f32 = mk("float32", [0.5, -1.5, NAN, 2.0, 3.0, -0.0])
    add(Case("where.int8.float32", "out = where(c, x, y)").inp("c", c).inp("x", x8).inp("y", f32)
        .out("out", np.where(c, x8, f32), 0), W)
    add(Case("where.weak.int8", "out = where(c, x, 0)").inp("c", c).inp("x", x8).out("out", np.where(c, x8, 0), 0), W)
    add(Case("where.weakf.int8", "out = where(c, x, 0.5)").inp("c", c).inp("x", x8).out("out", np.where(c, x8, 0.5), 0), W)
    add(Case("where.weak2.int64", "out = where(c, 1, 2)").inp("c", c).out("out", np.where(c, 1, 2), 0), W)
    f16 = mk("float16", [0.5, -1.5, NAN, 2.0, 65504.0, -0.0])
    add(Case("where.weakf.float16", "out = c ? x : 1.5").inp("c", c).inp("x", f16).out("out", np.where(c, f16, 1.5), 0), W)
    for dt, vals in [("int8", [0, 1, -2, 0, 127, -128]), ("float32", [0.0, -0.0, NAN, 1e-30, INF, 0.0]),
                     ("complex64", [0j, complex(0, 1e-30), complex(NAN, 0), 1 + 0j, complex(-0.0, 0), complex(0, -0.0)])]:
        cc = mk(dt, vals)
        add(Case("where.cond_%s" % dt, "out = where(c, x, y)").inp("c", cc).inp("x", x8).inp("y", -x8)
            .out("out", np.where(cc, x8, -x8), 0), W)
        add(Case("cond.cond_%s" % dt, "out = c ? x : y").inp("c", cc).inp("x", x8).inp("y", -x8)
            .out("out", np.where(cc, x8, -x8), 0), W)
    xf = mk("float64", [1.0, -2.0, 0.0, -0.0, NAN, 5.0])
    add(Case("cond.abs.float64", "out = x > 0 ? x : -x").inp("x", xf).out("out", np.where(xf > 0, xf, -xf), 0), W)
    add(Case("cond.nested.int16", "out = x > 0 ? 1 : x < 0 ? -1 : 0").inp("x", mk("int16", [5, -3, 0, 32767, -32768, 1]))
        .out("out", np.where(mk("int16", [5, -3, 0, 32767, -32768, 1]) > 0, 1,
                             np.where(mk("int16", [5, -3, 0, 32767, -32768, 1]) < 0, -1, 0)), 0), W)
    x16 = mk("int16", [-5, 0, 5, 100, -100, 7])
    add(Case("where.mix.int16", "out = where(x > 0, x, 0.5)").inp("x", x16).out("out", np.where(x16 > 0, x16, 0.5), 0), W)
    add(Case("clip.mix.int8", "out = clip(x, 0.5, 2.5)").inp("x", x8).out("out", np.clip(x8, 0.5, 2.5), 0), W)


# --------------------------------------------------------------------------------------------
# Casts
# --------------------------------------------------------------------------------------------
def cast_values(frm, to, n=12):
    if frm == "bool":
        return [True, False] * (n // 2)
    if frm in INTS:
        vals = [0, 1, imin(frm), imax(frm)] + ([-1] if frm in SINTS else [imax(frm) - 1])
        vals += rand_int(frm, n - len(vals) - 3) + rand_int(frm, 3, -300, 300)
        if to == "float16" and frm not in ("int8", "uint8"):
            vals += [65504, 65519, 65520, 2049, 4097]  # 65520 rounds to inf in float16
            vals = [v for v in vals if imin(frm) <= v <= imax(frm)]
        if to == "bfloat16":
            vals = [v for v in vals if not bf16_double_rounding_differs(v)]
        return vals
    if to in INTS:
        lo, hi = imin(to), imax(to)
        rf = real_of(frm)
        # in-range values only: truncation toward zero lands in [lo, hi]
        span = min(float(finfo(rf).max), float(hi))
        vals = [0.0, -0.0, 1.5, -0.5, 0.9, 2.75] + ([-1.5, -7.25, float(lo)] if to in SINTS else [])
        vals += list(rng.uniform(-min(span, 1e6) if to in SINTS else 0, min(span, 1e6), 4))
        big = {"int8": 127.9, "uint8": 255.5, "int16": 32767.5, "uint16": 65535.5}.get(to)
        if big is not None and big <= float(finfo(rf).max):
            vals.append(big)
        if to in ("int32", "uint32", "int64", "uint64") and rf != "float16":
            cand = {"int32": [2147483520.0, -2147483648.0, 2147483647.0], "uint32": [4294967040.0, 4294967295.0],
                    "int64": [9.2233714e18, -9.223372036854775808e18, 2.0 ** 62], "uint64": [1.8446743e19, 2.0 ** 63]}[to]
            vals += cand
        if rf == "float16":
            vals = [v for v in vals if abs(v) <= 65504]
        vals = list(mk(rf, vals).astype(np.float64))
        # after rounding to the source dtype, keep what truncates into range
        vals = [v for v in vals if lo <= math.trunc(v) <= hi]
        if frm in CPLX:
            vals = [complex(v, w) for v, w in zip(vals, rng.uniform(-5, 5, len(vals)))]
        return vals
    # float/complex -> float/complex/bool
    rf = real_of(frm)
    vals = fspecials(rf) + rand_float(rf, 4, -1e4, 1e4) + [0.1, 3.0e-5, 70000.0, 1.0000001]
    if frm in CPLX:
        vals = [complex(v, w) for v, w in zip(vals, fspecials(rf)[::-1] + list(rng.uniform(-5, 5, 16)))]
        vals[:2] = [0j, complex(-0.0, -0.0)]
    if to == "bfloat16" and rf == "float64":
        vals = [v for v in vals if not bf16_double_rounding_differs(v.real if isinstance(v, complex) else v)]
    return vals


def do_cast(x, to):
    frm = dtname(x)
    if to == "bfloat16":
        if frm in ("float32", "float16", "bfloat16", "bool", "int8", "uint8", "int16", "uint16", "complex64"):
            src = x.real if frm in CPLX else x
            return np.asarray(src).astype(np.float32).astype(BF16)
        src = x.real if frm in CPLX else x
        return to_bf16_exact([int(v) if frm in INTS else float(v) for v in src.ravel()])
    if frm == "bfloat16":
        return x.astype(np.float32).astype(npdt(to))
    return x.astype(npdt(to))


def sat_cast(v, to):
    lo, hi = imin(to), imax(to)
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return hi if v > 0 else lo
    return min(max(math.trunc(v), lo), hi)


def gen_casts():
    for frm in DTYPES:
        for to in DTYPES:
            vals = cast_values(frm, to)
            x = mk(frm, vals)
            r = do_cast(x, to)
            assert dtname(r) == to
            add(Case("cast.%s.%s" % (frm, to), "out = %s(x)" % to).inp("x", x).out("out", r, 0), "casts")
    # saturating float -> int (contract: NaN -> 0, clamp), a stated difference from NumPy
    for frm in FLOATS:
        for to in INTS:
            fi = finfo(frm)
            vals = [NAN, INF, -INF, float(fi.max), -float(fi.max), -1.5, -1.0, 1e30, -1e30,
                    float(imax(to)) + 1e6 if to not in ("int64", "uint64") else 2.0 ** 64,
                    float(imin(to)) - 1e6 if to not in ("int64", "uint64") else -2.0 ** 64, 2.0 ** 63]
            x = mk(frm, vals)
            xv = [float(v) for v in x.astype(np.float64)]
            keep = [k for k, v in enumerate(xv) if not math.isfinite(v) or not (imin(to) <= math.trunc(v) <= imax(to))]
            x = x[keep]
            r = np.array([sat_cast(float(v), to) for v in x.astype(np.float64)], dtype=np.dtype(to))
            add(Case("cast_sat.%s.%s" % (frm, to), "out = %s(x)" % to).inp("x", x).out("out", r, 0), "casts (saturating)")
    # float64 -> float16 is rounded once (NumPy: npy_double_to_half), not through float32
    x = mk("float64", [1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-40), 1 + 2**-11, 2049 + 2**-30, 65519.99, 6.0e-8 + 2**-60])
    add(Case("cast.float64.float16.double_rounding", "out = float16(x)").inp("x", x).out("out", x.astype(np.float16), 0),
        "casts")
    # same for bfloat16 (no NumPy twin; correctly rounded as float16 is)
    xv = [1 + 2**-8 + 2**-40, -(1 + 2**-8 + 2**-40), 257.0 + 2**-30]
    x = mk("float64", xv)
    add(Case("cast.float64.bfloat16.double_rounding", "out = bfloat16(x)").inp("x", x).out("out", to_bf16_exact(xv), 0),
        "casts")
    xi = [2**24 + 2**16 + 1, -(2**40 + 2**32 + 1), 2**60 + 2**52 + 2**28]
    x = mk("int64", xi)
    add(Case("cast.int64.bfloat16.double_rounding", "out = bfloat16(x)").inp("x", x).out("out", to_bf16_exact(xi), 0),
        "casts")
    # declared output dtypes convert as a cast does
    x = mk("float64", [1.5, -2.5, 100.25, -0.75, 3.0, 0.0])
    y = mk("float64", [1.0, 1.0, 20.0, 0.5, -3.0, -0.0])
    c = Case("outspec.int8", "out = x + y").inp("x", x).inp("y", y).out("out", (x + y).astype(np.int8), 0)
    c.outspecs = [("out", "int8")]
    add(c, "declared outputs")
    c = Case("outspec.float32", "out = x * y").inp("x", x).inp("y", y).out("out", (x * y).astype(np.float32), 0)
    c.outspecs = [("out", "float32")]
    add(c, "declared outputs")
    c = Case("outspec.bool", "out = x - y").inp("x", x).inp("y", y).out("out", (x - y).astype(np.bool_), 0)
    c.outspecs = [("out", "bool")]
    add(c, "declared outputs")
    xi = mk("int16", [300, -300, 127, 128, -129, 0])
    c = Case("outspec.int16.int8", "out = x * 2").inp("x", xi).out("out", (xi * 2).astype(np.int8), 0)
    c.outspecs = [("out", "int8")]
    add(c, "declared outputs")
    c = Case("outspec.auto", "out = x * 2").inp("x", xi).out("out", xi * 2, 0)
    c.outspecs = [("out", "auto")]
    add(c, "declared outputs")


# --------------------------------------------------------------------------------------------
# Programs: locals, compound assignment, precedence, constants, i and n, broadcasting
# --------------------------------------------------------------------------------------------
def gen_programs():
    P = "programs"
    f32 = mk("float32", rand_float("float32", 8, -10, 10))
    g32 = mk("float32", rand_float("float32", 8, -10, 10))
    i16 = mk("int16", [300, -300, 181, 182, -32768, 0, 7, 255])
    add(Case("prog.local.int16", "t = x*x; out = t + 1").inp("x", i16).out("out", i16 * i16 + 1, 0), P)
    add(Case("prog.local.float32", "t = x*x; out = t + 1").inp("x", f32).out("out", f32 * f32 + np.float32(1), 0), P)
    add(Case("prog.newlines.float32", "t = x*y\nu = t - x\nout = u * 0.5").inp("x", f32).inp("y", g32)
        .out("out", (f32 * g32 - f32) * 0.5, 0), P)
    add(Case("prog.comments.float32", "out = x + y; // sum\n  // a whole line\n/* block\ncomment */ out2 = x - y").inp("x", f32).inp("y", g32)
        .out("out", f32 + g32, 0).out("out2", f32 - g32, 0), P)
    f64 = mk("float64", rand_float("float64", 8, -10, 10))
    g64 = mk("float64", rand_float("float64", 8, -10, 10))
    add(Case("prog.typed_local.float64", "float32 t = x*y; out = t + 1").inp("x", f64).inp("y", g64)
        .out("out", (f64 * g64).astype(np.float32) + np.float32(1), 0), P)
    add(Case("prog.typed_local.int8", "int8 t = x; out = t + 1").inp("x", mk("int32", [127, 128, -129, 5, 1000, -1]))
        .out("out", mk("int32", [127, 128, -129, 5, 1000, -1]).astype(np.int8) + np.int8(1), 0), P)
    # no contraction: x*y + z must round the product (fma would differ on these values)
    for dt, p in (("float32", 12), ("float64", 27)):
        xs = [1 + 2.0**-p, 1 + 2.0**-(p - 2), 3.0, 0.1]
        ys = [1 + 2.0**-p, 1 - 2.0**-(p - 2), 1 / 3, 10.0]
        x, y = mk(dt, xs), mk(dt, ys)
        z = -(x * y)
        r = x * y + z  # all zeros; a fused multiply-add gives the rounding error of x*y instead
        fused = [float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))) for a, b, c in zip(x, y, z)]
        assert any(f != 0 for f in fused)
        add(Case("prog.no_fma.%s" % dt, "out = x*y + z").inp("x", x).inp("y", y).inp("z", z).out("out", r, 0), P)
    # float16: each operation is rounded (NumPy rounds per ufunc call)
    h = mk("float16", [2048.0, 1.0, 0.1, 100.0])
    add(Case("prog.half_per_op.float16", "out = x + 1 - 1").inp("x", h).out("out", (h + 1) - 1, 0), P)
    # compound assignment to declared outputs
    c = Case("prog.compound.float32", "out = x; out += y; out *= 2; out -= x; out /= 4").inp("x", f32).inp("y", g32)
    c.out("out", (((f32 + g32) * np.float32(2)) - f32) / np.float32(4), 0)
    c.outspecs = [("out", "auto")]
    add(c, P)
    xi = mk("int32", [5, -7, 1 << 20, -1, 0, 12345])
    yi = mk("int32", [3, 2, 4, 31, 1, -5])
    c = Case("prog.compound.int32", "out = x; out %= y; out <<= 2; out |= 1; out ^= x; out &= 255; out >>= 1")
    c.inp("x", xi).inp("y", yi)
    v = xi % yi
    v = v << 2
    v = v | 1
    v = v ^ xi
    v = v & 255
    v = v >> 1
    c.out("out", v, 0)
    c.outspecs = [("out", "auto")]
    add(c, P)
    # an output assigned twice (inferred outputs: never read back)
    add(Case("prog.multi_out.int8", "a = x + y; b = x - y").inp("x", mk("int8", [1, 127, -128, 5])).inp("y", mk("int8", [1, 1, 1, -5]))
        .out("a", mk("int8", [1, 127, -128, 5]) + mk("int8", [1, 1, 1, -5]), 0)
        .out("b", mk("int8", [1, 127, -128, 5]) - mk("int8", [1, 1, 1, -5]), 0), P)
    # precedence
    add(Case("prog.neg_pow.float32", "out = -x**2").inp("x", f32).out("out", -(f32 ** 2), 4), P)
    add(Case("prog.pow_right_assoc.float64", "out = x ** y ** 0.5").inp("x", mk("float64", [2.0, 3.0, 1.5, 0.5]))
        .inp("y", mk("float64", [4.0, 9.0, 2.0, 1.0]))
        .out("out", mk("float64", [2.0, 3.0, 1.5, 0.5]) ** (mk("float64", [4.0, 9.0, 2.0, 1.0]) ** 0.5), 2), P)
    add(Case("prog.pow_unary_rhs.float64", "out = x ** -y").inp("x", mk("float64", [2.0, 3.0, 1.5, 0.5]))
        .inp("y", mk("float64", [1.0, 2.0, 3.0, 0.5])).out("out", mk("float64", [2.0, 3.0, 1.5, 0.5]) ** -mk("float64", [1.0, 2.0, 3.0, 0.5]), 2), P)
    a8, b8 = mk("int8", [1, 2, 3, 4, -1, 0]), mk("int8", [3, 1, 2, 4, 5, 0])
    add(Case("prog.prec_shift_add.int8", "out = x << 1 + y").inp("x", a8).inp("y", b8).out("out", a8 << (np.int8(1) + b8), 0), P)
    add(Case("prog.prec_bitand_eq.int8", "out = x & y == y").inp("x", a8).inp("y", b8)
        .out("out", np.bitwise_and(a8, b8 == b8), 0), P)
    add(Case("prog.prec_mul_mod.int8", "out = x * y % 3 - x / 2").inp("x", a8).inp("y", b8)
        .out("out", ((a8 * b8) % 3) - a8 / 2, 0), P)
    add(Case("prog.logic.float32", "out = (x < y) && (y < 1) || !(x == x)").inp("x", f32).inp("y", g32)
        .out("out", np.logical_or(np.logical_and(f32 < g32, g32 < 1), np.logical_not(f32 == f32)), 0), P)
    # constants
    add(Case("prog.pi.float32", "out = x * pi").inp("x", f32).out("out", f32 * np.pi, 0), P)
    add(Case("prog.e.float64", "out = x + e").inp("x", f64).out("out", f64 + np.e, 0), P)
    add(Case("prog.inf.float32", "out = x < inf").inp("x", mk("float32", [1.0, INF, NAN, -INF])).out("out", mk("float32", [1.0, INF, NAN, -INF]) < np.inf, 0), P)
    add(Case("prog.nan.float16", "out = isnan(x + nan)").inp("x", mk("float16", [1.0, INF])).out("out", np.isnan(mk("float16", [1.0, INF]) + np.nan), 0), P)
    bb = mk("bool", [True, False, True, False])
    add(Case("prog.true.bool", "out = x & true").inp("x", bb).out("out", bb & True, 0), P)
    add(Case("prog.false.bool", "out = x | false").inp("x", bb).out("out", bb | False, 0), P)
    # i and n (strong int64)
    x8 = mk("int8", [10, 20, 30, 40, 50, 60, 70, 127])
    add(Case("prog.i.int8", "out = x + i").inp("x", x8).out("out", x8 + np.arange(8, dtype=np.int64), 0), P)
    x2 = mk("float64", rand_float("float64", 8)).reshape(2, 4)
    add(Case("prog.i_n.float64.2d", "out = x + float64(i) / n").inp("x", x2)
        .out("out", x2 + (np.arange(8, dtype=np.int64).astype(np.float64) / np.int64(8)).reshape(2, 4), 0), P)
    add(Case("prog.n_minus_i.int16", "out = x + (n - i)").inp("x", mk("int16", [0, 0, 0, 5, 5, 5]))
        .out("out", mk("int16", [0, 0, 0, 5, 5, 5]) + (np.int64(6) - np.arange(6, dtype=np.int64)), 0), P)
    add(Case("prog.i_parity.float32", "out = (i % 2 == 0) ? x : -x").inp("x", f32)
        .out("out", np.where(np.arange(8) % 2 == 0, f32, -f32), 0), P)
    add(Case("prog.i_div.float32", "out = x * 0 + i / n").inp("x", f32[:4])
        .out("out", f32[:4] * 0 + np.arange(4, dtype=np.int64) / np.int64(4), 0), P)
    # literal-only programs: 0-d outputs in int64 / float64 / bool
    for cid, prog, val in [("lit.int", "out = 1 + 2", np.asarray(np.int64(1) + 2)), ("lit.float", "out = 1.5 * 2", np.asarray(1.5 * 2)),
                           ("lit.div", "out = 7 / 2", np.asarray(np.int64(7) / 2)), ("lit.mod", "out = -7 % 2", np.asarray(np.int64(-7) % 2)),
                           ("lit.bool", "out = true && false", np.asarray(True and False)), ("lit.cmp", "out = 3 < 5", np.asarray(np.int64(3) < 5)),
                           ("lit.pi", "out = pi", np.asarray(np.pi)), ("lit.sin", "out = sin(1)", np.asarray(np.sin(np.int64(1)))),
                           ("lit.pow", "out = 2 ** 10", np.asarray(np.int64(2) ** 10)), ("lit.powf", "out = 2.0 ** -1", np.asarray(2.0 ** -1)),
                           ("lit.neginf", "out = -inf", np.asarray(-np.inf)), ("lit.floordiv", "out = floor_divide(-7, 2)", np.asarray(np.floor_divide(np.int64(-7), 2))),
                           ("lit.cast", "out = float32(0.1)", np.asarray(np.float32(0.1))), ("lit.intdiv0", "out = 1 % 0", np.asarray(np.remainder(np.int64(1), np.int64(0))))]:
        tol = 2 if "sin" in prog else 0
        add(Case(cid, prog).out("out", val, tol), "literal-only programs")
    # broadcasting
    a = mk("float32", rand_float("float32", 8)).reshape(2, 4)
    b = mk("float32", rand_float("float32", 4))
    add(Case("bcast.2x4.4", "out = x + y").inp("x", a).inp("y", b).out("out", a + b, 0), "broadcasting")
    a = mk("int32", rand_int("int32", 3, -100, 100)).reshape(3, 1)
    b = mk("int32", rand_int("int32", 4, -100, 100)).reshape(1, 4)
    add(Case("bcast.3x1.1x4", "out = x * y").inp("x", a).inp("y", b).out("out", a * b, 0), "broadcasting")
    s = np.array(5, dtype=np.int8)
    b = mk("int8", [1, 2, 3, 127])
    add(Case("bcast.0d.int8", "out = x - s").inp("x", b).inp("s", s).out("out", b - s, 0), "broadcasting")
    a = mk("float64", rand_float("float64", 6)).reshape(2, 3)
    b = mk("float64", rand_float("float64", 6)).reshape(2, 3)
    add(Case("bcast.2d.same", "out = where(x > y, x, y)").inp("x", a).inp("y", b).out("out", np.where(a > b, a, b), 0), "broadcasting")
    s0 = np.array(2.5, dtype=np.float64)
    add(Case("bcast.0d.only", "out = x * 2").inp("x", s0).out("out", np.asarray(s0 * 2), 0), "broadcasting")


def gen_errors():
    E = "errors (check)"
    x = mk("float32", [1.0, 2.0])
    y = mk("float32", [3.0, 4.0])
    xi = mk("int8", [1, 2])
    cases = [
        ("bad.unknown_function", "out = sinn(x)*5", [("x", x)], "error: unknown function 'sinn'"),
        ("bad.unknown_name", "out = x + q", [("x", x)], "*"),
        ("bad.assign_in_expr", "out = x = y", [("x", x), ("y", y)], "*"),
        ("bad.chained_cmp", "out = x < y < x", [("x", x), ("y", y)], "*"),
        ("bad.type_float", "out = float(x)", [("x", x)], "*"),
        ("bad.type_int", "out = int(x)", [("x", x)], "*"),
        ("bad.type_long", "out = long(x)", [("x", x)], "*"),
        ("bad.local_reassigned", "float32 t = x; t = y; out = t", [("x", x), ("y", y)], "*"),
        ("bad.reserved", "_t = x; out = _t", [("x", x)], "*"),
        ("bad.syntax_trailing_op", "out = x &&", [("x", x)], "*"),
        ("bad.syntax_paren", "out = (x + y", [("x", x), ("y", y)], "*"),
        ("bad.pow_neg_literal.int8", "out = x ** -1", [("x", xi)], "*"),
        ("bad.pow_neg_literal.int32", "out = x ** -2", [("x", mk("int32", [1, 2]))], "*"),
        ("bad.xor_float_hint", "out = x ^ 2", [("x", x)], "*"),
        ("bad.lshift_literal.bool", "out = x << 1", [("x", mk("bool", [True, False]))], "*"),
        # bitwise ops between int64 (or any signed int) and uint64 promote to float64: NumPy has no loop
        ("bad.and.int64.uint64", "out = x & y", [("x", mk("int64", [1, 2])), ("y", mk("uint64", [1, 2]))], "*"),
        ("bad.lshift.int64.uint64", "out = x << y", [("x", mk("int64", [1, 2])), ("y", mk("uint64", [1, 2]))], "*"),
        ("bad.xor.int8.uint64", "out = x ^ y", [("x", mk("int8", [1, 2])), ("y", mk("uint64", [1, 2]))], "*"),
        ("bad.arity.sin", "out = sin(x, y)", [("x", x), ("y", y)], "*"),
        ("bad.arity.where", "out = where(x, y)", [("x", x), ("y", y)], "*"),
    ]
    for cid, prog, ins, err in cases:
        c = Case(cid, prog)
        for n_, a in ins:
            c.inp(n_, a)
        c.error = err
        add(c, E)


def gen_nextafter():
    """np.nextafter, on its own random stream (added after the rest: their data stays as it was).

    float16 and bfloat16 step on their own grids (ml_dtypes implements nextafter for bfloat16), not
    on float32's; ints and bools take NumPy's float loop (int8 -> float16)."""
    r2 = np.random.default_rng(SEED + 1)
    for dt in DTYPES:
        prog = "out = nextafter(x, y)"
        if dt in CPLX:
            c = Case("bad.nextafter.%s" % dt, prog)
            c.inp("x", mk(dt, [1 + 1j, 2j])).inp("y", mk(dt, [0j, 1 + 0j]))
            c.error = "*"
            add(c, "errors (dtype rejected)")
            continue
        if dt == "bool":
            xs, ys = [False, False, True, True], [False, True, False, True]
        elif dt in INTS:
            lo = -100 if dt in SINTS else 0
            xs = [0, 1, 1, 100] + [int(v) for v in r2.integers(lo, 100, size=6)]
            ys = [1, 2, 0, 0] + [int(v) for v in r2.integers(lo, 100, size=6)]
        else:
            fi = finfo(dt)
            mx, sub, nrm = float(fi.max), float(fi.smallest_subnormal), float(fi.smallest_normal)
            pairs = [(0.0, 1.0), (0.0, -1.0), (-0.0, 0.0), (0.0, -0.0), (1.0, 2.0), (1.0, 0.0), (-1.0, -2.0),
                     (-1.0, 0.0), (2.0, 2.0), (INF, 0.0), (-INF, 0.0), (mx, INF), (-mx, -INF), (NAN, 1.0),
                     (1.0, NAN), (sub, 0.0), (-sub, 0.0), (sub, 1.0), (nrm, 0.0), (nrm, 1.0), (0.5, 0.0),
                     (1024.0, 0.0), (-1024.0, -INF), (mx, 0.0)]
            rx = list(r2.uniform(-100, 100, size=8))
            ry = list(r2.uniform(-100, 100, size=8))
            xs, ys = [a for a, b in pairs] + rx, [b for a, b in pairs] + ry
        x, y = mk(dt, xs), mk(dt, ys)
        r = np.asarray(np.nextafter(x, y))  # bfloat16: ml_dtypes' own loop, on bfloat16's grid
        assert dtname(r) == (dt if dt in FLOATS else fn_result_dtype(dt)), (dt, dtname(r))
        add(Case("nextafter.%s" % dt, prog).inp("x", x).inp("y", y).out("out", r, 0), "functions (binary)")
    # mixed dtypes: the common type's grid
    for a, b in [("float16", "float32"), ("int8", "float16"), ("bfloat16", "float16")]:
        x = mk(a, [1.0, 0.0, -2.0, 3.0])
        y = mk(b, [2.0, -1.0, -3.0, 3.0])
        r = np.asarray(np.nextafter(x.astype(np.float32) if a == "bfloat16" else x, y))
        add(Case("nextafter.%s.%s" % (a, b), "out = nextafter(x, y)").inp("x", x).inp("y", y).out("out", r, 0),
            "functions (binary)")


# --------------------------------------------------------------------------------------------
# In-place updates (NumPy's in-place ufuncs: np.op(x, y, out=x, casting="same_kind"))
# --------------------------------------------------------------------------------------------
INPLACE_OPS = [(oid, sym, f, accepts, exact, kind) for oid, sym, f, accepts, exact, kind in BIN_OPS
               if sym in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>")]


def inplace_result(r, dt):
    """The value an in-place ufunc stores: NumPy's result cast to x's dtype (same_kind), or None."""
    rd = dtname(r)
    if not can_cast(rd, dt, "same_kind"):
        return None
    if rd == dt:
        return r
    return r.astype(npdt(dt)) if dt != "bfloat16" else r.astype(np.float32).astype(BF16)


def same_kind_error(rd, op, dt, name="x"):
    return "error: cannot store the %s result of '%s=' in %s input '%s', which is updated in place" % (rd, op, dt, name)


def gen_inplace():
    cat = "in-place updates"
    # Every operator with an op= form, on every dtype: x op= y with y of x's dtype.
    for oid, sym, f, accepts, exact, kind in INPLACE_OPS:
        for dt in DTYPES:
            prog = "x %s= y" % sym
            if not accepts(dt):
                x, y = mk(dt, generic_vals(dt, 4)), mk(dt, generic_vals(dt, 4))
                c = Case("inplace.%s.%s" % (oid, dt), prog).inp("x", x).inp("y", y)
                c.id = "bad." + c.id
                c.error = "*"
                add(c, cat)
                continue
            xs, ys = pair_values(dt, kind)
            x, y = mk(dt, xs), mk(dt, ys)
            r = apply(f, [x, y], result_bf([dt, dt]))
            v = inplace_result(r, dt)
            c = Case("inplace.%s.%s" % (oid, dt), prog).inp("x", x).inp("y", y)
            if v is None:
                c.id = "bad." + c.id
                c.error = same_kind_error(dtname(r), sym, dt)
            else:
                c.out("x", v, 0 if exact(dtname(v)) else ftol(dtname(v)))
            add(c, cat)
    # With a literal (weak, NEP 50): the result keeps x's dtype, or fails same_kind.
    for dt in DTYPES:
        if dt == "bool":
            continue
        x = mk(dt, generic_vals(dt, 6, small=True))
        for sym, f, lit in [("+", np.add, 3), ("*", np.multiply, 2.5), ("-", np.subtract, 1)]:
            prog = "x %s= %s" % (sym, lit)
            r = apply(f, [x, lit], result_bf([dt]) if isinstance(lit, int) or dt in INEXACT else "float64")
            v = inplace_result(r, dt)
            cid = "inplace.lit_%s.%s" % ({"+": "add", "*": "mul", "-": "sub"}[sym], dt)
            c = Case(cid, prog).inp("x", x)
            if v is None:
                c.id = "bad." + cid
                c.error = same_kind_error(dtname(r), sym, dt)
            else:
                c.out("x", v, 0 if dtname(v) not in CPLX else ftol(dtname(v)))
            add(c, cat)
    # The seed documents' example on every dtype: each statement reads the new value.
    for dt in DTYPES:
        x = mk(dt, generic_vals(dt, 8, small=True))
        c = Case("inplace.seed.%s" % dt, "x *= 5; x *= x; x += x").inp("x", x)
        v = x
        bad = None
        for sym, f, arg in [("*", np.multiply, 5), ("*", np.multiply, None), ("+", np.add, None)]:
            a = v if arg is None else arg
            r = apply(f, [v, a], result_bf([dt, dt]) if arg is None else result_bf([dt]))
            w = inplace_result(r, dt)
            if w is None:
                bad = same_kind_error(dtname(r), sym, dt)
                break
            v = w
        if bad:
            c.id = "bad." + c.id
            c.error = bad
        else:
            c.out("x", v, 0 if dt not in CPLX else ftol(dt))
        add(c, cat)
    # Reads before and after an update; two inputs updated; plain `x = e`; a constant;
    # a declared output beside the update; 2-d with a broadcast (read-only) operand.
    f32 = mk("float32", rand_float("float32", 8, -10, 10))
    g32 = mk("float32", rand_float("float32", 8, -10, 10))
    y = f32 + np.float32(1)
    x1 = f32 * np.float32(3)
    add(Case("inplace.read_before_after.float32", "y = x + 1; x *= 3; out = y + x").inp("x", f32)
        .out("x", x1, 0).out("out", y + x1, 0), cat)
    xi = mk("int32", rand_int("int32", 8, -1000, 1000))
    yi = mk("int32", rand_int("int32", 8, -1000, 1000))
    nx = xi + yi
    ny = yi - nx
    add(Case("inplace.two_inputs.int32", "x += y; y -= x").inp("x", xi).inp("y", yi).out("x", nx, 0).out("y", ny, 0), cat)
    f64 = f32.astype(np.float64)
    add(Case("inplace.assign.float64", "x = x * 2 - 1").inp("x", f64).out("x", f64 * 2 - 1, 0), cat)
    add(Case("inplace.const.int16", "x = 7").inp("x", mk("int16", [1, 2, 3, 4]))
        .out("x", mk("int16", [7, 7, 7, 7]), 0), cat)
    add(Case("inplace.const_float_into_float16", "x = 0.1").inp("x", mk("float16", [1, 2, 3]))
        .out("x", mk("float16", [0.1, 0.1, 0.1]), 0), cat)
    add(Case("inplace.cast.uint8", "x = uint8(y * 2.5)").inp("x", mk("uint8", [1, 2, 3, 4]))
        .inp("y", mk("float32", [1.0, 2.0, 3.0, 40.0])).out("x", (mk("float32", [1.0, 2.0, 3.0, 40.0]) * np.float32(2.5)).astype(np.uint8), 0), cat)
    c = Case("inplace.declared_out.float32", "x -= y; out = x * y").inp("x", f32).inp("y", g32)
    c.out("x", f32 - g32, 0).out("out", (f32 - g32) * g32, 0)
    c.outspecs = [("out", "auto")]
    add(c, cat)
    a = mk("float32", rand_float("float32", 12)).reshape(3, 4)
    b = mk("float32", rand_float("float32", 4))
    add(Case("inplace.2d_bcast_operand.float32", "x *= y; x += 1").inp("x", a).inp("y", b)
        .out("x", a * b + np.float32(1), 0), cat)
    # same_kind across dtypes: int16 += uint8 and uint16 += bool are allowed; uint8 += int8 (an
    # int16 result) and int8 += float32 are not
    u8, i8 = mk("uint8", [250, 1, 2, 3]), mk("int8", [10, -2, 3, -128])
    i16 = mk("int16", [32767, -5, 300, -32768])
    add(Case("inplace.mixed.int16.uint8", "x += y").inp("x", i16).inp("y", u8).out("x", np.add(i16, u8), 0), cat)
    u16, bb = mk("uint16", [65535, 0, 7, 9]), mk("bool", [True, False, True, True])
    add(Case("inplace.mixed.uint16.bool", "x -= y").inp("x", u16).inp("y", bb).out("x", np.subtract(u16, bb), 0), cat)
    assert not can_cast("int16", "uint8", "same_kind")
    c = Case("bad.inplace.mixed.uint8.int8", "x += y").inp("x", u8).inp("y", i8)
    c.error = same_kind_error("int16", "+", "uint8")
    add(c, cat)
    c = Case("bad.inplace.mixed.int8.float32", "x += y").inp("x", i8).inp("y", f32[:4])
    c.error = same_kind_error("float32", "+", "int8")
    add(c, cat)
    c = Case("bad.inplace.assign_float.int32", "x = y").inp("x", xi).inp("y", g32)
    c.error = "error: cannot store a float32 value in int32 input 'x', which is updated in place"
    add(c, cat)


def gen_complex():
    """complex(re, im): NumPy's re + im*1j, on its own random stream (added after the rest).

    Every pair of dtypes (bfloat16 parts are exact in float32, which promotes with a complex type
    as float16 does), special values paired with each other (im = inf gives a NaN real part, as
    NumPy's product im*1j does), weak literals and weak inputs on either side (NEP 50)."""
    r3 = np.random.default_rng(SEED + 2)

    def vals(dt):
        if dt == "bool":
            return [False, True, True, False, True, False, False, True, True, False]
        if dt in INTS:
            lo, hi = imin(dt), imax(dt)
            return [0, 1, hi, lo, hi - 1] + [int(v) for v in r3.integers(max(lo, -1000), min(hi, 1000), size=5)]
        if dt in FLOATS:
            fi = finfo(dt)
            return [0.0, -0.0, INF, -INF, NAN, float(fi.max), float(fi.smallest_subnormal)] + \
                [float(v) for v in mk(dt, r3.uniform(-100, 100, size=3)).astype(np.float64)]
        return [0j, complex(-0.0, -0.0), complex(INF, 0), complex(0, -INF), complex(NAN, 1), complex(1, NAN),
                complex(-INF, INF)] + list(r3.uniform(-10, 10, size=3) + 1j * r3.uniform(-10, 10, size=3))

    def np_of(a):  # bfloat16 computes as float32 (exact), which promotes with complex as float16 does
        return a.astype(np.float32) if is_bf(a) else a

    for a in DTYPES:
        for b in DTYPES:
            x, y = mk(a, vals(a)), mk(b, list(reversed(vals(b))))
            r = np.asarray(np_of(x) + np_of(y) * 1j)
            want = "complex64" if _f16(promote(_f16(a), promote_weak(_f16(b), "complex"))) == "complex64" else "complex128"
            assert dtname(r) == want, (a, b, dtname(r), want)
            add(Case("complex.%s.%s" % (a, b), "out = complex(x, y)").inp("x", x).inp("y", y).out("out", r, 0),
                "complex(re, im)")
    # weak literals and weak inputs on either side; two weak parts make a weak (Python) complex
    for dt in ["int8", "uint64", "float16", "bfloat16", "float32", "float64", "complex64"]:
        x = mk(dt, vals(dt))
        xn = np_of(x)
        for cid, prog, f in [("lit_im", "out = complex(x, 2)", lambda v: v + 2 * 1j),
                             ("lit_re", "out = complex(2.5, x)", lambda v: 2.5 + v * 1j),
                             ("lit_cplx", "out = complex(x, 0.5 + 1j)", lambda v: v + (0.5 + 1j) * 1j),
                             ("weak_both", "out = x + complex(1, 2)", lambda v: v + (1 + 2 * 1j))]:
            if cid == "weak_both" and dt not in CPLX + ["float32", "float16", "bfloat16"]:
                continue
            r = np.asarray(f(xn))
            if cid == "weak_both" and dt in ("float16", "bfloat16"):
                assert dtname(r) == "complex64"
            add(Case("complex.%s.%s" % (cid, dt), prog).inp("x", x).out("out", r, 0), "complex(re, im)")
        w = np.array(-1.5, dtype=np.float64)
        add(Case("complex.weakin.%s" % dt, "out = complex(a, x)").inp("x", x).inp("a", w, weak=True)
            .out("out", np.asarray(-1.5 + xn * 1j), 0), "complex(re, im)")
    c = Case("bad.complex.arity", "out = complex(x)").inp("x", mk("float32", [1.0, 2.0]))
    c.error = "*"
    add(c, "errors (check)")


def gen_mixed_sign_functions():
    """Float-only functions of two integers of mixed sign (and bools): NumPy's loop search takes the
    first loop each operand casts to safely, narrower than the common integer type's (arctan2 of
    uint8 and int8 is float16, not int16's float32). Its own random stream (added after the rest)."""
    r4 = np.random.default_rng(SEED + 3)
    pairs = [("uint8", "int8"), ("int8", "uint8"), ("uint16", "int16"), ("int8", "uint16"), ("uint16", "int8"),
             ("uint32", "int32"), ("uint8", "int16"), ("bool", "int8"), ("uint8", "uint16"), ("int64", "uint64")]
    funcs = [("arctan2", np.arctan2, False), ("hypot", np.hypot, False), ("copysign", np.copysign, True)]
    for a, b in pairs:
        for name, f, exact in funcs:
            def ints(dt):
                if dt == "bool":
                    return [bool(v) for v in r4.integers(0, 2, 8)]
                return [int(v) for v in r4.integers(max(imin(dt), -100), min(imax(dt), 100), 8)]
            x, y = mk(a, ints(a)), mk(b, ints(b))
            r = np.asarray(f(x, y))
            add(Case("%s.mixedsign.%s.%s" % (name, a, b), "out = %s(x, y)" % name).inp("x", x).inp("y", y)
                .out("out", r, 0 if exact else ftol(dtname(r))), "functions (binary)")
    # clip's Python int bounds beyond an integer array's range: NumPy drops a bound on its own side
    # (a lower one at or below the minimum, an upper one at or above the maximum); on the other side
    # it is NumPy's OverflowError, a program error here.
    for dt, lo, hi in [("uint8", -3, 7), ("uint8", 2, 1000), ("uint8", -3, 1000), ("int8", -300, 300),
                       ("int8", -1000, 5), ("uint16", -1, 70000), ("uint64", -1, 3), ("int16", 100, 40000)]:
        info = np.iinfo(dt)
        x = mk(dt, [int(info.min), int(info.max), 0] + [int(v) for v in r4.integers(max(int(info.min), -50), 50, 5)])
        prog = "out = clip(x, %d, %d)" % (lo, hi)
        add(Case("clip.pybound.%s.%d.%d" % (dt, lo, hi), prog).inp("x", x).out("out", np.asarray(np.clip(x, lo, hi)), 0),
            "clip and where")
    # The logical functions read a Python int of any size by its truth (256 with uint8 is true).
    for dt, prog, f in [("uint8", "out = logical_or(x, 256)", lambda v: np.logical_or(v, 256)),
                        ("uint32", "out = logical_and(x, -1)", lambda v: np.logical_and(v, -1)),
                        ("int8", "out = logical_xor(x, 1000)", lambda v: np.logical_xor(v, 1000)),
                        ("uint16", "out = x && -7", lambda v: np.logical_and(v, -7)),
                        ("int16", "out = !(x || 70000)", lambda v: np.logical_not(np.logical_or(v, 70000)))]:
        x = mk(dt, [0, 1, 2, 0] + [int(v) for v in r4.integers(0, 50, 4)])
        add(Case("logical.pybig.%s" % dt, prog).inp("x", x).out("out", np.asarray(f(x)), 0), "weak literals (NEP 50)")
    for dt, lo, hi in [("uint8", 300, 400), ("uint8", -5, -3), ("int8", -200, -150)]:
        c = Case("bad.clip.pybound.%s.%d.%d" % (dt, lo, hi), "out = clip(x, %d, %d)" % (lo, hi)).inp("x", mk(dt, [1, 2]))
        c.error = "*"
        add(c, "errors (check)")


def main():
    hdr = "# generated by tests/data/gen_reference.py: numpy %s, ml_dtypes %s, mpmath %s, python %s, seed %d" % (
        np.__version__, ml_dtypes.__version__, mpmath.__version__, sys.version.split()[0], SEED)
    write_promotion(os.path.join(HERE, "promotion.txt"), hdr)
    gen_binary_ops()
    gen_unary_ops()
    gen_mixed()
    gen_weak()
    gen_functions()
    gen_functions2()
    gen_aliases()
    gen_clip_where()
    gen_casts()
    gen_programs()
    gen_errors()
    gen_nextafter()
    gen_inplace()


    gen_complex()
    gen_mixed_sign_functions()
    write_cases(os.path.join(HERE, "eval_cases.txt"), hdr)
    total = 0
    for k in sorted(COUNTS):
        print("%-40s %5d" % (k, COUNTS[k]))
        total += COUNTS[k]
    print("%-40s %5d" % ("total", total))
    print("eval_cases.txt: %d bytes" % os.path.getsize(os.path.join(HERE, "eval_cases.txt")))


if __name__ == "__main__":
    main()
