"""Integer-array and boolean-mask indexing, take, take_along_axis, nonzero, searchsorted:
compared with NumPy on random data, for every dtype, on every device present."""

import numpy as np
import pytest

import rocarray as ra
import rocarray.cache
from rocarray.compiler.cache import drain_background
from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array

REAL_DTYPES = [d for d in ALL_DTYPES if np.dtype(d).kind != "c"]


def _ra(k, device):
    """A NumPy index key with its arrays as rocarray arrays."""
    if isinstance(k, tuple):
        return tuple(_ra(i, device) for i in k)
    if isinstance(k, np.ndarray):
        return ra.asarray(k, device=device)
    return k


def _check(x, a, key, device):
    r = x[_ra(key, device)]
    e = a[key]
    assert r.shape == e.shape, (key, r.shape, e.shape)
    assert r.dtype == x.dtype
    np.testing.assert_array_equal(r.get(), e)


I = np.array
GETITEM_KEYS = [
    I([2, 0, -1, 3]),
    I([[1, -2], [0, 3]]),
    (I([0, 2]), I([1, 4])),
    (I([[0], [3]]), I([1, 4, 0])),                 # broadcast index arrays
    (slice(None), I([3, 0, 3])),
    (slice(None), I([[1, 3], [0, 2]]), slice(1, None, 2)),
    (I([0, 2]), slice(None), I([1, 4])),           # separated: broadcast dims go first
    (1, I([0, 3]), slice(1, 3)),
    (I([0, 3]), slice(None), -1),                  # int counts as an array index (not adjacent)
    (slice(None), I([0, 3]), 2),                   # adjacent
    (Ellipsis, I([4, 0])),
    (None, I([1, 2]), None, slice(None), I([0, 1])),
    (I([1, 0], dtype=np.uint8), I([2], dtype=np.int16)),
    (slice(None, None, -1), I([0, 0, 3])),
    (I([], dtype=np.int64),),
    (slice(0, 0), I([1, 2])),
]


@pytest.mark.parametrize("key", GETITEM_KEYS, ids=repr)
def test_getitem_integer_arrays(device, key):
    a = random_array((4, 5, 6), np.float64)
    _check(ra.asarray(a, device=device), a, key, device)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_getitem_arrays_every_dtype(device, dtype):
    rng = np.random.default_rng(3)
    a = random_array((3, 7), dtype, rng)
    x = ra.asarray(a, device=device)
    _check(x, a, (I([2, 0, -1]), I([6, 0, 3])), device)
    _check(x, a, (slice(None), I([5, -7])), device)
    _check(x, a, a != a[0, 0], device)
    _check(x, a, (random_array((3,), np.bool_, rng),), device)
    _check(x, a, (True,), device)
    _check(x, a, (False, 0), device)


