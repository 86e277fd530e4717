"""The standard's indexing and searching functions built on device kernels: ``take``,
``take_along_axis``, ``nonzero``, ``searchsorted`` (see rocarray/_advanced_indexing.py and
``_masks.py``).

Out-of-range indices raise ``IndexError`` in ``take`` and ``take_along_axis`` (one boolean
reduction over the indices, read back, before anything is gathered); negative indices count
from the end of the axis.
"""

from __future__ import annotations

import numpy as np

from ._advanced_indexing import take_along, take_axis, unravel
from ._masks import flat_true
from ._array_object import Array
from ._copy import contiguous
from ._creation_functions import asarray
from ._dtypes import result_type
from ._gather_gpu import on_gpu, search_sorted
from ._manipulation_functions import reshape
from ._user_kernels import ElementwiseKernel
from ._views import _normalize_axis

_int64 = np.dtype(np.int64)


def _check_array(name: str, what: str, a) -> Array:
    if not isinstance(a, Array):
        raise TypeError(f"{name}: {what} must be a rocarray array, not {type(a).__name__}")
    return a


def _check_indices(name: str, x: Array, indices) -> Array:
    _check_array(name, "indices", indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{name}: indices must have an integer data type, not {indices.dtype}")
    if indices.device is not x.device:
        raise TypeError(f"{name}: x is on {x.device} but indices are on {indices.device}; "
                        "move arrays with .to_device() first")
    return indices


def take(x, indices, /, *, axis=None):
    """The elements of ``x`` at ``indices`` along ``axis`` (required unless ``x`` is 1-D):
    ``x[(:,) * axis + (indices,)]``.  Negative indices count from the end; an index outside
    ``[-n, n)`` raises ``IndexError``.  ``indices`` may have any number of dimensions (the
    standard asks for 1-D); the result has ``x.shape[:axis] + indices.shape +
    x.shape[axis+1:]``."""
    _check_array("take", "x", x)
    _check_indices("take", x, indices)
    if x.ndim == 0:
        raise ValueError("take: x must have at least one dimension, got a 0-d array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis must be given for a {x.ndim}-d array (None is allowed "
                             "only for 1-d arrays)")
        axis = 0
    axis = _normalize_axis(axis, x.ndim, "take")
    return take_axis(x, indices, axis)


def take_along_axis(x, indices, /, *, axis=-1):
    """``out[..., j, ...] = x[..., indices[..., j, ...], ...]`` along ``axis``: ``indices`` has
    the rank of ``x``; its other dimensions broadcast with those of ``x``."""
    _check_array("take_along_axis", "x", x)
    _check_indices("take_along_axis", x, indices)
    if x.ndim == 0:
        raise ValueError("take_along_axis: x must have at least one dimension, got a 0-d array")
    if indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices must have the same number of dimensions as "
                         f"x ({x.ndim}), got {indices.ndim}")
    axis = _normalize_axis(axis, x.ndim, "take_along_axis")
    for d in range(x.ndim):
        if d != axis and indices.shape[d] not in (1, x.shape[d]) and x.shape[d] != 1:
            raise ValueError(f"take_along_axis: indices of shape {indices.shape} do not "
                             f"broadcast with x of shape {x.shape} along dimension {d}")
    return take_along(x, indices, axis)


def nonzero(x, /):
    """The indices of the non-zero (True, or NaN) elements of ``x``: one int64 array per
    dimension, in C order.  ``x`` must have at least one dimension (``ValueError``)."""
    _check_array("nonzero", "x", x)
    if x.ndim == 0:
        raise ValueError("nonzero: x must have at least one dimension; for a 0-d array use "
                         "nonzero(reshape(x, (1,)))")
    flat = flat_true(x)
    if x.ndim == 1:
        return (flat,)
    return unravel(flat, x.shape)


# (NaN sorts last, as NumPy; bitwise, not short-circuit: no branch in a search's step)
_LT_REAL = """
template <typename T> __device__ bool rk_lt(T a, T b) {
    return (a < b) | ((b != b) & (a == a));
}
"""
_LT_COMPLEX = """
template <typename T> __device__ bool rk_lt(T a, T b) {
    // NumPy's order: R + Rj, R + nanj, nan + Rj, nan + nanj, each group lexicographic
    auto ar = real(a); auto ai = imag(a); auto br = real(b); auto bi = imag(b);
    if (ar < br) return ai == ai || bi != bi;
    if (ar > br) return bi != bi && ai == ai;
    if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
    return br != br;
}
"""
#: The host looks up bool and 8-bit queries, from this many on, in a table of every
#: value's answer (2 or 256 searches) instead of searching for each (2^20 bool queries:
#: 24 ms searched, NumPy's 23; benchmarks/results/2026-12-05-cpu-stop60/).
SEARCH_TABLE_MIN = 4096
#: Queries one host search item takes together, level by level: each halving step reads
#: one element for every query of the item, independent loads, so that many are in
#: flight at once (as NumPy 2.5's searchsorted does for all its queries).
SEARCH_GROUP = 1024


