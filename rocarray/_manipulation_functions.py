"""The spec's manipulation functions: views where the layout allows (``rocarray._views``,
re-exported here), copies where it does not.  Installs ``reshape``, ``ravel``, ``flatten``.

concat, stack, roll, repeat and tile write into a new array through the device's copy
kernel (one launch per input piece; repeat and tile copy one broadcast view), except that a
GPU joins contiguous inputs of the result's dtype along its first axis with one launch for
several of them (``_gather_gpu.join_copy``); repeat with
per-element counts runs one gather kernel; diff is slices and ``subtract``.  Nothing is
computed on the host but output shapes (for repeat, from the counts read back)."""

from __future__ import annotations

import itertools
from builtins import max as builtins_max, sum as builtins_sum

import numpy as np

from ._array_object import Array, _c_strides, _check_same_device, _prod
from ._copy import contiguous
from ._creation_functions import asarray
from ._dtypes import result_type
from ._elementwise import copy_elements
from ._elementwise_functions import not_equal, subtract
from ._gather_gpu import join_copy
from ._user_kernels import ElementwiseKernel
from ._views import _axis_index, _axis_slice, _check_array, _normalize_axis, _nocopy_reshape, _resolve_shape, as_int
# (the spec's manipulation functions that are views: the namespace takes them from here)
from ._views import (broadcast_arrays, broadcast_shapes, broadcast_to, expand_dims, flip,  # noqa: F401
                     matrix_transpose, moveaxis, permute_dims, squeeze, unstack)


def reshape(x: Array, /, shape, *, copy=None) -> Array:
    """``x`` with a new shape of the same size: a view where the layout allows one.

    Args:
        x: an array.
        shape: an int or a tuple of ints; one may be -1 (inferred from the size).
        copy: None copies only when a view is impossible, True always copies, False never does
            (``ValueError`` when the layout cannot be viewed in the new shape).

    Raises:
        ValueError: the sizes differ, more than one -1, or ``copy=False`` needing a copy.

    Examples:
        >>> import rocarray as ra
        >>> ra.reshape(ra.arange(6), (2, -1))
        array([[0, 1, 2],
               [3, 4, 5]])
    """
    if copy is None and type(shape) is tuple and type(x) is Array and x.is_c_contiguous():
        # (the common case, checked in one pass: C-contiguous to a tuple of sizes, a view)
        n = 1
        for d in shape:
            if type(d) is not int or d < 0:
                break
            n *= d
        else:
            if n == x._size:
                return Array._new(x._buf, shape, _c_strides(shape, x._dtype.itemsize), x._offset, x._dtype)
    newshape = _resolve_shape(shape, x.size)
    if copy not in (None, True, False):
        raise ValueError(f"reshape: copy must be True, False or None, not {copy!r}")
    if copy is not True:
        if x.size == 0 or x.size == 1:
            strides = _c_strides(newshape, x.itemsize)
        else:
            strides = _nocopy_reshape(x.shape, x.strides, newshape)
        if strides is not None:
            return x._view(newshape, strides, x._offset)
        if copy is False:
            raise ValueError(
                f"reshape: shape {x.shape} with strides {x.strides} cannot be viewed as "
                f"{newshape} without a copy, but copy=False"
            )
    src = contiguous(x)
    if src is x:
        out = Array._empty(x.shape, x.dtype, x.device)
        copy_elements(x, out)
        src = out
    return src._view(newshape, _c_strides(newshape, x.itemsize), src._offset)


# -- joining, splitting, reordering, repeating (views where possible, else one copy kernel) --


def _check_sequence(arrays, fname: str) -> list:
    if isinstance(arrays, Array) or not isinstance(arrays, (tuple, list)):
        raise TypeError(
            f"{fname}: arrays must be a tuple or list of rocarray arrays, not {type(arrays).__name__}"
        )
    if not arrays:
        raise ValueError(f"{fname}: need at least one array")
    for i, a in enumerate(arrays):
        _check_array(a, fname, f"arrays[{i}]")
    _check_same_device(fname, *arrays)
    return list(arrays)


