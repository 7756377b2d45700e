#!/usr/bin/env python3
"""NumPy's values for tests/gpu/test_inplace_gpu.cpp's 10^9-element seed example.

    python3 tests/data/gen_inplace_seed.py    # rewrites inplace_seed_1e9.txt beside it

The test fills x[k] = float64(k) * 1e-9 - 0.5 on the GPU and runs
`x *= 5; x *= x; x += x`; NumPy runs the same in-place ufuncs here on a
sample of the indices (the ends, the middle, both sides of 2^29, and random ones
from a fixed seed). One line per element: the index and NumPy's value as a
hexadecimal float (exact). Deterministic: no dependence on time or environment.
"""
import os

import numpy as np

N = 1_000_000_000
HERE = os.path.dirname(os.path.abspath(__file__))

rng = np.random.default_rng(20261124)
edges = [0, 1, 2, 3, 499_999_999, 500_000_000, 500_000_001, N - 3, N - 2, N - 1]
edges += [(1 << 29) + d for d in (-1, 0, 1)]
idx = np.unique(np.concatenate([np.array(edges, dtype=np.int64), rng.integers(0, N, 4096, dtype=np.int64)]))
x = idx.astype(np.float64) * 1e-9 - 0.5
x *= 5
x *= x
x += x
with open(os.path.join(HERE, "inplace_seed_1e9.txt"), "w") as f:
    f.write(f"# NumPy {np.__version__}: x = float64(k) * 1e-9 - 0.5; x *= 5; x *= x; x += x, N = {N}\n")
    f.write("# index value (hex float); written by tests/data/gen_inplace_seed.py\n")
    for k, v in zip(idx.tolist(), x.tolist()):
        f.write(f"{k} {float(v).hex()}\n")
