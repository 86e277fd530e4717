"""Sorting, set functions and searchsorted against NumPy: sort and argsort (stable,
descending, NaN and complex orders, any axis), unique_values/counts/inverse/all, and
searchsorted (side, sorter, mixed dtypes, Python scalars), over random dtypes, shapes and
layouts.

rocarray's sort is stable in both directions; NaN sorts last ascending and first descending
(the standard's descending stable sort: equal elements keep their order).  The unique
functions follow the standard: every NaN is its own value; rocarray gives values sorted
(NaN last), which NumPy 2.3+ does not promise, so NumPy's values are sorted before the
comparison."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import rocarray as ra

from ._support import (assert_raises_like, assert_same, cases, dtypes, python_scalars, quiet,
                       reference, shapes)


def stable_argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """NumPy's stable argsort; descending as the standard asks (stable, NaN first): the
    ascending stable sort of the reversed line, reversed, as indices of the line."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    r = np.flip(np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable"), axis=axis)
    return n - 1 - r


@st.composite
def sort_case(draw):
    dt = draw(dtypes(), label="dtype")
    shape = draw(shapes(max_dims=4), label="shape")
    scales = ("ints", "small") if dt.kind in "fc" else None  # ties, to see the stability
    case = draw(cases(dt, shape, scales=scales), label="x")
    ndim = len(shape)
    axis = draw(st.integers(-ndim, ndim - 1) if ndim else st.just(-1), label="axis")
    if ndim and draw(st.integers(0, 12)) == 0:
        axis = ndim  # out of range
    return case, axis, draw(st.booleans(), label="descending")


@given(data=st.data())
def test_sort(device, data):
    case, axis, descending = data.draw(sort_case(), label="case")
    xn, xr = case.make(device)
    if xn.ndim == 0:
        with pytest.raises(ValueError, match="sort: a 0-d array has no axis"):
            ra.sort(xr, axis=axis, descending=descending)
        return
    idx, exc = reference(stable_argsort, xn, axis, descending)
    if exc is not None:
        assert_raises_like(exc, ra.sort, xr, axis=axis, descending=descending)
        return
    expected = np.take_along_axis(xn, idx, axis=axis)
    # stable: the signs of equal zeros come out in the reference's order too
    assert_same(ra.sort(xr, axis=axis, descending=descending), expected, what="sort")


@given(data=st.data())
def test_argsort(device, data):
    case, axis, descending = data.draw(sort_case(), label="case")
    xn, xr = case.make(device)
    stable = data.draw(st.booleans(), label="stable")
    if xn.ndim == 0:
        with pytest.raises(ValueError, match="argsort: a 0-d array has no axis"):
            ra.argsort(xr, axis=axis, descending=descending, stable=stable)
        return
    expected, exc = reference(stable_argsort, xn, axis, descending)
    if exc is not None:
        assert_raises_like(exc, ra.argsort, xr, axis=axis, descending=descending, stable=stable)
        return
    # (rocarray's sort is always stable, so stable=False gives the stable indices too)
    assert_same(ra.argsort(xr, axis=axis, descending=descending, stable=stable), expected.astype(np.int64),
                what="argsort")


def _sorted_unique(a: np.ndarray):
    """The standard's unique values of ``a`` (NaNs distinct), sorted as rocarray sorts them,
    with their counts and first indices."""
    flat = a.reshape(-1)
    order = np.argsort(flat, kind="stable")
    s = flat[order]
    if s.size == 0:
        e = np.zeros(0, dtype=np.int64)
        return s, e, e
    with quiet():
        start = np.concatenate([[True], s[1:] != s[:-1]])
    starts = np.flatnonzero(start)
    counts = np.diff(np.append(starts, s.size))
    return s[starts], counts.astype(np.int64), order[starts].astype(np.int64)


