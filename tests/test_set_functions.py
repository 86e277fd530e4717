"""unique_all / unique_counts / unique_inverse / unique_values against NumPy (with the
standard's rule that NaNs are distinct: NumPy's equal_nan=False) on every device."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

REAL = ALL_DTYPES


def _check_unique_all(a: np.ndarray, device):
    """``unique_all`` of ``a`` on ``device`` equals NumPy's (NaNs distinct); returns the
    array, rocarray's result and NumPy's ``(values, indices, inverse, counts)``."""
    v, i, inv, c = np.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    x = ra.asarray(a, device=device)
    r = ra.unique_all(x)
    np.testing.assert_array_equal(r.values.get(), v)
    np.testing.assert_array_equal(r.indices.get(), i)
    np.testing.assert_array_equal(r.inverse_indices.get(), inv.reshape(a.shape))
    np.testing.assert_array_equal(r.counts.get(), c)
    return x, r, (v, i, inv, c)


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_unique_matches_numpy(device, dtype):
    rng = np.random.default_rng(31)
    for shape in ((5, 7), (40,), (2, 3, 4), ()):
        a = random_array(shape, dtype, rng, low=-3, high=3)
        if np.dtype(dtype).kind == "f" and a.size > 3:
            a.flat[0] = a.flat[3] = np.nan
        x, r, (v, i, inv, c) = _check_unique_all(a, device)
        assert r.indices.dtype == r.counts.dtype == r.inverse_indices.dtype == ra.int64
        np.testing.assert_array_equal(ra.unique_values(x).get(), v)
        vc = ra.unique_counts(x)
        np.testing.assert_array_equal(vc.values.get(), v)
        np.testing.assert_array_equal(vc.counts.get(), c)
        vi = ra.unique_inverse(x)
        np.testing.assert_array_equal(vi.inverse_indices.get(), inv.reshape(a.shape))
        # the inverse rebuilds x
        np.testing.assert_array_equal(vi.values.get()[vi.inverse_indices.get()], a)


def test_unique_views_empty_and_errors(device):
    rng = np.random.default_rng(32)
    a = random_array((6, 8), np.int32, rng, low=0, high=4)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(ra.unique_values(x[::-2, 1::3]).get(), np.unique(a[::-2, 1::3]))
    e = ra.unique_all(ra.zeros((0, 3), device=device))
    assert e.values.shape == (0,) and e.inverse_indices.shape == (0, 3)
    with pytest.raises(TypeError, match="rocarray array"):
        ra.unique_counts([1, 2, 2])


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_unique_long_arrays(device, dtype):
    """Arrays long enough for the radix sort: NaNs distinct, -0.0 and +0.0 one value."""
    rng = np.random.default_rng(33)
    a = random_array((2000,), dtype, rng, low=-20, high=20)
    if np.dtype(dtype).kind == "f":
        a[[5, 70, 900]] = np.nan
        a[[6, 80]] = -0.0
        a[[7, 81]] = 0.0
    x, r, (v, i, inv, c) = _check_unique_all(a, device)
    vc = ra.unique_counts(x)
    np.testing.assert_array_equal(vc.counts.get(), c)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.complex64, np.bool_], ids=str)
def test_unique_runs_across_chunks(device, dtype):
    """``unique_values`` / ``unique_counts`` of arrays of several of the host's chunks
    (``HOST_COMPACT_CHUNK``, from the threads' size on; the GPU's tiles are smaller still):
    runs that cross a chunk's end, a run longer than a chunk (chunks that begin no run),
    NaNs at the ends of chunks, a last chunk of one element, a last chunk that is whole;
    and shorter arrays, which the host walks in one item (one element, two, one run)."""
    from rocarray._masks import HOST_COMPACT_CHUNK as C
    rng = np.random.default_rng(34)
    n = 4 * C + 1
    a = random_array((n,), dtype, rng, low=-50, high=50)
    a[C - 3:2 * C + 5] = a[C - 4]  # (one run from before the first chunk's end to past the second's)
    if np.dtype(dtype).kind == "f":
        a[[0, C - 1, 4 * C - 1, 4 * C]] = np.nan
    for b in (a, np.sort(a)[::-1].copy(), a[:4 * C], a[:C + 1], a[:1], a[:2], a[C:C + 9]):
        v, c = np.unique(b, return_counts=True, equal_nan=False)
        x = ra.asarray(b, device=device)
        r = ra.unique_counts(x)
        np.testing.assert_array_equal(r.values.get(), v)
        np.testing.assert_array_equal(r.counts.get(), c)
        np.testing.assert_array_equal(ra.unique_values(x).get(), v)


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_isin_matches_numpy(device, dtype):
    rng = np.random.default_rng(34)
    a = random_array((7, 300), dtype, rng, low=-30, high=30)
    b = random_array((400,), dtype, rng, low=-15, high=15)
    if np.dtype(dtype).kind == "f":
        a[0, :3] = [np.nan, -0.0, 0.0]
        b[:2] = [np.nan, 0.0]
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    np.testing.assert_array_equal(ra.isin(x, y).get(), np.isin(a, b))
    np.testing.assert_array_equal(ra.isin(x, y, invert=True).get(), np.isin(a, b, invert=True))
    np.testing.assert_array_equal(ra.isin(x[:, ::-3], y[:5]).get(), np.isin(a[:, ::-3], b[:5]))
    r = ra.isin(x, y)
    assert r.dtype == ra.bool and r.shape == a.shape


@pytest.mark.parametrize("dtype", [ra.int8, ra.int16, ra.int32, ra.int64, ra.uint8, ra.uint32, ra.uint64],
                         ids=str)
def test_isin_integer_table_and_wide_ranges(device, dtype):
    """Integers take a table of x2's values when its range is small, the sort otherwise;
    both at the ends of the dtype's range."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(35)
    a = random_array((500,), dtype, rng, low=-50, high=50)
    a[:4] = [info.min, info.min + 1, info.max - 1, info.max]
    x = ra.asarray(a, device=device)
    for b in (np.array([info.min, info.min + 2, 3], dtype=dtype),        # wide: sorted
              np.array([info.max - 1, info.max, info.max], dtype=dtype),  # narrow, at the top
              np.array([info.min + 1, info.min], dtype=dtype),            # narrow, at the bottom
              random_array((50,), dtype, rng, low=-20, high=20)):
        y = ra.asarray(b, device=device)
        np.testing.assert_array_equal(ra.isin(x, y).get(), np.isin(a, b))
        np.testing.assert_array_equal(ra.isin(x, y, invert=True).get(), np.isin(a, b, invert=True))


