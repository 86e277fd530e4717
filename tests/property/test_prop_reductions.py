"""Reductions against NumPy: sum, prod, min, max, mean, var, std, all, any, argmin, argmax,
cumulative_sum/prod and count_nonzero, with axis (None, an int, negative, a tuple, empty),
keepdims and dtype, over random dtypes, shapes (0-d, empty, up to 6 axes) and layouts.

Floating sums are compared within the error bound of any summation order: ``n * eps *
sum(|x|)`` per result element, rocarray's tree and NumPy's pairwise sums being two orders.
A sum whose finite terms overflow the accumulator is order-dependent (``(max + max) - max``
is inf one way and max another) and is not compared."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import rocarray as ra

from ._support import (assert_raises_like, assert_same, cases, dtypes, eps, order_bound, quiet, reference,
                       shapes, within_bound)

SUM_LIKE = ("sum", "prod")
ORDERED = ("min", "max")
ARG = ("argmin", "argmax")
LOGICAL = ("all", "any")


@st.composite
def axes(draw, ndim: int, *, tuples: bool = True, invalid: bool = True):
    """None, an axis (negative too), a tuple of distinct axes (empty too), or now and then
    an invalid one (out of range, or repeated)."""
    choices = ["none", "int"] + (["tuple"] if tuples else [])
    how = draw(st.sampled_from(choices))
    if invalid and draw(st.integers(0, 9)) == 0:
        if how == "tuple" and ndim:
            a = draw(st.integers(0, ndim - 1))
            return (a, a - ndim)  # the same axis twice
        return draw(st.sampled_from([ndim, -ndim - 1]))
    if how == "none":
        return None
    if how == "int":
        if not ndim:
            return None
        return draw(st.integers(-ndim, ndim - 1))
    picked = draw(st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, max_size=ndim)) if ndim else []
    return tuple(a - ndim if draw(st.booleans()) else a for a in picked)


def _empty_result(shape, axis) -> bool:
    """Whether a reduction of ``shape`` over ``axis`` has no result elements."""
    if axis is None:
        return False
    ax = {a % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,))} if shape else set()
    return any(n == 0 for i, n in enumerate(shape) if i not in ax)


def _reduced(shape, axis) -> int:
    """How many elements each result element reduces."""
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    ax = axis if isinstance(axis, tuple) else (axis,)
    return int(np.prod([shape[a] for a in ax], dtype=np.int64))


def _acc_max(dt: np.dtype) -> float:
    dt = np.dtype(dt)
    real = np.dtype(f"f{dt.itemsize // 2}") if dt.kind == "c" else dt
    # float16 accumulates in float32 (docs/dtypes.md, NumPy too)
    return float(np.finfo(np.float32 if real == np.float16 else real).max)


def compare_sum(name, got, xn, axis, keepdims, expected):
    """sum/prod/mean results: exact for integers; for floats within the error bound of any
    order of the terms (``n * eps`` relative to the sum of magnitudes, or to the magnitude
    of the product), order-dependent elements (finite terms overflowing) left out."""
    ed = np.asarray(expected).dtype
    if ed.kind not in "fc":
        assert_same(got, expected, what=name)
        return
    n = max(_reduced(xn.shape, axis), 1)
    with quiet():
        a = np.abs(xn.astype(np.complex128 if xn.dtype.kind == "c" else np.float64))
        finite = np.where(np.isfinite(a), a, 0)
        if name == "prod":
            logs = np.where(finite > 0, np.log(np.where(finite > 0, finite, 1)), -np.inf)
            scale = np.exp(np.sum(logs, axis=axis, keepdims=keepdims))
        else:
            scale = np.sum(finite, axis=axis, keepdims=keepdims)
            if name == "mean":
                scale = scale / n
    bound = order_bound(ed, n, scale, expected)
    unordered = scale > _acc_max(ed) / 4
    if name == "prod":
        unordered |= product_order_matters(finite, ed, lambda v: np.sum(v, axis=axis, keepdims=keepdims))
        if ed.kind == "c":  # (an infinite part through textbook products: formula-dependent NaNs)
            unordered |= np.sum(~np.isfinite(xn), axis=axis, keepdims=keepdims) > 0
    g = got.get() if isinstance(got, ra.Array) else np.asarray(got)
    assert g.shape == np.shape(expected) and g.dtype == ed, (g.shape, g.dtype, np.shape(expected), ed)
    keep = ~np.broadcast_to(unordered, g.shape)
    within_bound(g[keep], np.asarray(expected)[keep], np.broadcast_to(bound, g.shape)[keep], name)


def product_order_matters(mags, dt, total) -> np.ndarray:
    """Where a product of the finite magnitudes ``mags`` depends on the order of its factors:
    some order's partial product over- or underflows (it lies between the product of the
    factors below 1 and that of those above 1), so that, say, 0 * big * big is 0 one way
    and 0 * inf = NaN another.  ``total`` sums logarithms over the reduced axes."""
    with quiet():
        logs = np.log(np.where(mags > 0, mags, 1))
        big = np.exp(total(np.where(mags > 1, logs, 0)))
        small = np.exp(total(np.where((mags > 0) & (mags < 1), logs, 0)))
    tiny = float(np.finfo(np.float32 if np.dtype(dt) == np.float16 else eps_dtype(dt)).tiny)
    return (big > _acc_max(dt) / 4) | (small < tiny * 2**24)


def eps_dtype(dt):
    dt = np.dtype(dt)
    return np.dtype(f"f{dt.itemsize // 2}") if dt.kind == "c" else dt


def in_float32_for_float16(fn):
    """``fn`` (a NumPy sum, prod or scan) with a float16 result accumulated in float32 and
    rounded once, rocarray's rule (docs/reductions.md): NumPy's pairwise sum does so, its
    products and scans accumulate in float16."""
    def reference_fn(x, *, dtype=None, **kw):
        out = np.dtype(dtype) if dtype is not None else x.dtype
        if out != np.float16:
            return fn(x, dtype=dtype, **kw)
        wide = x.astype(np.float16).astype(np.float32)
        return np.asarray(fn(wide, dtype=np.float32, **kw)).astype(np.float16)
    return reference_fn


def run_reduction(name, fn_np, fn_ra, xn, xr, kwargs_np, kwargs_ra, compare):
    if xn.ndim == 0 and isinstance(kwargs_np.get("axis"), int):
        # the standard's axis range for a 0-d array is empty; NumPy takes 0 and -1 there
        # (docs/reductions.md)
        with pytest.raises((IndexError, ValueError), match=f"{name}: axis"):
            fn_ra(xr, **kwargs_ra)
        return
    expected, exc = reference(fn_np, xn, **kwargs_np)
    if exc is not None:
        assert_raises_like(exc, fn_ra, xr, **kwargs_ra)
        return
    got = fn_ra(xr, **kwargs_ra)
    compare(got, expected)


def _requested_dtypes(dt: np.dtype):
    """None, or a dtype x can be cast to within its kind or wider (the cast of a float
    array into integers is undefined out of range)."""
    return st.sampled_from([None] + [d for d in (np.dtype(n) for n in (
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
        "float32", "float64", "complex64", "complex128")) if np.can_cast(dt, d, casting="same_kind")])


@pytest.mark.parametrize("name", SUM_LIKE)
@given(data=st.data())
def test_sum_prod(device, name, data):
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(), label="shape")
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    axis = data.draw(axes(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    req = data.draw(_requested_dtypes(dt), label="dtype=")
    kw = dict(axis=axis, keepdims=keepdims, dtype=req)
    run_reduction(name, in_float32_for_float16(getattr(np, name)), getattr(ra, name), xn, xr, kw, kw,
                  lambda g, e: compare_sum(name, g, xn, axis, keepdims, e))


@pytest.mark.parametrize("name", ORDERED + ARG)
@given(data=st.data())
def test_min_max_argmin_argmax(device, name, data):
    dt = data.draw(dtypes("biuf"), label="dtype")
    shape = data.draw(shapes(), label="shape")
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    axis = data.draw(axes(len(shape), tuples=name in ORDERED), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    kw = dict(axis=axis, keepdims=keepdims)
    if xn.size == 0 and _empty_result(xn.shape, axis):
        # nothing to reduce and nothing to give: an empty result, where NumPy raises for
        # want of an identity (docs/reductions.md)
        expected, exc = reference(getattr(np, "sum"), xn.astype(np.float64), axis=axis, keepdims=keepdims)
        if exc is None:
            got = getattr(ra, name)(xr, **kw)
            assert got.shape == np.shape(expected) and got.dtype == (np.int64 if name in ARG else dt)
            return
    # (max(-0.0, 0.0) depends on the order: signs of zeros are not compared)
    run_reduction(name, getattr(np, name), getattr(ra, name), xn, xr, kw, kw,
                  lambda g, e: assert_same(g, e, signed_zeros=False, what=name))


@pytest.mark.parametrize("name", ORDERED + ARG)
def test_min_max_refuse_complex(device, name):
    x = ra.asarray(np.array([1 + 2j, 3 - 1j]), device=device)
    with pytest.raises(TypeError, match=f"{name}: dtype complex128 is not supported"):
        getattr(ra, name)(x)


@pytest.mark.parametrize("name", LOGICAL)
@given(data=st.data())
def test_all_any(device, name, data):
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(), label="shape")
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    kw = dict(axis=data.draw(axes(len(shape)), label="axis"), keepdims=data.draw(st.booleans(), label="keepdims"))
    run_reduction(name, getattr(np, name), getattr(ra, name), xn, xr, kw, kw,
                  lambda g, e: assert_same(g, e, what=name))


@given(data=st.data())
def test_count_nonzero(device, data):
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(), label="shape")
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    kw = dict(axis=data.draw(axes(len(shape)), label="axis"), keepdims=data.draw(st.booleans(), label="keepdims"))

    def compare(g, e):
        assert_same(g, np.asarray(e).astype(np.int64), what="count_nonzero")

    run_reduction("count_nonzero", np.count_nonzero, ra.count_nonzero, xn, xr, kw, kw, compare)


@pytest.mark.parametrize("name", ("mean", "var", "std"))
@given(data=st.data())
def test_mean_var_std(device, name, data):
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(), label="shape")
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    axis = data.draw(axes(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    kw_ra = dict(axis=axis, keepdims=keepdims)
    kw_np = dict(kw_ra)
    if name != "mean":
        correction = data.draw(st.sampled_from([0, 1, 0.5, 2.0]), label="correction")
        kw_ra["correction"] = correction
        kw_np["ddof"] = correction
    if dt.kind not in "fc":
        # the standard's rule: floating-point inputs only (NumPy converts integers)
        with pytest.raises(TypeError, match=f"{name}: expected a floating-point array"):
            getattr(ra, name)(xr, **kw_ra)
        return
    def compare(g, e):
        n = _reduced(xn.shape, axis)
        e = np.asarray(e)
        if name != "mean" and n - kw_np["ddof"] <= 0:
            # no degrees of freedom left: NaN (the standard; docs/reductions.md), where
            # NumPy divides by zero
            e = np.full(e.shape, np.nan, dtype=e.dtype)
        if name == "mean":
            compare_sum("mean", g, xn, axis, keepdims, e)
            return
        # two passes in both: the mean, then the mean square deviation; bound the error by
        # the order bound of a sum of squares of magnitude mean(|x|^2)
        with quiet():
            a = np.abs(xn.astype(np.complex128 if dt.kind == "c" else np.float64))
            a = np.where(np.isfinite(a), a, 0)
            ms = np.mean(a * a, axis=axis, keepdims=keepdims) if n else np.zeros(e.shape)
            scale = 8 * max(n, 1) * eps(e.dtype) * ms
            if name == "std":
                scale = np.sqrt(scale) + 4 * eps(e.dtype) * np.abs(e)
        unordered = ms > _acc_max(e.dtype) / 8
        g_np = g.get()
        assert g_np.shape == e.shape and g_np.dtype == e.dtype, (g_np.shape, g_np.dtype, e.shape, e.dtype)
        keep = ~np.broadcast_to(unordered, e.shape)
        within_bound(g_np[keep], e[keep], np.broadcast_to(scale, e.shape)[keep], name)

    # (float16: NumPy's var/std square and sum the deviations in float16, which overflows
    # where rocarray's float32 accumulation does not: docs/dtypes.md)
    run_reduction(name, in_float32_for_float16(getattr(np, name)), getattr(ra, name), xn, xr, kw_np, kw_ra,
                  compare)


@pytest.mark.parametrize("name", ("cumulative_sum", "cumulative_prod"))
@given(data=st.data())
def test_cumulative(device, name, data):
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(), label="shape")
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    ndim = len(shape)
    axis = data.draw(st.none() | st.integers(-ndim - 1, ndim) if ndim else st.none(), label="axis")
    include_initial = data.draw(st.booleans(), label="include_initial")
    req = data.draw(_requested_dtypes(dt), label="dtype=")
    kw = dict(axis=axis, dtype=req, include_initial=include_initial)
    fn_np = in_float32_for_float16(getattr(np, name))
    if not ndim:
        # the standard asks for an array of one or more axes (NumPy scans a 0-d array as 1-d)
        with pytest.raises(ValueError, match=f"{name}: expected an array of at least one dimension"):
            getattr(ra, name)(xr, **kw)
        return

    def compare(g, e):
        e = np.asarray(e)
        if e.dtype.kind not in "fc":
            assert_same(g, e, what=name)
            return
        # every prefix within the order bound of its own terms
        ax = 0 if axis is None else axis
        with quiet():
            a = np.abs(xn.astype(np.complex128 if dt.kind == "c" else np.float64))
            a = np.where(np.isfinite(a), a, 0)
            if name == "cumulative_prod":
                logs = np.where(a > 0, np.log(np.where(a > 0, a, 1)), -np.inf)
                scale = np.exp(np.cumsum(logs, axis=ax))
            else:
                scale = np.cumsum(a, axis=ax)
            n = np.cumsum(np.ones_like(a), axis=ax)
            if include_initial:
                pad = [(0, 0)] * a.ndim
                pad[ax] = (1, 0)
                scale = np.pad(scale, pad)
                n = np.pad(n, pad)
        bound = order_bound(e.dtype, np.maximum(n, 1), scale, e)
        unordered = scale > _acc_max(e.dtype) / 4
        if name == "cumulative_prod":
            scan = lambda v: np.cumsum(v, axis=ax)  # noqa: E731
            if include_initial:
                pad = [(0, 0)] * a.ndim
                pad[ax] = (1, 0)
                scan = lambda v: np.pad(np.cumsum(v, axis=ax), pad)  # noqa: E731
            unordered |= product_order_matters(a, e.dtype, scan)
            if e.dtype.kind == "c":  # (as for prod: infinite parts give formula-dependent NaNs)
                unordered |= scan((~np.isfinite(xn)).astype(np.int64)) > 0
        gn = g.get()
        assert gn.shape == e.shape and gn.dtype == e.dtype, (gn.shape, gn.dtype, e.shape, e.dtype)
        within_bound(gn[~unordered], e[~unordered], bound[~unordered], name)

    run_reduction(name, fn_np, getattr(ra, name), xn, xr, kw, kw, compare)
