"""``sort`` and ``argsort``: a stable radix sort of each line (rocarray/_radix.py), and a
merge sort written in the kernel language for short lines.

The sorted axis is moved last and copied to a contiguous work array of lines.  Lines of
``RADIX_MIN_LINE`` elements or more go to the radix sort (``argsort`` carries the indices
as its payload); on the host, rows of 32- and 64-bit values of any length the sorting
network takes go to it (``sort`` and ``argsort``, once its module is loaded), and so do
the rows of 8- and 16-bit values it sorts as they are (``sort``, from
``network_host.shortest_row``); shorter rows of 8- and 16-bit integers and bools are
widened to int32, and for ``argsort`` their rows up to ``WIDE_ARGSORT_MAX`` (float16:
argsorted as float32; ``_widening``); ``argsort`` of longer rows of 8-bit keys counts
them (``_count_sort.count_argsort_rows``); other short
lines are sorted by one kernel item per line with a bottom-up merge sort (runs of width
1, 2, 4, ... merged between the work array and a scratch array of the same shape, taking
the right element only when it comes strictly before the left one: stable), where the
radix sort's 256 counters per line would cost more than the line.
A GPU's first sorts of short lines (few comparisons in all, ``RANK_MAX_WORK``) rank
instead while the radix sort's module for them compiles in the background: one kernel
item per element counts the elements before it in the line's stable order and writes the
element and its place there (``_rank_sort``), so that a first ``sort`` or ``argsort``
waits for no compile of the radix sort's.
On the host, a long line already in order is copied (``sort``) or its places counted
(``argsort``), and so are the places of rows that are all in order (``_presorted``).
NaN sorts last ascending and first descending, equal elements keep their order either way
(the standard's stable sort); ``-0.0`` and ``+0.0`` are equal; complex numbers sort as
NumPy's do (finite parts by real then imaginary part, then values with a NaN imaginary
part, a NaN real part, both).  The same kernels run on every device.
"""

from __future__ import annotations

import numpy as np

from . import _dtypes
from ._array_object import Array, _prod
from ._copy import contiguous
from ._count_sort import count_argsort_rows
from ._creation_functions import arange
from ._data_type_functions import astype
from ._elementwise import copy_array
from ._presorted import presorted_order, presorted_sort, rows_in_order
from ._radix import host_line_sort, keeps_keys, network_argsort, network_pending, network_sorts, radix_sort
from ._radix_gpu import gpu_sortable, short_rows_ready
from ._split_sort import split_sorts
from ._user_kernels import ElementwiseKernel
from ._views import broadcast_to, moveaxis, normalize_axes

# "x comes strictly before y" ascending; descending swaps the operands
_LESS = {
    "float": "__device__ bool rk_less(T x, T y) { return x < y || (!isnan(x) && isnan(y)); }",
    "other": "__device__ bool rk_less(T x, T y) { return x < y; }",
    # NumPy's order: R + Rj (by real, then imaginary part) < R + nanj (by real part)
    # < nan + Rj (by imaginary part) < nan + nanj
    "complex": """
        __device__ int rk_class(T z) { return (isnan(real(z)) ? 2 : 0) + (isnan(imag(z)) ? 1 : 0); }
        __device__ bool rk_less(T x, T y) {
            int cx = rk_class(x), cy = rk_class(y);
            if (cx != cy) return cx < cy;
            if (cx == 0) return real(x) < real(y) || (real(x) == real(y) && imag(x) < imag(y));
            if (cx == 1) return real(x) < real(y);
            if (cx == 2) return imag(x) < imag(y);
            return false;
        }""",
}

_MERGE = """
    long n = width0;
    long base = i * n;
    bool in_a = true;
    for (long width = 1; width < n; width *= 2) {
        for (long lo = 0; lo < n; lo += 2 * width) {
            long mid = min(lo + width, n);
            long hi = min(lo + 2 * width, n);
            long p = lo;
            long q = mid;
            for (long k = lo; k < hi; k++) {
                bool right;
                if (p >= mid) right = true;
                else if (q >= hi) right = false;
                else {
                    T l = in_a ? a[base + p] : t[base + p];
                    T r = in_a ? a[base + q] : t[base + q];
                    right = desc ? rk_less(l, r) : rk_less(r, l);
                }
                long src = right ? q : p;
                if (right) q++; else p++;
                MOVE
            }
        }
        in_a = !in_a;
    }
    if (!in_a) {
        for (long k = 0; k < n; k++) {
            COPYBACK
        }
    }
"""

