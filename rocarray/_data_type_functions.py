"""The spec's data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type;
installs ``Array.astype``."""

from __future__ import annotations

from . import _dtypes
from ._array_object import Array
from ._elementwise import copy_elements
from ._dtypes import can_cast, finfo, iinfo, isdtype, result_type  # noqa: F401 - re-exported


def astype(x: Array, dtype, /, *, copy: bool = True, device=None) -> Array:
    """``x`` converted to ``dtype``, on ``device`` if given.

    Args:
        x: an array.
        dtype: any supported dtype (a rocarray/NumPy dtype or its name).
        copy: True always returns a new array; False returns ``x`` itself when nothing changes.
        device: a device to copy the result to (the 2024.12 standard's argument).

    Raises:
        TypeError: complex to a real dtype (NumPy drops the imaginary part with a warning;
            take ``real()`` or ``abs()`` first), or a dtype rocarray does not support.

    Examples:
        >>> import rocarray as ra
        >>> ra.astype(ra.asarray([1.7, -1.7]), ra.int32)
        array([ 1, -1], dtype=int32)
    """
    if not isinstance(x, Array):
        raise TypeError(f"astype: expected a rocarray array, got {type(x).__name__}")
    dt = _dtypes.as_dtype(dtype)
    if device is not None:
        x = x.to_device(device)
    if dt == x.dtype and not copy:
        return x
    if x.dtype.kind == "c" and dt.kind != "c":
        raise TypeError(
            f"astype: casting complex {x.dtype} to {dt} would drop the imaginary part; "
            "take real() or abs() first"
        )
    out = Array._empty(x.shape, dt, x.device)
    if x.size:
        copy_elements(x, out)
    return out


def _astype_method(self, dtype, copy: bool = True) -> Array:
    """``x.astype(dtype, copy=True)``: see ``rocarray.astype``."""
    return astype(self, dtype, copy=copy)


Array.astype = _astype_method
