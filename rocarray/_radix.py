"""The stable LSD radix sort behind ``sort``, ``argsort`` and the set functions: keys with
an optional int64 payload, sorted along the rows of a ``(rows, L)`` array, on every device.

Each element's key is an unsigned integer that orders as NumPy orders the values (the key
transforms below), cut into 8-bit digits; one pass per digit moves the elements stably by
that digit, least significant first.  A row is cut into tiles; one kernel item owns a tile:

1. ``rk_radix_hist``: each item counts the digits of its tile (a 256-bin histogram on the
   item's stack) and writes the counts digit-major per row, ``counts[row, digit, tile]``.
   The first call counts every digit position at once (the onesweep layout of one
   histogram pass over all digits), so that the digit positions where all keys agree are
   skipped: the only value read back is that ``(digits, 256)`` total, to pick the passes.
2. an inclusive ``cumulative_sum`` of each row's counts, digit-major: where each
   (digit, tile) pair starts in the row;
3. ``rk_radix_scatter``: each item walks its tile in order and puts every element at the
   next free place of its digit (so equal digits keep their order: stable).

On the host, real elements take kernels of their own: the first read
(``rk_radix_hist_host``) writes every element's whole key as an unsigned word (32 bits
where the keys fit: integer keys less the smallest one, whose digits above their range are
neither counted nor moved) and counts digit 0 only; the tiles' OR and AND of their keys
tell which digits every key shares (those passes are skipped).  The passes
(``rk_radix_scatter_host``, one kernel per key word width) move key words with no
transform, and the last (``rk_radix_last_host``) writes the values made back from the keys
into a new array (the input is never written) -- unless the data holds -0.0 or a NaN other
than NaN's own bits (which no key gives back): then the elements' indices move with the
keys and the values are gathered.  Complex keys take the generic kernels above on every device.
Long host lines without a payload (``MSD_MIN_HOST``) whose keys vary in three digits or
more go most significant digit first instead (``_buckets_sort``): one pass by the top varied
digit into 256 buckets a row, then each bucket is sorted whole by one item
(``rk_radix_buckets_host``: all the bucket's counts in one read, then LSD passes over the
digits below, wider digits for buckets that stay in cache), the buckets dealt to items in
groups of about equal sizes.  A bucket's passes count nothing for other items, and most
buckets stay in cache.  A line whose one bucket would hold more than its threads could
share takes the LSD passes.  Where NumPy's sort is AVX-512, one line of 32- or 64-bit
values or 16-bit integers (of 8,192 or more) is not radix sorted at all: NumPy sorts it,
a long one written out by classes of its values, each sorted on a thread, where the host
has a few (``_split_sort``).  A long line of integers of a small range is counted
(``_count_sort``).
The kernels are thin (one per key dtype and payload; sizes, tiles and digit positions are
run-time arguments).  On the host each launch says the elements its items work on
(``_work``), so that the launcher splits the tiles across its threads as it splits
elementwise work of that size; on a GPU an item is one thread.

Rows short enough for one item (the row path) sort without counters through memory.  On
the host, rows of real elements have a kernel of their own (``rk_radix_rows_host``, one for
every length): rows of ``ROW_LOCAL_MIN`` to ``RCAP`` elements are sorted in the item's
local arrays, each element's whole key made once and moved with it (elements of up to 32
bits inside their key's 64-bit word), so a pass is a shift, a counter and a store on the
item's stack; other lengths take the row path between the row and a scratch row.

Key transforms: unsigned and bool as they are; signed integers offset by half their range;
floats by their bits (negative values complemented, positive ones with the sign bit set),
with ``-0.0`` read as ``+0.0`` (equal, so their order is kept) and every NaN one largest key
(last, in input order); float16 through float32 (exact).  Complex numbers order as NumPy's
do: values without NaN by real then imaginary part, then those with a NaN imaginary part
(by real part), a NaN real part (by imaginary part), both -- a class digit above the two
parts' digits, and the parts that do not count for a class read as zero.  ``descending``
complements every digit: the order reverses while equal keys keep their input order, as
the standard's stable descending sort asks (NaN then comes first).
"""

from __future__ import annotations

import functools

import numpy as np

