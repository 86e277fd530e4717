"""``unique_all``, ``unique_counts``, ``unique_inverse``, ``unique_values`` and ``isin``: built
from the stable radix sort, a comparison of neighbours, a scan and compaction, and (``isin``)
a binary search per element, or on the host compares with a few values -- device
operations on every device (the only value read back is the number of unique elements, to
size the results).  ``unique_values`` and ``unique_counts`` take each run of equal sorted
values in one compaction of the runs (``gpu_runs``, ``host_runs``: values and first places
written at once, no mask, positions or gather).

Following the standard, NaNs compare unequal, so every NaN is its own unique value (NumPy
2's ``unique`` collapses them unless ``equal_nan=False``) and is in no array for ``isin``;
values come out sorted, NaNs last; ``-0.0`` and ``+0.0`` are one value.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from . import _dtypes
from ._masks import gpu_runs, host_runs, start_runs_compile
from ._array_object import Array
from ._copy import contiguous
from ._count_sort import count_runs
from ._creation_functions import asarray, full, zeros
from ._data_type_functions import astype
from ._dtypes import result_type
from ._elementwise_functions import subtract
from ._gather_gpu import found_sorted, on_gpu, start_search_compile
from ._indexing_functions import nonzero, searchsorted, take
from ._manipulation_functions import reshape
from ._radix_gpu import value_extremes
from ._sorting_functions import argsort, sort
from ._statistical_functions import cumulative_sum
from ._user_kernels import ElementwiseKernel

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _groups(name: str, x):
    """(x flat, its sorted values, the order that sorts it, group-start mask, start
    positions, size)."""
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
    flat = reshape(x, (-1,))
    order = argsort(flat)
    values = take(flat, order)
    n = values.shape[0]
    starts_mask = Array._empty((n,), _dtypes.bool, x.device)
    if n:
        # a group starts where an element differs from the one before (NaN != NaN: alone)
        starts_mask[:1] = True
        _differ(values[1:], values[:-1], starts_mask[1:])
    (starts,) = nonzero(starts_mask)
    return flat, values, order, starts_mask, starts, n


_differ = ElementwiseKernel("T a, T b", "bool d", "d = a != b;", "rk_differ")


def _sorted_runs(name: str, x, lengths: bool):
    """(the unique values of ``x``, sorted; their counts if ``lengths``, else None), from
    the runs of ``x`` sorted."""
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
    gpu = on_gpu(x.device)
    if gpu:
        start_runs_compile(x.dtype, x.device)  # (at a first call: beside the sort's)
    else:
        # (the host's long lines of integers of a small range: from their counts, no sort)
        found = count_runs(x, lengths)
        if found is not None:
            return found
    values = sort(reshape(x, (x.size,)))
    if values.shape[0] == 0:
        return values, Array._empty((0,), _dtypes.int64, x.device) if lengths else None
    return (gpu_runs if gpu else host_runs)(values, lengths)


def unique_values(x, /) -> Array:
    """The unique elements of ``x`` (any shape, read flattened), sorted, as a 1-d array.

    Each NaN is its own unique value (the standard's rule; NumPy 2's ``unique_values``
    collapses NaNs); ``-0.0`` and ``+0.0`` are one value.  Built on the stable radix sort.

    >>> rocarray.unique_values(rocarray.asarray([3, 1, 3, 2]))
    array([1, 2, 3])
    """
    return _sorted_runs("unique_values", x, False)[0]


def _counts(starts: Array, n: int) -> Array:
    """Each group's count: the next group's start (``n`` after the last) less its own."""
    k = starts.shape[0]
    counts = Array._empty((k,), _dtypes.int64, starts.device)
    if k:
        subtract(starts[1:], starts[:-1], out=counts[:-1])
        subtract(n, starts[-1:], out=counts[-1:])
    return counts


def unique_counts(x, /) -> UniqueCountsResult:
    """The unique elements of ``x`` (sorted, as ``unique_values``) and how often each
    occurs, an int64 array of the same length; a named tuple ``(values, counts)``.

    >>> rocarray.unique_counts(rocarray.asarray([3, 1, 3]))
    UniqueCountsResult(values=array([1, 3]), counts=array([1, 2]))
    """
    return UniqueCountsResult(*_sorted_runs("unique_counts", x, True))


def _inverse(x: Array, order: Array, mask: Array) -> Array:
    """For each element of ``x``, the index of its unique value."""
    group = subtract(cumulative_sum(astype(mask, _dtypes.int64)), 1)  # group of each sorted element
    inverse = Array._empty((order.shape[0],), _dtypes.int64, x.device)
    if order.shape[0]:
        inverse[order] = group  # order is a permutation: no position is written twice
    return reshape(inverse, x.shape)


def unique_inverse(x, /) -> UniqueInverseResult:
    """The unique elements of ``x`` (sorted, as ``unique_values``) and, for each element of
    ``x``, the index of its value in them: an int64 array of ``x``'s shape (NumPy 2 gives
    it the same shape); a named tuple ``(values, inverse_indices)``.

    >>> r = rocarray.unique_inverse(rocarray.asarray([3, 1, 3]))
    >>> r.inverse_indices
    array([1, 0, 1])
    """
    _, values, order, mask, starts, _ = _groups("unique_inverse", x)
    return UniqueInverseResult(take(values, starts), _inverse(x, order, mask))


def unique_all(x, /) -> UniqueAllResult:
    """The unique values of ``x`` (sorted, as ``unique_values``), the index of each one's
    first occurrence in flattened ``x``, the inverse indices (``x``'s shape) and the counts,
    as a named tuple ``(values, indices, inverse_indices, counts)`` (int64 indices).

    >>> r = rocarray.unique_all(rocarray.asarray([3, 1, 3]))
    >>> r.indices, r.counts
    (array([1, 0]), array([1, 2]))
    """
    _, values, order, mask, starts, n = _groups("unique_all", x)
    first = take(order, starts)  # stable sort: a group's first element occurs first in x
    return UniqueAllResult(take(values, starts), first, _inverse(x, order, mask), _counts(starts, n))


# Integers of a small range: a table of the values x2 holds (NumPy's kind='table'); the
# offsets from the smallest are taken in unsigned 64-bit arithmetic (no signed overflow)
_OFFSET = "(long)((unsigned long long)v - (unsigned long long)lo)"
_mark = ElementwiseKernel("T v, T lo", "raw bool table", f"table[{_OFFSET}] = true;", "rk_isin_mark")
_look = ElementwiseKernel("T v, T lo, T hi, bool invert, raw bool table", "bool out",
                          f"bool f = false; if (v >= lo && v <= hi) f = table[{_OFFSET}]; out = f != invert;",
                          "rk_isin_table")
#: the table is used when x2's range is at most this many times the elements of both
#: arrays (as NumPy decides), and at most ``TABLE_MAX`` entries
TABLE_PER_ELEMENT = 6
TABLE_MAX = 1 << 27

# A few values of x2 on the host: each pass compares every element with ``FEW_PASS`` of
# them, passed as scalars (held in registers: the loop is vectorised), ORed with the
# previous pass's hits (read from the other of two arrays: a kernel whose input is its
# own output runs its loop unvectorised; the first pass's are a scalar False); the last
# pass inverts.  x2 is padded with its
# last value.  NumPy compares a few values the same way, a pass each, where the binary
# search per element took 2-4x its time (docs/primitives.md, "Stop 79").
FEW_PASS = 8
#: the most values of x2 compared so; more are sorted and searched
FEW_MAX = 128
_FEW_NAMES = [f"v{k}" for k in range(FEW_PASS)]
_few = ElementwiseKernel(", ".join(["T x", "bool prev"] + [f"T {v}" for v in _FEW_NAMES] + ["bool invert"]),
                         "bool out",
                         "out = (prev | " + " | ".join(f"(x == {v})" for v in _FEW_NAMES) + ") != invert;",
                         "rk_isin_few")


def _few_values(x1: Array, x2: Array, invert: bool, out: Array) -> None:
    """``isin``'s result into ``out`` by passes of compares with the values of the host
    array ``x2`` (at most ``FEW_MAX``)."""
    values = np.ravel(x2._host())
    padded = np.concatenate((values, np.repeat(values[-1:], -values.size % FEW_PASS)))
    passes = padded.size // FEW_PASS
    # (the passes alternate between two arrays, the last writing ``out``; the first has no
    # hits before it: ``prev`` False)
    pair = (out, Array._empty(out.shape, out.dtype, out.device) if passes > 1 else None)
    for k in range(passes):
        group = padded[k * FEW_PASS:(k + 1) * FEW_PASS]
        left = passes - 1 - k
        _few(x1, False if k == 0 else pair[(left + 1) % 2], *group, invert and left == 0, pair[left % 2])


# found: the first place of v in the sorted s holds v (NaN equals nothing)
_found = ElementwiseKernel("raw T s, int64 p, T v, int64 n, bool invert", "bool out",
                           "out = (p < n && s[p] == v) != invert;", "rk_isin")


def isin(x1, x2, /, *, invert=False) -> Array:
    """For each element of ``x1``, whether it is among the elements of ``x2`` (``invert``:
    whether it is not): a bool array of ``x1``'s shape.

    Either argument may be a Python scalar (not both); the two are compared in their
    promoted dtype (``result_type``).  Values compare with ``==``: ``-0.0`` is found among
    ``+0.0``, a NaN is never found (as NumPy's ``isin``).  ``x2`` is sorted once (the radix
    sort) and every element of ``x1`` looked up by a binary search; integers whose range
    in ``x2`` is small beside the two sizes go through a table of the values instead (as
    NumPy's ``kind='table'``), and on the host up to ``FEW_MAX`` values of ``x2`` are
    compared with every element, eight a pass (as NumPy compares a few).  The array API
    2025.12 function; NumPy's ``kind=`` and ``assume_unique=`` are not offered.

    >>> rocarray.isin(rocarray.asarray([1, 2, 3, 4]), rocarray.asarray([4, 2]))
    array([False,  True, False,  True])
    """
    if not isinstance(invert, bool):
        raise TypeError(f"isin: invert must be a bool, not {type(invert).__name__}")
    scalar = (bool, int, float, complex, np.generic)
    arrays = [a for a in (x1, x2) if isinstance(a, Array)]
    for what, a in (("x1", x1), ("x2", x2)):
        if not isinstance(a, Array) and not isinstance(a, scalar):
            raise TypeError(f"isin: {what} must be a rocarray array or a Python scalar, not "
                            f"{type(a).__name__}")
    if not arrays:
        raise TypeError("isin: at least one of x1 and x2 must be a rocarray array")
    if len(arrays) == 2 and x1.device is not x2.device:
        raise TypeError(f"isin: x1 is on {x1.device} but x2 is on {x2.device}; move arrays "
                        "with .to_device() first")
    device = arrays[0].device
    dt = result_type(*(a.dtype if isinstance(a, Array) else a for a in (x1, x2)))
    x1 = asarray(x1, dtype=dt, device=device) if not isinstance(x1, Array) else astype(x1, dt, copy=False)
    x2 = asarray(x2, dtype=dt, device=device) if not isinstance(x2, Array) else astype(x2, dt, copy=False)
    if x2.size == 0:
        return full(x1.shape, invert, dtype=_dtypes.bool, device=device)
    out = Array._empty(x1.shape, _dtypes.bool, device)
    if dt == _dtypes.bool:  # (bytes of 0 and 1: the table of two entries serves them)
        x1, x2 = x1.view(_dtypes.uint8), x2.view(_dtypes.uint8)
    if x1.dtype.kind in "iu" and out.size:
        lo, hi = value_extremes(x2)
        span = hi - lo + 1
        if span <= min(TABLE_MAX, TABLE_PER_ELEMENT * (x1.size + x2.size)):
            table = zeros((span,), dtype=_dtypes.bool, device=device)
            _mark(x2, lo, table)
            _look(x1, lo, hi, invert, table, out)
            return out
    if out.size and not on_gpu(device) and x2.size <= FEW_MAX and x1.dtype.kind in "iuf":
        _few_values(x1, x2, invert, out)
        return out
    if out.size and on_gpu(device):
        start_search_compile(dt, device)  # (at a first call: beside the sort's)
    s = sort(reshape(x2, (x2.size,)))
    if out.size:
        if on_gpu(device):
            found_sorted(s, contiguous(x1), invert, out)
        else:
            _found(s, searchsorted(s, x1), x1, s.shape[0], invert, out)
    return out
