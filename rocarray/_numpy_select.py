"""NumPy's selection, placement, partial-sort and set-routine names, with NumPy's
signatures, on the device: ``isin``, ``intersect1d``, ``union1d``, ``setdiff1d``,
``setxor1d``, ``ediff1d``, ``put``, ``put_along_axis``, ``place``, ``putmask``,
``compress``, ``extract``, ``choose``, ``partition``, ``argpartition``, ``lexsort`` and
``take``'s ``mode``s (``_take_mode``, for ``_numpy_methods.np_take``).

Each is a few of the standard's functions (the radix sort, the searches, the gathers and
puts through index arrays, the masks), so each runs where its arrays are.  Where they
differ from NumPy: the set routines keep each NaN a distinct value (as rocarray's
``unique``: NumPy's ``equal_nan=True`` merges them); ``partition`` and ``argpartition``
sort the whole axis (which meets their contract, at a sort's cost); ``kind=`` and
``assume_unique=`` are hints that change nothing but ``setdiff1d``'s order."""

from __future__ import annotations

import builtins
import operator

import numpy as np

from . import _dtypes
from ._array_object import Array, _check_same_device
from ._advanced_indexing import check_bounds
from ._creation_functions import arange, asarray, copy_into
from ._data_type_functions import astype
from ._elementwise_functions import clip, remainder, subtract, where
from ._indexing_functions import nonzero, take, take_along_axis
from ._manipulation_functions import concat, reshape, stack
from ._numpy_names import _as_array, _operands, ravel, unravel_index
from ._set_functions import isin as _isin, unique_all, unique_values
from ._sorting_functions import argsort, sort
from ._statistical_functions import any as _any, count_nonzero
from ._views import broadcast_arrays, normalize_axes

_MODES = ("raise", "wrap", "clip")


def _take_mode(idx: Array, n: int, mode: str, name: str) -> Array:
    """``idx`` (integers) for an axis of ``n`` under NumPy's ``mode``: as it is ('raise': the
    take checks it), wrapped into ``[0, n)`` ('wrap') or clipped to it ('clip': negative
    indices become 0, as NumPy's)."""
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be one of {_MODES}, not {mode!r}")
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{name}: indices must be integers, not {idx.dtype}")
    if mode == "raise" or idx.size == 0:
        return idx
    if n == 0:
        raise IndexError(f"{name}: cannot take from an empty axis")
    idx = astype(idx, _dtypes.int64, copy=False)
    return remainder(idx, n) if mode == "wrap" else clip(idx, 0, n - 1)


# -- set routines ------------------------------------------------------------------------------

def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None) -> Array:
    """``isin(element, test_elements, assume_unique=False, invert=False, *, kind=None)``:
    whether each element of ``element`` is among ``test_elements`` (flattened), a bool
    array of ``element``'s shape; ``kind`` ('sort' or 'table') and ``assume_unique`` are
    hints (rocarray picks its own way).  It serves ``numpy.isin`` on rocarray arrays
    (``rocarray.isin`` is the standard's, ``isin(x1, x2, /, *, invert=False)``).

    Examples:
        >>> import numpy as np, rocarray as ra
        >>> np.isin(ra.asarray([[1, 2], [3, 4]]), [4, 2])
        array([[False,  True],
               [False,  True]])
    """
    if kind not in (None, "sort", "table"):
        raise ValueError(f"isin: kind must be None, 'sort' or 'table', not {kind!r}")
    x, t = _operands("isin", element, test_elements)
    return _isin(x, ravel(t), invert=builtins.bool(invert))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """``intersect1d(ar1, ar2, assume_unique=False, return_indices=False)``: the sorted
    distinct values found in both (flattened) arrays, and with ``return_indices`` the
    first index of each in ``ar1`` and in ``ar2``.

    Examples:
        >>> import rocarray as ra
        >>> ra.intersect1d(ra.asarray([1, 3, 4, 3]), [3, 1, 2, 1])
        array([1, 3])
    """
    x, y = _operands("intersect1d", ar1, ar2)
    ux, uy = unique_all(ravel(x)), unique_all(ravel(y))
    # (both sorted and distinct: the common values come in the same order in both)
    in_x, in_y = _isin(ux.values, uy.values), _isin(uy.values, ux.values)
    values = ux.values[in_x]
    if not return_indices:
        return values
    return values, ux.indices[in_x], uy.indices[in_y]


