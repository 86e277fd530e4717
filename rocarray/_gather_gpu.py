"""The GPU paths of transposed copies, gathers along one axis and ``searchsorted``: the
layouts reduced to the run-time parameters of ``compiler/gather_gpu.py``'s kernels, and
their launches.

* ``transpose_copy``: a same-dtype copy whose source and destination have different
  innermost axes (after merging dimensions) goes through shared-memory tiles; one more
  axis is the kernel's batch, any further ones a loop here.
* ``gather_axis``: ``out[p, j, q] = src[p, idx[p, j, q], q]`` for a ``(P, M, Q)`` result
  (``take``, ``take_along_axis``, ``x[idx]``), its launch words kept per device, dtypes
  and geometry (``GatherPlan``); an index out of range sets a flag word in page-locked
  host memory mapped into the device, which the host reads once the stream has finished
  (a wait, no copy), and then raises ``IndexError``.
* ``scatter_axis``: the gather's reverse, ``dst[p, idx[p, j, q], q] = vals[p, j, q]``
  (``x[idx] = v``), on the gather's launch words: a check launch that only reads the
  indices and sets the flag word, read once the stream has finished, then (no index out of
  range: NumPy writes nothing otherwise) the scatter's launches; its module is compiled in
  the background at the first ask (until then the caller puts another way).
* ``search_sorted``, ``found_sorted``: a binary search per query of a contiguous sorted
  array, writing the insertion point or whether the query is there (``isin``).
* ``join_copy``: contiguous arrays copied one after another into a contiguous result
  (``concat``, ``stack``), ``JOIN_PIECES`` of them a launch, in the widest unit their
  addresses and sizes allow; its module (an entry per unit) is compiled in the background
  at the first ask (until then the caller copies another way).
"""

from __future__ import annotations

import functools
import itertools

from ._array_object import Array
from ._launch import full_module_when_ready, load_full_module, module_builder
from ._layout import merge_dims, remember
from .compiler import gather_gpu as G

_U64 = (1 << 64) - 1
#: launches of a grid-stride kernel take at most this many blocks
_MAX_GRID = 1 << 20
#: the gather's flat positions are 32-bit (divided by magic numbers)
_MAX_ITEMS = 1 << 32
#: the shortest side of a transposed copy that takes tiles (on a narrower one most of a
#: tile's threads would idle; the elementwise copy reads whole sectors there anyway)
MIN_TILED_SIDE = 8

def on_gpu(device) -> bool:
    """Whether ``device``'s arrays take these GPU paths."""
    return device.kind != "cpu"


_KEY = ("gather-gpu", G.VERSION, G.BLOCK, G.ITEMS, G.SEARCH_ITEMS)


def _kernel(device, kind: str, *key):
    """The ``kind`` module ('transpose', 'gather', 'scatter', 'search') for ``key`` loaded on
    ``device``, fully compiled."""
    return load_full_module(_KEY + (kind,) + key, device, functools.partial(_module_parts, kind, key))


def _kernel_when_ready(device, kind: str, *key):
    """``_kernel``'s module if it is loaded, else None, its compile started on the
    background worker at the first ask (a later ``_kernel`` waits for that compile)."""
    return full_module_when_ready(_KEY + (kind,) + key, device, functools.partial(_module_parts, kind, key))


