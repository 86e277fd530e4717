"""Buffers: a block of memory on one device that arrays view.

A buffer is a pointer, a size, a device and an owner that keeps the memory alive: a block of
the device's memory pool (returned to the pool when the buffer dies), or a NumPy array
wrapped without a copy.
"""

from __future__ import annotations

import numpy as np

from ._device import Device


class Buffer:
    """``owner`` keeps foreign memory alive (a NumPy array, a DLPack producer's tensor);
    ``pool`` is the memory pool (``runtime.memory_pool(index)``) that gets the block back
    when the buffer dies: its ``free(ptr)`` is called straight from the finalizer (the
    runtime's ``free(index, ptr)`` would only look the pool up again)."""

    __slots__ = ("ptr", "nbytes", "device", "owner", "readonly", "pool", "__weakref__")

    def __init__(self, ptr: int, nbytes: int, device: Device, owner, readonly: bool = False, pool=None):
        self.ptr = ptr
        self.nbytes = nbytes
        self.device = device
        self.owner = owner
        self.readonly = readonly
        self.pool = pool

    def __del__(self):
        if self.pool is not None:
            try:
                self.pool.free(self.ptr)
            except Exception:  # interpreter shutdown: the driver may be gone already
                pass

    def __repr__(self):
        return f"<Buffer {self.nbytes} bytes at {self.ptr:#x} on {self.device}>"


def allocate(device: Device, nbytes: int) -> Buffer:
    """A new, uninitialised buffer of ``nbytes`` on ``device`` (from its memory pool)."""
    if not nbytes:
        return Buffer(0, 0, device, None)
    rt = device.runtime
    index = device.index
    return Buffer(rt.alloc(index, nbytes), nbytes, device, None, False, rt.memory_pool(index))


_CPU = Device("cpu")


def host_buffer_from_numpy(a: np.ndarray) -> tuple[Buffer, int]:
    """Wrap NumPy memory without copying: (buffer, byte offset of a[0,...,0] in it)."""
    # The buffer spans the array's memory extent; the offset locates element 0.  (The
    # extent from the shape and strides: NumPy's ``byte_bounds`` and ``ctypes.data`` each
    # cost as much as the rest of a wrap.)
    ptr = a.__array_interface__["data"][0]
    lo = hi = ptr
    if a.size:
        for n, st in zip(a.shape, a.strides):
            if st < 0:
                lo += (n - 1) * st
            else:
                hi += (n - 1) * st
        hi += a.itemsize
    return Buffer(lo, hi - lo, _CPU, a, not a.flags.writeable), ptr - lo


class _HostView:
    """Presents host memory to NumPy through ``__array_interface__`` (no copy)."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner, ptr, shape, strides, typestr, readonly):
        self.owner = owner
        self.__array_interface__ = {
            "version": 3,
            "data": (ptr, readonly),
            "shape": shape,
            "strides": strides,
            "typestr": typestr,
        }


def host_ndarray(buf: Buffer, offset: int, shape, strides, dtype: np.dtype) -> np.ndarray:
    """A NumPy array viewing host buffer memory (shape/strides in elements'/bytes' units)."""
    view = _HostView(buf, buf.ptr + offset, tuple(shape), tuple(strides), dtype.str, buf.readonly)
    return np.asarray(view)
