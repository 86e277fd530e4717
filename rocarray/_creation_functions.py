"""Array creation: asarray, empty/zeros/ones/full (and _like), arange, linspace, eye,
from_dlpack, asnumpy, meshgrid, tril, triu; ``copy_into`` (``x[...] = value``) and the
``Array.__reduce__`` that pickles through ``asarray``."""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from . import _dtypes
from ._array_object import Array, _check_same_device, check_size
from ._copy import copy_to_device
from ._device import as_device
from ._dlpack import import_dlpack
from ._elementwise import copy_array, copy_elements, fill_elements, filled, ranged
from ._elementwise_functions import _where, greater_equal, less_equal
from ._transfer import check_scalar_fits, numpy_to_device, wrap_numpy
from ._views import as_int, broadcast_to, expand_dims


def _normalize_shape(shape) -> tuple:
    if isinstance(shape, (tuple, list)):
        dims = shape
    else:
        dims = (shape,)
    out = []
    for d in dims:
        try:
            n = operator.index(d)
        except TypeError:
            raise TypeError(
                f"shape must be an int or a tuple of ints, got {type(d).__name__} in {shape!r}"
            ) from None
        if n < 0:
            raise ValueError(f"negative dimensions are not allowed: shape {tuple(dims)!r}")
        out.append(n)
    return tuple(out)


def _dtype_or_none(dtype):
    return None if dtype is None else _dtypes.as_dtype(dtype)


def _python_dtype(obj) -> np.dtype:
    """The dtype the array API gives to (nested sequences of) Python scalars; Python ints
    past int64 follow ``_dtypes.python_int_dtype`` (uint64 where they all fit it)."""
    a = np.asarray(obj)
    d = a.dtype
    if d == object or d == np.float64 or d == np.uint64:
        # NumPy's discovery with ints past int64: object (past uint64, or below int64),
        # float64 (beside a negative or a small int: it rounds them), uint64
        span = _int_span(obj)
        if span is not None:  # only ints (and bools): an integer dtype, or an OverflowError
            return _dtypes.python_int_dtype(*span, "asarray")
        if d == object:  # ints past every dtype beside floats: the float the standard gives
            kind = _number_kind(obj)
            if kind is not None:
                return _dtypes.default_complex if kind == "c" else _dtypes.default_float
    if d == object or d.kind in "US":
        raise TypeError(
            f"asarray: cannot make an array from {type(obj).__name__} holding "
            f"{d.kind == 'O' and 'mixed or non-numeric objects' or 'strings'}"
        )
    return _dtypes.as_dtype(d)


