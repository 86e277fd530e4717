"""Views with chosen shapes and strides: NumPy's ``sliding_window_view`` and ``as_strided``
(``numpy.lib.stride_tricks``, CuPy's ``cupy.lib.stride_tricks``), on every device.

Both return views of the array's memory, no copy.  A view whose elements may share memory
(windows that overlap, a stride smaller than the extent of the axes below it) refuses to
be written into (``Array._check_writable``); that is how a sliding window's view is
read-only, as NumPy's is by default.  ``as_strided`` checks that the view stays inside the
array's memory (NumPy's does not: a wrong stride there reads or writes other memory).
"""

from __future__ import annotations

from .._array_object import Array
from .._views import _normalize_axis, as_int

__all__ = ["as_strided", "sliding_window_view"]


def _array(x, name: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name}: x must be a rocarray array, not {type(x).__name__}")
    return x


def _ints(v, name: str, what: str) -> tuple:
    """``v`` (an integer or a sequence of them) as a tuple of Python ints."""
    try:
        items = (v,) if hasattr(v, "__index__") else tuple(v)
    except TypeError:  # (neither: ``as_int`` says what it is)
        items = (v,)
    return tuple(as_int(k, name, what) for k in items)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False) -> Array:
    """A view of every window of ``window_shape`` sliding over ``x`` (NumPy's
    ``numpy.lib.stride_tricks.sliding_window_view``): the result's shape is ``x``'s with
    each windowed axis shortened by its window less one, then the window's dimensions.

    Args:
        x: the array.
        window_shape: the window's length along each of ``axis`` (an int or a sequence).
        axis: the axes the windows slide along (an int or a sequence; an axis may repeat);
            None: every axis, one window length each.
        subok: accepted for NumPy's signature (rocarray has no subclasses).
        writeable: accepted for NumPy's signature; the view is read-only where its windows
            overlap, writable where they do not (a window of 1), whatever it says.

    Raises:
        TypeError: ``x`` is not a rocarray array, or a window length is not an integer.
        ValueError: a negative window, a window longer than its axis, lengths of
            ``window_shape`` and ``axis`` that differ, an axis out of range.

    Examples:
        >>> import rocarray as ra
        >>> from rocarray.lib.stride_tricks import sliding_window_view
        >>> sliding_window_view(ra.arange(5), 3)
        array([[0, 1, 2],
               [1, 2, 3],
               [2, 3, 4]])
        >>> ra.mean(sliding_window_view(ra.arange(6.0), 2), axis=-1)
        array([0.5, 1.5, 2.5, 3.5, 4.5])
    """
    name = "sliding_window_view"
    x = _array(x, name)
    window = _ints(window_shape, name, "window_shape")
    if any(w < 0 for w in window):
        raise ValueError(f"{name}: window_shape cannot contain negative values, got {window}")
    if axis is None:
        if len(window) != x.ndim:
            raise ValueError(f"{name}: since axis is None, window_shape must give a length for every one of "
                             f"x's {x.ndim} dimensions; got {len(window)}")
        axes = tuple(range(x.ndim))
    else:
        # (an axis may repeat: windows along it one after the other)
        axes = tuple(_normalize_axis(a, x.ndim, name) for a in _ints(axis, name, "axis"))
        if len(axes) != len(window):
            raise ValueError(f"{name}: window_shape and axis must have the same length; got {len(window)} "
                             f"window lengths and {len(axes)} axes")
    shape = list(x.shape)
    for a, w in zip(axes, window):
        if shape[a] < w:
            raise ValueError(f"{name}: the window ({w}) is longer than axis {a} of x (length {x.shape[a]} "
                             "less the windows before it)")
        shape[a] -= w - 1
    strides = x.strides + tuple(x.strides[a] for a in axes)
    return x._view(tuple(shape) + window, strides, x._offset)


def as_strided(x, shape=None, strides=None, subok=False, writeable=True) -> Array:
    """A view of ``x``'s memory with the given ``shape`` and ``strides`` (in bytes), starting
    at ``x``'s first element (NumPy's ``numpy.lib.stride_tricks.as_strided``).

    Args:
        x: the array whose memory is viewed.
        shape: the view's shape (default ``x.shape``).
        strides: the step in bytes along each axis (default ``x.strides``); negative steps
            are allowed.
        subok: accepted for NumPy's signature.
        writeable: True (NumPy's default): the view can be written into unless its
            elements may share memory or ``x``'s memory is read-only. False is not
            offered: rocarray has no read-only flag for one view of writable memory.

    Raises:
        TypeError: ``x`` is not a rocarray array; a shape or stride is not an integer;
            ``writeable=False``.
        ValueError: negative lengths, ``shape`` and ``strides`` of different lengths, a
            stride that is not a multiple of the item size, or a view that would reach
            outside ``x``'s memory.

    Examples:
        >>> import rocarray as ra
        >>> from rocarray.lib.stride_tricks import as_strided
        >>> x = ra.arange(6, dtype=ra.int32)
        >>> as_strided(x, shape=(3, 2), strides=(8, 4))
        array([[0, 1],
               [2, 3],
               [4, 5]], dtype=int32)
    """
    name = "as_strided"
    x = _array(x, name)
    if not writeable:
        raise TypeError(f"{name}: writeable=False is not offered (rocarray has no read-only flag for one view "
                        "of writable memory); views whose elements may share memory refuse writes already")
    shape = x.shape if shape is None else _ints(shape, name, "shape")
    strides = x.strides if strides is None else _ints(strides, name, "strides")
    if len(shape) != len(strides):
        raise ValueError(f"{name}: shape {shape} and strides {strides} must have the same length")
    if any(d < 0 for d in shape):
        raise ValueError(f"{name}: negative dimensions are not allowed, got shape {shape}")
    item = x.itemsize
    if any(s % item for s in strides):
        raise ValueError(f"{name}: every stride must be a multiple of the item size ({item} bytes), got {strides}")
    if 0 not in shape:
        low = x._offset + sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
        high = x._offset + sum((d - 1) * s for d, s in zip(shape, strides) if s > 0) + item
        if low < 0 or high > x._buf.nbytes:
            raise ValueError(f"{name}: a view of shape {shape} and strides {strides} would reach bytes "
                             f"[{low - x._offset}, {high - x._offset}) from x's first element, outside its "
                             f"memory ({x._offset} bytes before it, {x._buf.nbytes - x._offset} from it on)")
    return x._view(tuple(shape), tuple(strides), x._offset)
