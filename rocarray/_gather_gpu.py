"""The GPU paths of transposed copies, gathers along one axis and ``searchsorted``: the
layouts reduced to the run-time parameters of ``compiler/gather_gpu.py``'s kernels, and
their launches.

* ``transpose_copy``: a same-dtype copy whose source and destination have different
  innermost axes (after merging dimensions) goes through shared-memory tiles; one more
  axis is the kernel's batch, any further ones a loop here.
* ``gather_axis``: ``out[p, j, q] = src[p, idx[p, j, q], q]`` for a ``(P, M, Q)`` result
  (``take``, ``take_along_axis``, ``x[idx]``); an index out of range sets a flag word
  that is read back once (the call's one small read) and then raises ``IndexError``.
* ``search_sorted``, ``found_sorted``: a binary search per query of a contiguous sorted
  array, writing the insertion point or whether the query is there (``isin``).
"""

from __future__ import annotations

import itertools

import numpy as np

from ._array_object import Array
from ._launch import load_full_module
from ._layout import merge_dims
from ._transfer import numpy_to_device
from .compiler import gather_gpu as G

_U64 = (1 << 64) - 1
#: launches of a grid-stride kernel take at most this many blocks
_MAX_GRID = 1 << 20
#: the gather's flat positions are 32-bit (divided by magic numbers)
_MAX_ITEMS = 1 << 32
_INT32 = np.dtype(np.int32)
#: the shortest side of a transposed copy that takes tiles (on a narrower one most of a
#: tile's threads would idle; the elementwise copy reads whole sectors there anyway)
MIN_TILED_SIDE = 8

def on_gpu(device) -> bool:
    """Whether ``device``'s arrays take these GPU paths."""
    return device.kind != "cpu"


_KEY = ("gather-gpu", G.VERSION, G.BLOCK, G.ITEMS, G.SEARCH_ITEMS)


def _kernel(device, kind: str, *key):
    """The ``kind`` module ('transpose', 'gather', 'search') for ``key`` loaded on
    ``device``, fully compiled."""
    return load_full_module(_KEY + (kind,) + key, device, lambda: _module_parts(kind, key))


def _module_parts(kind: str, key: tuple) -> tuple:
    """(name, builder, packer, entries) of a ``kind`` module for ``key`` (``load_full_module``)."""
    build = {"transpose": G.build_transpose, "gather": G.build_gather, "search": G.build_search}[kind]
    extra = tuple(e[0] for e in G.SEARCH_ENTRIES[1:]) if kind == "search" else ()
    return f"{kind}_" + "_".join(map(str, key)), lambda m, t, e: build(m, t, e, *key), G.packer(kind), extra


def _launch(kernel, entry: int, kind: str, n: int, grid: int, *values) -> None:
    kernel.code.launch_entry(kernel, entry, G.packer(kind), n, [v & _U64 for v in values], grid, G.BLOCK, 0)


def _ptr(a: Array) -> int:
    return a._buf.ptr + a._offset