_SORT_MOVE = """if (in_a) t[base + k] = a[base + src]; else a[base + k] = t[base + src];"""
_SORT_BACK = """a[base + k] = t[base + k];"""
_ARG_MOVE = """if (in_a) { t[base + k] = a[base + src]; ti[base + k] = ai[base + src]; }
                else { a[base + k] = t[base + src]; ai[base + k] = ti[base + src]; }"""
_ARG_BACK = """a[base + k] = t[base + k]; ai[base + k] = ti[base + k];"""

# each element's rank in its line's stable order (the elements before it, equal ones
# before it in the line counted too), and the element and its place written there
_RANK = """
    long n = width0;
    long base = i - i % n;
    long p = i - base;
    T v = a[i];
    long r = 0;
    for (long k = 0; k < n; k++) {
        T w = a[base + k];
        bool before = desc ? rk_less(v, w) : rk_less(w, v);
        if (!before && k < p) before = !(desc ? rk_less(w, v) : rk_less(v, w));
        if (before) r++;
    }
    o[base + r] = v;
    q[base + r] = p;
"""

_kernels: dict = {}

#: lines at least this long are radix sorted; shorter ones merge sorted per line
RADIX_MIN_LINE = 32
#: The most comparisons (lines times the square of their length) a GPU sort of short lines
#: makes by ranks while the radix sort's module for them compiles (``_ranks_first``).
RANK_MAX_WORK = 1 << 24


def _kernel(kind: str, arg: bool) -> ElementwiseKernel:
    k = _kernels.get((kind, arg))
    if k is None:
        body = _MERGE.replace("MOVE", _ARG_MOVE if arg else _SORT_MOVE)
        body = body.replace("COPYBACK", _ARG_BACK if arg else _SORT_BACK)
        if arg:
            k = ElementwiseKernel("raw T t, raw int64 ti, int64 width0, bool desc", "raw T a, raw int64 ai",
                                  body, f"rk_argsort_{kind}", preamble=_LESS[kind], _heavy=True)
        else:
            k = ElementwiseKernel("raw T t, int64 width0, bool desc", "raw T a", body,
                                  f"rk_sort_{kind}", preamble=_LESS[kind], _heavy=True)
        k = _kernels.setdefault((kind, arg), k)
    return k


def _rank_kernel(kind: str) -> ElementwiseKernel:
    """The rank sort of lines: one kernel item per element, which writes the element and
    its place in the line (int64) at its rank (one kernel for ``sort`` and ``argsort``: a
    first argsort after a first sort compiles nothing).  Never interpreted: its items loop
    over their line, which the interpreter's one thread an item runs slower than the quick
    tier's compile takes (docs/primitives.md, stop 57)."""
    k = _kernels.get(("rank", kind))
    if k is None:
        k = ElementwiseKernel("raw T a, int64 width0, bool desc", "raw T o, raw int64 q", _RANK, f"rk_rank_{kind}",
                              preamble=_LESS[kind], _interpret=False)
        k = _kernels.setdefault(("rank", kind), k)
    return k


def _rank_sort(work: Array, n: int, descending: bool, kind: str, payload_bits: int) -> tuple[Array, Array]:
    """(the sorted lines of ``n`` of ``work``, the indices that sort them), flat; then the
    compile of the radix sort's block module with ``payload_bits`` starts in the background
    (started before the ranks, it held up their own first compile)."""
    out = Array._empty((work.size,), work.dtype, work.device)
    order = Array._empty((work.size,), _int64(), work.device)
    _rank_kernel(kind)(work.reshape((-1,)), n, descending, out, order, size=work.size)
    short_rows_ready(work.dtype, n, payload_bits, work.device, start=True)
    return out, order


def _ranks_first(work: Array, n: int, payload_bits: int) -> bool:
    """Whether a GPU sort of ``work``'s lines of ``n`` (of the radix sort's block module
    with ``payload_bits``) ranks its elements instead (``_rank_sort``): lines short enough
    for that module (``radix_gpu.TILE``) and few comparisons, before that module is
    loaded.  A first sort of a dtype thus waits for no compile of the radix sort's."""
    return work.size * n <= RANK_MAX_WORK and not short_rows_ready(work.dtype, n, payload_bits, work.device)


