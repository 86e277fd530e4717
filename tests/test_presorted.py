"""Host lines in order already (rocarray/_presorted.py): ``sort`` and ``argsort`` of lines
sorted either way, and ``argsort`` of rows all in order, with ties, NaNs and both zeros,
against NumPy's stable sort bit for bit; which lines are taken as in order, and that the
others are sorted as before."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import _presorted

CPU = ra.Device("cpu")
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64"]
#: lines this long are looked at in these tests (the module's own shortest is 32,768; the
#: host's sorting network takes 32-bit lines of up to 16,384 before the look)
N = 20_011


@pytest.fixture(autouse=True)
def short_lines(monkeypatch):
    monkeypatch.setattr(_presorted, "PRESORTED_MIN", 1024)


@pytest.fixture
def orders(monkeypatch):
    """Each ``line_order`` answer, in a list."""
    seen, real = [], _presorted.line_order
    monkeypatch.setattr(_presorted, "line_order", lambda keys, descending: seen.append(real(keys, descending))
                        or seen[-1])
    return seen


def _values(dtype, rng, n=N):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if dtype.kind == "f":
        a = (rng.standard_normal(n) * 100).astype(dtype)
        a[rng.random(n) < 0.05] = 0.0
        a[rng.random(n) < 0.05] = -0.0
        return a
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dtype)


def _stable(a, descending):
    """NumPy's stable order (descending: equal elements still in input order, NaN first)."""
    if not descending:
        return np.argsort(a, kind="stable")
    n = a.size
    return (n - 1 - np.argsort(a[::-1], kind="stable"))[::-1]


def _bits(a):
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


