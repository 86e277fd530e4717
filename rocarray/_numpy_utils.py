"""NumPy's utilities beside the standard's: bit packing (``packbits``, ``unpackbits``),
multi-dimensional histograms (``histogram2d``, ``histogramdd``), functional helpers
(``piecewise``, ``apply_along_axis``, ``apply_over_axes``, ``fromfunction``), checks and
conversions (``real_if_close``, ``asarray_chkfinite``, ``require``, ``mask_indices``), the
gufuncs ``matvec`` and ``vecmat``, and the dtype helpers (``issubdtype``, ``promote_types``,
``common_type``, ... and NumPy's abstract scalar classes), with NumPy's signatures.

The array functions are composed of rocarray's device operations (shifts, reductions,
``searchsorted``, ``bincount``, masks, ``matmul``/``vecdot``), so they run on every device;
the dtype helpers only concern dtypes and Python values, and so use NumPy directly.
"""

from __future__ import annotations

import builtins
import inspect
import operator

import numpy as np

from . import _dtypes
from ._array_object import Array, _check_same_device
from ._creation_functions import arange, asarray, ones, zeros, zeros_like
from ._data_type_functions import astype
from ._elementwise_functions import (abs as _abs, add, bitwise_and, bitwise_left_shift, bitwise_right_shift,
                                     divide, equal, imag, isfinite, logical_not, logical_or, multiply, not_equal,
                                     subtract, where)
from ._indexing_functions import nonzero, searchsorted
from ._linear_algebra_functions import matmul, vecdot
from ._manipulation_functions import concat, diff, reshape, stack
from ._numpy_names import _as_array, _axis, _into, indices, ravel
from ._numpy_stats import bincount
from ._statistical_functions import all as _all, max as _max, min as _min, sum as _sum
from ._views import broadcast_to, expand_dims, moveaxis, permute_dims


