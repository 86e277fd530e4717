"""Moving data: host <-> device transfers, copies between arrays, DLPack.

Copies inside one device (with broadcasting and casting) go through the elementwise
pipeline's ``copy`` op on every device, so a cast behaves the same on the CPU and on GPUs;
transfers between devices move contiguous bytes through the runtimes' copy hooks.
"""

from __future__ import annotations

import numpy as np

from . import _dtypes
from ._array_object import Array
from ._buffer import host_buffer_from_numpy
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


def contiguous(x: Array) -> Array:
    """``x`` itself if C-contiguous, else a C-contiguous copy on the same device."""
    if x.is_c_contiguous():
        return x
    out = Array._empty(x.shape, x.dtype, x.device)
    copy_into(out, x)
    return out


def device_to_numpy(x: Array, order="C") -> np.ndarray:
    x = contiguous(x)
    a = np.empty(x.shape, dtype=x.dtype)
    if x.nbytes:
        dev = x.device
        dev.runtime.copy_device_to_host(dev.index, a.ctypes.data, x.data_ptr, x.nbytes)
    if order not in ("C", "K", "A"):
        a = np.asarray(a, order=order)
    return a


def copy_to_device(x: Array, device: Device) -> Array:
    """A copy of ``x`` on another device."""
    src = x.device
    if src.kind == "cpu":
        return numpy_to_device(x._host(), device)
    if device.kind == "cpu":
        a = device_to_numpy(x)
        return wrap_numpy(a)
    # GPU to GPU (another device, or another kind): through the host.
    return numpy_to_device(device_to_numpy(x), device)


def copy_into(dst: Array, value) -> None:
    """Write ``value`` (array, NumPy array, scalar, nested list) into ``dst``, broadcasting
    and casting to ``dst``'s dtype."""
    from ._creation_functions import asarray

    if not isinstance(value, Array):
        if isinstance(value, (bool, int, float, complex, np.generic)) and not isinstance(value, np.ndarray):
            _check_scalar_fits(value, dst.dtype)
            value = asarray(value, dtype=dst.dtype, device=dst.device)
        else:
            value = asarray(value, device=dst.device)
    elif value.device is not dst.device:
        raise TypeError(
            f"cannot assign an array on {value.device} into an array on {dst.device}; "
            "move it with .to_device() first"
        )
    from ._manipulation_functions import broadcast_to

    try:
        src = broadcast_to(value, dst.shape)
    except ValueError:
        raise ValueError(
            f"could not broadcast value of shape {value.shape} into an index result of shape {dst.shape}"
        ) from None
    if dst.size == 0:
        return
    copy_elements(src, dst)


def copy_elements(src: Array, dst: Array) -> None:
    """dst[...] = src for arrays of one shape on one device, casting like NumPy's 'unsafe'."""
    from ._elementwise_functions import copy_kernel

    copy_kernel(src, dst)


def _check_scalar_fits(value, dtype: np.dtype) -> None:
    if isinstance(value, complex) and dtype.kind != "c":
        raise TypeError(f"cannot store a complex value in an array of dtype {dtype}")
    if isinstance(value, int) and not isinstance(value, bool) and dtype.kind in "iu":
        from ._dtypes import check_int_fits

        check_int_fits(value, dtype, "setitem")


def to_dlpack(x: Array, *, stream=None, max_version=None, dl_device=None, copy=None):
    if x.device.kind == "cpu":
        h = x._host()
        if copy:
            h = h.copy()
        kwargs = {}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        return h.__dlpack__(**kwargs)
    from ._dlpack import export_dlpack

    return export_dlpack(x, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