def test_getitem_strided_views(device):
    a = random_array((6, 8, 5), np.int32)
    x = ra.asarray(a, device=device)
    v, av = x[::-2, 1::3], a[::-2, 1::3]           # a strided, reversed view
    for key in [(I([0, 2]),), (slice(None), I([1, 0, 1])), (I([1]), slice(None), I([4, 0])),
                av[..., 0] > 0, av > 10]:
        _check(v, av, key, device)
    t, at = x.mT, np.swapaxes(a, -1, -2)
    _check(t, at, (I([0, 4]), slice(None), I([5, 1])), device)
    _check(t, at, at > 0, device)
    idx = ra.asarray(I([[3, 1, 0], [2, 2, 2]]), device=device)[:, ::2]   # strided index array
    np.testing.assert_array_equal(x[idx].get(), a[I([[3, 1, 0], [2, 2, 2]])[:, ::2]])


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (2, 1, 3, 2)], ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_masks(device, shape, dtype):
    rng = np.random.default_rng(len(shape))
    a = random_array(shape, dtype, rng)
    x = ra.asarray(a, device=device)
    for k in range(1, len(shape) + 1):
        m = rng.random(shape[:k]) < 0.5
        _check(x, a, m, device)
        b = a.copy()
        y = ra.asarray(b, device=device)
        v = random_array(b[m].shape, dtype, rng)
        y[ra.asarray(m, device=device)] = ra.asarray(v, device=device)
        b[m] = v
        np.testing.assert_array_equal(y.get(), b)
        s = a.flat[0]
        y[ra.asarray(~m, device=device)] = s.item()      # a scalar broadcast
        b[~m] = s
        np.testing.assert_array_equal(y.get(), b)
    none = np.zeros(shape, dtype=bool)
    _check(x, a, none, device)                           # empty result
    _check(x, a, ~none, device)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_setitem_integer_arrays(device, dtype):
    rng = np.random.default_rng(11)
    a = random_array((4, 5, 3), dtype, rng)
    # no repeated positions: which of several writes to one element wins is unspecified
    # (the standard says so; on a GPU the writes race, as in CuPy)
    for key in [I([3, 0, -2]), (I([0, 2]), slice(None), I([1, 2])),
                (slice(None), I([[4, 0], [1, 2]])), (1, I([0, 4]), slice(0, 2)),
                (slice(None, None, -1), I([1]), 0)]:
        b = a.copy()
        x = ra.asarray(b, device=device)
        v = random_array(b[key].shape, dtype, rng)
        x[_ra(key, device)] = ra.asarray(v, device=device)
        b[key] = v
        np.testing.assert_array_equal(x.get(), b)
    x = ra.asarray(a, device=device)
    b = a.copy()
    row = random_array((3,), dtype, rng)
    x[ra.asarray(I([2, 0]), device=device)] = ra.asarray(row, device=device)   # broadcast value
    b[[2, 0]] = row
    np.testing.assert_array_equal(x.get(), b)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float32", "complex128"])