def _count(v, name: str, what: str) -> int:
    """``v`` as a Python int (NumPy integers too; bools and floats are a TypeError)."""
    if isinstance(v, builtins.bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: {what} must be an integer, not {type(v).__name__}")
    return operator.index(v)


# -- bits -----------------------------------------------------------------------------------------

def _little(bitorder, name: str) -> bool:
    if bitorder not in ("big", "little"):
        raise ValueError(f"{name}: bitorder must be either 'little' or 'big', not {bitorder!r}")
    return bitorder == "little"


def _bit_axis(x: Array, axis, name: str) -> tuple:
    """``x`` and the axis to work along: flattened for ``axis=None``; a 0-d ``x`` counts as
    1-D, as NumPy's."""
    if axis is None:
        return ravel(x), 0
    if x.ndim == 0:
        x = reshape(x, (1,))
    return x, _axis(axis, x.ndim, name)


def _shifts(little: bool, device) -> Array:
    """Each of a byte's 8 bits' shift, most significant first (big) or least (little)."""
    s = arange(8, dtype=_dtypes.uint8, device=device)
    return s if little else subtract(7, s)


def packbits(a, /, axis=None, bitorder="big") -> Array:
    """``packbits(a, axis=None, bitorder='big')``: the elements of ``a`` as bits (nonzero: 1)
    packed 8 to a ``uint8`` along ``axis`` (the flattened array for None), the last byte
    padded with zero bits, as NumPy's.

    Each group of 8 bits is shifted into place and summed on the device (distinct bits add
    without carries).

    Raises:
        TypeError: ``a`` is not an integer or boolean array.
        ValueError: ``bitorder`` is not ``'big'`` or ``'little'``.

    Examples:
        >>> import rocarray as ra
        >>> ra.packbits(ra.asarray([1, 0, 1, 1, 0, 0, 0, 0, 1], dtype=ra.bool))
        array([176, 128], dtype=uint8)
    """
    x = _as_array(a, "packbits")
    if x.dtype.kind not in "biu":
        raise TypeError(f"packbits: expected an input array of integer or boolean data type, not {x.dtype}")
    little = _little(bitorder, "packbits")
    x, ax = _bit_axis(x, axis, "packbits")
    bits = moveaxis(astype(not_equal(x, 0), _dtypes.uint8), ax, -1)
    n = bits.shape[-1]
    m = -(-n // 8)
    if m * 8 != n:  # (the last byte's missing bits are zeros)
        pad = zeros(bits.shape[:-1] + (m * 8 - n,), dtype=_dtypes.uint8, device=x.device)
        bits = concat([bits, pad], axis=-1)
    bits = reshape(bits, bits.shape[:-1] + (m, 8))
    packed = _sum(bitwise_left_shift(bits, _shifts(little, x.device)), axis=-1, dtype=_dtypes.uint8)
    return moveaxis(packed, -1, ax)


def unpackbits(a, /, axis=None, count=None, bitorder="big") -> Array:
    """``unpackbits(a, axis=None, count=None, bitorder='big')``: each ``uint8`` of ``a``
    as its 8 bits (``uint8`` zeros and ones) along ``axis`` (the flattened array for None),
    as NumPy's; ``count`` keeps the first ``count`` bits (padding with zeros past the end),
    or drops the last ``-count``.

    Raises:
        TypeError: ``a`` is not a ``uint8`` array, or ``count`` is not an integer.
        ValueError: ``-count`` is more than the bits there are, or a bad ``bitorder``.

    Examples:
        >>> import rocarray as ra
        >>> ra.unpackbits(ra.asarray([176], dtype=ra.uint8), count=5)
        array([1, 0, 1, 1, 0], dtype=uint8)
    """
    x = _as_array(a, "unpackbits")
    if x.dtype != _dtypes.uint8:
        raise TypeError(f"unpackbits: expected an input array of unsigned byte data type (uint8), not {x.dtype}")
    if count is not None:
        count = _count(count, "unpackbits", "count")
    little = _little(bitorder, "unpackbits")
    x, ax = _bit_axis(x, axis, "unpackbits")
    x = moveaxis(x, ax, -1)
    total = 8 * x.shape[-1]
    bits = bitwise_and(bitwise_right_shift(expand_dims(x, axis=-1), _shifts(little, x.device)), 1)
    bits = reshape(bits, x.shape[:-1] + (total,))
    if count is not None:
        if count < 0 and -count > total:
            raise ValueError(f"unpackbits: -count ({-count}) is larger than the number of bits ({total})")
        keep = total + count if count < 0 else count
        if keep <= total:
            bits = bits[..., :keep]
        else:
            pad = zeros(bits.shape[:-1] + (keep - total,), dtype=_dtypes.uint8, device=x.device)
            bits = concat([bits, pad], axis=-1)
    return moveaxis(bits, -1, ax)


# -- histograms -----------------------------------------------------------------------------------

def _sample_columns(sample) -> Array:
    """NumPy's forms of a ``histogramdd`` sample as an ``(N, D)`` array: an ``(N, D)``
    array as it is, a 1-D array as one coordinate, a sequence as ``D`` sequences of
    ``N`` coordinates."""
    name = "histogramdd"
    if isinstance(sample, Array):
        s, listed = sample, False
    elif isinstance(sample, (list, tuple)):
        if not sample:
            return zeros((0, 1), dtype=_dtypes.float64)
        dev = next((e.device for e in sample if isinstance(e, Array)), None)
        s, listed = stack([_as_array(e, name, dev) for e in sample]), True
    else:
        s, listed = _as_array(sample, name), False
    if s.ndim > 2:
        raise ValueError(f"{name}: the sample must be an (N, D) array or D sequences of N coordinates; "
                         f"got {s.ndim} dimensions")
    if s.ndim < 2:
        return reshape(s, (-1, 1))
    return permute_dims(s, (1, 0)) if listed else s


def _outer_edges(col: Array, rng, i: int) -> tuple:
    """The first and last edge of dimension ``i`` (scalars of the edges' dtype) and that
    dtype, the one NumPy's ``linspace`` gives: from ``rng`` (Python values: float64), else
    from the data (its dtype when floating)."""
    if rng is not None:
        try:
            lo, hi = rng
        except (TypeError, ValueError):
            raise ValueError(f"histogramdd: range[{i}] must be a (min, max) pair or None, not {rng!r}") from None
        dt = np.result_type(*(v.dtype if isinstance(v, Array) else v for v in (lo, hi)), 1.0)
        lo, hi = float(lo), float(hi)
        if lo > hi:
            raise ValueError(f"histogramdd: max must be larger than min in range parameter (range[{i}] = {rng})")
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"histogramdd: supplied range of [{lo}, {hi}] is not finite")
    elif col.size == 0:
        lo, hi, dt = 0.0, 1.0, _dtypes.float64
    else:
        lo, hi = float(_min(col)), float(_max(col))
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"histogramdd: autodetected range of [{lo}, {hi}] is not finite")
        dt = np.result_type(col.dtype, 1.0)
    dt = _dtypes.as_dtype(dt)
    lo, hi = dt.type(lo), dt.type(hi)
    if lo == hi:  # (an empty range widened, so that the bins have a width)
        lo, hi = lo - dt.type(0.5), hi + dt.type(0.5)
    return lo, hi, dt


def _even_edges(lo, hi, n: int, dt, device) -> Array:
    """``n + 1`` evenly spaced edges from ``lo`` to ``hi`` in ``dt``'s arithmetic, rounded
    as NumPy's ``linspace`` rounds them (``i * step + lo``, the last edge ``hi`` exactly),
    so that a value near an edge falls in the same bin as there."""
    step = (hi - lo) / dt.type(n)
    e = add(multiply(arange(n + 1, dtype=dt, device=device), step), lo)
    e[n] = hi
    return e


