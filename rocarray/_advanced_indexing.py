"""Advanced indexing on the device: gathers, scatters and masks through index arrays.

A few kernels written with ``ElementwiseKernel`` (one compile cache, every device) and
the catalogue's reductions: ``check_bounds`` (any index outside ``[-n, n)``: an
``IndexError`` before anything is read or written), ``rk_index_step`` (fold one index
array into the flat index over the indexed axes), ``rk_gather`` / ``rk_scatter`` (through
a raw operand), ``rk_take1`` / ``rk_take`` (one index array, in the result's order; the
host's gathers of few indices, ``rk_take1_checked``, check them as they read),
``rk_select_small`` / ``rk_true_small`` / ``rk_place_small`` (the host's short masks'
``x[m]``, ``nonzero`` and ``x[m] = v`` in one walk), ``rk_select_chunks`` /
``rk_true_chunks`` / ``rk_place_chunks`` (its longer ones, from counts per chunk),
``rk_fill_where`` (a whole-array mask's set to one value) and ``rk_unravel``; on GPUs
``x[mask]``, ``x[mask] = v`` and ``nonzero`` are the compaction kernels of
``compiler/compact_gpu.py`` (counts per tile, then each tile's true elements in order),
and ``x[m] = v`` of a view (on the host too) ``rk_scatter`` to the mask's flat positions.
"""

from __future__ import annotations

import ctypes
import threading
from builtins import max as builtin_max
from dataclasses import dataclass

import numpy as np

from ._array_object import Array, _c_strides, _prod
from ._copy import contiguous
from ._creation_functions import arange, zeros
from ._elementwise import copy_array
from ._elementwise_functions import add, not_equal, subtract
from ._gather_gpu import gather_axis
from ._launch import full_module_when_ready, load_full_module
from ._statistical_functions import max as _max, min as _min
from ._user_kernels import ElementwiseKernel
from ._views import _axis_slice, _nocopy_reshape, broadcast_shapes, broadcast_to
from .compiler import compact_gpu
from .targets.base import MAX_DIMS

_int64 = np.dtype(np.int64)
_int32 = np.dtype(np.int32)
_uint64 = np.dtype(np.uint64)

_index_step = ElementwiseKernel(
    "int64 acc, I idx, int64 n", "int64 out",
    "long v = (long)idx; if (v < 0) v += n; out = acc * n + v;", "rk_index_step")

_flat_step = ElementwiseKernel(
    "int64 acc, int64 idx, int64 n", "int64 out", "out = acc * n + idx;", "rk_flat_step")

def _heavy(in_params: str, out_params: str, body: str, name: str) -> ElementwiseKernel:
    """A gather, scatter or compaction kernel: its full tier is the heavy one (codegen O2),
    whose tight loop keeps many random reads in flight."""
    return ElementwiseKernel(in_params, out_params, body, name, _heavy=True)


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
                  "rk_scatter")

# The host's short masks (under its threads' size, ``parallel_threshold``, below which
# every launch runs on one thread anyway): one item walks
# the mask, storing every element (or position) at the next free slot and advancing it by
# the mask, then writes the count -- where a scan or a count, a read-back and a second
# launch took most of the call, and the scan's pass more than the walk up to 2**22
# elements.  The result is the first ``count`` slots of an array of ``n + 1``, copied out
# where that leaves more than ``UNUSED_MOST`` bytes and more than half of the array unused.
# (the loop twice, as the other host loops over raw operands: under a test that the
# operands are 1-D runs, where LLVM drops each access's layout check, then plain)
_select_small = _heavy("raw T x, raw bool m, int64 n", "raw T out, raw int64 count", """
if (i != 0) return;
long k = 0, j = 0;
if (x.ndim == 1 && m.ndim == 1 && out.ndim == 1 && x.strides()[0] == sizeof(T) && m.strides()[0] == 1
    && out.strides()[0] == sizeof(T)) {
    for (; j < n; j++) { out[k] = x[j]; k += (long)m[j]; }
}
for (; j < n; j++) { out[k] = x[j]; k += (long)m[j]; }
count[0] = k;""", "rk_select_small")
_true_small = _heavy("raw bool m, int64 n", "raw int64 out, raw int64 count", """
if (i != 0) return;
long k = 0, j = 0;
if (m.ndim == 1 && out.ndim == 1 && m.strides()[0] == 1 && out.strides()[0] == 8) {
    for (; j < n; j++) { out[k] = j; k += (long)m[j]; }
}
for (; j < n; j++) { out[k] = j; k += (long)m[j]; }
count[0] = k;""", "rk_true_small")
UNUSED_MOST = 1 << 20

