"""The host's sort of one long line where NumPy sorts with SIMD instructions (AVX-512) and
the host has a few threads: the line split by NumPy's partition into one piece a thread,
each piece then sorted by NumPy, side by side.

On such a CPU NumPy's quicksort and partition (Intel's x86-simd-sort) move 16 or 8 values an
instruction, where the radix passes (``_radix``) scatter one value at a time, so that on a
few cores the radix passes lose to NumPy's one-thread sort and the split wins
(docs/primitives.md, stop 58).  So a long line of 32- or 64-bit real values is copied into
the result (by the threads) and split in place:

1. levels of ``np.partition``: the line at its middle, then each half at its middle (the
   halves side by side), until there is a piece for each thread (two or four);
2. each piece sorted in place by NumPy (which lets go of the GIL while it sorts), the
   pieces handed to the host's threads as they come for them; descending: the line is
   split and sorted in a scratch line, and each thread writes its piece reversed into the
   result.

Pieces split by rank, not by value, so many equal values cost nothing more.  NumPy's sort
is not stable, which values alone show only in the order of ``-0.0`` and ``+0.0``; its SIMD
partition of a line that holds NaNs and infinities writes some ``-0.0`` as ``+0.0`` (NumPy
2.4), and its SIMD sort writes every NaN with the same bits.  So where the sorted line holds zeros or
NaNs, their runs are written again from the input, in the input's order (the standard's
stable sort), at the cost of a pass over the input.  More threads than
``SPLIT_THREADS_MAX`` take the radix passes, which share all their work between the
threads (the first partition here is one thread's).
"""

from __future__ import annotations

import functools

import numpy as np

from ._array_object import Array

#: lines of at least this many elements are split (shorter ones go to the radix passes or
#: the host's sorting network)
SPLIT_SORT_MIN = 1 << 18
#: hosts of two to this many threads split their lines
SPLIT_THREADS_MAX = 4


def split_sorts(dtype: np.dtype, L: int, device) -> bool:
    """Whether a line of ``L`` values of ``dtype`` on ``device`` is split and sorted by
    NumPy: a host of a few threads whose NumPy sorts with AVX-512, a long line of 32- or
    64-bit real values."""
    return (device.kind == "cpu" and L >= SPLIT_SORT_MIN and dtype.kind in "iuf" and dtype.itemsize in (4, 8)
            and 2 <= _threads(device) <= SPLIT_THREADS_MAX and numpy_simd_sort())


@functools.cache
def numpy_simd_sort() -> bool:
    """Whether NumPy's quicksort runs on AVX-512 here (its x86-simd-sort dispatch; read
    once)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # (a NumPy without the table: assume the scalar sort)
        return False
    return bool(__cpu_features__.get("AVX512_SKX"))


def _threads(device) -> int:
    return getattr(device.runtime, "_threads", 1)


def split_sort(keys: Array, descending: bool) -> Array:
    """The flat line ``keys`` (host, contiguous) sorted stably into a new array (``keys``
    is never written)."""
    device, dtype, n = keys.device, keys.dtype, keys.size
    rt, threads = device.runtime, _threads(device)
    a = keys._host()
    out = Array._empty((n,), dtype, device)
    # (descending: sorted in a scratch line, each piece written back reversed)
    work = Array._empty((n,), dtype, device) if descending else out
    w, o = work._host(), out._host()
    step = -(-n // threads)
    rt.map_threads(lambda lo: np.copyto(w[lo:lo + step], a[lo:lo + step]), range(0, n, step))
    pieces = [(0, n)]
    while len(pieces) < threads:
        # each piece split at its middle: the values before it are at most its value, those
        # after at least (NaN last)
        rt.map_threads(lambda p: w[p[0]:p[1]].partition((p[1] - p[0]) // 2), pieces)
        pieces = [q for lo, hi in pieces for q in ((lo, lo + (hi - lo) // 2), (lo + (hi - lo) // 2, hi))]

    def sort(piece):
        lo, hi = piece
        w[lo:hi].sort()
        if descending:
            o[n - hi:n - lo] = w[lo:hi][::-1]

    rt.map_threads(sort, pieces)
    if dtype.kind == "f":
        _stable_runs(a, o, descending)
    return out


def _stable_runs(a: np.ndarray, o: np.ndarray, descending: bool) -> None:
    """Write the sorted ``o``'s run of zeros and its run of NaNs again from ``a``, in
    ``a``'s order: NumPy's sort is not stable (the order of ``-0.0`` and ``+0.0``), its
    SIMD partition of a line holding NaNs and infinities may write ``-0.0`` as ``+0.0``,
    and its SIMD sort writes every NaN with the same bits."""
    up = o[::-1] if descending else o  # (ascending, NaN last: as ``searchsorted`` wants it)
    n, zero, nan = o.size, o.dtype.type(0), o.dtype.type(np.nan)  # (of ``o``'s type: no casts of ``up``)
    zlo, zhi = np.searchsorted(up, zero, "left"), np.searchsorted(up, zero, "right")
    if zhi > zlo:
        zeros = a[a == 0]
        if descending:
            o[n - zhi:n - zlo] = zeros
        else:
            o[zlo:zhi] = zeros
    first_nan = np.searchsorted(up, nan, "left")
    if first_nan < n:
        nans = a[np.isnan(a)]
        if descending:
            o[:n - first_nan] = nans
        else:
            o[first_nan:] = nans