def _edges_of(col: Array, b, rng, i: int) -> Array:
    """The bin edges of dimension ``i``: ``b`` equal bins over the range, or ``b`` itself
    (increasing edges)."""
    if isinstance(b, Array) and b.ndim == 0 or isinstance(b, (builtins.bool, int, float, np.generic)):
        if isinstance(b, Array):
            b = b.item()
        if isinstance(b, builtins.bool) or not isinstance(b, (int, float, np.integer, np.floating)):
            raise TypeError(f"histogramdd: `bins[{i}]` must be an integer, when a scalar, not {type(b).__name__}")
        if b < 1:
            raise ValueError(f"histogramdd: `bins[{i}]` must be positive, when an integer; got {b}")
        if not isinstance(b, (int, np.integer)):
            raise TypeError(f"histogramdd: `bins[{i}]` must be an integer, when a scalar, not {type(b).__name__}")
        lo, hi, dt = _outer_edges(col, rng, i)
        return _even_edges(lo, hi, int(b), dt, col.device)
    if isinstance(b, str):
        raise TypeError(f"histogramdd: `bins[{i}]` must be an integer or an array of edges, not the string {b!r}")
    e = _as_array(b, "histogramdd", col.device)
    if e.ndim != 1:
        raise ValueError(f"histogramdd: `bins[{i}]` must be a scalar or 1d array, not {e.ndim}-d")
    if e.size == 0:
        raise ValueError(f"histogramdd: `bins[{i}]` must hold at least one edge")
    if e.dtype.kind == "c":
        raise TypeError(f"histogramdd: `bins[{i}]` must be real edges, not {e.dtype}")
    if e.size > 1 and not bool(_all(e[1:] >= e[:-1])):
        raise ValueError(f"histogramdd: `bins[{i}]` must be monotonically increasing, when an array")
    return e


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002 - NumPy's name
    """``histogramdd(sample, bins=10, range=None, density=None, weights=None)``: the
    multidimensional histogram of ``sample`` (an ``(N, D)`` array or ``D`` sequences of
    ``N`` coordinates) and the list of its ``D`` edge arrays, as NumPy's.

    ``bins`` is a count for every dimension, or one count or 1-D array of increasing edges
    per dimension; ``range`` one ``(min, max)`` (or None: the data's) per dimension.  Each
    bin holds its left edge, the last also its right edge; values outside are left out.
    The counts (or sums of ``weights``) are float64, as NumPy's; ``density=True`` divides
    them by the total and the bins' volumes.  Bins on the device: ``searchsorted`` on each
    dimension's edges, the flat bin numbers counted by ``bincount``.

    Differences from NumPy: complex samples, weights and edges are a TypeError.

    Raises:
        ValueError: ``bins`` or ``range`` not one per dimension, a count below 1, edges
            that decrease, a range with min > max or not finite, weights of another length.
        TypeError: a count that is not an integer, complex data.

    Examples:
        >>> import rocarray as ra
        >>> h, edges = ra.histogramdd(ra.asarray([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), bins=2)
        >>> h
        array([[1., 0.],
               [1., 1.]])
    """
    s = _sample_columns(sample)
    if s.dtype.kind == "c":
        raise TypeError("histogramdd: complex samples have no order; histogram the real and imaginary parts")
    n, d = s.shape
    try:
        nb = len(bins)
    except TypeError:
        bins = [bins] * d
    else:
        if isinstance(bins, str):
            raise TypeError(f"histogramdd: bins must be an integer or a sequence, not the string {bins!r}")
        if nb != d:
            raise ValueError(f"histogramdd: the dimension of bins ({nb}) must be equal to the dimension of "
                             f"the sample x ({d})")
    if range is None:
        range = (None,) * d  # noqa: A001
    elif len(range) != d:
        raise ValueError(f"histogramdd: range argument must have one entry per dimension ({d}), not {len(range)}")
    w = None
    if weights is not None:
        w = _as_array(weights, "histogramdd", s.device)
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError(f"histogramdd: weights of shape {w.shape} do not match the {n} samples")
        if w.dtype.kind == "c":
            raise TypeError(f"histogramdd: weights must be real (the counts are float64), not {w.dtype}")
    edges = [_edges_of(s[:, i], bins[i], range[i], i) for i in builtins.range(d)]
    # each dimension's bin number: 0 below the first edge, len(edges) above the last (or
    # NaN); the last edge itself in the last bin
    nbin = [e.shape[0] + 1 for e in edges]
    flat = zeros((n,), dtype=_dtypes.int64, device=s.device)
    stride = 1
    for i in builtins.range(d - 1, -1, -1):
        col, e = s[:, i], edges[i]
        ct = np.promote_types(col.dtype, e.dtype)
        cv, ev = astype(col, ct, copy=False), astype(e, ct, copy=False)
        k = searchsorted(ev, cv, side="right")
        k = where(equal(cv, ev[-1]), subtract(k, 1), k)
        flat = add(flat, multiply(astype(k, _dtypes.int64, copy=False), stride))
        stride *= nbin[i]
    hist = astype(bincount(flat, w, minlength=stride), _dtypes.float64, copy=False)
    hist = reshape(hist, tuple(nbin))[(slice(1, -1),) * d]
    if density:
        total = _sum(hist)
        for i, e in enumerate(edges):
            shape = tuple(-1 if j == i else 1 for j in builtins.range(d))
            hist = divide(hist, reshape(diff(e), shape))
        hist = divide(hist, total)
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002 - NumPy's name
    """``histogram2d(x, y, bins=10, range=None, density=None, weights=None)``: the 2-D
    histogram of the points ``(x, y)`` and its edges ``(H, xedges, yedges)``, ``H[i, j]``
    counting the points with ``x`` in bin ``i`` and ``y`` in bin ``j``, as NumPy's
    (``histogramdd`` of the two coordinates).

    ``bins``: a count for both, ``[nx, ny]``, one array of edges for both, or
    ``[xedges, yedges]`` (a count and an array mixed too).

    Raises:
        ValueError: ``x`` and ``y`` of different lengths, and ``histogramdd``'s errors.

    Examples:
        >>> import rocarray as ra
        >>> h, xe, ye = ra.histogram2d(ra.asarray([0.0, 1.0, 1.0]), ra.asarray([0.0, 1.0, 0.0]), bins=2)
        >>> h
        array([[1., 0.],
               [1., 1.]])
    """
    dev = x.device if isinstance(x, Array) else y.device if isinstance(y, Array) else None
    xa, ya = _as_array(x, "histogram2d", dev), _as_array(y, "histogram2d", dev)
    if xa.ndim != 1 or ya.ndim != 1:
        raise ValueError(f"histogram2d: x and y must be 1-D, not {xa.ndim}-d and {ya.ndim}-d")
    if xa.shape[0] != ya.shape[0]:
        raise ValueError(f"histogram2d: x and y must have the same length ({xa.shape[0]} and {ya.shape[0]})")
    _check_same_device("histogram2d", xa, ya)
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):  # (one array of edges, for both coordinates)
        bins = [bins, bins]
    hist, edges = histogramdd(stack([xa, ya], axis=1), bins, range, density, weights)
    return hist, edges[0], edges[1]


