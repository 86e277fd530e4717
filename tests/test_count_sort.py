"""The host's counting sort (rocarray/_count_sort.py): long lines of integers and bools of a
small range, sorted and their unique values counted, against NumPy for every integer dtype
and bool, both orders, ranges at the ends of each dtype's values, odd lengths; float16
lines by their bits, bit for bit against NumPy's stable sort (NaNs of several bits, both
zeros); which lines it takes (and that the others still sort right); new sizes compile
nothing."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import _count_sort, _presorted, _sorting_functions, _split_sort
from test_radix_sort import _compiles

CPU = ra.Device("cpu")
INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


@pytest.fixture
def counted(monkeypatch):
    """The lines ``counts`` took (their lengths) in a list."""
    taken = []
    real = _count_sort.counts

    def spy(x):
        found = real(x)
        if found is not None:
            taken.append(x.size)
        return found

    monkeypatch.setattr(_count_sort, "counts", spy)
    return taken


def _line(dtype, n, rng, where):
    """``n`` values of ``dtype`` spanning about a thousand values (fewer for 8 bits), at
    the low end of the dtype's range, about zero, or at its high end."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.3
    info = np.iinfo(dtype)
    span = min(1000, int(info.max) - int(info.min))
    start = {"low": int(info.min), "zero": max(int(info.min), -span // 2), "high": int(info.max) - span}[where]
    # (in the unsigned words: uint64's high end is past int64, the cast keeps the low bits)
    return (rng.integers(0, span, n, endpoint=True).astype(np.uint64) + np.uint64(start % (1 << 64))).astype(dtype)


@pytest.mark.parametrize("dtype", INTS + ["bool"])
@pytest.mark.parametrize("where", ["low", "zero", "high"])
def test_sort_and_unique_match_numpy(counted, dtype, where):
    rng = np.random.default_rng(len(dtype) * 7 + len(where))
    for n in (1 << 15, 100_003):
        a = _line(dtype, n, rng, where)
        x = ra.asarray(a, device=CPU)
        np.testing.assert_array_equal(ra.sort(x).get(), np.sort(a))
        np.testing.assert_array_equal(ra.sort(x, descending=True).get(), np.sort(a)[::-1])
        v, c = ra.unique_counts(x)
        want_v, want_c = np.unique(a, return_counts=True)
        np.testing.assert_array_equal(v.get(), want_v)
        np.testing.assert_array_equal(c.get(), want_c)
        assert v.dtype == a.dtype and c.dtype == np.int64
        np.testing.assert_array_equal(ra.unique_values(x).get(), want_v)
        assert counted == [n] * 4
        counted.clear()


def test_runs_of_one_value_and_two_values(counted, monkeypatch):
    # a line of one value (a range of one) and the smallest value filling almost all of it
    # (lines in order are copied before they are counted, ``_presorted``: not here)
    monkeypatch.setattr(_presorted, "PRESORTED_MIN", 1 << 40)
    n = 1 << 16
    same = np.full(n, -7, np.int32)
    np.testing.assert_array_equal(ra.sort(ra.asarray(same, device=CPU)).get(), same)
    skew = np.zeros(n, np.uint64)
    skew[::1000] = 600
    x = ra.asarray(skew, device=CPU)
    np.testing.assert_array_equal(ra.sort(x, descending=True).get(), np.sort(skew)[::-1])
    v, c = ra.unique_counts(x)
    np.testing.assert_array_equal(v.get(), [0, 600])
    np.testing.assert_array_equal(c.get(), [n - 66, 66])
    assert counted == [n, n, n]


def test_which_lines_are_counted(counted):
    rng = np.random.default_rng(3)
    n = 1 << 16
    # too wide a range (the sample says so; or the extremes, where the sample missed one
    # far value), too short a line, a range over a sixteenth of the line, rows, argsort:
    # not counted, and still sorted right
    wide = rng.integers(-2**40, 2**40, n)
    far = rng.integers(0, 100, n)
    far[12345] = 2**40
    spread = rng.integers(0, n // 8, n).astype(np.int32)
    for a in (wide, far, spread, rng.integers(0, 10, (1 << 15) - 1).astype(np.int16)):
        x = ra.asarray(a, device=CPU)
        np.testing.assert_array_equal(ra.sort(x).get(), np.sort(a))
        v, c = ra.unique_counts(x)
        np.testing.assert_array_equal(c.get(), np.unique(a, return_counts=True)[1])
    rows = rng.integers(0, 10, (4, n)).astype(np.int8)
    np.testing.assert_array_equal(ra.sort(ra.asarray(rows, device=CPU)).get(), np.sort(rows))
    line = rng.integers(0, 10, n).astype(np.uint8)
    np.testing.assert_array_equal(ra.argsort(ra.asarray(line, device=CPU)).get(), np.argsort(line, kind="stable"))
    assert counted == []
    assert _count_sort.counts(ra.asarray(rng.random(n), device=CPU)) is None  # (floats: never)


def test_non_contiguous_and_nd_unique(counted):
    rng = np.random.default_rng(5)
    a = rng.integers(-50, 50, (300, 400)).astype(np.int16)
    view = ra.asarray(a, device=CPU)[:, ::2]
    v, c = ra.unique_counts(view)
    want_v, want_c = np.unique(a[:, ::2], return_counts=True)
    np.testing.assert_array_equal(v.get(), want_v)
    np.testing.assert_array_equal(c.get(), want_c)
    assert counted == [a[:, ::2].size]


def test_new_sizes_compile_nothing(counted):
    rng = np.random.default_rng(7)
    ra.sort(ra.asarray(rng.integers(0, 100, 1 << 15).astype(np.int32), device=CPU))
    ra.unique_counts(ra.asarray(rng.integers(0, 100, 1 << 15).astype(np.int32), device=CPU))
    before = _compiles()
    for n in (40_001, 1 << 17, 300_007):
        a = rng.integers(-300, 300, n).astype(np.int32)
        np.testing.assert_array_equal(ra.sort(ra.asarray(a, device=CPU), descending=True).get(), np.sort(a)[::-1])
        np.testing.assert_array_equal(ra.unique_values(ra.asarray(a, device=CPU)).get(), np.unique(a))
    assert _compiles() == before
    assert len(counted) == 2 + 2 * 3


def _stable_sorted(a, descending):
    """NumPy's stable sort, descending as the standard defines it (equal values in input
    order)."""
    if not descending:
        return a[np.argsort(a, kind="stable")]
    return a[a.size - 1 - np.argsort(a[::-1], kind="stable")[::-1]]


def test_float16_by_its_bits(counted):
    rng = np.random.default_rng(9)
    n = 1 << 20  # (65,536 keys: a line of at least sixteen times that)
    a = (rng.standard_normal(n) * 300).astype(np.float16)
    bits = a.view(np.uint16)
    lines = {}
    for name, zeros, nans in (("both zeros, NaNs", (0.0, -0.0), (0x7E00, 0xFE01, 0x7C01, 0x7D23)),
                              ("-0.0 alone", (-0.0,), ()), ("+0.0 alone, one NaN", (0.0,), (0x7E00,))):
        b = a.copy()
        for z in zeros:
            b[rng.random(n) < 0.02] = z
        for nan in nans:
            b.view(np.uint16)[rng.random(n) < 0.005] = nan
        b[rng.random(n) < 0.01] = np.inf
        b[rng.random(n) < 0.01] = -np.inf
        lines[name] = b
    for name, b in lines.items():
        x = ra.asarray(b, device=CPU)
        for descending in (False, True):
            got = ra.sort(x, descending=descending).get()
            np.testing.assert_array_equal(got.view(np.uint16), _stable_sorted(b, descending).view(np.uint16),
                                          err_msg=f"{name}, descending={descending}")
        np.testing.assert_array_equal(x.get().view(np.uint16), b.view(np.uint16))  # (the input as it was)
    assert counted == [n] * 2 * len(lines)
    counted.clear()
    # float16's unique values: from the counted sort's runs (not from the counts: each NaN
    # is its own unique value, -0.0 and +0.0 one)
    b = lines["-0.0 alone"]
    v, c = ra.unique_counts(ra.asarray(b, device=CPU))
    want_v, want_c = np.unique(b, return_counts=True)
    np.testing.assert_array_equal(v.get(), want_v)
    np.testing.assert_array_equal(c.get(), want_c)
    assert counted == [n]
    # a shorter float16 line (fewer than sixteen elements a key): not counted
    short = a[: n // 2]
    np.testing.assert_array_equal(ra.sort(ra.asarray(short, device=CPU)).get().view(np.uint16),
                                  _stable_sorted(short, False).view(np.uint16))
    assert counted == [n]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8"])
def test_argsort_of_8_bit_rows_by_counting(dtype, monkeypatch):
    # rows past the widened network's (``WIDE_ARGSORT_MAX``) and single lines up to
    # ``COUNT_ARGSORT_LINE_MAX``: counted, stable both ways (the standard's descending
    # order keeps equal elements in input order), along any axis; a longer single line:
    # the radix passes
    rng = np.random.default_rng(17)
    taken, real = [], _count_sort.count_argsort_rows
    monkeypatch.setattr(_sorting_functions, "count_argsort_rows",
                        lambda keys, rows, L, d: taken.append((rows, L)) or real(keys, rows, L, d))
    draw = (lambda shape: rng.random(shape) < 0.3) if dtype == "bool" else (
        lambda shape: rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape, endpoint=True).astype(dtype))
    for shape, axis in (((40, 300), -1), ((9, 2049), 1), ((1000, 7), 0), ((3, 4, 500), -1), ((60_001,), 0)):
        a = draw(shape)
        x = ra.asarray(a, device=CPU)
        np.testing.assert_array_equal(ra.argsort(x, axis=axis).get(), np.argsort(a, axis=axis, kind="stable"))
        L = a.shape[axis]
        flipped = np.flip(a, axis=axis)
        want = L - 1 - np.flip(np.argsort(flipped, axis=axis, kind="stable"), axis=axis)
        np.testing.assert_array_equal(ra.argsort(x, axis=axis, descending=True).get(), want)
    assert [L for _, L in taken] == [300, 300, 2049, 2049, 1000, 1000, 500, 500, 60_001, 60_001]
    long_line = draw(_count_sort.COUNT_ARGSORT_LINE_MAX + 1)
    assert real(ra.asarray(long_line, device=CPU), 1, long_line.size, False) is None
    np.testing.assert_array_equal(ra.argsort(ra.asarray(long_line, device=CPU)).get(),
                                  np.argsort(long_line, kind="stable"))
    assert real(ra.asarray(rng.random(500).astype(np.float32), device=CPU), 1, 500, False) is None  # (8-bit keys only)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "uint64"])
def test_range_as_the_whole_sample_says(dtype):
    # the sample's range read first from a few of its values gives the decision the whole
    # sample and the extremes give: a line counted or not by its range and length
    rng = np.random.default_rng(43)
    index = _split_sort.sample_index(1 << 16)
    hidden = np.setdiff1d(index, index[::_count_sort.PEEK_STEP])  # (in the sample, not the peek)
    x = ra.Device("cpu")
    for span, out in ((100, None), (100, 5000), (5000, None), (70_000, 2)):
        a = rng.integers(0, span, 1 << 16).astype(dtype)
        if out is not None:
            a[hidden[out % hidden.size]] = a.max() + out  # (outside the peek's range only)
        lo, hi = int(a.min()), int(a.max())
        span_all = hi - lo + 1
        want = (lo, span_all) if span_all <= min(_count_sort.COUNT_RANGE_MAX, a.size * _count_sort.COUNT_RANGE_SHARE) else None
        assert _count_sort._range(ra.asarray(a, device=x)) == want
        np.testing.assert_array_equal(ra.sort(ra.asarray(a, device=x)).get(), np.sort(a))


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_few_values_counted_by_compares(monkeypatch, dtype):
    # lines whose sample holds a few values (``FEW_VALUES``; bools) are counted by compares
    # over the sample's range, with no read of their extremes; a value outside the sample's
    # range (placed where the sample does not look) sends the line to its extremes and a
    # count of its own range (by the compares where it is still a few values' range)
    kernels = []
    real = _count_sort._kernel
    monkeypatch.setattr(_count_sort, "_kernel", lambda what, kind: kernels.append(what) or real(what, kind))
    extremes = []
    real_extremes = _count_sort.value_extremes
    monkeypatch.setattr(_count_sort, "value_extremes", lambda x: extremes.append(1) or real_extremes(x))
    rng = np.random.default_rng(len(dtype) + 101)
    dt = np.dtype(dtype)
    n = 100_003
    index = set(_split_sort.sample_index(n).tolist())
    unsampled = next(k for k in range(1000, n) if k not in index)
    few = _count_sort.FEW_VALUES[dt.itemsize]
    by = f"few{dt.itemsize}"
    if dt.kind == "b":
        cases = [(2, None, [by, "fill"], 0)]
    elif few:
        cases = [(few, None, [by, "fill"], 0), (few - 1, "near", [by, by, "fill"], 3),
                 (few - 1, "far", [by, "count", "fill"], 3), (few + 1, None, ["count", "fill"], 3)]
    else:  # (64-bit values: always the counters)
        cases = [(2, None, ["count", "fill"], 3)]
    for values, outside, want, reads in cases:
        if dt.kind == "b":
            a = rng.random(n) < 0.6
        else:
            info = np.iinfo(dt)
            lo = int(info.min) + int(rng.random() * (int(info.max) - int(info.min) - 8 * few - 64))
            a = (np.uint64(lo % (1 << 64)) + rng.integers(0, values, n).astype(np.uint64)).astype(dt)
            if outside is not None:
                top = int(a[sorted(index)].max())
                a[unsampled] = top + (1 if outside == "near" else 4 * few + 40)
        kernels.clear()
        extremes.clear()
        for descending in (False, True):
            got = ra.sort(ra.asarray(a, device=CPU), descending=descending).get()
            np.testing.assert_array_equal(got, np.sort(a)[::-1] if descending else np.sort(a))
        v, c = ra.unique_counts(ra.asarray(a, device=CPU))
        want_v, want_c = np.unique(a, return_counts=True)
        np.testing.assert_array_equal(v.get(), want_v)
        np.testing.assert_array_equal(c.get(), want_c)
        assert kernels == want * 2 + want[:-1], (values, outside, kernels)
        assert len(extremes) == reads, (values, outside, extremes)
