"""Host lines already in order: whether a long line is sorted, or sorted the other way with no
two elements equal, so that ``sort`` and ``argsort`` copy it or count its places instead of
sorting it.

NumPy's stable sort (timsort) finds such a line in one pass of compares, so an ``argsort``
of sorted data takes NumPy a few milliseconds at 2^22 elements, where a radix sort's passes
take tens (docs/primitives.md, "Stop 79").  Here a line of ``PRESORTED_MIN`` elements or more
is looked at in two steps:

1. its first ``PROBE`` neighbours, compared by NumPy: a line with a step up and a step down
   among them is neither (most lines end here, for a few microseconds);
2. else one reduction over every pair of neighbours counts the steps down and the steps up
   in NumPy's order (NaN after every number, NaNs equal among themselves, ``-0.0`` equal to
   ``+0.0``), two counts in one int64: the line is sorted ascending where it has no step
   down, descending where it has no step up, and in the reverse order, every element
   distinct, where every step goes the other way.

A sorted line's stable order is its own (ties keep their places); a reversed line of
distinct elements is that order backwards.  ``argsort`` of rows looks the same way for
rows that are all in order (``rows_in_order``: their first neighbours, then one reduction
along the rows).
"""

from __future__ import annotations

import numpy as np

from ._array_object import Array
from ._creation_functions import arange
from ._elementwise import copy_array
from ._user_kernels import ReductionKernel

#: The shortest line looked at: the first step's few microseconds are a hundredth of a
#: random line's sort from here on.
PRESORTED_MIN = 1 << 15
#: Neighbours compared before the whole line is.
PROBE = 64
#: The longest line looked at: the two counts share an int64, 32 bits each.
PRESORTED_MAX = (1 << 31) - 1

_STEPS = {}

# "x comes strictly before y" in NumPy's order, as the sorts take it
_BEFORE = {
    "f": "__device__ bool rk_before(T x, T y) { return x < y || (!isnan(x) && isnan(y)); }",
    "other": "__device__ bool rk_before(T x, T y) { return x < y; }",
}


def _steps(kind: str) -> ReductionKernel:
    """The reduction over neighbours ``(x, y)``: the steps down, plus the steps up times 2^32."""
    k = _STEPS.get(kind)
    if k is None:
        k = ReductionKernel("T x, T y", "int64 steps",
                            "(rk_before(y, x) ? (long)1 : (long)0) + (rk_before(x, y) ? (long)4294967296 : (long)0)",
                            "a + b", "steps = a", "0", f"rk_presorted_steps_{kind}",
                            preamble=_BEFORE["f" if kind == "f" else "other"])
        k = _STEPS.setdefault(kind, k)
    return k


def _looked_at(x: Array, size: int, n: int) -> bool:
    """Whether ``size`` elements in rows of ``n`` of ``x`` are looked at: on the host, real,
    enough of them, rows whose counts fit."""
    return (x.device.kind == "cpu" and x.dtype.kind in "biuf" and size >= PRESORTED_MIN
            and 2 <= n <= PRESORTED_MAX)


def _head(rows: Array, descending: bool) -> tuple:
    """(a step against the order, a step along it) among the first rows' first neighbours
    (the 2-D host array ``rows``; by NumPy, NaNs compared as nothing)."""
    head = rows._host()[:4, :PROBE + 1]
    x, y = head[:, :-1], head[:, 1:]
    up, down = bool((x < y).any()), bool((x > y).any())
    return (up, down) if descending else (down, up)


def _steps_of(rows: Array, descending: bool) -> tuple:
    """(the steps against the order, the steps along it) of each row of the 2-D host array
    ``rows``: one reduction along the rows (NumPy arrays of int64)."""
    steps = _steps(rows.dtype.kind)(rows[:, :-1], rows[:, 1:], axis=1).get()
    down, up = steps & 0xFFFF_FFFF, steps >> 32
    return (up, down) if descending else (down, up)


def line_order(keys: Array, descending: bool) -> int:
    """For the flat, contiguous host line ``keys``: 1 where it is in the order a stable sort
    (``descending`` or not) puts it in, -1 where it is in the reverse order with no two
    elements equal, 0 where neither, or where it is not looked at (short, long, on a GPU, of
    complex numbers)."""
    n = keys.size
    if not _looked_at(keys, n, n):
        return 0
    line = keys.reshape((1, n))
    if all(_head(line, descending)):  # (a step each way: neither)
        return 0
    against, _ = _steps_of(line, descending)
    if against[0] == 0:
        return 1
    return -1 if against[0] == n - 1 else 0


def rows_in_order(work: Array, lines: int, n: int, descending: bool) -> bool:
    """Whether every one of the ``lines`` rows of ``n`` of the C-contiguous host array
    ``work`` is in the order a stable sort (``descending`` or not) puts it in: the first
    rows' first neighbours first, then one reduction along the rows."""
    if lines < 2 or not _looked_at(work, work.size, n):
        return False
    rows = work.reshape((lines, n))
    if _head(rows, descending)[0]:
        return False
    against, _ = _steps_of(rows, descending)
    return not against.any()


def presorted_order(keys: Array, descending: bool) -> "Array | None":
    """The indices that sort the flat host line ``keys`` stably where it is in order already
    (``line_order``), else None."""
    order = line_order(keys, descending)
    if order == 0:
        return None
    n = keys.size
    return arange(n, dtype=np.int64, device=keys.device) if order == 1 else \
        arange(n - 1, -1, -1, dtype=np.int64, device=keys.device)


def presorted_sort(keys: Array, descending: bool) -> "Array | None":
    """The flat host line ``keys`` sorted stably into a new array where it is in order
    already (``line_order``): a copy, or a copy backwards; else None."""
    order = line_order(keys, descending)
    if order == 0:
        return None
    return copy_array(keys if order == 1 else keys[::-1])