def _search_body(group: int) -> str:
    """Binary searches of the queries ``v[i * group ...]`` (up to ``m``) in ``a[:n]``, level
    by level: every query of a sorted array of ``n`` halves its range alike, so one loop
    takes each halving step for all the item's queries (``lo``, a local array) before the
    next -- their loads do not wait on each other (one search alone waits on each load in
    turn).  Halving steps select rather than branch (which way a step goes is
    unpredictable); ``a[lo + len - 1]`` is a query's last candidate."""
    step = ("        T e = a[lo[k] + {at}]; T q = v[b + k];"
            " lo[k] += {by} * (long)(right ? !rk_lt(q, e) : rk_lt(e, q));")
    return "\n".join([
        f"long b = i * {group};",
        f"long c = m - b < {group} ? m - b : {group};",
        f"long lo[{group}];",
        "for (long k = 0; k < c; k++) lo[k] = 0;",
        "long len = n;",
        "while (len > 1) {",
        "    long step = len >> 1;",
        "    for (long k = 0; k < c; k++) {",
        step.format(at="step - 1", by="step"),
        "    }",
        "    len -= step;",
        "}",
        "if (len == 1) {",
        "    for (long k = 0; k < c; k++) {",
        step.format(at="0", by="1"),
        "    }",
        "}",
        "for (long k = 0; k < c; k++) out[b + k] = lo[k];"])


# (loops: the heavy tier's optimised code, not the elementwise full tier's)
_search_real = ElementwiseKernel("raw T a, raw T v, int64 n, int64 m, bool right", "raw int64 out",
                                 _search_body(SEARCH_GROUP), "rk_searchsorted", preamble=_LT_REAL, _heavy=True)
_search_complex = ElementwiseKernel("raw T a, raw T v, int64 n, int64 m, bool right", "raw int64 out",
                                    _search_body(SEARCH_GROUP), "rk_searchsorted_c", preamble=_LT_COMPLEX,
                                    _heavy=True)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Where the elements of ``x2`` would be inserted into the sorted 1-D ``x1`` to keep it
    sorted (``side='left'``: before equal elements, ``'right'``: after them); with
    ``sorter`` (int indices), ``x1[sorter]`` is the sorted array.  A binary search per
    element of ``x2`` on the device (the host takes each halving step for 1,024 queries at
    once); NaN sorts last and complex values in NumPy's order; an int64 result of
    ``x2``'s shape.  ``x2`` may be a Python scalar (a 0-d result); ``x1`` and ``x2`` are
    compared in their promoted dtype.

    >>> rocarray.searchsorted(rocarray.asarray([1, 2, 2, 3]), rocarray.asarray([2, 5]), side="right")
    array([3, 4])
    """
    _check_array("searchsorted", "x1", x1)
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be one-dimensional, got {x1.ndim} dimensions")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
    if isinstance(x2, Array):
        if x2.device is not x1.device:
            raise TypeError(f"searchsorted: x1 is on {x1.device} but x2 is on {x2.device}; "
                            "move arrays with .to_device() first")
        dt = x1._dtype if x1._dtype == x2._dtype else result_type(x1._dtype, x2._dtype)
    elif isinstance(x2, (bool, int, float, complex, np.generic)):
        dt = result_type(x1.dtype, x2)
        x2 = asarray(x2, dtype=dt, device=x1.device)
    else:
        raise TypeError(f"searchsorted: x2 must be a rocarray array or a Python scalar, not "
                        f"{type(x2).__name__}")
    if sorter is not None:
        _check_indices("searchsorted", x1, sorter)
        if sorter.shape != x1.shape:
            raise ValueError(f"searchsorted: sorter must have the shape of x1 {x1.shape}, got "
                             f"{sorter.shape}")
        x1 = take(x1, sorter)
    if x1.dtype != dt:
        x1 = x1.astype(dt)
    if x2.dtype != dt:
        x2 = x2.astype(dt)
    if dt.itemsize == 1 and x2.size >= SEARCH_TABLE_MIN and not on_gpu(x1.device):
        # (the host's bool and 8-bit queries: every value's answer once, then a lookup)
        every = np.array([False, True]) if dt.kind == "b" else np.arange(256, dtype=np.uint8).view(dt)
        table = searchsorted(x1, asarray(every, device=x1.device), side=side)
        return take(table, Array._new(x2._buf, x2.shape, x2.strides, x2._offset, np.dtype(np.uint8)))
    out = Array._empty(x2.shape, _int64, x2.device)
    if out.size == 0:
        return out
    if on_gpu(x1.device):
        search_sorted(contiguous(x1), contiguous(x2), side == "right", out)
        return out
    k = _search_complex if dt.kind == "c" else _search_real
    m, n = out.size, x1.shape[0]
    x2 = contiguous(x2)
    # (a search is about log2(n) dependent reads: the work that decides the host's threads)
    k(contiguous(x1), x2 if x2.ndim == 1 else reshape(x2, (m,)), n, m, side == "right",
      out if out.ndim == 1 else reshape(out, (m,)), size=-(-m // SEARCH_GROUP), _work=m * max(1, n.bit_length()))
    return out
