"""The host's sort of one long line of 64-bit real values where NumPy sorts them with SIMD
instructions (AVX-512): a sample sort whose buckets NumPy sorts on the host's threads.

On a CPU with AVX-512, NumPy's quicksort (Intel's x86-simd-sort) sorts a line of 64-bit
values of wide range on one core faster than the radix passes do on two (their eight
digits; docs/primitives.md, stop 58).  Keys of fewer digits (integers of a narrow range)
stay with the radix passes, as do 32-bit values: the buckets' partition costs more there
than NumPy's sort saves.  So a long line is
split into ``buckets`` ranges of values, each then sorted whole by NumPy, the buckets
handed to the host's threads as they come for them:

1. splitters: ``buckets - 1`` values picked from a sorted sample of the line (NumPy);
2. ``rk_split_count``: each kernel item counts its chunk's elements per bucket (the bucket
   of ``v``: how many splitters are ``<= v``; NaN: the last), bucket-major;
3. the counts' running sum (NumPy: a few hundred numbers) gives where each (bucket,
   chunk) starts; ``rk_split_move`` moves each chunk's elements there, into a new array
   (the input is never written);
4. each bucket sorted in place by NumPy (which lets go of the GIL while it sorts), the
   largest first; descending: the buckets placed in reverse order and each reversed after
   its sort.

Equal values (``-0.0`` and ``+0.0`` among them) land in one bucket, so the line is sorted.
NumPy's quicksort is not stable, which values alone show only in the order of ``-0.0`` and
``+0.0``: where the run of zeros holds both, it is written again from the input, in the
input's order (the standard's stable sort).  NumPy's SIMD sort writes every NaN with the
same bits, so a run of NaNs is written again from the input too.

The kernels are thin: one per dtype (the bucket count, ``SPLIT_BUCKETS``, is fixed per
process); sizes and splitters are run-time arguments.
"""

from __future__ import annotations

import numpy as np

from ._array_object import Array
from ._user_kernels import ElementwiseKernel
from .runtime.host import PIECES_PER_THREAD

#: lines of at least this many elements take the sample sort (shorter ones sort as fast
#: by the radix passes)
SAMPLE_SORT_MIN = 1 << 18
#: sample elements per bucket
SAMPLE_PER_BUCKET = 64
#: the sample sort is not used when a sample's largest bucket holds more than this share
#: of it (many equal values: one thread would sort most of the line)
SKEW_MAX = 0.5

# a value's bucket: the splitters at most it (unrolled; the unused ones repeat the last,
# so that their buckets stay empty), NaN the last.  The count keeps, for each splitter,
# how many values are at least it (and the NaNs): sums of comparisons, which vectorize;
# a bucket's count is the difference of two.  Each loop is written twice, the first for
# contiguous 1-D raw operands (as ``sample_sort`` passes them: no layout check at each
# access, and loads LLVM can vectorize).
_COUNT_LOOP = """
    for (long j = lo; j < hi; j++) {
        T v = a[j];
GE    }"""
_COUNT = """
long lo = i * chunk;
if (lo >= n) return;
long hi = lo + chunk < n ? lo + chunk : n;
SPLITS
ZEROS
if (a.ndim == 1 && a.strides()[0] == SIZE) {LOOP
} else {LOOP
}
STORES
"""
_MOVE_LOOP = """
    for (long j = lo; j < hi; j++) {
        T v = a[j];
        int b = 0;
BUCKET
        o[p[b]] = v;
        p[b] += 1;
    }"""
_MOVE = """
long lo = i * chunk;
if (lo >= n) return;
long hi = lo + chunk < n ? lo + chunk : n;
SPLITS
long p[NB];
for (int g = 0; g < NB; g++) p[g] = start[g * chunks + i];
if (a.ndim == 1 && o.ndim == 1 && a.strides()[0] == SIZE && o.strides()[0] == SIZE) {LOOP
} else {LOOP
}
"""

_kernels: dict = {}


def simd_sorts(dtype: np.dtype, L: int, device) -> bool:
    """Whether a line of ``L`` values of ``dtype`` on ``device`` takes the sample sort: a
    host of several threads whose NumPy sorts ``dtype`` with AVX-512, and a long line."""
    return (device.kind == "cpu" and L >= SAMPLE_SORT_MIN and dtype.kind in "iuf" and dtype.itemsize == 8
            and _threads(device) > 1 and numpy_simd_sort())