def test_setitem_many_indices_into_a_small_array_in_order(dtype):
    """The host's ``x[idx] = v`` of more indices than its threads' size into an array of at
    most ``PUT_SHARED_MOST`` bytes: one walk in index order (threads would take each other's
    cache lines), so the last of repeated indices wins, as in NumPy; an index out of range
    writes nothing."""
    from rocarray import _advanced_indexing
    rng = np.random.default_rng(43)
    cpu = ra.Device("cpu")
    m = cpu.runtime.parallel_threshold + 7
    n = _advanced_indexing.PUT_SHARED_MOST // np.dtype(dtype).itemsize
    for size in (1000, n):
        a = random_array((size,), dtype, rng)
        idx = rng.integers(-size, size, m)
        v = random_array((m,), dtype, rng)
        x = ra.asarray(a, device=cpu)
        x[ra.asarray(idx, device=cpu)] = ra.asarray(v, device=cpu)
        b = a.copy()
        b[idx] = v
        np.testing.assert_array_equal(x.get(), b)
        bad = idx.copy()
        bad[m // 2] = size
        with pytest.raises(IndexError, match=f"index {size} is out of bounds"):
            x[ra.asarray(bad, device=cpu)] = ra.asarray(v, device=cpu)
        np.testing.assert_array_equal(x.get(), b)  # (nothing written)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_setitem_one_index_array(device, dtype):
    """``x[..., idx, ...] = v`` through one integer array (``put_axis``): the host's short
    walk, the longer puts' kernels (1-D and along an axis of more), index dtypes, strided
    destinations, broadcast values, and nothing written when an index is out of range."""
    rng = np.random.default_rng(41)
    dev = lambda a: ra.asarray(a, device=device)
    long_n = (1 << 18) + 5  # (from the host's threads' size: the checked kernel, not the walk)
    host = device.kind == "cpu"
    for n, m in ((37, 50 if host else 30), (long_n, 3000), (long_n, long_n)):
        a = random_array((n,), dtype, rng)
        # (repeated positions only in the host's short walk, whose order is NumPy's: the
        # last wins; elsewhere which write wins is unspecified, as in the standard)
        idx = rng.integers(-n, n, m) if m > n else rng.permutation(n)[:m] - n * (rng.random(m) < 0.5)
        for idt in (np.int64, np.int32, np.uint32, np.int16):
            if np.iinfo(idt).max < n or (np.dtype(idt).kind == "u" and idx.min() < 0):
                continue
            b, x = a.copy(), dev(a)
            v = random_array((m,), dtype, rng)
            x[dev(idx.astype(idt))] = dev(v)
            b[idx.astype(idt)] = v
            np.testing.assert_array_equal(x.get(), b)
        b, x = a.copy(), dev(a)
        x[dev(idx)] = b[-1]  # (a scalar value)
        b[idx] = b[-1]
        np.testing.assert_array_equal(x.get(), b)
    a = random_array((40,), dtype, rng)
    for key, vshape in ((I([[3, -1], [0, 7]]), (2, 2)), (I([[3, -1], [0, 7]]), (1, 2)), (I([5, 2, 9]), (1,))):
        b, x = a.copy(), dev(a)
        v = random_array(vshape, dtype, rng)
        x[::-2][dev(key)] = dev(v)  # (a reversed, strided destination)
        b[::-2][key] = v
        np.testing.assert_array_equal(x.get(), b)
    b, x = a.copy(), dev(a)
    x[dev(I([0, 1, 2, 3]))] = x[::-1][:4]  # (the value overlaps the destination)
    b[[0, 1, 2, 3]] = b[::-1][:4].copy()
    np.testing.assert_array_equal(x.get(), b)
    c = random_array((5, 6, 4), dtype, rng)
    # (no index twice: which of two writes to one element lands is not defined, in NumPy
    # nor on a GPU, where the winner changes between runs)
    for key in (I([4, -5, 2]), (slice(None), I([[5, 0], [-3, 2]])), (Ellipsis, I([3, 0])),
                (slice(1, None), I([2, 4])), (slice(None, None, -1), slice(None), I([1]))):
        b, x = c.copy(), dev(c)
        v = random_array(b[key].shape, dtype, rng)
        x[_ra(key, device)] = dev(v)
        b[key] = v
        np.testing.assert_array_equal(x.get(), b)
    for target, n, key in ((a, 40, I([3, 40, 1])), (a, 40, I([0, -41])), (c, 5, (I([0, 5]),)),
                           (c, 6, (slice(None), I([1, -7])))):
        x = dev(target.copy())  # (its own memory: on the CPU asarray wraps NumPy memory)
        for size in (3, long_n):  # (the short walk and the checked kernels)
            grow = lambda i: np.resize(i, size) if isinstance(i, np.ndarray) and size > 3 else i
            k = tuple(map(grow, key)) if isinstance(key, tuple) else grow(key)
            with pytest.raises(IndexError, match=f"out of bounds for axis {1 if isinstance(key, tuple) and len(key) == 2 else 0} with size {n}"):
                x[_ra(k, device)] = target.reshape(-1)[0]
            np.testing.assert_array_equal(x.get(), target)  # (nothing written)
    x = dev(a.copy())
    with pytest.raises(IndexError, match="index 18446744073709551615 is out of bounds"):
        x[dev(np.array([1, 2**64 - 1], np.uint64))] = a[0]
    np.testing.assert_array_equal(x.get(), a)


def test_setitem_index_overlaps_destination(device):
    """``x[x] = v``, ``put(x, x, v)``: the indices are the destination's own elements, which
    the writes change; NumPy places by the indices as they were before (a copy of them)."""
    rng = np.random.default_rng(43)
    dev = lambda a: ra.asarray(a, device=device)
    long_n = (1 << 18) + 5  # (the host's threads' size: the kernels, not the short walk)
    for n in (7, 300, long_n):
        for dtype in (np.int64, np.int32):
            # (repeated positions only where the last write wins, the host's short walk)
            a = (rng.integers(0, n, n) if device.kind == "cpu" and n < 1000 else rng.permutation(n)).astype(dtype)
            v = rng.integers(-n, n, n).astype(dtype)
            b, x = a.copy(), dev(a.copy())  # (the CPU's asarray would wrap ``a``'s memory)
            b[b] = v
            x[x] = dev(v)
            np.testing.assert_array_equal(x.get(), b)
            b, x = a.copy(), dev(a.copy())
            b[b[::-1]] = v[:1]
            x[x[::-1]] = dev(v[:1])  # (a reversed view of the destination's buffer)
            np.testing.assert_array_equal(x.get(), b)
            b, x = a.copy(), dev(a.copy())
            np.put(b, b, v)
            ra.put(x, x, dev(v))
            np.testing.assert_array_equal(x.get(), b)
    a = rng.permutation(12).reshape(3, 4) % 3
    b, x = a.copy(), dev(a)
    b[:, b[0]] = 7  # (along the last axis of a 2-D array, by one of its rows)
    x[:, x[0]] = 7
    np.testing.assert_array_equal(x.get(), b)


def _gpu_targets():
    from rocarray.targets.amdgpu import find_device_libs, find_lld
    from rocarray.targets.nvptx import find_libdevice

    return [pytest.param("sm_90", marks=pytest.mark.skipif(
                find_libdevice() is None, reason="libdevice.10.bc not found: install the CUDA toolkit "
                "(set CUDA_HOME) or pip install nvidia-nvvm")),
            pytest.param("gfx942", marks=pytest.mark.skipif(
                find_lld() is None or find_device_libs() is None,
                reason="ld.lld >= 17 and ROCm device-libs are needed to build AMDGPU code objects"))]


@pytest.mark.parametrize("target_name", _gpu_targets())
def test_put_kernels_compile_for_gpu_targets(target_name):
    """Compile-only (no GPU needed): the puts a GPU runs (``rk_put1`` into a 1-D array,
    ``rk_put`` along an axis of more), as the host ran them."""
    from rocarray import _advanced_indexing as adv
    from rocarray.targets import target_for

    n = (1 << 18) + 3  # (from the host's threads' size: ``rk_put1``, not the host's walk)
    x = ra.zeros(n, dtype=ra.float64, device="cpu")
    x[ra.asarray(np.arange(-5, n - 5), device="cpu")] = 2.0
    y = ra.zeros((3, 5), dtype=ra.complex64, device="cpu")
    y[:, ra.asarray(I([4, -1]), device="cpu")] = 1j
    t = target_for(target_name)
    for kernel in (adv._put1, adv._put):
        spec = next(iter(kernel._plans.values())).kernel.spec
        assert len(t.compile(spec.build_module(t))) > 0
    assert x.get()[-5:].tolist() == [2.0] * 5


def test_setitem_cast_overlap_and_views(device):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = ra.asarray(a.copy(), device=device)
    x[ra.asarray(I([0, 2]), device=device)] = ra.asarray([1.7, -2.2, 3.0, 4.9], device=device)
    b = a.copy()
    b[[0, 2]] = np.array([1.7, -2.2, 3.0, 4.9]).astype(np.int32)
    np.testing.assert_array_equal(x.get(), b)
    x[ra.asarray(I([1, 0]), device=device)] = x[1:]          # value overlaps the target
    b[[1, 0]] = b[1:].copy()
    np.testing.assert_array_equal(x.get(), b)
    v = x[:, ::2]                                             # assign through a strided view
    v[ra.asarray(I([2]), device=device), ra.asarray(I([1]), device=device)] = 99
    b[:, ::2][[2], [1]] = 99
    np.testing.assert_array_equal(x.get(), b)
    with pytest.raises(OverflowError):
        x[ra.asarray(I([0]), device=device)] = 2**40
    with pytest.raises(ValueError, match="could not broadcast"):
        x[ra.asarray(I([0, 1]), device=device)] = ra.zeros(3, dtype=ra.int32, device=device)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape,axis", [((9,), None), ((9,), -1), ((4, 6), 0), ((4, 6), 1),
                                        ((2, 3, 5), 1), ((2, 3, 5), -1)], ids=str)
