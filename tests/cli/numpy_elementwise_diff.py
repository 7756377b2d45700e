#!/usr/bin/env python3
"""Random elementwise programs against NumPy through jitrun --device cpu: the oracle on programs nobody wrote.

    numpy_elementwise_diff.py JITRUN [CASES] [SEED] [DEVICE]

(DEVICE: jitrun's --device, cpu by default; 0 runs the same programs on the first GPU.)

Each case draws two arrays (x of 0-2 dimensions, y of x's shape, one row of it or 0-d; any dtype but
bfloat16, which NumPy lacks; NaNs, infinities, signed zeros, subnormals and integer extremes mixed in)
and an expression of the language's operators and functions over them and Python literals (weak, as in
NumPy 2: `x + 300` with an int8 x is NumPy's OverflowError). A part made of exactly rounded operations
(arithmetic, comparisons, bitwise and logical operators, shifts, rounding functions, minimum/maximum,
where, clip, square roots) must give NumPy's dtype, shape and bits; a transcendental function may sit
on top of such a part (and be added to or multiplied by another one), within 16 ulps of the coarsest float
dtype among the result and its terms, relative to the largest of their magnitudes. Where NumPy raises, jitrun must fail with a usage, program or
data error (1, 2 or 3), never crash. Exit 1 naming each case that differs.

Left out, each a documented difference (docs/language.md): shifts of bools (the language takes
integers only); an integer to a negative literal power in an empty array (refused when checked, where
NumPy has no element to raise on), and NumPy's error on a part of the program whose output is empty
(a fused program computes no element to raise on); which of -0.0 and 0.0 fmin and fmax give, and
minimum and maximum where float16 takes part (compared as values there).
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
    print("numpy_elementwise_diff: NumPy is missing (python3-numpy): skipped")
    sys.exit(77)

# The language's contract is NumPy 2's. NumPy 1.x (Debian 12's 1.24) differs in more than promotion,
# which numpy_reductions_diff.py switches to NEP 50: floor/ceil/trunc of integers give floats, clip
# and comparisons with out-of-range Python integers raise, complex products are textbook: not the oracle.
if np.lib.NumpyVersion(np.__version__) < "2.0.0":
    print("numpy_elementwise_diff: NumPy %s is not the oracle (the language follows NumPy 2): skipped" % np.__version__)
    sys.exit(77)

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
          "float32", "float64", "complex64", "complex128"]

# name in the language: (NumPy's function, arity, kinds it is drawn for: b bool, i integer, f float, c complex)
EXACT_BIN = {
    "+": (np.add, "bifc"), "-": (np.subtract, "ifc"), "*": (np.multiply, "bifc"), "/": (np.true_divide, "ifc"),
    "%": (np.remainder, "if"), "floor_divide": (np.floor_divide, "if"), "fmod": (np.fmod, "if"),
    "&": (np.bitwise_and, "bi"), "|": (np.bitwise_or, "bi"), "^": (np.bitwise_xor, "bi"),
    "<<": (np.left_shift, "i"), ">>": (np.right_shift, "i"), "**": (np.power, "i"),
    "<": (np.less, "bif"), "<=": (np.less_equal, "bif"), "==": (np.equal, "bifc"), "!=": (np.not_equal, "bifc"),
    ">": (np.greater, "bif"), ">=": (np.greater_equal, "bif"),
    "&&": (np.logical_and, "bif"), "||": (np.logical_or, "bif"),
    "maximum": (np.maximum, "bif"), "minimum": (np.minimum, "bif"), "fmax": (np.fmax, "if"), "fmin": (np.fmin, "if"),
    "copysign": (np.copysign, "f"), "nextafter": (np.nextafter, "f"),
}
EXACT_UN = {
    "-": (np.negative, "ifc"), "~": (np.invert, "bi"), "!": (np.logical_not, "bif"), "abs": (np.absolute, "bif"),
    "sqrt": (np.sqrt, "f"), "floor": (np.floor, "bif"), "ceil": (np.ceil, "bif"), "trunc": (np.trunc, "bif"),
    "rint": (np.rint, "f"), "sign": (np.sign, "if"), "square": (np.square, "if"), "isnan": (np.isnan, "fc"),
    "isinf": (np.isinf, "f"), "isfinite": (np.isfinite, "f"), "signbit": (np.signbit, "f"),
}
TRANS = {"sin": np.sin, "cos": np.cos, "tanh": np.tanh, "exp": np.exp, "log": np.log, "log1p": np.log1p,
         "expm1": np.expm1, "arctan": np.arctan, "cbrt": np.cbrt, "arcsinh": np.arcsinh, "exp2": np.exp2,
         "log2": np.log2, "sinh": np.sinh, "arctan2": np.arctan2, "hypot": np.hypot, "power": np.power}
INFIX = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "**", "<", "<=", "==", "!=", ">", ">=", "&&", "||"}


def kind(dt):
    return {"b": "b", "i": "i", "u": "i", "f": "f", "c": "c"}[np.dtype(dt).kind]


def values(rng, r, dt, shape):
    n = int(np.prod(shape))
    if dt == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if kind(dt) == "i":
        info = np.iinfo(dt)
        a = rng.integers(max(info.min, -20), min(info.max, 20) + 1, n).astype(dt)
        if n and r.random() < 0.5:
            a[rng.integers(0, n, max(1, n // 6))] = r.choice([info.min, info.max, 0, 1])
        return a.reshape(shape)
    a = rng.standard_normal(n) * r.choice([1.0, 4.0, 1e3])
    if dt.startswith("complex"):
        a = a + 1j * rng.standard_normal(n)
    if n and r.random() < 0.5:
        special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-310, 1e300, 0.5, 2.5, -1.0]
        for k in rng.integers(0, n, max(1, n // 5)):
            a[k] = r.choice(special)
    if r.random() < 0.2:
        a = np.round(a)
    with np.errstate(all="ignore"):
        return a.astype(dt).reshape(shape)


def literal(r, k):
    """A Python literal as the language spells it and as NumPy receives it."""
    if k == "f" or r.random() < 0.3:
        v = r.choice([0.5, 2.0, -3.25, 1e-3, 100.0, 1e30])
    else:
        v = r.choice([0, 1, 2, 3, -1, -7, 127, 300, 70000])
    return ("(%r)" if v < 0 else "%r") % v, v  # (-3.25) ** y is not -(3.25 ** y)


class Node:
    """An expression's text and how NumPy computes it (a function of the inputs, run once drawn in full)."""
    def __init__(self, src, fn, exact=True, terms=()):
        self.src, self.fn, self.exact, self.terms = src, fn, exact, terms


