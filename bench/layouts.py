#!/usr/bin/env python3
"""Every layout against the memory ceiling and the peers, in one run on one GPU.

For each case (a program over given dtypes and views) and each size N (output
elements: 2^12 ... 2^30 where memory allows), the median kernel time of 25
calls after a warm-up (CUDA events around each call) of:
  - cujit through the C++ API (ElementwiseKernel; bench_layouts, run from here);
  - CuPy ElementwiseKernel and cupy.fuse, PyTorch eager, torch.cuda.jiterator and
    torch.compile (where the system supports the dtypes);
  - the ceiling: a streaming kernel moving the same bytes with 16-byte accesses
    (tuned once, below), and cuMemcpyDtoD moving as many bytes.
GB/s = bytes read + written / time, where an input's bytes are its view's
elements (a broadcast input counts once) and an output's its elements.
Writes layouts.md (tables) and layouts_<case>.png (GB/s against N) to the
folder given (default bench/results).

  python3 bench/layouts.py BENCH_LAYOUTS_BINARY [OUT_DIR] [case,case,...]

LAYOUTS_MAX_LOG2=K stops at 2^K; LAYOUTS_PRINT_LINES=1 prints bench_layouts'
input lines instead of running (to profile one case with ncu).
"""
import math
import os
import statistics
import subprocess
import sys
import time

import cupy as cp
import numpy as np
import torch

BIN = sys.argv[1]
OUTDIR = sys.argv[2] if len(sys.argv) > 2 else "bench/results"
ONLY = set(sys.argv[3].split(",")) if len(sys.argv) > 3 and sys.argv[3] else None
SIZES = [12, 16, 20, 24, 28, 30]
MAX_LOG2 = int(os.environ.get("LAYOUTS_MAX_LOG2", "31"))  # a quick run: LAYOUTS_MAX_LOG2=20
REPS = 25
SLEEP_CYCLES = 200000  # about 100 us at 2 GHz, as bench_layouts' spin kernel

TORCH_DT = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
            "float64": torch.float64, "int8": torch.int8, "int32": torch.int32, "complex64": torch.complex64,
            "uint8": torch.uint8, "uint16": torch.uint16}
ITEM = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "int32": 4, "complex64": 8,
        "uint8": 1, "uint16": 2}


class Case:
    def __init__(self, name, title, in_params, out_params, op, inputs, outputs, torch_fn,
                 jit=None, cupy_op=None, fuse_fn=None, inplace=-1, sizes=None, scalars=None):
        self.name, self.title = name, title
        self.in_params, self.out_params, self.op = in_params, out_params, op
        self.inputs = inputs      # [(dtype, shape_fn(lg) -> buffer shape, view)]
        self.outputs = outputs    # [(dtype, shape_fn(lg))]
        self.scalars = scalars or {}  # position -> value (scalar arguments among the inputs)
        self.torch_fn, self.jit, self.cupy_op, self.fuse_fn = torch_fn, jit, cupy_op, fuse_fn
        self.inplace = inplace
        self.sizes = sizes or SIZES