def _rounds(n: int, items: int = G.ITEMS) -> int:
    return min(-(-n // (G.BLOCK * items)), _MAX_GRID)


# -- transposed copies ----------------------------------------------------------------------

def transpose_copy(src: Array, dst: Array) -> bool:
    """``dst[...] = src`` (one dtype, one GPU, not overlapping) through tiles if their
    innermost axes differ after merging and both are at least ``MIN_TILED_SIDE`` long;
    False (nothing done) otherwise."""
    isz = src.itemsize
    shape, (ss, ds) = merge_dims(dst.shape, [src.strides, dst.strides])
    if len(shape) < 2 or any(s % isz for s in ss + ds):
        return False
    ss = [s // isz for s in ss]
    ds = [s // isz for s in ds]
    nd = len(shape)
    r = min(range(nd), key=lambda a: (abs(ss[a]), -a))
    c = min(range(nd), key=lambda a: (abs(ds[a]), -a))
    if r == c or ss[r] == 0:
        return False  # (a broadcast source reads the same few lines in any order)
    # loaded at the first transposing copy of any size: a larger one later compiles nothing
    kernel = _kernel(src.device, "transpose", isz)
    if min(shape[r], shape[c]) < MIN_TILED_SIDE:
        return False
    others = [a for a in range(nd) if a not in (r, c)]
    batch = others[-1] if others else None
    outer = others[:-1]
    B, sb, db = (shape[batch], ss[batch], ds[batch]) if batch is not None else (1, 0, 0)
    R, C = shape[r], shape[c]
    tr, tc = -(-R // G.TILE), -(-C // G.TILE)
    tiles = B * tr * tc
    for pos in itertools.product(*(range(shape[a]) for a in outer)):
        s_off = sum(i * ss[a] for i, a in zip(pos, outer)) * isz
        d_off = sum(i * ds[a] for i, a in zip(pos, outer)) * isz
        _launch(kernel, 0, "transpose", tiles, min(tiles, _MAX_GRID), _ptr(src) + s_off, _ptr(dst) + d_off,
                R, C, ss[r], ss[c], ds[r], ds[c], sb, db, tr, tc)
    return True


# -- gathers ------------------------------------------------------------------------------

#: per device: a zeroed int32 word that a gather sets when an index is out of range
_flags: dict = {}


def gather_axis(src: Array, src_strides: tuple, nax: int, idx: Array, idx_strides: tuple, shape: tuple,
                out: Array) -> bool:
    """``out[p, j, q] = src[p, idx[p, j, q], q]`` over the ``(P, M, Q)`` ``shape`` of the
    C-contiguous ``out``: ``src_strides`` (elements, from ``src``'s first element) step
    ``src`` over (p, the axis of length ``nax``, q), ``idx_strides`` (elements) step
    ``idx`` over (p, j, q); negative indices count from the end.  False if an index is
    outside ``[-nax, nax)`` (then ``out`` holds nothing useful); None if the result is too
    large for the kernel's 32-bit positions (nothing done)."""
    P, M, Q = shape
    MQ = M * Q
    if MQ >= _MAX_ITEMS:
        return None
    device = src.device
    dt = idx.dtype
    kernel = _kernel(device, "gather", src.itemsize, 8 * dt.itemsize, dt.kind == "i")
    flag = _flags.get(device)
    if flag is None:
        flag = _flags[device] = numpy_to_device(np.zeros((), _INT32), device)
    mq_m, mq_l = G.magic(MQ)
    q_m, q_l = G.magic(Q)
    sp, sa, sq = src_strides
    ip, ij, iq = idx_strides
    rows = max(1, (_MAX_ITEMS - 1) // MQ)
    isz, xsz = src.itemsize, idx.itemsize
    for p0 in range(0, P, rows):
        n = min(rows, P - p0) * MQ
        _launch(kernel, 0, "gather", n, _rounds(n), _ptr(src) + p0 * sp * isz, _ptr(idx) + p0 * ip * xsz,
                _ptr(out) + p0 * MQ * isz, _ptr(flag), nax, MQ, mq_m, mq_l, Q, q_m, q_l, ip, ij, iq, sp, sa, sq)
    if int(flag):  # (the one read-back)
        del _flags[device]  # (set: the next gather takes a fresh word)
        return False
    return True


# -- searching ----------------------------------------------------------------------------

def search_sorted(a: Array, v: Array, right: bool, out: Array) -> None:
    """``out`` (int64, C-contiguous, of ``v``'s shape) = the insertion points of the
    elements of ``v`` in the sorted, C-contiguous 1-D ``a`` of the same dtype."""
    dt = a.dtype
    kernel = _kernel(a.device, "search", dt.kind, dt.itemsize)
    L = a.shape[0]
    entry = (2 if L >= 1 << 31 else 0) + int(right)
    n = v.size
    _launch(kernel, entry, "search", n, _rounds(n, G.SEARCH_ITEMS), _ptr(a), _ptr(v), _ptr(out), L, 0)


def found_sorted(a: Array, v: Array, invert: bool, out: Array) -> None:
    """``out`` (bool, C-contiguous, of ``v``'s shape) = whether each element of ``v`` is
    in the sorted, C-contiguous 1-D ``a`` of the same dtype (``!= invert``)."""
    dt = a.dtype
    kernel = _kernel(a.device, "search", dt.kind, dt.itemsize)
    L = a.shape[0]
    entry = 5 if L >= 1 << 31 else 4
    n = v.size
    _launch(kernel, entry, "search", n, _rounds(n, G.SEARCH_ITEMS), _ptr(a), _ptr(v), _ptr(out), L, int(invert))