# The host's longer masks (``x[m]``, ``nonzero``; from ``parallel_threshold`` elements):
# one kernel each (values, positions) over chunks of ``C`` (``HOST_COMPACT_CHUNK``), an
# item each, which the launcher splits over its threads.  Each counts its chunk's true
# elements into ``off[c + 1]`` (``count``: up to 255 words of 0/1 bytes added as integers,
# no byte's sum reaching the next byte, then the bytes added up), the host sums the counts
# in place into each chunk's first slot, then each item writes its chunk's elements from
# there, storing every element (or position) at the next free slot and advancing it by the
# mask (no branch to mispredict), until its last true element: the stores never reach the
# next chunk's slots.  No scan and no positions array; the counts are the one read-back.
# Where the raw operands are 1-D runs of whole elements (as ``_compact_host`` passes them;
# ``w``: the mask's bytes as words) LLVM drops the layout check of every raw access (the
# loop's largest cost otherwise), and the write skips the words of no true element and
# stores a word's bytes branch-free while eight or more true elements are left; any other
# layout (and the mask's last bytes) takes the plain loops.  (The short masks' walk is a
# kernel of its own: beside these modes its loop ran 1.3x slower.)
def _mask_count(runs: str) -> str:
    """The mask kernels' count of the true elements from ``j`` to ``end`` into ``k``: up to
    255 of the mask's words ``w`` of 0/1 bytes added as integers (no byte's sum reaching
    the next byte), then their bytes added up, where ``runs`` holds; the rest byte by
    byte."""
    return f"""
    if ({runs}) {{
        long a = j >> 3, b = end >> 3;
        while (a < b) {{
            long f = a + 255 < b ? a + 255 : b;
            unsigned long long s = 0;
            for (; a < f; a++) s += w[a];
            s = (s & 0x00ff00ff00ff00ffull) + ((s >> 8) & 0x00ff00ff00ff00ffull);
            k += (long)((s * 0x0001000100010001ull) >> 48);
        }}
        j = b << 3;
    }}
    for (; j < end; j++) k += (long)m[j];"""


def _mask_writes(store, runs: str) -> str:
    """The mask kernels' write loop, from element ``j`` and slot ``k`` up to slot ``e``:
    ``store(j, bit)`` is the statement for element ``j`` and slot ``k`` (``bit``: whether
    the mask holds there), ``runs`` the test that the operands are 1-D runs (then the
    mask's words ``w`` are read, eight bytes at a time)."""
    unrolled = "".join(f"{store(f'j + {b}', f'((v >> {8 * b}) & 1ull) != 0ull')} k += (long)((v >> {8 * b}) & 1ull);\n"
                       "            " for b in range(8))
    return f"""
if ({runs}) {{
    while (e - k >= 8) {{
        unsigned long long v = w[j >> 3];
        if (v != 0ull) {{
            {unrolled}}}
        j += 8;
    }}
    while (k < e && j + 8 <= n) {{
        if (w[j >> 3] == 0ull) {{
            j += 8;
        }} else {{
            for (int t = 0; t < 8 && k < e; t++) {{
                {store('j', 'm[j] != 0')}
                k += (long)m[j];
                j++;
            }}
        }}
    }}
}}
for (; k < e; j++) {{ {store('j', 'm[j] != 0')} k += (long)m[j]; }}"""