def _copy(src: Array, dst: Array) -> None:
    """dst[...] = src (same shape, casting), skipped when empty."""
    if dst.size:
        copy_elements(src, dst)


def _joins_runs(device, size: int) -> bool:
    """Whether a join of ``size`` elements on ``device`` copies runs of bytes
    (``_joined_runs``): on a GPU always, on the host below the size its launches split
    across threads (larger, the copy kernel's threads are faster than one ``memmove``)."""
    return device.kind != "cpu" or size < device.runtime.parallel_threshold


def _joined_runs(arrays: list, out: Array, checked: bool = False) -> bool:
    """Fill the new, C-contiguous ``out`` with the C-contiguous ``arrays`` of its dtype one
    after another (a concatenation along the first axis or flattened, a stack along a new
    first axis).  On a GPU: one kernel launch for up to ``JOIN_PIECES`` arrays
    (``_gather_gpu.join_copy``); while its module is still compiling in the background (a
    process's first joins), the driver's device copy of each array instead (one run of
    bytes each, no kernel and little host time).  On the host, below the size its launches
    split across threads: one ``memmove`` each, no kernel.  False, doing nothing, where
    they are not all such arrays, or the host's join is larger (``checked``: the caller
    knows they are such arrays)."""
    dev = out.device
    if not _joins_runs(dev, out._size):
        return False
    if not checked and any(a._dtype != out._dtype or not a.is_c_contiguous() for a in arrays):
        return False
    if dev.kind != "cpu" and join_copy(arrays, out):
        return True
    rt, itemsize = dev.runtime, out._dtype.itemsize
    at = out._buf.ptr + out._offset
    for a in arrays:
        if a._size:
            rt.copy_device_to_device(dev.index, at, a._buf.ptr + a._offset, a._size * itemsize)
            at += a._size * itemsize
    return True


def _quick_join(arrays, stacked: bool) -> "Array | None":
    """``concat`` along the first axis (``stack`` along a new first axis, ``stacked``) of
    C-contiguous arrays of one dtype on one device, each of the shape the join needs,
    checked and done at once (``_joined_runs``); None, doing nothing, for any other input
    (the general path then checks it and says what is wrong) or a host join that
    ``_joined_runs`` leaves to the copy kernel."""
    if type(arrays) not in (list, tuple) or not arrays:
        return None
    first = arrays[0]
    if type(first) is not Array:
        return None
    buf, dt, shape = first._buf, first._dtype, first._shape
    if not (stacked or shape):
        return None
    total = 0
    for a in arrays:
        if type(a) is not Array or a._dtype != dt or a._buf.device is not buf.device or not a.is_c_contiguous():
            return None
        s = a._shape
        if stacked:
            if s != shape:
                return None
        elif len(s) != len(shape) or s[1:] != shape[1:]:
            return None
        else:
            total += s[0]
    out_shape = (len(arrays),) + shape if stacked else (total,) + shape[1:]
    dev = buf.device
    if not _joins_runs(dev, _prod(out_shape)):
        return None
    out = Array._empty(out_shape, dt, dev)
    _joined_runs(arrays, out, True)
    return out


def _shapes_text(arrays) -> str:
    return ", ".join(str(a.shape) for a in arrays)


