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
from llvmlite import ir

from rocarray import _radix, _split_sort
from rocarray.compiler import split_host
from rocarray.targets import target_for
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
    for dt in DTYPES:  # (the class pass compiled: a first sort would not wait for it)
        _split_sort._class_pass(np.dtype(dt), CPU, wait=True)
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


@pytest.mark.parametrize("threads", [2, 3, 4, 8, 16])
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


@pytest.fixture
def classes(monkeypatch):
    """The classes ``_classes`` chose for each line split, as (boundaries, strict, one value)."""
    chosen, real = [], _split_sort._classes
    monkeypatch.setattr(_split_sort, "_classes", lambda a, threads: chosen.append(real(a, threads)) or chosen[-1])
    return chosen


@pytest.mark.parametrize("dtype", DTYPES)
def test_heavy_values_are_classes_of_their_own(split_sorts, classes, monkeypatch, dtype):
    # a value the sample holds often is a class of its own (never sorted: filled), between
    # the boundaries ``< h`` and ``<= h``; the sort is exact (two threads: a host of many
    # has no boundaries left for heavy values, ``test_classes_from_the_sample``)
    monkeypatch.setattr(_split_sort, "_threads", lambda device: 2)
    rng = np.random.default_rng(11)
    n = 1 << 16
    lines = _heavy_lines(n, dtype, rng)
    for name, a in lines.items():
        classes.clear()
        for descending in (False, True):
            got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)), err_msg=name)
        bounds, strict, one_value = classes[0]
        values, counts = np.unique(a[~np.isnan(a)] if a.dtype.kind == "f" else a, return_counts=True)
        for h in values[counts >= n // 20]:  # (5% of the line: the sample's 1/64 with room to spare)
            c = [k for k, v in enumerate(one_value) if v is not None and v == h]
            assert len(c) == 1, (name, h)
            assert bounds[c[0] - 1] == h and strict[c[0] - 1] == 1 and bounds[c[0]] == h and strict[c[0]] == 0
    assert len(split_sorts) == 2 * len(lines)


def test_classes_from_the_sample():
    n = 1 << 20
    rng = np.random.default_rng(1)
    a = rng.permutation(np.arange(n, dtype=np.int64))
    bounds, strict, one_value = _split_sort._classes(a, 1)
    assert bounds.size == 0 and one_value == [None]  # (one thread: one class)
    for threads in (2, 3, 4):  # (a class a thread, of about equal counts; boundaries ``<``)
        bounds, strict, one_value = _split_sort._classes(a, threads)
        assert bounds.dtype == a.dtype and list(strict) == [1] * (threads - 1) and one_value == [None] * threads
        sizes = np.diff(np.searchsorted(np.sort(a), bounds, "left"), prepend=0, append=n)
        assert np.all(np.abs(sizes - n / threads) < 0.03 * n), sizes
    b = a.copy()
    b[n // 4:n // 2] = 7  # (a quarter of the line one value)
    bounds, strict, one_value = _split_sort._classes(rng.permutation(b), 2)
    k = one_value.index(7)
    assert (bounds[k - 1], strict[k - 1], bounds[k], strict[k]) == (7, 1, 7, 0)
    assert sum(v is not None for v in one_value) == 1 and len(bounds) == 3
    # many heavy values: the heaviest, as many as ``KMAX`` boundaries hold beside the cut
    c = rng.integers(0, 40, n).astype(np.float64)
    c[c == 39] = 3  # (3 twice as heavy as the rest)
    c[rng.random(n) < 0.3] = np.nan  # (NaNs: a class of the pass, never a boundary)
    bounds, strict, one_value = _split_sort._classes(c, 2)
    room = (split_host.KMAX - 1) // 2
    assert sum(v is not None for v in one_value) == room and 3.0 in one_value
    assert len(bounds) <= split_host.KMAX and not np.isnan(bounds).any()
    assert list(bounds) == sorted(bounds)
    # every value alike, or every value a NaN
    assert _split_sort._classes(np.full(n, 5, np.int32), 2)[2] == [None, 5, None]
    assert _split_sort._classes(np.full(n, np.nan), 2)[0].size == 0
    # more threads than the pass has classes for: ``KMAX + 1`` classes (no room left for a
    # heavy value's own; cuts in its run fall together)
    bounds, strict, one_value = _split_sort._classes(a, 16)
    assert len(bounds) == split_host.KMAX and one_value == [None] * (split_host.KMAX + 1)
    bounds, strict, one_value = _split_sort._classes(rng.permutation(b), 16)
    assert len(bounds) < split_host.KMAX and set(one_value) == {None} and list(strict) == [1] * len(bounds)


def _pass(a, bounds, strict, items, place_at=None):
    """Run the class pass over ``a`` on ``items`` chunks, counting, then (``place_at``: each
    chunk's classes' places from the counts) writing: (the counts, the words after the
    writes, the written line, the chunk's length)."""
    kind = f"{a.dtype.kind}{a.itemsize}"
    K, S, lanes = len(bounds), split_host.slots(len(bounds)), split_host.lanes(kind)
    chunk = -(-(-(-a.size // items)) // lanes) * lanes
    items = -(-a.size // chunk)
    k = _split_sort._class_pass(a.dtype, CPU, wait=True)
    counts = np.zeros((items, S), np.int64)
    out = np.full(a.size * a.itemsize, 0x5A, np.uint8).view(a.dtype)
    bounds, strict = np.ascontiguousarray(bounds, a.dtype), np.ascontiguousarray(strict, np.uint8)

    def run(place):
        k.code.launch_entry(k, K, split_host.packer(), items,
                            (a.ctypes.data, a.size, chunk, K, bounds.ctypes.data, strict.ctypes.data,
                             counts.ctypes.data, out.ctypes.data, int(place)), items, 1, a.size)

    run(False)
    counted = counts.copy()
    if place_at is not None:
        counts[:, :K + 2] = place_at(counted)
        run(True)
    return counted, counts, out, chunk


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("items", [1, 2, 3, 5])
def test_class_pass_counts_and_writes_each_class_in_input_order(dtype, items):
    rng = np.random.default_rng(items + len(dtype))
    n = 10_007  # (no whole number of vectors: each chunk's last part vector masked)
    a = _wide(n, dtype, rng)
    floats = a.dtype.kind == "f"
    if floats:
        a[rng.random(n) < 0.05] = -0.0
    pick = np.sort(a[rng.choice(n, 3)])
    if floats:
        pick = pick[~np.isnan(pick)]
    bounds = np.array([pick[0], pick[0]] + list(pick[1:]), a.dtype)  # (``< p0``, ``<= p0``: p0's own class)
    strict = np.array([1, 0] + [1] * (len(pick) - 1), np.uint8)
    K = len(bounds)

    def klass(v):
        if floats and np.isnan(v):
            return K + 1
        return next((k for k, (s, st) in enumerate(zip(bounds, strict)) if (v < s if st else v <= s)), K)

    cls = np.array([klass(v) for v in a])
    first = np.zeros(K + 2, np.int64)
    first[1:] = np.cumsum(np.bincount(cls, minlength=K + 2))[:-1]

    def place_at(counted):  # (each chunk's classes after the chunks' before; class 1 not written)
        at = first + np.cumsum(counted[:, :K + 2], axis=0) - counted[:, :K + 2]
        at[:, 1] = -1
        return at

    counted, ends, out, chunk = _pass(a, bounds, strict, items, place_at)
    for i in range(counted.shape[0]):
        part = slice(i * chunk, (i + 1) * chunk)
        assert list(counted[i, :K + 2]) == list(np.bincount(cls[part], minlength=K + 2))
        if floats:
            negative_zeros = np.sum((a[part] == 0) & np.signbit(a[part]))
            nan_bits = np.array(np.nan, a.dtype).view(f"u{a.itemsize}")
            assert list(counted[i, K + 2:]) == [negative_zeros, np.sum(_bits(a[part]) == nan_bits)]
            assert list(ends[i, K + 2:]) == list(counted[i, K + 2:])  # (counted again as it writes)
    for c in range(K + 2):
        lo, size = first[c], np.sum(cls == c)
        if c == 1:  # (not written: its places keep their bytes; its ends stay -1)
            assert np.all(out[lo:lo + size].view(np.uint8) == 0x5A) and np.all(ends[:, 1] == -1)
            continue
        np.testing.assert_array_equal(_bits(out[lo:lo + size]), _bits(a[cls == c]), err_msg=f"class {c}")
        assert ends[-1, c] == lo + size  # (where the class ends)


@pytest.mark.parametrize("dtype", DTYPES)
def test_class_pass_writes_empty_and_sparse_classes(dtype):
    # classes that most vectors hold no lane of (here: none at all, or five in 10,007
    # elements) are written as every other: a vector with none of a class's lanes writes
    # nothing of it, and an empty class's place does not move
    rng = np.random.default_rng(5)
    n = 10_007
    a = rng.integers(0, 1000, n).astype(dtype)
    sparse = rng.choice(n, 5, replace=False)
    a[sparse] = 5000
    bounds = np.array([0, 1000, 2000], dtype)  # (``< 0`` and ``< 2000``: empty; above: the five)
    strict = np.ones(3, np.uint8)
    first = np.array([0, 0, n - 5, n - 5, n], np.int64)

    def place_at(counted):
        return first + np.cumsum(counted[:, :5], axis=0) - counted[:, :5]

    counted, ends, out, chunk = _pass(a, bounds, strict, 3, place_at)
    assert list(counted[:, :5].sum(axis=0)) == [0, n - 5, 0, 5, 0]
    np.testing.assert_array_equal(_bits(out[:n - 5]), _bits(a[a < 1000]))
    np.testing.assert_array_equal(_bits(out[n - 5:]), _bits(a[sparse[np.argsort(sparse)]]))
    assert list(ends[-1, :5]) == [0, n - 5, n - 5, n, n]
    assert np.all(ends[:, 0] == 0) and np.all(ends[:, 2] == n - 5)


def test_class_pass_module_builds_for_the_host():
    target = target_for("host").heavy_tier
    for kind in split_host.KINDS:
        module = ir.Module("split")
        module.triple, module.data_layout = target.triple, target.data_layout
        split_host.build_split_module(module, target, "rk_split", kind)
        asm = target.emit_assembly(module)
        assert "rk_split:" in asm and f"rk_split{split_host.entry_suffix(split_host.KMAX)}:" in asm
        if "+avx512f" in target.features.split(",") and kind[1] != "2":
            assert "vcompress" in asm or "vpcompress" in asm, kind
    module = ir.Module("split")
    with pytest.raises(ValueError, match="built for the host, not for"):
        split_host.build_split_module(module, target_for("sm_90"), "rk_split", "f4")
    with pytest.raises(ValueError, match="not 'c8'"):
        split_host.build_split_module(module, target, "rk_split", "c8")


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
def test_while_the_class_pass_compiles_one_numpy_sort(numpy_sorts, monkeypatch, dtype):
    # (the first sort of a dtype does not wait for the module: one NumPy sort, its zeros'
    # and NaNs' runs written again in input order)
    monkeypatch.setattr(_split_sort, "_class_pass", lambda dtype, device, wait=False: None)
    rng = np.random.default_rng(17)
    a = _wide(1 << 13, dtype, rng)
    for descending in (False, True):
        got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
        np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)))
    assert numpy_sorts == [a.size, a.size]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("split", [True, False])
def test_nans_rewritten_only_where_not_numpys_default(split_sorts, monkeypatch, dtype, split):
    # NumPy's sort writes each NaN as np.nan: where every NaN of the line is np.nan, the
    # NaNs' run is not written again; one NaN of other bits, or zeros of both signs, and
    # it is (the zeros alone where the NaNs are all np.nan); split between the threads (the
    # class pass counts them) or one NumPy sort (the sorted line and a count say it)
    if not split:
        monkeypatch.setattr(_split_sort, "SPLIT_SORT_MIN", 1 << 20)
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
    monkeypatch.setattr(_split_sort, "_classes", lambda *args: pytest.fail("one piece needs no sample"))
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


def _signed_zeros_and_nans(n, dtype, rng, negative=True, positive=True):
    """Normal values with runs of zeros (of the signs asked) and NaNs of several bits."""
    a = rng.standard_normal(n).astype(dtype)
    pick = rng.choice(n, n // 8, replace=False)
    k = len(pick) // 4
    if negative:
        a[pick[:k]] = -0.0
    if positive:
        a[pick[k:2 * k]] = 0.0
    a[pick[2 * k:2 * k + 5]] = -np.nan
    payload = 0x7FF8_0000_0000_0123 if a.itemsize == 8 else 0x7FC0_0123
    a[pick[2 * k + 5:2 * k + 9]] = np.array(payload, f"u{a.itemsize}").view(dtype)
    a[pick[2 * k + 9:3 * k]] = np.nan
    return a


@pytest.mark.parametrize("n", [1 << 13, 1 << 16, 1 << 18])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("threads", ["one", "several"])
def test_host_lines_as_numpys_stable_sort(monkeypatch, n, dtype, threads):
    # the host's lines of 2^13..2^18 as ``sort`` takes them with the library's own limits:
    # one NumPy sort on the calling thread or split between the threads (or the radix
    # passes, where NumPy's sort is not SIMD), bit for bit NumPy's stable sort: the zeros
    # in input order, NaNs with their bits, last ascending and first descending
    if threads == "one":
        monkeypatch.setattr(_split_sort, "SPLIT_SORT_MIN", 1 << 30)
    rng = np.random.default_rng(n + len(dtype))
    if dtype.startswith("float"):
        lines = [_signed_zeros_and_nans(n, dtype, rng), _signed_zeros_and_nans(n, dtype, rng, negative=False),
                 _signed_zeros_and_nans(n, dtype, rng, positive=False), rng.standard_normal(n).astype(dtype)]
    else:
        lines = [_wide(n, dtype, rng), (rng.standard_normal(n) * 3).astype(dtype)]  # (the second: counted)
    for a in lines:
        x = ra.asarray(a.copy(), device=CPU)
        for descending in (False, True):
            got = ra.sort(x, descending=descending)
            np.testing.assert_array_equal(_bits(got.get()), _bits(_stable(a, descending)))
            assert got._buf is not x._buf and got.is_c_contiguous()
        np.testing.assert_array_equal(_bits(x.get()), _bits(a))  # (the input is never written)


def test_zeros_of_one_sign_are_not_written_again(numpy_sorts, monkeypatch):
    # after one NumPy sort the zeros' run is written again only where the input holds a
    # -0.0 (NumPy's sort makes no -0.0 of +0.0); a NaN-free line without zeros reads no more
    monkeypatch.setattr(_split_sort, "SPLIT_SORT_MIN", 1 << 30)
    written = []
    real_equal = _split_sort.equal
    monkeypatch.setattr(_split_sort, "equal", lambda *args: written.append(1) or real_equal(*args))
    rng = np.random.default_rng(31)
    for dtype in ("float32", "float64"):
        for negative, want in ((False, 0), (True, 2)):
            a = _signed_zeros_and_nans(1 << 13, dtype, rng, negative=negative)
            written.clear()
            for descending in (False, True):
                got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
                np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)))
            assert len(written) == want
    # (every element a zero, or a NaN; one element each way)
    for a in (np.zeros(1 << 13), -np.zeros(1 << 13), np.full(1 << 13, np.nan), np.array([0.0, -0.0] * (1 << 12))):
        for descending in (False, True):
            got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_stable(a, descending)))


