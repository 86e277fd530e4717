"""The host's counting sort: a long line of integers or bools whose values span a small
range is sorted by counting them, and its unique values and their counts are read from the
same counts (``unique_values``, ``unique_counts``), with no sort.

Such lines are common (labels, categories, small counts, every 8- and 16-bit line), and
NumPy sorts them by comparisons (16-bit ones with AVX-512), where counting reads the line
once and writes it once:

1. ``rk_count_host``: each item counts its chunk's values less the smallest, in four
   interleaved sets of counters (int32; consecutive values go to different sets, so a run
   of one value is not one chain of dependent increments);
2. the sets summed over the items (a reduction of ``(sets, range)``), then their running
   sum: where each value's run ends in the sorted line;
3. ``rk_count_fill_host``: each item writes its share of the sorted line as runs of equal
   values, from the first value whose run reaches into it (a binary search of the running
   sums); descending, the same runs in reversed places.

The range is read first: 8- and 16-bit integers and bools always fit; wider integers are
sampled (the split sort's sample places) and read whole only where the sample's range is
small.  Sizes and the range are run-time arguments: one kernel per dtype.
"""

from __future__ import annotations

import numpy as np

from ._array_object import Array
from ._copy import contiguous
from ._creation_functions import asarray
from ._radix_gpu import value_extremes
from ._split_sort import _sample_places
from ._statistical_functions import cumulative_sum, sum as _sum
from ._user_kernels import ElementwiseKernel

#: lines of at least this many elements are counted
COUNT_MIN_LINE = 1 << 15
#: ... whose values span at most this many values
COUNT_RANGE_MAX = 1 << 16
#: ... and at most this share of the line (four sets of counters an item)
COUNT_RANGE_SHARE = 1 / 16
#: the counters' sets (consecutive values count in different ones)
SETS = 4

_COUNT = """
long c = i;
long j = c * C;
long end = j + C < n ? j + C : n;
long o = c * 4 * R;
for (long b = 0; b < 4 * R; b++) cnt[o + b] = 0;
unsigned long long lo = (unsigned long long)base;
if (a.ndim == 1 && a.strides()[0] == sizeof(T) && cnt.ndim == 1 && cnt.strides()[0] == 4) {
    for (; j + 4 <= end; j += 4) {
        cnt[o + (long)((unsigned long long)a[j] - lo)] += 1;
        cnt[o + R + (long)((unsigned long long)a[j + 1] - lo)] += 1;
        cnt[o + 2 * R + (long)((unsigned long long)a[j + 2] - lo)] += 1;
        cnt[o + 3 * R + (long)((unsigned long long)a[j + 3] - lo)] += 1;
    }
}
for (; j < end; j++) cnt[o + (long)((unsigned long long)a[j] - lo)] += 1;
"""

_FILL = """
long c = i;
long p = c * C;
long end = p + C < n ? p + C : n;
if (p >= end) return;
long q = desc ? n - end : p;
long q1 = desc ? n - p : end;
long b = 0, hi = R - 1;
while (b < hi) {
    long m = (b + hi) >> 1;
    if (inc[m] > q) hi = m; else b = m + 1;
}
unsigned long long lo = (unsigned long long)base;
if (o.ndim == 1 && o.strides()[0] == sizeof(T)) {
    for (; q < q1; b++) {
        long e = inc[b] < q1 ? inc[b] : q1;
        T v = (T)(lo + (unsigned long long)b);
        if (desc) { for (; q < e; q++) o[n - 1 - q] = v; }
        else { for (; q < e; q++) o[q] = v; }
    }
}
for (; q < q1; b++) {
    long e = inc[b] < q1 ? inc[b] : q1;
    T v = (T)(lo + (unsigned long long)b);
    for (; q < e; q++) o[desc ? n - 1 - q : q] = v;
}
"""

_count = ElementwiseKernel("raw T a, int64 n, int64 C, int64 R, T base", "raw int32 cnt", _COUNT, "rk_count_host",
                           _heavy=True)
_fill = ElementwiseKernel("raw int64 inc, int64 n, int64 C, int64 R, T base, bool desc", "raw T o", _FILL,
                          "rk_count_fill_host", _heavy=True)


def _range(x: Array) -> "tuple[int, int] | None":
    """(the smallest value, the number of values from it to the largest) of the flat,
    contiguous host array ``x`` where that number is small enough to count by
    (``COUNT_RANGE_MAX``, ``COUNT_RANGE_SHARE``), else None."""
    n, dtype = x.size, x.dtype
    if dtype.kind == "b":
        lo, hi = 0, 1
    else:
        if dtype.itemsize > 2:
            # (a sample's range first: a wide line is not read whole for its extremes)
            s = x._host()[(_sample_places() * n).astype(np.intp)]
            if int(s.max()) - int(s.min()) >= COUNT_RANGE_MAX:
                return None
        lo, hi = value_extremes(x)
    span = hi - lo + 1
    return (lo, span) if span <= COUNT_RANGE_MAX and span <= n * COUNT_RANGE_SHARE else None


def _items(n: int, device) -> int:
    """The kernel items of a line of ``n``: one a thread, each a chunk of ``COUNT_MIN_LINE``
    or more, and of at most 2^30 (its counters are 32-bit)."""
    return max(1, min(getattr(device.runtime, "_threads", 1), n // COUNT_MIN_LINE), -(-n // (1 << 30)))


def counts(x: Array) -> "tuple[int, Array] | None":
    """(the smallest value, each value's count from it on: int64) of the flat, contiguous
    ``x``, where it is a host line that the counting sort takes; else None."""
    n, device = x.size, x.device
    if device.kind != "cpu" or x.dtype.kind not in "biu" or n < COUNT_MIN_LINE:
        return None
    found = _range(x)
    if found is None:
        return None
    lo, span = found
    items = _items(n, device)
    chunk = -(-n // items)
    cnt = Array._empty((items * SETS * span,), np.dtype(np.int32), device)
    base = lo if x.dtype.kind != "b" else False
    _count(x, n, chunk, span, base, cnt, size=items, _work=n)
    return lo, _sum(cnt.reshape((items * SETS, span)), axis=0, dtype=np.int64)


def count_sort(keys: Array, descending: bool) -> "Array | None":
    """The flat, contiguous line ``keys`` sorted into a new array by its counts, where the
    counting sort takes it (``counts``); else None."""
    found = counts(keys)
    if found is None:
        return None
    lo, totals = found
    n, device = keys.size, keys.device
    items = _items(n, device)
    out = Array._empty((n,), keys.dtype, device)
    base = lo if keys.dtype.kind != "b" else False
    _fill(cumulative_sum(totals), n, -(-n // items), totals.size, base, descending, out, size=items, _work=n)
    return out


def count_runs(x: Array, lengths: bool) -> "tuple | None":
    """(the unique values of ``x`` (any shape, read flattened), sorted; their counts if
    ``lengths``, else None) from its counts, where the counting sort takes it; else None."""
    if x.device.kind != "cpu" or x.dtype.kind not in "biu" or x.size < COUNT_MIN_LINE:
        return None  # (before the flat copy a view would take)
    found = counts(contiguous(x.reshape((x.size,))))
    if found is None:
        return None
    lo, totals = found
    t = totals._host()
    present = np.flatnonzero(t)
    # (in the unsigned words: a negative smallest value wraps, and the dtype's cast keeps
    # the low bits, two's complement)
    values = (present.astype(np.uint64) + np.uint64(lo % (1 << 64))).astype(x.dtype)
    device = x.device
    return asarray(values, device=device), asarray(t[present], device=device) if lengths else None