@pytest.mark.parametrize("dtype", [ra.float16, ra.float32, ra.float64, ra.int32, ra.int64, ra.uint64], ids=str)
def test_isin_few_values_by_compares(device, dtype, monkeypatch):
    """On the host, up to ``FEW_MAX`` values of x2 are compared with every element, eight a
    pass (x2 padded with its last value; passes between two arrays); more are sorted and
    searched.  Wide integers, so that no table takes them; NaNs, both zeros, invert, a
    strided x1."""
    from rocarray import _set_functions as sf
    passes = []
    real = sf._few
    monkeypatch.setattr(sf, "_few", lambda *args: passes.append(args[-1].size) or real(*args))
    rng = np.random.default_rng(37)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = rng.standard_normal((30, 41)).astype(dt)
        a[0, :4] = [np.nan, -0.0, 0.0, np.inf]
    else:
        a = rng.integers(0, 1 << 30, (30, 41)).astype(dt) * 3
    x = ra.asarray(a, device=device)
    # (one integer is a range of one: the table's)
    for k in (1 if dt.kind == "f" else 2, 8, 9, 24, sf.FEW_MAX, sf.FEW_MAX + 1):
        b = rng.choice(a.ravel(), k)
        if dt.kind == "f" and k > 1:
            b[:2] = [np.nan, 0.0]
        y = ra.asarray(b, device=device)
        passes.clear()
        for xa, xr in ((a, x), (a[::-2, 1::3], x[::-2, 1::3])):
            np.testing.assert_array_equal(ra.isin(xr, y).get(), np.isin(xa, b))
            np.testing.assert_array_equal(ra.isin(xr, y, invert=True).get(), np.isin(xa, b, invert=True))
        host = x.device.kind == "cpu"
        assert len(passes) == (4 * -(-k // sf.FEW_PASS) if host and k <= sf.FEW_MAX else 0), k


def test_isin_bool_through_the_table(device):
    """bool operands go through the integer table (two entries): x2 of True only, False
    only and both, a strided x1, and invert."""
    rng = np.random.default_rng(36)
    a = rng.random((40, 33)) < 0.5
    x = ra.asarray(a, device=device)
    for b in (np.array([True, True]), np.array([False]), rng.random(70) < 0.5,
              np.array([True, False, True])[::2]):
        y = ra.asarray(b, device=device)
        for xa, xr in ((a, x), (a[::-2, 1::3], x[::-2, 1::3])):
            np.testing.assert_array_equal(ra.isin(xr, y).get(), np.isin(xa, b))
            np.testing.assert_array_equal(ra.isin(xr, y, invert=True).get(), np.isin(xa, b, invert=True))
    assert ra.isin(x, True).dtype == ra.bool


def test_isin_mixed_scalars_empty_and_errors(device):
    x = ra.asarray(np.array([1, 2, 3, 4], dtype=np.int32), device=device)
    f = ra.asarray(np.array([2.0, 3.5]), device=device)
    np.testing.assert_array_equal(ra.isin(x, f).get(), [False, True, False, False])
    np.testing.assert_array_equal(ra.isin(x, 3).get(), [False, False, True, False])
    assert ra.isin(2, x).get() and ra.isin(2, x).shape == ()
    np.testing.assert_array_equal(ra.isin(x, ra.zeros((0,), device=device)).get(), [False] * 4)
    np.testing.assert_array_equal(ra.isin(x, ra.zeros((0,), device=device), invert=True).get(), [True] * 4)
    assert ra.isin(ra.zeros((0, 2), device=device), x).shape == (0, 2)
    with pytest.raises(TypeError, match="invert must be a bool"):
        ra.isin(x, x, invert=1)
    with pytest.raises(TypeError, match="rocarray array or a Python scalar"):
        ra.isin(x, [1, 2])
    with pytest.raises(TypeError, match="at least one"):
        ra.isin(1, 2)