def union1d(ar1, ar2) -> Array:
    """``union1d(ar1, ar2)``: the sorted distinct values of either (flattened) array.

    Examples:
        >>> import rocarray as ra
        >>> ra.union1d(ra.asarray([-1, 0, 1]), [-2, 0, 2])
        array([-2, -1,  0,  1,  2])
    """
    x, y = _operands("union1d", ar1, ar2)
    return unique_values(concat([ravel(x), ravel(y)]))


def setdiff1d(ar1, ar2, assume_unique=False) -> Array:
    """``setdiff1d(ar1, ar2, assume_unique=False)``: the sorted distinct values of ``ar1``
    not in ``ar2`` (with ``assume_unique``, ``ar1``'s values not in ``ar2`` in their order,
    as NumPy's).

    Examples:
        >>> import rocarray as ra
        >>> ra.setdiff1d(ra.asarray([1, 2, 3, 2, 4, 1]), [3, 4, 5, 6])
        array([1, 2])
    """
    x, y = _operands("setdiff1d", ar1, ar2)
    v = ravel(x) if assume_unique else unique_values(ravel(x))
    return v[_isin(v, ravel(y), invert=True)]


def setxor1d(ar1, ar2, assume_unique=False) -> Array:
    """``setxor1d(ar1, ar2, assume_unique=False)``: the sorted distinct values in exactly
    one of the (flattened) arrays.

    Examples:
        >>> import rocarray as ra
        >>> ra.setxor1d(ra.asarray([1, 2, 3, 2, 4]), [2, 3, 5, 7, 5])
        array([1, 4, 5, 7])
    """
    x, y = _operands("setxor1d", ar1, ar2)
    ux, uy = unique_values(ravel(x)), unique_values(ravel(y))
    return sort(concat([ux[_isin(ux, uy, invert=True)], uy[_isin(uy, ux, invert=True)]]))


def ediff1d(ary, to_end=None, to_begin=None) -> Array:
    """``ediff1d(ary, to_end=None, to_begin=None)``: the differences of consecutive
    elements of the flattened ``ary`` (of its dtype), with ``to_begin`` before them and
    ``to_end`` after (each cast to that dtype, which NumPy's ``same_kind`` rule must allow).

    Examples:
        >>> import rocarray as ra
        >>> ra.ediff1d(ra.asarray([1, 2, 4, 7]), to_begin=-99)
        array([-99,   1,   2,   3])
    """
    d = ravel(_as_array(ary, "ediff1d"))
    parts = [subtract(d[1:], d[:-1]) if d.shape[0] > 1 else d[:0]]
    for what, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            continue
        e = ravel(_as_array(extra, "ediff1d", d.device))
        if not np.can_cast(e.dtype, d.dtype, casting="same_kind"):
            raise TypeError(f"ediff1d: {what} of dtype {e.dtype} cannot be cast to {d.dtype} under the "
                            "'same_kind' rule")
        e = astype(e, d.dtype, copy=False)
        parts.insert(0, e) if what == "to_begin" else parts.append(e)
    return parts[0] if len(parts) == 1 else concat(parts)


# -- placement ------------------------------------------------------------------------------

def _cycled(vals: Array, n: int, dtype) -> Array:
    """The first ``n`` values of ``vals`` (flattened, cast to ``dtype``) repeated as often as
    needed (NumPy's ``put``, ``place``, ``putmask``)."""
    v = astype(ravel(vals), dtype, copy=False)
    if v.shape[0] == n:
        return v
    return take(v, remainder(arange(n, dtype=_dtypes.int64, device=v.device), v.shape[0]), axis=0)


def _values(name: str, target: Array, values) -> Array:
    """``values`` as an array on ``target``'s device (NumPy's casting to ``target``'s dtype
    follows, in ``_cycled``)."""
    v = _as_array(values, name, target.device)
    _check_same_device(name, target, v)
    if v.dtype.kind == "c" and target.dtype.kind != "c":
        raise TypeError(f"{name}: cannot cast complex values to {target.dtype}")
    return v


