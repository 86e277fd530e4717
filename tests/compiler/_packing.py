"""The launcher's packed parameter buffer for a kernel over NumPy arrays, built the way the
generic launcher fills it (shared by the tests that run quick-tier kernels on the host)."""

import ctypes

import numpy as np

from rocarray._launch import pack_format
from rocarray.targets.base import MAX_DIMS


def launch_values(operands, arrays_and_scalars, shape) -> tuple[int, list]:
    """``(n, values)``: the element count and the values after ``n`` for ``operands`` over
    ``shape``; arrays are NumPy arrays (inputs broadcast to ``shape``), scalars Python or
    NumPy scalars, raw operands arrays passed whole."""
    ndim = max(len(shape), 1)
    dims = tuple(shape) if shape else (1,)
    values = [ndim, *dims, *([1] * (MAX_DIMS - ndim))]
    for op, x in zip(operands, arrays_and_scalars):
        if op.kind == "scalar":
            if op.dtype.kind == "c":
                values.extend((x.real, x.imag))
            elif op.dtype.kind == "b":
                values.append(bool(x))
            elif op.dtype.kind == "f":
                values.append(float(x))
            else:
                values.append(int(x))
        elif op.kind == "raw":
            st = list(x.strides) or [0]
            sh = list(x.shape) or [1]
            values.extend((x.ctypes.data, x.size, max(x.ndim, 1), *sh, *([1] * (MAX_DIMS - len(sh))),
                           *st, *([0] * (MAX_DIMS - len(st)))))
        else:
            v = np.broadcast_to(x, shape) if op.kind == "in" else x
            st = list(v.strides) if v.ndim else [0]
            values.extend((v.ctypes.data, *st, *([0] * (MAX_DIMS - len(st)))))
    n = int(np.prod(shape)) if shape else 1
    return n, values


def packed_buffer(operands, arrays_and_scalars, shape):
    """``(n, values, buffer)``: ``launch_values`` packed into a C buffer by the kernel's
    packer."""
    n, values = launch_values(operands, arrays_and_scalars, shape)
    packer = pack_format(operands)
    buf = ctypes.create_string_buffer(packer.size)
    packer.pack_into(buf, 0, n, *values)
    return n, values, buf


def layout_pair(layout: str, rng):
    """Two float32 operands of a binary kernel in one of the layouts the quick-tier tests
    run: "contiguous", "strided", "reversed", "broadcast", "3d", "8d", "empty", "0d"."""
    base = rng.standard_normal((6, 8, 10)).astype(np.float32)
    if layout == "contiguous":
        return base.ravel(), base.ravel()[::-1].copy()
    if layout == "strided":
        return base[::2, 1::3, ::4], base[1::2, ::3, 1::4]
    if layout == "reversed":
        return base[::-1, :, ::-1], base
    if layout == "broadcast":
        return base[0], base[0, :1, :]
    if layout == "3d":
        a = base.transpose(2, 0, 1)
        return a, np.ascontiguousarray(a)[:, :, ::-1]
    if layout == "8d":
        a = rng.standard_normal((2, 3, 2, 2, 3, 2, 2, 3)).astype(np.float32).transpose(7, 1, 5, 3, 0, 2, 6, 4)
        return a, a[:, ::-1, :, :, :, ::-1, :, :].copy()[..., ::-1]
    if layout == "empty":
        return base[:, :0], base[:, :0]
    if layout == "0d":
        return np.float32(1.5) * np.ones((), np.float32), np.ones((), np.float32)
    raise ValueError(f"unknown layout {layout!r}")
