#!/usr/bin/env python3
"""Writes cases.txt, what NumPy prints for each test array of test_format.cpp.

Generated with numpy 2.4 (the expected strings depend on the NumPy version:
NumPy 2.3 changed the positional/scientific cutoff of float16 and float32).

Each case is a line "@@ name dtype (shape) data" followed by the lines of
str(array). data is the array's C-order little-endian bytes in hex, or
"arange*s": numpy.arange(size) * s cast to the dtype (the real part for
complex dtypes), which keeps the summarized arrays small here.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
nan, inf = np.nan, np.inf
cases = []


def case(name, a):
    a = np.asarray(a)
    cases.append((name, a, a.tobytes().hex() or "-"))


def arange_case(name, dt, shape, scale=1):
    n = int(np.prod(shape))
    a = (np.arange(n) * scale).astype(dt).reshape(shape)
    cases.append((name, a, f"arange*{scale}"))


def cplx(re, im, dt):
    c = np.empty(len(re), dt)
    c.real, c.imag = re, im  # set apart: inf * 1j would make nan
    return c


def main():
    f16, f32, f64 = np.float16, np.float32, np.float64
    # bool and integers
    case("bool_1d", np.array([True, False, True]))
    case("bool_2d", np.array([[True, False], [False, False]]))
    case("bool_0d_true", np.array(True))
    case("bool_0d_false", np.array(False))
    case("int8_extremes", np.array([-128, 0, 127], np.int8))
    case("int16_mixed", np.array([5, -300, 12, 7], np.int16))
    case("int32_2d", np.array([[1, 22, 333], [-4444, 5, 6]], np.int32))
    case("int64_extremes", np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max], np.int64))
    case("uint8_all", np.array([0, 1, 255], np.uint8))
    case("uint16", np.array([65535, 3], np.uint16))
    case("uint32", np.array([4294967295, 0, 17], np.uint32))
    case("uint64_max", np.array([np.iinfo(np.uint64).max, 1], np.uint64))
    case("int64_0d", np.array(-42, np.int64))
    case("uint64_0d", np.array(np.iinfo(np.uint64).max, np.uint64))
    case("int8_0d", np.array(-5, np.int8))
    # float64: positional
    case("f64_integral", np.array([1.0, 2.0, 3.0]))
    case("f64_mixed", np.array([1.0, 2.5]))
    case("f64_tenths", np.array([0.1, 0.2, 0.3]))
    case("f64_thirds", np.array([1 / 3, 2 / 3, -1 / 3]))
    case("f64_ratio_1000", np.array([1.0, 1000.0]))
    case("f64_big_positional", np.array([99999999.0, 123456.5]))
    case("f64_precision_cut", np.array([123.456789012345, 0.5]))
    case("f64_neg_zero", np.array([-0.0, 0.0, 1.5]))
    case("f64_zeros", np.array([0.0, 0.0]))
    case("f64_1e-4", np.array([1e-4, 1.0]))
    # float64: scientific
    case("f64_max_1e8", np.array([1e8, 1.0]))
    case("f64_min_small", np.array([1e-5, 1.0]))
    case("f64_ratio", np.array([1.0, 1001.0]))
    case("f64_extreme_exponents", np.array([1e300, 1e-300, -5e-324]))
    case("f64_sci_digits", np.array([0.1, 1.2345678901234567e-5]))
    case("f64_sci_round", np.array([1.23456789012e10, 2.0]))
    # non-finite values and their padding
    case("f64_nan_inf", np.array([nan, inf, -inf, 1.5]))
    case("f64_only_nan", np.array([nan]))
    case("f64_only_inf", np.array([-inf, inf, nan]))
    case("f64_nan_sci", np.array([nan, 1e10, 1.0]))
    # float64 0-d: str() of the scalar
    for name, v in [("0_1", 0.1), ("1e16", 1e16), ("1e15", 1e15), ("1e-5", 1e-5), ("neg_zero", -0.0),
                    ("nan", nan), ("neg_inf", -inf), ("integral", 123.0), ("tiny", 5e-324), ("huge", 1.5e300)]:
        case("f64_0d_" + name, np.array(v))
    # float32: shortest digits of the float32 value, cutoff 1e6
    case("f32_tenths", np.array([0.1, 0.2, 0.7], f32))
    case("f32_1e6", np.array([1e6, 1.0], f32))
    case("f32_below_1e6", np.array([999999.0, 1.0], f32))
    case("f32_1e-4", np.array([1e-4, 1.0], f32))
    case("f32_pi", np.array([np.pi, -np.e], f32))
    case("f32_max", np.array([np.finfo(f32).max, np.finfo(f32).tiny], f32))
    for name, v in [("0_1", 0.1), ("1e6", 1e6), ("999999", 999999.0), ("1e-4", 1e-4), ("3e38", 3e38),
                    ("third", 1 / 3)]:
        case("f32_0d_" + name, np.array(v, f32))
    # float16: shortest digits of the half value, cutoff 1e3
    case("f16_tenths", np.array([0.1, 0.2, 0.3], f16))
    case("f16_1000", np.array([1000.0, 1.0], f16))
    case("f16_999", np.array([999.0, 1.0], f16))
    case("f16_max", np.array([65504.0, -65504.0], f16))
    case("f16_subnormal", np.array([6e-8, 1.0], f16))
    case("f16_ratio_overflow", np.array([60000.0, 6e-8], f16))
    case("f16_nan", np.array([nan, 0.5, -inf], f16))
    for name, v in [("0_1", 0.1), ("1000", 1000.0), ("999", 999.0), ("max", 65504.0), ("tiny", 6e-8)]:
        case("f16_0d_" + name, np.array(v, f16))
    # complex
    c128 = np.complex128
    case("c128_basic", np.array([1 + 2j, 3 - 0.5j]))
    case("c128_zero", np.array([0j]))
    case("c128_mixed_scale", np.array([1e10 + 1j, 1 + 1e-10j]))
    case("c128_nonfinite", cplx([nan, 1.0, inf, -inf], [1.0, nan, -inf, inf], c128))
    case("c128_neg_zero", cplx([-0.0, 0.0], [-0.0, -1.0], c128))
    case("c128_2d", np.array([[1 + 1j, 2.5 - 3j], [-1j, 100 + 0.25j]]))
    case("c64_tenths", np.array([0.1 + 0.2j, -0.3 + 1j], np.complex64))
    case("c64_sci", np.array([1e7 + 1j, 1 - 1j], np.complex64))
    for name, re, im in [("basic", 1.0, 2.0), ("imag_only", 0.0, 2.0), ("neg_imag_only", 0.0, -2.0),
                         ("neg_zero_real", -0.0, 2.0), ("nan_inf", nan, inf), ("inf_nan", -inf, nan),
                         ("zero", 0.0, 0.0), ("real_only", 1.5, 0.0), ("neg_zero_imag", 1.0, -0.0),
                         ("sci", 1e20, 1e-5), ("imag_inf", 0.0, inf)]:
        for dt, suffix in [(np.complex128, "c128"), (np.complex64, "c64")]:
            case(f"{suffix}_0d_{name}", cplx([re], [im], dt).reshape(()))
    # nesting, alignment and line wrapping
    f64_2d = np.array([[1.0, -2.5, 3.25], [100.0, 0.5, -0.125]])
    case("f64_2d", f64_2d)
    # views test_format.cpp makes of f64_2d without copying
    case("f64_2d_transposed", f64_2d.T)
    case("f64_2d_reversed", f64_2d[::-1, ::-2])
    case("f64_2d_broadcast", np.broadcast_to(f64_2d[1], (3, 3)))
    arange_case("int32_3d", np.int32, (2, 3, 4))
    arange_case("int8_4d", np.int8, (2, 2, 2, 2))
    arange_case("uint8_8d", np.uint8, (2,) * 8)
    case("nested_ones", np.array([[[7.5]]]))
    rng = np.random.default_rng(2024)
    case("f64_wrap", rng.standard_normal(30))
    case("f64_wrap_2d", rng.standard_normal((3, 12)))
    case("int64_wrap", rng.integers(-10**12, 10**12, 40))
    case("c128_wrap", rng.standard_normal(12) + 1j * rng.standard_normal(12))
    case("bool_wrap", rng.random(40) < 0.5)
    # empty arrays
    case("empty_f64", np.zeros(0))
    case("empty_2x0", np.zeros((2, 0), np.int32))
    # summarization past 1000 elements
    arange_case("sum_int8_1d", np.int8, (2000,))
    arange_case("sum_int64_1001", np.int64, (1001,))
    arange_case("not_summarized_1000", np.int16, (1000,))
    arange_case("sum_int16_2d", np.int16, (40, 30))
    arange_case("sum_int32_3d", np.int32, (11, 11, 11))
    arange_case("sum_f32_2d", np.float32, (3, 400), 0.25)
    arange_case("sum_f64_1d", np.float64, (5000,), 0.5)
    arange_case("sum_c64", np.complex64, (1500,), 1)
    arange_case("sum_bool", np.bool_, (10, 200))
    arange_case("sum_short_axis", np.uint16, (2, 1000))
    summarized = rng.standard_normal(1100).astype(f16)
    summarized[100] = 1e-7  # only the shown elements decide the format
    summarized[1000] = 60000
    case("sum_only_shown_matter", summarized)
    # a spread of random arrays
    for k in range(24):
        dt = [f16, f32, f64, np.complex64, np.complex128, np.int32, np.uint64, np.int8][k % 8]
        n = int(rng.integers(1, 9))
        with np.errstate(all="ignore"):
            x = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 9, n)
            a = (x + 1j * x[::-1] if np.issubdtype(dt, np.complexfloating) else x).astype(dt)
        case(f"random_{k}", a)

    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write(f"# str(array) as printed by numpy {np.__version__}; made by make_format.py\n")
        for name, a, data in cases:
            shape = ",".join(str(d) for d in a.shape)
            f.write(f"@@ {name} {a.dtype.name} ({shape}) {data}\n{str(a)}\n")


if __name__ == "__main__":
    main()
