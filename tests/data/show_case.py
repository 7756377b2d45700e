#!/usr/bin/env python3
"""Prints cases of eval_cases.txt with decoded values.

    python3 tests/data/show_case.py sin.float32 'cast.float64.*'     # ids, shell-style patterns
    python3 tests/data/show_case.py --list                          # all ids
"""
import fnmatch
import os
import sys

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def decode(dt, shape, vals):
    a = np.frombuffer(bytes.fromhex("".join(vals)), dtype=dtype(dt))
    return a.reshape(()) if shape == "()" else a.reshape([int(d) for d in shape.split("x")])


def cases(path):
    cur = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            kw, _, rest = line.partition(" ")
            if kw == "case":
                cur = {"id": rest, "lines": []}
            elif kw == "end":
                yield cur
                cur = None
            else:
                cur["lines"].append((kw, rest))


def show(c):
    print("case", c["id"])
    for kw, rest in c["lines"]:
        if kw in ("input", "weak"):
            name, dt, shape, *vals = rest.split()
            print("  %s %s %s %s:" % (kw, name, dt, shape), decode(dt, shape, vals).tolist())
        elif kw == "output":
            name, dt, shape, tol, *vals = rest.split()
            print("  output %s %s %s %s:" % (name, dt, shape, tol), decode(dt, shape, vals).tolist())
        else:
            print("  %s %s" % (kw, rest))


def main():
    args = sys.argv[1:]
    path = os.path.join(HERE, "eval_cases.txt")
    if args == ["--list"]:
        for c in cases(path):
            print(c["id"])
        return
    for c in cases(path):
        if any(fnmatch.fnmatchcase(c["id"], p) for p in args):
            show(c)


if __name__ == "__main__":
    main()
