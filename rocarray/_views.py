"""Views: shapes, axes and strides rearranged over the same buffer, never a kernel.

Part of the array core: the ops layer builds on these, and they import no op module.
"""

from __future__ import annotations

import operator

from ._array_object import Array, _prod


class AxisError(IndexError, ValueError):
    """An axis out of bounds for the array: an ``IndexError`` and a ``ValueError``, as
    NumPy's ``AxisError`` is (code written against either kind catches it)."""


def as_int(v, fname: str, argname: str) -> int:
    """``v`` as a Python int (``operator.index``), else a ``TypeError`` naming ``fname`` and
    the argument; a bool is refused (an int to ``operator.index``, never a count or an axis
    to NumPy)."""
    if v.__class__ is bool:
        raise TypeError(f"{fname}: {argname} must be an integer, not bool")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{fname}: {argname} must be an integer, not {type(v).__name__}") from None


def diagonal_view(x: Array, offset: int, i: int, j: int) -> Array:
    """The ``offset``-th diagonal of the planes of axes ``i`` and ``j`` (normalized, distinct)
    of ``x``, as a view with the diagonal as its last axis (NumPy's layout)."""
    n1, n2 = x.shape[i], x.shape[j]
    start = x._offset
    if offset >= 0:
        n = max(min(n1, n2 - offset), 0)
        if n:
            start += offset * x.strides[j]
    else:
        n = max(min(n1 + offset, n2), 0)
        if n:
            start -= offset * x.strides[i]
    keep = [k for k in range(x.ndim) if k not in (i, j)]
    return x._view(tuple(x.shape[k] for k in keep) + (n,),
                   tuple(x.strides[k] for k in keep) + (x.strides[i] + x.strides[j],), start)


def _normalize_axis(axis, ndim: int, fname: str) -> int:
    a = as_int(axis, fname, "axis")
    if not -ndim <= a < ndim:
        raise AxisError(f"{fname}: axis {a} is out of bounds for an array of dimension {ndim}")
    return a + ndim if a < 0 else a