# -- functional -----------------------------------------------------------------------------------

def _is_condition(c, listed: bool) -> bool:
    """Whether ``c``, the first entry of ``piecewise``'s ``condlist``, is itself a
    condition (so ``condlist`` is a list of them), by NumPy's test: a list, or an array
    (an array's entry: one of at least one dimension)."""
    if isinstance(c, list):
        return True
    if isinstance(c, Array):
        return listed or c.ndim > 0
    return False


def piecewise(x, condlist, funclist, *args, **kw) -> Array:
    """``piecewise(x, condlist, funclist, *args, **kw)``: an array of ``x``'s shape and
    dtype, ``funclist[i]`` where ``condlist[i]`` holds: a function's value on ``x``'s
    elements there (``f(x[cond], *args, **kw)``) or a constant; with one function more
    than conditions, the last applies where none holds.  Elsewhere 0; a later condition
    overrides an earlier one.  As NumPy's, one condition may be given alone (not in a list).

    Raises:
        ValueError: neither as many functions as conditions nor one more.

    Examples:
        >>> import rocarray as ra
        >>> x = ra.asarray([-2.0, -1.0, 0.0, 1.0, 2.0])
        >>> ra.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 10])
        array([ 2.,  1.,  0., 10., 20.])
    """
    x = _as_array(x, "piecewise")
    funclist = list(funclist)
    if isinstance(condlist, (builtins.bool, np.bool_)) or (
            isinstance(condlist, Array) and condlist.ndim == 0):
        condlist = [condlist]
    elif isinstance(condlist, Array):
        if not (condlist.ndim > 1 or (condlist.ndim == 1 and x.ndim == 0)):
            condlist = [condlist]
        else:
            condlist = [condlist[i] for i in builtins.range(condlist.shape[0])]
    elif isinstance(condlist, (list, tuple)):
        if condlist and not _is_condition(condlist[0], True) and x.ndim != 0:
            condlist = [condlist]
    else:
        raise TypeError(f"piecewise: condlist must be a boolean array or a list of them, not {type(condlist).__name__}")
    conds = [astype(_as_array(c, "piecewise", x.device), _dtypes.bool, copy=False) for c in condlist]
    n = len(conds)
    if n not in (len(funclist), len(funclist) - 1):
        raise ValueError(f"piecewise: with {n} condition(s), either {n} or {n + 1} functions are expected, "
                         f"not {len(funclist)}")
    for c in conds:
        # (a mask of x's leading axes, as NumPy's x[cond]: of fewer axes it picks sub-arrays)
        if c.shape != x.shape[:c.ndim]:
            raise ValueError(f"piecewise: a condition of shape {c.shape} does not match x of shape {x.shape} "
                             "(a condition masks x's leading axes)")
    if n == len(funclist) - 1:
        otherwise = zeros(x.shape, dtype=_dtypes.bool, device=x.device)
        for c in conds:
            otherwise = logical_or(otherwise, reshape(c, c.shape + (1,) * (x.ndim - c.ndim)))
        conds.append(logical_not(otherwise))
    y = zeros_like(x)
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
            continue
        vals = x[cond]
        if vals.size > 0:
            y[cond] = func(vals, *args, **kw)
    return y


