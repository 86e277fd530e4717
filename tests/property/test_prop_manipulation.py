"""Manipulation functions against NumPy: reshape, permute_dims, concat, stack, flip, roll,
squeeze, expand_dims, broadcast_to, tile, repeat and moveaxis, over random dtypes, shapes
(0-d, empty, up to 6 axes) and layouts, with valid and invalid arguments (NumPy's kind of
error where NumPy raises).  Values are copied or viewed, never computed: compared exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import rocarray as ra

from ._support import ALL, assert_raises_like, assert_same, cases, dtypes, reference, shapes


def check(fn_np, fn_ra, args_np, args_ra, kwargs=None, *, what):
    kwargs = kwargs or {}
    expected, exc = reference(fn_np, *args_np, **kwargs)
    if exc is not None:
        assert_raises_like(exc, fn_ra, *args_ra, **kwargs)
        return None
    got = fn_ra(*args_ra, **kwargs)
    assert_same(got, np.asarray(expected), what=what)
    return got


def zero_d_with_axis(xr, axis, name, *args) -> bool:
    """A 0-d array has no axis to name (the standard's range is empty; NumPy's squeeze and
    repeat take 0 and -1 there; docs/manipulation.md): checks the IndexError, True if so."""
    if xr.ndim or axis is None or axis == ():
        return False
    with pytest.raises(IndexError, match=f"^{name}: .*(axis|dimension 0)"):
        getattr(ra, name)(xr, *args, axis=axis)
    return True


def _axis(draw, ndim, *, extra: int = 0):
    """An axis of ``ndim + extra`` axes (negative too), now and then out of range."""
    n = ndim + extra
    if draw(st.integers(0, 12)) == 0 or n == 0:
        return draw(st.sampled_from([n, -n - 1]))
    return draw(st.integers(-n, n - 1))


def _axis_tuple(draw, ndim, *, extra: int = 0):
    n = ndim + extra
    picked = draw(st.lists(st.integers(0, max(n - 1, 0)), unique=True, max_size=n)) if n else []
    axes = [a - n if draw(st.booleans()) else a for a in picked]
    if axes and draw(st.integers(0, 12)) == 0:
        axes.append(axes[0])  # repeated
    return tuple(axes)


@st.composite
def array_case(draw, min_dims=0, max_dims=6, **kw):
    dt = draw(dtypes(), label="dtype")
    shape = draw(shapes(min_dims=min_dims, max_dims=max_dims, **kw), label="shape")
    return draw(cases(dt, shape), label="x")


@given(data=st.data())
def test_reshape(device, data):
    xn, xr = data.draw(array_case(), label="x").make(device)
    size = xn.size
    # a factorisation of the size into up to 6 axes, one of them -1 now and then, or a
    # wrong size now and then
    dims = []
    rest = size
    for _ in range(data.draw(st.integers(0, 5), label="axes")):
        divisors = [d for d in range(1, min(rest, 6) + 1) if rest % d == 0] if rest else [0, 1, 2]
        d = data.draw(st.sampled_from(divisors), label="dim")
        dims.append(d)
        rest = rest // d if d else 0
    if rest != 1 or not dims:
        dims.append(rest if size else 0)
    if data.draw(st.integers(0, 3), label="infer") == 0 and dims:
        dims[data.draw(st.integers(0, len(dims) - 1), label="which")] = -1
    if data.draw(st.integers(0, 10), label="bad size") == 0:
        dims.append(2)
    copy = data.draw(st.sampled_from([None, None, True, False]), label="copy")
    shape = tuple(dims)
    got = check(lambda a: np.reshape(a, shape, copy=copy), lambda a: ra.reshape(a, shape, copy=copy),
                [xn], [xr], what=f"reshape({shape}, copy={copy})")
    if got is not None and copy is False:
        assert got._buf is xr._buf, "reshape(copy=False) copied"


@given(data=st.data())
def test_permute_dims(device, data):
    xn, xr = data.draw(array_case(), label="x").make(device)
    axes = list(data.draw(st.permutations(range(xn.ndim)), label="axes"))
    how = data.draw(st.integers(0, 9), label="how")
    if how == 0 and axes:
        axes[0] = axes[-1] if len(axes) > 1 else xn.ndim  # repeated, or out of range
    elif how == 1:
        axes = axes[:-1] if axes else [0]  # too few (or too many)
    elif how < 5:
        axes = [a - xn.ndim if data.draw(st.booleans(), label="negative") else a for a in axes]
    axes = tuple(axes)
    check(lambda a: np.permute_dims(a, axes), lambda a: ra.permute_dims(a, axes), [xn], [xr],
          what=f"permute_dims({axes})")


@st.composite
def joinable(draw, *, same_shape: bool):
    """1-4 arrays (of one dtype, or each of any dtype) of one shape (``same_shape``), or of
    shapes that differ only along the axis (any shapes for ``axis=None``), and the axis;
    now and then one array does not fit."""
    ndim = draw(st.integers(0, 5), label="ndim")
    shape = draw(shapes(min_dims=ndim, max_dims=ndim, max_size=24), label="shape")
    k = draw(st.integers(1, 4), label="how many")
    if same_shape:
        axis = _axis(draw, ndim, extra=1)
        shapes_ = [shape] * k
    else:
        axis = None if ndim == 0 or draw(st.integers(0, 5)) == 0 else _axis(draw, ndim)
        shapes_ = []
        for _ in range(k):
            if axis is None:
                shapes_.append(draw(shapes(max_dims=3, max_size=8)))
            elif -ndim <= axis < ndim:
                shapes_.append(shape[:axis % ndim] + (draw(st.integers(0, 3)),) + shape[axis % ndim + 1:])
            else:
                shapes_.append(shape)
    if k > 1 and axis is not None and draw(st.integers(0, 10)) == 0:
        shapes_[-1] = shapes_[-1] + (1,)  # one axis more
    same_dtype = draw(st.booleans())
    dt0 = draw(dtypes())
    return [draw(cases(dt0 if same_dtype else draw(dtypes()), s)) for s in shapes_], axis


@given(data=st.data())
def test_concat(device, data):
    pairs, axis = data.draw(joinable(same_shape=False), label="arrays")
    made = [c.make(device) for c in pairs]
    ns, rs = [m[0] for m in made], [m[1] for m in made]
    check(lambda *a: np.concat(a, axis=axis), lambda *a: ra.concat(list(a), axis=axis), ns, rs,
          what=f"concat(axis={axis})")


@given(data=st.data())
def test_stack(device, data):
    pairs, axis = data.draw(joinable(same_shape=True), label="arrays")
    made = [c.make(device) for c in pairs]
    ns, rs = [m[0] for m in made], [m[1] for m in made]
    check(lambda *a: np.stack(a, axis=axis), lambda *a: ra.stack(a, axis=axis), ns, rs,
          what=f"stack(axis={axis})")


@given(data=st.data())
def test_flip(device, data):
    xn, xr = data.draw(array_case(), label="x").make(device)
    how = data.draw(st.sampled_from(["none", "int", "tuple"]), label="axis kind")
    axis = None if how == "none" else _axis(data.draw, xn.ndim) if how == "int" else _axis_tuple(data.draw, xn.ndim)
    check(lambda a: np.flip(a, axis=axis), lambda a: ra.flip(a, axis=axis), [xn], [xr], what=f"flip(axis={axis})")


@given(data=st.data())
def test_roll(device, data):
    xn, xr = data.draw(array_case(), label="x").make(device)
    how = data.draw(st.sampled_from(["none", "int", "tuple"]), label="axis kind")
    shift_ = st.integers(-7, 7) | st.sampled_from([-2**40, 2**40 + 3])
    if how == "none":
        axis, shift = None, data.draw(shift_, label="shift")
    elif how == "int":
        axis, shift = _axis(data.draw, xn.ndim), data.draw(shift_, label="shift")
    else:
        # a tuple of axes (repeats allowed in roll: their shifts add up) and a shift each,
        # or one shift for all
        n = xn.ndim
        axis = tuple(data.draw(st.lists(st.integers(-n, n - 1), max_size=3), label="axes")) if n else ()
        shift = (tuple(data.draw(st.lists(shift_, min_size=len(axis), max_size=len(axis)), label="shifts"))
                 if data.draw(st.booleans(), label="shift per axis") else data.draw(shift_, label="shift"))
    if xn.ndim == 0 and axis == ():
        # nothing to roll: x itself (NumPy fails on a 0-d array with a tuple axis, an
        # accident of its loop over the axes)
        assert_same(ra.roll(xr, shift, axis=axis), xn, what="roll of a 0-d array over no axes")
        return
    check(lambda a: np.roll(a, shift, axis=axis), lambda a: ra.roll(a, shift, axis=axis), [xn], [xr],
          what=f"roll({shift}, axis={axis})")


@given(data=st.data())
def test_squeeze(device, data):
    dt = data.draw(dtypes(), label="dtype")
    shape = data.draw(shapes(max_side=3), label="shape")
    shape = tuple(1 if data.draw(st.booleans(), label="ones") else d for d in shape)
    xn, xr = data.draw(cases(dt, shape), label="x").make(device)
    how = data.draw(st.sampled_from(["int", "tuple", "tuple"]), label="axis kind")
    ones = [i for i, d in enumerate(shape) if d == 1]
    if how == "int" or not ones:
        axis = _axis(data.draw, xn.ndim) if data.draw(st.booleans()) or not ones else data.draw(st.sampled_from(ones))
    else:
        axis = tuple(data.draw(st.lists(st.sampled_from(ones), unique=True), label="axes"))
        if data.draw(st.integers(0, 8)) == 0:
            axis = axis + (_axis(data.draw, xn.ndim),)  # maybe not of size 1, out of range, repeated
    if zero_d_with_axis(xr, axis, "squeeze"):
        return
    check(lambda a: np.squeeze(a, axis=axis), lambda a: ra.squeeze(a, axis=axis), [xn], [xr],
          what=f"squeeze(axis={axis})")


@given(data=st.data())
def test_expand_dims(device, data):
    xn, xr = data.draw(array_case(max_dims=5), label="x").make(device)
    if data.draw(st.booleans(), label="tuple"):
        k = data.draw(st.integers(0, 2), label="new axes")
        axis = _axis_tuple(data.draw, xn.ndim, extra=k)[:k] or (0,)
    else:
        axis = _axis(data.draw, xn.ndim, extra=1)
    check(lambda a: np.expand_dims(a, axis), lambda a: ra.expand_dims(a, axis=axis), [xn], [xr],
          what=f"expand_dims(axis={axis})")


@given(data=st.data())
def test_broadcast_to(device, data):
    xn, xr = data.draw(array_case(max_dims=4, max_side=3), label="x").make(device)
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2), label="new leading axes"))
    target = lead + tuple(data.draw(st.integers(0, 3), label="stretch") if d == 1 else d for d in xn.shape)
    if data.draw(st.integers(0, 8), label="bad") == 0 and target:
        target = target[:-1] + (target[-1] + 1,) if target[-1] != 1 else target[1:]
    check(lambda a: np.broadcast_to(a, target), lambda a: ra.broadcast_to(a, target), [xn], [xr],
          what=f"broadcast_to({target})")


@given(data=st.data())
def test_tile(device, data):
    xn, xr = data.draw(array_case(max_dims=4, max_size=12), label="x").make(device)
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4), label="repetitions"))
    check(lambda a: np.tile(a, reps), lambda a: ra.tile(a, reps), [xn], [xr], what=f"tile({reps})")


@given(data=st.data())
def test_repeat(device, data):
    xn, xr = data.draw(array_case(max_dims=4, max_size=12), label="x").make(device)
    axis = None if data.draw(st.booleans(), label="flat") else _axis(data.draw, xn.ndim)
    n = xn.size if axis is None else (xn.shape[axis] if -xn.ndim <= axis < xn.ndim else 1)
    how = data.draw(st.sampled_from(["int", "array", "array1"]), label="repeats kind")
    if how == "int":
        rn = rr = data.draw(st.integers(-1, 4) if data.draw(st.integers(0, 8)) == 0 else st.integers(0, 4),
                            label="repeats")
    else:
        m = 1 if how == "array1" else n
        if data.draw(st.integers(0, 10), label="bad length") == 0:
            m += 1
        counts = data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m), label="counts")
        rd = data.draw(st.sampled_from([d for d in ALL if d.kind in "iu"]), label="repeats dtype")
        rn = np.asarray(counts, dtype=rd)
        rr = ra.asarray(rn, device=device)
    if zero_d_with_axis(xr, axis, "repeat", rr):
        return
    if isinstance(rn, np.ndarray) and rn.dtype == np.uint64:
        rn = rn.astype(np.int64)  # (NumPy takes no uint64 counts; the standard any integers)
    check(lambda a: np.repeat(a, rn, axis=axis), lambda a: ra.repeat(a, rr, axis=axis), [xn], [xr],
          what=f"repeat({rn!r}, axis={axis})")


@given(data=st.data())
def test_moveaxis(device, data):
    xn, xr = data.draw(array_case(), label="x").make(device)
    k = data.draw(st.integers(0, xn.ndim), label="how many")
    src = tuple(data.draw(st.lists(st.integers(-xn.ndim, xn.ndim - 1), min_size=k, max_size=k, unique=True),
                          label="source")) if xn.ndim else ()
    dst = tuple(data.draw(st.lists(st.integers(-xn.ndim, xn.ndim - 1), min_size=k, max_size=k, unique=True),
                          label="destination")) if xn.ndim else ()
    check(lambda a: np.moveaxis(a, src, dst), lambda a: ra.moveaxis(a, src, dst), [xn], [xr],
          what=f"moveaxis({src}, {dst})")