def normalize_axes(axis, ndim: int, fname: str) -> tuple:
    """Axis argument (None, int or tuple) as a sorted tuple of distinct non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(_normalize_axis(a, ndim, fname) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fname}: repeated axis in {tuple(axis)!r}")
        return tuple(sorted(axes))
    return (_normalize_axis(axis, ndim, fname),)


def _nocopy_reshape(shape, strides, newshape):
    """Strides that view (shape, strides) as newshape in C order, or None if impossible."""
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new_strides = [0] * len(newshape)
    oi = ni = 0
    on = len(old)
    nn = len(newshape)
    while oi < on and ni < nn:
        # grow the smallest groups of old and new dims with equal element counts
        np_ = newshape[ni]
        op_ = old[oi][0]
        oj, nj = oi + 1, ni + 1
        while np_ != op_:
            if np_ < op_:
                np_ *= newshape[nj]
                nj += 1
            else:
                op_ *= old[oj][0]
                oj += 1
        # the old group must be contiguous in C order
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                return None
        s = old[oj - 1][1]
        for k in range(nj - 1, ni - 1, -1):
            new_strides[k] = s
            s *= newshape[k]
        oi, ni = oj, nj
    # remaining new dims are all 1
    for k in range(ni, nn):
        new_strides[k] = 0
    return tuple(new_strides)


def _resolve_shape(shape, size: int) -> tuple:
    if isinstance(shape, (int,)) or hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        shape = (operator.index(shape),)
    try:
        dims = [operator.index(d) for d in shape]
    except TypeError:
        raise TypeError(f"reshape: shape must be a tuple of ints, got {shape!r}") from None
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise ValueError("reshape: can only specify one unknown dimension (-1)")
    if any(d < -1 for d in dims):
        raise ValueError(f"reshape: invalid shape {tuple(dims)!r}")
    if unknown:
        known = _prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {tuple(shape)!r}")
        dims[unknown[0]] = size // known
    if _prod(dims) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {tuple(dims)!r}")
    return tuple(dims)


def permute_dims(x: Array, /, axes) -> Array:
    """A view of ``x`` with its axes in the order ``axes`` (NumPy's ``transpose(x, axes)``).

    Args:
        x: an array.
        axes: a permutation of ``range(x.ndim)`` (negative axes count from the end).

    Raises:
        ValueError: ``axes`` is not a permutation of the array's axes.
        IndexError: an axis out of range.

    Examples:
        >>> import rocarray as ra
        >>> ra.permute_dims(ra.zeros((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    given = tuple(axes)
    if len(given) != x.ndim:  # (first, as NumPy: then any axis out of range is an IndexError)
        raise ValueError(f"permute_dims: axes {given} are not a permutation of the {x.ndim} axes of the array")
    axes = tuple(_normalize_axis(a, x.ndim, "permute_dims") for a in given)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(
            f"permute_dims: axes {axes} are not a permutation of the {x.ndim} axes of the array"
        )
    return x._view(tuple(x.shape[a] for a in axes), tuple(x.strides[a] for a in axes), x._offset)


def matrix_transpose(x: Array, /) -> Array:
    """A view of ``x`` with its last two axes swapped (``x.mT``); ``x`` needs two axes or more.

    Examples:
        >>> import rocarray as ra
        >>> ra.matrix_transpose(ra.asarray([[1, 2, 3]]))
        array([[1],
               [2],
               [3]])
    """
    return x.mT


def expand_dims(x: Array, /, axis=0) -> Array:
    """A view of ``x`` with a new axis of length 1 at ``axis`` (or at each of a tuple of axes).

    Args:
        x: an array.
        axis: an int in ``[-x.ndim - 1, x.ndim]``, or a tuple of distinct positions in the result
            (NumPy's tuple form; the 2024.12 standard takes an int).

    Raises:
        IndexError: an axis out of range.
        ValueError: a repeated axis.

    Examples:
        >>> import rocarray as ra
        >>> ra.expand_dims(ra.zeros((2, 3)), axis=-1).shape
        (2, 3, 1)
    """
    if isinstance(axis, (tuple, list)):
        n = x.ndim + len(axis)
        axes = normalize_axes(axis, n, "expand_dims")
    else:
        n = x.ndim + 1
        axes = (_normalize_axis(axis, n, "expand_dims"),)
    shape = []
    strides = []
    it = iter(zip(x.shape, x.strides))
    for i in range(n):
        if i in axes:
            shape.append(1)
            strides.append(0)
        else:
            d, s = next(it)
            shape.append(d)
            strides.append(s)
    return x._view(shape, strides, x._offset)


def squeeze(x: Array, /, axis=None) -> Array:
    """A view of ``x`` without the axes of length 1 named by ``axis`` (all of them if None).

    Raises:
        ValueError: a named axis whose length is not 1.
        IndexError: an axis out of range (a 0-d array has none, where NumPy accepts 0 and -1).

    Examples:
        >>> import rocarray as ra
        >>> ra.squeeze(ra.zeros((1, 3, 1)), axis=0).shape
        (3, 1)
    """
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes(axis, x.ndim, "squeeze")
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(
                    f"squeeze: cannot remove axis {a} of size {x.shape[a]}; only axes of size 1 can be squeezed"
                )
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    strides = tuple(s for i, s in enumerate(x.strides) if i not in axes)
    return x._view(shape, strides, x._offset)


def broadcast_shapes(*shapes) -> tuple:
    """The shape that arrays of the given shapes broadcast to.

    Raises:
        ValueError: the shapes do not broadcast, or a negative dimension.
        TypeError: a dimension that is not an int.

    Examples:
        >>> import rocarray as ra
        >>> ra.broadcast_shapes((3, 1), (1, 4), (4,))
        (3, 4)
    """
    for s in shapes:
        for d in s:
            if d.__class__ is not int:
                try:
                    d = operator.index(d)
                except TypeError:
                    raise TypeError(f"broadcast_shapes: dimensions must be integers, got {tuple(s)!r}") from None
            if d < 0:
                raise ValueError(f"broadcast_shapes: negative dimensions are not allowed: shape {tuple(s)!r}")
    return broadcast_array_shapes(*shapes)


def broadcast_array_shapes(*shapes) -> tuple:
    """``broadcast_shapes`` of shapes that arrays have (so: never checked again; the
    elementwise call path's)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        off = ndim - len(s)
        for i, d in enumerate(s):
            cur = out[off + i]
            if d == cur or d == 1:
                continue
            if cur == 1:
                out[off + i] = d
            else:
                raise ValueError(
                    "shapes " + ", ".join(str(tuple(t)) for t in shapes) + " cannot be broadcast together"
                )
    return tuple(out)


def broadcast_to(x: Array, /, shape) -> Array:
    """A read-only view of ``x`` broadcast to ``shape`` (stride 0 along the new and the stretched axes).

    Raises:
        ValueError: ``x`` does not broadcast to ``shape``.

    Examples:
        >>> import rocarray as ra
        >>> ra.broadcast_to(ra.asarray([1, 2]), (2, 2))
        array([[1, 2],
               [1, 2]])
    """
    try:
        shape = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"broadcast_to: shape must be a tuple of integers, got {shape!r}") from None
    if len(shape) < x.ndim:
        raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to fewer dimensions {shape}")
    off = len(shape) - x.ndim
    strides = [0] * off
    for i, (d, s) in enumerate(zip(x.shape, x.strides)):
        target = shape[off + i]
        if d == target:
            strides.append(s)
        elif d == 1:
            strides.append(0)
        else:
            raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to {shape}")
    if any(d < 0 for d in shape):
        raise ValueError(f"broadcast_to: invalid shape {shape}")
    if shape == x.shape:
        return x
    return x._view(shape, strides, x._offset)


def broadcast_arrays(*arrays) -> tuple:
    """Views of the given arrays broadcast to their common shape, as a tuple (the standard's
    2025.12 type; 2024.12 said a list; NumPy 2 returns a tuple too).

    Examples:
        >>> import rocarray as ra
        >>> [a.shape for a in ra.broadcast_arrays(ra.zeros((3, 1)), ra.zeros(4))]
        [(3, 4), (3, 4)]
    """
    for i, a in enumerate(arrays):
        _check_array(a, "broadcast_arrays", f"arrays[{i}]")
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def _check_array(x, fname: str, argname: str = "x") -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}: {argname} must be a rocarray array, not {type(x).__name__}")
    return x


def _axis_slice(x: Array, axis: int, start: int, stop: int) -> Array:
    """The view ``x[..., start:stop, ...]`` on ``axis`` (0 <= start <= stop <= size)."""
    shape = list(x._shape)
    shape[axis] = stop - start
    offset = x._offset + (start * x._strides[axis] if stop > start else 0)
    return x._view(shape, x._strides, offset)


def _axis_index(x: Array, axis: int, i: int) -> Array:
    """The view ``x[..., i, ...]`` on ``axis`` (the axis dropped)."""
    shape = x._shape[:axis] + x._shape[axis + 1:]
    strides = x._strides[:axis] + x._strides[axis + 1:]
    return x._view(shape, strides, x._offset + i * x._strides[axis])


def unstack(x: Array, /, *, axis=0) -> tuple:
    """The slices of ``x`` along ``axis``, as a tuple of views (the inverse of ``stack``).

    Examples:
        >>> import rocarray as ra
        >>> ra.unstack(ra.asarray([[1, 2], [3, 4]]), axis=1)
        (array([1, 3]), array([2, 4]))
    """
    _check_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack: x must have at least one dimension; got a 0-d array")
    ax = _normalize_axis(axis, x.ndim, "unstack")
    return tuple(_axis_index(x, ax, i) for i in range(x.shape[ax]))


def flip(x: Array, /, *, axis=None) -> Array:
    """``x`` reversed along ``axis`` (an int, a tuple, or None for all axes): a view with negative strides.

    Examples:
        >>> import rocarray as ra
        >>> ra.flip(ra.asarray([[1, 2], [3, 4]]), axis=1)
        array([[2, 1],
               [4, 3]])
    """
    _check_array(x, "flip")
    axes = normalize_axes(axis, x.ndim, "flip")
    strides = list(x._strides)
    offset = x._offset
    for a in axes:
        n = x._shape[a]
        if n > 1:
            offset += (n - 1) * strides[a]
        strides[a] = -strides[a]
    return x._view(x._shape, strides, offset)


def moveaxis(x: Array, source, destination, /) -> Array:
    """A view of ``x`` with axes ``source`` (an int or a tuple) moved to positions ``destination``.

    Examples:
        >>> import rocarray as ra
        >>> ra.moveaxis(ra.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    _check_array(x, "moveaxis")
    src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
    dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
    src = tuple(_normalize_axis(a, x.ndim, "moveaxis") for a in src)
    dst = tuple(_normalize_axis(a, x.ndim, "moveaxis") for a in dst)
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source!r} and destination {destination!r} must have the same number of axes"
        )
    if len(set(src)) != len(src):
        raise ValueError(f"moveaxis: repeated axis in source {source!r}")
    if len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis: repeated axis in destination {destination!r}")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def _transpose_method(self, *axes) -> Array:
    """The array with its axes permuted (``x.transpose()``, ``x.transpose(1, 0)``,
    ``x.transpose((1, 0))``): all axes reversed when none are given, as NumPy's method.

    Examples:
        >>> import rocarray as ra
        >>> ra.zeros((2, 3)).transpose().shape
        (3, 2)
    """
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if not axes:
        axes = tuple(range(self.ndim - 1, -1, -1))
    return permute_dims(self, axes)


Array.transpose = _transpose_method