from . import _count_sort, _split_sort
from ._advanced_indexing import take_along
from ._array_object import Array
from ._copy import contiguous
from ._count_sort import count_sort
from ._creation_functions import arange, asarray
from ._launch import full_module_when_ready
from ._radix_gpu import gpu_radix_sort, gpu_sortable, value_extremes
from ._radix_text import (BINS, HOST_TILES_PER_ROW, RADIX_BITS, RCAP, ROW_LOCAL_MIN, _BUCKETS_HOST,
                          _FLOAT32_KEY, _FLOAT64_KEY, _GEOMETRY, _HIST, _PACKED_MARKS, _PAIRED_MARKS, _ROW,
                          _ROW_HOST, _SCATTER, _SCATTER_HOST, _SCATTER_LAST_HOST, _hist_host, _key_dtype,
                          _packed, _part_digits, _pass_key, _preamble, _runs, _whole_key, key_digits)
from ._split_sort import split_sort, split_sorts
from ._statistical_functions import cumulative_sum, sum as _sum
from ._user_kernels import ElementwiseKernel
from ._views import broadcast_to
from .compiler import network_host
from .runtime.host import PIECES_PER_THREAD


#: elements of a tile: on the host, a tile (and its 256 counters) stays in the core's
#: cache between the counting and the moving; on a GPU, one thread walks a tile
HOST_TILE = 1 << 14
#: a host pass counts the next pass's digits when the data is this many times the counters
FUSED_COUNTERS_RATIO = 4
GPU_TILE = 1 << 11
GPU_TILE_MIN = 1 << 8
#: threads a GPU sort aims for (tiles between ``GPU_TILE_MIN`` and ``GPU_TILE`` permitting)
GPU_THREADS = 1 << 13
#: one item sorts a whole row (no counters through memory) on the host for rows of up to a
#: tile, or up to ``ROW_MAX_HOST`` when there are enough rows for the threads; on a GPU
#: when there are enough rows to fill it with threads
ROWS_MIN_HOST = 16
ROW_MAX_HOST = 1 << 16
ROWS_MIN_GPU = 2048

#: the host sorts lines of at least ``MSD_MIN_HOST`` real elements (no payload) by their
#: top digit first, then each bucket whole (``_buckets_sort``), unless one bucket holds more
#: than ``MSD_SKEW`` threads' shares of the line
MSD_MIN_HOST = 1 << 16
MSD_SKEW = 1.5
#: ... and of keys that vary in at least this many digits (with two, the LSD passes are
#: faster: the first counts the second's digits as it moves the elements)
MSD_PASSES_MIN = 3
#: a bucket of ``BUCKET_WIDE_MIN`` to ``BUCKET_SMALL`` 32-bit key words is sorted by digits
#: of ``BUCKET_WIDE_BITS`` bits where that makes fewer passes (it stays in the core's
#: cache, where a wider digit's scattered stores cost little more; fewer elements would not
#: pay for the wider counters), others by ``RADIX_BITS``
BUCKET_SMALL = 1 << 16
BUCKET_WIDE_MIN = 1 << 12
BUCKET_WIDE_BITS = 12


def _key_range(keys: Array, descending: bool) -> tuple[int, int]:
    """(the smallest key, the number of digits of the keys less it) of an integer array of
    more than a byte (complemented keys when ``descending``), from its extremes read back."""
    dtype = keys.dtype
    bits = 8 * dtype.itemsize
    lo, hi = value_extremes(keys)
    if dtype.kind == "i":
        lo, hi = lo + (1 << (bits - 1)), hi + (1 << (bits - 1))
    if descending:
        lo, hi = ((1 << bits) - 1) ^ hi, ((1 << bits) - 1) ^ lo
    return lo, _part_digits((hi - lo).bit_length())


_kernels: dict = {}


