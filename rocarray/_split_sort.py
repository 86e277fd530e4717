"""The host's sort of one line where NumPy sorts with SIMD instructions (AVX-512): the line
written out by classes of its values, one class a thread, each class then sorted by NumPy,
side by side.

On such a CPU NumPy's quicksort (Intel's x86-simd-sort) moves 16 or 8 values an
instruction, where the radix passes (``_radix``) scatter one value at a time, so that on a
few cores the radix passes lose to NumPy's one-thread sort and a split between the threads
wins (docs/primitives.md, stop 58), and a shorter line's network or radix passes, one
thread's, lose to it at any length (stop 60).  So a line of 32- or 64-bit real values or
16-bit integers, from ``ONE_PIECE_MIN`` on, is copied into the result and sorted there by
one NumPy sort, and from ``SPLIT_SORT_MIN`` on (where the host has two threads or more):

1. a sample of the line (``SAMPLE`` values at fixed random places) gives the boundaries of
   its classes (``_classes``): a value the sample holds often (``HEAVY_SHARE``) is a class
   of its own, and the rest of the sample is cut into one class a thread of about equal
   counts;
2. the class pass (``compiler/split_host.py``, by the host's threads) counts each chunk's
   elements of each class, then writes each class over its places of the result, in input
   order, NaNs left out (their own class);
3. each class is sorted in place by NumPy (which lets go of the GIL while it sorts) on the
   host's threads, the longest first, and a class of one value is filled with it; the NaNs
   fill the line's end.  Descending: the classes are sorted in a scratch line and each is
   written back reversed.

NumPy's sort is not stable, which values alone show only in the order of ``-0.0`` and
``+0.0``, and its SIMD sort writes every NaN as ``np.nan``, as the fill does.  So where the
line holds a ``-0.0``, or NaNs of other bits than ``np.nan``'s (the class pass counts both;
after one NumPy sort, a count of the input's bits says, asked only where the sorted line
holds a zero, or ends in a NaN), their runs are written again from the input, in its order
(the standard's stable sort), by the masks' compaction (``_stable_runs``).  One NumPy
sort sorts into NumPy's own array, which the result wraps.  Until the class pass's module is compiled (in the
background, at the first ask) a long line is sorted by one NumPy sort too.  More threads than
``SPLIT_THREADS_MAX`` take the radix passes for lines longer than ``ONE_PIECE_MAX``, which
share all their work between the threads.
"""

from __future__ import annotations

import functools

import numpy as np

from ._array_object import Array
from ._elementwise_functions import equal, isnan
from ._launch import full_module_when_ready, load_full_module, module_builder
from ._transfer import wrap_new_line
from .compiler import split_host

#: lines of at least this many elements are split (shorter ones are sorted in one piece)
SPLIT_SORT_MIN = 1 << 18
#: hosts of up to this many threads sort their lines here at any length (two or more split
#: the long ones); hosts of more sort only lines of up to ``ONE_PIECE_MAX`` here, longer
#: ones by the radix passes, which share all their work between the threads
SPLIT_THREADS_MAX = 4
#: the longest line a host of more threads sorts here (in one piece): the sorting network
#: that would take it sorts a line on one thread too
ONE_PIECE_MAX = 1 << 16
#: the shortest line sorted here: shorter ones, where this path's own cost (its arrays'
#: NumPy views, a copy) outweighs NumPy's speed, take the sorting network (int32 lines of
#: 8,192: 0.039 ms either way; of 16,384: 0.056 here, 0.094 by the network; 2-core VM,
#: benchmarks/results/2026-12-05-cpu-stop60/)
ONE_PIECE_MIN = 1 << 13