def _write_flat(a: Array, positions: Array, vals: Array) -> None:
    """``a.flat[positions] = vals`` (``positions`` in ``[-a.size, a.size)``, any of ``a``'s
    layouts)."""
    if a.is_c_contiguous():
        reshape(a, (-1,))[positions] = vals
    else:
        if positions.dtype.kind == "i":
            positions = where(positions < 0, positions + a.size, positions)
        a[unravel_index(positions, a.shape)] = vals


def _target(name: str, a) -> Array:
    if not isinstance(a, Array):
        raise TypeError(f"{name}: the array written must be a rocarray array, not {type(a).__name__}")
    a._check_writable(f"{name}'s array")
    return a


def put(a, ind, v, mode="raise") -> None:
    """``put(a, ind, v, mode='raise')``: ``a.flat[ind] = v`` in place, ``v`` repeated where it
    is shorter than ``ind``; ``mode`` 'wrap' or 'clip' bring indices into range (else an
    out-of-range index is an ``IndexError`` and nothing is written).  Of equal indices
    (which 'wrap' and 'clip' can make) the last value lands on the host, as in NumPy; on a
    GPU which one is unspecified, as for ``x[idx] = v`` (docs/indexing.md).

    Examples:
        >>> import rocarray as ra
        >>> a = ra.arange(5)
        >>> ra.put(a, [0, 2], [-44, -55])
        >>> a
        array([-44,   1, -55,   3,   4])
    """
    a = _target("put", a)
    idx = ravel(_as_array(ind, "put", a.device))
    if idx.shape[0] == 0:
        return
    idx = _take_mode(idx, a.size, mode, "put")
    vals = _values("put", a, v)
    if vals.size == 0:
        return  # (NumPy writes nothing from no values)
    if not a.is_c_contiguous():
        # (NumPy's IndexError before anything is written: ``unravel_index`` would not
        # raise it; a C-contiguous ``a`` takes the flat put, which checks its indices)
        check_bounds(idx, a.size, 0)
    _write_flat(a, idx, _cycled(vals, idx.shape[0], a.dtype))


def place(arr, mask, vals) -> None:
    """``place(arr, mask, vals)``: the elements of ``arr`` where ``mask`` (of ``arr``'s size)
    holds take ``vals`` in order, repeated as needed, in place.

    Examples:
        >>> import rocarray as ra
        >>> a = ra.arange(6)
        >>> ra.place(a, a > 2, [44, 55])
        >>> a
        array([ 0,  1,  2, 44, 55, 44])
    """
    arr = _target("place", arr)
    m = ravel(_as_array(mask, "place", arr.device))
    if m.size != arr.size:
        raise ValueError(f"place: mask and data must be the same size ({m.size} and {arr.size})")
    m = m if m.dtype == _dtypes.bool else m != 0
    n = int(count_nonzero(m))
    vals = _values("place", arr, vals)
    if n == 0:
        return
    if vals.size == 0:
        raise ValueError("place: cannot insert from an empty array")
    _write_flat(arr, nonzero(m)[0], _cycled(vals, n, arr.dtype))


def putmask(a, mask, values) -> None:
    """``putmask(a, mask, values)``: ``a.flat[n] = values.flat[n % values.size]`` wherever
    ``mask.flat[n]`` holds, in place (``mask`` of ``a``'s size).

    Examples:
        >>> import rocarray as ra
        >>> a = ra.arange(6)
        >>> ra.putmask(a, a > 2, ra.asarray([10, 20]))
        >>> a
        array([ 0,  1,  2, 20, 10, 20])
    """
    a = _target("putmask", a)
    m = _as_array(mask, "putmask", a.device)
    if m.size != a.size:
        raise ValueError(f"putmask: mask and data must be the same size ({m.size} and {a.size})")
    vals = _values("putmask", a, values)
    if vals.size == 0 or a.size == 0:
        return
    m = reshape(m if m.dtype == _dtypes.bool else m != 0, a.shape)
    copy_into(a, where(m, reshape(_cycled(vals, a.size, a.dtype), a.shape), a))


