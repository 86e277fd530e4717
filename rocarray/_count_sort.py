"""The host's counting sort: a long line of integers or bools whose values span a small
range is sorted by counting them, and its unique values and their counts are read from the
same counts (``unique_values``, ``unique_counts``), with no sort; a long line of float16 is
sorted by counting its bits (65,536 keys); rows of 8-bit integers and bools are argsorted
by counting (``count_argsort_rows``).

Such lines are common (labels, categories, small counts, every 8- and 16-bit line), and
NumPy sorts them by comparisons (16-bit ones with AVX-512), where counting reads the line
once and writes it once:

1. ``rk_count_host``: each item counts its chunk's values less the smallest, in four
   interleaved sets of counters (int32; consecutive values go to different sets, so a run
   of one value is not one chain of dependent increments); a line of a few values
   (``FEW_VALUES``) is counted by ``rk_count_few*_host`` instead: each value's count is a
   vectorised sum of compares over blocks that stay in the L1 cache (a few counters'
   increments follow each other closely, each waiting on the one before);
2. the sets summed over the items (a reduction of ``(sets, range)``), then their running
   sum: where each value's run ends in the sorted line;
3. ``rk_count_fill_host``: each item writes its share of the sorted line as runs of equal
   values, from the first value whose run reaches into it (a binary search of the running
   sums); descending, the same runs in reversed places.

The range is read first: 8- and 16-bit integers and bools always fit; wider integers are
sampled (the split sort's sample places) and read whole only where the sample's range is
small.  Where the sample holds a few values (bools: always), the line is counted by the
compares over the sample's range at once, with no read of its extremes: the counts' sum
says whether every element was in it (else the line's range is read, as for any other).
Sizes and the range are run-time arguments: one kernel per dtype.

float16 is counted by its bits, through keys that order as its values (every NaN one key,
the last); the fill writes each key's value, and then, as the split sort does, the runs
of zeros (where both signs are present) and of NaNs again from the input in its order:
the standard's stable sort, NaNs with their own bits.  Its unique values come from the
sorted line's runs (each NaN is its own unique value).
"""

from __future__ import annotations

import numpy as np

from ._array_object import Array
from ._copy import contiguous
from ._creation_functions import asarray
from ._radix_gpu import value_extremes
from ._split_sort import _stable_runs, sample_index
from ._statistical_functions import cumulative_sum, sum as _sum
from ._user_kernels import ElementwiseKernel

#: lines of at least this many elements are counted
COUNT_MIN_LINE = 1 << 15
#: ... whose values span at most this many values
COUNT_RANGE_MAX = 1 << 16
#: ... and at most this share of the line (four sets of counters an item)
COUNT_RANGE_SHARE = 1 / 16
#: the sample's range is first read from every ``PEEK_STEP``-th of its values
PEEK_STEP = 64
#: the counters' sets (consecutive values count in different ones)
SETS = 4
#: a range of at most this many values is counted by compares, by the values' bytes
#: (wider values fill fewer lanes of a vector; 64-bit ones never gained on the counters)
FEW_VALUES = {1: 4, 2: 12, 4: 4, 8: 0}
#: elements of a block that the compares of each value read again (in the L1 cache)
FEW_BLOCK = 2048

_COUNT = """
long c = i;
long j = c * C;
long end = j + C < n ? j + C : n;
long o = c * 4 * R;
for (long b = 0; b < 4 * R; b++) cnt[o + b] = 0;
unsigned long long lo = (unsigned long long)base;
if (a.ndim == 1 && a.strides()[0] == sizeof(T) && cnt.ndim == 1 && cnt.strides()[0] == 4) {
    for (; j + 4 <= end; j += 4) {
        cnt[o + rk_key(a[j], lo)] += 1;
        cnt[o + R + rk_key(a[j + 1], lo)] += 1;
        cnt[o + 2 * R + rk_key(a[j + 2], lo)] += 1;
        cnt[o + 3 * R + rk_key(a[j + 3], lo)] += 1;
    }
}
for (; j < end; j++) cnt[o + rk_key(a[j], lo)] += 1;
"""