def concat(arrays, /, *, axis=0) -> Array:
    """Join arrays along an existing axis (``axis=None``: flattened, in C order).  The
    result has the promoted dtype of the inputs."""
    if axis == 0 and not isinstance(axis, bool):
        out = _quick_join(arrays, False)
        if out is not None:
            return out
    arrays = _check_sequence(arrays, "concat")
    dt = result_type(*arrays)
    dev = arrays[0].device
    if axis is None:
        total = builtins_sum(a.size for a in arrays)
        out = Array._empty((total,), dt, dev)
        if _joined_runs(arrays, out):
            return out
        pos = 0
        for a in arrays:
            piece = _axis_slice(out, 0, pos, pos + a.size)
            _copy(a, piece._view(a.shape, _c_strides(a.shape, dt.itemsize), piece._offset))
            pos += a.size
        return out
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("concat: 0-d arrays cannot be concatenated along an axis; use axis=None or stack")
    for a in arrays:
        if a.ndim != ndim:
            raise ValueError(
                f"concat: all arrays must have the same number of dimensions; got shapes {_shapes_text(arrays)}"
            )
    ax = _normalize_axis(axis, ndim, "concat")
    first = arrays[0].shape
    for a in arrays:
        if any(d != e for i, (d, e) in enumerate(zip(a.shape, first)) if i != ax):
            raise ValueError(
                f"concat: shapes {_shapes_text(arrays)} differ outside axis {ax}; all dimensions "
                f"but the concatenation axis must match"
            )
    shape = list(first)
    shape[ax] = builtins_sum(a.shape[ax] for a in arrays)
    out = Array._empty(tuple(shape), dt, dev)
    if ax == 0 and _joined_runs(arrays, out):
        return out
    pos = 0
    for a in arrays:
        n = a.shape[ax]
        _copy(a, _axis_slice(out, ax, pos, pos + n))
        pos += n
    return out


def stack(arrays, /, *, axis=0) -> Array:
    """Join arrays of one shape along a new axis (the promoted dtype of the inputs)."""
    if axis == 0 and not isinstance(axis, bool):
        out = _quick_join(arrays, True)
        if out is not None:
            return out
    arrays = _check_sequence(arrays, "stack")
    shape = arrays[0].shape
    for a in arrays:
        if a.shape != shape:
            raise ValueError(f"stack: all arrays must have the same shape; got shapes {_shapes_text(arrays)}")
    ax = _normalize_axis(axis, len(shape) + 1, "stack")
    dt = result_type(*arrays)
    out = Array._empty(shape[:ax] + (len(arrays),) + shape[ax:], dt, arrays[0].device)
    if ax == 0 and _joined_runs(arrays, out):
        return out
    for i, a in enumerate(arrays):
        _copy(a, _axis_index(out, ax, i))
    return out


def roll(x: Array, /, shift, *, axis=None) -> Array:
    """``x`` with its elements shifted by ``shift`` along ``axis`` (the flattened array if None),
    wrapping around. ``shift`` and ``axis`` may be tuples of the same length. A copy.

    Examples:
        >>> import rocarray as ra
        >>> ra.roll(ra.arange(5), 2)
        array([3, 4, 0, 1, 2])
    """
    _check_array(x, "roll")
    shift_tuple = isinstance(shift, (tuple, list))
    shifts = tuple(as_int(s, "roll", "shift") for s in shift) if shift_tuple else (as_int(shift, "roll", "shift"),)
    if axis is None:
        if shift_tuple and len(shifts) != 1:
            raise ValueError(f"roll: a tuple shift {tuple(shift)!r} needs a tuple axis of the same length")
        flat = reshape(x, (-1,))
        return reshape(roll(flat, shifts[0], axis=0), x.shape)
    axis_tuple = isinstance(axis, (tuple, list))
    axes = tuple(_normalize_axis(a, x.ndim, "roll") for a in axis) if axis_tuple else (_normalize_axis(axis, x.ndim, "roll"),)
    if shift_tuple and len(shifts) != len(axes):
        raise ValueError(
            f"roll: shift {tuple(shift)!r} and axis {tuple(axis) if axis_tuple else axis!r} must have the same length"
        )
    if not shift_tuple:
        shifts = shifts * len(axes)
    per_axis = [0] * x.ndim
    for a, s in zip(axes, shifts):  # a repeated axis rolls by the sum of its shifts (NumPy)
        per_axis[a] += s
    out = Array._empty(x.shape, x.dtype, x.device)
    if x.size == 0:
        return out
    # each axis splits into at most two runs; copy every combination of runs
    pieces = []
    for a, n in enumerate(x.shape):
        s = per_axis[a] % n
        if s == 0:
            pieces.append([(0, n, 0, n)])
        else:  # out[s:] = x[:n-s], out[:s] = x[n-s:]
            pieces.append([(s, n, 0, n - s), (0, s, n - s, n)])
    for combo in itertools.product(*pieces):
        dst, src = out, x
        for a, (d0, d1, s0, s1) in enumerate(combo):
            dst = _axis_slice(dst, a, d0, d1)
            src = _axis_slice(src, a, s0, s1)
        _copy(src, dst)
    return out


