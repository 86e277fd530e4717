"""The host's sample sort of long 64-bit lines (rocarray/_sample_sort.py) against NumPy's
stable sort, bit for bit: every 64-bit real dtype, both orders, NaNs of several bits and
both zeros, many equal values (the radix passes take those); which lines take it; and the
host runtime's ``map_threads`` it hands the buckets out with.

The sample sort runs where NumPy's sort is AVX-512; its correctness does not depend on
that, so the tests here let it run on any CPU of two threads or more."""

import threading

import numpy as np
import pytest

import rocarray as ra
from rocarray import _radix, _sample_sort

DTYPES_64 = ["int64", "uint64", "float64"]
#: the host: the default device may be a GPU (``ROCARRAY_TEST_DEVICES``)
CPU = ra.Device("cpu")


@pytest.fixture
def sample_sorts(monkeypatch):
    """The sample sort on (as on an AVX-512 host) for lines of 2**12 or more (lines of up
    to 65,536 64-bit values go to the sorting network once it is compiled: the tests' are
    longer); the lines it sorted are counted in the list it yields (None: it handed the
    line back)."""
    if CPU.runtime._threads < 2:
        pytest.skip("the sample sort shares a line between host threads; this host runs one "
                    "(ROCARRAY_NUM_THREADS or a one-core CPU)")
    monkeypatch.setattr(_sample_sort, "numpy_simd_sort", lambda: True)
    monkeypatch.setattr(_sample_sort, "SAMPLE_SORT_MIN", 1 << 12)
    sorted_lines = []
    real = _sample_sort.sample_sort

    def spy(keys, descending):
        out = real(keys, descending)
        sorted_lines.append(None if out is None else keys.size)
        return out

    monkeypatch.setattr(_radix, "sample_sort", spy)
    return sorted_lines


def _wide(n, dtype, rng):
    """Values of the whole range of ``dtype`` (eight varied digits), with NaNs of three
    kinds of bits, both zeros and infinities among floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = (rng.standard_normal(n) * 1e6).astype(dtype)
        pick = rng.choice(n, 400, replace=False)
        a[pick[:60]] = np.nan
        a[pick[60:90]] = -np.nan
        a[pick[90:100]] = np.frombuffer(np.uint64(0x7FF0_0000_0000_0ABC).tobytes(), np.float64)[0]
        a[pick[100:200]] = -0.0
        a[pick[200:300]] = 0.0
        a[pick[300:320]] = np.inf
        a[pick[320:340]] = -np.inf
        return a
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def _stable(a, descending):
    """NumPy's stable sort, descending as the standard defines it (equal values, NaNs
    among them, in input order)."""
    if not descending:
        return a[np.argsort(a, kind="stable")]
    r = a[::-1]
    return r[np.argsort(r, kind="stable")[::-1]]


def _bits(a):
    return a.view(f"u{a.itemsize}")


@pytest.mark.parametrize("dtype", DTYPES_64)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("n", [70_000, 100_001, 1 << 18])
def test_sample_sort_matches_numpy_bit_for_bit(sample_sorts, dtype, descending, n):
    rng = np.random.default_rng(n + len(dtype) + descending)
    a = _wide(n, dtype, rng)
    got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
    assert sample_sorts == [n]
    np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)))


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_sorted_zeros_and_nans_keep_their_input_order(sample_sorts, dtype):
    # a line of few distinct values: zeros of both signs and NaNs of several bits
    # interleaved, which the unstable sort of a bucket may reorder
    rng = np.random.default_rng(3)
    a = _wide(1 << 17, dtype, rng)
    if a.dtype.kind == "f":
        a[::7] = -0.0
        a[3::7] = 0.0
        a[5::11] = -np.nan
    for descending in (False, True):
        got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
        np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)))
    assert sample_sorts == [a.size, a.size]


def test_lines_of_few_values_and_unique_counts(sample_sorts):
    rng = np.random.default_rng(5)
    # mostly one value: the sample shows one bucket would hold most of the line
    a = np.where(rng.random(1 << 17) < 0.9, 7.0, rng.standard_normal(1 << 17) * 1e9)
    np.testing.assert_array_equal(ra.sort(ra.asarray(a, device=CPU)).get(), np.sort(a))
    assert sample_sorts == [None]
    # ``unique_counts`` sorts its values first
    b = _wide(1 << 17, "int64", rng) // (1 << 40)  # (a range of 2**24: three digits, with repeats)
    v, c = ra.unique_counts(ra.asarray(b, device=CPU))
    want_v, want_c = np.unique(b, return_counts=True)
    np.testing.assert_array_equal(v.get(), want_v)
    np.testing.assert_array_equal(c.get(), want_c)
    assert sample_sorts[1:] == [b.size]


def test_which_lines_take_the_sample_sort(sample_sorts):
    rng = np.random.default_rng(7)
    cpu = CPU
    f64 = np.dtype("float64")
    assert _sample_sort.simd_sorts(f64, 1 << 12, cpu)
    assert not _sample_sort.simd_sorts(f64, (1 << 12) - 1, cpu)  # short lines: the radix passes
    assert not _sample_sort.simd_sorts(np.dtype("float32"), 1 << 20, cpu)  # 32-bit values
    assert not _sample_sort.simd_sorts(np.dtype("int16"), 1 << 20, cpu)
    # integers of a narrow range (two digits), many rows, argsort: the radix passes
    narrow = rng.integers(-1000, 1000, 1 << 17)
    np.testing.assert_array_equal(ra.sort(ra.asarray(narrow, device=CPU)).get(), np.sort(narrow))
    rows = _wide(1 << 17, "float64", rng).reshape(2, -1)
    np.testing.assert_array_equal(_bits(ra.sort(ra.asarray(rows, device=CPU)).get()), _bits(np.sort(rows, kind="stable")))
    wide = _wide(1 << 17, "int64", rng)
    np.testing.assert_array_equal(ra.argsort(ra.asarray(wide, device=CPU)).get(), np.argsort(wide, kind="stable"))
    assert sample_sorts == []


def test_sample_sort_kernels_are_thin(sample_sorts):
    # new sizes reuse the dtype's two kernels
    rng = np.random.default_rng(9)
    ra.sort(ra.asarray(_wide(70_000, "uint64", rng), device=CPU))
    kernels = dict(_sample_sort._kernels)
    for n in (80_001, 90_000, 1 << 18):
        a = _wide(n, "uint64", rng)
        np.testing.assert_array_equal(ra.sort(ra.asarray(a, device=CPU)).get(), np.sort(a))
    assert _sample_sort._kernels == kernels
    assert sample_sorts == [70_000, 80_001, 90_000, 1 << 18]


def test_numpy_simd_sort_reads_numpys_dispatch():
    from numpy._core._multiarray_umath import __cpu_features__
    assert _sample_sort.numpy_simd_sort() == bool(__cpu_features__.get("AVX512_SKX"))


def test_map_threads_runs_every_item_once_and_raises_an_items_error():
    rt = CPU.runtime
    seen, lock = [], threading.Lock()

    def record(item):
        with lock:
            seen.append(item)

    rt.map_threads(record, range(100))
    assert sorted(seen) == list(range(100))

    def fail(item):
        if item == 3:
            raise ValueError("item 3 failed")

    with pytest.raises(ValueError, match="item 3 failed"):
        rt.map_threads(fail, range(8))