def _kernel(what: str, dtype: np.dtype, payload: bool = False, kdt: np.dtype | None = None) -> ElementwiseKernel:
    """The kernel ``what`` for ``dtype`` (with an int64 ``payload``; ``kdt``: the key words'
    dtype of the host's kernels between elements and key words)."""
    name, preamble = _preamble(dtype)
    kdt = _key_dtype(dtype) if kdt is None else kdt
    key = (what, name, payload, kdt, dtype)  # (float16 and float32 share a name, not a layout check)
    k = _kernels.get(key)
    if k is None:
        if what == "rows":
            moves = ("ai[j] = bi[j];", "bi[p] = ai[j];", "ai[p] = bi[j];") if payload else ("", "", "")
            body = _ROW
            for mark, text in zip(("MOVE_BACK", "MOVE_AB", "MOVE_BA"), moves):
                body = body.replace(mark, text)
            k = ElementwiseKernel("int64 rows, int64 L, bool desc, uint64 kmin",
                                  "raw T a, raw int64 ai, raw T b, raw int64 bi" if payload else "raw T a, raw T b",
                                  body, f"rk_radix_rows{'_kv' if payload else ''}_{name}", preamble=preamble,
                                  _heavy=True)
        elif what == "rows_host":
            marks = ("MOVE_BACK", "MOVE_AB", "MOVE_BA", "LOCALS", "LOAD", "MOVE_XY", "MOVE_YX", "STORE_X",
                     "STORE_Y")
            moves = ("ai[j] = bi[j];", "bi[p] = ai[j];", "ai[p] = bi[j];", "long xi[RCAP];\nlong yi[RCAP];",
                     "xi[j] = ai[lo + j];", "yi[p] = xi[j];", "xi[p] = yi[j];", "ai[lo + j] = xi[j];",
                     "ai[lo + j] = yi[j];") if payload else ("",) * 9
            # (the raw path written twice, the first for 1-D raw operands, as ``radix_sort``
            # passes them: there LLVM drops every access's layout check; each digit counted
            # by a line of its own)
            runs = "a.ndim == 1 && b.ndim == 1" + (" && ai.ndim == 1 && bi.ndim == 1" if payload else "")
            # (integers of more than a byte: ``nd`` digits sorted, those of the keys' range
            # less the smallest key; other keys: all, a number the loops are unrolled for)
            ranged = dtype.kind in "iu" and dtype.itemsize > 1
            count = "".join(("if (nd > {d}) " if ranged else "").format(d=d)
                            + f"h[{d * BINS} + (int)((k >> (KSH + {RADIX_BITS * d})) & RMASK)] += 1;\n    "
                            for d in range(key_digits(dtype)))
            body = _ROW_HOST.replace("RUNS", runs).replace("COUNT", count)
            if ranged:
                body = body.replace("d < ND;", "d < nd;")
            for mark, text in (_PACKED_MARKS if _packed(dtype) else _PAIRED_MARKS).items():
                body = body.replace(mark, text)
            for mark, text in zip(marks, moves):
                body = body.replace(mark, text)
            k = ElementwiseKernel("int64 rows, int64 L, bool desc, uint64 kmin, int64 nd",
                                  "raw T a, raw int64 ai, raw T b, raw int64 bi" if payload else "raw T a, raw T b",
                                  body, f"rk_radix_rows_host{'_kv' if payload else ''}_{name}",
                                  preamble=preamble + _whole_key(dtype), _heavy=True)
        elif what in ("hist_host", "count_host"):
            values = what == "hist_host"
            outs = f"raw {kdt.name} kw, raw int64 counts, raw int64 spec" if values else "raw int64 counts"
            k = ElementwiseKernel(f"raw T a, {_GEOMETRY}, int64 d0", outs, _hist_host(dtype, values, kdt),
                                  f"rk_radix_{what}_{name}_{kdt.name}", preamble=preamble + _pass_key(dtype, values, kdt),
                                  _heavy=True)
        elif what == "scatter_host":
            moves = ("bi[p0] = ai[j];", "bi[p1] = ai[j + 1];") if payload else ("", "")
            runs = _runs(("a", "b"), dtype.itemsize) + " && " + _runs(
                ("cnt", "inc", "cn") + (("ai", "bi") if payload else ()), 8)
            body = _SCATTER_HOST.replace("MOVE0", moves[0]).replace("MOVE1", moves[1]).replace("RUNS", runs)
            body = body.replace("STORE0", "b[p0] = kk0;").replace("STORE1", "b[p1] = kk1;")
            ins = "raw T a, raw int64 ai, " if payload else "raw T a, "
            outs = "raw T b, raw int64 bi, raw int64 cn" if payload else "raw T b, raw int64 cn"
            k = ElementwiseKernel(f"{ins}raw int64 cnt, raw int64 inc, {_GEOMETRY}, int64 d, int64 dn, int64 tsh",
                                  outs, body, f"rk_radix_scatter_host{'_kv' if payload else ''}_{name}",
                                  preamble=preamble + _pass_key(dtype, False), _heavy=True)
        elif what == "scatter_last_host":
            # (with a payload: over key words, which it does not write; else over the
            # elements, from their key words of ``kdt``)
            moves = ("bi[p0] = ai[j];", "bi[p1] = ai[j + 1];") if payload else ("", "")
            stores = ("", "") if payload else tuple(f"b[p{k}] = rk_unkey(kk{k}, desc, kmin);" for k in (0, 1))
            runs = _runs(("a",), kdt.itemsize) + " && " + _runs(("cnt", "inc") + (("ai", "bi") if payload else ()), 8)
            if not payload:
                runs += " && " + _runs(("b",), dtype.itemsize)
            body = _SCATTER_LAST_HOST.replace("RUNS", runs)
            for mark, text in zip(("MOVE0", "MOVE1", "STORE0", "STORE1"), moves + stores):
                body = body.replace(mark, text)
            ins = "raw T a, raw int64 ai, " if payload else f"raw {kdt.name} a, "
            outs = "raw int64 bi" if payload else "raw T b"
            k = ElementwiseKernel(f"{ins}raw int64 cnt, raw int64 inc, {_GEOMETRY}, int64 d", outs, body,
                                  f"rk_radix_last_host{'_kv' if payload else ''}_{name}_{kdt.name}",
                                  preamble=preamble + _pass_key(dtype, not payload, kdt), _heavy=True)
        elif what == "buckets_host":
            # (a line per digit counted, unrolled; ``dt`` of them counted)
            # (each digit counted by a line of its own, unrolled: every line for as many
            # digits as the widest keys have, else each under a guard)
            bits = RADIX_BITS * (min(key_digits(dtype), kdt.itemsize) - 1)  # below the top digit
            body = _BUCKETS_HOST.replace("RUNS", _runs(("a", "b"), kdt.itemsize) + " && " + _runs(
                ("o",), dtype.itemsize) + " && " + _runs(("bounds", "gs"), 8))
            for mark, width in (("NARROW", RADIX_BITS), ("WIDE", BUCKET_WIDE_BITS)):
                lines = -(-bits // width)
                count = [f"h[{d << width} + (int)((k >> {width * d}) & {(1 << width) - 1})] += 1;"
                         for d in range(lines)]
                guarded = [f"if (np > {d}) {c}" for d, c in enumerate(count)]
                body = body.replace(f"{mark}_COUNT", "\n            ".join(count)).replace(
                    f"{mark}_GUARDED", "\n            ".join(guarded)).replace(f"{mark}_LINES", str(lines))
            most = max(-(-bits // RADIX_BITS), 1)
            # (wider digits for 32-bit key words only: for 64-bit ones they were slower)
            small = BUCKET_SMALL if kdt.itemsize == 4 else 0
            wide = -(-bits // BUCKET_WIDE_BITS) << BUCKET_WIDE_BITS if small else 0
            body = body.replace("HMAX", str(max(most * BINS, wide)))
            body = body.replace("MAXP", str(most)).replace("SMALL", str(small)).replace(
                "WMIN", str(BUCKET_WIDE_MIN)).replace("WIDE", str(BUCKET_WIDE_BITS))
            k = ElementwiseKernel(f"raw {kdt.name} a, raw {kdt.name} b, raw int64 bounds, raw int64 gs, int64 groups, "
                                  "int64 L, bool desc, uint64 kmin, int64 dt", "raw T o", body,
                                  f"rk_radix_buckets_host_{name}_{kdt.name}",
                                  preamble=preamble + _pass_key(dtype, True, kdt), _heavy=True)
        elif what == "hist":
            k = ElementwiseKernel(f"raw T a, {_GEOMETRY}, int64 d0, int64 nd",
                                  "raw int64 counts", _HIST, f"rk_radix_hist_{name}", preamble=preamble, _heavy=True)
        elif payload:
            body = _SCATTER.replace("MOVE", "bi[p] = ai[j];")
            k = ElementwiseKernel(f"raw T a, raw int64 ai, raw int64 cnt, raw int64 inc, {_GEOMETRY}, "
                                  "int64 d, int64 dn, int64 tsh", "raw T b, raw int64 bi, raw int64 cn", body,
                                  f"rk_radix_scatter_kv_{name}", preamble=preamble, _heavy=True)
        else:
            body = _SCATTER.replace("MOVE", "")
            k = ElementwiseKernel(f"raw T a, raw int64 cnt, raw int64 inc, {_GEOMETRY}, int64 d, int64 dn, "
                                  "int64 tsh", "raw T b, raw int64 cn", body, f"rk_radix_scatter_{name}", preamble=preamble, _heavy=True)
        k = _kernels.setdefault(key, k)
    return k


def _geometry(rows: int, L: int, device) -> tuple[int, int, int, int]:
    """(tiles per row, tile size, its log2 rounded up, items: the tiles of all rows).
    Host tiles are a power of two, at most ``HOST_TILES_PER_ROW`` a row (the scatter
    counts the next digit per destination tile: ``tsh`` finds it)."""
    if device.kind == "cpu":
        # (at most 2**30: a tile's counters are 32-bit)
        t = min(max(HOST_TILE, -(-L // HOST_TILES_PER_ROW)), 1 << 30)
        ts = min(L, 1 << (t - 1).bit_length())
    else:
        # a thread per tile: smaller tiles for fewer elements, so that a short sort
        # still has threads to run on
        t = -(-rows * L // GPU_THREADS)
        ts = min(L, GPU_TILE, max(GPU_TILE_MIN, 1 << max(0, (t - 1).bit_length())))
    tpr = -(-L // ts)
    return tpr, ts, (ts - 1).bit_length(), rows * tpr


def _by_rows(rows: int, L: int, device) -> bool:
    """Whether one item per row sorts ``rows`` rows of ``L`` (else tiles of rows do)."""
    if device.kind == "cpu":
        return L <= HOST_TILE or (rows >= ROWS_MIN_HOST and L <= ROW_MAX_HOST)
    return rows >= ROWS_MIN_GPU and L <= GPU_TILE


def keeps_keys(rows: int, L: int, dtype: np.dtype, device, payload: bool = False) -> bool:
    """Whether ``radix_sort`` of ``rows`` rows of ``L`` (with a ``payload`` or not) leaves its
    keys unwritten (the sorted keys then come back in a new array, or the keys passed when
    all are equal)."""
    if device.kind != "cpu":
        return gpu_sortable(dtype, L)
    if payload and _network(L, dtype, device, True) is not None:
        return True  # (``network_argsort`` reads them)
    return (dtype.kind != "c" and not _by_rows(rows, L, device)) or (not payload and network_sorts(L, dtype, device))


def host_line_sort(keys: Array, descending: bool) -> "Array | None":
    """The flat, contiguous line ``keys`` sorted stably into a new array (``keys`` is never
    written) where it is the host's line that is not radix sorted: a long line of integers
    of a small range, or of float16, counted (``_count_sort``); a line where NumPy's sort
    is SIMD, by NumPy's sort (a long one written out by classes of its values, a class a
    thread, where the threads are few: ``_split_sort``); a shorter line by the sorting
    network, as ``radix_sort`` would (here with none of a general sort's asks, which took
    most of a short line's time).  Else None (nothing done)."""
    n = keys.size
    if keys.device.kind != "cpu":
        return None
    # (the lengths as the modules hold them now: tests lower them)
    if n < _count_sort.COUNT_MIN_LINE and n < _split_sort.ONE_PIECE_MIN:
        return network_sort(keys, 1, n, descending)
    out = count_sort(keys, descending)
    if out is None and split_sorts(keys.dtype, n, keys.device):
        out = split_sort(keys, descending)
    return out


def radix_sort(keys: Array, rows: int, L: int, payload: Array | None = None, descending: bool = False,
               indices: bool = False):
    """Sort each of the ``rows`` rows of ``L`` of the flat, contiguous ``keys`` stably (and
    move the int64 ``payload`` of its shape with it; on the GPU path also a uint32 one);
    returns ``(keys, payload)``, flat, each the array passed or a new one: the payload
    sorted, the keys sorted when there is no payload (with one, the host's real keys are
    left unsorted: the callers want the order only).  ``indices`` (the GPU path only, no
    ``payload``): the payload is each key's place in its row, made by the sort
    (``gpu_radix_sort``).  (Flat: the kernels index 1-d raw operands, and the callers
    view the results in their own shape once.)"""
    if keys.size == 0 or L < 2:
        return keys, payload
    dtype, device = keys.dtype, keys.device
    # GPUs: block-cooperative passes (``_radix_gpu``); complex keys stay on the kernels below
    if device.kind != "cpu" and gpu_sortable(dtype, L):
        return gpu_radix_sort(keys, rows, L, payload, descending,
                              _FLOAT64_KEY if dtype.itemsize == 8 else _FLOAT32_KEY, indices)
    if payload is None and rows == 1:
        out = host_line_sort(keys, descending)
        if out is not None:
            return out, None
    if payload is None:
        # the host's rows of up to ``longest_row`` keys (8- and 16-bit ones from
        # ``shortest_row``): a sorting network on vectors, into a new array (the rows
        # longer than its stack buffer holds, through a scratch array)
        out = network_sort(keys, rows, L, descending)
        if out is not None:
            return out, None
    nd, kmin = key_digits(dtype), 0
    if dtype.kind in "iu" and dtype.itemsize > 1:
        # the keys less the smallest: the digits above their range are zero, not counted
        kmin, nd = _key_range(keys, descending)
        if nd == 0:
            return keys, payload  # all keys equal: in order already
    if _by_rows(rows, L, device):
        work = rows * L
        # (the host's rows of real elements: local arrays up to ``RCAP``, no scratch rows)
        what = "rows_host" if device.kind == "cpu" and dtype.kind != "c" else "rows"
        scratch_shape = (1,) if what == "rows_host" and ROW_LOCAL_MIN <= L <= RCAP else keys.shape
        scratch = Array._empty(scratch_shape, dtype, device)
        digits = (nd,) if what == "rows_host" else ()
        if payload is None:
            _kernel(what, dtype)(rows, L, descending, kmin, *digits, keys, scratch, size=rows, _work=work)
        else:
            scratch_p = Array._empty(scratch_shape, payload.dtype, device)
            _kernel(what, dtype, True)(rows, L, descending, kmin, *digits, keys, payload, scratch, scratch_p,
                                       size=rows, _work=work)
        return keys, payload
    tpr, ts, tsh, size = _geometry(rows, L, device)
    work = rows * L
    geometry = (rows, L, tpr, ts, descending, kmin)
    i64 = np.dtype(np.int64)
    span = rows * BINS * tpr
    # the host's real elements are sorted as key words (``_HIST_HOST``), their values made
    # back at the end; complex ones (and a GPU's) move as they are
    words = device.kind == "cpu" and dtype.kind != "c"
    if words:
        # one read writes the key words and counts digit 0; a digit every key shares moves
        # nothing (no pass): its bits are the same in the tiles' OR and AND
        kdt = _key_dtype(dtype, nd)
        src = Array._empty(keys.shape, kdt, device)
        counts = Array._empty((span,), i64, device)
        tiles = Array._empty((3 * rows * tpr,), i64, device)
        # (long lines count their top digit first: the MSD-first path's, when it runs)
        buckets = payload is None and MSD_MIN_HOST <= L < (1 << 31) and nd >= MSD_PASSES_MIN
        counted = nd - 1 if buckets else 0
        _kernel("hist_host", dtype, kdt=kdt)(keys, *geometry, counted, src, counts, tiles, size=size, _work=work)
        special, ors, ands = tiles.get().view(np.uint64).reshape((3, -1))
        varied = int(np.bitwise_or.reduce(ors) ^ np.bitwise_and.reduce(ands))
        passes = [d for d in range(nd) if (varied >> (RADIX_BITS * d)) & (BINS - 1)]
        hist = _kernel("count_host", kdt)
        if buckets and len(passes) >= MSD_PASSES_MIN and not special.any():
            if counted != passes[-1]:
                counted = passes[-1]
                hist(src, *geometry, counted, counts, size=size, _work=work)
            out = _buckets_sort(src, counts, counted, dtype, kdt, geometry, tsh, size, device)
            if out is not None:
                return out, None
        if passes and passes[0] != counted:
            hist(src, *geometry, passes[0], counts, size=size, _work=work)
        cnt = counts
    else:
        kdt, src = dtype, keys
        counts = Array._empty((nd * span,), i64, device)
        hist = _kernel("hist", dtype)
        hist(keys, *geometry, 0, nd, counts, size=size, _work=work)
        totals = _sum(counts.reshape((nd, rows, BINS, tpr)), axis=(1, 3)).get()
        passes = [d for d in range(nd) if totals[d].max() < keys.size]  # others move nothing
        cnt = counts[passes[0] * span:(passes[0] + 1) * span] if passes else None
    if not passes:
        return keys, payload
    gather = words and payload is None and dtype.kind == "f" and int(special.sum()) > 0
    if gather:
        # -0.0 or NaNs whose bits their keys do not give back: the elements' indices move
        # with the keys, and the values are gathered by them
        payload = contiguous(broadcast_to(arange(L, dtype=i64, device=device), (rows, L))).reshape((-1,))
    # on the host each pass also counts the next pass's digits (by source and destination
    # tile) while it moves the elements, where those counters are few beside the data;
    # elsewhere a pass counts its digits first
    per_tile = BINS * tpr  # the next digit's counters of one source tile: per destination tile
    fused = device.kind == "cpu" and span * tpr * FUSED_COUNTERS_RATIO <= keys.size
    scatter = _kernel("scatter_host" if words else "scatter", kdt, payload is not None)
    src_p = payload
    dst = Array._empty(keys.shape, kdt, device)
    dst_p = None if payload is None else Array._empty(keys.shape, payload.dtype, device)
    nxt = Array._empty((span * tpr,) if fused else (1,), i64, device)
    for n, d in enumerate(passes):
        if n and not fused:
            cnt = Array._empty((span,), i64, device)
            hist(src, *geometry, *((d,) if words else (d, 1)), cnt, size=size, _work=work)
        dn = passes[n + 1] if fused and n + 1 < len(passes) else -1
        inc = cumulative_sum(cnt.reshape((rows, BINS * tpr)), axis=1).reshape((-1,))
        if words and n + 1 == len(passes):
            # the last pass writes the values (or, with a payload, only the payload)
            if payload is None:
                out = Array._empty(keys.shape, dtype, device)
                _kernel("scatter_last_host", dtype, False, kdt)(src, cnt, inc, *geometry, d, out, size=size,
                                                                _work=work)
            else:
                _kernel("scatter_last_host", kdt, True)(src, src_p, cnt, inc, *geometry, d, dst_p, size=size,
                                                        _work=work)
                src_p = dst_p
            break
        ins = (src, cnt, inc) if payload is None else (src, src_p, cnt, inc)
        outs = (dst,) if payload is None else (dst, dst_p)
        scatter(*ins, *geometry, d, dn, tsh, *outs, nxt, size=size, _work=work)
        if dn >= 0:
            cnt = _sum(nxt.reshape((rows, tpr, per_tile)), axis=1).reshape((-1,))
        src, dst, src_p, dst_p = dst, src, dst_p, src_p
    if not words:
        return src, src_p
    if gather:
        return take_along(keys.reshape((rows, L)), src_p.reshape((rows, L)), 1).reshape((keys.size,)), None
    return out if payload is None else keys, src_p


def _buckets_sort(src: Array, counts: Array, top: int, dtype: np.dtype, kdt: np.dtype, geometry: tuple, tsh: int,
                  size: int, device) -> Array | None:
    """The host's long lines of key words ``src`` (counts of their digit ``top``, the most
    significant one they do not all share, in ``counts``) sorted MSD first: one pass by
    digit ``top`` into buckets, then the buckets, each by one item over the digits below
    (``_BUCKETS_HOST``), in groups of about equal sizes handed out to the threads as they
    ask.  The values come back in a new array of ``dtype``; None (nothing moved) when one
    bucket holds so much of the data that the threads could not share the work."""
    rows, L, tpr = geometry[:3]
    threads = getattr(device.runtime, "_threads", 1)
    sizes = counts.get().reshape((rows * BINS, tpr)).sum(axis=1)
    if int(sizes.max()) * threads > MSD_SKEW * rows * L:
        return None
    inc = cumulative_sum(counts.reshape((rows, BINS * tpr)), axis=1).reshape((-1,))
    dst = Array._empty(src.shape, kdt, device)
    spare = Array._empty((1,), np.dtype(np.int64), device)
    _kernel("scatter_host", kdt)(src, counts, inc, *geometry, top, -1, tsh, dst, spare, size=size, _work=rows * L)
    # each nonempty bucket's [lo, hi) in the line; dealt to the groups largest first, back
    # and forth (group 0, 1, ..., g - 1, g - 1, ..., 0, ...), so the groups' sizes are close
    hi = np.cumsum(sizes.reshape((rows, BINS)), axis=1) + (np.arange(rows, dtype=np.int64) * L)[:, None]
    hi = hi.reshape((-1,))
    full = np.flatnonzero(sizes)
    by_size = full[np.argsort(-sizes[full], kind="stable")]
    n_groups = min(len(by_size), PIECES_PER_THREAD * threads)
    turn = np.arange(len(by_size)) % (2 * n_groups)
    group = np.where(turn < n_groups, turn, 2 * n_groups - 1 - turn)
    order = by_size[np.argsort(group, kind="stable")]
    bounds = np.stack([hi[order] - sizes[order], hi[order]], axis=1).reshape((-1,))
    starts = np.searchsorted(np.sort(group), np.arange(n_groups + 1))
    out = Array._empty(src.shape, dtype, device)
    _kernel("buckets_host", dtype, kdt=kdt)(dst, src, asarray(bounds, device=device), asarray(starts, device=device),
                                            n_groups, L, *geometry[4:], top, out, size=n_groups, _work=rows * L)
    return out


def network_sorts(L: int, dtype: np.dtype, device, arg: bool = False) -> bool:
    """Whether rows of ``L`` elements of ``dtype`` are sorted (``arg``: argsorted) by the
    host's sorting network (which writes a new array and leaves the keys unwritten).  Its
    module is compiled on the background worker at the first ask; until it is loaded the
    radix sort or the merge sort serves those rows (whose kernels start on the quick tiers:
    a first call stays short)."""
    return _network(L, dtype, device, arg) is not None


def network_sort(keys: Array, rows: int, L: int, descending: bool) -> "Array | None":
    """The host's stable ``sort`` of each of the ``rows`` rows of ``L`` of the flat,
    contiguous ``keys`` by the sorting network, into a new array; None (nothing done) for
    rows it does not take, or while its module is compiling.  ``keys`` is not written."""
    dtype, device = keys.dtype, keys.device
    k = _network(L, dtype, device)
    if k is None:
        return None
    return _network_launch(k, keys, Array._empty(keys.shape, dtype, device), rows, L, descending, dtype.itemsize)


def network_argsort(keys: Array, rows: int, L: int, descending: bool) -> "Array | None":
    """The host's stable ``argsort`` of each of the ``rows`` rows of ``L`` of the flat,
    contiguous ``keys`` (int64 places, flat) by the sorting network, for the keys of rows
    it takes (``network_host.KINDS``); None (nothing done) otherwise, or while its
    module is compiling.  ``keys`` is not written."""
    dtype, device = keys.dtype, keys.device
    k = _network(L, dtype, device, True)
    if k is None:
        return None
    return _network_launch(k, keys, Array._empty(keys.shape, np.dtype(np.int64), device), rows, L, descending,
                           network_host.record_bytes(dtype.itemsize, True))


def _network_launch(k, keys: Array, out: Array, rows: int, L: int, descending: bool, record: int) -> Array:
    """Launch the network ``k`` over the ``rows`` rows of ``L`` of ``keys`` into ``out``
    (``record``: bytes of its records, for the scratch array of rows its stack buffer does
    not hold); returns ``out``."""
    nbytes = network_host.scratch_bytes(rows, L, record)
    scratch = Array._empty((nbytes // 8,), np.dtype(np.uint64), keys.device) if nbytes else None
    # (the work of a row: its elements once for each of the network's log2(L) sizes, so that
    # rows of a few hundred elements are shared between threads from a few hundred rows)
    k.code.launch_entry(k, 0, network_host.packer(), rows, (keys.data_ptr, out.data_ptr, L, int(descending),
                                                            0 if scratch is None else scratch.data_ptr),
                        rows, 1, rows * L * (L - 1).bit_length())
    return out


def _network(L: int, dtype: np.dtype, device, arg: bool = False):
    """The host's sorting network for rows of ``L`` elements of ``dtype`` (``arg``: its
    argsort), loaded; None for other rows, and while it compiles
    (``full_module_when_ready``)."""
    return _network_state(L, dtype, device, arg)[1]


def network_pending(L: int, dtype: np.dtype, device, arg: bool = False) -> bool:
    """Whether the host's sorting network takes rows of ``L`` elements of ``dtype``
    (``arg``: argsorts them) but its module is not loaded yet (its compile is started at
    the first ask)."""
    takes, k = _network_state(L, dtype, device, arg)
    return takes and k is None


def _network_state(L: int, dtype: np.dtype, device, arg: bool) -> tuple:
    """(whether the host's network takes rows of ``L`` of ``dtype``, its module if
    loaded)."""
    if device.kind != "cpu":
        return False, None
    spec = _network_specs.get((dtype, arg))
    if spec is None:
        spec = _network_specs.setdefault((dtype, arg), _network_spec(dtype, arg))
    shortest, longest, key, make = spec
    if not shortest <= L <= longest:
        return False, None
    return True, full_module_when_ready(key, device, make)


#: (dtype, arg) -> ``_network_spec``: a sort's three asks for its network are lookups
_network_specs: dict = {}


def _network_spec(dtype: np.dtype, arg: bool) -> tuple:
    """(the shortest row, the longest, the module's key, its maker) of the network for
    ``dtype`` (``arg``: its argsort); a longest row of 0 where there is none.  Bools sort as
    the bytes they are (``u1``)."""
    kind = "u1" if dtype.kind == "b" else f"{dtype.kind}{dtype.itemsize}"
    longest = network_host.longest_row(kind, arg) if kind in network_host.KINDS else 0
    if not longest:
        return 2, 0, None, None
    return (network_host.shortest_row(kind), longest, ("network-host", network_host.VERSION, kind, arg),
            functools.partial(_network_parts, kind, arg))


def _network_parts(kind: str, arg: bool) -> tuple:
    """``load_full_module``'s ``make()`` of the network for ``kind`` (``arg``: its argsort):
    partials of module functions, which the compile process's recipe pickles."""
    return (f"network_{'arg_' if arg else ''}{kind}",
            functools.partial(network_host.build_network_module, kind=kind, arg=arg), network_host.packer(), ())
