"""NumPy's selection, placement, partial-sort and set-routine names (rocarray/_numpy_select.py)
against NumPy on random data, called as ``rocarray.<name>`` and through NumPy's
``__array_function__``, with their errors."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

REAL = [d for d in ALL_DTYPES if np.dtype(d).kind != "c"]
NUMBERS = [d for d in REAL if np.dtype(d).kind != "b"]


def _eq(got, want):
    got = got.get() if isinstance(got, ra.Array) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_set_routines(device, dtype):
    rng = np.random.default_rng(51)
    a = random_array((40,), dtype, rng, low=-9, high=9)
    b = random_array((3, 9), dtype, rng, low=-9, high=9)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    _eq(np.isin(x, y), np.isin(a, b))
    _eq(np.isin(x, y, invert=True), np.isin(a, b, invert=True))
    _eq(ra.intersect1d(x, y), np.intersect1d(a, b))
    for got, want in zip(np.intersect1d(x, y, return_indices=True), np.intersect1d(a, b, return_indices=True)):
        _eq(got, want)
    _eq(ra.union1d(x, y), np.union1d(a, b))
    _eq(np.setdiff1d(x, y), np.setdiff1d(a, b))
    u = np.unique(a)
    _eq(ra.setdiff1d(ra.asarray(u[::-1].copy(), device=device), y, assume_unique=True),
        np.setdiff1d(u[::-1], b, assume_unique=True))
    _eq(np.setxor1d(x, y), np.setxor1d(a, b))
    if np.dtype(dtype).kind != "b":
        _eq(np.ediff1d(x, to_begin=ra.asarray(a[:2], device=device), to_end=[a[0]]),
            np.ediff1d(a, to_begin=a[:2], to_end=[a[0]]))
        _eq(ra.ediff1d(y), np.ediff1d(b))


def test_set_routines_nan_and_errors(device):
    a = np.array([1.0, np.nan, 2.0, 2.0, np.nan])
    b = np.array([np.nan, 2.0, 5.0])
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    _eq(ra.intersect1d(x, y), np.intersect1d(a, b))           # a NaN is never found
    _eq(ra.setdiff1d(x, y), [1.0, np.nan, np.nan])             # each NaN distinct (rocarray's unique)
    assert int(ra.isnan(ra.union1d(x, y)).sum()) == 3
    with pytest.raises(ValueError, match="kind must be None, 'sort' or 'table'"):
        np.isin(x, y, kind="hash")
    with pytest.raises(TypeError, match="same_kind"):
        ra.ediff1d(ra.asarray([1, 2], device=device), to_begin=[1.5])
    with pytest.raises(TypeError, match="rocarray array, a Python scalar or a list"):
        ra.union1d(x, object())


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_put_place_putmask(device, dtype):
    rng = np.random.default_rng(52)
    base = random_array((4, 6), dtype, rng)
    v = random_array((5,), dtype, rng)
    ind = np.array([3, -1, 22, 0, 7, 15, 9])
    # (indices that stay distinct once wrapped or clipped: which of equal indices lands is
    # unspecified on a GPU, docs/indexing.md)
    clipped = np.array([-4, 30, 5, 11, 17, 2, 20])
    for mode, idx in (("raise", ind), ("wrap", ind * 5 - 40), ("clip", clipped)):
        a, x = base.copy(), ra.asarray(base, device=device)
        np.put(a, idx, v, mode=mode)
        np.put(x, ra.asarray(idx, device=device), ra.asarray(v, device=device), mode=mode)
        _eq(x, a)
    a, x = base.copy(), ra.asarray(base, device=device)   # a view that is not C-contiguous
    np.put(a.T, [0, 5, -2], v[:2])
    ra.put(x.T, [0, 5, -2], ra.asarray(v[:2], device=device))
    _eq(x, a)
    mask = random_array((4, 6), np.bool_, rng)
    a, x = base.copy(), ra.asarray(base, device=device)
    np.place(a, mask, v[:3])
    np.place(x, ra.asarray(mask, device=device), ra.asarray(v[:3], device=device))
    _eq(x, a)
    a, x = base.copy(), ra.asarray(base, device=device)
    np.putmask(a, mask, v)
    np.putmask(x, ra.asarray(mask, device=device), ra.asarray(v, device=device))
    _eq(x, a)
    a, x = base.copy(), ra.asarray(base, device=device)
    np.putmask(a.T, mask.T, v[:4])
    ra.putmask(x.T, ra.asarray(mask.T, device=device), ra.asarray(v[:4], device=device))
    _eq(x, a)


def test_put_errors_write_nothing(device):
    a = np.arange(10)
    x = ra.asarray(a.copy(), device=device)  # (not a view of a: on the CPU asarray wraps NumPy memory)
    with pytest.raises(IndexError, match="index 12 is out of bounds for axis 0 with size 10"):
        ra.put(x, [1, 12], [7])
    with pytest.raises(IndexError, match="index -11 is out of bounds"):
        ra.put(x, [1, -11], [7])
    with pytest.raises(ValueError, match="mode must be one of"):
        ra.put(x, [1], [7], mode="nearest")
    _eq(x, a)
    m = ra.asarray(a.reshape(2, 5).copy(), device=device)  # (a view that is not C-contiguous)
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        ra.put(m.T, [0, 10], [7])
    _eq(m, a.reshape(2, 5))
    big = ra.asarray(np.arange(1 << 19), device=device)  # (the long path: a check, then the kernel)
    with pytest.raises(IndexError, match="index -524289 is out of bounds"):
        ra.put(big, [3, -(1 << 19) - 1], [7])
    _eq(big, np.arange(1 << 19))
    ra.put(x, [1, 2], [])  # (no values: nothing written, as NumPy)
    _eq(x, a)
    t = ra.reshape(x, (2, 5)).T  # (not C-contiguous: the flat places unravelled, checked first)
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        ra.put(t, [3, 10], [7, 8])
    _eq(x, a)
    with pytest.raises(ValueError, match="mask and data must be the same size"):
        ra.place(x, ra.asarray([True, False], device=device), [1])
    with pytest.raises(ValueError, match="cannot insert from an empty array"):
        ra.place(x, x > 3, [])
    with pytest.raises(ValueError, match="mask and data must be the same size"):
        ra.putmask(x, ra.asarray([True], device=device), [1])
    with pytest.raises(TypeError, match="must be a rocarray array"):
        ra.put(a, [0], [1])
    with pytest.raises(TypeError, match="cannot cast complex values"):
        ra.put(x, [0], ra.asarray([1j], device=device))
    _eq(x, a)


@pytest.mark.parametrize("dtype", NUMBERS, ids=str)
def test_put_along_axis(device, dtype):
    rng = np.random.default_rng(53)
    base = random_array((3, 5, 4), dtype, rng)
    for axis in (0, 1, -1):
        n = base.shape[axis]
        ishape = list(base.shape)
        ishape[axis] = 2
        # (distinct places along the axis: which of two writes to one place wins is unspecified)
        idx = np.stack([rng.permutation(n)[:2] for _ in range(int(np.prod(ishape)) // 2)]).reshape(
            [s for d, s in enumerate(ishape) if d != axis % 3] + [2])
        idx = np.moveaxis(idx, -1, axis)
        vals = random_array(idx.shape, dtype, rng)
        a, x = base.copy(), ra.asarray(base, device=device)
        np.put_along_axis(a, idx, vals, axis=axis)
        np.put_along_axis(x, ra.asarray(idx, device=device), ra.asarray(vals, device=device), axis=axis)
        _eq(x, a)
    a, x = base.copy(), ra.asarray(base, device=device)
    np.put_along_axis(a, np.array([5, -1]), vals.reshape(-1)[0], axis=None)
    ra.put_along_axis(x, ra.asarray([5, -1], device=device), vals.reshape(-1)[0], axis=None)
    _eq(x, a)
    with pytest.raises(IndexError, match="out of bounds"):
        ra.put_along_axis(x, ra.asarray([[[9]]], device=device), 1, axis=1)
    with pytest.raises(ValueError, match="as many dimensions"):
        ra.put_along_axis(x, ra.asarray([1], device=device), 1, axis=1)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_compress_extract_choose_take_modes(device, dtype):
    rng = np.random.default_rng(54)
    a = random_array((5, 7), dtype, rng)
    x = ra.asarray(a, device=device)
    cond = rng.random(7) < 0.5
    c_ = ra.asarray(cond, device=device)  # (NumPy arrays mix with rocarray ones on the CPU only)
    _eq(np.compress(c_, x, axis=1), np.compress(cond, a, axis=1))
    _eq(np.compress(c_[:4], x, axis=0), np.compress(cond[:4], a, axis=0))  # (shorter: the rest left out)
    _eq(np.compress(c_, x), np.compress(cond, a))
    m = random_array((5, 7), np.int8, rng, low=-1, high=2)
    _eq(np.extract(ra.asarray(m, device=device), x), np.extract(m, a))
    c = [random_array((5, 7), dtype, rng) for _ in range(3)]
    pick = rng.integers(0, 3, (5, 7))
    _eq(np.choose(ra.asarray(pick, device=device), [ra.asarray(v, device=device) for v in c]), np.choose(pick, c))
    row = np.choose(pick[0] * 2 - 1, [c[0][0], c[1][0]], mode="clip")
    _eq(np.choose(ra.asarray(pick[0] * 2 - 1, device=device), [ra.asarray(c[0][0], device=device),
                                                                ra.asarray(c[1][0], device=device)], mode="clip"), row)
    _eq(np.choose(ra.asarray(pick - 4, device=device), [ra.asarray(v, device=device) for v in c], mode="wrap"),
        np.choose(pick - 4, c, mode="wrap"))
    idx = rng.integers(-20, 20, 9)
    for mode in ("wrap", "clip"):
        _eq(np.take(x, ra.asarray(idx, device=device), axis=1, mode=mode), np.take(a, idx, axis=1, mode=mode))
        _eq(np.take(x, ra.asarray(idx, device=device), mode=mode), np.take(a, idx, mode=mode))


def test_selection_errors(device):
    x = ra.asarray(np.arange(6), device=device)
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        ra.compress([1] * 7, x)
    with pytest.raises(ValueError, match="condition must be 1-D"):
        ra.compress(ra.ones((2, 3), dtype=ra.bool, device=device), x)
    with pytest.raises(ValueError, match=r"invalid entry in the choice array \(entries must be in \[0, 2\)\)"):
        ra.choose(ra.asarray([0, 2], device=device), [x[:2], x[2:4]])
    with pytest.raises(ValueError, match="invalid entry"):
        ra.choose(ra.asarray([0, -1], device=device), [x[:2], x[2:4]])
    with pytest.raises(ValueError, match="choices must not be empty"):
        ra.choose(ra.asarray([0], device=device), [])
    with pytest.raises(IndexError, match="cannot take from an empty axis"):
        np.take(x[:0], ra.asarray([1], device=device), mode="wrap")
    with pytest.raises(TypeError, match="indices must be integers"):
        np.take(x, ra.asarray([1.0], device=device), mode="clip")


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_partition_lexsort(device, dtype):
    rng = np.random.default_rng(55)
    a = random_array((6, 30), dtype, rng, low=-5, high=5)
    if np.dtype(dtype).kind == "f":
        a[1, 3] = a[4, 0] = np.nan
    x = ra.asarray(a, device=device)
    for kth, axis in ((3, -1), ([0, 29], 1), (-1, 0), (2, None)):
        got = np.partition(x, kth, axis=axis).get()
        want = np.partition(a, kth, axis=axis)
        ax = 0 if axis is None else axis
        for k in np.atleast_1d(kth):  # (NumPy's contract: the kth elements where a sort puts them)
            np.testing.assert_array_equal(np.take(got, k, axis=ax), np.take(want, k, axis=ax))
        order = np.argpartition(x, kth, axis=axis).get()
        flat = a.reshape(-1) if axis is None else a
        np.testing.assert_array_equal(np.take_along_axis(flat, order, axis=ax), got)
    second = random_array((6, 30), dtype, rng, low=-2, high=2)
    _eq(np.lexsort((x, ra.asarray(second, device=device))), np.lexsort((a, second)))
    _eq(ra.lexsort(ra.stack([x, ra.asarray(second, device=device)]), axis=0), np.lexsort(np.stack([a, second]), axis=0))
    with pytest.raises(ValueError, match=r"kth\(=30\) out of bounds \(30\)"):
        ra.partition(x, 30)
    with pytest.raises(TypeError, match="need|at least one key"):
        ra.lexsort([])
    with pytest.raises(ValueError, match="one shape"):
        ra.lexsort([x, x[:3]])
    with pytest.raises(TypeError, match="order="):
        ra.partition(x, 1, order="f")