def test_stable_runs_of_numpy_sorted_lines():
    # ``_stable_runs`` on lines that NumPy sorted: NaNs at the end (the start, descending)
    # are found and get their bits back; no zeros and no NaNs leave the line as it is
    rng = np.random.default_rng(37)
    for descending in (False, True):
        a = rng.standard_normal(5000)
        a[[3, 99]] = [np.nan, -np.nan]
        o = np.sort(a)[::-1].copy() if descending else np.sort(a)
        _split_sort._stable_runs(ra.asarray(a, device=CPU), a, o, descending)
        np.testing.assert_array_equal(_bits(o), _bits(_stable(a, descending)))
        b = rng.standard_normal(5000)
        o = np.sort(b)[::-1].copy() if descending else np.sort(b)
        _split_sort._stable_runs(ra.asarray(b, device=CPU), b, o, descending)
        np.testing.assert_array_equal(_bits(o), _bits(_stable(b, descending)))


def test_sort_of_a_line_takes_its_arguments_as_before():
    # the host's line path checks nothing ``sort`` would not: a bool axis, a NumPy int axis
    # and a non-bool ``descending`` are errors; a strided line and axis 0 are sorted
    x = ra.asarray(np.random.default_rng(41).standard_normal(1 << 14), device=CPU)
    for bad, kw in ((TypeError, {"axis": True}), (TypeError, {"axis": np.int64(0)}),
                    (TypeError, {"descending": 1}), (TypeError, {"stable": None}), (Exception, {"axis": 1})):
        with pytest.raises(bad):
            ra.sort(x, **kw)
    a = x.get()
    np.testing.assert_array_equal(ra.sort(x, axis=0).get(), np.sort(a))
    np.testing.assert_array_equal(ra.sort(x[::2]).get(), np.sort(a[::2]))
    np.testing.assert_array_equal(ra.sort(x[5:]).get(), np.sort(a[5:]))