def ev(fn, *a):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*a)


def kind_of(node, env):
    """The operand's kind, from its dtype as NumPy would compute it (None where NumPy refuses)."""
    try:
        v = node.fn(env)
    except Exception:
        return None
    return kind(np.asarray(v).dtype) if not isinstance(v, (int, float)) else ("f" if isinstance(v, float) else "i")


def leaf(r, env):
    name = r.choice(list(env))
    return Node(name, lambda e, n=name: e[n])


def lit_node(r, k):
    s, v = literal(r, k)
    return Node(s, lambda e, v=v: v)


def exact_tree(r, env, depth):
    """An exactly rounded expression."""
    if depth == 0 or r.random() < 0.3:
        return leaf(r, env)
    a = exact_tree(r, env, depth - 1)
    k = kind_of(a, env) or "i"
    roll = r.random()
    if roll < 0.25:
        name = r.choice([n for n, (_, ks) in EXACT_UN.items() if k in ks])
        fn = EXACT_UN[name][0]
        fmt = "%s(%s)" if name[0].isalpha() else "(%s(%s))"  # -(x) ** y is -(x ** y), as in Python
        return Node(fmt % (name, a.src), lambda e, fn=fn, a=a: ev(fn, a.fn(e)))
    if roll < 0.35:  # where / clip
        if r.random() < 0.5 or k not in "if":
            b, c = exact_tree(r, env, depth - 1), leaf(r, env)
            if kind_of(c, env) == "c":
                csrc, cf = "isfinite(%s)" % c.src, lambda e, c=c: ev(np.isfinite, c.fn(e))
            else:
                csrc, cf = "(%s > 0)" % c.src, lambda e, c=c: ev(np.greater, c.fn(e), 0)
            return Node("where(%s, %s, %s)" % (csrc, a.src, b.src),
                        lambda e, a=a, b=b, cf=cf: ev(np.where, cf(e), a.fn(e), b.fn(e)))
        (ls, lo), (hs, hi) = sorted([literal(r, k), literal(r, k)], key=lambda t: t[1])
        return Node("clip(%s, %s, %s)" % (a.src, ls, hs), lambda e, a=a, lo=lo, hi=hi: ev(np.clip, a.fn(e), lo, hi))
    name = r.choice([n for n, (_, ks) in EXACT_BIN.items() if k in ks])
    fn = EXACT_BIN[name][0]
    b = lit_node(r, k) if r.random() < 0.3 else exact_tree(r, env, depth - 1)
    if r.random() < 0.5:
        a, b = b, a
    if name == "**" and kind_of(Node("", lambda e: ev(np.power, a.fn(e), b.fn(e))), env) not in ("i", None):
        name, fn = "*", np.multiply  # a float power (int64 ** uint64 too) is not exactly rounded: power() on top draws it
    if name in ("<<", ">>") and "b" in (kind_of(a, env), kind_of(b, env)):
        name, fn = "|", np.bitwise_or  # shifts of bools: an error in the language (NumPy lifts them)
    src = "(%s %s %s)" % (a.src, name, b.src) if name in INFIX else "%s(%s, %s)" % (name, a.src, b.src)
    return Node(src, lambda e, fn=fn, a=a, b=b: ev(fn, a.fn(e), b.fn(e)))


