#!/usr/bin/env python3
"""Writes the golden .npy files of tests/unit/test_npy.cpp (run from anywhere).

Needs numpy and ml_dtypes; generated with numpy 2.4 and ml_dtypes 0.5/0.6.

good/*.npy   files that must load; cases.txt lists for each its dtype, shape
             and the expected data as C-order little-endian hex bytes.
bad/*.npy    malformed files; the expected messages live in test_npy.cpp.
"""
import os
import struct

import ml_dtypes
import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))
GOOD = os.path.join(HERE, "good")
BAD = os.path.join(HERE, "bad")

# cujit's dtype names for the NumPy dtypes, bfloat16 through ml_dtypes.
NAMES = {
    np.dtype(np.bool_): "bool", np.dtype(np.int8): "int8", np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32", np.dtype(np.int64): "int64", np.dtype(np.uint8): "uint8",
    np.dtype(np.uint16): "uint16", np.dtype(np.uint32): "uint32", np.dtype(np.uint64): "uint64",
    np.dtype(np.float16): "float16", np.dtype(ml_dtypes.bfloat16): "bfloat16",
    np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
    np.dtype(np.complex64): "complex64", np.dtype(np.complex128): "complex128",
}


def sample(dt, shape=(2, 3)):
    """Values that tell elements, byte order and real/imaginary parts apart."""
    n = int(np.prod(shape))
    if dt == np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        v = np.arange(n, dtype=np.int64) * 37 + 5
        a = (v % min(int(info.max), 1000)).astype(dt)
        a[0], a[-1] = info.min, info.max  # extremes exercise every byte
        return a.reshape(shape)
    base = np.array([1.5, -0.0, np.inf, -2.75e-3, np.nan, 65504.0, 1e-7, -3.0] * (n // 8 + 1))[:n]
    if np.issubdtype(dt, np.complexfloating):
        c = np.empty(n, dt)
        c.real, c.imag = base, base[::-1] * 0.5  # set apart: inf * 1j would make nan
        return c.reshape(shape)
    return base.astype(dt).reshape(shape)


cases = []


def good(name, a, write=None):
    path = os.path.join(GOOD, name + ".npy")
    if write is None:
        np.save(path, a, allow_pickle=False)
    else:
        with open(path, "wb") as f:
            write(f)
    data = np.ascontiguousarray(a)
    if data.dtype.kind in "iufcb" and data.dtype.byteorder == ">":
        data = data.astype(data.dtype.newbyteorder("<"))
    shape = ",".join(str(d) for d in a.shape)
    hexdata = data.tobytes().hex() or "-"
    cases.append(f"{name} {NAMES[np.dtype(a.dtype.newbyteorder('='))]} ({shape}) {hexdata}")


def header_bytes(text, version=(1, 0), pad=True):
    """A raw .npy preamble and header around `text`, for headers np.save never writes."""
    body = text.encode("latin1" if version < (3, 0) else "utf8")
    size = 10 if version == (1, 0) else 12
    if pad:
        body += b" " * (63 - (size + len(body)) % 64) + b"\n"
    fmt = "<H" if version == (1, 0) else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(body)) + body


def raw(name, text, data=b"", version=(1, 0), directory=BAD):
    with open(os.path.join(directory, name + ".npy"), "wb") as f:
        f.write(header_bytes(text, version) + data)


def main():
    os.makedirs(GOOD, exist_ok=True)
    os.makedirs(BAD, exist_ok=True)
    for d in (GOOD, BAD):
        for name in os.listdir(d):
            if name.endswith(".npy"):
                os.remove(os.path.join(d, name))

    # Every dtype, as np.save writes it (bfloat16 comes out as '<V2').
    for dt in NAMES:
        good("dtype_" + NAMES[dt], sample(dt))
    # Both byte orders on read: '>' for every multi-byte dtype.
    for dt in NAMES:
        if dt.itemsize > 1 and dt != np.dtype(ml_dtypes.bfloat16):
            good("be_" + NAMES[dt], sample(dt).astype(dt.newbyteorder(">")))
    # Header versions 2.0 and 3.0.
    a = sample(np.dtype(np.float32))
    good("v2_float32", a, lambda f: npformat.write_array(f, a, version=(2, 0)))
    good("v3_float32", a, lambda f: npformat.write_array(f, a, version=(3, 0)))
    # Fortran order, 2-d and 3-d, incl. a big-endian complex one.
    good("fortran_int32", np.asfortranarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4)))
    good("fortran_float64", np.asfortranarray(sample(np.dtype(np.float64), (3, 5))))
    good("fortran_be_complex128",
         np.asfortranarray(sample(np.dtype(np.complex128), (4, 2)).astype(">c16")))
    # 0-d, empty and many-dimensional arrays.
    good("scalar_float64", np.array(2.5))
    good("scalar_bool", np.array(True))
    good("empty_float32", np.zeros((0,), np.float32))
    good("empty_2x0x3_int16", np.zeros((2, 0, 3), np.int16))
    good("dims8_uint8", np.arange(256, dtype=np.uint8).reshape((2,) * 8))
    # Descr spellings NumPy accepts but does not write, and hand-made headers.
    v = np.arange(3, dtype=np.int8)
    body = v.tobytes()
    spellings = [
        ("descr_lt_i1", "{'descr': '<i1', 'fortran_order': False, 'shape': (3,), }", v),
        ("descr_pipe_u1", "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", v.view(np.uint8)),
        ("descr_native_i1", "{'descr': '=i1', 'fortran_order': False, 'shape': (3,), }", v),
        ("descr_bare_b1", "{'descr': 'b1', 'fortran_order': False, 'shape': (3,), }", v.astype(bool)),
        ("header_compact", "{'shape':(3,),'descr':'|i1','fortran_order':False}", v),
        ("header_spacious", "{ \n'fortran_order' :False ,\t'shape' : ( 3 , ) ,\"descr\": \"|i1\" }", v),
        ("header_python2_long", "{'descr': '|i1', 'fortran_order': False, 'shape': (3L,), }", v),
    ]
    for name, text, arr in spellings:
        payload = arr.tobytes() if arr.dtype != np.bool_ else bytes(arr)
        with open(os.path.join(GOOD, name + ".npy"), "wb") as f:
            f.write(header_bytes(text) + payload)
        cases.append(f"{name} {NAMES[arr.dtype]} (3) {payload.hex()}")
    # Extra bytes after the data are ignored, as np.load does.
    with open(os.path.join(GOOD, "trailing_bytes_int8.npy"), "wb") as f:
        f.write(header_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }") + body + b"xyz")
    cases.append(f"trailing_bytes_int8 int8 (3) {body.hex()}")

    # Malformed files.
    valid = open(os.path.join(GOOD, "dtype_float64.npy"), "rb").read()
    with open(os.path.join(BAD, "bad_magic.npy"), "wb") as f:
        f.write(b"PK\x03\x04 this is a zip file, not a .npy file")
    with open(os.path.join(BAD, "empty.npy"), "wb") as f:
        pass
    with open(os.path.join(BAD, "magic_only.npy"), "wb") as f:
        f.write(b"\x93NUMPY")
    with open(os.path.join(BAD, "truncated_length.npy"), "wb") as f:
        f.write(valid[:9])
    with open(os.path.join(BAD, "truncated_header.npy"), "wb") as f:
        f.write(valid[:50])
    with open(os.path.join(BAD, "bad_version.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x04\x00" + valid[8:])
    with open(os.path.join(BAD, "short_data.npy"), "wb") as f:
        f.write(valid[:-5])
    raw("missing_comma", "{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }", b"\0" * 8)
    raw("not_a_dict", "['descr', '<f4']")
    raw("unterminated_dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ")
    raw("unterminated_string", "{'descr': '<f4}")
    raw("trailing_text", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", b"\0" * 8)
    raw("missing_shape", "{'descr': '<f4', 'fortran_order': False, }")
    raw("extra_key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1, }")
    raw("duplicate_key", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }")
    raw("fortran_not_bool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", b"\0" * 8)
    raw("shape_not_tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", b"\0" * 8)
    raw("shape_negative", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }")
    raw("shape_float", "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,), }")
    raw("shape_overflow", "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }")
    raw("shape_huge_int", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }")
    raw("dims9", "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", b"\0")
    raw("deep_nesting", "{'descr': '<f4', 'fortran_order': False, 'shape': " + "(" * 1000 + ")" * 1000 + "}")
    raw("odd_key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'a\x01\xe9': 1, }")
    raw("long_descr", "{'descr': '<" + "f" * 100 + "', 'fortran_order': False, 'shape': (2,), }")
    raw("void2", "{'descr': '|V2', 'fortran_order': False, 'shape': (1,), }", b"\0\0")
    raw("structured", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", b"\0" * 4)
    np.save(os.path.join(BAD, "unicode_U3.npy"), np.array(["abc", "de"]))
    np.save(os.path.join(BAD, "object.npy"), np.array([1, "x", None], dtype=object), allow_pickle=True)
    np.save(os.path.join(BAD, "longdouble.npy"), np.zeros(2, np.longdouble))

    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("# name dtype (shape) C-order little-endian data as hex ('-': none); made by make_npy.py\n")
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
