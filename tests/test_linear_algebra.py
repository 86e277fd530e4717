"""matmul / @, tensordot, vecdot against NumPy on every device (products summed by the
reduction engine)."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import cache
from rocarray.compiler.cache import drain_background
from conftest import NUMERIC_DTYPES, random_array


def _close(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    g = got.get()
    if np.dtype(dtype).kind in "iub":
        np.testing.assert_array_equal(g, want)  # integer products wrap as NumPy's do
    else:
        tol = 1e-2 if dtype == ra.float16 else 1e-5
        scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_matmul_shapes(device, dtype):
    rng = np.random.default_rng(1)
    low, high = (-4, 4)
    cases = [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((4,), (4, 3)), ((3, 4), (4,)), ((5,), (5,)),
             ((2, 1, 3, 4), (5, 4, 2)), ((0, 3), (3, 2)), ((3, 0), (0, 2)), ((1, 7, 33), (33, 1))]
    for sa, sb in cases:
        a = random_array(sa, dtype, rng, low=low, high=high)
        b = random_array(sb, dtype, rng, low=low, high=high)
        x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
        with np.errstate(all="ignore"):
            want = np.asarray(a @ b)
        _close(x @ y, want, dtype)
        _close(ra.matmul(x, y), want, dtype)


def test_matmul_views_mixed_dtypes_and_inplace(device):
    rng = np.random.default_rng(2)
    a = random_array((6, 8), np.float64, rng)
    b = random_array((8, 6), np.float32, rng)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    _close(x.T @ y.T, a.T @ b.T, ra.float64)
    _close(x[::2, ::-1] @ y[::-1, 1::2], a[::2, ::-1] @ b[::-1, 1::2], ra.float64)
    z = ra.asarray(random_array((6, 6), np.float64, rng), device=device)
    want = z.get() @ (a @ b)
    z @= x @ y
    np.testing.assert_allclose(z.get(), want, rtol=1e-10)
    with pytest.raises(ValueError, match="in place"):
        q = ra.asarray(random_array((6, 8), np.float64, rng), device=device)
        q @= ra.asarray(random_array((8, 3), np.float64, rng), device=device)


def test_matmul_errors(device):
    x = ra.ones((3, 4), device=device)
    with pytest.raises(ValueError, match=r"contracted dimensions differ.*4 != 5"):
        x @ ra.ones((5, 2), device=device)
    with pytest.raises(ValueError, match="at least one dimension"):
        ra.matmul(x, ra.asarray(2.0, device=device))
    with pytest.raises(TypeError, match="numeric"):
        ra.matmul(ra.ones((2, 2), dtype=ra.bool, device=device), ra.ones((2, 2), dtype=ra.bool, device=device))
    with pytest.raises(ValueError, match="batch dimensions"):
        ra.matmul(ra.ones((2, 3, 4), device=device), ra.ones((3, 4, 2), device=device))
    assert (x.__matmul__(np.ones((4, 2)))) is NotImplemented


@pytest.mark.parametrize("dtype", [ra.int32, ra.float32, ra.float64, ra.complex128], ids=str)
def test_tensordot(device, dtype):
    rng = np.random.default_rng(3)
    a = random_array((3, 4, 5), dtype, rng, low=-3, high=3)
    b = random_array((4, 5, 2), dtype, rng, low=-3, high=3)
    c = random_array((5, 3), dtype, rng, low=-3, high=3)
    x, y, z = (ra.asarray(v, device=device) for v in (a, b, c))
    _close(ra.tensordot(x, y, axes=2), np.tensordot(a, b, axes=2), dtype)
    d = random_array((5, 2), dtype, rng, low=-3, high=3)
    _close(ra.tensordot(x, ra.asarray(d, device=device), axes=1), np.tensordot(a, d, axes=1), dtype)
    _close(ra.tensordot(x, z, axes=([2, 0], [0, 1])), np.tensordot(a, c, axes=([2, 0], [0, 1])), dtype)
    _close(ra.tensordot(x, z, axes=0), np.tensordot(a, c, axes=0), dtype)
    with pytest.raises(ValueError, match="does not match"):
        ra.tensordot(x, z, axes=([0], [0]))
    with pytest.raises(ValueError, match="paired"):
        ra.tensordot(x, z, axes=([0, 1], [0]))


@pytest.mark.parametrize("dtype", [ra.int64, ra.float32, ra.complex64, ra.complex128], ids=str)
def test_vecdot(device, dtype):
    rng = np.random.default_rng(4)
    a = random_array((3, 4, 5), dtype, rng, low=-3, high=3)
    b = random_array((4, 5), dtype, rng, low=-3, high=3)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    _close(ra.vecdot(x, y), np.vecdot(a, b), dtype)            # conj(x1) for complex
    _close(ra.vecdot(x, y, axis=-2), np.vecdot(a, b, axis=-2), dtype)
    with pytest.raises(IndexError, match="out of bounds"):
        ra.vecdot(x, y, axis=-3)
    with pytest.raises(ValueError, match="differ in size"):
        ra.vecdot(x, ra.asarray(random_array((4, 1), dtype, rng), device=device))


def test_new_shapes_compile_nothing(device):
    rng = np.random.default_rng(5)
    x = ra.asarray(random_array((3, 4), np.float32, rng), device=device)
    y = ra.asarray(random_array((4, 2), np.float32, rng), device=device)
    x @ y
    drain_background()  # (a first call the interpreter ran compiles in the background)
    before = cache.info()["compiled"] + cache.info()["disk_hits"]
    for sa, sb in (((7, 9), (9, 3)), ((2, 5, 6), (6, 1)), ((8,), (8, 4))):
        a = random_array(sa, np.float32, rng)
        b = random_array(sb, np.float32, rng)
        _close(ra.asarray(a, device=device) @ ra.asarray(b, device=device), a @ b, ra.float32)
    drain_background()
    assert cache.info()["compiled"] + cache.info()["disk_hits"] == before