def _plain_line(x, axis, descending, stable) -> bool:
    """Whether a sort's arguments are one contiguous line of an array and valid ones."""
    return (isinstance(x, Array) and x.ndim == 1 and type(axis) is int and axis in (0, -1)
            and type(descending) is bool and type(stable) is bool and x.is_c_contiguous())


def _prepare(name: str, x, axis, descending, stable):
    """(``axis`` as a non-negative int, the contiguous lines to sort, the merge sort's kind
    of ``x``'s dtype, ``_radix_line``'s answer where it was asked, else None) after the
    checks of the arguments; the lines are a copy where the sort would write its input."""
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{name}: a 0-d array has no axis to sort along")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{name}: axis must be an int, not {type(axis).__name__}")
    for flag, what in ((descending, "descending"), (stable, "stable")):
        if not isinstance(flag, bool):
            raise TypeError(f"{name}: {what} must be a bool, not {type(flag).__name__}")
    (axis,) = normalize_axes(axis, x.ndim, name)
    moved = x if axis == x.ndim - 1 else moveaxis(x, axis, -1)
    work = contiguous(moved)  # the lines, contiguous: sorted in place, or read by the radix sort
    n = work.shape[-1]
    radix = None
    if work._buf is x._buf:
        if work.size:
            radix = _radix_line(work, n, name == "argsort")
        if not (work.size and _read_only(work, n, name == "argsort", radix)):
            work = copy_array(moved)
    kind = {"f": "float", "c": "complex"}.get(x.dtype.kind, "other")
    return axis, work, kind, radix