_gather_kernel = None


def _repeat_gather(x: Array, ax: int, counts, total: int) -> Array:
    """``x`` repeated ``counts[j]`` times along ``ax``: one gather kernel reads, for each
    output element, the input element its index maps to (the map along ``ax`` is built on
    the host from the counts)."""
    global _gather_kernel
    if _gather_kernel is None:
        _gather_kernel = ElementwiseKernel(
            "raw T x, raw int64 src, int64 r, int64 m, int64 b", "T y",
            "y = x[((i / (r * b)) * m + src[(i / b) % r]) * b + i % b]",
            "rocarray_repeat_gather",
        )
    shape = x.shape[:ax] + (total,) + x.shape[ax + 1:]
    b = _prod(x.shape[ax + 1:])
    size = _prod(shape)
    if size == 0:
        return Array._empty(shape, x.dtype, x.device)
    src = asarray(np.repeat(np.arange(x.shape[ax], dtype=np.int64), counts), device=x.device)
    out = Array._empty((size,), x.dtype, x.device)
    _gather_kernel(x, src, total, x.shape[ax], b, out)
    return out._view(shape, _c_strides(shape, x.itemsize), out._offset)


def repeat(x: Array, repeats, /, *, axis=None) -> Array:
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (``x`` flattened if None).

    Args:
        x: an array.
        repeats: a non-negative int, or a 1-D integer array of shape ``(1,)`` or
            ``(x.shape[axis],)``; an array's values are read back to the host, since they decide
            the shape of the result.
        axis: an int, or None.

    Raises:
        ValueError: a negative repeat or a repeats array of the wrong length.

    Examples:
        >>> import rocarray as ra
        >>> ra.repeat(ra.asarray([1, 2]), 2)
        array([1, 1, 2, 2])
    """
    _check_array(x, "repeat")
    if axis is None:
        x = reshape(x, (-1,))
        ax = 0
    else:
        if x.ndim == 0:
            raise IndexError("repeat: a 0-d array has no axis; pass axis=None")
        ax = _normalize_axis(axis, x.ndim, "repeat")
    m = x.shape[ax]
    if isinstance(repeats, Array):
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"repeat: a repeats array must have an integer dtype, not {repeats.dtype}")
        if repeats.device is not x.device:
            raise TypeError(f"repeat: repeats is on {repeats.device} but x is on {x.device}")
        if repeats.ndim > 1 or (repeats.ndim == 1 and repeats.shape[0] not in (1, m)):
            allowed = "(1,)" if m == 1 else f"(1,) or ({m},)"
            raise ValueError(
                f"repeat: a repeats array must have shape {allowed} to match axis {ax} of size "
                f"{m}; got shape {repeats.shape}"
            )
        host = repeats.get().reshape(-1)  # the output's shape depends on them: read them back
        if (host < 0).any():
            raise ValueError(f"repeat: repeats must be non-negative, got {host.min()}")
        counts = host.astype("int64")
        if counts.size == 1 or counts.size == 0:
            r = int(counts[0]) if counts.size else 0
        elif (counts == counts[0]).all():
            r = int(counts[0])
        else:
            return _repeat_gather(x, ax, counts, int(counts.sum()))
    else:
        r = as_int(repeats, "repeat", "repeats")
        if r < 0:
            raise ValueError(f"repeat: repeats must be non-negative, got {r}")
    # the same count for every element: broadcast a new axis after ax, one copy
    shape = x.shape[:ax] + (m * r,) + x.shape[ax + 1:]
    out = Array._empty(shape, x.dtype, x.device)
    wide = x.shape[:ax + 1] + (r,) + x.shape[ax + 1:]
    src = broadcast_to(expand_dims(x, axis=ax + 1), wide)
    _copy(src, out._view(wide, _c_strides(wide, x.itemsize), out._offset))
    return out


def tile(x: Array, repetitions, /) -> Array:
    """``x`` repeated ``repetitions[i]`` times along each axis; the shorter of ``x.shape`` and
    ``repetitions`` is padded with ones at the front (NumPy's ``tile``).

    Examples:
        >>> import rocarray as ra
        >>> ra.tile(ra.asarray([1, 2]), (2, 2))
        array([[1, 2, 1, 2],
               [1, 2, 1, 2]])
    """
    _check_array(x, "tile")
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"tile: repetitions must be a tuple of ints, not {type(repetitions).__name__}")
    reps = tuple(as_int(r, "tile", "repetitions") for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions must be non-negative, got {reps}")
    n = builtins_max(x.ndim, len(reps))
    reps = (1,) * (n - len(reps)) + reps
    xshape = (1,) * (n - x.ndim) + x.shape
    xstrides = (0,) * (n - x.ndim) + x.strides
    shape = tuple(r * d for r, d in zip(reps, xshape))
    out = Array._empty(shape, x.dtype, x.device)
    if out.size == 0:
        return out
    # view x as (r0, d0, r1, d1, ...) with zero strides on the repetition axes
    wide, wstrides = [], []
    for r, d, s in zip(reps, xshape, xstrides):
        wide += [r, d]
        wstrides += [0, s]
    src = x._view(wide, wstrides, x._offset)
    _copy(src, out._view(wide, _c_strides(wide, x.itemsize), out._offset))
    return out


def diff(x: Array, /, n=1, axis=-1, prepend=None, append=None) -> Array:
    """The ``n``-th forward difference along ``axis``: ``x[1:] - x[:-1]``, applied ``n`` times.

    ``prepend`` and ``append`` (arrays or scalars) are joined to ``x`` along ``axis`` first.
    Bool arrays give ``x[1:] != x[:-1]`` (NumPy's rule).  Note: the standard makes ``axis``
    and ``n`` keyword-only; NumPy's order (``diff(x, 2)``, which scikit-learn writes) is
    accepted too.

    Examples:
        >>> import rocarray as ra
        >>> ra.diff(ra.asarray([1, 4, 9, 16]))
        array([3, 5, 7])
    """
    _check_array(x, "diff")
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one dimension; got a 0-d array")
    ax = _normalize_axis(axis, x.ndim, "diff")
    n = as_int(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    parts = []
    for name, extra in (("prepend", prepend), (None, x), ("append", append)):
        if extra is None:
            continue
        if name is not None:
            _check_array(extra, "diff", name)
            if extra.ndim != x.ndim or any(d != e for i, (d, e) in enumerate(zip(extra.shape, x.shape)) if i != ax):
                raise ValueError(
                    f"diff: {name} must have the shape of x {x.shape} except along axis {ax}; got {extra.shape}"
                )
        parts.append(extra)
    if len(parts) > 1:
        x = concat(parts, axis=ax)
    for _ in range(n):
        m = x.shape[ax]
        if m == 0:
            break
        hi, lo = _axis_slice(x, ax, 1, m), _axis_slice(x, ax, 0, m - 1)
        # booleans differ (logical xor) rather than subtract, as in NumPy
        x = not_equal(hi, lo) if x.dtype.kind == "b" else subtract(hi, lo)
    return x


def _reshape_method(self, *shape, copy=None) -> Array:
    """The array in a new shape: ``x.reshape(2, 3)`` or ``x.reshape((2, 3))`` (see ``rocarray.reshape``).

    Examples:
        >>> import rocarray as ra
        >>> ra.arange(4).reshape(2, 2).shape
        (2, 2)
    """
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return reshape(self, shape, copy=copy)


def _ravel_method(self) -> Array:
    """The array as 1-D: a view where the layout allows one, else a copy (NumPy's ``ravel``)."""
    return reshape(self, -1)


def _flatten_method(self) -> Array:
    """A 1-D copy of the array (NumPy's ``flatten``)."""
    return reshape(self, -1, copy=True)


Array.reshape = _reshape_method
Array.ravel = _ravel_method
Array.flatten = _flatten_method
