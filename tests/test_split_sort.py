"""The host's split sort of lines (rocarray/_split_sort.py) against NumPy's stable sort,
bit for bit: every 32- and 64-bit real dtype and 16-bit integers, both orders, NaNs of
several bits and both zeros, many equal values, one to several pieces; which lines take
it; and the host runtime's ``map_threads`` it hands the pieces out with.

The split sort runs where NumPy's sort is AVX-512 and the host has a few threads; its
correctness depends on neither, so the tests here let it run on any CPU of two threads or
more."""

import threading

import numpy as np
import pytest

import rocarray as ra
from rocarray import _radix, _split_sort
from test_radix_sort import _compiles, _desc_argsort

DTYPES = ["int16", "uint16", "int32", "uint32", "float32", "int64", "uint64", "float64"]
#: the host: the default device may be a GPU (``ROCARRAY_TEST_DEVICES``)
CPU = ra.Device("cpu")


@pytest.fixture
def numpy_sorts(monkeypatch):
    """NumPy's sort taken for lines of 2**10 or more (as on an AVX-512 host), split from
    2**12 on; the lines it sorted are counted in the list it yields."""
    monkeypatch.setattr(_split_sort, "numpy_simd_sort", lambda bits: True)
    monkeypatch.setattr(_split_sort, "SPLIT_SORT_MIN", 1 << 12)
    monkeypatch.setattr(_split_sort, "ONE_PIECE_MIN", 1 << 10)
    monkeypatch.setattr(_split_sort, "SPLIT_THREADS_MAX", 64)
    sorted_lines = []
    real = _split_sort.split_sort

    def spy(keys, descending):
        sorted_lines.append(keys.size)
        return real(keys, descending)

    monkeypatch.setattr(_radix, "split_sort", spy)
    return sorted_lines


@pytest.fixture
def split_sorts(numpy_sorts):
    """``numpy_sorts`` on a host of two threads or more, which split the longer lines."""
    if CPU.runtime._threads < 2:
        pytest.skip("the split sort shares a line between host threads; this host runs one "
                    "(ROCARRAY_NUM_THREADS or a one-core CPU)")
    return numpy_sorts