def _module_parts(kind: str, key: tuple) -> tuple:
    """(name, builder, packer, entries) of a ``kind`` module for ``key`` (``load_full_module``'s
    ``make()``; picklable, so that the compile process can build it)."""
    build = {"transpose": G.build_transpose, "gather": G.build_gather, "scatter": G.build_scatter,
             "search": G.build_search, "join": G.build_joins}[kind]
    extra = {"search": tuple(e[0] for e in G.SEARCH_ENTRIES[1:]), "join": G.JOIN_SUFFIXES,
             "gather": (G.GATHER_NARROW,), "scatter": tuple(e[0] for e in G.SCATTER_ENTRIES[1:])}.get(kind, ())
    return "_".join((kind, *map(str, key))), module_builder(build, *key), G.packer(kind), extra


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
    False (nothing done) otherwise, and while the tiles' module compiles.  The launches of
    a layout are planned once (``_transpose_plan``): a warm call adds the two arrays'
    addresses and launches."""
    key = (src._buf.device, src._dtype.itemsize, dst._shape, src._strides, dst._strides)
    plan = _transpose_plans.get(key)
    if plan is None:
        plan = _transpose_plan(*key)
        if plan is None:
            return False  # (the module is compiling: the elementwise copy serves until then)
        remember(_transpose_plans, key, plan, _MAX_GEOMETRIES)
    if not plan:
        return False
    launch, function, packer, tiles, grid, words, offsets, pairs = plan
    s0, d0 = _ptr(src), _ptr(dst)
    for s_off, d_off in offsets:
        s_at, d_at = s0 + s_off, d0 + d_off
        # (a pair's address is a multiple of 8 where the tiles' starts are)
        launch(function, grid, G.BLOCK, packer, tiles, (s_at, d_at, *words, int(pairs and not (s_at | d_at) % 8)))
    return True


def _transpose_plan(device, isz: int, shape: tuple, src_strides: tuple, dst_strides: tuple):
    """The launches of a transposing copy of ``shape`` between those strides (bytes):
    ``(launch, function, packer, tiles, grid, the words after the two addresses, the byte
    offsets of each launch's two arrays, whether 4-byte elements may move in pairs)``;
    False where tiles do not serve; None while the module is not loaded yet."""
    shape, (ss, ds) = merge_dims(shape, [src_strides, dst_strides])
    if len(shape) < 2 or any(s % isz for s in ss + ds):
        return False
    ss = [s // isz for s in ss]
    ds = [s // isz for s in ds]
    nd = len(shape)
    r = min(range(nd), key=lambda a: (abs(ss[a]), -a))
    c = min(range(nd), key=lambda a: (abs(ds[a]), -a))
    if r == c or ss[r] == 0:
        return False  # (a broadcast source reads the same few lines in any order)
    # compiled in the background from the first transposing copy of any size (a larger one
    # later compiles nothing); until it is loaded the elementwise copy, whose first call
    # compiles little or nothing, serves
    kernel = _kernel_when_ready(device, "transpose", isz)
    if kernel is None:
        return None
    if min(shape[r], shape[c]) < MIN_TILED_SIDE:
        return False
    others = [a for a in range(nd) if a not in (r, c)]
    batch = others[-1] if others else None
    outer = others[:-1]
    B, sb, db = (shape[batch], ss[batch], ds[batch]) if batch is not None else (1, 0, 0)
    R, C = shape[r], shape[c]
    side = G.tile_side(isz)
    tr, tc = -(-R // side), -(-C // side)
    tiles = B * tr * tc
    # 4-byte elements move in pairs where both inner axes are contiguous and the strides
    # keep every pair of a whole tile (which starts at even places) as aligned as the start
    pairs = isz == 4 and ss[r] == 1 and ds[c] == 1 and not (ss[c] % 2 or ds[r] % 2 or sb % 2 or db % 2)
    offsets = tuple((sum(i * ss[a] for i, a in zip(pos, outer)) * isz, sum(i * ds[a] for i, a in zip(pos, outer)) * isz)
                    for pos in itertools.product(*(range(shape[a]) for a in outer)))
    words = tuple(v & _U64 for v in (R, C, ss[r], ss[c], ds[r], ds[c], sb, db, tr, tc))
    return (kernel.runtime.launch_packed, kernel.code.functions[0], G.packer("transpose"), tiles,
            min(tiles, _MAX_GRID), words, offsets, pairs)


#: (device, element size, shape, source strides, destination strides) -> a transposing
#: copy's plan (``_transpose_plan``)
_transpose_plans: dict = {}


# -- gathers ------------------------------------------------------------------------------

class GatherPlan:
    """A gather's or scatter's launch on one device for one element size and index dtype,
    found once: the kernel's functions (64-bit and 32-bit offsets; a scatter's: each of
    ``G.SCATTER_ENTRIES``) and packing, the runtime's calls, the device's flag words, and
    per geometry the precomputed words of each launch (``chunks``)."""

    __slots__ = ("functions", "packer", "launch", "wait", "index", "flags", "_chunks")

    def __init__(self, device, kernel, kind: str):
        rt = kernel.runtime
        self.functions = kernel.code.functions  # (the full tier's: no later code replaces them)
        self.packer = G.packer(kind)
        self.launch = rt.launch_packed
        self.wait = rt.synchronize_current
        self.index = device.index
        self.flags = rt.mapped_words(device.index)
        self._chunks: dict = {}

    def chunks(self, shape: tuple, nax: int, src_strides: tuple, idx_strides: tuple, isz: int, xsz: int):
        """The launches of a gather of ``shape`` (``gather_axis``'s arguments; ``isz``,
        ``xsz``: the source's and the indices' element sizes): for each, ``(entry, n, grid,
        byte offsets of src, idx and out, the words after the flag's)``; None where the
        result is too large for the kernel's 32-bit positions."""
        key = (shape, nax, src_strides, idx_strides)
        chunks = self._chunks.get(key)
        if chunks is None:
            chunks = remember(self._chunks, key, _chunks(shape, nax, src_strides, idx_strides, isz, xsz),
                              _MAX_GEOMETRIES)
        return chunks


def _chunks(shape: tuple, nax: int, src_strides: tuple, idx_strides: tuple, isz: int, xsz: int):
    P, M, Q = shape
    MQ = M * Q
    if MQ >= _MAX_ITEMS:
        return None
    sp = src_strides[0]
    ip = idx_strides[0]
    words = tuple(v & _U64 for v in (nax, MQ, *G.magic(MQ), Q, *G.magic(Q), *idx_strides, *src_strides))
    rows = max(1, (_MAX_ITEMS - 1) // MQ)
    out = []
    for p0 in range(0, P, rows):
        n = min(rows, P - p0) * MQ
        # 32-bit offsets where every position, and every element offset either array is
        # read at from the chunk's start, is below 2**31 (the sums of the extents bound them)
        idx_reach = sum(abs(st) * (d - 1) for st, d in zip(idx_strides, (min(rows, P - p0), M, Q)))
        src_reach = sum(abs(st) * (d - 1) for st, d in zip(src_strides, (min(rows, P - p0), nax, Q)))
        entry = int(max(n, idx_reach + 1, src_reach + 1) <= _NARROW_MAX)
        out.append((entry, n, _rounds(n), p0 * sp * isz, p0 * ip * xsz, p0 * MQ * isz, words))
    return tuple(out)


#: the most positions (and elements either array is read at, from its start) a gather
#: takes with 32-bit offsets
_NARROW_MAX = 1 << 31
#: geometries a plan keeps the words of (past this many it forgets them all)
_MAX_GEOMETRIES = 256
#: (device, element size, index dtype) -> GatherPlan
_plans: dict = {}


def gather_plan(device, itemsize: int, index_dtype) -> GatherPlan:
    """The ``GatherPlan`` for gathers of ``itemsize``-byte elements by ``index_dtype``
    indices on ``device`` (made once)."""
    key = (device, itemsize, index_dtype)
    plan = _plans.get(key)
    if plan is None:
        kernel = _kernel(device, "gather", itemsize, 8 * index_dtype.itemsize, index_dtype.kind == "i")
        plan = _plans.setdefault(key, GatherPlan(device, kernel, "gather"))
    return plan


def gather_axis(src: Array, src_strides: tuple, nax: int, idx: Array, idx_strides: tuple, shape: tuple,
                out: Array) -> bool:
    """``out[p, j, q] = src[p, idx[p, j, q], q]`` over the ``(P, M, Q)`` ``shape`` of the
    C-contiguous ``out``: ``src_strides`` (elements, from ``src``'s first element) step
    ``src`` over (p, the axis of length ``nax``, q), ``idx_strides`` (elements) step
    ``idx`` over (p, j, q); negative indices count from the end.  False if an index is
    outside ``[-nax, nax)`` (then ``out`` holds nothing useful); None if the result is too
    large for the kernel's 32-bit positions (nothing done).

    The kernel sets a flag word in mapped host memory (``runtime/mapped.py``) when an
    index is out of range; the host reads it once the thread's current stream, where the
    gather was queued, has finished: a wait, no copy."""
    isz = src._dtype.itemsize
    plan = gather_plan(src._buf.device, isz, idx._dtype)
    chunks = plan.chunks(shape, nax, src_strides, idx_strides, isz, idx._dtype.itemsize)
    if chunks is None:
        return None
    return not _flagged(plan, chunks, 0, _ptr(src), _ptr(idx), _ptr(out))


def _flagged(plan: GatherPlan, chunks: tuple, first: int, a0: int, a1: int, a2: int) -> bool:
    """Launch entry ``first`` (plus each chunk's 32-bit choice) over ``chunks`` with the
    three addresses ``a0``, ``a1``, ``a2`` (each moved by the chunk's byte offset) and a
    flag word in mapped host memory, wait for the thread's current stream, and say whether
    an index set the flag."""
    functions, launch, packer = plan.functions, plan.launch, plan.packer
    # (a failed later launch or an interrupted wait: the word goes back after the stream)
    with plan.flags.lend(plan.wait, plan.index) as word:
        for entry, n, grid, d0, d1, d2, words in chunks:
            launch(functions[first + entry], grid, G.BLOCK, packer, n, (a0 + d0, a1 + d1, a2 + d2, word[2], *words))
        plan.wait(plan.index)
        return bool(word[0][word[1]])


# -- scatters ------------------------------------------------------------------------------

#: (device, element size, index dtype) -> the scatter's GatherPlan
_scatter_plans: dict = {}
#: the first of each mode's two entries (64-bit offsets, then 32-bit) in a scatter module
_SCATTER_FIRST = {mode: k for k, (_, mode, narrow) in enumerate(G.SCATTER_ENTRIES) if not narrow}


def scatter_plan(device, itemsize: int, index_dtype) -> "GatherPlan | None":
    """The plan of scatters of ``itemsize``-byte elements by ``index_dtype`` indices on
    ``device``; None while its module compiles (the first ask starts that in the
    background)."""
    key = (device, itemsize, index_dtype)
    plan = _scatter_plans.get(key)
    if plan is None:
        kernel = _kernel_when_ready(device, "scatter", itemsize, 8 * index_dtype.itemsize, index_dtype.kind == "i")
        if kernel is None:
            return None
        plan = _scatter_plans.setdefault(key, GatherPlan(device, kernel, "scatter"))
    return plan


def scatter_axis(dst: Array, dst_strides: tuple, nax: int, idx: Array, idx_strides: tuple, shape: tuple,
                 vals: Array, one: bool) -> "bool | None":
    """``dst[p, idx[p, j, q], q] = vals[p, j, q]`` over the ``(P, M, Q)`` ``shape`` of the
    C-contiguous ``vals`` (``one``: ``vals[0]`` everywhere), at the places ``gather_axis``
    reads: ``dst_strides`` (elements, from ``dst``'s first element) step ``dst`` over (p,
    the axis of length ``nax``, q).  False if an index is outside ``[-nax, nax)``, nothing
    written; None, nothing done, while the module compiles or where the positions are too
    many for the kernel.

    The check's launches read the indices only and set a flag word in mapped host memory,
    read once the stream has finished (one wait, no copy); then the scatter's launches,
    not waited for."""
    isz = dst._dtype.itemsize
    plan = scatter_plan(dst._buf.device, isz, idx._dtype)
    if plan is None:
        return None
    chunks = plan.chunks(shape, nax, dst_strides, idx_strides, isz, idx._dtype.itemsize)
    if chunks is None:
        return None
    d, i, v = _ptr(dst), _ptr(idx), _ptr(vals)
    # (the check reads the indices alone; the other two words are the launch's, unread)
    if _flagged(plan, chunks, _SCATTER_FIRST["check"], v, i, d):
        return False
    first = _SCATTER_FIRST["one" if one else "values"]
    functions, launch, packer = plan.functions, plan.launch, plan.packer
    for entry, n, grid, dd, di, dv, words in chunks:
        launch(functions[first + entry], grid, G.BLOCK, packer, n, (v if one else v + dv, i + di, d + dd, 0, *words))
    return True


# -- searching ----------------------------------------------------------------------------

def start_search_compile(dtype, device) -> None:
    """Start compiling the search module for ``dtype`` on the background worker (nothing
    once it is loaded or started): a caller that sorts first has it compile beside the
    sort's, and ``search_sorted`` / ``found_sorted`` then wait for it."""
    _kernel_when_ready(device, "search", dtype.kind, dtype.itemsize)  # (their ``_kernel`` key)


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


# -- joining ------------------------------------------------------------------------------

def join_copy(pieces: list, out: Array) -> bool:
    """Fill the C-contiguous ``out`` with the C-contiguous ``pieces`` (arrays of its dtype
    on its GPU, as many elements in all) one after another, empty ones skipped: one launch
    per ``JOIN_PIECES`` non-empty pieces, moving the widest unit (16, 8, 4, 2 or 1 bytes)
    that divides every address and size.  False, doing nothing, while the join module is
    not loaded yet: the first ask starts its compile in the background, so that no call
    waits for it."""
    isz = out._dtype.itemsize
    runs = [(a._buf.ptr + a._offset, a._size * isz) for a in pieces if a._size]
    if not runs:
        return True
    kernel = full_module_when_ready(_JOIN_KEY, out._buf.device, _join_parts)
    if kernel is None:
        return False
    at = out._buf.ptr + out._offset
    bits = at | G.JOIN_UNITS[0]
    for address, nbytes in runs:
        bits |= address | nbytes
    unit = bits & -bits  # (the lowest set bit; at most the widest unit)
    entry = _JOIN_ENTRY[unit]
    launch = kernel.code.launch_entry
    for g in range(0, len(runs), G.JOIN_PIECES):
        group = runs[g:g + G.JOIN_PIECES]
        words, end = [at], 0
        for address, nbytes in group:
            end += nbytes // unit
            words += (address, end)
        words += (0, end) * (G.JOIN_PIECES - len(group))  # (unused pieces start at ``n``: never picked)
        launch(kernel, entry, _JOIN_PACKER, end, words, _rounds(end), G.BLOCK, 0)  # (words: all non-negative)
        at += end * unit
    return True


_JOIN_KEY = _KEY + ("join",)
_JOIN_ENTRY = {unit: entry for entry, unit in enumerate(G.JOIN_UNITS)}
_JOIN_PACKER = G.packer("join")


def _join_parts():
    return _module_parts("join", ())
