"""``unique_all``, ``unique_counts``, ``unique_inverse``, ``unique_values``: built from the
stable sort, a comparison of neighbours, a scan and compaction -- device operations on every
device (the only value read back is the number of unique elements, to size the results).

Following the standard, NaNs compare unequal, so every NaN is its own unique value (NumPy
2's ``unique`` collapses them unless ``equal_nan=False``); values come out sorted, NaNs last.
"""

from __future__ import annotations

from collections import namedtuple

from . import _dtypes
from ._array_object import Array
from ._creation_functions import asarray, ones
from ._data_type_functions import astype
from ._elementwise_functions import not_equal, subtract
from ._indexing_functions import nonzero, take
from ._manipulation_functions import concat, diff, reshape
from ._sorting_functions import argsort, sort
from ._statistical_functions import cumulative_sum

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _groups(name: str, x, need_order: bool):
    """(sorted values, order that sorts x or None, group-start mask, start positions)."""
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
    flat = reshape(x, (-1,))
    if need_order:
        order = argsort(flat)
        values = take(flat, order)
    else:
        order = None
        values = sort(flat)
    n = values.shape[0]
    if n == 0:
        starts_mask = ones((0,), dtype="bool", device=x.device)
    else:
        # a group starts where an element differs from the one before (NaN != NaN: alone)
        first = ones((1,), dtype="bool", device=x.device)
        starts_mask = concat([first, not_equal(values[1:], values[:-1])])
    (starts,) = nonzero(starts_mask)
    return flat, values, order, starts_mask, starts, n


def unique_values(x, /) -> Array:
    """The unique elements of ``x``, sorted, as a 1-d array."""
    _, values, _, mask, _, _ = _groups("unique_values", x, False)
    return values[mask]


def _counts(starts: Array, n: int) -> Array:
    end = asarray([n], dtype=starts.dtype, device=starts.device)
    return diff(concat([starts, end]))


def unique_counts(x, /) -> UniqueCountsResult:
    """The unique elements of ``x`` and how often each occurs (int64)."""
    _, values, _, mask, starts, n = _groups("unique_counts", x, False)
    return UniqueCountsResult(values[mask], _counts(starts, n))


def _inverse(x: Array, order: Array, mask: Array) -> Array:
    """For each element of ``x``, the index of its unique value."""
    group = subtract(cumulative_sum(astype(mask, _dtypes.int64)), 1)  # group of each sorted element
    inverse = Array._empty((order.shape[0],), _dtypes.int64, x.device)
    if order.shape[0]:
        inverse[order] = group  # order is a permutation: no position is written twice
    return reshape(inverse, x.shape)


def unique_inverse(x, /) -> UniqueInverseResult:
    """The unique elements of ``x`` and, for each element of ``x``, the index of its value
    in them (an int64 array of ``x``'s shape)."""
    _, values, order, mask, _, _ = _groups("unique_inverse", x, True)
    return UniqueInverseResult(values[mask], _inverse(x, order, mask))


def unique_all(x, /) -> UniqueAllResult:
    """Unique values, the index of each one's first occurrence in (flattened) ``x``, the
    inverse indices and the counts."""
    _, values, order, mask, starts, n = _groups("unique_all", x, True)
    first = take(order, starts)  # stable sort: a group's first element occurs first in x
    return UniqueAllResult(values[mask], first, _inverse(x, order, mask), _counts(starts, n))
