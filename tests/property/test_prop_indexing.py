"""Indexing and assignment against NumPy: basic keys (integers, slices of any start, stop and
step, ``...``, ``None``), integer arrays (any integer dtype, broadcast together, mixed with
basic items, adjacent or not), boolean masks (0-d too), and ``x[key] = value`` with
broadcasting, casts, Python scalars and values that overlap x, over random layouts.

Out-of-range integers are IndexErrors (NumPy's kind); with duplicate indices an assignment
writes one of the values (docs/indexing.md), which is what is checked there."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

import rocarray as ra

from ._support import (ALL, assert_raises_like, assert_same, cases, dtypes, python_scalars, quiet, reference,
                       shapes, values)

INT_DTYPES = [np.dtype(n) for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")]


@st.composite
def slices(draw, n: int):
    def bound():
        return draw(st.none() | st.integers(-n - 2, n + 2))
    # (a zero step now and then: a ValueError in both)
    step = 0 if draw(st.integers(0, 30)) == 0 else draw(st.sampled_from([None, None, 1, 2, 3, -1, -2, -3]))
    return slice(bound(), bound(), step)


@st.composite
def basic_keys(draw, shape):
    """A basic key for ``shape``: per axis an integer (now and then out of range) or a
    slice; ``None`` and one ``...`` anywhere; now and then one item too many."""
    items = []
    ndim = len(shape)
    k = draw(st.integers(0, ndim))
    for n in shape[:k]:
        if draw(st.integers(0, 2)) == 0:
            bad = draw(st.integers(0, 15)) == 0
            items.append(draw(st.sampled_from([n, -n - 1])) if bad else draw(st.integers(-n, n - 1)) if n else n)
        else:
            items.append(draw(slices(n)))
    if k == ndim and draw(st.integers(0, 15)) == 0:
        items.append(0)  # too many indices
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]  # a bare item, not a tuple
    return tuple(items)


def _key_for(key, device):
    """The key with NumPy index arrays turned into rocarray arrays (lists stay lists)."""
    def conv(k):
        if isinstance(k, np.ndarray):
            return ra.asarray(k, device=device)
        return k
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


@st.composite
def int_array_keys(draw, shape):
    """A key with 1-3 integer arrays (broadcast together, any integer dtype, a list now and
    then) at random axes, the other axes integers, slices or left to ``...``."""
    ndim = len(shape)
    n_arr = draw(st.integers(1, min(3, ndim)))
    axes = sorted(draw(st.lists(st.integers(0, ndim - 1), min_size=n_arr, max_size=n_arr, unique=True)))
    bshape = draw(shapes(max_dims=3, max_size=12))
    nothing = any(shape[a] == 0 for a in axes) and draw(st.integers(0, 3)) > 0
    if nothing:  # the arrays broadcast to an empty shape: they select nothing
        bshape = (0,) + bshape
    items = []
    stop = draw(st.integers(axes[-1] + 1, ndim))
    for ax in range(stop):
        n = shape[ax]
        if ax in axes:
            ishape = bshape[draw(st.integers(0, len(bshape))):]
            ishape = tuple(1 if draw(st.integers(0, 3)) == 0 else m for m in ishape)
            dt = draw(st.sampled_from([d for d in INT_DTYPES if n == 0 or np.iinfo(d).max >= n - 1]))
            lo = -n if dt.kind == "i" and -n >= np.iinfo(dt).min else 0
            hi = n - 1
            if draw(st.integers(0, 15)) == 0:
                hi = n  # out of range
            if hi < lo:  # an empty axis: any index is out of range, unless none is given
                idx = np.zeros(bshape if nothing else ishape, dtype=dt)
            else:
                seed = draw(st.integers(0, 2**31))
                idx = np.random.default_rng(seed).integers(lo, hi, size=ishape, endpoint=True).astype(dt)
            items.append(idx.tolist() if draw(st.integers(0, 4)) == 0 and idx.ndim else idx)
        elif draw(st.booleans()) and n:
            items.append(draw(st.integers(-n, n - 1)))
        else:
            items.append(slice(None) if draw(st.booleans()) else draw(slices(n)))
    if stop < ndim and draw(st.booleans()):
        items.append(Ellipsis)
    if draw(st.integers(0, 3)) == 0:
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(items)


@st.composite
def mask_keys(draw, shape):
    """A key with a boolean mask over some consecutive axes (leading slices or integers
    before it), or a 0-d boolean."""
    ndim = len(shape)
    if ndim == 0 or draw(st.integers(0, 5)) == 0:
        b = draw(st.booleans())
        return (b,) if draw(st.booleans()) else (Ellipsis, np.array(b))
    start = draw(st.integers(0, ndim - 1))
    stop = draw(st.integers(start + 1, ndim))
    mshape = tuple(shape[start:stop])
    seed = draw(st.integers(0, 2**31))
    p = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    mask = np.random.default_rng(seed).random(mshape) < p
    lead = [draw(st.sampled_from([slice(None), slice(None, None, -1)])) if draw(st.booleans()) or not n
            else draw(st.integers(-n, n - 1)) for n in shape[:start]]
    return tuple(lead) + (mask,)


def _index_case(draw, kind):
    dt = draw(dtypes(), label="dtype")
    shape = draw(shapes(min_dims=1 if kind != "basic" else 0, max_dims=5), label="shape")
    if kind == "basic":
        key = draw(basic_keys(shape), label="key")
    elif kind == "array":
        key = draw(int_array_keys(shape), label="key")
    else:
        key = draw(mask_keys(shape), label="key")
    return dt, shape, key


KINDS = ("basic", "array", "mask")


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data())
def test_getitem(device, kind, data):
    dt, shape, key = _index_case(data.draw, kind)
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    expected, exc = reference(lambda a: a[key], xn)
    rkey = _key_for(key, device)
    event(f"NumPy raises {type(exc).__name__}" if exc is not None else "compared")
    if exc is not None:
        assert_raises_like(exc, lambda: xr[rkey])
        return
    got = xr[rkey]
    assert_same(got, np.asarray(expected), what=f"x[{key!r}]")
    if kind == "basic" and isinstance(got, ra.Array):
        # a view: its strides select the same elements as NumPy's view does
        assert got.shape == np.shape(expected)


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data())
def test_setitem(device, kind, data):
    dt, shape, key = _index_case(data.draw, kind)
    xcase = data.draw(cases(dt, shape, writable=True), label="x")
    xn, xr = xcase.make(device)
    target, exc = reference(lambda a: a[key], xn)
    rkey = _key_for(key, device)
    if exc is not None:
        assert_raises_like(exc, lambda: xr.__setitem__(rkey, 0 if dt.kind != "b" else True))
        return
    tshape = np.shape(target)
    how = data.draw(st.sampled_from(["scalar", "array", "array", "self"]), label="value kind")
    if how == "scalar":
        vn = vr = data.draw(python_scalars({"b": "b", "i": "bif", "u": "bif", "f": "bif", "c": "bifc"}[dt.kind]),
                            label="value")
    elif how == "self" and tshape == xn.shape and xn.size:
        # the value is x itself reversed: a view over the buffer being written (read first)
        flip = (slice(None, None, -1),) * xn.ndim
        vn, vr = xn[flip], xr[flip]
    else:
        vshape = tshape[data.draw(st.integers(0, len(tshape)), label="dropped axes"):]
        vshape = tuple(1 if data.draw(st.integers(0, 3), label="stretch") == 0 else m for m in vshape)
        # a value dtype x takes without an undefined cast (float to int out of range) or a
        # refused one (complex into real: docs/dtypes.md)
        vd = data.draw(st.sampled_from([d for d in ALL if np.can_cast(d, dt, casting="same_kind")]),
                       label="value dtype")
        vn, vr = data.draw(cases(vd, vshape), label="value").make(device)
    out = xn.copy()
    with quiet():
        try:
            out[key] = vn if how != "self" else vn.copy()
            exc = None
        except (TypeError, ValueError, IndexError, OverflowError) as e:
            exc = e
    event(f"{how}: NumPy raises {type(exc).__name__}" if exc is not None else f"{how}: compared")
    if exc is not None:
        assert_raises_like(exc, lambda: xr.__setitem__(rkey, vr))
        return
    xr[rkey] = vr
    got = xr.get()
    pos = np.arange(xn.size).reshape(xn.shape)[key]
    flat_pos = np.asarray(pos).reshape(-1)
    if len(np.unique(flat_pos)) == flat_pos.size:
        assert_same(got, out, what=f"x[{key!r}] = value")
        return
    # duplicate indices: each duplicated element holds one of the values written to it
    # (docs/indexing.md); every other element is NumPy's
    with quiet():
        vals = np.broadcast_to(np.asarray(vn if how != "self" else vn.copy()).astype(dt), np.shape(pos)).reshape(-1)
    dup = np.zeros(xn.size, dtype=bool)
    u, counts = np.unique(flat_pos, return_counts=True)
    dup[u[counts > 1]] = True
    assert_same(got.reshape(-1)[~dup], out.reshape(-1)[~dup], what=f"x[{key!r}] = value (unique)")
    g = got.reshape(-1)
    for p in u[counts > 1]:
        cand = vals[flat_pos == p]
        ok = (cand == g[p]) | (np.isnan(cand) & np.isnan(g[p]) if dt.kind in "fc" else False)
        assert ok.any(), f"x[{key!r}] = value: element {p} is {g[p]!r}, not one of {cand!r}"


@given(data=st.data())
def test_basic_index_is_a_view(device, data):
    """Writing through ``x[key]`` (a basic key) writes into x, as in NumPy."""
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(max_dims=5), label="shape")
    key = data.draw(basic_keys(shape), label="key")
    xn, xr = data.draw(cases(dt, shape, writable=True), label="x").make(device)
    vn, exc = reference(lambda a: a[key], xn)
    if exc is not None or not isinstance(vn, np.ndarray):
        return
    vr = xr[key]
    fill = data.draw(values(dt, vn.shape), label="new values")
    vn[...] = fill
    vr[...] = ra.asarray(fill, device=device)
    assert_same(xr, xn, what=f"x after x[{key!r}][...] = new")


@given(data=st.data())
def test_no_writes_through_broadcast_views(device, data):
    """Assigning into, or operating in place on, a broadcast view whose elements share memory
    is a ValueError (NumPy's views of broadcast_to are read-only); the base is unchanged."""
    dt = data.draw(dtypes("iuf"), label="dtype")
    shape = data.draw(shapes(min_dims=1, max_dims=4, min_side=2, max_side=3), label="shape")
    case = data.draw(cases(dt, shape, stretched=True), label="x")
    xn, xr = case.make(device)
    aliased = xr.size and any(s == 0 and n > 1 for n, s in zip(xr.shape, xr.strides))
    event("aliased" if aliased else "not aliased")
    if not aliased:  # (a view without shared elements may be written; docs/elementwise.md)
        return
    before = xr.get()
    key = data.draw(basic_keys(shape), label="key")
    with pytest.raises(ValueError):
        xn[...] = 1  # NumPy refuses too
    for write in (lambda: xr.__setitem__(key, 1), lambda: xr.__iadd__(1)):
        try:
            write()
        except ValueError as e:
            assert "broadcast view" in str(e) or "out of bounds" in str(e) or "step" in str(e), e
        except IndexError:
            pass  # a bad key, found first
        else:
            raise AssertionError("a write through a broadcast view was not refused")
    np.testing.assert_array_equal(xr.get(), before)