def _read_only(work: Array, n: int, payload: bool, radix: bool) -> bool:
    """Whether ``work``'s lines of ``n`` (not empty) go to a sort that never writes its input
    (no copy of it is needed; ``payload``: argsort's; ``radix``: ``_radix_line``'s
    answer)."""
    return ((radix and keeps_keys(work.size // n, n, work.dtype, work.device, payload))
            or _widening(work, n, payload) is not None)


def _radix_line(work: Array, n: int, payload: bool) -> bool:
    """Whether ``work``'s lines of ``n`` go to ``radix_sort`` or, on the host, to the
    sorting network (long lines; on the host also the short lines the network takes, with
    a payload its argsort), not to the merge sort (``_first_merge``; asked only while the
    network is not loaded)."""
    if n > 1 and network_sorts(n, work.dtype, work.device, payload):
        return True
    return n >= RADIX_MIN_LINE and not _first_merge(work, n, payload)


#: While the host's sorting network that will take a line compiles, an input of up to
#: ``FIRST_MERGE_MAX`` elements in lines shorter than ``FIRST_MERGE_LINE`` goes to the merge
#: sort, one kernel to compile on the quick tier, rather than to the radix passes, four
#: kernels and a reduction (a process's first sort of 1,000 int16: 34-42 ms against
#: 226-242 on the 2-core VM, benchmarks/results/2026-12-05-cpu-stop61/); larger inputs
#: keep the radix passes, which sort them faster than the merge sort once compiled.
FIRST_MERGE_MAX = 1 << 16
FIRST_MERGE_LINE = 1 << 12


def _first_merge(work: Array, n: int, arg: bool) -> bool:
    """Whether ``work``'s lines of ``n`` go to the merge sort while the host's network for
    them compiles (``FIRST_MERGE_MAX``; ``arg``: ``argsort``'s network, which takes narrow
    keys widened)."""
    if work.device.kind != "cpu" or not 1 < n < FIRST_MERGE_LINE or work.size > FIRST_MERGE_MAX:
        return False
    dtype = work.dtype
    if not arg and work.size == n and split_sorts(dtype, n, work.device):
        return False  # (one line NumPy's sort takes: nothing to compile)
    wide = _wider(dtype, arg)
    return any(network_pending(n, dt, work.device, arg) for dt in (dtype, wide) if dt is not None)


#: Dtypes whose short rows (and argsort rows up to ``WIDE_ARGSORT_MAX``) the host's sorting
#: network takes widened to int32 (the order is theirs; sorted values are narrowed back
#: exactly); float16's argsort takes float32.
_WIDER = {np.dtype(t): np.dtype(np.int32) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16)}


def _wider(dtype: np.dtype, arg: bool) -> "np.dtype | None":
    """The dtype the host's network takes ``dtype`` widened to (``_WIDER``; for ``arg``,
    float16 as float32), or None."""
    return _WIDER.get(dtype, np.dtype(np.float32) if arg and dtype == _dtypes.float16 else None)


#: The longest rows of 8- and 16-bit values (by their bytes) whose ``argsort`` the wider
#: network takes: longer 8-bit rows are counted (``count_argsort_rows``; rows of 64 int8:
#: 3.1x NumPy widened, 2.2x counted; of 100: 1.9x and 2.5x; of 256: 1.4x and 2.2x), longer
#: 16-bit ones take the radix sort's two passes (rows of 2,048 int16: 19.8 ms widened,
#: 26.5 by the passes, of 8,192: 25.4 and 25.1); 2^22 elements on the 2-core VM,
#: benchmarks/results/2026-12-05-cpu-stop60/.
WIDE_ARGSORT_MAX = {1: 64, 2: 2048}


def _widening(work: Array, n: int, arg: bool) -> "np.dtype | None":
    """The dtype in which the host's sorting network takes ``work``'s lines of ``n`` for
    ``sort`` (``arg``: ``argsort``), widened into a new array (the keys only read):
    ``_WIDER``'s dtypes, and for ``argsort`` float16 as float32; for ``sort`` lines shorter
    than ``RADIX_MIN_LINE`` only (the network takes the longer ones, and those from
    ``network_host.shortest_row`` on, as they are; float16's shorter ones go to the merge
    sort), for ``argsort`` up to ``WIDE_ARGSORT_MAX`` (the network argsorts 32- and 64-bit
    keys alone); once that network is loaded (its compile starts at the first ask); else
    None."""
    if work.device.kind != "cpu":
        return None
    if n >= RADIX_MIN_LINE and not (arg and n <= WIDE_ARGSORT_MAX.get(work.dtype.itemsize, 0)):
        return None
    wide = _wider(work.dtype, arg)
    if wide is None or not network_sorts(n, wide, work.device, arg):
        return None
    return wide


def _gpu_radix(work: Array, n: int) -> bool:
    """Whether ``work``'s lines of ``n`` go to the GPU's radix sort."""
    return work.device.kind != "cpu" and work.size > 0 and n >= RADIX_MIN_LINE and gpu_sortable(work.dtype, n)


def _finish(y: Array, axis: int) -> Array:
    return y if axis == y.ndim - 1 else moveaxis(y, -1, axis)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """``x`` sorted along ``axis``, a new array of ``x``'s shape and dtype.

    ``axis``: the axis to sort along (negative counts from the end); ``descending``: largest
    first; ``stable`` is accepted and the sort is always stable (equal elements keep their
    order, also when descending, as the standard defines it).  NaN sorts last (first when
    descending), ``-0.0`` equals ``+0.0``, complex values sort as NumPy's (by real part,
    then imaginary part, values with NaN parts last).  Unlike NumPy, a 0-d ``x`` is a
    ``ValueError`` (the standard's rule) and ``axis=None`` is not accepted.

    >>> rocarray.sort(rocarray.asarray([3.0, float("nan"), -1.0, 2.0]))
    array([-1.,  2.,  3., nan])
    """
    if _plain_line(x, axis, descending, stable):
        # the host's own sorts of a line, which never write their input, take it as it is,
        # decided before ``_prepare``'s copies and asks (the sort it would come to:
        # ``radix_sort``'s first choice for one line); a line in order already is copied
        out = presorted_sort(x, descending)
        if out is None:
            out = host_line_sort(x, descending)
        if out is not None:
            return out
    axis, work, kind, radix = _prepare("sort", x, axis, descending, stable)
    n = work.shape[-1]
    if work.size and n > 1:
        lines = _prod(work.shape[:-1])
        payload_bits = 32 if work.dtype == _dtypes.float16 else 0  # (float16's bits)
        if _gpu_radix(work, n) and _ranks_first(work, n, payload_bits):
            out, _ = _rank_sort(work, n, descending, kind, payload_bits)
            return _finish(out.reshape(work.shape), axis)
        if radix or (radix is None and _radix_line(work, n, False)):
            flat = work.ndim == 1  # (a line: no reshapes around the sort)
            out, _ = radix_sort(work if flat else work.reshape((work.size,)), lines, n, None, descending)
            if out._buf is x._buf:  # (keys all equal: a sort that reads its input hands it back)
                out = copy_array(out)
            return out if flat else _finish(out.reshape(work.shape), axis)
        wide = _widening(work, n, False)
        if wide is not None:
            out, _ = radix_sort(astype(work, wide).reshape((work.size,)), lines, n, None, descending)
            return _finish(astype(out, work.dtype).reshape(work.shape), axis)
        # (flat raw operands: an N-d one costs a division per dimension and access)
        scratch = Array._empty((work.size,), work.dtype, work.device)
        _kernel(kind, False)(scratch, n, descending, work.reshape((-1,)), size=lines)
    return _finish(work, axis)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The indices (int64) that sort ``x`` along ``axis``: ``take_along_axis(x,
    argsort(x, axis=axis), axis=axis)`` equals ``sort(x, axis=axis)``.

    Always stable: equal elements keep their input order, also when ``descending`` (the
    standard's definition, which is not ``flip(argsort(x))``).  NaN sorts last (first when
    descending); the order is ``sort``'s.  A 0-d ``x`` is a ``ValueError``.

    >>> rocarray.argsort(rocarray.asarray([3, 1, 2, 1]), descending=True)
    array([0, 2, 1, 3])
    """
    if _plain_line(x, axis, descending, stable) and x.device.kind == "cpu":
        # (the host network's argsort, which never writes its keys, takes them as they are,
        # decided before ``_prepare``'s copies and asks: the sort it would come to)
        order = network_argsort(x, 1, x.size, descending)
        if order is None:  # (a long line in order already: its places counted, not sorted)
            order = presorted_order(x, descending)
        if order is not None:
            return order
    axis, work, kind, _ = _prepare("argsort", x, axis, descending, stable)
    n = work.shape[-1]
    lines = _prod(work.shape[:-1])
    flat = work.ndim == 1  # (a line: no reshapes around the sorts)
    # the GPU's sort makes the indices in its first pass, moves them as 32 bits and writes
    # them as int64 in its last (float16 gathers its values by int64 indices it is given)
    gpu = _gpu_radix(work, n)
    payload_bits = 64 if work.dtype == _dtypes.float16 else 32  # (float16's int64 indices)
    if gpu and _ranks_first(work, n, payload_bits):
        _, order = _rank_sort(work, n, descending, kind, payload_bits)
        return _finish(order.reshape(work.shape), axis)
    if gpu and work.dtype != _dtypes.float16:
        _, order = radix_sort(work if flat else work.reshape((work.size,)), lines, n, None, descending,
                              indices=True)
        if order is None:  # (keys all equal: every line in order already)
            order = contiguous(broadcast_to(arange(n, dtype=_int64(), device=work.device), work.shape))
        return order if flat else _finish(order.reshape(work.shape), axis)
    if rows_in_order(work, lines, n, descending):  # (the host's rows all in order)
        return _finish(contiguous(broadcast_to(arange(n, dtype=_int64(), device=work.device), work.shape)), axis)
    if work.size and n > 1:  # (the host's rows of 32- and 64-bit keys, or narrower widened: its network)
        wide = _widening(work, n, True)
        keys = work if wide is None else astype(work, wide)
        order = network_argsort(keys if flat else keys.reshape((keys.size,)), lines, n, descending)
        if order is not None:
            return order if flat else _finish(order.reshape(work.shape), axis)
    if work.size and n >= RADIX_MIN_LINE:  # (the host's rows of 8-bit keys: counted)
        order = count_argsort_rows(work.reshape((work.size,)), lines, n, descending)
        if order is not None:
            return order if flat else _finish(order.reshape(work.shape), axis)
    idx = contiguous(broadcast_to(arange(n, dtype=_int64(), device=work.device), work.shape))
    if work.size == 0 or n <= 1:
        return _finish(idx, axis)
    if n >= RADIX_MIN_LINE and not _first_merge(work, n, True):
        _, order = radix_sort(work.reshape((work.size,)), lines, n, idx.reshape((idx.size,)), descending)
        return _finish(order.reshape(work.shape), axis)
    scratch = Array._empty((work.size,), work.dtype, work.device)
    scratch_idx = Array._empty((work.size,), idx.dtype, work.device)
    _kernel(kind, True)(scratch, scratch_idx, n, descending, work.reshape((-1,)), idx.reshape((-1,)),
                        size=lines)
    return _finish(idx, axis)


def _int64():
    return _dtypes.int64
