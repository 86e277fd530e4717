"""NumPy's everyday names of rocarray/_numpy_more.py against NumPy on random data, called
as ``rocarray.<name>`` and through NumPy's ``__array_function__``, with their errors."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

FLOATS = [d for d in ALL_DTYPES if np.dtype(d).kind in "fc"]


def _eq(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _eq(g, w)
        return
    got = got.get() if isinstance(got, ra.Array) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_array_equal(got, want)


def _close(got, want):
    """Equal dtype and shape, values within a few ulps (``atan2`` is the math library's)."""
    got, want = got.get(), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_blocks_rotations_axes(device, dtype):
    rng = np.random.default_rng(61)
    a = random_array((3, 4, 5), dtype, rng)
    x = ra.asarray(a, device=device)
    for k in (0, 1, 2, 3, -1, 5):
        _eq(np.rot90(x, k), np.rot90(a, k))
    _eq(np.rot90(x, 1, axes=(2, 0)), np.rot90(a, 1, axes=(2, 0)))
    for axis, start in ((2, 0), (0, 3), (1, 1), (-1, -2), (0, 2)):
        _eq(np.rollaxis(x, axis, start), np.rollaxis(a, axis, start))
    _eq(np.dsplit(ra.reshape(x, (3, 2, 10)), 5), np.dsplit(a.reshape(3, 2, 10), 5))
    _eq(np.dsplit(ra.reshape(x, (3, 2, 10)), [3, 7]), np.dsplit(a.reshape(3, 2, 10), [3, 7]))
    for shape in ((7,), (2, 9), (0, 3), 25):
        _eq(np.resize(x, shape), np.resize(a, shape))
    b = random_array((2, 3), dtype, rng)
    c = random_array((2, 1), dtype, rng)
    y, z = ra.asarray(b, device=device), ra.asarray(c, device=device)
    _eq(np.block([[y, z], [y, z]]), np.block([[b, c], [b, c]]))
    _eq(np.block([y, y]), np.block([b, b]))
    _eq(ra.block([[[y]], [[y]]]), np.block([[[b]], [[b]]]))
    for obj, axis in (([0, -1], None), (1, 0), (slice(1, None, 2), 2), (np.array([True, False, True, False]), 1)):
        _eq(np.delete(x, ra.asarray(obj, device=device) if isinstance(obj, np.ndarray) else obj, axis=axis),
            np.delete(a, obj, axis=axis))
    rows, cols = np.array([2, 0]), np.array([True, False, True, True])
    _eq(x[ra.ix_(ra.asarray(rows, device=device), ra.asarray(cols, device=device))][..., 0],
        a[np.ix_(rows, cols)][..., 0])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_insert(device, dtype):
    rng = np.random.default_rng(65)
    a = random_array((3, 4), dtype, rng)
    x = ra.asarray(a, device=device)
    dev = lambda v: ra.asarray(v, device=device) if isinstance(v, np.ndarray) else v  # noqa: E731
    for obj, shape, axis in ((1, (), None), (-1, (), 1), (4, (3,), 1), (0, (2, 4), 0), (1, (2, 3), 1),
                             (np.array([1]), (3, 1), 1), (np.array([3, 0, 3]), (), 1), (np.array([2, -1]), (2,), 1),
                             (slice(1, None, 2), (), 0), (np.array([], dtype=np.int64), (), 1)):
        v = random_array(shape, dtype, rng)
        vals = v if shape else v.item()
        _eq(np.insert(x, dev(obj), dev(v) if shape else vals, axis=axis), np.insert(a, obj, vals, axis=axis))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 4"):
        ra.insert(x, 5, a.reshape(-1)[0], axis=1)
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        ra.insert(x, ra.asarray([0, -5], device=device), a.reshape(-1)[0], axis=1)
    with pytest.raises(IndexError, match="obj must be an integer"):
        ra.insert(x, ra.asarray([0.5], device=device), a.reshape(-1)[0])


def test_shape_errors(device):
    x = ra.ones((2, 3), device=device)
    with pytest.raises(ValueError, match="len\\(axes\\) must be 2"):
        ra.rot90(x, axes=(0,))
    with pytest.raises(ValueError, match="axes must be different"):
        ra.rot90(x, axes=(1, 1))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        ra.rot90(x[0])
    with pytest.raises(ValueError, match="3 or more dimensions"):
        ra.dsplit(x, 2)
    with pytest.raises(ValueError, match="non-negative"):
        ra.resize(x, (2, -1))
    with pytest.raises(ValueError, match="list depths are mismatched"):
        ra.block([x, [x]])
    with pytest.raises(TypeError, match="only lists"):
        ra.block((x, x))
    with pytest.raises(IndexError, match="out of bounds"):
        ra.delete(x, [7], axis=1)
    with pytest.raises(ValueError, match="must be 1-dimensional"):
        ra.ix_(x)
    with pytest.raises(ValueError, match="start 4 must be in"):
        ra.rollaxis(x, 0, 4)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_diagonals(device, dtype):
    rng = np.random.default_rng(62)
    for shape, wrap in (((4, 4), False), ((7, 3), False), ((7, 3), True), ((3, 5), False), ((3, 3, 3), False)):
        a = random_array(shape, dtype, rng)
        v = random_array((2,), dtype, rng)
        x = ra.asarray(a.copy(), device=device)  # (its own memory: on the CPU asarray wraps a)
        np.fill_diagonal(a, v, wrap=wrap)
        ra.fill_diagonal(x, ra.asarray(v, device=device), wrap=wrap)
        _eq(x, a)
    a = random_array((4, 6), dtype, rng)
    x = ra.asarray(a, device=device)
    for k in (0, 1, -2):
        _eq(np.tril_indices_from(x, k), np.tril_indices_from(a, k))
        _eq(np.triu_indices_from(x, k), np.triu_indices_from(a, k))
    _eq(np.diag_indices_from(ra.ones((3, 3, 3), device=device)), np.diag_indices_from(np.ones((3, 3, 3))))
    with pytest.raises(ValueError, match="equal length"):
        ra.diag_indices_from(x)
    with pytest.raises(ValueError, match="must be 2-D"):
        ra.tril_indices_from(x[0])
    with pytest.raises(ValueError, match="at least 2-D"):
        ra.fill_diagonal(x[0], 1)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_nan_to_num_and_infinities(device, dtype):
    rng = np.random.default_rng(63)
    a = random_array((40,), dtype, rng)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0]).astype(dtype)
    a[::5] = specials[rng.integers(0, 4, 8)]
    if np.dtype(dtype).kind == "c":
        a.imag[1::7] = np.array([np.nan, np.inf, -np.inf, 2.0])[rng.integers(0, 4, a[1::7].size)]
    x = ra.asarray(a, device=device)
    with np.errstate(all="ignore"):
        _eq(np.nan_to_num(x), np.nan_to_num(a))
        _eq(np.nan_to_num(x, nan=-1.0, posinf=7.0, neginf=-7.0), np.nan_to_num(a, nan=-1.0, posinf=7.0, neginf=-7.0))
        y = ra.asarray(a.copy(), device=device)
        assert np.nan_to_num(y, copy=False) is y
        _eq(y, np.nan_to_num(a))
        _close(np.angle(x), np.angle(a))
        _close(np.angle(x, deg=True), np.angle(a, deg=True))
        _eq(np.iscomplex(x), np.iscomplex(a))
        _eq(np.isreal(x), np.isreal(a))
        if np.dtype(dtype).kind == "f":
            _eq(np.isposinf(x), np.isposinf(a))
            _eq(np.isneginf(x), np.isneginf(a))
        else:
            with pytest.raises(TypeError, match="no sign of infinity"):
                ra.isposinf(x)
    i = ra.asarray([1, -2, 3], device=device)
    _eq(ra.nan_to_num(i), np.array([1, -2, 3]))
    _close(np.angle(i), np.angle(np.array([1, -2, 3])))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if np.dtype(d).kind in "iuf"], ids=str)
