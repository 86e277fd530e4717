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
smallest value is heavy is sorted by one NumPy sort, as NumPy sorts it).  The heaviest
value of a 64-bit line, once an eighth of the sample or more and where its run would
move or stop the first cut, is set apart first instead (``_three_way``): a pass of the threads writes the line as its values below, equal to and
above that value, each part in input order, so that the run is never sorted (NumPy sorts
a run as it sorts other values) and the pieces are cut from the parts below and above
it.  Float lines are written with each NaN as ``+inf`` (by that pass, or by the copy:
NumPy partitions a line of many NaNs three times slower than one of as many infinities),
and NaNs written back over the sorted line's last places.

NumPy's sort is not stable, which values alone show only in the order of ``-0.0`` and
``+0.0``; its SIMD partition of a line that holds NaNs and infinities writes some ``-0.0``
as ``+0.0`` (NumPy 2.4), and its SIMD sort writes every NaN as ``np.nan``.  So where the
sorted line holds zeros and the input a ``-0.0`` (the threads count those as they copy the
line), or NaNs of other bits than ``np.nan``'s, their runs are written again from the
input, in the input's order (the standard's stable sort), by the masks' compaction
(``_stable_runs``).  More threads than
``SPLIT_THREADS_MAX`` take the radix passes for lines longer than ``ONE_PIECE_MAX``,
which share all their work between the threads (the first partition here is one
thread's).
"""

from __future__ import annotations

import functools

import numpy as np

from ._array_object import Array
from ._creation_functions import asarray
from ._elementwise_functions import equal, isnan
from ._user_kernels import ElementwiseKernel

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
#: a heavy value of at least this share of the sample is set apart before the pieces are
#: cut (``_three_way``): its run is never sorted, and the pieces are cut from the values
#: below and above it; for the sizes of ``APART_SIZES``, where NumPy's sort of the run
#: costs more than the pass that sets it apart (2.5 ns an element a thread on the 2-core
#: VM: about what NumPy's sort of a float32 run costs; benchmarks/results/2026-12-05-cpu-stop61/)
APART_SHARE = 1 / 8
APART_SIZES = (8,)
#: pieces longer than this many times a thread's share of the values to sort are cut
#: again (where ``_cut`` may cut them)
CUT_ABOVE = 1.25


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
    floats = dtype.kind == "f"
    # (NaNs are sorted as +inf, which NumPy's partition takes at its speed, and written
    # back over the run's end after)
    big = dtype.type(np.inf) if floats else dtype.type(0)
    # (one piece: on the calling thread, no hand-out)
    each = rt.map_threads if threads > 1 else lambda fn, items: [fn(item) for item in items]
    runs, margin = (_heavy_runs(a) if threads > 1 else []), int(MARGIN * n)
    # (a run past the middle leaves the first cut where it is: NumPy sorts such a piece well)
    apart = max((r for r in runs if r[1] - r[0] >= n * APART_SHARE and dtype.itemsize in APART_SIZES
                 and _cut(0, n, [r], margin) != n // 2), key=lambda r: r[1] - r[0], default=None)
    apart_nan = apart is not None and bool(apart[2] != apart[2])
    if apart is not None:
        # the heaviest value's run set apart: the line is written below, equal to and above
        # it, and only the values below and above are sorted
        runs.remove(apart)
        lo_eq, hi_eq, nans, negative_zeros = _three_way(keys, work, apart[2], big, threads)
        if descending:
            o[n - hi_eq:n - lo_eq] = w[lo_eq:hi_eq]
        pieces = [(lo, hi) for lo, hi in ((0, lo_eq), (hi_eq, n)) if hi > lo]
    elif floats:
        nans, negative_zeros = _float_copy(keys, work, big, threads)
        pieces = [(0, n)]
    else:
        step = -(-n // threads)
        each(lambda lo: np.copyto(w[lo:lo + step], a[lo:lo + step]), range(0, n, step))
        pieces, nans, negative_zeros = [(0, n)], 0, 0
    fair = CUT_ABOVE * sum(hi - lo for lo, hi in pieces) / threads
    ready = []
    while pieces:
        cuts = [(lo, hi, _cut(lo, hi, runs, margin)) for lo, hi in pieces if hi - lo > fair]
        ready += [(lo, hi) for lo, hi in pieces if hi - lo <= fair] + [(lo, hi) for lo, hi, k in cuts if k is None]
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

    # (the longest first: the threads take them as they come)
    each(sort, sorted(ready, key=lambda q: q[0] - q[1]))
    if floats:
        if nans:  # (the NaNs sorted as +inf: the run's last places, its first descending)
            (o[:nans] if descending else o[n - nans:])[...] = np.nan
        # (NaNs set apart: in input order already)
        _stable_runs(keys, out, descending, negative_zeros > 0, "none" if apart_nan else "default")
    return out


@functools.cache
def _sample_places() -> np.ndarray:
    """``SAMPLE`` fixed random places in [0, 1): a line's sample is at these shares of it."""
    return np.sort(np.random.default_rng(0x5EED).random(SAMPLE))


def _heavy_runs(a: np.ndarray) -> list:
    """(estimated first rank, estimated end, the value) of the run of each heavy value of
    the line ``a`` in its sorted order, from the sorted sample (NaNs one value, as the
    partition orders them)."""
    n = a.size
    s = np.sort(a[(_sample_places() * n).astype(np.intp)])
    same = s[1:] == s[:-1]
    if s.dtype.kind == "f":
        same |= np.isnan(s[1:]) & np.isnan(s[:-1])
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    lengths = np.diff(np.append(starts, SAMPLE))
    heavy = lengths >= SAMPLE * HEAVY_SHARE
    return [(int(r0) * n // SAMPLE, int(r0 + m) * n // SAMPLE, s[r0]) for r0, m in zip(starts[heavy], lengths[heavy])]


def _cut(lo: int, hi: int, runs: list, margin: int) -> "int | None":
    """The rank at which the piece of ranks [lo, hi) is cut: its middle, or ``margin``
    below the estimated start of a heavy run that may begin before it (a run that may
    begin in the piece's first half, or may cover its start); None where that leaves
    less than ``CUT_MIN_SHARE`` of the piece on the left."""
    k = (lo + hi) // 2
    for r0, r1, _ in runs:
        if r1 + margin > lo and r0 - margin <= k:
            k = min(k, r0 - margin - 1)
    return k if k - lo >= (hi - lo) * CUT_MIN_SHARE else None


# The split sort's passes over the line ``a`` of ``n`` into ``w``: one item a chunk of
# ``C``; each walk twice, as the other host walks: under a test that the operands are 1-D
# runs, where LLVM drops each access's layout check, then plain.
def _walks(walk: str, arrays: tuple, head: str, tail: str = "") -> str:
    test = " && ".join(f"{x}.ndim == 1 && {x}.strides()[0] == sizeof(T)" for x in arrays)
    return f"""
long j = i * C;
long end = j + C < n ? j + C : n;
{head}
if ({test}) {{
    {walk}
}}
{walk}
{tail}"""


# ``_float_copy``: ``a`` copied, each NaN written as ``big``; its NaNs and ``-0.0`` counted
_COPY = _walks("for (; j < end; j++) { T v = a[j]; bool q = v != v; w[j] = q ? big : v; "
               "z += v == 0 && signbit(v); nq += q; }", ("a", "w"),
               "long z = 0, nq = 0;", "cnt[2 * i] = z; cnt[2 * i + 1] = nq;")
# ``_three_way``: an element is below ``h`` (``hnan``: ``h`` is a NaN, and every other value
# is below it), equal to it (NaNs: every NaN), or above (a NaN where ``h`` is not one, NaN
# last: written as ``big``, and counted)
_CLASSES = """
template <typename T> __device__ bool rk_below(T v, T h, bool hnan) { return hnan ? v == v : v < h; }
template <typename T> __device__ bool rk_equal(T v, T h, bool hnan) { return hnan ? v != v : v == h; }"""
_COUNT3 = _walks("for (; j < end; j++) { T v = a[j]; below += rk_below(v, h, hnan); equal += rk_equal(v, h, hnan); "
                 "nq += !hnan && v != v; z += v == 0 && signbit((double)v); }", ("a",),
                 "long below = 0, equal = 0, nq = 0, z = 0;",
                 "cnt[4 * i] = below; cnt[4 * i + 1] = equal; cnt[4 * i + 2] = nq; cnt[4 * i + 3] = z;")
# (an element's place chosen by selects, one store: no branch on the data)
_PLACE3 = _walks("""for (; j < end; j++) {
    T v = a[j];
    bool lt = rk_below(v, h, hnan);
    bool eq = rk_equal(v, h, hnan);
    long k = lt ? p0 : (eq ? p1 : p2);
    w[k] = !hnan && v != v ? big : v;
    p0 += lt;
    p1 += eq;
    p2 += !lt && !eq;
}""", ("a", "w"), "long p0 = at[3 * i], p1 = at[3 * i + 1], p2 = at[3 * i + 2];")
_float_copy_k = ElementwiseKernel("raw T a, int64 n, int64 C, T big", "raw T w, raw int64 cnt", _COPY,
                                  "rk_split_copy_host", _heavy=True)
_count3 = ElementwiseKernel("raw T a, int64 n, int64 C, T h, bool hnan, T big", "raw int64 cnt", _COUNT3,
                            "rk_split_count3_host", preamble=_CLASSES, _heavy=True)
_place3 = ElementwiseKernel("raw T a, int64 n, int64 C, T h, bool hnan, T big, raw int64 at", "raw T w", _PLACE3,
                            "rk_split_place3_host", preamble=_CLASSES, _heavy=True)


def _float_copy(keys: Array, work: Array, big, items: int) -> tuple[int, int]:
    """Copy the float line ``keys`` into ``work``, each NaN written as ``big``, by
    ``items`` kernel items a chunk each; returns (its NaNs, its ``-0.0``)."""
    n = keys.size
    cnt = Array._empty((2 * items,), np.dtype(np.int64), keys.device)
    _float_copy_k(keys, n, -(-n // items), big, work, cnt, size=items, _work=n)
    z, nq = cnt._host().reshape(items, 2).sum(axis=0)
    return int(nq), int(z)


def _three_way(keys: Array, work: Array, h, big, items: int) -> tuple[int, int, int, int]:
    """Write the line ``keys`` into ``work`` as its values below ``h``, those equal to it
    and those above (NaN last, written as ``big`` where ``h`` is not a NaN; each part in
    input order), by ``items`` kernel items a chunk each; returns (where the equal ones
    begin, where they end, the NaNs written as ``big``, the ``-0.0``)."""
    n = keys.size
    chunk = -(-n // items)
    hnan = bool(h != h)
    cnt = Array._empty((4 * items,), np.dtype(np.int64), keys.device)
    _count3(keys, n, chunk, h, hnan, big, cnt, size=items, _work=n)
    c = cnt._host().reshape(items, 4)
    below, equal = c[:, 0], c[:, 1]
    above = np.clip(n - chunk * np.arange(items), 0, chunk) - below - equal
    lo_eq, hi_eq = int(below.sum()), int(below.sum() + equal.sum())
    at = np.empty((items, 3), np.int64)
    at[:, 0] = np.cumsum(below) - below
    at[:, 1] = lo_eq + np.cumsum(equal) - equal
    at[:, 2] = hi_eq + np.cumsum(above) - above
    _place3(keys, n, chunk, h, hnan, big, asarray(at.reshape(-1), device=keys.device), work, size=items, _work=n)
    return lo_eq, hi_eq, int(c[:, 2].sum()), int(c[:, 3].sum())


def _stable_runs(keys: Array, out: Array, descending: bool, zeros: bool, nans: str = "all") -> None:
    """Write the sorted line ``out``'s run of NaNs, and its run of zeros where ``zeros``,
    again from the line ``keys`` (host, contiguous), in ``keys``' order: NumPy's sort is
    not stable (the order of ``-0.0`` and ``+0.0``), its SIMD partition of a line holding
    NaNs and infinities may write ``-0.0`` as ``+0.0`` (so the split sort rewrites the
    zeros where ``keys`` holds a ``-0.0``), and its SIMD sort writes every NaN as NumPy's
    default NaN (the counting sort, which writes each key's value, rewrites the zeros
    where both signs are in ``keys``, and the NaNs).  ``nans``: "all" (the NaNs are
    rewritten), "default" (the sort wrote each NaN as ``np.nan``'s bits: rewritten only
    where ``keys`` holds other NaNs, which one vectorised count of ``keys`` says) or
    "none" (in place already).  Each run is ``keys``' compaction by the mask (``x[m]``,
    by the host's threads)."""
    o = out._host()
    up = o[::-1] if descending else o  # (ascending, NaN last: as ``searchsorted`` wants it)
    n, zero, nan = o.size, o.dtype.type(0), o.dtype.type(np.nan)  # (of ``o``'s type: no casts of ``up``)
    zlo, zhi = np.searchsorted(up, zero, "left"), np.searchsorted(up, zero, "right")
    if zeros and zhi > zlo:
        (o[n - zhi:n - zlo] if descending else o[zlo:zhi])[...] = keys[equal(keys, 0)]._host()
    first_nan = int(np.searchsorted(up, nan, "left"))
    if nans == "none" or (nans == "default" and first_nan < n and _default_nans(keys) == n - first_nan):
        return
    if first_nan < n:
        (o[:n - first_nan] if descending else o[first_nan:])[...] = keys[isnan(keys)]._host()


def _default_nans(keys: Array) -> int:
    """How many of the host line ``keys``' elements have the bits of NumPy's ``np.nan``."""
    a = keys._host()
    u = np.dtype(f"u{a.dtype.itemsize}")
    return int(np.count_nonzero(a.view(u) == np.array(np.nan, a.dtype).view(u)))
