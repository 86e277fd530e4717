"""Advanced indexing on the device: gathers, scatters and masks through index arrays.

A few kernels written with ``ElementwiseKernel`` / ``ReductionKernel`` (one compile cache,
every device): ``rk_index_bad`` (any index outside ``[-n, n)``: an ``IndexError`` before
anything is read or written), ``rk_index_step`` (fold one index array into the flat index
over the indexed axes), ``rk_gather`` / ``rk_scatter`` (through a raw operand),
``rk_compact`` (a mask's true positions, from its ``cumulative_sum``) and ``rk_unravel``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._array_object import Array, _c_strides, _prod
from ._copy import contiguous
from ._elementwise import copy_array
from ._elementwise_functions import not_equal
from ._statistical_functions import cumulative_sum, max as _max, min as _min
from ._user_kernels import ElementwiseKernel, ReductionKernel
from ._views import _nocopy_reshape, broadcast_shapes, broadcast_to
from .targets.base import MAX_DIMS

_int64 = np.dtype(np.int64)

_index_bad = ReductionKernel(
    "I idx, int64 n", "bool bad",
    "idx < 0 ? (long)idx < -n : (unsigned long)idx >= (unsigned long)n",
    "a || b", "bad = a", "false", "rk_index_bad")

_index_step = ElementwiseKernel(
    "int64 acc, I idx, int64 n", "int64 out",
    "long v = (long)idx; if (v < 0) v += n; out = acc * n + v;", "rk_index_step")

_flat_step = ElementwiseKernel(
    "int64 acc, int64 idx, int64 n", "int64 out", "out = acc * n + idx;", "rk_flat_step")

_gather = ElementwiseKernel(
    "raw T src, int64 base, int64 nrest", "T y", "y = src[base * nrest + i % nrest];",
    "rk_gather")

_scatter = ElementwiseKernel(
    "int64 base, T v, int64 nrest", "raw T dst", "dst[base * nrest + i % nrest] = v;",
    "rk_scatter")

_compact = ElementwiseKernel(
    "bool m, int64 pos", "raw int64 out", "if (m) out[pos - 1] = i;", "rk_compact")

_unravel = ElementwiseKernel(
    "int64 f, raw bool shape_of", "raw int64 out",
    """long r = f;
       long n = _ind.size();
       for (int d = shape_of.ndim - 1; d >= 0; d--) {
           long s = shape_of.shape()[d];
           out[d * n + i] = r % s;
           r = r / s;
       }""", "rk_unravel")


# -- indices ------------------------------------------------------------------------------

def check_bounds(idx: Array, n: int, axis: int) -> None:
    """``IndexError`` unless every element of the integer array ``idx`` is in ``[-n, n)``."""
    if idx.size == 0:
        return
    if not bool(_index_bad(idx, n)):
        return
    lo, hi = int(_min(idx)), int(_max(idx))
    bad = lo if lo < -n else hi
    raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def flat_true(mask: Array) -> Array:
    """The flat C-order positions (int64, 1-D) of the non-zero elements of ``mask``."""
    m = mask if mask.dtype.kind == "b" else not_equal(mask, 0)
    m = m.reshape(-1) if m.ndim != 1 else m
    if not m.is_c_contiguous():
        m = contiguous(m)
    n = m.size
    if n == 0:
        return Array._empty((0,), _int64, m.device)
    pos = cumulative_sum(m, dtype=_int64)
    count = int(pos[n - 1])
    out = Array._empty((count,), _int64, m.device)
    if count:
        _compact(m, pos, out)
    return out


def unravel(flat: Array, shape: tuple) -> tuple:
    """One int64 index array per dimension of ``shape`` for the flat positions ``flat``."""
    k = len(shape)
    out = Array._empty((k, flat.size), _int64, flat.device)
    if flat.size:
        if k > MAX_DIMS:
            raise ValueError(f"nonzero: at most {MAX_DIMS} dimensions are supported, got {k}")
        # a zero-strided bool array of ``shape``: only its shape is read by the kernel
        desc = Array._new(flat._buf, tuple(shape), (0,) * k, flat._offset, np.dtype(np.bool_))
        _unravel(flat, desc, out)
    return tuple(out[d] for d in range(k))


# -- the gather / scatter plan ----------------------------------------------------------------

@dataclass(slots=True, eq=False)
class Index:
    """One advanced index over ``count`` consecutive axes of the view, starting at ``axis``:
    ``kind`` 'int' (an integer array, checked and wrapped) or 'flat' (flat positions over the
    ``count`` axes, already in range: a boolean mask)."""

    axis: int
    count: int
    array: Array
    kind: str


def _plan(v: Array, indices: list, write: bool = False):
    """(src view with the indexed axes first, base flat index array over them, broadcast
    shape B, the shape R of the other axes)."""
    adv_axes = []
    for ix in indices:
        adv_axes.extend(range(ix.axis, ix.axis + ix.count))
    rest = [a for a in range(v.ndim) if a not in adv_axes]
    order = adv_axes + rest
    src = v._view(tuple(v.shape[a] for a in order), tuple(v.strides[a] for a in order), v._offset)
    try:
        b_shape = broadcast_shapes(*(ix.array.shape for ix in indices))
    except ValueError:  # (NumPy's kind of error for a key that does not fit together)
        raise IndexError("shape mismatch: index arrays could not be broadcast together with shapes "
                         + " ".join(str(ix.array.shape) for ix in indices)) from None
    if _prod(b_shape):  # (index arrays that select nothing are not checked, as in NumPy)
        for ix in indices:
            if ix.kind == "int":
                check_bounds(ix.array, v.shape[ix.axis], ix.axis)
    base = 0
    for ix in indices:
        n = _prod(v.shape[ix.axis:ix.axis + ix.count])
        if ix.kind == "int":
            base = _index_step(base, ix.array, n)
        elif isinstance(base, int):
            base = ix.array
        else:
            base = _flat_step(base, ix.array, n)
    if base.shape != b_shape:
        base = broadcast_to(base, b_shape)
    r_shape = tuple(v.shape[a] for a in rest)
    # the raw source: one flat run if its layout allows (the kernel's fast path), else as is
    if src.ndim > 1:
        n_all = src.size
        st = (_c_strides((n_all,), src.itemsize) if n_all <= 1
              else _nocopy_reshape(src.shape, src.strides, (n_all,)))
        if st is not None:
            src = src._view((n_all,), st, src._offset)
        elif src.ndim > MAX_DIMS:
            if write:
                raise IndexError(f"assignment through array indices supports at most {MAX_DIMS} "
                                 f"non-contiguous dimensions; this view has {src.ndim}")
            src = contiguous(src).reshape(-1)
    return src, base, b_shape, r_shape


def _placement(nb: int, nr: int, p: int | None):
    """The final shape's order: B first (p None) or B inserted before rest axis ``p``; returns
    the permutation that views the final array in B + R order."""
    if p is None or p == 0:
        return None
    # final axes: R[:p], B, R[p:]; B + R order as positions in the final array
    return tuple(range(p, p + nb)) + tuple(range(p)) + tuple(range(p + nb, nb + nr))


def _final_shape(b_shape, r_shape, p):
    if p is None or p == 0:
        return b_shape + r_shape
    return r_shape[:p] + b_shape + r_shape[p:]


def gather(v: Array, indices: list, p: int | None) -> Array:
    """``v`` indexed by the advanced ``indices``; the broadcast index shape goes first
    (``p`` None) or before the ``p``-th of the other axes."""
    src, base, b_shape, r_shape = _plan(v, indices)
    final = Array._empty(_final_shape(b_shape, r_shape, p), v.dtype, v.device)
    if final.size == 0:
        return final
    perm = _placement(len(b_shape), len(r_shape), p)
    out = final if perm is None else final._view(
        tuple(final.shape[a] for a in perm), tuple(final.strides[a] for a in perm), 0)
    nrest = _prod(r_shape)
    base_v = base._view(b_shape + (1,) * len(r_shape), base.strides + (0,) * len(r_shape),
                        base._offset)
    _gather(src, base_v, nrest, out)
    return final


def scatter(v: Array, indices: list, p: int | None, value: Array) -> None:
    """``v[indices] = value`` (``value`` already of ``v``'s dtype and device)."""
    src, base, b_shape, r_shape = _plan(v, indices, write=True)
    shape = _final_shape(b_shape, r_shape, p)
    try:
        value = broadcast_to(value, shape)
    except ValueError:
        raise ValueError(f"could not broadcast value of shape {value.shape} into an index result "
                         f"of shape {shape}") from None
    if _prod(shape) == 0:
        return
    if value._buf is v._buf:
        value = copy_array(value)  # the value overlaps the destination: read it from a copy
        value = broadcast_to(value, shape)
    perm = _placement(len(b_shape), len(r_shape), p)
    if perm is not None:
        value = value._view(tuple(value.shape[a] for a in perm),
                            tuple(value.strides[a] for a in perm), value._offset)
    nrest = _prod(r_shape)
    base_v = base._view(b_shape + (1,) * len(r_shape), base.strides + (0,) * len(r_shape),
                        base._offset)
    base_v = broadcast_to(base_v, b_shape + r_shape)
    _scatter(base_v, value, nrest, src)