def apply_along_axis(func1d, axis, arr, *args, **kwargs) -> Array:
    """``apply_along_axis(func1d, axis, arr, *args, **kwargs)``: ``func1d(line, *args,
    **kwargs)`` on each 1-D line of ``arr`` along ``axis``, the results (all of the first
    one's shape, cast to its dtype) put where that axis was, as NumPy's: the result's
    shape is ``arr.shape[:axis] + result_shape + arr.shape[axis+1:]``.  ``func1d`` is
    called once per line, from Python.

    Raises:
        ValueError: another axis of ``arr`` is empty (nothing to call ``func1d`` on), or a
            result of another shape.

    Examples:
        >>> import rocarray as ra
        >>> ra.apply_along_axis(lambda v: v[0] + v[-1], 1, ra.asarray([[1, 2, 3], [4, 5, 6]]))
        array([ 4, 10])
    """
    x = _as_array(arr, "apply_along_axis")
    ax = _axis(axis, x.ndim, "apply_along_axis")
    lines = moveaxis(x, ax, -1)
    outer = lines.shape[:-1]
    if any(s == 0 for s in outer):
        raise ValueError("apply_along_axis: cannot apply along an axis when any other dimension is 0 "
                         f"(arr has shape {x.shape}, axis {ax})")
    results = []
    first = None
    for idx in np.ndindex(*outer):
        r = _as_array(func1d(lines[idx], *args, **kwargs), "apply_along_axis", x.device)
        if first is None:
            first = r
        else:  # (NumPy's rule: each later result assigned into the first one's shape and dtype)
            try:
                r = broadcast_to(r, first.shape)
            except ValueError:
                raise ValueError(f"apply_along_axis: func1d returned shape {r.shape} for one line and "
                                 f"{first.shape} for the first") from None
            r = astype(r, first.dtype, copy=False)
        results.append(r)
    out = reshape(stack(results, axis=0), outer + first.shape)
    o, k = len(outer), first.ndim
    order = tuple(builtins.range(ax)) + tuple(builtins.range(o, o + k)) + tuple(builtins.range(ax, o))
    return permute_dims(out, order)


def _keyword_only(func, name: str) -> bool:
    """Whether ``func`` takes the parameter ``name`` by keyword only (the standard's
    functions, such as ``rocarray.sum``'s ``axis`` or ``rocarray.triu``'s ``k``), where
    NumPy's call passes it by position."""
    try:
        p = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):  # (no signature to read: NumPy's positional call)
        return False
    return p is not None and p.kind is inspect.Parameter.KEYWORD_ONLY


def apply_over_axes(func, a, axes) -> Array:
    """``apply_over_axes(func, a, axes)``: ``func(a, axis)`` applied for each axis of
    ``axes`` in turn, each result fed to the next call, with the reduced axis kept (as
    length 1) when ``func`` drops it, as NumPy's: the result has ``a``'s dimensions.
    A ``func`` whose ``axis`` is keyword-only (``rocarray.sum``, the standard's
    reductions) is given it by name.

    Raises:
        ValueError: ``func`` returns an array of neither the same dimensions nor one fewer.

    Examples:
        >>> import rocarray as ra
        >>> ra.apply_over_axes(ra.sum, ra.reshape(ra.arange(24), (2, 3, 4)), [0, 2])
        array([[[ 60],
                [ 92],
                [124]]])
    """
    val = _as_array(a, "apply_over_axes")
    if isinstance(axes, Array):  # (axis numbers, read on the host)
        axes = [int(v) for v in ravel(axes).tolist()] if axes.ndim else [int(axes)]
    elif isinstance(axes, (int, np.integer)):
        axes = (axes,)
    ndim = val.ndim
    by_name = _keyword_only(func, "axis")
    for axis in axes:
        ax = _axis(axis, ndim, "apply_over_axes")
        res = _as_array(func(val, axis=ax) if by_name else func(val, ax), "apply_over_axes", val.device)
        if res.ndim != val.ndim:
            if res.ndim + 1 != val.ndim:
                raise ValueError(f"apply_over_axes: function is not returning an array of the correct shape "
                                 f"({res.ndim}-d for a {val.ndim}-d array)")
            res = expand_dims(res, axis=ax)
        val = res
    return val


def fromfunction(function, shape, *, dtype=float, device=None, **kwargs):
    """``fromfunction(function, shape, *, dtype=float, **kwargs)``: ``function`` called once
    with one coordinate array per dimension of ``shape`` (rocarray arrays of ``dtype``,
    float64 by default, as NumPy's ``indices``), and its result returned as is.

    Examples:
        >>> import rocarray as ra
        >>> ra.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=ra.int32)
        array([[ 0,  1,  2],
               [10, 11, 12]], dtype=int32)
    """
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(_count(s, "fromfunction", "each entry of shape") for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"fromfunction: negative dimensions are not allowed, got shape {shape}")
    grid = indices(shape, dtype=_dtypes.as_dtype(dtype), device=device)
    return function(*(grid[i] for i in builtins.range(len(shape))), **kwargs)


# -- checks and conversions -----------------------------------------------------------------------