def _check(a, descending):
    x = ra.asarray(a, device=CPU)
    order = _stable(a, descending)
    np.testing.assert_array_equal(ra.argsort(x, descending=descending).get(), order)
    np.testing.assert_array_equal(_bits(ra.sort(x, descending=descending).get()), _bits(a[order]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_lines_in_order_are_copied_or_counted(orders, dtype):
    rng = np.random.default_rng(len(dtype))
    a = np.sort(_values(dtype, rng), kind="stable")  # (ties; zeros of both signs in input order)
    if a.dtype.kind == "f":
        a[-50:] = np.nan
        a[-10:] = -np.nan  # (NaNs of other bits: their places kept)
    for line, descending in ((a, False), (a[::-1].copy(), True)):
        orders.clear()
        _check(line, descending)
        assert orders == [1, 1]  # (argsort, sort: each in order as it is)


@pytest.mark.parametrize("dtype", ["int16", "uint32", "int64", "float16", "float32", "float64"])
def test_lines_in_reverse_order_with_distinct_elements(orders, dtype):
    rng = np.random.default_rng(3)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = np.unique(rng.standard_normal(2 * N).astype(dtype))[:N]  # (distinct, ascending)
    else:
        info = np.iinfo(dtype)
        a = np.unique(rng.integers(max(info.min, -1 << 40), min(info.max, 1 << 40), 3 * N).astype(dtype))[:N]
    if dtype.kind == "f":
        a = np.append(a, np.nan)  # (one NaN: last ascending, so first in the reversed line)
    assert a.size >= 1024
    for line, descending in ((a[::-1].copy(), False), (a.copy(), True)):
        orders.clear()
        _check(line, descending)
        assert orders == [-1, -1]


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "uint8"])
def test_other_lines_are_sorted(orders, monkeypatch, dtype):
    rng = np.random.default_rng(4)
    calls = []
    real = _presorted._steps
    monkeypatch.setattr(_presorted, "_steps", lambda kind: calls.append(kind) or real(kind))
    s = np.sort(_values(dtype, rng), kind="stable")
    lines = {
        "random": _values(dtype, rng),
        "the smallest moved to the end": np.concatenate((s[1:], s[:1])),
        "reversed with ties": s[::-1].copy(),
    }
    if s.dtype.kind == "f":
        mid = s.copy()
        mid[N // 2] = np.nan  # (a NaN inside: out of NumPy's order)
        lines["a NaN inside"] = mid
    for name, a in lines.items():
        orders.clear()
        calls.clear()
        for descending in (False, True):
            _check(a, descending)
        # (a line in reverse order with ties is in order for a descending sort)
        assert orders == ([0, 0, 1, 1] if name == "reversed with ties" else [0, 0, 0, 0]), name
        if name == "random":  # (a step up and one down among the first neighbours: no reduction)
            assert calls == [], name
        else:
            assert calls, name


def test_lines_of_one_value_are_copied(orders):
    rng = np.random.default_rng(6)
    zeros = np.where(rng.random(N) < 0.5, -0.0, 0.0)  # (equal: their signs stay in place)
    for a in (np.full(N, -7, np.int64), zeros):
        _check(a, False)
        _check(a, True)
    assert orders == [1] * 8


@pytest.fixture
def rows_asked(monkeypatch):
    """Each ``rows_in_order`` answer, in a list."""
    from rocarray import _sorting_functions
    seen, real = [], _presorted.rows_in_order
    monkeypatch.setattr(_sorting_functions, "rows_in_order", lambda *args: seen.append(real(*args)) or seen[-1])
    return seen


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64", "uint8", "float32", "float64"])
@pytest.mark.parametrize("L", [3, 100, 1024])
def test_argsort_of_rows_in_order(rows_asked, dtype, L):
    rng = np.random.default_rng(L)
    rows = 40 * 1024 // L
    a = np.sort(_values(dtype, rng, rows * L).reshape(rows, L), axis=1, kind="stable")
    if a.dtype.kind == "f":
        a[::3, -1] = np.nan  # (NaN last in some rows)
    for descending, line in ((False, a), (True, a[:, ::-1].copy())):
        rows_asked.clear()
        y = ra.asarray(line, device=CPU)
        expect = np.stack([_stable(r, descending) for r in line])
        np.testing.assert_array_equal(ra.argsort(y, axis=1, descending=descending).get(), expect)
        assert rows_asked == [True]
        # (the same rows along axis 0: moved last, then looked at)
        np.testing.assert_array_equal(ra.argsort(ra.asarray(line.T.copy(), device=CPU), axis=0,
                                                 descending=descending).get(), expect.T)
        assert rows_asked == [True, True]
    # one row out of order (after the rows the first look reads), or every row: sorted as before
    b = a.copy()
    b[-2] = b[-2, ::-1]
    for m in (b, a[:, ::-1].copy()):
        rows_asked.clear()
        np.testing.assert_array_equal(ra.argsort(ra.asarray(m, device=CPU), axis=1).get(),
                                      np.stack([_stable(r, False) for r in m]))
        assert rows_asked == [False]


def test_lines_not_looked_at(orders):
    rng = np.random.default_rng(5)
    a = np.sort(rng.standard_normal(N))
    short = ra.asarray(a[:1000], device=CPU)
    assert _presorted.line_order(short, False) == 0  # (under ``PRESORTED_MIN``)
    z = ra.asarray(np.sort(a + 1j * a), device=CPU)
    assert _presorted.line_order(z, False) == 0  # (complex)
    np.testing.assert_array_equal(ra.argsort(z).get(), np.argsort(np.sort(a + 1j * a), kind="stable"))
    rows = ra.asarray(np.stack([a, a]), device=CPU)  # (rows, not one line: sorted as before)
    np.testing.assert_array_equal(ra.argsort(rows).get(), np.argsort(np.stack([a, a]), kind="stable"))
    assert orders == [0, 0, 0]  # (the two asks above, the complex line's argsort)


def test_the_longest_line_is_within_the_counts():
    # the two counts share an int64: a line's steps must fit in 32 bits
    assert _presorted.PRESORTED_MAX < 1 << 32
