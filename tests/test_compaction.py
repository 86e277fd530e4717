"""Boolean-mask get and set of a whole-array mask (``select``, ``mask_assign``) and
``nonzero``, built on the scan's offsets, against NumPy: every dtype, strided operands,
lines long enough for a multi-chunk scan, values of one element and of the selection's length."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import _masks as adv
from rocarray.runtime.pool import SMALL_BLOCK
from conftest import ALL_DTYPES, random_array


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_mask_get_set_every_dtype(device, dtype):
    rng = np.random.default_rng(21)
    a = random_array((5, 8, 6), dtype, rng)
    m = rng.random((5, 8, 6)) < 0.4
    x, mx = ra.asarray(a, device=device), ra.asarray(m, device=device)
    np.testing.assert_array_equal(x[mx].get(), a[m])
    # strided and flipped array and mask
    np.testing.assert_array_equal(x[::-1, 1::2][mx[::-1, ::2]].get(), a[::-1, 1::2][m[::-1, ::2]])
    vals = random_array((int(m.sum()),), dtype, rng)
    b = a.copy()
    b[m] = vals
    x[mx] = ra.asarray(vals, device=device)
    np.testing.assert_array_equal(x.get(), b)
    b[::2][m[::2]] = vals[0]
    xv = x[::2]
    xv[mx[::2]] = ra.asarray(vals[:1], device=device)
    np.testing.assert_array_equal(x.get(), b)


def test_mask_long_and_scalar_values(device):
    rng = np.random.default_rng(4)
    a = random_array((3, 200003), np.float32, rng)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(x[x > 0].get(), a[a > 0])
    np.testing.assert_array_equal(ra.nonzero(x > 50)[1].get(), np.nonzero(a > 50)[1])
    i = ra.asarray(random_array((300001,), np.int64, rng), device=device)
    np.testing.assert_array_equal(i[i != 3].get(), i.get()[i.get() != 3])
    x[x < 0] = 0.5
    a[a < 0] = 0.5
    np.testing.assert_array_equal(x.get(), a)
    x[x > 10] = -x[x > 10]  # a value array of the selection's length
    a[a > 10] = -a[a > 10]
    np.testing.assert_array_equal(x.get(), a)
    # the value read from the array it is written into
    y = ra.asarray(np.arange(10.0), device=device)
    yv = y[ra.asarray(np.arange(10) % 2 == 0, device=device)]
    y[ra.asarray(np.arange(10) % 2 == 1, device=device)] = y[:5]
    e = np.arange(10.0)
    e[1::2] = e[:5]
    np.testing.assert_array_equal(y.get(), e)
    np.testing.assert_array_equal(yv.get(), np.arange(0.0, 10, 2))


def test_mask_empty_zero_d_and_errors(device):
    e = ra.asarray(np.zeros((0, 3), np.float32), device=device)
    assert e[e > 0].shape == (0,)
    e[e > 0] = 1.0
    x = ra.asarray(np.arange(6.0).reshape(2, 3), device=device)
    none = ra.asarray(np.zeros((2, 3), bool), device=device)
    assert x[none].shape == (0,)
    x[none] = ra.asarray(np.zeros(0), device=device)
    with pytest.raises(ValueError, match=r"could not broadcast value of shape \(2,\) into an index result of shape \(3,\)"):
        x[x > 2] = ra.asarray([1.0, 2.0], device=device)
    with pytest.raises(ValueError, match="could not broadcast"):
        x[x > 2] = ra.asarray(np.ones((1, 1)), device=device)
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[ra.asarray(np.ones((3, 2), bool), device=device)]
    z = ra.asarray(np.float32(3), device=device)
    np.testing.assert_array_equal(z[z > 0].get(), np.float32(3)[np.float32(3) > 0])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_nonzero_every_dtype(device, dtype):
    rng = np.random.default_rng(7)
    a = random_array((6, 7, 9), dtype, rng)
    a[rng.random(a.shape) < 0.5] = 0
    x = ra.asarray(a, device=device)
    for got, want in zip(ra.nonzero(x), np.nonzero(a)):
        np.testing.assert_array_equal(got.get(), want)
    for got, want in zip(ra.nonzero(x[::-1, 1::2]), np.nonzero(a[::-1, 1::2])):
        np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 65535, 65536, 65537, 3 * 65536 + 13])
def test_nonzero_chunks_and_densities(device, n):
    # chunk edges of the host's compaction (65,536 elements), mask offsets that are not
    # whole words, and every density from none to all
    rng = np.random.default_rng(n)
    for p in (0.0, 0.02, 0.5, 0.97, 1.0):
        m = rng.random(n + 3) < p
        x = ra.asarray(m, device=device)
        for lo in (0, 3):
            np.testing.assert_array_equal(ra.nonzero(x[lo:lo + n])[0].get(), np.nonzero(m[lo:lo + n])[0])
    f = np.where(rng.random(n) < 0.3, np.nan, 0.0)  # NaN is non-zero
    f[rng.random(n) < 0.2] = -0.0
    np.testing.assert_array_equal(ra.nonzero(ra.asarray(f, device=device))[0].get(), np.nonzero(f)[0])


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float64, np.complex64], ids=str)
def test_masks_around_the_host_one_pass_size(device, dtype):
    """The host walks short masks in one pass (``x[m]`` of a C-contiguous mask under its
    threads' size, ``nonzero`` of one chunk: the count written by the kernel, the result the
    first slots of a longer array, whose block is cut to them),
    longer ones or views by the scan or the chunks' counts: all as NumPy, at every density."""
    rng = np.random.default_rng(31)
    threads = ra.Device("cpu").runtime.parallel_threshold
    dtype = np.dtype(dtype)
    pool = ra.Device("cpu").runtime.memory_pool(0)
    for n in (1, 4097, (1 << 17) // dtype.itemsize, threads - 1, threads):
        a = random_array((n,), dtype, rng)
        x = ra.asarray(a, device=device)
        for p in (0.0, 0.3, 1.0):
            m = rng.random(n) < p
            mx = ra.asarray(m, device=device)
            got = x[mx]
            assert got.shape == (int(m.sum()),)
            np.testing.assert_array_equal(got.get(), a[m])
            np.testing.assert_array_equal(ra.nonzero(mx)[0].get(), np.nonzero(m)[0])
            # (a result's block is cut to it: the pool holds no more than a small block's bytes
            # beyond them, ``MemoryPool.shrink``)
            assert got._buf.nbytes == got.nbytes
            used = pool.used_bytes()
            del got
            assert used - pool.used_bytes() <= max(m.sum() * dtype.itemsize, SMALL_BLOCK) + SMALL_BLOCK + 1024
            vals = random_array((int(m.sum()),), dtype, rng)
            y, want = ra.asarray(a, device=device), a.copy()
            y[mx] = ra.asarray(vals, device=device)
            want[m] = vals
            np.testing.assert_array_equal(y.get(), want)
            with pytest.raises(ValueError, match=rf"value of shape \({m.sum() + 2},\) into an index result of "
                                                 rf"shape \({m.sum()},\)"):  # (one value would broadcast)
                y[mx] = ra.asarray(np.resize(vals, m.sum() + 2), device=device)
            np.testing.assert_array_equal(y.get(), want)  # (nothing written)
    a = random_array((2, 1024, 2), dtype, rng)  # (N-d and C-contiguous, then a view)
    m = rng.random(a.shape) < 0.5
    x, mx = ra.asarray(a, device=device), ra.asarray(m, device=device)
    np.testing.assert_array_equal(x[mx].get(), a[m])
    for got, want in zip(ra.nonzero(mx), np.nonzero(m)):
        np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(x[:, ::2][mx[:, ::2]].get(), a[:, ::2][m[:, ::2]])
    k = int(m[:, ::2].sum())
    x[:, ::2][mx[:, ::2]] = x.reshape((-1,))[:k]  # (a view set from a view of itself)
    a[:, ::2][m[:, ::2]] = a.reshape((-1,))[:k].copy()
    np.testing.assert_array_equal(x.get(), a)


def test_nonzero_zero_d_error(device):
    with pytest.raises(ValueError, match="nonzero: x must have at least one dimension"):
        ra.nonzero(ra.asarray(1.0, device=device))


@pytest.mark.parametrize("words", [False, True], ids=["strided", "runs"])
def test_host_chunk_kernels(words):
    """The host's chunked mask kernels (masks from the threads' size on) run by hand over
    chunks shorter than a word's multiple: on 1-D runs (the word loops) and on a strided
    mask, input and output (the plain loops), counts then writes, as NumPy."""
    rng = np.random.default_rng(11)
    n, C = 1000, 136  # (n a multiple of 8: the mask's words are its bytes)
    mask = rng.random(n) < 0.4
    vals = rng.standard_normal(n).astype(np.float32)
    chunks = -(-n // C)
    if words:
        m, x, w = ra.asarray(mask), ra.asarray(vals), ra.asarray(mask.view(np.uint64))
    else:  # (not runs: the plain loops, which read no word)
        m, x = ra.asarray(np.repeat(mask, 2))[::2], ra.asarray(np.repeat(vals, 2))[::2]
        w = ra.asarray(np.zeros(2 * (n // 8), np.uint64))[::2]
    total = int(mask.sum())
    for kernel, ops, want, dt in ((adv._true_chunks, (), np.flatnonzero(mask), ra.int64),
                                  (adv._select_chunks, (x,), vals[mask], ra.float32)):
        off = ra.full((chunks + 1,), -7, dtype=ra.int64)
        kernel(*ops, m, w, n, C, True, ra.empty((1,), dtype=dt), off, size=chunks, _work=n)
        counts = off.get()
        assert counts[0] == 0
        np.testing.assert_array_equal(counts[1:], np.add.reduceat(mask.astype(np.int64), np.arange(0, n, C)))
        off = ra.asarray(np.cumsum(counts))
        out = ra.zeros((2 * total,), dtype=dt)
        kernel(*ops, m, w, n, C, False, out if words else out[::2], off, size=chunks, _work=n)
        np.testing.assert_array_equal(out.get()[:total] if words else out.get()[::2], want)
    vals = rng.standard_normal(total).astype(np.float32)
    dst = np.repeat(vals[:1], 2 * n)  # (every element set beforehand: the unselected ones stay)
    y = ra.asarray(dst)
    kernel_args = (m, w, n, C)
    off = ra.zeros((chunks + 1,), dtype=ra.int64)
    adv._place_chunks(ra.asarray(vals), *kernel_args, True, y, off, size=chunks, _work=n)
    off = ra.asarray(np.cumsum(off.get()))
    v = ra.asarray(vals) if words else ra.asarray(np.repeat(vals, 2))[::2]
    adv._place_chunks(v, *kernel_args, False, y if words else y[::2], off, size=chunks, _work=n)
    want = dst.copy()
    (want[:n] if words else want[::2])[mask] = vals
    np.testing.assert_array_equal(y.get(), want)