def real_if_close(a, tol=100) -> Array:
    """``real_if_close(a, tol=100)``: the real part of the complex ``a`` when every
    imaginary part is below ``tol`` in magnitude (``tol`` > 1: that many machine epsilons of
    ``a``'s dtype), else ``a`` itself, as NumPy's; a real ``a`` is returned as it is.

    Examples:
        >>> import rocarray as ra
        >>> ra.real_if_close(ra.asarray([2.0 + 1e-15j, 1.0 + 0j]))
        array([2., 1.])
    """
    x = _as_array(a, "real_if_close")
    if x.dtype.kind != "c":
        return x
    if isinstance(tol, builtins.bool) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise TypeError(f"real_if_close: tol must be a real number, not {type(tol).__name__}")
    if tol > 1:
        tol = float(tol) * float(np.finfo(x.dtype).eps)
    if bool(_all(_abs(imag(x)) < tol)):
        return x.real
    return x


_ORDERS = (None, "C", "F", "A", "K")


def _in_order(x: Array, order, name: str) -> Array:
    """``x`` C- or F-contiguous as ``order`` asks (a copy only where needed)."""
    if order not in _ORDERS:
        raise ValueError(f"{name}: order must be one of 'C', 'F', 'A', 'K' or None, not {order!r}")
    if order == "C" and not x.flags["C_CONTIGUOUS"] or order == "F" and not x.flags["F_CONTIGUOUS"]:
        return _copy(x, order)
    return x


def _copy(x: Array, order) -> Array:
    """A new array of ``x``'s elements, in F order for ``order='F'``, else C order."""
    if order != "F":
        return asarray(x, copy=True)
    # (the transpose's C-ordered copy, transposed back, lies in F order)
    rev = tuple(builtins.range(x.ndim - 1, -1, -1))
    return permute_dims(asarray(permute_dims(x, rev), copy=True), rev)


def _convert(a, dtype, name: str) -> Array:
    if isinstance(a, Array):
        return a if dtype is None else astype(a, _dtypes.as_dtype(dtype), copy=False)
    try:
        return asarray(a, dtype=dtype)
    except TypeError as e:
        raise TypeError(f"{name}: {e}") from None


def asarray_chkfinite(a, dtype=None, order=None) -> Array:
    """``asarray_chkfinite(a, dtype=None, order=None)``: ``a`` as an array (``asarray``),
    checked to hold no infinities or NaNs, as NumPy's.

    Raises:
        ValueError: a floating or complex ``a`` holds an infinity or a NaN.

    Examples:
        >>> import rocarray as ra
        >>> ra.asarray_chkfinite([1.0, 2.0])
        array([1., 2.])
    """
    x = _in_order(_convert(a, dtype, "asarray_chkfinite"), order, "asarray_chkfinite")
    if x.dtype.kind in "fc" and not bool(_all(isfinite(x))):
        raise ValueError("array must not contain infs or NaNs")
    return x


#: NumPy's names of the flags ``require`` takes -> their letters
_FLAGS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
          "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E",
          "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None) -> Array:
    """``require(a, dtype=None, requirements=None)``: ``a`` as an array of ``dtype`` that
    meets ``requirements`` (flags by letter or name: ``'C'``/``'C_CONTIGUOUS'``,
    ``'F'``/``'F_CONTIGUOUS'``, ``'A'``/``'ALIGNED'``, ``'W'``/``'WRITEABLE'``,
    ``'O'``/``'OWNDATA'``, ``'E'``/``'ENSUREARRAY'``), copied only where one is not met, as
    NumPy's.  rocarray's arrays are always aligned and of the base array type (``'A'`` and
    ``'E'`` hold); ``'O'`` copies an array given as it is (rocarray does not tell whether an
    array owns its memory; a new array does).

    Raises:
        ValueError: an unknown flag, or both ``'C'`` and ``'F'``.

    Examples:
        >>> import rocarray as ra
        >>> x = ra.ones((3, 2)).T
        >>> ra.require(x, requirements="C").flags["C_CONTIGUOUS"]
        True
    """
    x = _convert(a, dtype, "require")
    if not requirements:
        return x
    if isinstance(requirements, str):  # (NumPy reads a string letter by letter)
        requirements = list(requirements)
    want = set()
    for r in requirements:
        flag = _FLAGS.get(r.upper() if isinstance(r, str) else r)
        if flag is None:
            raise ValueError(f"require: unknown requirement {r!r}; use one of {', '.join(_FLAGS)}")
        want.add(flag)
    if {"C", "F"} <= want:
        raise ValueError('require: cannot specify both "C" and "F" order')
    order = "C" if "C" in want else "F" if "F" in want else None
    x = _in_order(x, order, "require")
    # (an array made here, by a cast, a list's conversion or a reordering, owns its memory)
    if "W" in want and not x.flags["WRITEABLE"] or "O" in want and x is a:
        x = _copy(x, order)
    return x