def put_along_axis(arr, indices, values, axis) -> None:
    """``put_along_axis(arr, indices, values, axis)``: ``take_along_axis``'s reverse, in
    place: ``arr[..., indices[..., j, ...], ...] = values[..., j, ...]`` along ``axis`` (the
    flattened ``arr`` when None), the other axes broadcast.

    Examples:
        >>> import rocarray as ra
        >>> a = ra.asarray([[10, 30, 20], [60, 40, 50]])
        >>> ra.put_along_axis(a, ra.asarray([[1], [0]]), 99, axis=1)
        >>> a
        array([[10, 99, 20],
               [99, 40, 50]])
    """
    arr = _target("put_along_axis", arr)
    idx = _as_array(indices, "put_along_axis", arr.device)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"put_along_axis: indices must be integers, not {idx.dtype}")
    target = arr
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("put_along_axis: with axis=None the indices must be 1-D")
        if not arr.is_c_contiguous():
            raise ValueError("put_along_axis: axis=None writes the flattened array, which needs a C-contiguous "
                             "array here")
        target, ax = reshape(arr, (-1,)), 0
    else:
        if isinstance(axis, builtins.bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"put_along_axis: axis must be an int or None, not {type(axis).__name__}")
        (ax,) = normalize_axes(operator.index(axis), arr.ndim, "put_along_axis")
    if idx.ndim != target.ndim:
        raise ValueError(f"put_along_axis: indices ({idx.ndim}-D) must have as many dimensions as the array "
                         f"({target.ndim}-D)")
    key = []
    for d in range(target.ndim):
        if d == ax:
            key.append(idx)
        else:
            shape = [1] * target.ndim
            shape[d] = target.shape[d]
            key.append(reshape(arange(target.shape[d], device=arr.device), tuple(shape)))
    target[tuple(key)] = values


# -- selection ------------------------------------------------------------------------------

def compress(condition, a, axis=None, out=None) -> Array:
    """``compress(condition, a, axis=None, out=None)``: the slices of ``a`` along ``axis``
    (the flattened ``a`` when None) where the 1-D ``condition`` holds (a shorter
    ``condition`` leaves the rest out).

    Examples:
        >>> import rocarray as ra
        >>> ra.compress([False, True, True], ra.asarray([[1, 2], [3, 4], [5, 6]]), axis=0)
        array([[3, 4],
               [5, 6]])
    """
    if out is not None:
        raise TypeError("compress: out= is not supported")
    x = _as_array(a, "compress")
    c = _as_array(condition, "compress", x.device)
    if c.ndim != 1:
        raise ValueError(f"compress: condition must be 1-D, not {c.ndim}-D")
    if axis is None:
        x, axis = ravel(x), 0
    (ax,) = normalize_axes(operator.index(axis), x.ndim, "compress")
    return take(x, nonzero(c)[0], axis=ax)


def extract(condition, arr) -> Array:
    """``extract(condition, arr)``: the elements of the flattened ``arr`` where the
    flattened ``condition`` is non-zero.

    Examples:
        >>> import rocarray as ra
        >>> a = ra.arange(6)
        >>> ra.extract(a % 2 == 0, a)
        array([0, 2, 4])
    """
    x = ravel(_as_array(arr, "extract"))
    return take(x, nonzero(ravel(_as_array(condition, "extract", x.device)))[0], axis=0)


def choose(a, choices, out=None, mode="raise") -> Array:
    """``choose(a, choices, out=None, mode='raise')``: at each place, the element of the
    choice ``a`` names there (``a`` and every choice broadcast together); with 'raise' an
    entry outside ``[0, len(choices))`` is a ``ValueError``, 'wrap' and 'clip' bring it in.

    Examples:
        >>> import rocarray as ra
        >>> ra.choose(ra.asarray([0, 1, 1]), [ra.asarray([1, 2, 3]), ra.asarray([10, 20, 30])])
        array([ 1, 20, 30])
    """
    if out is not None:
        raise TypeError("choose: out= is not supported")
    idx = _as_array(a, "choose")
    options = list(choices) if not isinstance(choices, Array) else [choices[i] for i in range(choices.shape[0])]
    if not options:
        raise ValueError("choose: choices must not be empty")
    options = [_as_array(c, "choose", idx.device) for c in options]
    for c in options:
        _check_same_device("choose", idx, c)
    n = len(options)
    idx = _take_mode(idx, n, mode, "choose")
    if mode == "raise" and idx.size and bool(_any((idx < 0) | (idx >= n))):
        raise ValueError(f"choose: invalid entry in the choice array (entries must be in [0, {n}))")
    idx, *options = broadcast_arrays(idx, *options)
    dt = _dtypes.result_type(*(c.dtype for c in options))
    stacked = stack([astype(c, dt, copy=False) for c in options], axis=0)
    return take_along_axis(stacked, reshape(astype(idx, _dtypes.int64, copy=False), (1,) + idx.shape), axis=0)[0]


