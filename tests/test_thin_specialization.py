"""Thin specialization, proven by counts from rocarray.cache.info().

A new shape, size or stride pattern of a known dtype signature compiles nothing; a new
dtype signature compiles exactly one kernel.
"""

import numpy as np

import rocarray as ra
from rocarray import cache
from rocarray.compiler.cache import drain_background
from conftest import random_array


def _compiles():
    drain_background()  # (a first call the interpreter ran compiles in the background)
    i = cache.info()
    return i["compiled"] + i["disk_hits"]  # a kernel another process compiled counts too


def test_new_shapes_compile_nothing(device):
    rng = np.random.default_rng(0)
    a = ra.asarray(random_array((5, 7), np.int16, rng), device=device)
    ra.bitwise_xor(a, a)  # the signature is now known
    before = _compiles()
    b = ra.asarray(random_array((64, 3, 9), np.int16, rng), device=device)
    c = ra.asarray(random_array((9,), np.int16, rng), device=device)
    ra.bitwise_xor(b, b)                    # new shape
    ra.bitwise_xor(b[:, ::2], b[:, 1::1])   # new stride pattern
    ra.bitwise_xor(b.T, b.T)                # transposed
    ra.bitwise_xor(b, c)                    # broadcast
    ra.bitwise_xor(a[::-1], a)              # reversed
    ra.bitwise_xor(ra.asarray(np.int16(3), device=device), a[0, 0])  # 0-d
    assert _compiles() == before


def test_new_dtype_signature_compiles_one_kernel(device):
    x = ra.asarray(random_array((10,), np.uint16), device=device)
    y = ra.asarray(random_array((10,), np.uint8), device=device)
    out = ra.empty((10,), dtype=ra.float64, device=device)
    before = _compiles()
    # a float32 loop from uint16 and uint8 inputs, stored as float64: a signature nothing
    # else uses (every test of the suite runs in one process, on one kernel cache)
    ra.hypot(x, y, out=out)
    assert _compiles() == before + 1
    ra.hypot(x[::3], y[::3], out=out[:4])
    ra.hypot(x[:, None], y, out=ra.empty((10, 10), dtype=ra.float64, device=device))
    assert _compiles() == before + 1