def mask_indices(n, mask_func, k=0, *, device=None) -> tuple:
    """``mask_indices(n, mask_func, k=0)``: the (row, column) indices of the nonzero
    entries of ``mask_func(ones((n, n)), k)`` (e.g. ``triu``, ``tril``), as NumPy's
    (``k`` given by name to a ``mask_func`` that takes it by keyword only).

    Examples:
        >>> import rocarray as ra
        >>> ra.mask_indices(3, ra.triu, 1)
        (array([0, 0, 1]), array([1, 2, 2]))
    """
    n = _count(n, "mask_indices", "n")
    if n < 0:
        raise ValueError(f"mask_indices: n must be >= 0, not {n}")
    m = ones((n, n), dtype=_dtypes.int64, device=device)
    m = mask_func(m, k=k) if _keyword_only(mask_func, "k") else mask_func(m, k)
    m = _as_array(m, "mask_indices", device)
    if m.shape != (n, n):
        raise ValueError(f"mask_indices: mask_func returned shape {m.shape}, expected {(n, n)}")
    return nonzero(not_equal(m, 0))


# -- the matrix-vector gufuncs --------------------------------------------------------------------

def _product_operands(name: str, x1, x2, need1: int, need2: int) -> tuple:
    dev = x1.device if isinstance(x1, Array) else x2.device if isinstance(x2, Array) else None
    a, b = _as_array(x1, name, dev), _as_array(x2, name, dev)
    _check_same_device(name, a, b)
    sig = "(m,n),(n)->(m)" if name == "matvec" else "(n),(n,m)->(m)"
    for i, (v, need) in enumerate(((a, need1), (b, need2))):
        if v.ndim < need:
            raise ValueError(f"{name}: input operand {i} does not have enough dimensions (has {v.ndim}, "
                             f"gufunc core with signature {sig} requires {need})")
    return a, b


def _boolean_product(a: Array, b: Array):
    """Booleans as NumPy's products make them: any of the pairwise ands (the product of
    their counts, as int64, being nonzero)."""
    if a.dtype == _dtypes.bool and b.dtype == _dtypes.bool:
        return astype(a, _dtypes.int64), astype(b, _dtypes.int64), True
    return a, b, False


def matvec(x1, x2, /, out=None) -> Array:
    """``matvec(x1, x2, /, out=None)``: the matrix-vector products of the stacks of
    matrices ``x1`` (``(..., m, n)``) and vectors ``x2`` (``(..., n)``), shape ``(..., m)``
    (the stacks broadcast), as NumPy 2.2's gufunc (``np.matvec(x, v)`` reaches it), by
    ``matmul``.

    Raises:
        ValueError: ``x1`` of fewer than 2 dimensions, ``x2`` of none, or ``n`` differing.

    Examples:
        >>> import rocarray as ra
        >>> ra.matvec(ra.asarray([[1.0, 2.0], [3.0, 4.0]]), ra.asarray([1.0, 1.0]))
        array([3., 7.])
    """
    a, b = _product_operands("matvec", x1, x2, 2, 1)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"matvec: input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"(m,n),(n)->(m) (size {b.shape[-1]} is different from {a.shape[-1]})")
    a, b, boolean = _boolean_product(a, b)
    r = matmul(a, expand_dims(b, axis=-1))[..., 0]
    return _into(not_equal(r, 0) if boolean else r, out, "matvec")