def test_select_trim_sort_complex(device, dtype):
    rng = np.random.default_rng(64)
    a = random_array((5, 6), dtype, rng)
    b = random_array((5, 6), dtype, rng)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    c1, c2 = a > b, a != b  # (overlapping: the first that holds wins)
    got = np.select([ra.asarray(c1, device=device), ra.asarray(c2, device=device)], [x, y], default=3)
    _eq(got, np.select([c1, c2], [a, b], default=3))
    f = a.reshape(-1).copy()
    f[:4] = 0
    f[-3:] = 0
    for trim in ("fb", "f", "b", "BF"):
        _eq(np.trim_zeros(ra.asarray(f, device=device), trim), np.trim_zeros(f, trim))
    _eq(ra.trim_zeros(ra.zeros(4, dtype=dtype, device=device)), np.zeros(0, dtype))
    _eq(np.sort_complex(ra.reshape(x, (-1,))), np.sort_complex(a.reshape(-1)))
    with pytest.raises(ValueError, match="same length"):
        ra.select([x > 0], [x, y])
    with pytest.raises(TypeError, match="invalid entry 0 in condlist"):
        ra.select([x], [y])
    with pytest.raises(ValueError, match="trim must be"):
        ra.trim_zeros(ra.reshape(x, (-1,)), "x")