def expression(r, env):
    a = exact_tree(r, env, r.choice([1, 2, 3]))
    if a.src in env or r.random() < 0.6:
        return a
    # A transcendental on top, perhaps combined with another exact part by + or *.
    name = r.choice(list(TRANS))
    if name == "power" and kind_of(a, env) == "c":
        name = "exp"  # complex powers have a bound of their own (docs/language.md, "Accuracy")
    fn = TRANS[name]
    if name in ("arctan2", "hypot", "power"):
        b = exact_tree(r, env, 1)
        t = Node("%s(%s, %s)" % (name, a.src, b.src), lambda e: ev(fn, a.fn(e), b.fn(e)), False)
    else:
        t = Node("%s(%s)" % (name, a.src), lambda e: ev(fn, a.fn(e)), False)
    if r.random() < 0.4:
        c = exact_tree(r, env, 1)
        op, f2 = r.choice([("+", np.add), ("*", np.multiply)])
        return Node("(%s %s %s)" % (t.src, op, c.src), lambda e: ev(f2, t.fn(e), c.fn(e)), False, (t, c))
    return Node(t.src, t.fn, False, (t,))


def same(got, want, node, env):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    half = any(np.asarray(v).dtype == np.float16 for v in env.values()) or want.dtype == np.float16
    if node.exact and want.dtype.kind == "f" and ("fmin(" in node.src or "fmax(" in node.src or (
            half and ("minimum(" in node.src or "maximum(" in node.src))):
        # Of -0.0 and 0.0, NumPy's float16 minimum and maximum give the first (cujit: the second, as
        # NumPy's float32/float64 loops), and its fmin/fmax either by the array's length: values, not bits.
        with np.errstate(all="ignore"):
            return bool(np.all((got == want) | (np.isnan(got) & np.isnan(want))))
    if want.dtype.kind in "biu" or node.exact:
        if want.dtype.kind in "fc":
            # The same bits, but any NaN for a NaN (payloads are not NumPy's contract).
            same_bits = np.array_equal(got.view("V%d" % got.itemsize), want.view("V%d" % want.itemsize))
            if same_bits:
                return True
            parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else [(got, want)]
            for g, w in parts:
                nan = np.isnan(w)
                if not np.array_equal(np.isnan(g), nan):
                    return False
                if not np.array_equal(g[~nan].view("V%d" % g.itemsize), w[~nan].view("V%d" % w.itemsize)):
                    return False
            return True
        return np.array_equal(got, want)
    # The coarsest float among the result and its terms (cos of a uint16 is float32 in NumPy, even
    # where the sum it joins is float64), relative to the largest of their magnitudes.
    eps, tiny, mag = 0.0, 0.0, np.abs(want.astype(np.complex128))
    for v in [want] + [np.asarray(t.fn(env)) for t in node.terms]:
        if v.dtype.kind in "fc":
            fi = np.finfo(v.real.dtype if v.dtype.kind == "c" else v.dtype)
            eps, tiny = max(eps, float(fi.eps)), max(tiny, float(fi.smallest_subnormal))
        with np.errstate(all="ignore"):
            mag = np.maximum(mag, np.abs(v.astype(np.complex128)))
    with np.errstate(all="ignore"):
        parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else [(got, want)]
        for g, w in parts:
            g, w = g.astype(np.float64), w.astype(np.float64)
            # (plus 16 of the dtype's smallest subnormals: near 0 an ulp is not relative)
            close = (g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= 16 * eps * np.broadcast_to(mag, w.shape) + 16 * tiny)
            if not np.all(close):
                return False
    return True