# -- partial sorts ----------------------------------------------------------------------------

def _partition(name: str, sorting, a, kth, axis, kind, order):
    if order is not None:
        raise TypeError(f"{name}: order= (structured arrays) is not supported")
    if kind not in ("introselect", None):
        raise ValueError(f"{name}: kind must be 'introselect', not {kind!r}")
    x = _as_array(a, name)
    if axis is None:
        x, axis = ravel(x), -1
    if x.ndim == 0:
        raise ValueError(f"{name}: a 0-d array cannot be partitioned")
    (ax,) = normalize_axes(operator.index(axis), x.ndim, name)
    n = x.shape[ax]
    ks = [kth] if isinstance(kth, (int, np.integer)) else list(kth.tolist() if isinstance(kth, Array) else kth)
    for k in ks:
        if isinstance(k, builtins.bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"{name}: kth must be integers, not {type(k).__name__}")
        if not -n <= k < n:
            raise ValueError(f"{name}: kth(={k}) out of bounds ({n})")
    return sorting(x, axis=ax)


def partition(a, kth, axis=-1, kind="introselect", order=None) -> Array:
    """``partition(a, kth, axis=-1, kind='introselect', order=None)``: ``a`` with the
    element of each ``kth`` place where a sort would put it, the smaller ones before and
    the larger after; rocarray sorts the whole axis (which meets that, at a sort's cost).

    Examples:
        >>> import rocarray as ra
        >>> ra.partition(ra.asarray([3, 4, 2, 1]), 2)[2]
        array(3)
    """
    return _partition("partition", sort, a, kth, axis, kind, order)


def argpartition(a, kth, axis=-1, kind="introselect", order=None) -> Array:
    """``argpartition(a, kth, axis=-1, kind='introselect', order=None)``: the indices that
    partition ``a`` (as ``partition``: a stable ``argsort``).

    Examples:
        >>> import rocarray as ra
        >>> ra.argpartition(ra.asarray([3, 4, 2, 1]), 1)
        array([3, 2, 0, 1])
    """
    return _partition("argpartition", argsort, a, kth, axis, kind, order)


def lexsort(keys, axis=-1) -> Array:
    """``lexsort(keys, axis=-1)``: the indices that sort by several keys along ``axis``,
    the last key first, ties broken by the key before it (a stable ``argsort`` per key,
    from the first key to the last).

    Examples:
        >>> import rocarray as ra
        >>> surnames = ra.asarray([2, 1, 2, 1])
        >>> first = ra.asarray([1, 2, 0, 1])
        >>> ra.lexsort((first, surnames))
        array([3, 1, 2, 0])
    """
    ks = [keys[i] for i in range(keys.shape[0])] if isinstance(keys, Array) else list(keys)
    if not ks:
        raise TypeError("lexsort: keys must be a sequence of at least one key")
    dev = next((k.device for k in ks if isinstance(k, Array)), None)
    ks = [_as_array(k, "lexsort", dev) for k in ks]
    for k in ks[1:]:
        _check_same_device("lexsort", ks[0], k)
        if k.shape != ks[0].shape:
            raise ValueError(f"lexsort: all keys must have one shape, not {ks[0].shape} and {k.shape}")
    if ks[0].ndim == 0:
        return asarray(0, dtype=_dtypes.int64, device=ks[0].device)  # (one element: NumPy's 0)
    (ax,) = normalize_axes(operator.index(axis), ks[0].ndim, "lexsort")
    order = argsort(ks[0], axis=ax)
    for k in ks[1:]:
        order = take_along_axis(order, argsort(take_along_axis(k, order, axis=ax), axis=ax), axis=ax)
    return order
