"""Reductions (sum, prod, min, max, all, any, argmin, argmax and the composites) against
NumPy, on every device present.  Strategies and large inputs: test_reduction_engine.py."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import cache
from rocarray.compiler.cache import drain_background
from conftest import ALL_DTYPES, random_array

AXES = [None, 0, 1, -1, (0, 2), (1, 2), (0, 1, 2), ()]
OPS = ["sum", "prod", "min", "max", "all", "any"]


def _accepts(op, dtype):
    return not (op in ("min", "max") and np.dtype(dtype).kind == "c")


def _expected(op, a, axis, keepdims):
    fn = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "all": np.all, "any": np.any}[op]
    with np.errstate(all="ignore"):
        return np.asarray(fn(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_matches_numpy(device, op, dtype):
    if not _accepts(op, dtype):
        with pytest.raises(TypeError, match="not supported"):
            getattr(ra, op)(ra.zeros(3, dtype=dtype, device=device))
        return
    rng = np.random.default_rng(3)
    low, high = (-3, 3) if op == "prod" else (-50, 50)
    a = random_array((3, 4, 5), dtype, rng, low=low, high=high)
    x = ra.asarray(a, device=device)
    for axis in AXES:
        for keepdims in (False, True):
            e = _expected(op, a, axis, keepdims)
            g = getattr(ra, op)(x, axis=axis, keepdims=keepdims)
            assert g.shape == e.shape, (axis, keepdims)
            assert g.dtype == e.dtype, (axis, g.dtype, e.dtype)
            tol = {2: 5e-3, 4: 1e-5, 8: 1e-12}.get(np.dtype(dtype).itemsize if np.dtype(dtype).kind == "f"
                                                    else np.dtype(dtype).itemsize // 2, 1e-12)
            if e.dtype.kind in "fc":
                np.testing.assert_allclose(g.get(), e, rtol=tol, atol=tol)
            else:
                np.testing.assert_array_equal(g.get(), e)


def test_methods_and_layouts(device):
    a = random_array((6, 7), np.float64)
    x = ra.asarray(a, device=device)
    np.testing.assert_allclose(x.sum(axis=0).get(), a.sum(axis=0))
    np.testing.assert_allclose(x[::2, ::-3].max(axis=1).get(), a[::2, ::-3].max(axis=1))
    np.testing.assert_allclose(x.T.sum(axis=1).get(), a.T.sum(axis=1))
    assert x.all() .dtype == ra.bool and bool(x.any())
    s = ra.sum(ra.asarray(np.float32(2.5), device=device))  # 0-d
    assert s.shape == () and float(s) == 2.5
    np.testing.assert_allclose(ra.sum(x, dtype=ra.float32).get(), a.sum(dtype=np.float32), rtol=1e-5)
    assert ra.sum(ra.asarray(np.ones(3, np.int8), device=device), dtype=ra.int8).dtype == ra.int8


def test_nan_and_empty(device):
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(ra.max(x, axis=1).get(), np.max(a, axis=1))
    np.testing.assert_array_equal(ra.min(x, axis=0).get(), np.min(a, axis=0))
    e = ra.zeros((0, 4), device=device)
    np.testing.assert_array_equal(ra.sum(e, axis=0).get(), np.zeros(4))
    np.testing.assert_array_equal(ra.prod(e, axis=0).get(), np.ones(4))
    assert bool(ra.all(e)) and not bool(ra.any(e))
    assert ra.sum(e, axis=1).shape == (0,)
    with pytest.raises(ValueError, match="no identity"):
        ra.max(e, axis=0)


def test_errors(device):
    x = ra.zeros((2, 3), device=device)
    with pytest.raises(IndexError, match="out of bounds"):
        ra.sum(x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        ra.sum(x, axis=(0, 0))
    with pytest.raises(TypeError, match="rocarray array"):
        ra.sum(np.ones(3))


def test_new_axes_and_shapes_compile_nothing(device):
    a = random_array((4, 5, 6), np.int32)
    x = ra.asarray(a, device=device)
    ra.sum(x, axis=1)
    drain_background()  # (a first call the interpreter ran compiles in the background)
    before = cache.info()["compiled"] + cache.info()["disk_hits"]
    for axis in (None, 0, 2, (0, 1), (1, 2)):
        np.testing.assert_array_equal(ra.sum(x, axis=axis).get(), a.sum(axis=axis))
    ra.sum(x[::2, :, ::-1], axis=0)
    ra.sum(ra.asarray(random_array((9, 2), np.int32), device=device), axis=0)
    # shapes that take every strategy: chunks and record passes, tiles, blocks, threads
    big = random_array((3, 20000), np.int32)
    for y, axis in ((big, 1), (big.T.copy(), 0), (big.reshape(-1), None), (big.reshape(600, 100), 0)):
        np.testing.assert_array_equal(ra.sum(ra.asarray(y, device=device), axis=axis).get(), y.sum(axis=axis))
    drain_background()
    assert cache.info()["compiled"] + cache.info()["disk_hits"] == before


@pytest.mark.parametrize("dtype", [ra.float16, ra.float32, ra.float64, ra.complex64, ra.complex128], ids=str)
def test_mean_var_std(device, dtype):
    a = random_array((4, 5, 3), dtype, np.random.default_rng(9), low=-5, high=5)
    x = ra.asarray(a, device=device)
    tol = 5e-3 if dtype == ra.float16 else 1e-5
    for axis in (None, 0, (1, 2), -1):
        for keepdims in (False, True):
            m = ra.mean(x, axis=axis, keepdims=keepdims)
            assert m.dtype == dtype
            np.testing.assert_allclose(m.get(), np.mean(a, axis=axis, keepdims=keepdims), rtol=tol, atol=tol)
            if dtype.kind == "f":
                for corr in (0, 1):
                    v = ra.var(x, axis=axis, correction=corr, keepdims=keepdims)
                    np.testing.assert_allclose(v.get(), np.var(a, axis=axis, ddof=corr, keepdims=keepdims),
                                               rtol=tol, atol=tol)
                    s = ra.std(x, axis=axis, correction=corr, keepdims=keepdims)
                    np.testing.assert_allclose(s.get(), np.std(a, axis=axis, ddof=corr, keepdims=keepdims),
                                               rtol=tol, atol=tol)
    assert np.isnan(ra.mean(ra.zeros(0, dtype=dtype, device=device)).get()).all()
    with pytest.raises(TypeError, match="floating-point"):
        ra.mean(ra.asarray([1, 2], device=device))
    np.testing.assert_allclose(x.mean(axis=0).get(), a.mean(axis=0), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_mean_var_std_refuse_integers_in_their_own_name(device, name):
    # (std's message said "var"; found by tests/property)
    for dt in (ra.bool, ra.int8, ra.uint64):
        with pytest.raises(TypeError, match=f"^{name}: expected a floating-point array, got {dt}"):
            getattr(ra, name)(ra.zeros((2, 3), dtype=dt, device=device))
    with pytest.raises(TypeError, match=f"^{name}: expected a rocarray array, got list"):
        getattr(ra, name)([1.0, 2.0])


@pytest.mark.parametrize("name", ["mean", "var", "std", "count_nonzero"])
def test_composed_reductions_check_axis_in_their_own_name(device, name):
    # (they said "sum: axis ..."; found by tests/property)
    x = ra.asarray(random_array((2, 3), np.float32), device=device)
    fn = getattr(ra, name)
    for axis in (2, -3, (0, 2)):
        with pytest.raises(IndexError, match=f"^{name}: axis .* is out of bounds for an array of dimension 2"):
            fn(x, axis=axis)
    with pytest.raises(ValueError, match=f"^{name}: repeated axis"):
        fn(x, axis=(1, -1))
    with pytest.raises(IndexError, match=f"^{name}: axis 0 is out of bounds for an array of dimension 0"):
        fn(x[0, 0], axis=0)


def test_float16_statistics_accumulate_in_float32(device):
    # each computes in float32 and rounds once at the end: a float16 running sum of 73 x
    # 951.5 passes 65504 (inf), though the mean is 951.5 (NumPy's mean: 951.5 too)
    x = ra.full(73, 951.6, dtype=ra.float16, device=device)
    assert ra.mean(x).dtype == ra.float16
    assert float(ra.mean(x)) == float(np.mean(np.full(73, 951.6, np.float16))) == 951.5
    assert float(ra.var(x)) == 0.0 and float(ra.std(x)) == 0.0  # (NumPy's var: inf)
    assert float(ra.sum(x)) == np.inf  # the sum itself is past float16's range
    # a deviation whose float16 square is inf (400**2), in a variance that is not
    a = np.zeros(100, np.float16)
    a[7] = 400
    want = np.float16(np.var(a.astype(np.float32)))
    assert np.isfinite(want) and float(ra.var(ra.asarray(a, device=device))) == want
    rng = np.random.default_rng(17)
    a = (rng.random((40, 257)) * 600).astype(np.float16)
    x = ra.asarray(a, device=device)
    f32 = a.astype(np.float32)
    for axis in (None, 0, 1):
        for name in ("sum", "mean", "var", "std"):
            got = getattr(ra, name)(x, axis=axis)
            with np.errstate(over="ignore"):  # the whole sum is past float16's range
                want = getattr(np, name)(f32, axis=axis).astype(np.float16)
            assert got.dtype == ra.float16
            np.testing.assert_allclose(got.get().astype(np.float32), want.astype(np.float32), rtol=1e-3)
    p = (1 + rng.random(300) / 50).astype(np.float16)
    np.testing.assert_allclose(float(ra.prod(ra.asarray(p, device=device))),
                               np.prod(p.astype(np.float32)).astype(np.float16), rtol=1e-3)
    ones = ra.ones(3000, dtype=ra.float16, device=device)  # float16 alone stops at 2048
    np.testing.assert_array_equal(ra.cumulative_sum(ones).get(),
                                  np.cumsum(np.ones(3000, np.float32)).astype(np.float16))
    np.testing.assert_allclose(ra.cumulative_prod(ra.asarray(p, device=device)).get().astype(np.float32),
                               np.cumprod(p.astype(np.float32)).astype(np.float16).astype(np.float32),
                               rtol=1e-3)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_count_nonzero(device, dtype):
    a = random_array((4, 6), dtype, np.random.default_rng(4), low=-2, high=2)
    if np.dtype(dtype).kind == "f":
        a[0, 0] = np.nan
    x = ra.asarray(a, device=device)
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            g = ra.count_nonzero(x, axis=axis, keepdims=keepdims)
            e = np.asarray(np.count_nonzero(a, axis=axis, keepdims=keepdims))
            assert g.dtype == ra.int64 and g.shape == e.shape
            np.testing.assert_array_equal(g.get(), e)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_argmax_argmin(device, op, dtype):
    f = getattr(ra, op)
    if np.dtype(dtype).kind == "c":
        with pytest.raises(TypeError, match="not supported"):
            f(ra.zeros(3, dtype=dtype, device=device))
        return
    rng = np.random.default_rng(5)
    a = random_array((4, 5, 6), dtype, rng, low=-3, high=3)  # few values: many ties
    if np.dtype(dtype).kind == "f":
        a[1, 2, 3] = a[2, 2, 0] = a[3, 4, 5] = np.nan
    x = ra.asarray(a, device=device)
    for axis in (None, 0, 1, -1):
        for keepdims in (False, True):
            e = np.asarray(getattr(np, op)(a, axis=axis, keepdims=keepdims))
            g = f(x, axis=axis, keepdims=keepdims)
            assert g.dtype == ra.int64 and g.shape == e.shape, (axis, keepdims, g.shape, e.shape)
            np.testing.assert_array_equal(g.get(), e, err_msg=f"axis={axis}")
    np.testing.assert_array_equal(getattr(x, op)(axis=1).get(), getattr(np, op)(a, axis=1))
    np.testing.assert_array_equal(f(x[::-1, :, ::2], axis=2).get(), getattr(np, op)(a[::-1, :, ::2], axis=2))


def test_argmax_special_values(device):
    a = np.array([[-np.inf, -np.inf, 1.0], [np.nan, 2.0, np.nan], [0.0, -0.0, 0.0], [np.inf, 3.0, np.inf]])
    x = ra.asarray(a, device=device)
    for op in ("argmax", "argmin"):
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(getattr(ra, op)(x, axis=axis).get(), getattr(np, op)(a, axis=axis))
    big = np.full(50000, 7, np.int16)
    big[[31000, 40000]] = 9
    big[[123, 45000]] = -1
    y = ra.asarray(big, device=device)
    assert int(ra.argmax(y)) == 31000 and int(ra.argmin(y)) == 123
    z = np.random.default_rng(2).standard_normal(300000).astype(np.float32)
    z[[250000, 200001]] = np.nan
    assert int(ra.argmax(ra.asarray(z, device=device))) == 200001
    assert int(ra.argmin(ra.asarray(z, device=device))) == 200001


def test_argmax_errors(device):
    with pytest.raises(ValueError, match="no identity"):
        ra.argmax(ra.zeros((0, 3), device=device), axis=0)
    with pytest.raises(ValueError, match="no identity"):
        ra.argmin(ra.zeros(0, device=device))
    assert ra.argmax(ra.zeros((0, 3), device=device), axis=1).shape == (0,)
    with pytest.raises(TypeError, match="axis must be an int"):
        ra.argmax(ra.zeros((2, 3), device=device), axis=(0, 1))
    assert int(ra.argmax(ra.asarray(np.float32(2.0), device=device))) == 0


def _unit_factors(a):
    """Factors of modulus 1 (0 or 1 for bool and unsigned) shaped as ``a``: products that
    neither overflow nor round much."""
    kind = a.dtype.kind
    if kind == "c":
        return (a / np.abs(a)).astype(a.dtype)
    if kind in "bu":
        return (a != 0).astype(a.dtype) if kind == "u" else a
    return np.where(a < 0, -1, 1).astype(a.dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_cumulative_views(device, dtype):
    """cumulative_sum / cumulative_prod along lines long enough for the GPU's wave scans
    (several wave steps, a partial last one) and short ones, on reversed, strided and
    transposed views."""
    rng = np.random.default_rng(5)
    a = random_array((6, 1001), dtype, rng, low=-2, high=2)
    views = [(slice(None), slice(None, None, -1)), (slice(None, None, 2), slice(None, None, 3)),
             (slice(None, None, -3), slice(None))]
    for op, f, data in (("cumulative_sum", np.cumulative_sum, a), ("cumulative_prod", np.cumulative_prod,
                                                                   _unit_factors(a))):
        x = ra.asarray(data, device=device)
        for view in views:
            for av, xv in ((data[view], x[view]), (data[view].T, x[view].T)):
                for axis in (0, 1):
                    for inc in (False, True):
                        g = getattr(ra, op)(xv, axis=axis, include_initial=inc)
                        if dtype == ra.float16:  # rocarray accumulates float16 in float32
                            e = f(av.astype(np.float32), axis=axis, include_initial=inc).astype(np.float16)
                        else:
                            e = f(av, axis=axis, include_initial=inc)
                        assert g.shape == e.shape and g.dtype == e.dtype, (op, view, axis, inc)
                        if e.dtype.kind in "fc":
                            size = np.dtype(dtype).itemsize // (2 if np.dtype(dtype).kind == "c" else 1)
                            tol = {2: 5e-3, 4: 1e-5}.get(size, 1e-12)
                            np.testing.assert_allclose(g.get(), e, rtol=tol, atol=tol * 100)
                        else:
                            np.testing.assert_array_equal(g.get(), e)


def test_dtype_float16_casts_the_elements_first(device):
    """``dtype=float16`` of a wider input casts each element to float16 first (the standard;
    NumPy), then accumulates in float32: a float32 3.4e38 is inf in float16, so prod with a
    0 is NaN; and the sums see the float16 values (they used the float32 ones; found by
    tests/property)."""
    a = np.array([0.0, 3.4028235e38], dtype=np.float32)
    x = ra.asarray(a, device=device)
    assert np.isnan(float(ra.prod(x, dtype=ra.float16)))
    assert np.isnan(float(ra.cumulative_prod(x, dtype=ra.float16)[-1]))
    rng = np.random.default_rng(3)
    for dt in (np.float32, np.float64, np.int32, np.uint16):
        v = (rng.uniform(-3, 3, 300) if np.dtype(dt).kind == "f" else rng.integers(0, 3000, 300)).astype(dt)
        y = ra.asarray(v, device=device)
        h = v.astype(np.float16).astype(np.float32)
        with np.errstate(over="ignore"):
            want_sum = np.float16(h.sum())
            want_cum = np.cumsum(h).astype(np.float16)
        assert ra.sum(y, dtype=ra.float16).dtype == ra.float16
        np.testing.assert_allclose(float(ra.sum(y, dtype=ra.float16)), float(want_sum), rtol=1e-3)
        np.testing.assert_allclose(ra.cumulative_sum(y, dtype=ra.float16).get().astype(np.float32),
                                   want_cum.astype(np.float32), rtol=1e-3, atol=1e-3)
        two = ra.asarray(np.array([0.13383368, -0.1385117], dtype=np.float32), device=device)
        assert float(ra.cumulative_sum(two, dtype=ra.float16)[-1]) == float(
            np.float16(np.float32(np.float16(0.13383368)) + np.float32(np.float16(-0.1385117))))