def split_sorts(dtype: np.dtype, L: int, device) -> bool:
    """Whether a line of ``L`` values of ``dtype`` on ``device`` is sorted by NumPy here: a
    host whose NumPy sorts the dtype with AVX-512, a line of 32- or 64-bit real values or
    16-bit integers, from ``ONE_PIECE_MIN`` on: of any length on a host of a few threads
    (split between them from ``SPLIT_SORT_MIN`` on), else of up to ``ONE_PIECE_MAX``."""
    if device.kind != "cpu" or L < ONE_PIECE_MIN or dtype.kind not in "iuf" or dtype.itemsize not in (2, 4, 8):
        return False
    if dtype.itemsize == 2 and dtype.kind == "f":
        return False  # (NumPy 2.4's float16 quicksort leaves lines of few values out of order)
    return numpy_simd_sort(8 * dtype.itemsize) and (L <= ONE_PIECE_MAX or _threads(device) <= SPLIT_THREADS_MAX)


@functools.cache
def numpy_simd_sort(bits: int) -> bool:
    """Whether NumPy's quicksort of ``bits``-bit values runs on AVX-512 here (its
    x86-simd-sort dispatch: 16-bit values need Ice Lake's instructions; read once)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # (a NumPy without the table: assume the scalar sort)
        return False
    return bool(__cpu_features__.get("AVX512_ICL" if bits == 16 else "AVX512_SKX"))


def _threads(device) -> int:
    return getattr(device.runtime, "_threads", 1)


#: values drawn from a line (at fixed random places) to find its heavy values and where to
#: cut it
SAMPLE = 4096
#: a value of at least this share of the sample is a class of its own: its run is never
#: sorted (filled), and never lies across two threads' classes
HEAVY_SHARE = 1 / 64
#: chunks of the class pass a thread (its counts' items: a few, so that the threads end
#: together)
CHUNKS_PER_THREAD = 4


def split_sort(keys: Array, descending: bool) -> Array:
    """The flat line ``keys`` (host, contiguous) sorted stably into a new array (``keys``
    is never written)."""
    device, dtype, n = keys.device, keys.dtype, keys.size
    threads = _threads(device) if n >= SPLIT_SORT_MIN else 1
    k = _class_pass(dtype, device) if threads > 1 else None
    a = keys._host()
    if k is None:  # (one thread, or the class pass compiling: one NumPy sort, as NumPy's)
        return _one_sort(keys, a, descending)
    out = Array._empty((n,), dtype, device)
    # (descending: sorted in a scratch line, each class written back reversed)
    work = Array._empty((n,), dtype, device) if descending else out
    o = out._host()
    w = o if work is out else work._host()
    floats = dtype.kind == "f"
    bounds, strict, one_value = _classes(a, threads)
    K = len(bounds)
    # chunks of whole vectors, a few a thread
    lanes = split_host.lanes(f"{dtype.kind}{dtype.itemsize}")
    share = -(-n // (threads * CHUNKS_PER_THREAD))
    chunk = -(-share // lanes) * lanes
    items = -(-n // chunk)
    counts = np.zeros((items, split_host.slots(K)), np.int64)

    def run(place: bool) -> None:
        k.code.launch_entry(k, K, split_host.packer(), items,
                            (keys.data_ptr, n, chunk, K, bounds.ctypes.data, strict.ctypes.data,
                             counts.ctypes.data, work.data_ptr, int(place)), items, 1, n)

    run(False)
    sizes = counts[:, :K + 2].sum(axis=0)
    # each class's first place in the line, then each chunk's (-1: not written)
    first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    counts[:, :K + 2] = first + np.cumsum(counts[:, :K + 2], axis=0) - counts[:, :K + 2]
    # (a class of one value, and the NaNs: filled after, not written)
    filled = np.array([v is not None for v in one_value] + [True])
    counts[:, :K + 2][:, filled] = -1
    run(True)
    nans = int(sizes[K + 1]) if floats else 0
    negative_zeros, default_nans = (int(x) for x in counts[:, K + 2:K + 4].sum(axis=0)) if floats else (0, 0)

    def settle(c: int) -> None:
        lo, hi = int(first[c]), int(first[c] + sizes[c])
        if one_value[c] is not None:
            w[lo:hi] = one_value[c]
        else:
            w[lo:hi].sort()
        if descending:
            o[n - hi:n - lo] = w[lo:hi][::-1]

    # (the longest first: the threads take them as they come)
    classes = sorted((c for c in range(K + 1) if sizes[c]), key=lambda c: -sizes[c])
    each = device.runtime.map_threads if len(classes) > 1 else lambda fn, cs: [fn(c) for c in cs]
    each(settle, classes)
    if nans:  # (NaN last, first descending)
        (o[:nans] if descending else o[n - nans:])[...] = np.nan
    if floats:
        _stable_runs(keys, a, o, descending, negative_zeros > 0, default_nans < nans)
    return out


def _one_sort(keys: Array, a: np.ndarray, descending: bool) -> Array:
    """The line ``keys`` (``a``: its NumPy view) sorted stably into a new array by one
    NumPy sort, into NumPy's own array (a descending one in NumPy's scratch line, written
    back reversed), which the result wraps."""
    o = np.sort(a)
    if descending:
        o = o[::-1].copy()
    if o.dtype.kind == "f":
        _stable_runs(keys, a, o, descending)
    return wrap_new_line(o, keys.dtype)


def _class_pass(dtype: np.dtype, device, wait: bool = False):
    """The class pass's module for ``dtype`` on the host ``device``, loaded; None while it
    compiles (``full_module_when_ready``; ``wait``: compiled and loaded now)."""
    load = load_full_module if wait else full_module_when_ready
    key, make = _class_pass_spec(dtype)
    return load(key, device, make)


@functools.cache
def _class_pass_spec(dtype: np.dtype) -> tuple:
    """(the class pass's module key for ``dtype``, its ``make``): made once, so that a warm
    sort's ask is a lookup."""
    kind = f"{dtype.kind}{dtype.itemsize}"
    return ("split-host", split_host.VERSION, kind), functools.partial(_class_pass_parts, kind)


def _class_pass_parts(kind: str) -> tuple:
    """``load_full_module``'s ``make()`` of the class pass for ``kind`` (picklable: the
    compile process can build it)."""
    return (f"split_host_{kind}", module_builder(split_host.build_split_module, kind), split_host.packer(),
            split_host.entries())


@functools.cache
def _sample_places() -> np.ndarray:
    """``SAMPLE`` fixed random places in [0, 1): a line's sample is at these shares of it."""
    return np.sort(np.random.default_rng(0x5EED).random(SAMPLE))


@functools.lru_cache(maxsize=64)
def sample_index(n: int) -> np.ndarray:
    """The sample's places (``_sample_places``) in a line of ``n`` (read-only; made once for
    the lengths seen most, where each call would multiply and cast ``SAMPLE`` values)."""
    index = (_sample_places() * n).astype(np.intp)
    index.flags.writeable = False
    return index


def _classes(a: np.ndarray, threads: int) -> tuple:
    """The class pass's boundaries for the line ``a`` to be sorted by ``threads`` threads:
    (their values, of ``a``'s dtype; for each 1 where it compares as ``<``, 0 as ``<=``;
    for each class but the NaNs' the one value it holds, or None).  One class for one
    thread; else each heavy value of the sample a class (the heaviest, as many as the
    boundaries allow), the rest of the sample cut into ``threads`` classes of about equal
    counts (at most ``KMAX + 1``; each boundary ``< s``: values equal to it go above)."""
    none = (np.empty(0, a.dtype), np.empty(0, np.uint8), [None])
    if threads == 1:
        return none
    s = np.sort(a[sample_index(a.size)])
    if s.dtype.kind == "f":
        s = s[:SAMPLE - int(np.count_nonzero(np.isnan(s)))]  # (NaN last: a class of their own)
    if s.size == 0:
        return none
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    lengths = np.diff(np.append(starts, s.size))
    heavy = np.flatnonzero(lengths >= SAMPLE * HEAVY_SHARE)
    # (a class a thread, as many as the pass's boundaries allow; two boundaries a heavy value)
    pieces = min(threads, split_host.KMAX + 1)
    room = (split_host.KMAX - (pieces - 1)) // 2
    heavy = np.sort(heavy[np.argsort(-lengths[heavy], kind="stable")[:room]])
    light = np.ones(s.size, bool)
    for r in heavy:
        light[starts[r]:starts[r] + lengths[r]] = False
    rest = s[light]
    cuts = [(rest[j * rest.size // pieces], 1) for j in range(1, pieces)] if rest.size else []
    values = {(s[starts[r]], 1) for r in heavy} | {(s[starts[r]], 0) for r in heavy} | set(cuts)
    # (sorted by value, ``< h`` before ``<= h``; -0.0 and +0.0 are one value to the compares)
    order = sorted(values, key=lambda vs: (vs[0], -vs[1]))
    merged = []
    for v, st in order:
        if not merged or merged[-1][0] != v or merged[-1][1] != st:
            merged.append((v, st))
    bounds = np.array([v for v, _ in merged], a.dtype)
    strict = np.array([st for _, st in merged], np.uint8)
    one_value = [None] * (len(merged) + 1)
    for c in range(1, len(merged)):
        if strict[c - 1] and not strict[c] and bounds[c - 1] == bounds[c]:
            one_value[c] = bounds[c]
    return bounds, strict, one_value


def _stable_runs(keys: Array, a: np.ndarray, o: np.ndarray, descending: bool, zeros: "bool | None" = None,
                 nans: "bool | None" = None) -> None:
    """Write the sorted line ``o``'s run of zeros where ``zeros``, and of NaNs where
    ``nans``, again from the line ``keys`` (host, contiguous; ``a``: its NumPy view), in
    ``keys``' order: NumPy's sort is not stable (the order of ``-0.0`` and ``+0.0``) and
    writes every NaN as NumPy's default NaN, as the split sort's fill does; the counting
    sort, which writes each key's value, rewrites the zeros where both signs are in
    ``keys``, and the NaNs.  None: the zeros where the sorted line holds one and ``keys``
    a ``-0.0`` (NumPy 2.5's sort writes some ``-0.0`` as ``+0.0``, so its run cannot say;
    it makes no ``-0.0`` of ``+0.0``: a line of ``+0.0`` alone has its run right), the NaNs
    where ``keys`` holds NaNs of other bits than ``np.nan``'s.  Each run is ``keys``' compaction
    by the mask (``x[m]``, by the host's threads).  A line without zeros or NaNs costs a
    binary search and two reads of ``o``: the line's last element ascending (first
    descending) is a NaN only where it holds NaNs, and the search for 0 lands on a zero
    only where it holds one."""
    n = o.size
    if not n:
        return
    up = o[::-1] if descending else o  # (ascending, NaN last: as ``searchsorted`` wants it)
    zero = o.dtype.type(0)  # (of ``o``'s type: no casts of ``up``)
    last = up[n - 1]
    if zeros is None or zeros:
        zlo = int(up.searchsorted(zero, "left"))
        if zlo < n and up[zlo] == zero and (zeros or _holds(a, -0.0)):
            zhi = int(up.searchsorted(zero, "right"))
            (o[n - zhi:n - zlo] if descending else o[zlo:zhi])[...] = keys[equal(keys, 0)]._host()
    if last == last or not (nans is None or nans):  # (no NaNs, or their run left as it is)
        return
    first_nan = int(up.searchsorted(o.dtype.type(np.nan), "left"))
    if nans is None:
        nans = _count_bits(a, np.nan) < n - first_nan
    if nans:
        (o[:n - first_nan] if descending else o[first_nan:])[...] = keys[isnan(keys)]._host()


def _count_bits(a: np.ndarray, value: float) -> int:
    """How many elements of the float line ``a`` have ``value``'s bits (read as unsigned
    words: ``-0.0`` and NaNs by their bits)."""
    u = np.dtype(f"u{a.itemsize}")
    return int(np.count_nonzero(a.view(u) == np.array(value, a.dtype).view(u)))


def _holds(a: np.ndarray, value: float) -> bool:
    """Whether the float line ``a`` holds an element of ``value``'s bits."""
    return _count_bits(a, value) > 0