def test_take(device, dtype, shape, axis):
    rng = np.random.default_rng(7)
    a = random_array(shape, dtype, rng)
    x = ra.asarray(a, device=device)
    n = shape[0 if axis is None else axis]
    for idx_dtype in (np.int64, np.int32, np.uint8):
        lo = 0 if np.dtype(idx_dtype).kind == "u" else -n
        idx = rng.integers(lo, n, size=7).astype(idx_dtype)
        kw = {} if axis is None else {"axis": axis}
        r = ra.take(x, ra.asarray(idx, device=device), **kw)
        e = np.take(a, idx, axis=axis if axis is not None else 0)
        assert r.shape == e.shape and r.dtype == x.dtype
        np.testing.assert_array_equal(r.get(), e)
    e = np.take(a, np.array([], dtype=np.int64), axis=axis or 0)
    r = ra.take(x, ra.asarray(np.array([], dtype=np.int64), device=device), **kw)
    assert r.shape == e.shape


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape,axis", [((8,), 0), ((4, 6), 0), ((4, 6), 1), ((3, 4, 5), -2)],
                         ids=str)
def test_take_along_axis(device, dtype, shape, axis):
    rng = np.random.default_rng(9)
    a = random_array(shape, dtype, rng)
    x = ra.asarray(a, device=device)
    n = shape[axis]
    for new_len in (0, 3, 2 * n):
        ishape = list(shape)
        ishape[axis] = new_len
        idx = rng.integers(-n, n, size=ishape)
        r = ra.take_along_axis(x, ra.asarray(idx, device=device), axis=axis)
        np.testing.assert_array_equal(r.get(), np.take_along_axis(a, idx % n, axis=axis))
    if len(shape) > 1:  # indices broadcast in the other dimensions
        ishape = [1] * len(shape)
        ishape[axis] = 2
        idx = rng.integers(0, n, size=ishape)
        r = ra.take_along_axis(x, ra.asarray(idx, device=device), axis=axis)
        np.testing.assert_array_equal(r.get(), np.take_along_axis(a, idx, axis=axis))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(1,), (17,), (4, 5), (3, 1, 4), (2, 3, 2, 2)], ids=str)
