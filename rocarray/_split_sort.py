"""The host's sort of one line where NumPy sorts with SIMD instructions (AVX-512): by
NumPy, a long line on a host of a few threads split by NumPy's partition into one piece a
thread, each piece then sorted by NumPy, side by side.

On such a CPU NumPy's quicksort and partition (Intel's x86-simd-sort) move 16 or 8 values an
instruction, where the radix passes (``_radix``) scatter one value at a time, so that on a
few cores the radix passes lose to NumPy's one-thread sort and the split wins
(docs/primitives.md, stop 58), and a shorter line's network or radix passes, one
thread's, lose to it at any length (stop 60).  So a line of 32- or 64-bit real values or
16-bit integers is copied into the result (by the threads) and, from ``SPLIT_SORT_MIN`` on
(where the host has two threads or more), split in place:

1. levels of ``np.partition``: the line at its middle, then each half at its middle (the
   halves side by side), until there is a piece for each thread (two or four);
2. each piece sorted in place by NumPy (which lets go of the GIL while it sorts), the
   pieces handed to the host's threads as they come for them; descending: the line is
   split and sorted in a scratch line, and each thread writes its piece reversed into the
   result.

NumPy's partition slows up to tenfold where the rank it selects lies at or past the first
place of a run of one value that fills a few percent of the line or more (the pivots it
draws then keep falling in the run, and a pivot's equal values all go one way).  So a
sample of the line says its heavy values and where their runs begin (ranks estimated),
and a piece is cut below the first such run that begins in its first half instead of at
its middle, or not at all where that would leave too small a left piece (a line whose
smallest value is heavy is sorted by one NumPy sort, as NumPy sorts it).

NumPy's sort is not stable, which values alone show only in the order of ``-0.0`` and
``+0.0``; its SIMD partition of a line that holds NaNs and infinities writes some ``-0.0``
as ``+0.0`` (NumPy 2.4), and its SIMD sort writes every NaN with the same bits.  So where
the sorted line holds NaNs, or zeros and the input a ``-0.0`` (the threads count those as
they copy the line), their runs are written again from the input, in the input's order
(the standard's stable sort), at the cost of a pass over the input.  More threads than
``SPLIT_THREADS_MAX`` take the radix passes for lines longer than ``ONE_PIECE_MAX``,
which share all their work between the threads (the first partition here is one
thread's).
"""

from __future__ import annotations

import functools

import numpy as np

from ._array_object import Array

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


#: values drawn from a line (at fixed random places) to find its heavy values
SAMPLE = 4096
#: a value of at least this share of the sample is heavy (where the partition's selected
#: rank is at or past the first place of its run: a run of 3% of a line cost nothing, 10%
#: doubled the partition's time, 50% made it tenfold)
HEAVY_SHARE = 1 / 64
#: how far below a heavy run's estimated first rank a cut is made, as a share of the line
#: (the sample's estimate errs by at most about 0.8% of the line, one standard deviation)
MARGIN = 0.03
#: a piece is cut only where its left part holds at least this share of it
CUT_MIN_SHARE = 1 / 8


