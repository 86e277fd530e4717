"""Basic indexing: integers, slices (any step), ``...`` and ``None`` give views.

Each index is checked against its axis: an integer out of range raises ``IndexError``
naming the axis and its size.  Array (advanced) indices are not supported yet and say so.
"""

from __future__ import annotations

import operator

from ._array_object import Array


def _normalize_key(key, ndim: int):
    if not isinstance(key, tuple):
        key = (key,)
    n_ellipsis = 0
    n_axes = 0
    for k in key:
        if k is Ellipsis:
            n_ellipsis += 1
        elif k is None:
            pass
        elif isinstance(k, bool):
            raise IndexError(
                "boolean scalar indices are not supported; use an integer, a slice, ..., or None"
            )
        else:
            n_axes += 1
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_axes > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {n_axes} were indexed"
        )
    if n_ellipsis == 0:
        key = key + (Ellipsis,)
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (ndim - n_axes))
        else:
            out.append(k)
    return out


def _as_int(k):
    if isinstance(k, Array):
        if k.dtype.kind not in "iu" or k.ndim != 0:
            raise IndexError(
                f"array indices (shape {k.shape}, dtype {k.dtype}) are not supported yet; "
                "only integers, slices, ..., None and 0-d integer arrays are"
            )
        return int(k)
    try:
        return operator.index(k)
    except TypeError:
        raise IndexError(
            f"only integers, slices (':'), ellipsis ('...') and None are valid indices; "
            f"got {type(k).__name__}"
        ) from None


def view_for_key(x: Array, key) -> Array:
    """The view ``x[key]`` for a basic index ``key``."""
    items = _normalize_key(key, x.ndim)
    shape = []
    strides = []
    offset = x._offset
    axis = 0
    for k in items:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        size = x._shape[axis]
        stride = x._strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(size)
            n = len(range(start, stop, step))
            if n > 0:
                offset += start * stride
            shape.append(n)
            strides.append(stride * step)
        else:
            i = _as_int(k)
            if not -size <= i < size:
                raise IndexError(
                    f"index {i} is out of bounds for axis {axis} with size {size}"
                )
            if i < 0:
                i += size
            offset += i * stride
        axis += 1
    return x._view(tuple(shape), tuple(strides), offset)


def getitem(x: Array, key) -> Array:
    return view_for_key(x, key)


def setitem(x: Array, key, value) -> None:
    if x._buf.readonly:
        raise ValueError("assignment destination is read-only")
    dst = view_for_key(x, key)
    from ._transfer import copy_into

    copy_into(dst, value)