def test_nonzero(device, dtype, shape):
    rng = np.random.default_rng(13)
    a = random_array(shape, dtype, rng, low=-2, high=2)
    if np.dtype(dtype).kind == "f":
        a.flat[0] = np.nan                                   # NaN is non-zero
    x = ra.asarray(a, device=device)
    r = ra.nonzero(x)
    e = np.nonzero(a)
    assert len(r) == len(e)
    for ri, ei in zip(r, e):
        assert ri.dtype == ra.int64 and ri.ndim == 1
        np.testing.assert_array_equal(ri.get(), ei)
    z = ra.nonzero(ra.zeros(shape, dtype=dtype, device=device))   # empty result
    assert all(zi.shape == (0,) for zi in z)
    if len(shape) > 1:                                        # a strided view
        v = x[..., ::-2]
        for ri, ei in zip(ra.nonzero(v), np.nonzero(a[..., ::-2])):
            np.testing.assert_array_equal(ri.get(), ei)


@pytest.mark.parametrize("dtype", REAL_DTYPES + [ra.complex64], ids=str)
def test_searchsorted(device, dtype):
    rng = np.random.default_rng(17)
    s = np.sort(random_array((40,), dtype, rng, low=-20, high=20))
    v = random_array((3, 5), dtype, rng, low=-22, high=22)
    v.flat[:3] = s[[0, 7, -1]]                                 # exact hits
    xs, xv = ra.asarray(s, device=device), ra.asarray(v, device=device)
    for side in ("left", "right"):
        r = ra.searchsorted(xs, xv, side=side)
        assert r.dtype == ra.int64 and r.shape == v.shape
        np.testing.assert_array_equal(r.get(), np.searchsorted(s, v, side=side))
    perm = rng.permutation(40)
    u = s[perm]
    sorter = np.argsort(u, kind="stable")
    r = ra.searchsorted(ra.asarray(u, device=device), xv, sorter=ra.asarray(sorter, device=device))
    np.testing.assert_array_equal(r.get(), np.searchsorted(u, v, sorter=sorter))
    r = ra.searchsorted(xs[::-1][::-1], v.flat[5].item(), side="right")   # a scalar x2
    assert r.shape == () and int(r) == np.searchsorted(s, v.flat[5], side="right")


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8"])
def test_searchsorted_of_many_byte_queries_by_table(device, dtype, monkeypatch):
    """The host's bool and 8-bit queries, from ``SEARCH_TABLE_MIN`` on, looked up in a table
    of every value's answer (the queries an N-d view; sorted arrays with repeats, values
    missing and at the ends; ``sorter``); below it, and on a GPU, each searched."""
    from rocarray import _indexing_functions
    rng = np.random.default_rng(19)
    looked_up, real = [], _indexing_functions.take
    monkeypatch.setattr(_indexing_functions, "take", lambda *a, **k: looked_up.append(1) or real(*a, **k))
    info = (0, 1) if dtype == "bool" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
    for n in (1, 300, 5000):
        u = (rng.random(n) < 0.3) if dtype == "bool" else rng.integers(info[0] + 5, info[1] - 5, n).astype(dtype)
        s = np.sort(u)
        v = (rng.random((90, 100)) < 0.5) if dtype == "bool" else rng.integers(*info, (90, 100), endpoint=True).astype(dtype)
        xs, xv = ra.asarray(s, device=device), ra.asarray(v, device=device)[:, ::2]
        for side in ("left", "right"):
            np.testing.assert_array_equal(ra.searchsorted(xs, xv, side=side).get(),
                                          np.searchsorted(s, v[:, ::2], side=side))
        sorter = np.argsort(u, kind="stable")
        np.testing.assert_array_equal(
            ra.searchsorted(ra.asarray(u, device=device), xv, sorter=ra.asarray(sorter, device=device)).get(),
            np.searchsorted(u, v[:, ::2], sorter=sorter))
    few = ra.asarray(v[:2], device=device)
    np.testing.assert_array_equal(ra.searchsorted(xs, few).get(), np.searchsorted(s, v[:2]))
    # (three sizes, two sides: a table each; ``sorter`` takes ``x1`` through ``take`` too)
    assert len(looked_up) == (3 * 3 + 3 if device.kind == "cpu" else 3)