def first_difference(got, want):
    """The flat index of the first element whose bits differ (0 where dtypes or shapes do), for the message."""
    if got.shape != want.shape or got.dtype != want.dtype or got.size == 0:
        return 0
    g = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(got.size, -1)
    w = np.ascontiguousarray(want).reshape(-1).view(np.uint8).reshape(want.size, -1)
    idx = np.flatnonzero((g != w).any(axis=1))
    return int(idx[0]) if len(idx) else 0


def main():
    jitrun = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261128
    device = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    rng, r = np.random.default_rng(seed), random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="cujit_numpy_ediff_")
    paths = {n: os.path.join(tmp, n + ".npy") for n in ("x", "y", "r")}
    bad = ran = 0
    for k in range(cases):
        nd = r.choice([0, 1, 1, 2, 2])
        shape = tuple(r.choice([0, 1, 3, 7, 16, 33]) for _ in range(nd))
        yshape = r.choice([shape, shape[-1:], ()])
        env = {"x": values(rng, r, r.choice(DTYPES), shape), "y": values(rng, r, r.choice(DTYPES), yshape)}
        node = expression(r, env)
        try:
            # Every array input takes part in the output's shape, as in an elementwise kernel.
            want, raised = np.asarray(node.fn(env)), None
            want = np.broadcast_to(want, np.broadcast_shapes(want.shape, *(v.shape for v in env.values())))
        except Exception as e:  # NumPy's refusal: jitrun must refuse too
            want, raised = None, "%s: %s" % (type(e).__name__, e)
        src = node.src
        if "<<" in src or ">>" in src:
            if any(np.asarray(v).dtype == bool for v in env.values()):
                continue  # shifts of bools: an error in the language, NumPy lifts them
        for n, v in env.items():
            np.save(paths[n], v)
        if os.path.exists(paths["r"]):
            os.remove(paths["r"])
        prog = "r = " + src
        p = subprocess.run([jitrun, "--device", device, "-i", "x=" + paths["x"], "-i", "y=" + paths["y"],
                            "-o", "r=" + paths["r"], prog], capture_output=True, text=True)
        ran += 1
        tag = "case %d: %s  (x: %s %s, y: %s %s)" % (k, prog, env["x"].dtype, list(env["x"].shape),
                                                      env["y"].dtype, list(env["y"].shape))
        if raised is not None:
            if p.returncode == 0 and 0 in np.broadcast_shapes(*(v.shape for v in env.values())):
                continue  # an empty output: a fused program computes no element to raise on
            if p.returncode not in (1, 2, 3):
                print("FAIL %s: NumPy raises %s; jitrun exit %d: %s" % (tag, raised, p.returncode, p.stderr[-300:]))
                bad += 1
            continue
        if p.returncode == 2 and want.size == 0 and "negative integer powers" in p.stderr:
            continue  # a literal negative exponent of integers is refused when checked, whatever the size
        if p.returncode != 0:
            print("FAIL %s: NumPy gives %s %s; jitrun exit %d: %s" % (tag, want.dtype, list(want.shape), p.returncode,
                                                                     p.stderr.strip()[:400]))
            bad += 1
            continue
        got = np.load(paths["r"])
        if not same(got, want, node, env):
            at = first_difference(got, want)
            print("FAIL %s: NumPy %s %s %s; jitrun %s %s %s (first difference at flat %d)" % (
                tag, want.dtype, list(want.shape), want.ravel()[at:at + 3], got.dtype, list(got.shape),
                got.ravel()[at:at + 3], at))
            bad += 1
    print("%d programs against NumPy %s (seed %d), %d differ" % (ran, np.__version__, seed, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