def _mask_kernel(params: "str | None", out: str, runs: str, store, name: str) -> ElementwiseKernel:
    """One of the host's chunk kernels: ``store`` and ``runs`` (the test that its own
    operands are 1-D runs) as ``_mask_writes``'."""
    runs = f"m.ndim == 1 && w.ndim == 1 && m.strides()[0] == 1 && w.strides()[0] == 8 && {runs}"
    return _heavy(", ".join(filter(None, (params, "raw bool m, raw uint64 w, int64 n, int64 C, bool count"))),
                  f"{out}, raw int64 off", f"""
long c = i;
long j = c * C;
if (count) {{
    long end = j + C < n ? j + C : n;
    long k = 0;""" + _mask_count(runs) + f"""
    off[c + 1] = k;
    if (c == 0) off[0] = 0;
    return;
}}
long k = off[c];
long e = off[c + 1];""" + _mask_writes(store, runs), name)


_select_chunks = _mask_kernel(
    "raw T x", "raw T out",
    "x.ndim == 1 && out.ndim == 1 && x.strides()[0] == sizeof(T) && out.strides()[0] == sizeof(T)",
    lambda j, bit: f"out[k] = x[{j}];", "rk_select_chunks")
_true_chunks = _mask_kernel(None, "raw int64 out", "out.ndim == 1 && out.strides()[0] == 8",
                            lambda j, bit: f"out[k] = {j};", "rk_true_chunks")
# ``x[m] = v``: the element takes the next value where the mask holds (a select, not a
# branch; ``vals[k]`` is read only while values are left)
_place_chunks = _mask_kernel(
    "raw T vals", "raw T x",
    "x.ndim == 1 && vals.ndim == 1 && x.strides()[0] == sizeof(T) && vals.strides()[0] == sizeof(T)",
    lambda j, bit: f"x[{j}] = {bit} ? vals[k] : x[{j}];", "rk_place_chunks")
# the host's short masks' ``x[m] = vals`` in one item: the mask's count first (written
# out), then, only where it is the values' length ``nv``, the chunks' placing loop over the
# whole mask (every element takes the next value where the mask holds: a select, not a
# branch, until the last value)
_PLACE_RUNS = ("m.ndim == 1 && w.ndim == 1 && x.ndim == 1 && vals.ndim == 1 && m.strides()[0] == 1 "
               "&& w.strides()[0] == 8 && x.strides()[0] == sizeof(T) && vals.strides()[0] == sizeof(T)")
_place_small = _heavy("raw T vals, raw bool m, raw uint64 w, int64 n, int64 nv", "raw T x, raw int64 count", """
if (i != 0) return;
long j = 0, end = n, k = 0;""" + _mask_count(_PLACE_RUNS) + """
count[0] = k;
if (k != nv) return;
j = 0;
k = 0;
long e = nv;""" + _mask_writes(lambda j, bit: f"x[{j}] = {bit} ? vals[k] : x[{j}];", _PLACE_RUNS), "rk_place_small")