def numpy_simd_sort() -> bool:
    """Whether NumPy's quicksort runs on AVX-512 here (its x86-simd-sort dispatch)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # (a NumPy without the table: assume the scalar sort)
        return False
    return bool(__cpu_features__.get("AVX512_SKX"))


def _threads(device) -> int:
    return getattr(device.runtime, "_threads", 1)


def split_buckets(device) -> int:
    """Buckets a line is split into: a few per thread (a thread slowed by other work takes
    fewer), a power of two from 8 to 64."""
    b = 8
    while b < min(64, 2 * _threads(device)):
        b *= 2
    return b


def _kernel(what: str, dtype: np.dtype, nb: int) -> ElementwiseKernel:
    """The sample sort's kernel ``what`` ("count" or "move") for ``dtype`` and ``nb``
    buckets."""
    key = (what, dtype, nb)
    k = _kernels.get(key)
    if k is None:
        g = range(nb - 1)
        nan = "v != v" if dtype.kind == "f" else "false"
        splits = "".join(f"T s{j} = s[{j}];\n" for j in g)
        name = f"rk_split_{what}_{dtype.name}"
        if what == "count":
            loop = _COUNT_LOOP.replace("GE", "".join(f"        c{j} += s{j} <= v ? 1 : 0;\n" for j in g)
                                       + f"        cn += {nan} ? 1 : 0;\n")
            body = (_COUNT.replace("LOOP", loop).replace("SPLITS", splits)
                    .replace("ZEROS", "".join(f"long c{j} = 0;\n" for j in g) + "long cn = 0;")
                    .replace("STORES", "".join(f"c[{j} * chunks + i] = c{j};\n" for j in g)
                             + f"c[{nb - 1} * chunks + i] = cn;"))
            body = body.replace("SIZE", str(dtype.itemsize))
            k = ElementwiseKernel("raw T a, raw T s, int64 chunk, int64 chunks, int64 n", "raw int64 c", body, name)
        else:
            bucket = "".join(f"        b += s{j} <= v ? 1 : 0;\n" for j in g) + f"        if ({nan}) b = NB - 1;"
            body = (_MOVE.replace("LOOP", _MOVE_LOOP.replace("BUCKET", bucket)).replace("SPLITS", splits)
                    .replace("NB", str(nb)).replace("SIZE", str(dtype.itemsize)))
            k = ElementwiseKernel("raw T a, raw T s, raw int64 start, int64 chunk, int64 chunks, int64 n", "raw T o",
                                  body, name)
        k = _kernels.setdefault(key, k)
    return k


def sample_sort(keys: Array, descending: bool) -> "Array | None":
    """The flat line ``keys`` (host, contiguous) sorted stably into a new array (``keys``
    is never written); None when a sample shows too many equal values for the threads to
    share the work (the caller sorts it another way)."""
    device, dtype, n = keys.device, keys.dtype, keys.size
    a = keys._host()
    nb = split_buckets(device)
    sample = np.sort(a[:: max(1, n // (SAMPLE_PER_BUCKET * nb))])  # (NaN last)
    real = np.searchsorted(sample, dtype.type(np.nan)) if dtype.kind == "f" else sample.size
    if real < nb:
        return None
    splitters = sample[(np.arange(1, nb) * real) // nb]
    # the sample's buckets (those of the line are about the same shares; NaN in the last)
    bounds = np.concatenate(([0], np.searchsorted(sample, splitters, "left"), [sample.size]))
    if np.diff(bounds).max() > SKEW_MAX * sample.size:
        return None
    s = Array._empty((nb - 1,), dtype, device)
    s._host()[:] = splitters
    threads = _threads(device)
    chunk = -(-n // min(PIECES_PER_THREAD * threads, -(-n // 4096)))
    chunks = -(-n // chunk)
    counts = Array._empty((nb * chunks,), np.dtype(np.int64), device)
    _kernel("count", dtype, nb)(keys, s, chunk, chunks, n, counts, size=chunks, _work=n)
    # each chunk's values at least each splitter, and its NaNs: its buckets' sizes
    ge = counts._host().reshape((nb, chunks))
    per = np.minimum(chunk, n - chunk * np.arange(chunks))
    c = np.empty_like(ge)
    c[0] = per - ge[-1] - ge[0]
    c[1:-1] = ge[:-2] - ge[1:-1]
    c[-1] = ge[-2] + ge[-1]
    sizes = c.sum(axis=1)
    # where each bucket starts in the result: in reverse order when descending
    firsts = np.cumsum(sizes[::-1] if descending else sizes) - (sizes[::-1] if descending else sizes)
    if descending:
        firsts = firsts[::-1]
    start = Array._empty((nb * chunks,), np.dtype(np.int64), device)
    start._host().reshape((nb, chunks))[:] = firsts[:, None] + np.cumsum(c, axis=1) - c
    out = Array._empty((n,), dtype, device)
    _kernel("move", dtype, nb)(keys, s, start, chunk, chunks, n, out, size=chunks, _work=n)
    o = out._host()
    pieces = [(int(f), int(f + m)) for f, m in zip(firsts, sizes) if m > 1]
    pieces.sort(key=lambda p: p[0] - p[1])  # (largest first)

    def sort_piece(p):
        seg = o[p[0]:p[1]]
        seg.sort()
        if descending:
            seg[:] = seg[::-1].copy()

    device.runtime.map_threads(sort_piece, pieces)
    if dtype.kind == "f":
        _stable_runs(a, o, descending)
    return out


def _stable_runs(a: np.ndarray, o: np.ndarray, descending: bool) -> None:
    """Write the sorted ``o``'s run of zeros (where it holds both ``-0.0`` and ``+0.0``,
    which the unstable sort may have reordered) and its run of NaNs (whose bits NumPy's
    SIMD sort does not keep) again from ``a``, in ``a``'s order."""
    up = o[::-1] if descending else o  # (ascending, NaN last: as ``searchsorted`` wants it)
    n, zero, nan = o.size, o.dtype.type(0), o.dtype.type(np.nan)  # (of ``o``'s type: no casts of ``up``)
    zlo, zhi = np.searchsorted(up, zero, "left"), np.searchsorted(up, zero, "right")
    if zhi > zlo:
        signs = np.signbit(up[zlo:zhi])
        if signs.any() and not signs.all():
            zeros = a[a == 0]
            if descending:
                o[n - zhi:n - zlo] = zeros
            else:
                o[zlo:zhi] = zeros
    first_nan = np.searchsorted(up, nan, "left")
    if first_nan < n:  # (NumPy's sort writes every NaN as one NaN: their bits come from ``a``)
        nans = a[np.isnan(a)]
        if descending:
            o[:n - first_nan] = nans
        else:
            o[first_nan:] = nans
