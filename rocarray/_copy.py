"""Copies between arrays and devices, through the elementwise copy op.

Installs the Array methods that copy: ``get``, ``to_device``, ``copy``, ``__copy__``.
"""

from __future__ import annotations

import numpy as np

from ._array_object import Array
from ._device import Device, as_device
from ._elementwise import copy_array, copy_elements
from ._transfer import contiguous_to_device, contiguous_to_numpy, numpy_to_device, wrap_numpy


def contiguous(x: Array) -> Array:
    """``x`` itself if C-contiguous, else a C-contiguous copy on the same device."""
    if x.is_c_contiguous():
        return x
    out = Array._empty(x.shape, x.dtype, x.device)
    copy_elements(x, out)
    return out


def device_to_numpy(x: Array, order="C") -> np.ndarray:
    """A NumPy copy of the device array ``x`` (any layout)."""
    return contiguous_to_numpy(contiguous(x), order)


def copy_to_device(x: Array, device: Device) -> Array:
    """A copy of ``x`` on another device."""
    src = x.device
    if src.kind == "cpu":
        return numpy_to_device(x._host(), device)
    if device.kind == "cpu":
        a = device_to_numpy(x)
        return wrap_numpy(a)
    return contiguous_to_device(contiguous(x), device)  # GPU to GPU


def _get(self, stream=None, order="C", out=None) -> np.ndarray:
    """Copy this array to a NumPy array on the host (CuPy's ``.get()``; ``asnumpy``).

    Args:
        stream: accepted for CuPy compatibility and not used (the copy waits for the work
            queued on the array's device).
        order: the memory layout of the result, as NumPy's ``order``.
        out: a NumPy array of the same shape to copy into (cast to its dtype).

    Raises:
        ValueError: ``out`` is not a NumPy array of this shape.

    Examples:
        >>> import rocarray as ra
        >>> ra.arange(3).get()
        array([0, 1, 2])
    """
    if self._buf.device.kind == "cpu":
        a = np.array(self._host(), order=order, copy=True)
    else:
        a = device_to_numpy(self, order=order)
    if out is not None:
        if not isinstance(out, np.ndarray) or out.shape != a.shape:
            raise ValueError(f"get: out must be a numpy.ndarray of shape {a.shape}")
        np.copyto(out, a, casting="unsafe")
        return out
    return a


def _to_device(self, device, /, *, stream=None) -> Array:
    """This array on ``device``: a copy there, or the array itself if it is already there.

    Args:
        device: a ``Device`` or a string (``"cpu"``, ``"cuda:0"``, ``"hip:0"``).
        stream: accepted for the standard's signature and not used (the copy is complete when
            it returns).

    Examples:
        >>> import rocarray as ra
        >>> ra.asarray([1.0, 2.0]).to_device("cpu").device
        Device('cpu')
    """
    dev = as_device(device)
    if dev is self.device:
        return self
    return copy_to_device(self, dev)


def _copy_method(self) -> Array:
    """A C-contiguous copy of this array on the same device (also ``copy.copy(x)``).

    Examples:
        >>> import rocarray as ra
        >>> x = ra.asarray([1, 2]); y = x.copy(); y[0] = 5; x
        array([1, 2])
    """
    return copy_array(self)


Array.get = _get
Array.to_device = _to_device
Array.__copy__ = _copy_method
Array.copy = _copy_method