def vecmat(x1, x2, /, out=None) -> Array:
    """``vecmat(x1, x2, /, out=None)``: the vector-matrix products of the stacks of vectors
    ``x1`` (``(..., n)``, conjugated, as NumPy's) and matrices ``x2`` (``(..., n, m)``),
    shape ``(..., m)`` (the stacks broadcast), as NumPy 2.2's gufunc (``np.vecmat(v, x)``
    reaches it), by ``vecdot`` over the matrices' rows.

    Raises:
        ValueError: ``x1`` of no dimensions, ``x2`` of fewer than 2, or ``n`` differing.

    Examples:
        >>> import rocarray as ra
        >>> ra.vecmat(ra.asarray([1j, 1.0]), ra.asarray([[1.0, 2.0], [3.0, 4.0]]))
        array([3.-1.j, 4.-2.j])
    """
    a, b = _product_operands("vecmat", x1, x2, 1, 2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"vecmat: input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"(n),(n,m)->(m) (size {b.shape[-2]} is different from {a.shape[-1]})")
    a, b, boolean = _boolean_product(a, b)
    r = vecdot(expand_dims(a, axis=-1), b, axis=-2)
    return _into(not_equal(r, 0) if boolean else r, out, "vecmat")


# -- dtypes and Python values ---------------------------------------------------------------------

#: NumPy's abstract scalar classes (and its boolean scalar type), so that
#: ``issubdtype(x.dtype, rocarray.floating)`` reads as with NumPy and CuPy
generic = np.generic
number = np.number
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
bool_ = np.bool_


def _scalar_type(t, name: str) -> type:
    """The NumPy scalar type of ``t`` (a dtype, as rocarray's are, a scalar type, a
    Python type or a dtype's name)."""
    if isinstance(t, type) and issubclass(t, np.generic):
        return t
    if isinstance(t, Array):
        raise TypeError(f"{name}: expected a dtype or a scalar type, not a rocarray array; pass its .dtype")
    try:
        return np.dtype(t).type
    except TypeError:
        raise TypeError(f"{name}: {t!r} is not a dtype or a scalar type") from None


def issubdtype(arg1, arg2) -> bool:
    """``issubdtype(arg1, arg2)``: whether the dtype ``arg1`` is ``arg2`` or below it in
    NumPy's hierarchy of scalar types (``rocarray.floating``, ``rocarray.integer``, ...).

    Examples:
        >>> import rocarray as ra
        >>> ra.issubdtype(ra.float32, ra.floating), ra.issubdtype(ra.int8, ra.unsignedinteger)
        (True, False)
    """
    return issubclass(_scalar_type(arg1, "issubdtype"), _scalar_type(arg2, "issubdtype"))


def _dtype_arg(t, name: str) -> np.dtype:
    if isinstance(t, Array):
        raise TypeError(f"{name}: expected a dtype, not a rocarray array; pass its .dtype")
    try:
        return np.dtype(t)
    except TypeError:
        raise TypeError(f"{name}: {t!r} is not a dtype") from None


def promote_types(type1, type2) -> np.dtype:
    """``promote_types(type1, type2)``: the smallest dtype to which both can be cast
    safely, by NumPy's rules (rocarray's dtypes are NumPy's).

    Examples:
        >>> import rocarray as ra
        >>> ra.promote_types(ra.int8, ra.uint8)
        dtype('int16')
    """
    return np.promote_types(_dtype_arg(type1, "promote_types"), _dtype_arg(type2, "promote_types"))


def min_scalar_type(a) -> np.dtype:
    """``min_scalar_type(a)``: the smallest dtype that holds the scalar ``a`` (a 0-d
    array's value; an array of dimensions: its dtype), as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.min_scalar_type(300), ra.min_scalar_type(ra.asarray([1, 2], dtype=ra.int32))
        (dtype('uint16'), dtype('int32'))
    """
    if isinstance(a, Array):
        return a.dtype if a.ndim else np.min_scalar_type(a.dtype.type(a.item()))
    return np.min_scalar_type(a)


def common_type(*arrays) -> type:
    """``common_type(*arrays)``: the floating scalar type of the arrays' common precision,
    as NumPy's: integers count as float64, complex arrays make it complex (float16 with
    no arrays).

    Raises:
        TypeError: a boolean array, or an argument that is not an array.

    Examples:
        >>> import rocarray as ra
        >>> ra.common_type(ra.asarray([1], dtype=ra.int8), ra.asarray([1.0], dtype=ra.float32))
        <class 'numpy.float64'>
    """
    bits, complex_ = 16, False
    for a in arrays:
        if not isinstance(a, (Array, np.ndarray)):
            raise TypeError(f"common_type: expected arrays, not {type(a).__name__}")
        kind = a.dtype.kind
        if kind in "iu":
            bits = builtins.max(bits, 64)
        elif kind == "f":
            bits = builtins.max(bits, 8 * a.dtype.itemsize)
        elif kind == "c":
            complex_ = True
            bits = builtins.max(bits, 4 * a.dtype.itemsize)
        else:
            raise TypeError(f"common_type: can't get common type for non-numeric array of dtype {a.dtype}")
    if complex_:
        return np.complex128 if bits >= 64 else np.complex64
    return {16: np.float16, 32: np.float32, 64: np.float64}[bits]


def mintypecode(typechars, typeset="GDFgdf", default="d") -> str:
    """``mintypecode(typechars, typeset='GDFgdf', default='d')``: the character of the
    smallest type in ``typeset`` to which all of ``typechars`` (type characters or arrays)
    can be cast, as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.mintypecode(["d", ra.asarray([1.0j], dtype=ra.complex64)])
        'D'
    """
    chars = [t.dtype.char if isinstance(t, Array) else t for t in typechars]
    return np.mintypecode(chars, typeset=typeset, default=default)


def typename(char) -> str:
    """``typename(char)``: the description of the type character ``char``, as NumPy's.

    Raises:
        ValueError: a character NumPy's table lacks (NumPy: KeyError).

    Examples:
        >>> import rocarray as ra
        >>> ra.typename("f")
        'single precision'
    """
    try:
        return np.typename(char)
    except (KeyError, TypeError):
        raise ValueError(f"typename: unknown type character {char!r}; NumPy's table has "
                         "'?bBhHiIlLqQfdgFDGSUVO'") from None


def isscalar(element) -> bool:
    """``isscalar(element)``: whether ``element`` is a scalar (a Python or NumPy number,
    bool, string or bytes), as NumPy's: arrays, 0-d ones too, are not.

    Examples:
        >>> import rocarray as ra
        >>> ra.isscalar(3.0), ra.isscalar(ra.asarray(3.0))
        (True, False)
    """
    return np.isscalar(element)


def iterable(y) -> bool:
    """``iterable(y)``: whether ``y`` can be iterated over (a 0-d array cannot), as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.iterable([1, 2]), ra.iterable(ra.asarray(1))
        (True, False)
    """
    try:
        iter(y)
    except TypeError:
        return False
    return True
