#!/usr/bin/env python3
"""The tables of the CPU evaluator's float32 tanh on AVX-512 (src/cpu/vector_math.cpp, tanh_ps):

    python3 tools/fit_tanh_f32.py > tables.inc

30 intervals of |x| in [0, 9.5], numbered by the low 5 bits of a float's bits >> 21 (its exponent and
top two mantissa bits, so four per octave): [0, 2^-4) (every smaller |x| is raised to 0.0546875 for the
index, the quarter octave below 2^-4), then [2^-4, 1.25 2^-4), ... up to [8, 9.5]. On each, tanh is
c0 + r (c1 + r (c2 + ... + r c6)), r = |x| - xi for a centre xi near the interval's middle, chosen among
the floats there so that tanh(xi) is within 2^-12 ulp of a float: c0 is that float, so the constant term
needs no low part. c1..c6 are least-squares fits of the relative error at 400 Chebyshev nodes, rounded
to float one at a time, the later ones refitted after each rounding (on [0, 2^-4): xi = 0, c1 = 1 and
the odd terms alone, so tiny and subnormal x give x). tanh evaluated by mpmath. Prints the tables as
C++ arrays of floats, each 32 entries (unused ones 0); the fits' errors go to stderr.
"""
import struct
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 40
DEG = 6


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


def bits(x):
    return struct.unpack('I', struct.pack('f', x))[0]


def from_bits(b):
    return struct.unpack('f', struct.pack('I', b))[0]


def intervals():
    """(slot, lo, hi) of each interval; slot = (bits >> 21) & 31 of its floats."""
    out = [((bits(0.0546875) >> 21) & 31, 0.0, 0.0625)]
    q = bits(0.0625) >> 21
    while True:
        lo = from_bits(q << 21)
        if lo >= 9.5:
            return out
        hi = min(from_bits((q + 1) << 21), 9.5)
        out.append((q & 31, lo, hi))
        q += 1


def centre(lo, hi):
    """A float xi near (lo + hi) / 2 with tanh(xi) within 2^-12 ulp of a float."""
    mid = bits(f32((lo + hi) / 2))
    for d in range(200000):
        for b in (mid + d, mid - d):
            xi = from_bits(b)
            t = mp.tanh(mp.mpf(xi))
            c0 = f32(float(t))
            ulp = 2.0 ** (mp.floor(mp.log(t, 2)) - 23)
            if abs(t - c0) < ulp * 2.0 ** -12:
                return xi, c0
    raise SystemExit(f"no centre for [{lo}, {hi})")


def fit(lo, hi, xi, c0, powers, fixed):
    """Coefficients c[j] for j in powers (c[j] r^j), least squares of the relative error."""
    xs = np.array([mp.mpf(v) for v in np.cos(np.pi * (np.arange(400) + 0.5) / 400) * (hi - lo) / 2 + (lo + hi) / 2])
    ys = [mp.tanh(x) for x in xs]
    r = [x - xi for x in xs]
    c = dict(fixed)
    free = [j for j in powers if j not in c]
    while free:
        A = mp.matrix(len(xs), len(free))
        b = mp.matrix(len(xs), 1)
        for i in range(len(xs)):
            rest = c0 + sum(c[j] * r[i] ** j for j in c)
            for k, j in enumerate(free):
                A[i, k] = r[i] ** j / ys[i]
            b[i] = (ys[i] - rest) / ys[i]
        sol = mp.lu_solve(A.T * A, A.T * b)
        c[free[0]] = f32(float(sol[0]))  # the lowest free one, rounded; the rest refitted
        free = free[1:]
    err = max(abs((c0 + sum(c[j] * r[i] ** j for j in c) - ys[i]) / ys[i]) for i in range(len(xs)))
    return [c.get(j, 0.0) for j in range(DEG + 1)], float(err)


def main():
    tab = [[0.0] * 32 for _ in range(DEG + 1)]
    cen = [0.0] * 32
    for k, (slot, lo, hi) in enumerate(intervals()):
        if k == 0:
            xi, c0 = 0.0, 0.0
            coef, err = fit(lo, hi, xi, c0, [1, 3, 5], {1: 1.0})
        else:
            xi, c0 = centre(lo, hi)
            coef, err = fit(lo, hi, xi, c0, list(range(1, DEG + 1)), {})
        coef[0] = c0
        for j in range(DEG + 1):
            tab[j][slot] = coef[j]
        cen[slot] = xi
        print(f"slot {slot:2} [{lo}, {hi}) xi {xi!r} relerr {err:.2e} ({err * 2**24:.3f} ulp)", file=sys.stderr)

    def row(vals):
        return ", ".join("%.9ef" % v for v in vals)

    print("alignas(64) constexpr float kTanhCen[32] = {" + row(cen) + "};")
    print("alignas(64) constexpr float kTanhC[%d][32] = {" % (DEG + 1))
    for j in range(DEG + 1):
        print("  {" + row(tab[j]) + "},")
    print("};")


if __name__ == "__main__":
    main()