def _wide(n, dtype, rng):
    """Values of the whole range of ``dtype``, with NaNs of three kinds of bits, both zeros
    and infinities among floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = (rng.standard_normal(n) * 1e6).astype(dtype)
        pick = rng.choice(n, 400, replace=False)
        a[pick[:60]] = np.nan
        a[pick[60:90]] = -np.nan
        payload = 0x7FF0_0000_0000_0ABC if dtype.itemsize == 8 else 0x7F80_0ABC
        a[pick[90:100]] = np.frombuffer(np.array(payload, f"u{dtype.itemsize}").tobytes(), dtype)[0]
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
    return a[_desc_argsort(a) if descending else np.argsort(a, kind="stable")]


def _bits(a):
    return a.view(f"u{a.itemsize}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("n", [4096, 70_001, 1 << 18])
def test_split_sort_matches_numpy_bit_for_bit(split_sorts, dtype, descending, n):
    rng = np.random.default_rng(n + len(dtype) + descending)
    a = _wide(n, dtype, rng)
    got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
    assert split_sorts == [n]
    np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_equal_values_zeros_and_nans(split_sorts, dtype):
    # lines of few distinct values (equal values across the pieces' ends), and zeros of
    # both signs and NaNs of several bits interleaved, which the unstable sort may reorder
    rng = np.random.default_rng(3)
    a = _wide(1 << 15, dtype, rng)
    a[rng.random(a.size) < 0.8] = 7
    if a.dtype.kind == "f":
        a[::7] = -0.0
        a[3::7] = 0.0
        a[5::11] = -np.nan
    for descending in (False, True):
        got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
        np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)))
    same = np.full(5000, 3, dtype)
    np.testing.assert_array_equal(ra.sort(ra.asarray(same, device=CPU)).get(), same)
    assert split_sorts == [a.size, a.size, same.size]


@pytest.mark.parametrize("threads", [2, 3, 4, 8])
def test_pieces_for_each_thread_count(split_sorts, monkeypatch, threads):
    monkeypatch.setattr(_split_sort, "_threads", lambda device: threads)
    rng = np.random.default_rng(threads)
    a = _wide(50_003, "float64", rng)
    np.testing.assert_array_equal(_bits(ra.sort(ra.asarray(a, device=CPU)).get()), _bits(_stable(a, False)))
    assert split_sorts == [a.size]


def _heavy_lines(n, dtype, rng):
    """Lines with heavy values (runs of a few percent of the line or more): the smallest
    value filling half the line, a run across the middle, two runs, a NaN run, +0.0 among
    values with no -0.0."""
    dtype = np.dtype(dtype)
    wide = _wide(n, dtype, rng)
    if dtype.kind == "f":
        wide[np.isnan(wide)] = 1.5
        wide[wide == 0] = 2.5  # (no zeros of either sign but those set below)
    ranked = np.sort(wide)
    low, mid, third = ranked[0], ranked[n // 2], ranked[n // 3]
    lines = {"half smallest": np.where(rng.random(n) < 0.5, low, wide),
             "run across the middle": np.where(rng.random(n) < 0.3, mid, wide),
             "two runs": np.where(rng.random(n) < 0.2, third, np.where(rng.random(n) < 0.25, ranked[-n // 5], wide)),
             "10% repeats": np.where(rng.random(n) < 0.1, mid, wide)}
    if dtype.kind == "f":
        lines["NaN run, +0.0"] = np.where(rng.random(n) < 0.4, np.nan, np.where(rng.random(n) < 0.2, 0.0, wide))
    return {name: line.astype(dtype) for name, line in lines.items()}


@pytest.mark.parametrize("dtype", DTYPES)
def test_heavy_values_are_cut_around(split_sorts, dtype):
    # NumPy's partition slows tenfold where its rank lies at or past a large run's start:
    # every cut lies below the runs (checked against the sorted line), and the sort is exact
    rng = np.random.default_rng(11)
    n = 1 << 16
    for name, a in _heavy_lines(n, dtype, rng).items():
        s = np.sort(a)
        runs = _split_sort._heavy_runs(a)
        assert runs, name
        k = _split_sort._cut(0, n, runs, int(_split_sort.MARGIN * n))
        values, counts = np.unique(s, return_counts=True, equal_nan=True)
        heavy = values[counts >= n // 20]
        if k is not None:
            first = np.searchsorted(s, heavy, "left") if dtype[0] != "f" else [
                np.flatnonzero(np.isnan(s) if np.isnan(v) else s == v)[0] for v in heavy]
            assert all(k < f for f in first if f > 0), name
        else:
            assert name == "half smallest"
        for descending in (False, True):
            got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)), err_msg=name)
    assert len(split_sorts) == 2 * len(_heavy_lines(n, dtype, rng))


def test_cuts_and_heavy_runs():
    n = 1 << 20
    margin = int(_split_sort.MARGIN * n)
    assert _split_sort._cut(0, n, [], margin) == n // 2
    assert _split_sort._cut(0, n, [(0, n // 2, 1)], margin) is None  # (the smallest value heavy)
    assert _split_sort._cut(0, n, [(n // 3, n // 2, 1)], margin) == n // 3 - margin - 1
    assert _split_sort._cut(0, n, [(3 * n // 4, n, 1)], margin) == n // 2  # (a run past the middle)
    assert _split_sort._cut(0, n, [(n // 16, n // 8, 1)], margin) is None  # (too small a left piece)
    # a piece after a cut below a run: cut again below it, or not at all
    assert _split_sort._cut(n // 2, n, [(3 * n // 4, n, 1)], margin) == 3 * n // 4 - margin - 1
    a = np.arange(n, dtype=np.int64)
    assert _split_sort._heavy_runs(a) == []
    a[n // 4:n // 2] = 7  # (a quarter of the line: 7 is the 8th value, its run at ranks 8 ...)
    ((r0, r1, value),) = _split_sort._heavy_runs(np.random.default_rng(1).permutation(a))
    assert abs(r0 - 8) < margin and abs(r1 - (8 + n // 4)) < margin and value == 7


@pytest.fixture
def set_apart(monkeypatch):
    """The lines ``_three_way`` set a value apart from, by that value."""
    values, real = [], _split_sort._three_way
    monkeypatch.setattr(_split_sort, "_three_way",
                        lambda keys, work, h, big, items: values.append(h) or real(keys, work, h, big, items))
    return values


def _nan(bits, dtype):
    return np.array(bits, f"u{np.dtype(dtype).itemsize}").view(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint64", "int32"])
@pytest.mark.parametrize("threads", [2, 3, 4])
def test_heavy_value_set_apart(split_sorts, set_apart, monkeypatch, dtype, threads):
    # a value of an eighth of the line or more is written apart (64-bit values; 32-bit
    # lines are cut, their NaNs sorted as +inf), in input order: zeros of both signs as the
    # heavy value, NaNs of several bits and signs as the heavy value, the smallest value, a
    # value in the middle
    monkeypatch.setattr(_split_sort, "_threads", lambda device: threads)
    rng = np.random.default_rng(threads + len(dtype))
    n = 1 << 15
    a = _wide(n, dtype, rng)
    mid = np.sort(a)[n // 2]
    lines = {"half smallest": (np.where(rng.random(n) < 0.5, a.min(), a), a.min()),
             "30% in the middle": (np.where(rng.random(n) < 0.3, mid, a), mid)}
    if a.dtype.kind == "f":
        z = a.copy()
        z[rng.random(n) < 0.2] = 0.0
        z[rng.random(n) < 0.2] = -0.0
        lines["zeros of both signs"] = (z, 0.0)
        q = a.copy()
        for bits in (0x7FF8_0000_0000_0000, 0xFFF8_0000_0000_0000, 0x7FF0_0000_0000_0123) if a.itemsize == 8 else \
                (0x7FC0_0000, 0xFFC0_0000, 0x7F80_0123):
            q[rng.random(n) < 0.15] = _nan(bits, dtype)
        lines["NaNs of three kinds"] = (q, np.nan)
        many = a.copy()  # (NaNs past half the line: their run would stop the first cut)
        for bits in (0x7FF8_0000_0000_0000, 0xFFF8_0000_0000_0000, 0x7FF0_0000_0000_0123) if a.itemsize == 8 else \
                (0x7FC0_0000, 0xFFC0_0000, 0x7F80_0123):
            many[rng.random(n) < 0.3] = _nan(bits, dtype)
        lines["NaNs over half, of three kinds"] = (many, np.nan)
    for name, (line, h) in lines.items():
        set_apart.clear()
        for descending in (False, True):
            got = ra.sort(ra.asarray(line, device=CPU), descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_stable(line, descending)), err_msg=name)
        # (the runs that would move or stop the first cut: not the NaNs', past the middle)
        apart = a.itemsize == 8 and name != "NaNs of three kinds"
        assert len(set_apart) == (2 if apart else 0), name
        assert all(v == h or (np.isnan(v) and np.isnan(h)) for v in set_apart), name


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint64"])
@pytest.mark.parametrize("items", [1, 2, 3, 5])
def test_three_way_writes_below_equal_above_in_input_order(dtype, items):
    rng = np.random.default_rng(items)
    n = 10_007
    a = _wide(n, dtype, rng)
    # (a NaN above a value that is not one written as ``big``, and counted; the -0.0 counted)
    floats = a.dtype.kind == "f"
    big = a.dtype.type(np.inf if floats else 0)
    for h in [a[17], a.min(), a.max()] + ([np.nan, 0.0] if floats else []):
        h = a.dtype.type(h)
        if floats and h == 0:
            a[rng.random(n) < 0.1] = -0.0
        work = ra.empty(n, dtype=a.dtype, device=CPU)
        lo, hi, nans, negative_zeros = _split_sort._three_way(ra.asarray(a, device=CPU), work, h, big, items)
        nan = np.isnan(a) if floats else np.zeros(n, bool)
        below, equal = (~nan, nan) if np.isnan(h) else (a < h, a == h)
        above = a[~below & ~equal]
        if not np.isnan(h):
            above = np.where(np.isnan(above), big, above) if floats else above
        want = np.concatenate([a[below], a[equal], above])
        assert (lo, hi) == (below.sum(), below.sum() + equal.sum())
        assert nans == (0 if np.isnan(h) else nan.sum())
        assert negative_zeros == (np.sum((a == 0) & np.signbit(a)) if floats else 0)
        np.testing.assert_array_equal(_bits(work.get()), _bits(want))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nans_rewritten_only_where_not_numpys_default(split_sorts, monkeypatch, dtype):
    # NumPy's sort writes each NaN as np.nan: where every NaN of the line is np.nan, the
    # NaNs' run is not written again; one NaN of other bits, or zeros of both signs, and
    # it is (the zeros alone where the NaNs are all np.nan)
    written = []  # (which runs are written again, as (zeros, NaNs))
    real_equal, real_isnan = _split_sort.equal, _split_sort.isnan
    monkeypatch.setattr(_split_sort, "equal", lambda *args: written.append((True, False)) or real_equal(*args))
    monkeypatch.setattr(_split_sort, "isnan", lambda *args: written.append((False, True)) or real_isnan(*args))
    rng = np.random.default_rng(21)
    n = 1 << 14
    a = (rng.standard_normal(n) * 100).astype(dtype)
    a[rng.random(n) < 0.02] = np.nan
    other = a.copy()
    other[np.flatnonzero(np.isnan(a))[3]] = -np.nan
    zeros = a.copy()
    zeros[rng.random(n) < 0.02] = -0.0
    zeros[rng.random(n) < 0.02] = 0.0
    for line, want in ((a, []), (other, [(False, True)]), (zeros, [(True, False)])):
        for descending in (False, True):
            written.clear()
            got = ra.sort(ra.asarray(line, device=CPU), descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_stable(line, descending)))
            assert written == want


def test_unique_counts_sorts_by_it(split_sorts):
    rng = np.random.default_rng(5)
    b = _wide(1 << 15, "int64", rng) // (1 << 52)  # (repeats)
    v, c = ra.unique_counts(ra.asarray(b, device=CPU))
    want_v, want_c = np.unique(b, return_counts=True)
    np.testing.assert_array_equal(v.get(), want_v)
    np.testing.assert_array_equal(c.get(), want_c)
    assert split_sorts == [b.size]


def test_which_lines_are_split(split_sorts, monkeypatch):
    rng = np.random.default_rng(7)
    f64 = np.dtype("float64")
    assert _split_sort.split_sorts(f64, 1 << 12, CPU) and _split_sort.split_sorts(f64, (1 << 12) - 1, CPU)
    assert not _split_sort.split_sorts(f64, (1 << 10) - 1, CPU)  # (short lines: the network)
    assert _split_sort.split_sorts(np.dtype("int16"), 1 << 20, CPU)
    for dt in ("float16", "int8", "uint8", "bool", "complex64"):  # (NumPy's float16 sort errs; no SIMD 8-bit sort)
        assert not _split_sort.split_sorts(np.dtype(dt), 1 << 20, CPU)
    # many rows and argsort: the network or the radix passes
    rows = _wide(1 << 14, "float64", rng).reshape(2, -1)
    np.testing.assert_array_equal(_bits(ra.sort(ra.asarray(rows, device=CPU)).get()),
                                  _bits(np.sort(rows, kind="stable")))
    wide = _wide(1 << 14, "int64", rng)
    np.testing.assert_array_equal(ra.argsort(ra.asarray(wide, device=CPU)).get(), np.argsort(wide, kind="stable"))
    assert split_sorts == []
    # more threads than ``SPLIT_THREADS_MAX``: lines up to ``ONE_PIECE_MAX`` in one piece,
    # longer ones by the radix passes, which share all their work
    monkeypatch.setattr(_split_sort, "SPLIT_THREADS_MAX", 1)
    assert _split_sort.split_sorts(f64, _split_sort.ONE_PIECE_MAX, CPU)
    assert not _split_sort.split_sorts(f64, _split_sort.ONE_PIECE_MAX + 1, CPU)
    # NumPy's sort without AVX-512: the radix passes and the network
    monkeypatch.setattr(_split_sort, "numpy_simd_sort", lambda bits: False)
    assert not _split_sort.split_sorts(f64, 1 << 20, CPU)


@pytest.mark.parametrize("dtype", ["int16", "float32", "int64", "float64"])
def test_one_piece_below_the_split(numpy_sorts, monkeypatch, dtype):
    # lines shorter than ``SPLIT_SORT_MIN``: one NumPy sort on the calling thread, its
    # zeros' and NaNs' runs put back in input order as the split's
    monkeypatch.setattr(_split_sort, "SPLIT_SORT_MIN", 1 << 20)
    monkeypatch.setattr(_split_sort, "_heavy_runs", lambda a: pytest.fail("one piece needs no sample"))
    rng = np.random.default_rng(13)
    for n in (1 << 10, 9001, 70_001):
        a = _wide(n, dtype, rng)
        for descending in (False, True):
            got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)), err_msg=f"n={n}")
    assert numpy_sorts == [1 << 10, 1 << 10, 9001, 9001, 70_001, 70_001]


def test_split_sort_compiles_nothing(split_sorts):
    rng = np.random.default_rng(9)
    ra.sort(ra.asarray(_wide(5000, "uint64", rng), device=CPU))
    before = _compiles()
    for n in (6001, 9000, 1 << 15):
        a = _wide(n, "uint64", rng)
        np.testing.assert_array_equal(ra.sort(ra.asarray(a, device=CPU)).get(), np.sort(a))
    assert _compiles() == before
    assert split_sorts == [5000, 6001, 9000, 1 << 15]


def test_numpy_simd_sort_reads_numpys_dispatch():
    from numpy._core._multiarray_umath import __cpu_features__
    assert _split_sort.numpy_simd_sort(32) == bool(__cpu_features__.get("AVX512_SKX"))
    assert _split_sort.numpy_simd_sort(64) == bool(__cpu_features__.get("AVX512_SKX"))
    assert _split_sort.numpy_simd_sort(16) == bool(__cpu_features__.get("AVX512_ICL"))


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
