"""The GPU backend's FFTs: cuFFT / hipFFT plans over a ``Library`` table, cached by shape.

A transform is planned over the last axes of a C-contiguous array (the checked axes are
moved last with a view and copied contiguous when they are not), at most three axes per
plan (the libraries' limit; more axes run as several plans).  Real transforms put the
real-to-complex (or complex-to-real) step on the last axis, the other axes complex.
Plans are cached per thread by (device, type, lengths, batch), the least recently used
destroyed past ``MAX_PLANS`` (as CuPy's plan cache).  A plan keeps the stream it was last
bound to and a work area from rocarray's memory pool (as CuPy's plans hold theirs): an
execution on the same stream makes one library call; a new stream rebinds the plan and
gives it a new area.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict

import numpy as np

from .._array_object import Array
from .._creation_functions import zeros
from .._elementwise import copy_elements
from .._elementwise_functions import conj, multiply
from .._views import permute_dims
from .library import Library

#: Plans kept per thread; each holds its work area (pool memory, at most about the size of
#: its data) until it is destroyed.
MAX_PLANS = 16

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_C2C = {np.dtype(np.complex64): ("fft_c2c", "FFT_C2C"), np.dtype(np.complex128): ("fft_z2z", "FFT_Z2Z")}
_R2C = {np.dtype(np.float32): ("fft_r2c", "FFT_R2C"), np.dtype(np.float64): ("fft_d2z", "FFT_D2Z")}
_C2R = {np.dtype(np.complex64): ("fft_c2r", "FFT_C2R"), np.dtype(np.complex128): ("fft_z2d", "FFT_Z2D")}
_CPLX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL = {v: k for k, v in _CPLX.items()}
#: The library operation that executes a plan of each type.
_EXEC = {t: call for table in (_C2C, _R2C, _C2R) for call, t in table.values()}


def _contiguous(x: Array, fresh: bool) -> Array:
    if x.is_c_contiguous() and not fresh:
        return x
    out = Array._empty(x.shape, x.dtype, x.device)
    if x.size:
        copy_elements(x, out)
    return out


def _resize(x: Array, axis: int, n: int) -> Array:
    """``x`` cropped (a view) or zero-padded (a copy) to ``n`` along ``axis``."""
    size = x.shape[axis]
    if n == size:
        return x
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1:]
    if n < size:
        return x._view(shape, x.strides, x._offset)
    out = zeros(shape, dtype=x.dtype, device=x.device)
    out[(slice(None),) * axis + (slice(0, size),)] = x
    return out


class FFT:
    """The FFTs of one GPU backend: ``fft(kind, x, s, axes, norm, out_dtype)`` as the host's."""

    def __init__(self, library: Library, stream_of):
        self.lib = library
        self._stream = stream_of
        self._local = threading.local()

    # -- plans -------------------------------------------------------------------------------

    def _plan(self, device, type_name: str, lengths: tuple, batch: int) -> list:
        """The cached plan entry ``[plan, work bytes, bound stream, work area]`` (made on a miss)."""
        cache = self._local.__dict__.get("plans")
        if cache is None:
            cache = self._local.plans = OrderedDict()
        key = (device.index, type_name, lengths, batch)
        found = cache.get(key)
        if found is not None:
            cache.move_to_end(key)
            return found
        lib = self.lib
        plan = lib.call("fft_create")()
        lib.call("fft_auto_allocation")(plan, 0)
        n = math.prod(lengths)
        half = math.prod(lengths[:-1]) * (lengths[-1] // 2 + 1)
        idist, odist = {"FFT_R2C": (n, half), "FFT_D2Z": (n, half),
                        "FFT_C2R": (half, n), "FFT_Z2D": (half, n)}.get(type_name, (n, n))
        work = lib.call("fft_plan")(plan, len(lengths), lib.enums["FFT_LENGTHS"](lengths), 0, 1, idist, 0, 1,
                                    odist, lib.enums[type_name], batch)
        # [plan, work bytes, bound stream, work area, the execution call of its type]
        cache[key] = found = [plan, int(work or 0), None, None, lib.call(_EXEC[type_name])]
        while len(cache) > MAX_PLANS:
            _, (old, *_) = cache.popitem(last=False)  # (its work area goes back to the pool)
            lib.call("fft_destroy")(old)
        return found

    def _run(self, op, x: Array, out: Array, rank: int, lengths: tuple, direction=None) -> None:
        """Execute ``op`` (a ``_C2C``/``_R2C``/``_C2R`` entry) over the last ``rank`` axes."""
        if not out.size:
            return
        type_name = op[1]
        device = x._buf.device
        stream = self._stream(device)
        batch = math.prod(out._shape[:-rank]) if len(out._shape) > rank else 1
        entry = self._plan(device, type_name, lengths, batch)
        lib = self.lib
        if entry[2] != stream:
            # a plan keeps its work area while it runs on one stream (the executions are
            # ordered there); a new stream gets a new area and the binding calls
            plan = entry[0]
            lib.call("fft_set_stream")(plan, stream)
            entry[3] = Array._empty((max(entry[1], 1),), np.dtype(np.uint8), device)
            lib.call("fft_work_area")(plan, entry[3].data_ptr)
            entry[2] = stream
        if direction is None:
            entry[4](entry[0], x._buf.ptr + x._offset, out._buf.ptr + out._offset)
        else:
            entry[4](entry[0], x._buf.ptr + x._offset, out._buf.ptr + out._offset, direction)

    # -- transforms over the last axes ----------------------------------------------------------

    def _c2c(self, x: Array, rank: int, inverse: bool) -> Array:
        """The complex transform of the last ``rank`` axes of ``x``, three axes per plan."""
        direction = self.lib.enums["FFT_INVERSE" if inverse else "FFT_FORWARD"]
        nd = x.ndim
        if rank <= 3:  # one plan over the last axes, as they lie
            src = _contiguous(x, False)
            out = Array._empty(src._shape, src._dtype, src._buf.device)
            self._run(_C2C[x.dtype], src, out, rank, src._shape[nd - rank:], direction)
            return out
        done = 0
        while done < rank:
            group = min(3, rank - done)
            # the group's axes, counted from the end, moved last
            axes = list(range(nd - done - group, nd - done))
            order = [d for d in range(nd) if d not in axes] + axes
            moved = permute_dims(x, tuple(order)) if done else x
            src = _contiguous(moved, False)
            out = Array._empty(src.shape, src.dtype, src.device)
            self._run(_C2C[x.dtype], src, out, group, src.shape[nd - group:], direction)
            x = permute_dims(out, tuple(int(i) for i in np.argsort(order))) if done else out
            done += group
        return x

    def fft(self, kind: str, x: Array, s: tuple, axes: tuple, norm: str, out_dtype) -> Array:
        self.lib.load()
        if kind == "hfft":
            return self.fft("irfft", conj(x), s, axes, _SWAP[norm], out_dtype)
        if kind == "ihfft":
            return conj(self.fft("rfft", x, s, axes, _SWAP[norm], out_dtype))
        inverse = kind in ("ifft", "ifftn", "irfft", "irfftn")
        real_in = kind in ("rfft", "rfftn")
        real_out = kind in ("irfft", "irfftn")
        nd, rank = x.ndim, len(axes)
        order = tuple(d for d in range(nd) if d not in axes) + tuple(axes)
        xt = permute_dims(x, order) if order != tuple(range(nd)) else x
        lengths = list(s)
        if real_out:
            lengths[-1] = s[-1] // 2 + 1
        for i, n in enumerate(lengths):
            xt = _resize(xt, nd - rank + i, n)
        if real_in:
            out = self._real_forward(xt, rank, s)
        elif real_out:
            out = self._real_inverse(xt, rank, s)
        else:
            out = self._c2c(xt, rank, inverse)
        if norm == "ortho" or inverse == (norm == "backward"):  # (else the side unscaled)
            total = math.prod(s)
            if total != 1:
                out = multiply(out, 1.0 / math.sqrt(total) if norm == "ortho" else 1.0 / total)
        if order != tuple(range(nd)):
            out = permute_dims(out, tuple(int(i) for i in np.argsort(order)))
        return out

    def _real_forward(self, x: Array, rank: int, s: tuple) -> Array:
        """r2c over the last axis (with up to two more in the same plan), then c2c over the rest."""
        group = min(3, rank)
        lead = x.shape[:x.ndim - rank]
        src = _contiguous(x, False)
        out = Array._empty(lead + tuple(s[:-1]) + (s[-1] // 2 + 1,), _CPLX[x.dtype], x.device)
        if group == rank:
            self._run(_R2C[x.dtype], src, out, rank, tuple(s))
            return out
        # the last `group` axes in one real plan, batched over everything before them
        self._run(_R2C[x.dtype], src, out, group, tuple(s[-group:]))
        return self._c2c_axes(out, range(x.ndim - rank, x.ndim - group), inverse=False)

    def _real_inverse(self, x: Array, rank: int, s: tuple) -> Array:
        """c2c over the leading transform axes beyond three, then c2r over the last ones."""
        group = min(3, rank)
        if group < rank:
            x = self._c2c_axes(x, range(x.ndim - rank, x.ndim - group), inverse=True)
        src = _contiguous(x, True)  # c2r overwrites its input
        lead = x.shape[:x.ndim - group]
        out = Array._empty(lead + tuple(s[-group:]), _REAL[x.dtype], x.device)
        self._run(_C2R[x.dtype], src, out, group, tuple(s[-group:]))
        return out

    def _c2c_axes(self, x: Array, axes, inverse: bool) -> Array:
        axes = list(axes)
        order = tuple(d for d in range(x.ndim) if d not in axes) + tuple(axes)
        out = self._c2c(permute_dims(x, order), len(axes), inverse)
        return permute_dims(out, tuple(int(i) for i in np.argsort(order)))