# the host's runs of equal neighbours of a sorted 1-D array ``v`` (``host_runs``), chunks
# of ``C`` elements as ``nonzero``'s: ``rk_runs_count`` writes the number of runs each chunk
# begins after ``off[0]`` (a run begins where an element differs from the one before it:
# ``!=``, so each NaN is a run of its own), ``rk_runs_write`` each chunk's runs (first value,
# first position) from the chunk's first slot, branch-free as ``rk_true_chunks``.  Both
# read ``v`` as a 1-D run of whole elements (the layout check of every raw access dropped).
_RUN_STARTS = "(j == 0 || v[j] != v[j - 1])"
_runs_count = _heavy("raw T v, int64 n, int64 C", "raw int64 off", f"""
long c = i;
long j = c * C;
long end = j + C < n ? j + C : n;
long k = 0;
if (v.ndim == 1 && v.strides()[0] == sizeof(T)) {{
    for (; j < end; j++) k += (long){_RUN_STARTS};
}}
for (; j < end; j++) k += (long){_RUN_STARTS};
off[c + 1] = k;
if (c == 0) off[0] = 0;""", "rk_runs_count")
_runs_write = _heavy("raw T v, raw int64 off, int64 n, int64 C", "raw T vals, raw int64 at", f"""
long c = i;
long j = c * C;
long k = off[c];
long e = off[c + 1];
if (v.ndim == 1 && vals.ndim == 1 && at.ndim == 1 && v.strides()[0] == sizeof(T)
    && vals.strides()[0] == sizeof(T) && at.strides()[0] == 8) {{
    for (; k < e; j++) {{
        vals[k] = v[j];
        at[k] = j;
        k += (long){_RUN_STARTS};
    }}
}}
for (; k < e; j++) {{
    vals[k] = v[j];
    at[k] = j;
    k += (long){_RUN_STARTS};
}}
if (c * C + C >= n) at[e] = n;  // (the last chunk: the end after the last run)""", "rk_runs_write")
# the runs of a sorted ``v`` of fewer elements than the host's threads' size, as its short
# masks: one item walks it, storing every element at the next free slot of ``vals`` and the
# current run's length at the slot of the run before (``lens[n]`` a spare slot while no
# run begins: no branch), then writes the number of runs -- one launch where the chunks'
# count, write and the lengths' subtraction took three
_RUN_STEP = ("long s = (long)(v[j] != v[j - 1]); lens[s != 0 ? k - 1 : n] = j - last; vals[k] = v[j]; "
             "last = s != 0 ? j : last; k += s;")
_runs_small = _heavy("raw T v, int64 n", "raw T vals, raw int64 lens, raw int64 count", f"""
if (i != 0) return;
long k = 1, last = 0, j = 1;
vals[0] = v[0];
if (v.ndim == 1 && vals.ndim == 1 && lens.ndim == 1 && v.strides()[0] == sizeof(T) && vals.strides()[0] == sizeof(T)
    && lens.strides()[0] == 8) {{
    for (; j < n; j++) {{ {_RUN_STEP} }}
}}
for (; j < n; j++) {{ {_RUN_STEP} }}
lens[k - 1] = n - last;
count[0] = k;""", "rk_runs_small")

#: elements of a chunk of the host's ``nonzero`` (a few dozen chunks per 2**22 elements:
#: enough to share them between threads, few enough that their counts cost nothing)
HOST_COMPACT_CHUNK = 1 << 16

_fill_where = ElementwiseKernel("bool m, T v", "T x", "if (m) x = v;", "rk_fill_where")

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


def flat_true(mask: Array) -> Array:
    """The flat C-order positions (int64, 1-D) of the non-zero elements of ``mask``."""
    if mask.size == 0:
        return Array._empty((0,), _int64, mask.device)
    if mask.device.kind == "cpu":
        return _compact_host(mask, None)
    return _gpu_compact(mask, None)


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


def _bool_mask(mask: Array, align: int = 1) -> Array:
    """``mask`` as a C-contiguous boolean array whose first byte is ``align``-byte aligned
    (``mask != 0`` for other dtypes; a copy where it is not so laid out)."""
    m = mask if mask.dtype.kind == "b" else not_equal(mask, 0)
    if not m.is_c_contiguous() or m._offset % align:
        m = contiguous(m) if not m.is_c_contiguous() else copy_array(m)
    return m


def _compact_host(mask: Array, x: "Array | None") -> Array:
    """On the host: the elements of ``x`` (of ``mask``'s shape) where ``mask`` is non-zero,
    in C order, or with ``x`` None their flat positions (int64): a short mask walked once
    (``_select_small``, ``_true_small``), a longer one by its chunks' counts, then their
    writes (``_select_chunks``, ``_true_chunks``)."""
    n, device = mask.size, mask.device
    if n < device.runtime.parallel_threshold:
        flat = (_flat(_bool_mask(mask)),)
        kernel, ops, dtype = (_true_small, flat, _int64) if x is None else (_select_small, (_flat(x),) + flat, x.dtype)
        out = Array._empty((n + 1,), dtype, device)
        return _kept(out, _walk(kernel, n, *ops, n, out))
    kernel, ops, dtype = (_true_chunks, (), _int64) if x is None else (_select_chunks, (_flat(x),), x.dtype)
    args, off, total = _chunk_counts(mask, kernel, ops, ops[0] if ops else None)
    out = Array._empty((total,), dtype, device)
    if total:
        kernel(*ops, *args, False, out, off, size=off.size - 1, _work=n)
    return out