def test_searchsorted_nan_and_empty(device):
    s = np.array([-1.0, 0.5, 2.0, np.nan, np.nan])
    v = np.array([np.nan, 3.0, -5.0, 0.5])
    xs = ra.asarray(s, device=device)
    for side in ("left", "right"):
        r = ra.searchsorted(xs, ra.asarray(v, device=device), side=side)
        np.testing.assert_array_equal(r.get(), np.searchsorted(s, v, side=side))
    r = ra.searchsorted(ra.asarray(np.array([], dtype=np.float64), device=device),
                        ra.asarray(v, device=device))
    np.testing.assert_array_equal(r.get(), np.zeros(4, dtype=np.int64))


def test_errors(device):
    x = ra.asarray(random_array((3, 4), np.float32), device=device)
    i = ra.asarray(I([0, 1]), device=device)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 4"):
        x[:, ra.asarray(I([0, 5]), device=device)]
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with size 3"):
        x[ra.asarray(I([-4]), device=device)]
    with pytest.raises(IndexError, match="integer or boolean type"):
        x[ra.asarray(I([0.5]), device=device)]
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[ra.asarray(np.ones((4,), bool), device=device)]
    with pytest.raises(IndexError, match="too many indices"):
        x[i, i, i]
    with pytest.raises(IndexError, match="out of bounds"):
        x[ra.asarray(I([7]), device=device)] = 1.0
    with pytest.raises(TypeError, match="indices must have an integer data type"):
        ra.take(x, ra.asarray(I([0.0]), device=device), axis=0)
    with pytest.raises(TypeError, match="indices must be a rocarray array"):
        ra.take(x, [0, 1], axis=0)
    with pytest.raises(ValueError, match="axis must be given"):
        ra.take(x, i)
    # (NumPy's kind: an IndexError and a ValueError at once, in the words of every function)
    with pytest.raises(ValueError, match="take: axis 2 is out of bounds for an array of dimension 2"):
        ra.take(x, i, axis=2)
    with pytest.raises(IndexError, match="take: axis -3 is out of bounds"):
        ra.take(x, i, axis=-3)
    with pytest.raises(TypeError, match="axis must be an int"):
        ra.take(x, i, axis=0.0)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        ra.take(x, ra.asarray(I([9]), device=device), axis=1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        ra.take_along_axis(x, i, axis=0)
    with pytest.raises(IndexError, match="out of bounds"):
        ra.take_along_axis(x, ra.asarray(I([[4]]), device=device), axis=1)
    with pytest.raises(ValueError, match="at least one dimension"):
        ra.nonzero(ra.asarray(1.0, device=device))
    with pytest.raises(TypeError, match="must be a rocarray array"):
        ra.nonzero(np.ones(3))
    with pytest.raises(ValueError, match="one-dimensional"):
        ra.searchsorted(x, x)
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        ra.searchsorted(x[0], x, side="middle")
    with pytest.raises(ValueError, match="sorter must have the shape"):
        ra.searchsorted(x[0], x, sorter=i)
    with pytest.raises(TypeError, match="x2 must be"):
        ra.searchsorted(x[0], [1.0])


def test_index_arrays_that_select_nothing_are_not_bounds_checked(device):
    """Index arrays whose broadcast shape is empty select nothing: NumPy checks none of their
    values, and neither does rocarray (found by tests/property); a non-empty broadcast
    shape is checked even when the other axes are empty."""
    a = random_array((3, 4), np.float32)
    empty = np.zeros((0,), dtype=np.int64)
    for key in ((empty, I([9])), (np.zeros((2, 0), dtype=np.int32) + 9, I([[1], [2]]))):
        x = ra.asarray(a, device=device)
        _check(x, a, key, device)
        x[_ra(key, device)] = 1.0
        np.testing.assert_array_equal(x.get(), a)
    e = np.zeros((0, 0, 1), dtype=bool)
    _check(ra.asarray(e, device=device), e, (empty, I([0]), np.int8(0)), device)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        ra.asarray(np.zeros((3, 0)), device=device)[ra.asarray(I([5]), device=device), :]
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 4"):
        ra.asarray(a, device=device)[ra.asarray(empty, device=device), 7]  # (an integer is checked)


def test_index_arrays_that_do_not_broadcast(device):
    """Index arrays of shapes that do not broadcast: an IndexError (NumPy's kind; found by
    tests/property), for reading and for writing."""
    x = ra.asarray(random_array((3, 4, 5), np.float32), device=device)
    i = ra.asarray(I([0, 1]), device=device)
    j = ra.asarray(I([0, 1, 2]), device=device)
    for key in ((i, j), (i, slice(None), j), (0, I([[0, 1]]), np.zeros((0,), dtype=np.int64))):
        with pytest.raises(IndexError, match="shape mismatch: index arrays could not be broadcast together "
                                             "with shapes"):
            x[_ra(key, device)]
        with pytest.raises(IndexError, match="shape mismatch"):
            x[_ra(key, device)] = 1.0


def test_new_shape_compiles_nothing(device):
    rng = np.random.default_rng(21)

    def run(shape):
        a = random_array(shape, np.float32, rng)
        x = ra.asarray(a, device=device)
        n = shape[-1]
        idx = ra.asarray(rng.integers(-n, n, size=(3,)), device=device)
        x[..., idx].get()
        x[ra.asarray(a > 0, device=device)].get()
        x[ra.asarray(a < 0, device=device)] = 0.0
        x[..., idx] = 1.0
        ra.take(x, idx, axis=-1).get()
        ra.take_along_axis(x, ra.asarray(rng.integers(0, n, size=shape), device=device),
                           axis=-1).get()
        [t.get() for t in ra.nonzero(x)]
        ra.searchsorted(ra.asarray(np.sort(a.ravel()), device=device), x).get()

    run((5, 7))
    run((2, 3, 4))
    rocarray.cache.info()
    drain_background()  # (a first call the interpreter ran compiles in the background)
    rocarray.cache.reset_counts()
    run((6, 9))
    run((3, 2, 8))
    drain_background()
    assert rocarray.cache.info()["compiled"] == 0
