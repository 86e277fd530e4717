"""Basic indexing: integers, slices (any step), ``...`` and ``None`` give views.

Each index is checked against its axis: an integer out of range raises ``IndexError``
naming the axis and its size.  Integer arrays and boolean masks (advanced indexing, NumPy's
and the 2024.12 standard's rules) are parsed here and gathered / scattered on the device by
``rocarray._advanced_indexing`` and ``rocarray._masks``.  Installs ``Array.__getitem__`` and
``__setitem__``.
"""

from __future__ import annotations

import operator

import numpy as np

from ._advanced_indexing import Index, gather, put_axis, scatter, take_axis
from ._masks import flat_true, mask_assign, select
from ._array_object import Array
from ._creation_functions import asarray, copy_into
from ._transfer import check_scalar_fits


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


# -- advanced indexing (integer arrays, boolean masks) ------------------------------------------

def _as_index_array(k, device):
    """An array index as a rocarray array (lists and NumPy arrays are converted, as CuPy does),
    or None when ``k`` is not an array index."""
    if isinstance(k, Array):
        if k.device is not device:
            raise IndexError(f"an index array on {k.device} cannot index an array on {device}; "
                             "move it with .to_device() first")
        a = k
    elif isinstance(k, (list, np.ndarray)):
        a = asarray(np.asarray(k), device=device)
        if a.size == 0 and a.dtype.kind == "f":  # [] -> an empty integer index, as NumPy
            a = a.astype(np.int64)
    else:
        return None
    kind = a.dtype.kind
    if kind == "b":
        return a
    if kind in "iu":
        return a
    raise IndexError(f"arrays used as indices must be of integer or boolean type, not {a.dtype}")


def _is_advanced(key) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    for k in items:
        if isinstance(k, bool):
            return True
        if isinstance(k, Array):
            if k.ndim != 0 or k.dtype.kind == "b":
                return True
        elif isinstance(k, (list, np.ndarray)):
            return True
    return False


def _parse_advanced(x: Array, key):
    """Split ``key`` into a basic key for a view and the advanced indices of that view.
    Returns (view key, [Index], placement p or None)."""
    items = list(key) if isinstance(key, tuple) else [key]
    dev = x.device
    parsed = []  # (kind, payload): 'basic' k, 'array' a, 'mask' a, 'bool' value
    n_axes = 0
    n_ellipsis = 0
    for k in items:
        if k is Ellipsis:
            n_ellipsis += 1
            parsed.append(("ellipsis", k))
            continue
        if k is None or isinstance(k, slice):
            parsed.append(("basic", k))
            n_axes += k is not None
            continue
        if isinstance(k, (bool, np.bool_)):
            parsed.append(("bool", bool(k)))
            continue
        a = _as_index_array(k, dev)
        if a is None:
            parsed.append(("int", _as_int(k)))
            n_axes += 1
        elif a.dtype.kind == "b":
            if a.ndim == 0:
                parsed.append(("bool", bool(a)))
            else:
                parsed.append(("mask", a))
                n_axes += a.ndim
        elif a.ndim == 0:
            parsed.append(("int", _as_int(a)))
            n_axes += 1
        else:
            parsed.append(("array", a))
            n_axes += 1
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_axes > x.ndim:
        raise IndexError(
            f"too many indices for array: array is {x.ndim}-dimensional, but {n_axes} were indexed"
        )
    if n_ellipsis == 0:
        parsed.append(("ellipsis", Ellipsis))
    has_arrays = any(kind in ("array", "mask", "bool") for kind, _ in parsed)
    view_key = []
    indices = []
    positions = []  # key positions of the advanced items
    first_p = None
    v_axes = 0  # axes of the view made so far
    x_axis = 0  # axes of x consumed so far
    for pos, (kind, k) in enumerate(parsed):
        if kind == "ellipsis":
            n = x.ndim - n_axes
            view_key.extend([slice(None)] * n)
            v_axes += n
            x_axis += n
        elif kind == "basic":
            view_key.append(k)
            v_axes += 1
            x_axis += k is not None
        elif kind == "int":
            view_key.append(k)
            x_axis += 1
            if has_arrays:
                positions.append(pos)
                if first_p is None:
                    first_p = v_axes
        elif kind == "bool":
            # a 0-d boolean index: a new axis of length 1 (True) or 0 (False)
            view_key.append(None)
            positions.append(pos)
            if first_p is None:
                first_p = v_axes
            idx = Array._empty((1 if k else 0,), np.dtype(np.int64), dev)
            if k:
                copy_into(idx, 0)
            indices.append(Index(v_axes, 1, idx, "flat"))
            v_axes += 1
        elif kind == "array":
            view_key.append(slice(None))
            positions.append(pos)
            if first_p is None:
                first_p = v_axes
            indices.append(Index(v_axes, 1, k, "int"))
            v_axes += 1
            x_axis += 1
        else:  # mask
            for d in range(k.ndim):
                xs = x.shape[x_axis + d]
                if k.shape[d] != xs and k.shape[d] != 0:
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {x_axis + d}; "
                        f"size of axis is {xs} but size of corresponding boolean axis is {k.shape[d]}")
            positions.append(pos)
            if first_p is None:
                first_p = v_axes
            if any(s == 0 for s in k.shape):
                # no element is selected: index the (zero-length) view of those axes
                view_key.extend(slice(0, 0) for _ in range(k.ndim))
            else:
                view_key.extend(slice(None) for _ in range(k.ndim))
            indices.append(Index(v_axes, k.ndim, flat_true(k), "flat"))
            v_axes += k.ndim
            x_axis += k.ndim
    if not indices:
        return view_key, [], None
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    return view_key, indices, (first_p if adjacent else None)


