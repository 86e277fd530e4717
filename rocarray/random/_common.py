"""Shared pieces of ``rocarray.random``'s ``Generator``: argument checks, result shapes and
the finishing of results."""

from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from .._array_object import Array
from .._elementwise_functions import log1p, minimum, where
from .._statistical_functions import any as _any

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
#: NumPy's largest Poisson mean (``numpy.random.Generator.poisson``).
_POISSON_LAM_MAX = np.iinfo(np.int64).max - 10 * math.sqrt(np.iinfo(np.int64).max)


def _shape(size) -> tuple:
    if size is None:
        return ()
    if type(size) is int and size >= 0:  # (the common case, before the general checks)
        return (size,)
    if isinstance(size, (numbers.Integral, np.integer)):
        size = (size,)
    try:
        shape = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"size must be None, an int or a tuple of ints, got {size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _float_dtype(dtype, who: str) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in _FLOATS:
        raise TypeError(f"Unsupported dtype {dt!r} for {who}: float32 or float64")
    return dt


def _is_scalar(v) -> bool:
    return isinstance(v, (numbers.Real, np.generic)) or (isinstance(v, np.ndarray) and v.ndim == 0)


def _bad(value, test) -> bool:
    """Whether ``test`` holds for the scalar or for any element of the array ``value``."""
    if isinstance(value, Array):
        return bool(_any(test(value)))
    return bool(np.any(test(np.asarray(value))))


def _result_shape(size, shapes: list) -> tuple:
    """``size`` as a shape (the parameters' ``shapes`` must broadcast to it), or without a
    size the parameters' broadcast shape."""
    shape = _shape(size) if size is not None else np.broadcast_shapes(*shapes) if shapes else ()
    if size is not None:
        try:
            fits = np.broadcast_shapes(shape, *shapes) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"parameter shapes {shapes} cannot be broadcast to size {shape}")
    return shape


_INT64_MAX = int(np.iinfo(np.int64).max)


def _to_int64(x: Array) -> Array:
    """Whole float64 values as int64, those past int64's range as its largest value (as
    NumPy's geometric and logseries samplers do)."""
    return where(x >= 2.0**63, _INT64_MAX, minimum(x, 2.0**63 - 1024).astype(np.int64))


def _log1p(x):
    """``log1p`` of a float64 array or of a Python float (-inf at -1, no exception)."""
    if isinstance(x, Array):
        return log1p(x)
    with np.errstate(divide="ignore"):
        return float(np.log1p(x))


def _host(value, dtype=None) -> np.ndarray:
    """A parameter as a NumPy array on the host (a rocarray array is copied there)."""
    return np.asarray(value.get() if isinstance(value, Array) else value, dtype=dtype)


def _contiguous_result(buf: Array, n: int, shape: tuple) -> Array:
    """The first ``n`` elements of the 1-D ``buf`` as a C-contiguous array of ``shape``."""
    strides, step = [], buf.dtype.itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return buf._view(shape, tuple(reversed(strides)), buf._offset)


def _finish(result: Array, out):
    if out is None:
        return result
    if not isinstance(out, Array):
        raise TypeError("out must be a rocarray array")
    if out.shape != result.shape or out.dtype != result.dtype:
        raise ValueError(f"out must have shape {result.shape} and dtype {result.dtype}, "
                         f"got {out.shape} and {out.dtype}")
    out[...] = result
    return out