def _kept(out: Array, count: int) -> Array:
    """The first ``count`` elements of the walk's result ``out``: a view, or a copy of its
    own where the view would leave more than ``UNUSED_MOST`` bytes and more than half of
    ``out`` unused."""
    kept = out._view((count,), out._strides, out._offset)
    unused = out.shape[0] - count
    return copy_array(kept) if unused * out.itemsize > UNUSED_MOST and unused > count else kept


def _chunk_counts(mask: Array, kernel, ops: tuple, stand_in: "Array | None") -> tuple:
    """((the flat mask, its words, n, the chunk size): the chunk ``kernel``'s arguments
    after ``ops``, each chunk's first slot (int64, one more: its last the total), the
    total): the counting launch of the host's chunk ``kernel`` (``ops`` its operands before
    the mask's; ``stand_in`` an array of its output's dtype, which the counts do not write,
    None where that is int64) and the counts' running sum, on the host."""
    data, words, n = _mask_words(mask)
    device, C = mask.device, HOST_COMPACT_CHUNK
    chunks = -(-n // C)
    off = Array._empty((chunks + 1,), _int64, device)
    kernel(*ops, data, words, n, C, True, off if stand_in is None else stand_in, off, size=chunks, _work=n)
    return (data, words, n, C), off, _chunk_starts(off, chunks)


def _mask_words(mask: Array) -> tuple:
    """(``mask`` as a flat boolean array, its bytes -- 0 or 1 -- as 64-bit words, its size):
    C-contiguous and 8-byte aligned, a copy where ``mask`` is not."""
    m = _bool_mask(mask, 8)
    n = m.size
    return _flat(m), Array._new(m._buf, (n // 8,), (8,), m._offset, _uint64), n


def _chunk_starts(off: Array, chunks: int) -> int:
    """The host's counts per chunk, ``off[1:]`` (int64, ``off[0]`` 0), summed in place into
    each chunk's first slot (read and written in host memory, no launch); the total."""
    at = off._buf.ptr + off._offset
    if chunks > 1:  # (one chunk's ``off`` is its running sum already: 0, the count)
        starts = np.frombuffer((ctypes.c_int64 * (chunks + 1)).from_address(at), np.int64)
        np.cumsum(starts, out=starts)
    return ctypes.c_int64.from_address(at + 8 * chunks).value


def _compact_kernel(device, size: int):
    """The GPU compaction module for values of ``size`` bytes (0: flat indices), fully
    compiled."""
    return load_full_module(("compact-gpu", compact_gpu.VERSION, size), device, lambda: (
        f"compact_gpu_{size}", lambda m, t, e: compact_gpu.build_compact_module(m, t, e, size),
        compact_gpu.packer(""), compact_gpu.entries(size)[1:]))


def _gpu_compact(mask: Array, x: "Array | None") -> Array:
    """On a GPU: the elements of ``x`` (of ``mask``'s shape) where ``mask`` is non-zero, in
    C order, or with ``x`` None their flat indices (int64).  Each tile's count of true
    elements, their inclusive scan (whose sum, read from mapped host memory, sizes the
    result), then each tile's elements written at its offset: the mask is read twice,
    ``x`` once."""
    kernel, (m_ptr, n, incl_ptr, tiles, _keep), total = _gpu_counted(mask, 0 if x is None else x.dtype.itemsize)
    out = Array._empty((total,), _int64 if x is None else x.dtype, mask.device)
    if total:
        if x is not None and not x.is_c_contiguous():
            x = contiguous(x)
        x_ptr = 0 if x is None else x._buf.ptr + x._offset
        kernel.code.launch_entry(kernel, 2, compact_gpu.packer("_w"), tiles,
                                 (m_ptr, n, x_ptr, incl_ptr, out._buf.ptr + out._offset), tiles, compact_gpu.BLOCK, 0)
    return out


def _gpu_counted(mask: Array, size: int) -> tuple:
    """(the compaction module for values of ``size`` bytes, (the mask's address, its size,
    the address of each tile's first slot, the tiles, what the caller keeps alive until its
    launch is queued), the number of true elements): the count and scan entries run, their
    total read back."""
    m = _bool_mask(mask, 4)  # (the kernels read the mask in 4-byte words)
    n = m.size
    device = m.device
    kernel = _compact_kernel(device, size)
    tiles = -(-n // compact_gpu.TILE)
    # one block: the scan's int64 totals, then each tile's int32 count (from a multiple of
    # 128 bytes, as a block of its own would start)
    t = -(-tiles // 16) * 16
    scratch = Array._empty((3 * t,), _int32, device)
    incl_ptr = scratch.data_ptr
    counts = incl_ptr + 8 * t
    m_ptr = m._buf.ptr + m._offset
    launch = kernel.code.launch_entry
    launch(kernel, 0, compact_gpu.packer(""), tiles, (m_ptr, n, counts), tiles, compact_gpu.BLOCK, 0)
    _, total = _counted(kernel, device, lambda at: launch(kernel, 1, compact_gpu.packer("_s"), tiles,
                                                          (counts, incl_ptr, at), 1, compact_gpu.BLOCK, 0))
    # (the scratch and the mask, a copy perhaps, kept by the caller until its launch is
    # queued: the stream's order frees them after it)
    return kernel, (m_ptr, n, incl_ptr, tiles, (scratch, m)), total


def _gpu_place(mask: Array, x: Array, value: Array) -> None:
    """On a GPU, ``x[mask] = value`` for a C-contiguous ``x``: the compaction's counts and
    their scan (the total checked against ``value``'s length before anything is written),
    then each tile's true elements take the tile's run of values (``compact_gpu``'s place
    entry): no positions array."""
    kernel, (m_ptr, n, incl_ptr, tiles, _keep), count = _gpu_counted(mask, x.dtype.itemsize)
    _check_values(value, count)
    if count:
        value = contiguous(_apart(value, x))
        kernel.code.launch_entry(kernel, 3, compact_gpu.packer("_p"), tiles,
                                 (m_ptr, n, value._buf.ptr + value._offset, incl_ptr, x._buf.ptr + x._offset),
                                 tiles, compact_gpu.BLOCK, 0)


def _counted(kernel, device, queue) -> tuple:
    """``(queue(address), the number of elements a compaction selects)``: ``queue`` queues
    the scan entry that writes that number at ``address`` (a word of host memory mapped
    into the device) and any work to follow it.  The one read-back of these ops: a wait
    for the stream, then a read of host memory (no copy back)."""
    rt = kernel.runtime
    words = rt.mapped_words(device.index)
    word = words.acquire()
    try:
        try:
            queued = queue(word[2])
        finally:
            # (after a failure too, say the write's allocation: a scan queued before it
            # still writes the word, which is not lent again before the stream is past it)
            rt.synchronize_current(device.index)
        return queued, int(word[0][word[1]])
    finally:
        words.release(word)


#: GPU runs (``gpu_runs``) whose results would take at most this many bytes were every
#: element a run of its own are written before the read-back of their number, into
#: results of that size then cut (the device never waits on the host between the scan and
#: the write); larger ones are sized first (their results may be far smaller than that).
RUNS_WRITE_FIRST_BYTES = 1 << 30

#: the runs module's comparison of a dtype kind (``compact_gpu.RUN_KINDS``' letters)
_RUN_LETTER = {"b": "i", "i": "i", "u": "i", "f": "f", "c": "c"}


def _runs_module(kind: str) -> tuple:
    """(cache key, ``make``) of the GPU runs module for elements of ``kind``
    (``compact_gpu.RUN_KINDS``), as ``load_full_module`` takes them."""
    return ("runs-gpu", compact_gpu.VERSION, kind), lambda: (
        f"runs_gpu_{kind}", lambda m, t, e: compact_gpu.build_runs_module(m, t, e, kind),
        compact_gpu.packer("", True), compact_gpu.RUN_ENTRIES[1:])


def _runs_kernel(device, kind: str):
    """The GPU runs module for elements of ``kind`` (``compact_gpu.RUN_KINDS``), fully
    compiled."""
    key, make = _runs_module(kind)
    return load_full_module(key, device, make)


def start_runs_compile(dtype, device) -> None:
    """Start compiling the GPU runs module for ``dtype`` on the background worker (nothing
    once it is loaded or started): a caller that sorts first has it compile beside the
    sort's modules, and ``gpu_runs`` then waits for it."""
    key, make = _runs_module(_RUN_LETTER[dtype.kind] + str(dtype.itemsize))
    full_module_when_ready(key, device, make)


def gpu_runs(x: Array, lengths: bool) -> tuple:
    """On a GPU: the first element of each run of equal neighbours of the 1-D, C-contiguous,
    non-empty ``x`` (``!=`` ends a run, so each NaN is a run of its own) and, with
    ``lengths``, each run's length (int64; else None).  As ``_gpu_compact``: each tile's
    count of runs begun in it, their scan (its sum, read back, sizes the results),
    then each tile's runs written; ``x`` is read twice.  Up to ``RUNS_WRITE_FIRST_BYTES``
    the write is queued before the read-back, into results of ``x``'s length, then cut
    (views of them, or copies where the runs are at most half the elements)."""
    n, device = x.shape[0], x.device
    packer = compact_gpu.packer
    kernel = _runs_kernel(device, _RUN_LETTER[x.dtype.kind] + str(x.dtype.itemsize))
    tiles = -(-n // compact_gpu.TILE)
    # one block for the tiles' words: the scan's int64 totals, then three int32 words a tile
    # (each tile's count of runs, its first run's offset, the length of its last run), each
    # part from a multiple of 128 bytes, as a block of its own would start
    t = -(-tiles // 32) * 32
    scratch = Array._empty((5 * t,), _int32, device)
    ptr = scratch.data_ptr
    counts, offs, ltile = ptr + 8 * t, ptr + 12 * t, ptr + 16 * t
    launch = kernel.code.launch_entry
    launch(kernel, 0, packer("", True), tiles, (x.data_ptr, n, counts, offs), tiles, compact_gpu.BLOCK, 0)

    def write(size):
        values = Array._empty((size,), x.dtype, device)
        out = Array._empty((size,), _int64, device) if lengths else None
        launch(kernel, 2, packer("_w", True), tiles, (x.data_ptr, n, ptr, offs, ltile, values.data_ptr,
                                                       0 if out is None else out.data_ptr), tiles,
               compact_gpu.BLOCK, 0)
        return values, out

    def scan(at, write_first=False):
        launch(kernel, 1, packer("_s", True), tiles, (counts, ptr, ltile, at), 1, compact_gpu.BLOCK, 0)
        return write(n) if write_first else None

    if n * (x.dtype.itemsize + (8 if lengths else 0)) > RUNS_WRITE_FIRST_BYTES:
        return write(_counted(kernel, device, scan)[1])
    # the write queued before the read-back, into results of the most runs there can be:
    # the device goes on from the scan to the write without waiting for the host
    (values, out), total = _counted(kernel, device, lambda at: scan(at, True))
    if 2 * total > n:  # (views of the written buffers)
        return values[:total], None if out is None else out[:total]
    # (copies of their own: the long buffers go back to the pool)
    return copy_array(values[:total]), None if out is None else copy_array(out[:total])


def host_runs(x: Array, lengths: bool) -> tuple:
    """On the host: ``gpu_runs`` of the 1-D, C-contiguous, non-empty ``x`` (the first
    element of each run of equal neighbours; with ``lengths`` each run's length, else None):
    under the threads' size one walk (``_runs_small``), else each chunk's count of runs
    begun in it, their running sum (its last element the number of runs), then each
    chunk's runs; no mask, positions array or gather."""
    n, C, device = x.shape[0], HOST_COMPACT_CHUNK, x.device
    if n < device.runtime.parallel_threshold:
        values, lens = Array._empty((n,), x.dtype, device), Array._empty((n + 1,), _int64, device)
        runs = _walk(_runs_small, n, x, n, values, lens)
        return _kept(values, runs), _kept(lens, runs) if lengths else None
    chunks = -(-n // C)
    off = Array._empty((chunks + 1,), _int64, device)
    _runs_count(x, n, C, off, size=chunks, _work=n)
    total = _chunk_starts(off, chunks)
    values, starts = Array._empty((total,), x.dtype, device), Array._empty((total + 1,), _int64, device)
    _runs_write(x, off, n, C, values, starts, size=chunks, _work=n)
    if not lengths:
        return values, None
    return values, subtract(_axis_slice(starts, 0, 1, total + 1), _axis_slice(starts, 0, 0, total))


def select(x: Array, mask: Array) -> Array:
    """``x[mask]`` for a boolean ``mask`` of ``x``'s shape: the selected elements in C order,
    1-D, written straight from ``x`` (no positions array, no second gather)."""
    if x.size == 0:
        return Array._empty((0,), x.dtype, x.device)
    if x.device.kind != "cpu":
        return _gpu_compact(mask, x)
    return _compact_host(mask, x)


def mask_assign(x: Array, mask: Array, value: Array) -> None:
    """``x[mask] = value`` for a boolean ``mask`` of ``x``'s shape (``value`` of ``x``'s dtype
    and device): a value of one element fills where the mask is true (one pass, no scan); a
    value of the selection's length goes to the true positions in C order (a count that
    differs raises before anything is written)."""
    if x.size == 0:
        broadcast_to(value, (0,))  # (the shape check NumPy makes)
        return
    if value.size == 1 and value.ndim <= 1:
        _fill_where(mask if mask.dtype.kind == "b" else not_equal(mask, 0), value.reshape(()), x)
        return
    if not x.is_c_contiguous():
        # (a view: the flat positions of the mask's true elements, ``nonzero``'s
        # compaction, then a scatter of the values to them)
        pos = flat_true(mask)
        _check_values(value, pos.shape[0])
        if pos.shape[0]:
            _scatter(pos, 0, _apart(value, x), 1, x)
    elif x.device.kind != "cpu":
        _gpu_place(mask, x, value)
    else:
        _host_place(mask, x, value)


def _host_place(mask: Array, x: Array, value: Array) -> None:
    """On the host, ``x[mask] = value`` for a C-contiguous ``x``, as ``x[m]``: a short mask
    walked (``_place_small``: the count first, the values placed only where it is their
    length), a longer one by its chunks' counts, then their places (``_place_chunks``)."""
    target, n = _flat(x), x.size
    if n < x.device.runtime.parallel_threshold:
        nv = value.shape[0] if value.ndim == 1 else -1
        _check_values(value, _walk(_place_small, n, _flat(_apart(value, x)), *_mask_words(mask), nv, target))
        return
    args, off, count = _chunk_counts(mask, _place_chunks, (value,), value)
    _check_values(value, count)
    if count:
        _place_chunks(_flat(_apart(value, x)), *args, False, target, off, size=off.size - 1, _work=n)


def _check_values(value: Array, count: int) -> None:
    """NumPy's ``ValueError`` unless ``value`` holds the ``count`` values a mask selects."""
    if value.ndim > 1 or value.shape[0] != count:
        raise ValueError(f"could not broadcast value of shape {value.shape} into an index result "
                         f"of shape ({count},)")


def _apart(value: Array, x: Array) -> Array:
    """``value``, or a copy of it where it shares ``x``'s buffer (read from the copy while
    ``x`` is written)."""
    return copy_array(value) if value._buf is x._buf else value


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
    shape = ishape if xshape[:axis] == ishape[:axis] and xshape[axis + 1:] == ishape[axis + 1:] else \
        tuple(ishape[d] if d == axis else builtin_max(xshape[d], ishape[d]) for d in range(x.ndim))
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
    _scatter(base_v, _rest_positions(b_shape, r_shape, v.device), value, nrest, src)
