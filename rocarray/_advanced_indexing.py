"""Advanced indexing on the device: gathers and scatters through integer index arrays.

A few kernels written with ``ElementwiseKernel`` (one compile cache, every device) and
the catalogue's reductions: ``check_bounds`` (any index outside ``[-n, n)``: an
``IndexError`` before anything is read or written), ``rk_index_step`` (fold one index
array into the flat index over the indexed axes), ``rk_gather`` / ``rk_scatter`` (through
a raw operand), ``rk_take1`` / ``rk_take`` and ``rk_put1`` / ``rk_put`` (one index array,
in the result's order; the host's gathers of few indices, ``rk_take1_checked``, check
them as they read, its short puts, ``rk_put1_small``, before they write) and
``rk_unravel``.  Boolean masks are ``rocarray/_masks.py``'s; on GPUs the gathers along
one axis, and the scatters once their module is loaded, are ``compiler/gather_gpu.py``'s.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

import numpy as np

from ._array_object import Array, _c_strides, _prod
from ._copy import contiguous
from ._creation_functions import arange, zeros
from ._elementwise import copy_array
from ._elementwise_functions import add
from ._gather_gpu import gather_axis, scatter_axis
from ._statistical_functions import max as _max, min as _min
from ._user_kernels import ElementwiseKernel
from ._views import _nocopy_reshape, broadcast_shapes, broadcast_to
from .targets.base import MAX_DIMS

_int64 = np.dtype(np.int64)

_index_step = ElementwiseKernel(
    "int64 acc, I idx, int64 n", "int64 out",
    "long v = (long)idx; if (v < 0) v += n; out = acc * n + v;", "rk_index_step")

_flat_step = ElementwiseKernel(
    "int64 acc, int64 idx, int64 n", "int64 out", "out = acc * n + idx;", "rk_flat_step")

def _heavy(in_params: str, out_params: str, body: str, name: str, scatter: bool = False) -> ElementwiseKernel:
    """A gather, scatter or compaction kernel: its full tier is the heavy one (codegen O2),
    whose tight loop keeps many random reads in flight.  ``scatter``: its threads may write
    one element at once (repeated indices), so a complex element is stored whole (one
    store, not one a part: each element holds one writer's value)."""
    return ElementwiseKernel(in_params, out_params, body, name, _heavy=True, _whole_stores=scatter)


# ``r``: the element's flat position over the other axes (a broadcast ``arange``, so the
# kernels divide nothing), ``nrest`` their size
_gather = _heavy("raw T src, int64 base, int64 r, int64 nrest", "T y", "y = src[base * nrest + r];",
                 "rk_gather")

# one index array, checked before (``check_bounds``): wrap and read; ``rk_take1`` reads a
# 1-D ``src`` by the index alone; ``rk_take``'s ``src`` is the array's first element, ``sa``
# the indexed axis's stride and ``r`` the offset of the other axes (in elements).  (A flag
# written from the gather itself cost the host loop half its speed: the store may alias
# everything the loop reads, and a zero-strided ``r`` takes the strided path, so the 1-D
# kernel has neither.)
_take1 = _heavy("raw T src, I idx, int64 n", "T y",
                "long v = (long)idx; if (idx < 0) v += n; y = src[v];", "rk_take1")

# The host's take of at most ``CHECKED_TAKE_MOST`` indices checks them in the gather: an
# index out of range sets ``bad`` (and reads element 0), which the caller reads after it,
# where the separate check -- a reduction launched and read back -- took more time than the
# gather (half of a 256-index ``take``).
_take1_checked = _heavy("raw T src, I idx, int64 n", "T y, raw int64 bad",
                        "long v = (long)idx; if (idx < 0) v += n; if (v < 0 || v >= n) { bad[0] = 1; v = 0; } "
                        "y = src[v];", "rk_take1_checked")
CHECKED_TAKE_MOST = 1 << 14


_take = _heavy("raw T src, I idx, int64 r, int64 n, int64 sa", "T y",
               "long v = (long)idx; if (idx < 0) v += n; y = src[v * sa + r];", "rk_take")

_scatter = _heavy("int64 base, int64 r, T v, int64 nrest", "raw T dst", "dst[base * nrest + r] = v;",
                  "rk_scatter", scatter=True)

# one index array, checked before (``check_bounds``), as ``rk_take1`` / ``rk_take`` the
# other way: wrap and write (``rk_put1``: into a 1-D ``dst``; ``rk_put``: ``dst`` the
# array's first element, ``sa`` the indexed axis's stride, ``r`` the other axes' offset)
_put1 = _heavy("I idx, T v, int64 n", "raw T dst", "long k = (long)idx; if (idx < 0) k += n; dst[k] = v;",
               "rk_put1", scatter=True)
_put = _heavy("I idx, int64 r, T v, int64 n, int64 sa", "raw T dst",
              "long k = (long)idx; if (idx < 0) k += n; dst[k * sa + r] = v;", "rk_put", scatter=True)
#: The host's ``x[idx] = v`` of a 1-D ``x`` of at most this many bytes takes one walk
#: (``_put1_small``) however many indices it has: threads writing at random into so small
#: an array take each other's cache lines, each write a miss (2^22 indices into 4,096
#: float32: 27.9 ms on two threads, 3.5 on one; into 2^18: 12.8 and 6.4; into 2^19: 12.7
#: and 13.7; the 2-core VM, benchmarks/results/2026-12-05-cpu-stop60/).
PUT_SHARED_MOST = 1 << 20
# The host's ``x[idx] = v`` of a 1-D ``x`` and fewer indices than its threads' size (or a
# small ``x``, ``PUT_SHARED_MOST``): one
# item checks every index, then (none out of range: nothing is written otherwise, as in
# NumPy) writes them in order (the last of equal indices wins, as in NumPy); the count's
# word says whether one was out of range.  The separate check, a reduction read back, and
# the index's and positions' arrays took four fifths of the call.
# (each loop twice, as the other host walks: under a test that the operands are 1-D runs,
# where LLVM drops each access's layout check, then plain)
_PUT_STEP = "I t = idx[j]; long k = (long)t; if (t < 0) k += N;"
_PUT_CHECK = f"{{ {_PUT_STEP} bad |= (long)(k < 0 || k >= N); }}"
_PUT_WRITE = f"{{ {_PUT_STEP} dst[k] = vals[j]; }}"
_put1_small = _heavy("raw I idx, raw T vals, int64 n, int64 N", "raw T dst, raw int64 count", f"""
if (i != 0) return;
long bad = 0, j = 0;
bool runs = idx.ndim == 1 && idx.strides()[0] == sizeof(I);
if (runs) {{
    for (; j < n; j++) {_PUT_CHECK}
}}
for (; j < n; j++) {_PUT_CHECK}
count[0] = bad;
if (bad != 0) return;
j = 0;
if (runs && vals.ndim == 1 && dst.ndim == 1 && dst.strides()[0] == sizeof(T)) {{
    if (vals.strides()[0] == 0) {{  // (one value for every index)
        T v = vals[0];
        for (; j < n; j++) {{ {_PUT_STEP} dst[k] = v; }}
    }} else if (vals.strides()[0] == sizeof(T)) {{
        for (; j < n; j++) {_PUT_WRITE}
    }}
}}
for (; j < n; j++) {_PUT_WRITE}""", "rk_put1_small")

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
    """``IndexError`` unless every element of the integer array ``idx`` is in ``[-n, n)``.

    One ``max`` of the indices read as unsigned integers (the catalogue's vectorised
    reduction) settles the usual case, indices in ``[0, n)``: a negative index reads as a
    value past ``n``.  Only then are the signed ``min`` and ``max`` taken."""
    if idx.size == 0:
        return
    u = idx if idx.dtype.kind == "u" else Array._new(idx._buf, idx.shape, idx.strides, idx._offset,
                                                      np.dtype(f"u{idx.itemsize}"))
    if int(_max(u)) < n:
        return
    lo, hi = int(_min(idx)), int(_max(idx))
    if lo >= -n and hi < n:
        return
    bad = lo if lo < -n else hi
    raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


_thread_words = threading.local()


def _thread_word(device) -> "tuple[Array, int]":
    """(an int64 array of one element in ``device``'s host memory, its address), one per
    thread and device: a kernel's flag or count, set and read in place."""
    words = getattr(_thread_words, "by_device", None)
    if words is None:
        words = _thread_words.by_device = {}
    word = words.get(device)
    if word is None:
        word = words[device] = Array._empty((1,), _int64, device)
    return word, word._buf.ptr


def _walk(kernel, n: int, *operands) -> int:
    """Run the host's one-item walk ``kernel`` over ``n`` elements (``operands``: its
    arguments but the count's word, which is last) and return the count it writes."""
    word, at = _thread_word(operands[-1].device)
    kernel(*operands, word, size=1, _work=n)
    return ctypes.c_int64.from_address(at).value


def _flat(x: Array) -> Array:
    """``x`` as a 1-D C-contiguous array (a copy only where it is not C-contiguous)."""
    x = contiguous(x)
    return x if x.ndim == 1 else x.reshape((-1,))


def unravel(flat: Array, shape: tuple) -> tuple:
    """One int64 index array per dimension of ``shape`` for the flat positions ``flat``."""
    k = len(shape)
    out = Array._empty((k, flat.size), _int64, flat.device)
    if flat.size:
        if k > MAX_DIMS:
            raise ValueError(f"nonzero: at most {MAX_DIMS} dimensions are supported, got {k}")
        # a zero-strided bool array of ``shape``: only its shape is read by the kernel
        desc = Array._new(flat._buf, tuple(shape), (0,) * k, flat._offset, np.dtype(np.bool_))
        # (``out`` passed flat: a 2-D raw operand divides at every access to find the place)
        _unravel(flat, desc, out.reshape((-1,)))
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
    return _source(v, adv_axes, write), base, b_shape, r_shape


def _source(v: Array, adv_axes: list, write: bool = False) -> Array:
    """``v`` viewed with the indexed axes first, as the raw source of a gather or scatter:
    one flat run if its layout allows (the kernel's fast path), else as is."""
    rest = [a for a in range(v.ndim) if a not in adv_axes]
    order = list(adv_axes) + rest
    src = v._view(tuple(v.shape[a] for a in order), tuple(v.strides[a] for a in order), v._offset)
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
    return src


def _rest_positions(b_shape: tuple, r_shape: tuple, device) -> Array:
    """The flat C-order position over the other axes ``r_shape`` of each element of a
    gather's ``b_shape + r_shape`` iteration space: an ``arange`` broadcast over ``b_shape``."""
    nrest = _prod(r_shape)
    r = arange(nrest, dtype=_int64, device=device)
    st = _c_strides(r_shape, 8) if r_shape else ()
    return r._view((1,) * len(b_shape) + r_shape, (0,) * len(b_shape) + st, r._offset)


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
    if len(indices) == 1 and indices[0].kind == "int" and indices[0].count == 1 \
            and v.shape[indices[0].axis] > 0:
        return _gather_one(v, indices[0].array, indices[0].axis, p)
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
    _gather(src, base_v, _rest_positions(b_shape, r_shape, v.device), nrest, out)
    return final


def take_axis(v: Array, idx: Array, axis: int) -> Array:
    """``v`` indexed along ``axis`` by the integer array ``idx`` (on ``v``'s device), the
    index's axes in its place: ``take`` and ``x[idx]``, with nothing to parse."""
    if v._shape[axis]:
        return _gather_one(v, idx, axis, axis)
    return gather(v, [Index(axis, 1, idx, "int")], axis)


def _gather_one(v: Array, idx: Array, axis: int, p: int | None) -> Array:
    """``gather`` through one integer index array over a non-empty axis: the bounds check,
    then one kernel that wraps and reads, iterating in the result's own order."""
    vshape = v._shape
    q = p or 0
    r_shape = vshape[:axis] + vshape[axis + 1:]
    final = Array._empty(_final_shape(idx._shape, r_shape, p), v._dtype, v._buf.device)
    if final._size == 0:
        check_bounds(idx, vshape[axis], axis)  # (indices selecting rows of nothing)
        return final
    if q == axis and v._buf.device.kind != "cpu":
        shape = (_prod(vshape[:axis]), idx._size, _prod(vshape[axis + 1:]))
        if _gpu_gather(v, axis, contiguous(idx), (0, 1, 0), shape, final, idx):
            return final
    nr = len(r_shape)
    if nr == 0 and v._strides[0] % v._dtype.itemsize == 0:  # (a 1-D array: the index is laid over the result)
        _run_take(v, idx, axis, idx, final, [])
        return final
    idx_v = idx._view(final.shape, (0,) * q + idx.strides + (0,) * (nr - q), idx._offset)
    if any(st % v.itemsize for st in v.strides):
        v = contiguous(v)  # (strides that are not whole elements: imported views only)
    r_st = [st // v.itemsize for a, st in enumerate(v.strides) if a != axis]
    _run_take(v, idx_v, axis, idx, final, r_st[:q] + [0] * idx.ndim + r_st[q:])
    return final


def take_along(x: Array, indices: Array, axis: int) -> Array:
    """``take_along_axis``: ``out[..., j, ...] = x[..., indices[..., j, ...], ...]``, the
    other axes of ``x`` and ``indices`` broadcast together (checked by the caller)."""
    xshape, ishape = x._shape, indices._shape
    # (broadcast: a length 1 takes the other's, 0 included -- not the larger of the two)
    shape = ishape if xshape[:axis] == ishape[:axis] and xshape[axis + 1:] == ishape[axis + 1:] else \
        tuple(ishape[d] if d == axis or xshape[d] == 1 else xshape[d] for d in range(x.ndim))
    out = Array._empty(shape, x._dtype, x._buf.device)
    if out._size == 0:
        return out
    if xshape[axis] == 0:
        check_bounds(indices, 0, axis)  # (raises: no index is in range)
    if x._buf.device.kind != "cpu":
        N = xshape[axis]
        xs = x  # (viewed with its other axes stretched to ``shape`` where they broadcast)
        if any(xshape[d] != shape[d] for d in range(x.ndim) if d != axis):
            xs = x._view(shape[:axis] + (N,) + shape[axis + 1:],
                         tuple(0 if d != axis and xshape[d] == 1 else st for d, st in enumerate(x.strides)),
                         x._offset)
        ib = indices if ishape == shape else broadcast_to(indices, shape)
        Q = _prod(shape[axis + 1:])
        ist = (shape[axis] * Q, Q, 1) if ib is indices and indices.is_c_contiguous() else \
            _element_strides(shape, ib._strides, axis, ib.itemsize)
        if ist is None:
            ib = contiguous(ib)
            ist = _element_strides(shape, ib._strides, axis, ib.itemsize)
        g = (_prod(shape[:axis]), shape[axis], Q)
        if _gpu_gather(xs, axis, ib, ist, g, out, indices):
            return out
    if any(st % x.itemsize for st in x.strides):
        x = contiguous(x)
    r_st = [0 if d == axis or x.shape[d] == 1 else x.strides[d] // x.itemsize for d in range(x.ndim)]
    _run_take(x, broadcast_to(indices, shape), axis, indices, out, r_st)
    return out


def _element_strides(shape: tuple, strides: tuple, axis: int, itemsize: int) -> tuple | None:
    """The element strides that step an array of ``shape`` and byte ``strides`` as
    ``(P, shape[axis], Q)``, its axes before ``axis`` merged into P and those after into
    Q; None where they do not merge without a copy, or are not whole elements."""
    out = []
    for lo, hi in ((0, axis), (axis, axis + 1), (axis + 1, len(shape))):
        step, span = 0, None  # the group's innermost stride; the bytes its axes so far span
        for d in range(hi - 1, lo - 1, -1):
            n = shape[d]
            if n != 1:
                st = strides[d]
                if span is None:
                    step = st
                elif st != span:
                    return None
                span = st * n
        if step % itemsize:
            return None
        out.append(step // itemsize)
    return tuple(out)


def _gpu_gather(v: Array, axis: int, idx: Array, idx_strides: tuple, shape: tuple, out: Array,
                indices: Array) -> bool:
    """``out`` (of ``shape`` (P, M, Q) flat) gathered on the GPU from ``v`` viewed as
    (P, n, Q) around ``axis`` (copied first if its layout does not allow that view) by
    ``idx`` (of ``idx_strides`` in elements over (P, M, Q)); an index out of range raises
    ``IndexError`` (the message from ``check_bounds`` over ``indices``).  False: too large
    for the kernel, nothing done."""
    n = v._shape[axis]
    # (C-contiguous: the strides of (P, n, Q) at once, the common case)
    st = (n * shape[2], shape[2], 1) if v.is_c_contiguous() else \
        _element_strides(v._shape, v._strides, axis, v._dtype.itemsize)
    if st is None:
        v = contiguous(v)
        st = _element_strides(v._shape, v._strides, axis, v._dtype.itemsize)
    done = gather_axis(v, st, n, idx, idx_strides, shape, out)
    if done is False:
        check_bounds(indices, n, axis)
    return done is not None


def _gpu_scatter(v: Array, axis: int, idx: Array, value: Array) -> bool:
    """``v[..., idx, ...] = value`` on the GPU, the index's axes in ``axis``'s place
    (``value`` broadcast to that result, whose C order is then (P, M, Q)), by
    ``_gather_gpu.scatter_axis``: its check, then its scatter; an index out of range raises
    ``IndexError`` (the message from ``check_bounds``), nothing written.  False, nothing
    done, where it does not serve: while its module compiles, where ``v``'s axes do not
    merge into (P, n, Q) strides (a copy would not be written back), or for too many
    positions."""
    vshape, isz = v._shape, v._dtype.itemsize
    n = vshape[axis]
    shape = (_prod(vshape[:axis]), idx._size, _prod(vshape[axis + 1:]))
    st = (n * shape[2], shape[2], 1) if v.is_c_contiguous() else _element_strides(vshape, v._strides, axis, isz)
    if st is None:
        return False
    one = not any(value._strides)  # (one value for every position: read once a thread)
    vals = value if one or value.is_c_contiguous() else contiguous(value)
    done = scatter_axis(v, st, n, contiguous(idx), (0, 1, 0), shape, vals, one)
    if done is False:
        check_bounds(idx, n, axis)  # (raises, naming the index)
    return done is not None


def _run_take(v: Array, idx_v: Array, axis: int, idx: Array, out: Array, r_strides: list) -> None:
    """``out = v[..., idx_v, ...]`` along ``axis``: ``idx_v`` is laid over ``out``'s shape,
    ``r_strides`` are the element strides of ``v`` that ``out``'s axes step over (besides
    the index); an index out of range raises ``IndexError`` (one reduction over ``idx``,
    one byte read back) before anything is read -- or, for the host's 1-D gathers of at
    most ``CHECKED_TAKE_MOST`` indices, after the gather has written ``out`` (a new array
    the caller then drops)."""
    n = v.shape[axis]
    if v.ndim == 1 and idx._size <= CHECKED_TAKE_MOST and v.device.kind == "cpu":
        bad, at = _thread_word(v.device)  # (other threads' calls set their own)
        ctypes.memset(at, 0, 8)
        _take1_checked(v, idx_v, n, out, bad)
        if ctypes.c_int64.from_address(at).value:
            check_bounds(idx, n, axis)  # (raises, naming the index)
        return
    check_bounds(idx, n, axis)
    if v.ndim == 1:
        _take1(v, idx_v, n, out)
        return
    src = v._view((1,), (v.itemsize,), v._offset)  # element offsets are computed in the kernel
    _take(src, idx_v, _offsets(out.shape, r_strides, v.device), n, v.strides[axis] // v.itemsize, out)


def _offsets(shape: tuple, strides: list, device) -> Array:
    """An int64 array broadcastable to ``shape`` holding, at each position, the sum over the
    axes of position times ``strides`` (elements): a few ``arange`` views added together, as
    small as the axes with a non-zero stride allow."""
    nd = len(shape)
    acc = None
    for d, (ext, st) in enumerate(zip(shape, strides)):
        if ext > 1 and st:
            t = arange(0, ext * st, st, dtype=_int64, device=device)
            t = t._view((1,) * d + (ext,) + (1,) * (nd - d - 1), (0,) * d + (t.strides[0],) + (0,) * (nd - d - 1),
                        t._offset)
            acc = t if acc is None else add(acc, t)
    return zeros((), dtype=_int64, device=device) if acc is None else acc


def _fit_value(value: Array, shape: tuple) -> Array:
    """``value`` broadcast to an index result's ``shape`` (NumPy's ``ValueError`` where it
    does not fit)."""
    try:
        return broadcast_to(value, shape)
    except ValueError:
        raise ValueError(f"could not broadcast value of shape {value.shape} into an index result "
                         f"of shape {shape}") from None


def scatter(v: Array, indices: list, p: int | None, value: Array) -> None:
    """``v[indices] = value`` (``value`` already of ``v``'s dtype and device)."""
    if len(indices) == 1 and indices[0].kind == "int" and indices[0].count == 1 \
            and not any(st % v.itemsize for st in v.strides):
        put_axis(v, indices[0].array, indices[0].axis, p, value)
        return
    src, base, b_shape, r_shape = _plan(v, indices, write=True)
    shape = _final_shape(b_shape, r_shape, p)
    value = _fit_value(value, shape)
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
    _scatter(base_v, _rest_positions(b_shape, r_shape, v.device), value, nrest, src)


def put_axis(v: Array, idx: Array, axis: int, p: int | None, value: Array) -> None:
    """``v[..., idx, ...] = value`` along ``axis`` (``value`` of ``v``'s dtype and device;
    ``v``'s strides whole elements; the index's axes in the result's place ``p``, as
    ``gather``'s): every index checked before anything is written, then one kernel that
    wraps and writes, iterating in the result's order (a short 1-D put on the host: one
    walk that does both; on a GPU, where the index's axes stand in ``axis``'s place,
    ``_gpu_scatter``: the check and the scatter of ``compiler/gather_gpu.py``)."""
    vshape = v._shape
    q = p or 0
    r_shape = vshape[:axis] + vshape[axis + 1:]
    shape = _final_shape(idx._shape, r_shape, p)
    value = _fit_value(value, shape)
    n = vshape[axis]
    if _prod(shape) == 0:
        check_bounds(idx, n, axis)  # (indices selecting rows of nothing)
        return
    if value._buf is v._buf:
        value = broadcast_to(copy_array(value), shape)  # (read from a copy while ``v`` is written)
    if idx._buf is v._buf:
        idx = copy_array(idx)  # (``x[x] = v``: NumPy places by the indices as they were)
    if q == axis and v._buf.device.kind != "cpu" and _gpu_scatter(v, axis, idx, value):
        return
    if v.ndim == 1:
        m = idx._size
        if v._buf.device.kind == "cpu" and (m < v._buf.device.runtime.parallel_threshold
                                            or n * v.itemsize <= PUT_SHARED_MOST):
            vals = _flat(value) if any(value._strides) else value._view((m,), (0,), value._offset)
            if _walk(_put1_small, m, _flat(idx), vals, m, n, v):
                check_bounds(idx, n, axis)  # (raises, naming the index)
            return
        check_bounds(idx, n, axis)
        _put1(idx, value, n, v)
        return
    check_bounds(idx, n, axis)
    nr = len(r_shape)
    idx_v = idx._view(shape, (0,) * q + idx.strides + (0,) * (nr - q), idx._offset)
    r_st = [st // v.itemsize for a, st in enumerate(v.strides) if a != axis]
    offs = _offsets(shape, r_st[:q] + [0] * idx.ndim + r_st[q:], v.device)
    _put(idx_v, offs, value, n, v.strides[axis] // v.itemsize, v._view((1,), (v.itemsize,), v._offset))