# Each value's count: a sum of compares over a block of the chunk, which LLVM vectorises
# (outside the range: counted by none; a line not 1-D and contiguous, as the others); the
# sum in lanes as wide as the values (``ACC``: a wider sum would take more instructions
# a vector of values), which hold a block's count.
_COUNT_FEW = f"""
long c = i;
long j = c * C;
long end = j + C < n ? j + C : n;
long o = c * R;
for (long b = 0; b < R; b++) cnt[o + b] = 0;
unsigned long long lo = (unsigned long long)base;
if (a.ndim == 1 && a.strides()[0] == sizeof(T) && cnt.ndim == 1 && cnt.strides()[0] == 4) {{
    for (; j < end; j += {FEW_BLOCK}) {{
        long e = j + {FEW_BLOCK} < end ? j + {FEW_BLOCK} : end;
        for (long b = 0; b < R; b++) {{
            T v = (T)rk_value(b, lo);
            ACC k = 0;
            for (long q = j; q < e; q++) k += a[q] == v;
            cnt[o + b] += (int)k;
        }}
    }}
    return;
}}
for (; j < end; j++) {{
    unsigned long long b = (unsigned long long)rk_key(a[j], lo);
    if (b < (unsigned long long)R) cnt[o + (long)b] += 1;
}}
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
        T v = (T)rk_value(b, lo);
        if (desc) { for (; q < e; q++) o[n - 1 - q] = v; }
        else { for (; q < e; q++) o[q] = v; }
    }
}
for (; q < q1; b++) {
    long e = inc[b] < q1 ? inc[b] : q1;
    T v = (T)rk_value(b, lo);
    for (; q < e; q++) o[desc ? n - 1 - q : q] = v;
}
"""

#: The kernels' ``rk_key`` (a value's counter, from the smallest value ``lo``) and
#: ``rk_value`` (the value of a counter) for integers and bools, and for float16, counted
#: by its bits (a uint16 view): its key orders as its value (negative values complemented,
#: others with the top bit set), every NaN the last key, ``-0.0`` and ``+0.0`` two keys
#: side by side.
_KINDS = {
    "int": """
template <typename T> __device__ long rk_key(T x, unsigned long long lo) {
    return (long)((unsigned long long)x - lo);
}
__device__ unsigned long long rk_value(long b, unsigned long long lo) { return lo + (unsigned long long)b; }""",
    "f16": """
__device__ long rk_key(unsigned short h, unsigned long long lo) {
    // (no branch on the sign, which random data takes at random: negative values flip
    // every bit, others the top one)
    unsigned int u = h;
    unsigned int flip = (0u - (u >> 15)) | 0x8000u;
    long key = (long)((u ^ flip) & 0xFFFFu);
    return (u & 0x7FFFu) > 0x7C00u ? 0xFFFF : key;
}
__device__ unsigned long long rk_value(long k, unsigned long long lo) {
    return (unsigned short)(k >= 0x8000 ? k & 0x7FFF : ~k & 0xFFFF);
}""",
}
_kernels: dict = {}


#: the compares' sums by the values' size: as wide as they are (bools and bytes: int, a
#: byte's sum would not hold a block's count)
_FEW_SUMS = {1: "int", 2: "short", 4: "int", 8: "long"}


def _kernel(what: str, kind: str) -> ElementwiseKernel:
    """The counting (``what`` "count", or "few1" .. "few8": by compares, of values of so
    many bytes), or filling ("fill") kernel of ``kind`` (``_KINDS``)."""
    k = _kernels.get((what, kind))
    if k is None:
        preamble = _KINDS[kind]
        body = {"count": _COUNT, "fill": _FILL}.get(what) or _COUNT_FEW.replace("ACC", _FEW_SUMS[int(what[3:])])
        suffix = "" if kind == "int" else f"_{kind}"
        if what != "fill":
            k = ElementwiseKernel("raw T a, int64 n, int64 C, int64 R, T base", "raw int32 cnt", body,
                                  f"rk_{'count' if what == 'count' else 'count_' + what}{suffix}_host",
                                  preamble=preamble, _heavy=True)
        else:
            k = ElementwiseKernel("raw int64 inc, int64 n, int64 C, int64 R, T base, bool desc", "raw T o", body,
                                  f"rk_count_fill{suffix}_host", preamble=preamble, _heavy=True)
        k = _kernels.setdefault((what, kind), k)
    return k