def split2(l):
    r = 1 << (l // 2)
    return r, (1 << l) // r


def split3(l):
    a = 1 << (l // 3)
    b = 1 << (l // 3)
    return a, b, (1 << l) // (a * b)


F = lambda l: (1 << l,)  # noqa: E731

CASES = [
    Case("fma_f32", "f32 z = x*y + 5", "float32 x, float32 y", "float32 z", "z = x*y + 5",
         [("float32", F, "c"), ("float32", F, "c")], [("float32", F)],
         lambda x, y: x * y + 5, "template <typename T> T f(T x, T y) { return x * y + T(5); }",
         "z = x*y + 5", lambda x, y: x * y + 5),
    Case("sin_f32", "f32 out = sin(x)*5", "float32 x", "float32 z", "z = sin(x)*5",
         [("float32", F, "c")], [("float32", F)],
         lambda x: torch.sin(x) * 5, "template <typename T> T f(T x) { return sin(x) * T(5); }",
         "z = sin(x)*5", lambda x: cp.sin(x) * 5),
    Case("expcos_f64", "f64 exp(-x*x)*cos(y)", "float64 x, float64 y", "float64 z", "z = exp(-x*x)*cos(y)",
         [("float64", F, "c"), ("float64", F, "c")], [("float64", F)],
         lambda x, y: torch.exp(-x * x) * torch.cos(y),
         "template <typename T> T f(T x, T y) { return exp(-x * x) * cos(y); }",
         "z = exp(-x*x)*cos(y)", lambda x, y: cp.exp(-x * x) * cp.cos(y)),
    Case("bits_i32", "i32 (a ^ (b << 3)) & 65535", "int32 a, int32 b", "int32 z", "z = (a ^ (b << 3)) & 65535",
         [("int32", F, "c"), ("int32", F, "c")], [("int32", F)],
         lambda a, b: (a ^ (b << 3)) & 65535,
         "template <typename T> T f(T a, T b) { return (a ^ (b << 3)) & T(65535); }",
         "z = (a ^ (b << 3)) & 65535", lambda a, b: (a ^ (b << 3)) & 65535),
    Case("half_f16", "f16 x*0.5 + y", "float16 x, float16 y", "float16 z", "z = x*0.5 + y",
         [("float16", F, "c"), ("float16", F, "c")], [("float16", F)],
         lambda x, y: x * 0.5 + y, "template <typename T> T f(T x, T y) { return x * T(0.5) + y; }",
         "z = x * (float16)0.5 + y", lambda x, y: x * 0.5 + y),
    Case("half_bf16", "bf16 x*0.5 + y", "bfloat16 x, bfloat16 y", "bfloat16 z", "z = x*0.5 + y",
         [("bfloat16", F, "c"), ("bfloat16", F, "c")], [("bfloat16", F)],
         lambda x, y: x * 0.5 + y, "template <typename T> T f(T x, T y) { return x * T(0.5) + y; }"),
    # Image arithmetic: 8- and 16-bit pixels computed in float32, rounded,
    # clipped and cast back (a brightness/contrast step, a blend of two frames).
    Case("image_u8", "u8 uint8(clip(rint(float32(x)*1.2 + 10), 0, 255))", "uint8 x", "uint8 z",
         "z = uint8(clip(rint(float32(x)*1.2 + 10), 0, 255))",
         [("uint8", F, "c")], [("uint8", F)],
         lambda x: torch.clamp(torch.round(x.float() * 1.2 + 10), 0, 255).to(torch.uint8),
         "template <typename T> T f(T x) { return T(fminf(fmaxf(rintf(float(x) * 1.2f + 10.f), 0.f), 255.f)); }",
         "z = (unsigned char)fminf(fmaxf(rintf((float)x * 1.2f + 10.f), 0.f), 255.f)",
         lambda x: cp.clip(cp.rint(x.astype(cp.float32) * cp.float32(1.2) + 10), 0, 255).astype(cp.uint8)),
    Case("image_u16", "u16 blend uint16(clip(rint(float32(a)*0.7 + float32(b)*0.3), 0, 65535))",
         "uint16 a, uint16 b", "uint16 z", "z = uint16(clip(rint(float32(a)*0.7 + float32(b)*0.3), 0, 65535))",
         [("uint16", F, "c"), ("uint16", F, "c")], [("uint16", F)],
         lambda a, b: torch.clamp(torch.round(a.float() * 0.7 + b.float() * 0.3), 0, 65535).to(torch.uint16),
         "template <typename T> T f(T a, T b) { return T(fminf(fmaxf(rintf(float(a) * 0.7f + float(b) * 0.3f), 0.f), 65535.f)); }",
         "z = (unsigned short)fminf(fmaxf(rintf((float)a * 0.7f + (float)b * 0.3f), 0.f), 65535.f)",
         lambda a, b: cp.clip(cp.rint(a.astype(cp.float32) * cp.float32(0.7) + b.astype(cp.float32) * cp.float32(0.3)),
                              0, 65535).astype(cp.uint16)),
    Case("int8", "i8 a*3 + b", "int8 a, int8 b", "int8 z", "z = a*3 + b",
         [("int8", F, "c"), ("int8", F, "c")], [("int8", F)],
         lambda a, b: a * 3 + b, "template <typename T> T f(T a, T b) { return a * T(3) + b; }",
         "z = a*3 + b", lambda a, b: a * 3 + b),
    Case("complex64", "c64 x*y + 1", "complex64 x, complex64 y", "complex64 z", "z = x*y + 1",
         [("complex64", F, "c"), ("complex64", F, "c")], [("complex64", F)],
         lambda x, y: x * y + 1, "template <typename T> T f(T x, T y) { return x * y + T(1); }",
         "z = x*y + complex<float>(1)", lambda x, y: x * y + 1),
    Case("bcast_2d", "f32 (r,1)*(1,c) + 1", "float32 x, float32 y", "float32 z", "z = x*y + 1",
         [("float32", lambda l: (split2(l)[0], 1), "c"), ("float32", lambda l: (1, split2(l)[1]), "c")],
         [("float32", split2)],
         lambda x, y: x * y + 1, "template <typename T> T f(T x, T y) { return x * y + T(1); }",
         "z = x*y + 1", lambda x, y: x * y + 1),
    Case("bcast_3d", "f32 (a,1,c)*(1,b,1) + 1", "float32 x, float32 y", "float32 z", "z = x*y + 1",
         [("float32", lambda l: (split3(l)[0], 1, split3(l)[2]), "c"), ("float32", lambda l: (1, split3(l)[1], 1), "c")],
         [("float32", split3)],
         lambda x, y: x * y + 1, "template <typename T> T f(T x, T y) { return x * y + T(1); }",
         "z = x*y + 1", lambda x, y: x * y + 1),
    Case("transposed", "f32 x.T*2 + 1", "float32 x", "float32 z", "z = x*2 + 1",
         [("float32", lambda l: tuple(reversed(split2(l))), "T")], [("float32", split2)],
         lambda x: x * 2 + 1, "template <typename T> T f(T x) { return x * T(2) + T(1); }",
         "z = x*2 + 1", lambda x: x * 2 + 1),
    Case("sliced", "f32 x[::2]*2 + 1", "float32 x", "float32 z", "z = x*2 + 1",
         [("float32", lambda l: (2 << l,), "S2")], [("float32", F)],
         lambda x: x * 2 + 1, "template <typename T> T f(T x) { return x * T(2) + T(1); }",
         "z = x*2 + 1", lambda x: x * 2 + 1),
    Case("where_clip", "f32 where(x > 0, clip(x,-1,1), y*0.5)", "float32 x, float32 y", "float32 z",
         "z = where(x > 0, clip(x, -1, 1), y*0.5)",
         [("float32", F, "c"), ("float32", F, "c")], [("float32", F)],
         lambda x, y: torch.where(x > 0, torch.clamp(x, -1, 1), y * 0.5),
         "template <typename T> T f(T x, T y) { return x > T(0) ? (x < T(-1) ? T(-1) : (x > T(1) ? T(1) : x)) : y * T(0.5); }",
         "z = x > 0 ? min(max(x, -1.0f), 1.0f) : y * 0.5f",
         lambda x, y: cp.where(x > 0, cp.clip(x, -1, 1), y * 0.5)),
    Case("black_scholes", "f32 Black-Scholes, 3 in, 2 out", "float32 s, float32 x, float32 t, float32 r, float32 v",
         "float32 call, float32 put",
         "sqrt_t = sqrt(t); d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t); d2 = d1 - v * sqrt_t; "
         "cnd1 = 0.5 * erfc(-d1 * 0.7071067811865476); cnd2 = 0.5 * erfc(-d2 * 0.7071067811865476); "
         "exp_rt = exp(-r * t); call = s * cnd1 - x * exp_rt * cnd2; put = x * exp_rt * (1 - cnd2) - s * (1 - cnd1)",
         [("float32", F, "c"), ("float32", F, "c"), ("float32", F, "c")], [("float32", F), ("float32", F)],
         None, scalars={3: 0.02, 4: 0.3}),
    Case("seed_inplace_f64", "f64 in place: x *= 5; x *= x; x += x", "float64 x", "float64 z",
         "z = x*5; z = z*z; z = z + z", [("float64", F, "c")], [("float64", F)],
         None, "template <typename T> T f(T x) { T y = x * T(5); y = y * y; return y + y; }",
         "z = x*5; z = z*z; z = z + z", None, inplace=0, sizes=[24, 28, 30, "1e9"]),
    Case("index64_f32", "f32 x*y + 5, 2^31 + 2^24 elements (64-bit index)", "float32 x, float32 y", "float32 z",
         "z = x*y + 5", [("float32", F, "c"), ("float32", F, "c")], [("float32", F)],
         lambda x, y: x * y + 5, "template <typename T> T f(T x, T y) { return x * y + T(5); }",
         "z = x*y + 5", lambda x, y: x * y + 5, sizes=["2^31+2^24"]),
]


def size_of(s):
    if s == "1e9":
        return 10 ** 9, "10^9"
    if s == "2^31+2^24":
        return (1 << 31) + (1 << 24), "2^31+2^24"
    return 1 << s, f"2^{s}"


def shape_for(fn, s):
    """Buffer shapes take log2 sizes; the named big sizes are 1-D."""
    if isinstance(s, int):
        return tuple(fn(s))
    n, _ = size_of(s)
    sh = fn(30)
    assert len(sh) == 1
    return (n * sh[0] // (1 << 30),)


def view_of(t, view):
    if view == "T":
        return t.t()
    if view == "S2":
        return t[::2]
    return t


def make_inputs(case, s, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    ts = []
    for dt, fn, view in case.inputs:
        shape = shape_for(fn, s)
        if dt in ("int8", "int32"):
            lo, hi = (-100, 100) if dt == "int8" else (-1 << 20, 1 << 20)
            t = torch.randint(lo, hi, shape, device="cuda", dtype=TORCH_DT[dt], generator=g)
        elif dt in ("uint8", "uint16"):
            hi = 256 if dt == "uint8" else 65536
            t = torch.randint(0, hi, shape, device="cuda", dtype=torch.int32, generator=g).to(TORCH_DT[dt])
        elif dt == "complex64":
            t = torch.randn(shape, device="cuda", dtype=torch.complex64, generator=g)
        else:
            t = (torch.rand(shape, device="cuda", dtype=torch.float32, generator=g) * 8 - 4)
            if case.name == "black_scholes":
                t = t.abs() + 0.5
            t = t.to(TORCH_DT[dt])
        ts.append(view_of(t, view))
    return ts


def nbytes(case, s):
    n_in = 0
    for dt, fn, view in case.inputs:
        shape = shape_for(fn, s)
        el = math.prod(shape) // (2 if view == "S2" else 1)
        n_in += el * ITEM[dt]
    n_out = sum(math.prod(shape_for(fn, s)) * ITEM[dt] for dt, fn in case.outputs)
    if case.inplace >= 0:
        n_in = n_out
    return n_in, n_out


def timed(fn, reps=REPS):
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SLEEP_CYCLES)  # the GPU is busy while the host enqueues: events time the kernel
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


STREAM_SRC = r"""
extern "C" __global__ void stream16(const int4* __restrict__ a, long long na, int4* __restrict__ b, long long nb) {
  long long step = (long long)blockDim.x * gridDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nb; k += step) {
    int4 v = make_int4((int)k, 0, 0, 0);
    for (long long j = k; j < na; j += nb) {
      int4 w = a[j];
      v.x ^= w.x; v.y ^= w.y; v.z ^= w.z; v.w ^= w.w;
    }
    b[k] = v;
  }
}
"""
stream16 = cp.RawKernel(STREAM_SRC, "stream16")
SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
CONFIG = None


def ceiling(n_in, n_out):
    """(stream kernel ms, memcpy ms) moving n_in bytes read and n_out written."""
    global CONFIG
    na, nb = max(1, n_in // 16), max(1, n_out // 16)
    a = cp.empty(na * 16, dtype=cp.uint8).view(cp.int32)
    a[:] = 7
    b = cp.empty(nb * 16, dtype=cp.uint8)
    if CONFIG is None:  # tuned once, on the first (largest) problem asked
        best = None
        for block in (128, 256, 512, 1024):
            for waves in (1, 2, 4, 8, 16, 32, 0):
                grid = (nb + block - 1) // block if waves == 0 else SMS * waves * (2048 // block)
                grid = max(1, min(grid, (nb + block - 1) // block))
                t = timed(lambda: stream16((grid,), (block,), (a, cp.int64(na), b, cp.int64(nb))), 10)
                if best is None or t < best[0]:
                    best = (t, block, waves)
        CONFIG = best[1:]
        print(f"stream kernel tuned: block {CONFIG[0]}, waves {CONFIG[1] or 'one step per thread'}", flush=True)
    block, waves = CONFIG
    grid = (nb + block - 1) // block if waves == 0 else SMS * waves * (2048 // block)
    grid = max(1, min(grid, (nb + block - 1) // block))
    ts = timed(lambda: stream16((grid,), (block,), (a, cp.int64(na), b, cp.int64(nb))))
    half = (n_in + n_out) // 2
    src = cp.empty(half, dtype=cp.uint8)
    dst = cp.empty(half, dtype=cp.uint8)
    tc = timed(lambda: cp.cuda.runtime.memcpy(dst.data.ptr, src.data.ptr, half, 3))
    del a, b, src, dst
    return ts, tc


def spec_line(case, s, key):
    ins = []
    pos = 0
    for dt, fn, view in case.inputs:
        while pos in case.scalars:
            ins.append(f"={case.scalars[pos]}")
            pos += 1
        # Black-Scholes' log and sqrt take other paths for non-positive
        # arguments: cujit's inputs in the peers' range (make_inputs).
        fill = ":pos" if case.name == "black_scholes" else ""
        ins.append(f"{dt}:{'x'.join(map(str, shape_for(fn, s)))}:{view}{fill}")
        pos += 1
    while pos in case.scalars:
        ins.append(f"={case.scalars[pos]}")
        pos += 1
    outs = [f"{dt}:{'x'.join(map(str, shape_for(fn, s)))}:c" for dt, fn in case.outputs]
    return "|".join([key, case.in_params, case.out_params, case.op, ";".join(ins), ";".join(outs), str(case.inplace)])


def run_cujit(lines):
    p = subprocess.run([BIN], input="\n".join(lines) + "\n", capture_output=True, text=True)
    res = {}
    for ln in p.stdout.splitlines():
        f = ln.split(" ", 2)
        res[f[0]] = float(f[1]) if f[1] != "error" else f[2]
    if p.returncode != 0:
        print("bench_layouts:", p.returncode, p.stderr[-2000:], flush=True)
    return res


def peers(case, s):
    """{system: ms or error text}"""
    out = {}
    xs = make_inputs(case, s)
    n = math.prod(shape_for(case.outputs[0][1], s))
    oshape = shape_for(case.outputs[0][1], s)
    odt = TORCH_DT[case.outputs[0][0]]

    def attempt(name, fn):
        try:
            out[name] = timed(fn)
        except Exception as e:  # a peer that cannot run a case is reported, not fatal
            out[name] = f"n/a ({type(e).__name__})"

    if case.name == "black_scholes":
        s_, x_, t_ = xs
        r, v = 0.02, 0.3

        def bs(s_, x_, t_):
            sq = torch.sqrt(t_)
            d1 = (torch.log(s_ / x_) + (r + 0.5 * v * v) * t_) / (v * sq)
            d2 = d1 - v * sq
            c1 = 0.5 * torch.erfc(-d1 * 0.7071067811865476)
            c2 = 0.5 * torch.erfc(-d2 * 0.7071067811865476)
            e = torch.exp(-r * t_)
            return s_ * c1 - x_ * e * c2, x_ * e * (1 - c2) - s_ * (1 - c1)
        attempt("PyTorch eager", lambda: bs(*xs))
        cbs = torch.compile(bs, dynamic=False)
        attempt("torch.compile", lambda: cbs(*xs))
        cx = [cp.asarray(t) for t in xs]
        ek = cp.ElementwiseKernel(
            "float32 s, float32 x, float32 t, float32 r, float32 v", "float32 call, float32 put",
            "float sq = sqrtf(t); float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sq); "
            "float d2 = d1 - v * sq; float c1 = 0.5f * erfcf(-d1 * 0.70710678f); "
            "float c2 = 0.5f * erfcf(-d2 * 0.70710678f); float e = expf(-r * t); "
            "call = s * c1 - x * e * c2; put = x * e * (1 - c2) - s * (1 - c1);", "cj_peer_bs")
        o1, o2 = cp.empty(n, cp.float32), cp.empty(n, cp.float32)
        attempt("CuPy ElementwiseKernel", lambda: ek(*cx, cp.float32(r), cp.float32(v), o1, o2))
        jit2 = torch.cuda.jiterator._create_multi_output_jit_fn(
            "template <typename T> void bs(T s, T x, T t, T& call, T& put) { T r = T(0.02), v = T(0.3); "
            "T sq = sqrt(t); T d1 = (log(s / x) + (r + T(0.5) * v * v) * t) / (v * sq); T d2 = d1 - v * sq; "
            "T c1 = T(0.5) * erfc(-d1 * T(0.7071067811865476)); T c2 = T(0.5) * erfc(-d2 * T(0.7071067811865476)); "
            "T e = exp(-r * t); call = s * c1 - x * e * c2; put = x * e * (T(1) - c2) - s * (T(1) - c1); }", 2)
        attempt("torch jiterator", lambda: jit2(*xs))

        out["cupy.fuse"] = "n/a (no erfc in cupy.fuse)"
        del cx
        return out

    if case.inplace >= 0:
        x = xs[0]

        def eager():
            x.mul_(5)
            x.mul_(x)
            x.add_(x)
        attempt("PyTorch eager", eager)
        x.copy_(make_inputs(case, s)[0])

        def inplace(x):
            x.mul_(5)
            x.mul_(x)
            x.add_(x)
            return x
        ci = torch.compile(inplace, dynamic=False)
        attempt("torch.compile", lambda: ci(x))
        x.copy_(make_inputs(case, s)[0])
        jf = torch.cuda.jiterator._create_jit_fn(case.jit)
        attempt("torch jiterator", lambda: jf(x))
        cx = cp.asarray(x)
        ek = cp.ElementwiseKernel("float64 x", "float64 z", "double y = x * 5; y = y * y; z = y + y", "cj_peer_inplace")
        attempt("CuPy ElementwiseKernel", lambda: ek(cx, cx))
        out["cupy.fuse"] = "n/a (no in-place)"
        del cx
        return out

    attempt("PyTorch eager", lambda: case.torch_fn(*xs))
    cfn = torch.compile(case.torch_fn, dynamic=False)
    attempt("torch.compile", lambda: cfn(*xs))
    if case.jit:
        jf = torch.cuda.jiterator._create_jit_fn(case.jit)
        attempt("torch jiterator", lambda: jf(*xs))
    if case.cupy_op and case.inputs[0][0] != "bfloat16":
        try:
            cx = [cp.asarray(t) for t in xs]
            ek = cp.ElementwiseKernel(case.in_params, case.out_params, case.cupy_op, "cj_peer_" + case.name)
            cz = cp.empty(oshape, dtype=cp.dtype(case.outputs[0][0]))
            attempt("CuPy ElementwiseKernel", lambda: ek(*cx, cz))
            if case.fuse_fn:
                fz = cp.fuse(kernel_name="peer_fuse_" + case.name)(case.fuse_fn)
                attempt("cupy.fuse", lambda: fz(*cx))
            del cx, cz
        except Exception as e:
            out["CuPy ElementwiseKernel"] = f"n/a ({type(e).__name__})"
    else:
        out["CuPy ElementwiseKernel"] = "n/a (no bfloat16 in CuPy)"
        out["cupy.fuse"] = "n/a (no bfloat16 in CuPy)"
    del xs
    return out


SYSTEMS = ["cujit", "CuPy ElementwiseKernel", "cupy.fuse", "PyTorch eager", "torch jiterator", "torch.compile"]


def main():
    os.makedirs(OUTDIR, exist_ok=True)
    free = torch.cuda.mem_get_info()[0]
    gpu = torch.cuda.get_device_name(0)
    date = time.strftime("%Y-%m-%d", time.gmtime())
    cases = [c for c in CASES if ONLY is None or c.name in ONLY]
    # cujit first, all cases in one process (its own allocations are freed as it goes).
    plan, lines = [], []
    for c in cases:
        for s in c.sizes:
            if math.log2(size_of(s)[0]) > MAX_LOG2 + 0.5:
                continue
            n_in, n_out = nbytes(c, s)
            buf = sum(math.prod(shape_for(fn, s)) * ITEM[dt] for dt, fn, _ in c.inputs) + n_out
            if buf * 2.2 > free:
                continue
            key = f"{c.name}@{size_of(s)[1]}"
            plan.append((c, s, key, n_in, n_out))
            lines.append(spec_line(c, s, key))
    if os.environ.get("LAYOUTS_PRINT_LINES"):
        # bench_layouts' input, for running one case under a profiler:
        #   LAYOUTS_PRINT_LINES=1 python3 bench/layouts.py BIN DIR transposed | grep @2^24 | ncu ... BIN
        print("\n".join(lines))
        return
    t0 = time.time()
    cj = run_cujit(lines)
    print(f"cujit: {len(cj)} runs in {time.time() - t0:.0f} s", flush=True)
    rows = []
    # The ceiling is tuned once on the largest plain problem.
    ceiling(min(2 << 30, 8 << MAX_LOG2), min(1 << 30, 4 << MAX_LOG2))
    for idx, (c, s, key, n_in, n_out) in enumerate(plan):
        t1 = time.time()
        ts, tc = ceiling(n_in, n_out)
        pr = peers(c, s)
        torch.cuda.empty_cache()
        cp.get_default_memory_pool().free_all_blocks()
        pr["cujit"] = cj.get(key, "missing")
        rows.append((c, s, n_in + n_out, ts, tc, pr))
        print(f"{key}: {time.time() - t1:.1f} s", flush=True)
        # Tables after every row, plots after every case: a run cut short keeps what it measured.
        last_of_case = idx + 1 == len(plan) or plan[idx + 1][0] is not c
        write(rows, gpu, date, plots=c.name if last_of_case else False)


def gbs(bytes_, ms):
    return bytes_ / (ms * 1e6) if isinstance(ms, float) and ms > 0 else None


def write(rows, gpu, date, plots=False):
    lines = [f"# Every layout against the ceiling and the peers", "",
             f"{gpu}, {date}; CuPy {cp.__version__}, PyTorch {torch.__version__}. Medians of {REPS} calls after a "
             "warm-up, CUDA events around each call with the GPU kept busy (a ~100 us spin kernel queued first) "
             "while the host enqueues it, so host overhead is not in these times (bench_gpu measures it); GB/s = bytes read + written / time (an input's bytes are its view's elements, "
             "a broadcast input counts once). Ceiling = a streaming kernel with 16-byte accesses moving the same "
             "bytes (tuned once in this run); copy = cudaMemcpy device-to-device moving as many bytes. "
             "`bash bench/run_all.sh` made this file.", ""]
    by_case = {}
    for r in rows:
        by_case.setdefault(r[0].name, []).append(r)
    summary = ["## Summary: cujit / ceiling and cujit / best peer", "",
               "| case | N | cujit GB/s | ceiling GB/s | cujit / ceiling | best peer | cujit / best peer |",
               "|---|---:|---:|---:|---:|---|---:|"]
    detail = []
    for name, rs in by_case.items():
        c = rs[0][0]
        detail += [f"## {c.title}", "", "| N | " + " | ".join(SYSTEMS) + " | ceiling | copy |",
                   "|---:|" + "---:|" * (len(SYSTEMS) + 2)]
        for (_, s, b, ts, tc, pr) in rs:
            cells = []
            for sy in SYSTEMS:
                v = pr.get(sy, "n/a")
                g = gbs(b, v)
                cells.append(f"{g:.0f}" if g else str(v))
            detail.append(f"| {size_of(s)[1]} | " + " | ".join(cells) + f" | {gbs(b, ts):.0f} | {gbs(b, tc):.0f} |")
            gc = gbs(b, pr.get("cujit"))
            peers_ok = {sy: gbs(b, pr[sy]) for sy in SYSTEMS[1:] if gbs(b, pr.get(sy))}
            if gc:
                best = max(peers_ok.items(), key=lambda kv: kv[1]) if peers_ok else ("-", None)
                summary.append(f"| {c.title} | {size_of(s)[1]} | {gc:.0f} | {gbs(b, ts):.0f} | {gc / gbs(b, ts):.2f} | "
                               f"{best[0]} | {gc / best[1]:.2f} |" if best[1] else
                               f"| {c.title} | {size_of(s)[1]} | {gc:.0f} | {gbs(b, ts):.0f} | {gc / gbs(b, ts):.2f} | - | - |")
        detail.append("")
        if plots is True or plots == name:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots(figsize=(6, 4))
            xs = [math.log2(size_of(s)[0]) for (_, s, *_r) in rs]
            for sy in SYSTEMS:
                ys = [gbs(b, pr.get(sy)) for (_, s, b, ts, tc, pr) in rs]
                if any(ys):
                    ax.plot(xs, [y if y else float("nan") for y in ys], marker="o", label=sy,
                            linewidth=2.5 if sy == "cujit" else 1.2)
            ax.plot(xs, [gbs(b, ts) for (_, s, b, ts, tc, pr) in rs], "k--", label="ceiling (stream kernel)")
            ax.plot(xs, [gbs(b, tc) for (_, s, b, ts, tc, pr) in rs], "k:", label="cudaMemcpy DtoD")
            ax.set_xlabel("log2 N (output elements)")
            ax.set_ylabel("GB/s")
            ax.set_title(f"{c.title}\n{gpu}, {date}", fontsize=9)
            ax.legend(fontsize=7)
            ax.grid(alpha=0.3)
            fig.tight_layout()
            fig.savefig(os.path.join(OUTDIR, f"layouts_{name}.png"), dpi=90)
            plt.close(fig)
    with open(os.path.join(OUTDIR, "layouts.md"), "w") as f:
        f.write("\n".join(lines + summary + [""] + detail) + "\n")


if __name__ == "__main__":
    main()