_BOOL = np.dtype(np.bool_)


def _whole_mask(x: Array, key) -> "Array | None":
    """``key`` when it is one boolean array of ``x``'s shape on ``x``'s device (the common
    ``x[x > 0]``, served by one compaction), else None."""
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, Array) and key._dtype == _BOOL and key._shape == x._shape and x.ndim \
            and key._buf.device is x._buf.device:
        return key
    return None


def getitem(x: Array, key) -> Array:
    if isinstance(key, Array) and key._dtype.kind in "iu" and key._shape and x._shape \
            and key._buf.device is x._buf.device:
        return take_axis(x, key, 0)  # (``x[idx]``, the common gather: nothing to parse)
    if not _is_advanced(key):
        return view_for_key(x, key)
    mask = _whole_mask(x, key)
    if mask is not None:
        return select(x, mask)
    view_key, indices, p = _parse_advanced(x, key)
    v = view_for_key(x, tuple(view_key))
    if not indices:
        return v
    return gather(v, indices, p)


def _value_array(x: Array, value) -> Array:
    """``value`` as an array of ``x``'s dtype on ``x``'s device (NumPy's casting for setitem)."""
    if isinstance(value, Array):
        if value.device is not x.device:
            raise TypeError(f"cannot assign an array on {value.device} into an array on "
                            f"{x.device}; move it with .to_device() first")
        return value if value.dtype == x.dtype else value.astype(x.dtype)
    if isinstance(value, (bool, int, float, complex, np.generic)):
        check_scalar_fits(value, x.dtype)
        return asarray(value, dtype=x.dtype, device=x.device)
    a = asarray(value, device=x.device)
    return a if a.dtype == x.dtype else a.astype(x.dtype)


def setitem(x: Array, key, value) -> None:
    x._check_writable("assignment destination")
    if isinstance(key, Array) and key._dtype.kind in "iu" and key._shape and x._shape \
            and key._buf.device is x._buf.device and not any(st % x._dtype.itemsize for st in x._strides):
        put_axis(x, key, 0, 0, _value_array(x, value))  # (``x[idx] = v``: nothing to parse)
        return
    if _is_advanced(key):
        mask = _whole_mask(x, key)
        if mask is not None:
            mask_assign(x, mask, _value_array(x, value))
            return
        view_key, indices, p = _parse_advanced(x, key)
        dst = view_for_key(x, tuple(view_key))
        if indices:
            scatter(dst, indices, p, _value_array(x, value))
            return
    else:
        dst = view_for_key(x, key)
    copy_into(dst, value)


Array.__getitem__ = getitem
Array.__setitem__ = setitem