#: the float16 keys' counters: every bit pattern's (NaNs one), ``-0.0``'s and ``+0.0``'s
F16_KEYS, F16_NEGATIVE_ZERO, F16_POSITIVE_ZERO = 1 << 16, 0x7FFF, 0x8000


def _sample_range(x: Array) -> "tuple[int, int] | None":
    """(the smallest value, the largest) of the sample of the flat, contiguous host line
    ``x`` of integers, or None where that range is already too long to count (then so is
    the line's).  Read first from every ``PEEK_STEP``-th of the sample, whose range is the
    sample's at most, which a line of a wide range already fails."""
    n = x.size
    a, most, index = x._host(), min(COUNT_RANGE_MAX, n * COUNT_RANGE_SHARE), sample_index(n)
    for places in (index[::PEEK_STEP], index):
        s = a[places]
        lo, hi = int(s.min()), int(s.max())
        if hi - lo + 1 > most:
            return None
    return lo, hi


def _range(x: Array, sampled: bool = False) -> "tuple[int, int] | None":
    """(the smallest value, the number of values from it to the largest: the counters) of
    the flat, contiguous host array ``x`` where that number is small enough to count by
    (``COUNT_RANGE_MAX``, ``COUNT_RANGE_SHARE``), else None (float16: its keys, 0 and
    ``F16_KEYS``).  Integers wider than 16 bits are read whole for their extremes only
    where their sample's range is small (``_sample_range``; ``sampled``: the caller has
    asked it)."""
    n, dtype = x.size, x.dtype
    if dtype.kind == "b":
        lo, hi = 0, 1
    elif dtype.kind == "f":
        lo, hi = 0, F16_KEYS - 1
    else:
        if dtype.itemsize > 2 and not sampled and _sample_range(x) is None:
            return None
        lo, hi = value_extremes(x)
    span = hi - lo + 1
    return (lo, span) if span <= COUNT_RANGE_MAX and span <= n * COUNT_RANGE_SHARE else None


def _counted(x: Array) -> bool:
    """Whether ``x``'s dtype and length are the counting sort's (its range is read
    after)."""
    dtype = x.dtype
    return (x.device.kind == "cpu" and x.size >= COUNT_MIN_LINE
            and (dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize == 2)))