def _leaves(obj):
    """The elements of nested lists and tuples that are not lists or tuples, in reading
    order (lazily: a caller may stop at the first that settles its question)."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if type(o) is list or type(o) is tuple:
            stack.extend(reversed(o))
        else:
            yield o


def _int_span(obj):
    """(lowest, highest) Python int of a Python int or nested lists and tuples holding only
    ints and bools; None without an int, or at the first element of another type (so a
    list of floats costs one look)."""
    span = None
    for o in _leaves(obj):
        t = type(o)
        if t is builtins.int:
            span = (o, o) if span is None else (min(span[0], o), max(span[1], o))
        elif t is not builtins.bool:
            return None
    return span


def _number_kind(obj):
    """"c" or "f" for nested sequences of Python numbers holding a complex or a float; None
    when anything else is there."""
    kind = None
    for o in _leaves(obj):
        t = type(o)
        if t is builtins.complex:
            kind = "c"
        elif t is builtins.float:
            kind = kind or "f"
        elif t is not builtins.int and t is not builtins.bool:
            return None
    return kind


def _int_outside(obj, dtype: np.dtype):
    """The first Python int in (nested sequences) ``obj`` that ``dtype`` cannot hold, or None."""
    lo, hi = _dtypes.int_bounds[dtype]
    for o in _leaves(obj):
        if type(o) is builtins.int and not lo <= o <= hi:
            return o
    return None


def asarray(obj, /, *, dtype=None, device=None, copy=None) -> Array:
    """Convert ``obj`` to an array on a device.

    Args:
        obj: an Array, a NumPy array, a Python scalar, a (nested) list or tuple of scalars, or
            any object with the buffer protocol or ``__dlpack__``.
        dtype: the dtype wanted; None infers it (Python ints give ``int64``, ``uint64`` past it
            where every value fits; floats ``float64``; complex ``complex128``; bools ``bool``).
        device: where the array lives: a ``Device``, a string (``"cpu"``, ``"cuda:0"``,
            ``"hip:0"``) or None for the default device (the first GPU found, else the CPU;
            ``ROCARRAY_DEVICE`` and ``with ra.Device(...)`` change it).
        copy: ``True`` always copies, ``False`` never does (``ValueError`` if it would have to),
            None copies only when needed (the array API's semantics).

    Returns:
        An Array. On the CPU a NumPy array of a supported dtype is wrapped without a copy.

    Raises:
        TypeError: an unsupported dtype or object.
        OverflowError: a Python int that does not fit the dtype (NumPy 2 raises too).
        ValueError: ``copy=False`` where a copy is needed.

    Examples:
        >>> import rocarray as ra
        >>> ra.asarray([[1, 2], [3, 4]], dtype=ra.float32)
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    if copy not in (None, True, False):
        raise ValueError(f"asarray: copy must be True, False or None, not {copy!r}")
    dt = _dtype_or_none(dtype)
    if isinstance(obj, Array):
        dev = obj.device if device is None else as_device(device)
        x = obj
        need_copy = copy is True
        if dev is not x.device:
            if copy is False:
                raise ValueError(f"asarray: moving an array from {x.device} to {dev} needs a copy, but copy=False")
            x = copy_to_device(x, dev)
            need_copy = False
        if dt is not None and dt != x.dtype:
            if copy is False:
                raise ValueError(f"asarray: casting {x.dtype} to {dt} needs a copy, but copy=False")
            out = Array._empty(x.shape, dt, dev)
            copy_elements(x, out)
            return out
        if need_copy:
            return copy_array(x)
        return x
    dev = as_device(device)
    if isinstance(obj, (np.ndarray, np.generic)):
        a = np.asarray(obj)
        _dtypes.as_dtype(a.dtype, argname="array dtype")
        if dev.kind == "cpu":
            if dt is not None and a.dtype != dt:
                if copy is False:
                    raise ValueError(f"asarray: casting {a.dtype} to {dt} needs a copy, but copy=False")
                return wrap_numpy(a.astype(dt))
            if copy is True or not a.flags.writeable and copy is not False:
                return wrap_numpy(a.copy())
            return wrap_numpy(a)
        if copy is False:
            raise ValueError(f"asarray: moving a NumPy array to {dev} needs a copy, but copy=False")
        return numpy_to_device(a, dev, dt)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
        x = from_dlpack(obj, copy=copy)
        return asarray(x, dtype=dt, device=device if device is not None else x.device,
                       copy=None if copy is True else copy)
    if isinstance(obj, (bytes, bytearray, memoryview)) or hasattr(obj, "__array_interface__"):
        a = np.asarray(obj)
        if dt is None:
            dt = _dtypes.as_dtype(a.dtype)
        if dev.kind == "cpu" and copy is not True and a.dtype == dt:
            return wrap_numpy(a)
        if copy is False:
            raise ValueError("asarray: this conversion needs a copy, but copy=False")
        return numpy_to_device(a, dev, dt)
    # Python scalars and nested sequences (always copied)
    if copy is False:
        raise ValueError(
            f"asarray: converting a {type(obj).__name__} needs a copy, but copy=False"
        )
    if dt is None:
        dt = _python_dtype(obj)
    elif isinstance(obj, builtins.complex) and dt.kind != "c":
        raise TypeError(f"asarray: cannot convert a complex value to {dt}")
    try:
        a = np.asarray(obj, dtype=dt)
    except OverflowError:
        # (NumPy names neither the value nor the dtype past 64 bits)
        bad = _int_outside(obj, dt) if dt.kind in "iu" else None
        if bad is None:
            raise
        _dtypes.check_int_fits(bad, dt, "asarray")
        raise
    if dev.kind == "cpu":
        return wrap_numpy(a)
    return numpy_to_device(a, dev, dt)


def empty(shape, *, dtype=None, device=None) -> Array:
    """A new array of ``shape`` whose elements are not initialised.

    Args:
        shape: an int or a tuple of non-negative ints.
        dtype: the dtype; None gives ``float64`` (the default floating dtype).
        device: where the array lives: a ``Device``, a string (``"cpu"``, ``"cuda:0"``,
            ``"hip:0"``) or None for the default device (the first GPU found, else the CPU;
            ``ROCARRAY_DEVICE`` and ``with ra.Device(...)`` change it).

    Examples:
        >>> import rocarray as ra
        >>> ra.empty((2, 3), dtype=ra.int32).shape
        (2, 3)
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return Array._empty(_normalize_shape(shape), dt, as_device(device))


def _fill_dtype(fill_value) -> np.dtype:
    if isinstance(fill_value, builtins.bool):
        return _dtypes.bool
    if isinstance(fill_value, builtins.int):
        return _dtypes.python_int_dtype(fill_value, fill_value, "full")
    if isinstance(fill_value, builtins.float):
        return _dtypes.default_float
    if isinstance(fill_value, builtins.complex):
        return _dtypes.default_complex
    if isinstance(fill_value, (np.generic, Array)):
        return _dtypes.as_dtype(fill_value.dtype)
    raise TypeError(f"fill_value must be a bool, int, float or complex, not {type(fill_value).__name__}")


def full(shape, fill_value, *, dtype=None, device=None) -> Array:
    """A new array of ``shape`` with every element ``fill_value``.

    Args:
        shape: an int or a tuple of non-negative ints.
        fill_value: a bool, int, float or complex (or a 0-d array).
        dtype: the dtype; None takes it from ``fill_value`` (bool, ``int64`` -- ``uint64`` for a
            larger int that fits it -- ``float64`` or ``complex128``).
        device: where the array lives: a ``Device``, a string (``"cpu"``, ``"cuda:0"``,
            ``"hip:0"``) or None for the default device (the first GPU found, else the CPU;
            ``ROCARRAY_DEVICE`` and ``with ra.Device(...)`` change it).

    Raises:
        OverflowError: an int that does not fit ``dtype`` (NumPy 2 raises too).

    Examples:
        >>> import rocarray as ra
        >>> ra.full((2, 2), 7, dtype=ra.uint8)
        array([[7, 7],
               [7, 7]], dtype=uint8)
    """
    dt = _fill_dtype(fill_value) if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(fill_value, Array):
        if fill_value.ndim != 0:
            raise ValueError(f"full: fill_value must be a scalar, got an array of shape {fill_value.shape}")
        fill_value = fill_value.item()
    if isinstance(fill_value, builtins.complex) and dt.kind != "c":
        raise TypeError(f"full: cannot fill an array of dtype {dt} with a complex value")
    if isinstance(fill_value, builtins.int) and dt.kind in "iu" and not isinstance(fill_value, builtins.bool):
        _dtypes.check_int_fits(fill_value, dt, "full")
    shape = _normalize_shape(shape)
    check_size(shape, dt)
    # (the value as NumPy converts it to dt -- 2.5 to an int32 2 -- then a Python scalar)
    return filled(shape, np.asarray(fill_value, dtype=dt).item(), dt, as_device(device))


def zeros(shape, *, dtype=None, device=None) -> Array:
    """A new array of ``shape`` filled with zeros.

    Args:
        shape: an int or a tuple of non-negative ints.
        dtype: the dtype; None gives ``float64``.
        device: where the array lives: a ``Device``, a string (``"cpu"``, ``"cuda:0"``,
            ``"hip:0"``) or None for the default device (the first GPU found, else the CPU;
            ``ROCARRAY_DEVICE`` and ``with ra.Device(...)`` change it).

    Examples:
        >>> import rocarray as ra
        >>> ra.zeros(3)
        array([0., 0., 0.])
    """
    return full(shape, 0, dtype=_dtypes.default_float if dtype is None else dtype, device=device)


def ones(shape, *, dtype=None, device=None) -> Array:
    """A new array of ``shape`` filled with ones; ``shape``, ``dtype`` (None: ``float64``)
    and ``device`` as for ``zeros``.

    Examples:
        >>> import rocarray as ra
        >>> ra.ones((2, 2), dtype=ra.int8)
        array([[1, 1],
               [1, 1]], dtype=int8)
    """
    return full(shape, 1, dtype=_dtypes.default_float if dtype is None else dtype, device=device)


def _like(x: Array, dtype, device):
    if not isinstance(x, Array):
        raise TypeError(f"expected a rocarray array, got {type(x).__name__}")
    return (x.shape, x.dtype if dtype is None else dtype, x.device if device is None else device)


def empty_like(x, /, *, dtype=None, device=None) -> Array:
    """A new uninitialised array of the shape of ``x``, of its dtype and on its device
    unless ``dtype`` or ``device`` say otherwise.

    Examples:
        >>> import rocarray as ra
        >>> ra.empty_like(ra.ones((2, 3), dtype=ra.int16)).dtype
        dtype('int16')
    """
    shape, dt, dev = _like(x, dtype, device)
    return empty(shape, dtype=dt, device=dev)


def zeros_like(x, /, *, dtype=None, device=None) -> Array:
    """A new array of zeros of the shape of ``x``, of its dtype and on its device
    unless ``dtype`` or ``device`` say otherwise.

    Examples:
        >>> import rocarray as ra
        >>> ra.zeros_like(ra.asarray([1, 2, 3]))
        array([0, 0, 0])
    """
    shape, dt, dev = _like(x, dtype, device)
    return zeros(shape, dtype=dt, device=dev)


def ones_like(x, /, *, dtype=None, device=None) -> Array:
    """A new array of ones of the shape of ``x``, of its dtype and on its device unless
    ``dtype`` or ``device`` say otherwise.

    Examples:
        >>> import rocarray as ra
        >>> ra.ones_like(ra.asarray([1.5, 2.5]))
        array([1., 1.])
    """
    shape, dt, dev = _like(x, dtype, device)
    return ones(shape, dtype=dt, device=dev)


def full_like(x, /, fill_value, *, dtype=None, device=None) -> Array:
    """A new array of the shape of ``x`` filled with ``fill_value``, of ``x``'s dtype and on
    its device unless ``dtype`` or ``device`` say otherwise.

    Examples:
        >>> import rocarray as ra
        >>> ra.full_like(ra.asarray([1, 2, 3]), 9)
        array([9, 9, 9])
    """
    shape, dt, dev = _like(x, dtype, device)
    return full(shape, fill_value, dtype=dt, device=dev)


def _from_host(a: np.ndarray, device) -> Array:
    dev = as_device(device)
    return wrap_numpy(a) if dev.kind == "cpu" else numpy_to_device(a, dev)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None) -> Array:
    """Evenly spaced values in ``[start, stop)``: ``start, start + step, ...``.

    ``arange(stop)`` counts from 0; the values are computed on the device (integers exactly,
    floats as ``start + k * step`` in float64, as NumPy computes them).

    Args:
        start: the first value (or ``stop`` when ``stop`` is None).
        stop: the end, not included.
        step: the spacing (not 0).
        dtype: the dtype; None gives ``int64`` for ints (``uint64`` for a range past int64 that
            fits it, where NumPy gives ``float64``), ``float64`` otherwise.
        device: where the array lives: a ``Device``, a string (``"cpu"``, ``"cuda:0"``,
            ``"hip:0"``) or None for the default device (the first GPU found, else the CPU;
            ``ROCARRAY_DEVICE`` and ``with ra.Device(...)`` change it).

    Examples:
        >>> import rocarray as ra
        >>> ra.arange(2, 11, 3)
        array([2, 5, 8])
    """
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if v is not None and not isinstance(v, (builtins.int, builtins.float, np.integer, np.floating)):
            raise TypeError(f"arange: {name} must be a real number, not {type(v).__name__}")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if stop is None:
        start, stop = 0, start
    dt = None if dtype is None else _dtypes.as_dtype(dtype)
    if all(isinstance(v, (builtins.int, np.integer)) for v in (start, stop, step)):
        start, stop, step = builtins.int(start), builtins.int(stop), builtins.int(step)
        n = max(0, -((start - stop) // step))  # exact: no float rounds a count of big ints
        last = start + (n - 1) * step
        lo, hi = (start, last) if step > 0 else (last, start)
        if dt is None:
            # the default integer dtype; uint64 for a range past int64 that fits it (NumPy
            # gives float64 there, which rounds the values together)
            dt = _dtypes.python_int_dtype(lo, hi, "arange") if n else _dtypes.default_int
        if dt.kind in "iu":
            if n and not (_dtypes.int_bounds[dt][0] <= lo and hi <= _dtypes.int_bounds[dt][1]):
                raise OverflowError(f"arange: the values from {start} to {last} (step {step}) do not "
                                    f"fit {dt}; its values run from {_dtypes.int_bounds[dt][0]} to "
                                    f"{_dtypes.int_bounds[dt][1]}")
            check_size((n,), dt)
            return ranged(n, start, step, dt, as_device(device))
    elif dt is None:
        dt = _dtypes.default_float
    n = max(0, math.ceil((stop - start) / step))
    check_size((n,), dt)
    return ranged(n, start, step, dt, as_device(device))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True) -> Array:
    """``num`` evenly spaced values from ``start`` to ``stop`` (``stop`` included unless
    ``endpoint=False``).

    Args:
        start: the first value, a real or complex Python number.
        stop: the last value (or the end, with ``endpoint=False``).
        num: how many values (a non-negative int).
        dtype: the dtype; None gives ``float64`` (``complex128`` for a complex bound).
        device: where the array lives: a ``Device``, a string (``"cpu"``, ``"cuda:0"``,
            ``"hip:0"``) or None for the default device (the first GPU found, else the CPU;
            ``ROCARRAY_DEVICE`` and ``with ra.Device(...)`` change it).
        endpoint: whether ``stop`` is the last value.

    Examples:
        >>> import rocarray as ra
        >>> ra.linspace(0, 1, 5)
        array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    if not isinstance(num, (builtins.int, np.integer)) or isinstance(num, builtins.bool):
        raise TypeError(f"linspace: num must be a non-negative integer, not {type(num).__name__}")
    if num < 0:
        raise ValueError(f"linspace: num must be a non-negative integer, got {num!r}")
    is_complex = isinstance(start, builtins.complex) or isinstance(stop, builtins.complex)
    if dtype is None:
        dt = _dtypes.default_complex if is_complex else _dtypes.default_float
    else:
        dt = _dtypes.as_dtype(dtype)
        if dt.kind not in "fc":
            raise TypeError(f"linspace: dtype must be a floating-point dtype, not {dt}")
        if is_complex and dt.kind != "c":
            raise TypeError(f"linspace: complex start/stop need a complex dtype, not {dt}")
    # Python ints as floats first (NumPy takes ints past int64 as objects and fails)
    start, stop = (_as_float(v, name, dt) for v, name in ((start, "start"), (stop, "stop")))
    check_size((int(num),), dt)
    a = np.linspace(start, stop, int(num), endpoint=endpoint, dtype=dt)
    return _from_host(a, device)


def _as_float(v, name: str, dt: np.dtype):
    if not isinstance(v, builtins.int) or isinstance(v, builtins.bool):
        return v
    try:
        return builtins.float(v)
    except OverflowError:
        raise OverflowError(f"linspace: {name} (a Python int of {v.bit_length()} bits) is too large "
                            f"for a floating-point value (the largest {dt} is {np.finfo(dt).max})") from None


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None) -> Array:
    """A 2-D array with ones on diagonal ``k`` and zeros elsewhere.

    Args:
        n_rows: the number of rows.
        n_cols: the number of columns (None: ``n_rows``).
        k: the diagonal: 0 the main one, positive above it, negative below.
        dtype: the dtype; None gives ``float64``.
        device: as for ``zeros``.

    Examples:
        >>> import rocarray as ra
        >>> ra.eye(2, 3, k=1, dtype=ra.int32)
        array([[0, 1, 0],
               [0, 0, 1]], dtype=int32)
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    for name, v in (("n_rows", n_rows), ("n_cols", n_cols), ("k", k)):
        if v is not None and not isinstance(v, (builtins.int, np.integer)):
            raise TypeError(f"eye: {name} must be an integer, not {type(v).__name__}")
    if n_rows < 0 or (n_cols is not None and n_cols < 0):
        raise ValueError("eye: n_rows and n_cols must be non-negative")
    return _from_host(np.eye(n_rows, n_cols, k=k, dtype=dt), device)


def from_dlpack(x, /, *, device=None, copy=None) -> Array:
    """Import an array from any object with ``__dlpack__`` (NumPy, CuPy, PyTorch, JAX...).

    The array shares the producer's memory (zero-copy) when it lives on the same device;
    ``device`` asks for another device (a copy), ``copy=True`` always copies, ``copy=False``
    never does. On a GPU the producer is asked to order its work before ours on rocarray's
    current stream.

    Raises:
        TypeError: ``x`` has no ``__dlpack__``, or a dtype rocarray does not support.
        BufferError: from the producer, for a device it cannot export to.

    Examples:
        >>> import numpy as np, rocarray as ra
        >>> ra.from_dlpack(np.arange(3.0), device="cpu")
        array([0., 1., 2.])
    """
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} does not implement __dlpack__")
    if isinstance(x, Array):
        return asarray(x, device=device, copy=copy)
    dev_type, dev_id = x.__dlpack_device__()
    if dev_type in (1, 3):  # CPU, CUDA host (pinned) memory
        kwargs = {} if copy is None else {"copy": copy}
        a = np.from_dlpack(x, **kwargs)
        out = wrap_numpy(a)
    else:
        out = import_dlpack(x, copy=copy)
    if device is not None and as_device(device) is not out.device:
        out = asarray(out, device=device, copy=copy)
    return out


def asnumpy(a, stream=None, order="C", out=None) -> np.ndarray:
    """A NumPy array with the contents of ``a`` (copied from the device if needed): CuPy's
    ``cupy.asnumpy``.

    Args:
        a: an Array (anything else goes through ``numpy.asarray``).
        stream: accepted for CuPy compatibility and not used (the copy waits for the work
            queued on the array's device).
        order: the memory layout of the result, as NumPy's ``order`` (``"C"``, ``"F"``, ``"K"``, ``"A"``).
        out: a NumPy array of the same shape to copy into (cast to its dtype).

    Examples:
        >>> import rocarray as ra
        >>> ra.asnumpy(ra.asarray([1, 2]))
        array([1, 2])
    """
    if isinstance(a, Array):
        return a.get(stream=stream, order=order, out=out)
    r = np.asarray(a, order=order)
    if out is not None:
        np.copyto(out, r)
        return out
    return r


# -- coordinate grids and triangles (copies through the device's kernels) ----------------------


def meshgrid(*arrays, indexing="xy") -> tuple:
    """Coordinate arrays from 1-D coordinate vectors: a tuple (the standard's 2025.12 type) of N arrays of rank N, shape
    ``(N1, N2, ...)`` for ``indexing='ij'``, ``(N2, N1, ...)`` for ``'xy'`` (the default)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    for i, a in enumerate(arrays):
        if not isinstance(a, Array):
            raise TypeError(f"meshgrid: arrays[{i}] must be a rocarray array, not {type(a).__name__}")
        if a.ndim != 1:
            raise ValueError(f"meshgrid: every array must be one-dimensional; arrays[{i}] has shape {a.shape}")
    _check_same_device("meshgrid", *arrays)
    n = len(arrays)
    shape = [a.shape[0] for a in arrays]
    swap = indexing == "xy" and n > 1
    if swap:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        pos = i
        if swap and i < 2:
            pos = 1 - i
        strides = [0] * n
        strides[pos] = a.strides[0]
        view = a._view(shape, strides, a._offset)  # a broadcast along every other axis
        out.append(copy_array(view))
    return tuple(out)


def _triangle(x, k, fname: str, lower: bool) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}: x must be a rocarray array, not {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{fname}: x must have at least two dimensions (..., M, N); got shape {x.shape}")
    k = as_int(k, fname, "k")
    m, n = x.shape[-2:]
    # the output first: a shape no array can have fails before the index vectors are made
    out = Array._empty(x.shape, x.dtype, x.device)
    if x.size == 0:
        return out
    # keep (i, j) where j - i <= k (lower) or j - i >= k (upper): a mask from two index
    # vectors broadcast against each other, computed on the device
    k = builtins.max(builtins.min(k, n), -m)  # beyond the matrix every k keeps all or nothing
    rows = expand_dims(arange(m, dtype=_dtypes.int64, device=x.device), axis=1)
    cols = arange(n, dtype=_dtypes.int64, device=x.device)
    shifted = rows + k
    mask = greater_equal(shifted, cols) if lower else less_equal(shifted, cols)
    zero = full((), 0, dtype=x.dtype, device=x.device)
    return _where(mask, x, zero, out=out)


def tril(x, /, *, k=0) -> Array:
    """The lower triangle of each matrix of ``x`` (elements on and below diagonal ``k``);
    the rest set to zero."""
    return _triangle(x, k, "tril", lower=True)


def triu(x, /, *, k=0) -> Array:
    """The upper triangle of each matrix of ``x`` (elements on and above diagonal ``k``);
    the rest set to zero."""
    return _triangle(x, k, "triu", lower=False)


def copy_into(dst: Array, value) -> None:
    """Write ``value`` (array, NumPy array, scalar, nested list) into ``dst``, broadcasting
    and casting to ``dst``'s dtype."""
    if not isinstance(value, Array):
        if isinstance(value, (bool, int, float, complex, np.generic)) and not isinstance(value, np.ndarray):
            check_scalar_fits(value, dst.dtype)
            # (the value as NumPy converts it to the dtype -- 2.5 to an int 2 -- in the kernel)
            if fill_elements(dst, np.asarray(value, dtype=dst.dtype).item()):
                return
            value = asarray(value, dtype=dst.dtype, device=dst.device)
        else:
            value = asarray(value, device=dst.device)
    elif value.device is not dst.device:
        raise TypeError(
            f"cannot assign an array on {value.device} into an array on {dst.device}; "
            "move it with .to_device() first"
        )
    try:
        src = broadcast_to(value, dst.shape)
    except ValueError:
        raise ValueError(
            f"could not broadcast value of shape {value.shape} into an index result of shape {dst.shape}"
        ) from None
    if dst.size == 0:
        return
    copy_elements(src, dst)


def _rebuild(data: np.ndarray, device: str) -> Array:
    """An unpickled array: its data on the device it was pickled from (a Dask worker
    process gets the array where it was made)."""
    return asarray(data, device=device)


def _reduce_method(self):
    return (_rebuild, (self.get(), str(self.device)))


Array.__reduce__ = _reduce_method