def split_sort(keys: Array, descending: bool) -> Array:
    """The flat line ``keys`` (host, contiguous) sorted stably into a new array (``keys``
    is never written)."""
    device, dtype, n = keys.device, keys.dtype, keys.size
    rt = device.runtime
    threads = _threads(device) if n >= SPLIT_SORT_MIN else 1
    a = keys._host()
    out = Array._empty((n,), dtype, device)
    # (descending: sorted in a scratch line, each piece written back reversed)
    work = Array._empty((n,), dtype, device) if descending else out
    o = out._host()
    w = o if work is out else work._host()
    step = -(-n // threads)
    negative_zeros = []
    sign = np.array(1 << (8 * dtype.itemsize - 1), f"u{dtype.itemsize}") if dtype.kind == "f" else None

    def copy(lo):
        np.copyto(w[lo:lo + step], a[lo:lo + step])
        if sign is not None:
            negative_zeros.append(np.count_nonzero(a[lo:lo + step].view(sign.dtype) == sign))

    # (one piece: on the calling thread, no hand-out)
    each = rt.map_threads if threads > 1 else lambda fn, items: [fn(item) for item in items]
    each(copy, range(0, n, step))
    runs, margin = (_heavy_runs(a) if threads > 1 else []), int(MARGIN * n)
    pieces, whole = [(0, n)], []
    while pieces and len(pieces) + len(whole) < threads:
        cuts = [(lo, hi, _cut(lo, hi, runs, margin)) for lo, hi in pieces]
        whole += [(lo, hi) for lo, hi, k in cuts if k is None]
        cuts = [c for c in cuts if c[2] is not None]
        # each piece cut at its rank ``k``: the values before it are at most its value, those
        # after at least (NaN last)
        each(lambda c: w[c[0]:c[1]].partition(c[2] - c[0]), cuts)
        pieces = [q for lo, hi, k in cuts for q in ((lo, k), (k, hi))]

    def sort(piece):
        lo, hi = piece
        w[lo:hi].sort()
        if descending:
            o[n - hi:n - lo] = w[lo:hi][::-1]

    each(sort, pieces + whole)
    if dtype.kind == "f":
        _stable_runs(a, o, descending, sum(negative_zeros) > 0)
    return out


@functools.cache
def _sample_places() -> np.ndarray:
    """``SAMPLE`` fixed random places in [0, 1): a line's sample is at these shares of it."""
    return np.sort(np.random.default_rng(0x5EED).random(SAMPLE))


def _heavy_runs(a: np.ndarray) -> list:
    """(estimated first rank, estimated end) of the run of each heavy value of the line
    ``a`` in its sorted order, from the sorted sample (NaNs one value, as the partition
    orders them)."""
    n = a.size
    s = np.sort(a[(_sample_places() * n).astype(np.intp)])
    same = s[1:] == s[:-1]
    if s.dtype.kind == "f":
        same |= np.isnan(s[1:]) & np.isnan(s[:-1])
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    lengths = np.diff(np.append(starts, SAMPLE))
    heavy = lengths >= SAMPLE * HEAVY_SHARE
    return [(int(r0) * n // SAMPLE, int(r0 + m) * n // SAMPLE) for r0, m in zip(starts[heavy], lengths[heavy])]


def _cut(lo: int, hi: int, runs: list, margin: int) -> "int | None":
    """The rank at which the piece of ranks [lo, hi) is cut: its middle, or ``margin``
    below the estimated start of a heavy run that may begin before it (a run that may
    begin in the piece's first half, or may cover its start); None where that leaves
    less than ``CUT_MIN_SHARE`` of the piece on the left."""
    k = (lo + hi) // 2
    for r0, r1 in runs:
        if r1 + margin > lo and r0 - margin <= k:
            k = min(k, r0 - margin - 1)
    return k if k - lo >= (hi - lo) * CUT_MIN_SHARE else None


def _stable_runs(a: np.ndarray, o: np.ndarray, descending: bool, zeros: bool) -> None:
    """Write the sorted ``o``'s run of NaNs, and its run of zeros where ``zeros``, again
    from ``a``, in ``a``'s order: NumPy's sort is not stable (the order of ``-0.0`` and
    ``+0.0``), its SIMD partition of a line holding NaNs and infinities may write ``-0.0``
    as ``+0.0`` (so the split sort rewrites the zeros where ``a`` holds a ``-0.0``), and its
    SIMD sort writes every NaN with the same bits (the counting sort, which writes each
    key's value, rewrites the zeros where both signs are in ``a``, and the NaNs)."""
    up = o[::-1] if descending else o  # (ascending, NaN last: as ``searchsorted`` wants it)
    n, zero, nan = o.size, o.dtype.type(0), o.dtype.type(np.nan)  # (of ``o``'s type: no casts of ``up``)
    zlo, zhi = np.searchsorted(up, zero, "left"), np.searchsorted(up, zero, "right")
    if zhi > zlo and zeros:
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