def _items(n: int, device) -> int:
    """The kernel items of a line of ``n``: one a thread, each a chunk of ``COUNT_MIN_LINE``
    or more, and of at most 2^30 (its counters are 32-bit)."""
    return max(1, min(getattr(device.runtime, "_threads", 1), n // COUNT_MIN_LINE), -(-n // (1 << 30)))


def counts(x: Array) -> "tuple[int, Array] | None":
    """(the smallest value, each value's count from it on: int64; float16: each key's) of
    the flat, contiguous ``x``, where it is a host line that the counting sort takes; else
    None.  Bools, and integers whose sample holds a few values (``FEW_VALUES``), are
    counted by the compares over the sample's range first, with no read of the extremes."""
    if not _counted(x):
        return None
    dtype = x.dtype
    found = None
    if dtype.kind == "b":
        found = _count(x, 0, 2)
    elif dtype.kind in "iu":
        sampled = _sample_range(x)
        if sampled is None:
            return None
        lo, hi = sampled
        if hi - lo < FEW_VALUES[dtype.itemsize]:
            found = _count(x, lo, hi - lo + 1)
    if found is None:  # (not a few values, or one outside the sample's: the line's range)
        exact = _range(x, sampled=True)
        found = None if exact is None else _count(x, *exact)
    return found


def _count(x: Array, lo: int, span: int) -> "tuple | None":
    """(``lo``, the counts of the ``span`` values from ``lo`` in ``x``: int64): by compares
    where they are a few values (``FEW_VALUES``; None where an element lies outside
    them), else by the counters (the range must hold every element)."""
    n, device, size = x.size, x.device, x.dtype.itemsize
    items = _items(n, device)
    chunk = -(-n // items)
    few = x.dtype.kind in "biu" and span <= FEW_VALUES[size]
    sets = 1 if few else SETS
    cnt = Array._empty((items * sets * span,), np.dtype(np.int32), device)
    keys, kind, base = _as_counted(x, lo)
    _kernel(f"few{size}" if few else "count", kind)(keys, n, chunk, span, base, cnt, size=items, _work=n)
    totals = _sum(cnt.reshape((items * sets, span)), axis=0, dtype=np.int64)
    return None if few and int(totals._host().sum()) != n else (lo, totals)


def _as_counted(x: Array, lo: int) -> tuple:
    """(the array the kernels read and write for ``x``, their kind, the ``base`` they
    take): float16 as its bits."""
    if x.dtype.kind == "f":
        return Array._new(x._buf, x.shape, x.strides, x._offset, np.dtype(np.uint16)), "f16", 0
    return x, "int", lo if x.dtype.kind != "b" else False


def count_sort(keys: Array, descending: bool) -> "Array | None":
    """The flat, contiguous line ``keys`` sorted into a new array by its counts, where the
    counting sort takes it (``counts``); else None.  float16: the runs of zeros (where
    both signs are present) and of NaNs are written again from the input in its order,
    as the split sort's (``_split_sort._stable_runs``)."""
    found = counts(keys)
    if found is None:
        return None
    lo, totals = found
    n, device = keys.size, keys.device
    items = _items(n, device)
    out = Array._empty((n,), keys.dtype, device)
    target, kind, base = _as_counted(out, lo)
    _kernel("fill", kind)(cumulative_sum(totals), n, -(-n // items), totals.size, base, descending, target,
                          size=items, _work=n)
    if kind == "f16":
        t = totals._host()
        both_zeros = bool(t[F16_NEGATIVE_ZERO]) and bool(t[F16_POSITIVE_ZERO])
        _stable_runs(keys, keys._host(), out._host(), descending, both_zeros, True)
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


# One item a row: its 256 counts, their running sum, then each element's place written at
# its key's next slot, in order (stable; descending complements the keys, which keeps
# equal elements in input order, as the standard's stable descending sort does).
_ARGSORT_ROW = """
    for (long j = 0; j < L; j++) c[((unsigned int)(unsigned char)a[base + j] ^ x) & 255] += 1;
    long s = 0;
    for (long b = 0; b < 256; b++) { long t = c[b]; c[b] = s; s += t; }
    for (long j = 0; j < L; j++) {
        long k = ((unsigned int)(unsigned char)a[base + j] ^ x) & 255;
        out[base + c[k]] = j;
        c[k] += 1;
    }"""
# (the row's loops twice, as the other host walks: under a test that the operands are 1-D
# runs, where LLVM drops each access's layout check, then plain)
_ARGSORT_ROWS = f"""
long base = i * L;
long c[256];
for (long b = 0; b < 256; b++) c[b] = 0;
if (a.ndim == 1 && a.strides()[0] == sizeof(T) && out.ndim == 1 && out.strides()[0] == 8) {{
    {_ARGSORT_ROW}
    return;
}}
{_ARGSORT_ROW}
"""
_argsort_rows = ElementwiseKernel("raw T a, int64 L, int64 x", "raw int64 out", _ARGSORT_ROWS,
                                  "rk_count_argsort_rows_host", _heavy=True)
#: the longest line (one row) ``count_argsort_rows`` takes: one item sorts a row, so a
#: longer single line keeps the radix passes, which share it between the threads
COUNT_ARGSORT_LINE_MAX = 1 << 16


def count_argsort_rows(keys: Array, rows: int, L: int, descending: bool) -> "Array | None":
    """The stable ``argsort`` (int64 places, flat) of each of the ``rows`` rows of ``L`` of
    the flat, contiguous host array ``keys`` of 8-bit integers or bools, by counting; None
    for other keys (and a single line longer than ``COUNT_ARGSORT_LINE_MAX``)."""
    dtype = keys.dtype
    if keys.device.kind != "cpu" or dtype.itemsize != 1 or (rows == 1 and L > COUNT_ARGSORT_LINE_MAX):
        return None
    # (each byte's key: signed integers with the sign bit flipped, descending all bits)
    x = (0x80 if dtype.kind == "i" else 0) ^ (0xFF if descending else 0)
    out = Array._empty((rows * L,), np.dtype(np.int64), keys.device)
    _argsort_rows(keys, L, x, out, size=rows, _work=rows * L)
    return out
