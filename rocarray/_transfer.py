"""Host <-> device bytes: NumPy arrays onto a device, contiguous arrays back to the host
and from one GPU to another.

Part of the array core: only whole contiguous byte ranges move here, through the runtimes'
copy hooks.  Strided copies and casts are the ops layer's copy op (``rocarray._copy``).
"""

from __future__ import annotations

import ctypes

import numpy as np

from . import _dtypes
from ._array_object import Array
from ._buffer import _CPU, Buffer, host_buffer_from_numpy
from ._device import Device


def numpy_to_device(a: np.ndarray, device: Device, dtype: np.dtype | None = None) -> Array:
    """A new array on ``device`` holding a copy of NumPy array ``a`` (cast to ``dtype``)."""
    dt = _dtypes.as_dtype(a.dtype if dtype is None else dtype)
    a = np.asarray(a, dtype=dt)
    if not a.flags.c_contiguous:
        a = a.copy(order="C")  # (np.ascontiguousarray would make 0-d arrays 1-d)
    out = Array._empty(a.shape, dt, device)
    if a.nbytes:
        if device.kind == "cpu":
            out._host()[...] = a
        else:
            device.runtime.copy_host_to_device(device.index, out.data_ptr, a.ctypes.data, a.nbytes)
    return out


def wrap_numpy(a: np.ndarray) -> Array:
    """A CPU array sharing NumPy array ``a``'s memory (no copy)."""
    dt = _dtypes.as_dtype(a.dtype)
    if a.dtype != dt:  # byte-swapped input: NumPy converts, we wrap the converted copy
        a = a.astype(dt)
    buf, offset = host_buffer_from_numpy(a)
    return Array._new(buf, a.shape, a.strides, offset, dt)


def wrap_new_line(a: np.ndarray, dtype: np.dtype) -> Array:
    """A CPU array over the memory of ``a``, a new, writable, C-contiguous, non-empty 1-d
    NumPy array of ``dtype`` (a rocarray dtype), which it keeps alive.  What ``wrap_numpy``
    does, for an array known to be such: its address read through ctypes, where NumPy's
    ``__array_interface__`` costs as much as a short line's sort's rest (a host op that
    lets NumPy write its result, then hands it on)."""
    buf = Buffer(ctypes.addressof(ctypes.c_char.from_buffer(a)), a.nbytes, _CPU, a, False)
    return Array._new(buf, a.shape, a.strides, 0, dtype)


def contiguous_to_numpy(x: Array, order="C") -> np.ndarray:
    """A NumPy copy of the C-contiguous device array ``x``."""
    a = np.empty(x.shape, dtype=x.dtype)
    if x.nbytes:
        dev = x.device
        dev.runtime.copy_device_to_host(dev.index, a.ctypes.data, x.data_ptr, x.nbytes)
    if order not in ("C", "K", "A"):
        a = np.asarray(a, order=order)
    return a


def contiguous_to_device(x: Array, device: Device) -> Array:
    """A copy of the C-contiguous GPU array ``x`` on another GPU ``device``.

    Between two devices of one runtime (``cuda:0`` -> ``cuda:1``) the bytes go device to
    device, by peer access where the hardware allows it, else staged through pinned host
    memory (``GPURuntime.copy_peer``); the copy is queued, ordered after the work that
    wrote ``x`` and before later work on ``device``.  Between two kinds of GPU they go
    through the host.
    """
    src = x.device
    if src.kind != device.kind:
        return numpy_to_device(contiguous_to_numpy(x), device)
    out = Array._empty(x.shape, x.dtype, device)
    if x.nbytes:
        device.runtime.copy_peer(device.index, out.data_ptr, src.index, x.data_ptr, x.nbytes)
    return out


def check_scalar_fits(value, dtype: np.dtype) -> None:
    """TypeError or OverflowError when the Python scalar ``value`` cannot be stored in
    an array of ``dtype``."""
    if isinstance(value, complex) and dtype.kind != "c":
        raise TypeError(f"cannot store a complex value in an array of dtype {dtype}")
    if isinstance(value, int) and not isinstance(value, bool) and dtype.kind in "iu":
        _dtypes.check_int_fits(value, dtype, "setitem")
