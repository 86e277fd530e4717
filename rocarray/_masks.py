"""Boolean masks and runs on the device: ``x[mask]``, ``nonzero``'s positions, ``x[mask] = v``
and the runs of equal neighbours of sorted values (``unique_*``).

On the host, short masks are one walk (``rk_select_small``, ``rk_true_small``,
``rk_place_small``, ``rk_runs_small``) and longer ones chunks counted, summed on the host
and written (``rk_select_chunks``, ``rk_true_chunks``, ``rk_place_chunks``,
``rk_runs_count`` / ``rk_runs_write``); a whole-array mask's set to one value is
``rk_fill_where``.  On GPUs they are the compaction kernels of ``compiler/compact_gpu.py``
(counts per tile, then each tile's true elements in order), and ``x[m] = v`` of a view
(on the host too) a scatter to the mask's flat positions.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from ._advanced_indexing import _flat, _heavy, _int64, _scatter, _walk
from ._array_object import Array
from ._buffer import Buffer
from ._chain_status import chain_status
from ._copy import contiguous
from ._creation_functions import full
from ._elementwise import copy_array
from ._elementwise_functions import not_equal, subtract
from ._launch import full_module_when_ready, load_full_module, module_builder
from ._user_kernels import ElementwiseKernel
from ._views import _axis_slice, broadcast_to
from .compiler import compact_gpu

_int32 = np.dtype(np.int32)
_uint64 = np.dtype(np.uint64)

# The host's short masks (under its threads' size, ``parallel_threshold``, below which
# every launch runs on one thread anyway): one item walks
# the mask, storing every element (or position) at the next free slot and advancing it by
# the mask, then writes the count -- where a scan or a count, a read-back and a second
# launch took most of the call, and the scan's pass more than the walk up to 2**22
# elements.  The result is the first ``count`` slots of an array of ``n + 1``, its block
# cut to them (``_cut``).
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


# -- compaction ----------------------------------------------------------------------------

def flat_true(mask: Array) -> Array:
    """The flat C-order positions (int64, 1-D) of the non-zero elements of ``mask``."""
    if mask.size == 0:
        return Array._empty((0,), _int64, mask.device)
    if mask.device.kind == "cpu":
        return _compact_host(mask, None)
    return _gpu_compact(mask, None)


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
        return _cut(out._buf, _walk(kernel, n, *ops, n, out), dtype)
    kernel, ops, dtype = (_true_chunks, (), _int64) if x is None else (_select_chunks, (_flat(x),), x.dtype)
    args, off, total = _chunk_counts(mask, kernel, ops, ops[0] if ops else None)
    out = Array._empty((total,), dtype, device)
    if total:
        kernel(*ops, *args, False, out, off, size=off.size - 1, _work=n)
    return out


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
    return load_full_module(("compact-gpu", compact_gpu.VERSION, size), device,
                            functools.partial(_compact_parts, size))


def _compact_parts(size: int) -> tuple:
    """``load_full_module``'s ``make()`` of the compaction module (picklable: the compile
    process can build it)."""
    return (f"compact_gpu_{size}", module_builder(compact_gpu.build_compact_module, size), compact_gpu.packer(""),
            compact_gpu.entries(size)[1:])


def _gpu_compact(mask: Array, x: "Array | None") -> Array:
    """On a GPU: the elements of ``x`` (of ``mask``'s shape) where ``mask`` is non-zero, in
    C order, or with ``x`` None their flat indices (int64).  Each tile's count of true
    elements, their inclusive scan (whose sum, read from mapped host memory, sizes the
    result), then each tile's elements written at its offset: the mask is read twice,
    ``x`` once.  Up to ``WRITE_FIRST_BYTES`` the write is queued behind the scan, before
    the count is back, into a block of the mask's length that is then cut to the count
    (``_cut``): the device goes on from the scan to the write without waiting for the
    host.  Larger ones are written once the count is back, into a result of that size,
    their parameters packed (and a strided ``x`` copied) while the device counts."""
    first = mask.size * (8 if x is None else x.dtype.itemsize) <= WRITE_FIRST_BYTES

    def ready(kernel, m_ptr, n, incl_ptr, tiles):
        src = x if x is None or x.is_c_contiguous() else contiguous(x)
        areas = _write_areas.get(kernel.runtime)
        if areas is None:
            areas = _write_areas.setdefault(kernel.runtime, [])
        try:
            area = areas.pop()
        except IndexError:
            area = kernel.runtime.parameter_area(bytes(_WRITE_PACKER.size))
        _WRITE_PACKER.pack_into(area[0].cast("B"), 0, tiles, m_ptr, n, 0 if src is None else src.data_ptr,
                                incl_ptr, 0)
        buf = None
        if first:
            try:  # (a buffer at once: its finalizer frees the block if the wait below fails)
                buf = _write(kernel, tiles, area, n * dtype.itemsize, device)
            except MemoryError:  # (no room for the longest result: written once it is sized)
                pass
        return area, areas, src, buf

    dtype, device = _int64 if x is None else x.dtype, mask.device
    (area, areas, _src, buf), total, ((kernel, _, _, _, tiles), _keep) = _gpu_counted(
        mask, 0 if x is None else x.dtype.itemsize, ready)
    if buf is None and total:
        buf = _write(kernel, tiles, area, total * dtype.itemsize, device)
    areas.append(area)  # (the driver has copied the parameters)
    if not total:  # (a block written first goes back in the stream's order: after the write)
        return Array._empty((0,), dtype, device)
    return _cut(buf, total, dtype)


def _write(kernel, tiles: int, area, nbytes: int, device) -> Buffer:
    """Queue the compaction's write (its parameters packed in ``area`` but the result's
    address) into a new block of ``nbytes``: its buffer."""
    rt = kernel.runtime
    ptr = rt.launch_into_new(kernel.code.functions[1], tiles, compact_gpu.BLOCK, area, _WRITE_OUT_WORD, nbytes)
    return Buffer(ptr, nbytes, device, None, False, rt.memory_pool(device.index))


_WRITE_PACKER = compact_gpu.packer("_w")
#: the word of the write entry's parameters (after the item count) holding the result's address
_WRITE_OUT_WORD = 1 + compact_gpu.PARAMS["_w"].index("out")
#: runtime -> the write entry's parameter areas (``GPURuntime.parameter_area``) not in use:
#: taken and put back (``pop`` / ``append`` are atomic), so threads never share one
_write_areas: dict = {}


def _gpu_counted(mask: Array, size: int, then=None) -> tuple:
    """(what ``then`` returned, the number of true elements, ((the compaction module for
    values of ``size`` bytes, the mask's address, its size, the address of each tile's
    first slot, the tiles), what the caller keeps alive until its launch is queued)): the
    count entry run (its last block scans the counts, ``compact_gpu``), its total read
    back.  ``then(*parts)`` (those five parts) runs after the count is queued and before
    the read-back: work it queues is not waited for."""
    m = _bool_mask(mask, 4)  # (the kernels read the mask in 4-byte words)
    n = m.size
    device = m.device
    kernel = _compact_kernel(device, size)
    tiles = -(-n // compact_gpu.TILE)
    scratch = Array._empty((tiles,), _int64, device)  # (the scan's totals)
    incl_ptr = scratch.data_ptr
    m_ptr = m._buf.ptr + m._offset
    parts = (kernel, m_ptr, n, incl_ptr, tiles)

    queued, total = _counted(kernel, device,
                             lambda at: _queue_count(kernel, device, tiles, False,
                                                     lambda status, tag: (m_ptr, n, status, tag, incl_ptr, at)),
                             None if then is None else lambda: then(*parts))
    # (the scratch and the mask, a copy perhaps, kept by the caller until its launch is
    # queued: the stream's order frees them after it)
    return queued, total, (parts, (scratch, m))


def _queue_count(kernel, device, tiles: int, runs: bool, params) -> None:
    """Queue the count entry of the compaction or runs module ``kernel`` over ``tiles``
    tiles, its parameters ``params(status, tag)``: the stream's status words and a tag of
    the call's own (``_chain_status``; the words zeroed first where they must be, by a
    copy from a new array of zeros)."""
    def zero(address: int, words: int) -> None:
        zeros = full((words,), 0, dtype=_int64, device=device)
        device.runtime.copy_device_to_device(device.index, address, zeros.data_ptr, 8 * words)

    def launch(_counter, status, _base, tag):
        kernel.code.launch_entry(kernel, 0, compact_gpu.packer("", runs), tiles, params(status, tag), tiles,
                                 compact_gpu.BLOCK, 0)

    chain_status(device).scan(device, compact_gpu.status_words(tiles), 0, zero, launch)


def _gpu_place(mask: Array, x: Array, value: Array) -> None:
    """On a GPU, ``x[mask] = value`` for a C-contiguous ``x``: the compaction's counts and
    their scan, then each tile's true elements take the tile's run of values
    (``compact_gpu``'s place entry: no positions array), queued before the read-back of
    the count -- the entry writes nothing unless the count is ``value``'s length, which
    the host then checks."""
    if value.ndim != 1:  # (NumPy's error names the count)
        _check_values(value, _gpu_counted(mask, x.dtype.itemsize)[1])
    value = contiguous(_apart(value, x))

    def place(kernel, m_ptr, n, incl_ptr, tiles):
        kernel.code.launch_entry(kernel, 2, compact_gpu.packer("_p"), tiles,
                                 (m_ptr, n, value._buf.ptr + value._offset, incl_ptr, x._buf.ptr + x._offset,
                                  value.shape[0]), tiles, compact_gpu.BLOCK, 0)

    _check_values(value, _gpu_counted(mask, x.dtype.itemsize, place)[1])


def _counted(kernel, device, scan, then=None) -> tuple:
    """``(then(), the number of elements a compaction selects)``: ``scan(address)`` queues
    the kernel whose scan writes that number at ``address`` (a word of host memory mapped
    into the device), ``then`` (optional) the work to follow it, or what the host makes
    ready meanwhile.  The one read-back of these ops: the host reads the word as soon as
    the scan writes it (``GPURuntime.await_word``), not waiting for what follows the scan
    nor for the scan's end."""
    rt, index = kernel.runtime, device.index
    # (on a failure -- of the write's allocation, or of the wait itself, say a Ctrl-C --
    # the word goes back once the stream is past the scan, which still writes it)
    with rt.mapped_words(index).lend(rt.synchronize_current, index) as word:
        word[0][word[1]] = -1  # (unwritten: a count is never negative)
        scan(word[2])
        queued = None if then is None else then()
        return queued, rt.await_word(index, word, -1)


#: GPU compactions and runs (``gpu_runs``) whose results would take at most this many
#: bytes were every element selected (or a run of its own) are written before the
#: read-back of their count, into blocks of that size then cut (``_cut``: the device goes
#: on from the scan to the write without waiting for the host); larger ones are sized
#: first (their results may be far smaller than that, and the longest one may not fit).
WRITE_FIRST_BYTES = 1 << 30

#: the runs module's comparison of a dtype kind (``compact_gpu.RUN_KINDS``' letters)
_RUN_LETTER = {"b": "i", "i": "i", "u": "i", "f": "f", "c": "c"}


@functools.lru_cache(maxsize=None)
def _runs_module(kind: str) -> tuple:
    """(cache key, ``make``) of the GPU runs module for elements of ``kind``
    (``compact_gpu.RUN_KINDS``), as ``load_full_module`` takes them (made once a kind)."""
    return ("runs-gpu", compact_gpu.VERSION, kind), functools.partial(_runs_parts, kind)


def _runs_parts(kind: str) -> tuple:
    """``load_full_module``'s ``make()`` of the runs module (picklable)."""
    return (f"runs_gpu_{kind}", module_builder(compact_gpu.build_runs_module, kind), compact_gpu.packer("", True),
            compact_gpu.RUN_ENTRIES[1:])


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


def _cut(buf: Buffer, count: int, dtype: np.dtype) -> Array:
    """A 1-D array of the first ``count`` elements (``dtype``) of the new buffer ``buf``
    (written there alone, viewed by nothing else), its block cut to them: the pool frees
    the rest (``MemoryPool.shrink``), which joins the block again once the result is
    freed."""
    nbytes = count * dtype.itemsize
    if buf.pool is not None:
        buf.pool.shrink(buf.ptr, nbytes)
    buf.nbytes = nbytes
    return Array._on_buffer(buf, (count,), count, dtype)


def gpu_runs(x: Array, lengths: bool) -> tuple:
    """On a GPU: the first element of each run of equal neighbours of the 1-D, C-contiguous,
    non-empty ``x`` (``!=`` ends a run, so each NaN is a run of its own) and, with
    ``lengths``, each run's length (int64; else None).  As ``_gpu_compact``: each tile's
    count of runs begun in it, their scan (its sum, read back, sizes the results),
    then each tile's runs written; ``x`` is read twice.  Up to ``WRITE_FIRST_BYTES``
    the write is queued before the read-back, into results of ``x``'s length, then cut
    (``_cut``)."""
    n, device = x.shape[0], x.device
    packer = compact_gpu.packer
    kernel = _runs_kernel(device, _RUN_LETTER[x.dtype.kind] + str(x.dtype.itemsize))
    tiles = -(-n // compact_gpu.TILE)
    # one block for the tiles' words: the scan's int64 totals, then two int32 words a tile
    # (its last start's offset, the last tile up to it that holds a start), each part from
    # a multiple of 128 bytes, as a block of its own would start
    t = -(-tiles // 32) * 32
    scratch = Array._empty((4 * t,), _int32, device)
    ptr = scratch.data_ptr
    offs, ltile = ptr + 8 * t, ptr + 12 * t
    launch = kernel.code.launch_entry

    def write(size):
        values = Array._empty((size,), x.dtype, device)
        out = Array._empty((size,), _int64, device) if lengths else None
        launch(kernel, 1, packer("_w", True), tiles, (x.data_ptr, n, ptr, offs, ltile, values.data_ptr,
                                                       0 if out is None else out.data_ptr), tiles,
               compact_gpu.BLOCK, 0)
        return values, out

    def scan(at):
        _queue_count(kernel, device, tiles, True, lambda status, tag: (x.data_ptr, n, status, offs, tag, ptr, ltile, at))

    if n * (x.dtype.itemsize + (8 if lengths else 0)) > WRITE_FIRST_BYTES:
        return write(_counted(kernel, device, scan)[1])
    # the write queued before the read-back, into results of the most runs there can be:
    # the device goes on from the scan to the write without waiting for the host
    (values, out), total = _counted(kernel, device, scan, lambda: write(n))
    return _cut(values._buf, total, x.dtype), None if out is None else _cut(out._buf, total, _int64)


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
        return _cut(values._buf, runs, x.dtype), _cut(lens._buf, runs, _int64) if lengths else None
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
