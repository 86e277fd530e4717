"""take, take_along_axis and integer-array indexing through the one-index gather kernels
(rocarray/_advanced_indexing.py: ``rk_take1``, ``rk_take``) against NumPy: index dtypes,
negative and out-of-range indices, strided and flipped sources, broadcast operands."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

_INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_take_every_dtype_strided(device, dtype):
    rng = np.random.default_rng(11)
    a = random_array((6, 7, 5), dtype, rng)
    x = ra.asarray(a, device=device)
    idx = rng.integers(-7, 7, size=(3, 4))
    ix = ra.asarray(idx, device=device)
    for axis in (0, 1, 2):
        k = np.clip(idx, -a.shape[axis], a.shape[axis] - 1)
        kx = ra.asarray(k, device=device)
        np.testing.assert_array_equal(ra.take(x, kx, axis=axis).get(), np.take(a, k, axis=axis))
    # flipped, strided source; 1-D source with negative indices
    v, va = x[::-2, :, 1::2], a[::-2, :, 1::2]
    np.testing.assert_array_equal(ra.take(v, ix[:, :2] % 3, axis=0).get(), np.take(va, idx[:, :2] % 3, axis=0))
    np.testing.assert_array_equal(ra.take(x[2, ::-1, 3], ix).get(), np.take(a[2, ::-1, 3], idx))


@pytest.mark.parametrize("idt", _INDEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_take_index_dtypes_and_bounds(device, idt):
    a = random_array((9,), np.float32)
    x = ra.asarray(a, device=device)
    lo = -9 if np.dtype(idt).kind == "i" else 0
    idx = np.arange(lo, 9).astype(idt)
    np.testing.assert_array_equal(ra.take(x, ra.asarray(idx, device=device)).get(), np.take(a, idx))
    np.testing.assert_array_equal(x[ra.asarray(idx[::-2], device=device)].get(), a[idx[::-2]])
    # a strided view of the indices (the bounds check reads them in place)
    np.testing.assert_array_equal(ra.take(x, ra.asarray(idx, device=device)[1::3]).get(), np.take(a, idx[1::3]))
    big = np.array([0, np.iinfo(idt).max], dtype=idt)
    with pytest.raises(IndexError, match=f"index {np.iinfo(idt).max} is out of bounds for axis 0 with size 9"):
        ra.take(x, ra.asarray(big, device=device))
    if np.dtype(idt).kind == "i":
        with pytest.raises(IndexError, match="index -10 is out of bounds for axis 0 with size 9"):
            x[ra.asarray(np.array([3, -10], dtype=idt), device=device)]


def test_take_along_axis_broadcast_and_errors(device):
    rng = np.random.default_rng(5)
    a = random_array((4, 1, 6), np.int64, rng)
    x = ra.asarray(a, device=device)
    idx = rng.integers(-6, 6, size=(1, 3, 8))
    got = ra.take_along_axis(x, ra.asarray(idx, device=device), axis=2).get()
    want = np.take_along_axis(a, np.where(idx < 0, idx + 6, idx), axis=2)
    np.testing.assert_array_equal(got, want)
    b = random_array((5, 7), np.complex64, rng)
    i0 = rng.integers(0, 5, size=(2, 7))
    np.testing.assert_array_equal(
        ra.take_along_axis(ra.asarray(b, device=device)[:, ::-1], ra.asarray(i0, device=device), axis=0).get(),
        np.take_along_axis(b[:, ::-1], i0, axis=0))
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 2 with size 6"):
        ra.take_along_axis(x, ra.asarray(np.full((1, 1, 2), 6), device=device), axis=2)
    e = ra.asarray(np.zeros((3, 0)), device=device)
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 0"):
        ra.take_along_axis(e, ra.asarray(np.zeros((3, 2), np.int64), device=device), axis=1)
    assert ra.take_along_axis(e, ra.asarray(np.zeros((3, 0), np.int64), device=device), axis=1).shape == (3, 0)



def test_take_along_axis_broadcasts_against_empty_axes(device):
    """Indices of length 1 along another axis broadcast against that axis of ``x``, also
    where it is empty: the result is empty there (NumPy's broadcast), not one long (which
    read a row of the empty ``x``)."""
    rng = np.random.default_rng(63)
    for xshape, ishape, axis in (((0, 1), (1, 1), 1), ((0, 3), (1, 2), 1), ((2, 0), (2, 1), 0),
                                 ((3, 0, 4), (1, 1, 5), 2), ((0, 4, 2), (1, 3, 1), -2),
                                 ((3, 1, 4), (1, 5, 2), 2), ((1, 6), (4, 3), 1)):
        a = random_array(xshape, np.float32, rng)
        n = xshape[axis]
        idx = rng.integers(-n, n, size=ishape) if n else np.zeros(ishape, np.int64)
        want = np.take_along_axis(a, idx, axis=axis)
        got = ra.take_along_axis(ra.asarray(a, device=device), ra.asarray(idx, device=device), axis=axis)
        assert got.shape == want.shape, (xshape, ishape, axis)
        np.testing.assert_array_equal(got.get(), want)

def test_take_large_matches_numpy(device):
    rng = np.random.default_rng(9)
    a = random_array((1 << 19,), np.float32, rng)
    idx = rng.integers(-(1 << 19), 1 << 19, size=1 << 19)
    x, ix = ra.asarray(a, device=device), ra.asarray(idx, device=device)
    np.testing.assert_array_equal(ra.take(x, ix).get(), np.take(a, idx))
    m = a.reshape(512, 1024)
    k = rng.integers(0, 1024, size=300)
    np.testing.assert_array_equal(ra.take(ra.asarray(m, device=device), ra.asarray(k, device=device), axis=1).get(),
                                  np.take(m, k, axis=1))


def test_take_checks_bounds_on_either_side_of_the_checked_gather(device):
    """The host's gathers of at most ``CHECKED_TAKE_MOST`` indices check them in the gather
    (a flag, one per thread); larger ones first (a reduction): both give NumPy's values and
    raise the same ``IndexError``, and a bad call leaves the next good one alone, in this
    thread and in others at once."""
    import threading

    from rocarray import _advanced_indexing

    rng = np.random.default_rng(12)
    limit = _advanced_indexing.CHECKED_TAKE_MOST
    a = random_array((1000,), np.float64, rng)
    x = ra.asarray(a, device=device)
    for m in (1, 257, limit, limit + 1, 3 * limit):
        idx = rng.integers(-1000, 1000, size=m)
        ix = ra.asarray(idx, device=device)
        np.testing.assert_array_equal(ra.take(x, ix).get(), np.take(a, idx))
        np.testing.assert_array_equal(x[ix].get(), a[idx])
        for bad, where in ((1000, m // 2), (-1001, m - 1)):
            wrong = idx.copy()
            wrong[where] = bad
            with pytest.raises(IndexError, match=f"index {bad} is out of bounds for axis 0 with size 1000"):
                ra.take(x, ra.asarray(wrong, device=device))
        np.testing.assert_array_equal(ra.take(x, ix).get(), np.take(a, idx))
    idx = rng.integers(0, 1000, size=300)
    ix, wrong = ra.asarray(idx, device=device), ra.asarray(np.full(300, 5000), device=device)
    errors, mismatches = [], []

    def good():
        for _ in range(200):
            try:
                if not np.array_equal(ra.take(x, ix).get(), a[idx]):
                    mismatches.append("values")
            except IndexError:
                mismatches.append("raised")

    def bad():
        for _ in range(200):
            try:
                ra.take(x, wrong)
            except IndexError:
                errors.append(1)

    threads = [threading.Thread(target=f) for f in (good, bad, good)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert mismatches == [] and len(errors) == 200


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float32, np.int64, np.complex128], ids=str)
def test_transposed_copies_tiled(device, dtype):
    # shapes with and without whole tiles, flipped and strided sources
    rng = np.random.default_rng(2)
    for shape in ((300, 1000), (257, 513)):
        a = random_array(shape, dtype, rng)
        x = ra.asarray(a, device=device)
        np.testing.assert_array_equal(x.T.copy().get(), np.ascontiguousarray(a.T))
        np.testing.assert_array_equal(x[::-1, 1::2].T.copy().get(), np.ascontiguousarray(a[::-1, 1::2].T))
    # into the array it reads (one copy, as the untiled walk)
    sq = random_array((300, 300), dtype, rng)
    z = ra.asarray(sq.copy(), device=device)  # (a CPU array shares a NumPy array's memory)
    z[...] = z.T
    np.testing.assert_array_equal(z.get(), sq.T)
    b = random_array((40, 30, 600), dtype, rng)
    y = ra.asarray(b, device=device)
    np.testing.assert_array_equal(ra.permute_dims(y, (2, 0, 1)).copy().get(),
                                  np.ascontiguousarray(b.transpose(2, 0, 1)))
