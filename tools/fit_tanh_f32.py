#!/usr/bin/env python3
"""The tables of the CPU evaluator's float32 tanh on AVX-512 (src/cpu/vector_math.cpp, tanh_ps):

    python3 tools/fit_tanh_f32.py > tables.inc

15 intervals of |x| in [0, 9.5]: [0, 2^-3), then two per octave ([2^e, 1.5 2^e), [1.5 2^e, 2^(e+1)));
the last, [8, 9.5], fills the 16th entry too. On each, a least-squares fit of tanh's relative error
at 400 Chebyshev nodes by a degree-7 polynomial in |x| minus the interval's centre (odd in |x| on
the first), tanh evaluated by mpmath. Prints the coefficient tables, the constant term's low part
(its rounding to float), and the centres, as C++ arrays of floats; the fits' errors go to stderr.
"""
import numpy as np, mpmath as mp, struct
mp.mp.dps = 40
def f32(x): return struct.unpack('f', struct.pack('f', x))[0]
ivs = [(0.0, 0.125)]
e = -3
while True:
    lo = 2.0**e
    ivs.append((lo, 1.5*lo)); ivs.append((1.5*lo, 2*lo))
    e += 1
    if 2*lo >= 9.5: break
ivs = ivs[:14]
ivs[-1] = (ivs[-1][0], 9.5)
ivs.append(ivs[-1])
print(len(ivs), ivs[-2:], file=__import__('sys').stderr)
import os
DEG = int(os.environ.get('DEG', '7'))
C = []; CEN = []
for k, (a, b) in enumerate(ivs):
    c = 0.0 if k == 0 else f32((a + b) / 2)
    xs = np.cos(np.pi * (np.arange(400) + 0.5) / 400) * (b - a) / 2 + (a + b) / 2
    ys = np.array([float(mp.tanh(mp.mpf(float(x)))) for x in xs])
    r = xs - c
    if k == 0:
        # odd: r*(c1 + c3 r^2 + ...): fit y/r in r^2
        A = np.stack([r**(2*j) for j in range(4)], 1) / 1.0
        w = 1.0
        coef, *_ = np.linalg.lstsq(A, ys / r, rcond=None)
        full = [0.0]*8
        for j in range(4): full[2*j+1] = coef[j]
        full = full[:DEG+1]
    else:
        A = np.stack([r**j for j in range(DEG+1)], 1)
        W = 1 / ys
        coef, *_ = np.linalg.lstsq(A * W[:, None], ys * W, rcond=None)
        full = list(coef)
    C.append(full); CEN.append(c)
    err = max(abs((np.polyval(full[::-1], r) - ys) / ys))
    print(k, a, b, "relerr %.2e" % err, file=__import__('sys').stderr)
# emit tables: coefficient j for interval k, 16 entries (pad with last)
def row(vals): 
    vals = vals + [vals[-1]] * (16 - len(vals))
    return ", ".join("%.9ef" % f32(v) for v in vals)
print("alignas(64) static const float kTanhC[%d][16] = {" % (DEG+1))
for j in range(DEG+1):
    print("  {" + row([C[k][j] for k in range(15)]) + "},")
print("};")
print("alignas(64) static const float kTanhC0lo[16] = {" + row([C[k][0] - f32(C[k][0]) for k in range(15)]) + "};")
print("alignas(64) static const float kTanhCen[16] = {" + row(CEN) + "};")