@given(data=st.data())
def test_unique(device, data):
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(max_dims=4), label="shape")
    scales = ("ints",) if dt.kind in "fc" else ("small",) if dt.kind in "iu" else None
    xn, xr = data.draw(cases(dt, shape, scales=scales), label="x").make(device)
    values, counts, first = _sorted_unique(xn)
    # NumPy agrees on the set (NaNs distinct, with equal_nan=False)
    np_values = np.sort(np.unique_values(xn).reshape(-1))
    assert_same(np_values, values, signed_zeros=False, what="(the reference against NumPy)")

    got = ra.unique_values(xr)
    assert_same(got, values, signed_zeros=False, what="unique_values")
    uc = ra.unique_counts(xr)
    assert_same(uc.values, values, signed_zeros=False, what="unique_counts values")
    assert_same(uc.counts, counts, what="unique_counts counts")
    ui = ra.unique_inverse(xr)
    assert_same(ui.values, values, signed_zeros=False, what="unique_inverse values")
    inv = ui.inverse_indices.get()
    assert inv.shape == xn.shape and inv.dtype == np.int64
    # values[inverse] gives x back (a NaN maps to a NaN)
    assert_same(ui.values.get()[inv] if values.size else np.zeros(xn.shape, dt), xn, signed_zeros=False,
                what="values[inverse_indices]")
    ua = ra.unique_all(xr)
    assert_same(ua.values, values, signed_zeros=False, what="unique_all values")
    assert_same(ua.counts, counts, what="unique_all counts")
    # the index of each value's first occurrence (for a NaN, its own position)
    assert_same(ua.indices, first, what="unique_all indices")
    assert_same(ua.inverse_indices, inv, what="unique_all inverse_indices")


@given(data=st.data())
def test_searchsorted(device, data):
    d1 = data.draw(dtypes(), label="x1 dtype")
    n = data.draw(st.integers(0, 12), label="n")
    scales = ("ints", "small") if d1.kind in "fc" else None
    base, raw = data.draw(cases(d1, (n,), scales=scales), label="x1").make(device)
    use_sorter = data.draw(st.booleans(), label="sorter")
    side = data.draw(st.sampled_from(["left", "right"]), label="side")
    if data.draw(st.integers(0, 3), label="x2 scalar?") == 0:
        x2n = x2r = data.draw(python_scalars({"b": "b", "i": "bi", "u": "bi", "f": "bif", "c": "bifc"}[d1.kind]),
                              label="x2")
        dt = ra.result_type(d1, x2r)
    else:
        d2 = data.draw(dtypes(), label="x2 dtype")
        x2n, x2r = data.draw(cases(d2, data.draw(shapes(max_dims=3), label="x2 shape"), scales=scales),
                             label="x2").make(device)
        dt = ra.result_type(d1, d2)
    # both are cast to their promoted dtype (docs/indexing.md); a Python int out of range
    # is an OverflowError
    with quiet():
        try:
            x2c = np.asarray(x2n, dtype=dt)
        except OverflowError as e:
            assert_raises_like(e, ra.searchsorted, raw, x2r, side=side)
            return
        x1c = np.asarray(base).astype(dt)
    order = np.argsort(x1c, kind="stable")
    if use_sorter:
        sorter = ra.asarray(order, device=device)
        got = ra.searchsorted(raw, x2r, side=side, sorter=sorter)
    else:
        x1c = x1c[order]
        got = ra.searchsorted(ra.asarray(np.asarray(base)[order], device=device), x2r, side=side)
    expected = np.searchsorted(x1c, x2c, side=side, sorter=order if use_sorter else None)
    assert_same(got, np.asarray(expected).astype(np.int64), what=f"searchsorted(side={side})")


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_sort_arguments(device, name):
    x = ra.asarray(np.arange(6.0).reshape(2, 3), device=device)
    fn = getattr(ra, name)
    with pytest.raises(TypeError, match=f"{name}: axis must be an int"):
        fn(x, axis=None)
    with pytest.raises(TypeError, match=f"{name}: descending must be a bool"):
        fn(x, descending=1)
    with pytest.raises(IndexError, match=f"{name}: axis 2 is out of bounds"):
        fn(x, axis=2)
