"""The radix sort's GPU path: each value's order-preserving unsigned key (32 or 64 bits),
sorted with its payload by the block-cooperative kernels of ``compiler/radix_gpu.py``,
and the values made back from the sorted keys or carried beside them.

* Integers and bool: the key is the value offset by half its type's range (complemented
  when descending) less the smallest such key (the smallest and largest keys found
  together and read from mapped host memory as they land, ``key_extremes``), so
  that a range of up to 2**32 values sorts 32-bit keys and only the digits the range has
  are passes; the sorted values are made back from the keys.
* float32 and float64: the kernels sort the values themselves, each ordered by its key
  (``-0.0`` as ``+0.0``, every NaN one largest key: ``_radix``'s order), so zeros and NaNs
  keep their bits and their input order and nothing is made back.
* float16: ``_radix``'s float key through float32, cut to the 19 bits that hold it, with
  the values' bits (widened to 32) as the payload.
* ``payload`` (``argsort``'s indices): carried as 32- or 64-bit words, as given.

Rows of up to ``TILE`` keys are each sorted by one block in shared memory (one launch for
every pass: the "block" module; until it is loaded, a sort of few such rows ranks its
elements instead: ``short_rows_ready``, ``_sorting_functions._rank_sort``); longer rows
are counted once for every pass (the "hist" module, a block per chunk of a row, as many
chunks as the device holds its blocks at once), then sorted by one onesweep launch per
pass, as many blocks as the device holds at once taking tiles of ``D_TILE`` keys in turn,
every row at once (the "passes" module, compiled at a first call on the background worker
while the histogram's compiles).
Complex numbers stay on the portable path (``_radix``).
"""

from __future__ import annotations

import functools

import numpy as np

from ._array_object import Array
from ._creation_functions import asarray
from ._elementwise import filled
from ._launch import full_module_when_ready, load_full_module, loaded_full_module, module_builder
from ._statistical_functions import max as _max, min as _min
from ._user_kernels import ElementwiseKernel, ReductionKernel
from ._views import broadcast_to
from .compiler import extremes_gpu, radix_gpu
from .compiler.cache import compile_in_background
from .compiler.radix_gpu import BINS, BLOCK, PARTS, VERSION, build_radix_module, packer

#: The longest row the GPU path takes (counts and places within a row are 32-bit).
MAX_ROW = (1 << 31) - 1 - radix_gpu.D_TILE

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_I32 = np.dtype(np.int32)
_I64 = np.dtype(np.int64)


def gpu_sortable(dtype: np.dtype, L: int) -> bool:
    """Whether the GPU path sorts rows of ``L`` values of ``dtype``."""
    return dtype.kind in "biuf" and L <= MAX_ROW


def _float_key_bits(dtype: np.dtype) -> int:
    return 19 if dtype.itemsize == 2 else 8 * dtype.itemsize


_elementwise: dict = {}


def _ew(key, make) -> ElementwiseKernel:
    k = _elementwise.get(key)
    if k is None:
        k = _elementwise.setdefault(key, make())
    return k


def _int_parts(dtype: np.dtype, v: str = "v") -> tuple[str, str, int]:
    """(the key expression of the variable ``v``, the mask of its width, the offset) of an
    integer dtype."""
    bits = 8 * dtype.itemsize
    mask = "0xFFFFFFFFFFFFFFFFull" if bits == 64 else f"((1ull << {bits}) - 1ull)"
    if dtype.kind == "i":
        return f"((((unsigned long long)(long long){v}) + (1ull << {bits - 1})) & {mask})", mask, 1 << (bits - 1)
    return f"((unsigned long long){v})", mask, 0


def _int_key_kernel(dtype: np.dtype, key_dtype: np.dtype) -> ElementwiseKernel:
    def make():
        key, mask, _ = _int_parts(dtype)
        body = (f"unsigned long long K = {key};\nif (desc) K = {mask} - K;\n"
                f"k = ({'unsigned int' if key_dtype.itemsize == 4 else 'unsigned long long'})(K - kmin);")
        return ElementwiseKernel(f"{dtype.name} v, uint64 kmin, bool desc", f"{key_dtype.name} k", body,
                                 f"rk_gpu_key_{dtype.name}_{key_dtype.name}")
    return _ew(("ikey", dtype, key_dtype), make)


def _extremes_kernel(dtype: np.dtype) -> ReductionKernel:
    def make():
        key, mask, _ = _int_parts(dtype, "x")
        # the largest key of row 0 and the largest complemented key of row 1: one read-back
        return ReductionKernel(f"{dtype.name} x, bool s", "uint64 y", f"(s ? ({key}) ^ {mask} : ({key}))",
                               "(a > b ? a : b)", "y = a", "0", f"rk_gpu_key_extremes_{dtype.name}")
    return _ew(("extremes", dtype), make)


#: device -> the (2, 1) bool array [[False], [True]] that picks each row's extreme
_rows_of_extremes: dict = {}


@functools.lru_cache(maxsize=None)
def _extremes_module(size: int) -> tuple:
    """(cache key, ``make``) of the extremes module for elements of ``size`` bytes."""
    return ("extremes-gpu", extremes_gpu.VERSION, size), functools.partial(_extremes_parts, size)


def _extremes_parts(size: int) -> tuple:
    """``load_full_module``'s ``make()`` of the extremes module (picklable)."""
    return (f"extremes_gpu_{size}", module_builder(extremes_gpu.build_extremes_module, size),
            extremes_gpu.packer(""), extremes_gpu.ENTRIES[1:])


_U64_MASK = (1 << 64) - 1


def key_extremes(keys: Array) -> tuple[int, int]:
    """(the smallest, the largest) unsigned key (``_int_parts``: the value offset by half
    its type's range) of the non-empty 1-d integer ``keys``: the extremes module's fold
    and final entries, and the host reading their three mapped words as the last lands
    (no copy back).  On the host, and on a GPU until that module is loaded (its compile
    started on the background worker at a first call), one reduction of two rows, the keys
    and their complements, and one read-back of both."""
    dtype, device = keys.dtype, keys.device
    n, size = keys.shape[0], dtype.itemsize
    kernel = None
    if device.kind != "cpu":  # (the host's: the reduction, as a GPU's first call)
        key, make = _extremes_module(size)
        kernel = full_module_when_ready(key, device, make)
    if kernel is None:
        pick = _rows_of_extremes.get(device)
        if pick is None:
            pick = _rows_of_extremes.setdefault(device, asarray(np.array([[False], [True]]), device=device))
        hi, lo = _extremes_kernel(dtype)(broadcast_to(keys.reshape((1, n)), (2, n)), pick, axis=1).get().tolist()
        return lo ^ ((1 << (8 * size)) - 1), hi
    block = extremes_gpu.BLOCK
    grid = min(-(-n // (block * extremes_gpu.UNROLL)), device.runtime.resident_grid(kernel.code.functions[0], block))
    partials = Array._empty((2 * grid,), _U64, device)
    flip = 1 << (8 * size - 1) if dtype.kind == "i" else 0
    rt, index, launch = kernel.runtime, device.index, kernel.code.launch_entry
    with rt.mapped_words(index).lend(rt.synchronize_current, index, 3) as (lo, hi, done):
        done[0][done[1]] = -1  # (unwritten)
        step = (keys.strides[0] // size) & _U64_MASK  # (a negative stride as its 64-bit word)
        launch(kernel, 0, extremes_gpu.packer(""), n, (_ptr(keys), step, flip, _ptr(partials)), grid, block, 0)
        launch(kernel, 1, extremes_gpu.packer("_f"), grid, (_ptr(partials), lo[2], hi[2], done[2]), 1, block, 0)
        rt.await_word(index, done, -1)
        return lo[0][lo[1]] & _U64_MASK, hi[0][hi[1]] & _U64_MASK


def value_extremes(x: Array) -> tuple[int, int]:
    """(the smallest, the largest) value of the non-empty integer array ``x`` (any shape).
    On a GPU ``key_extremes``' one wait for the device, where ``min`` and ``max`` would
    wait twice; on the host ``min`` and ``max`` (their SIMD loops read
    the data faster than the two-row reduction, and a read-back there waits for nothing)."""
    if x.device.kind == "cpu":
        return int(_min(x).get()), int(_max(x).get())
    flat = x.reshape((-1,)) if x.ndim != 1 else x
    lo, hi = key_extremes(flat)
    offset = 1 << (8 * x.dtype.itemsize - 1) if x.dtype.kind == "i" else 0
    return lo - offset, hi - offset


def _int_value_kernel(dtype: np.dtype, key_dtype: np.dtype) -> ElementwiseKernel:
    def make():
        _, mask, offset = _int_parts(dtype)
        ctype = "bool" if dtype.kind == "b" else dtype.name
        body = (f"unsigned long long K = ((unsigned long long)k + kmin) & {mask};\nif (desc) K = {mask} - K;\n"
                f"v = ({ctype})(K - {offset}ull);")
        return ElementwiseKernel(f"{key_dtype.name} k, uint64 kmin, bool desc", f"{dtype.name} v", body,
                                 f"rk_gpu_value_{dtype.name}_{key_dtype.name}")
    return _ew(("ivalue", dtype, key_dtype), make)


def _float_key_kernel(dtype: np.dtype, key_dtype: np.dtype, float_key: str) -> ElementwiseKernel:
    """float16's 19-bit keys (float32 and float64 are ordered by the sort's kernels)."""
    def make():
        mask = f"((1ull << {_float_key_bits(dtype)}) - 1ull)"
        body = (f"unsigned long long K = rk_fkey((float)v) >> 13;\nif (desc) K = {mask} - K;\n"
                f"k = (unsigned int)K;")
        return ElementwiseKernel(f"{dtype.name} v, bool desc", f"{key_dtype.name} k", body,
                                 f"rk_gpu_fkey_{dtype.name}", preamble=float_key)
    return _ew(("fkey", dtype), make)


def _widen_kernel() -> ElementwiseKernel:
    return _ew(("widen",), lambda: ElementwiseKernel("uint16 h", "uint32 p", "p = h;", "rk_gpu_widen16"))


def _narrow_kernel() -> ElementwiseKernel:
    return _ew(("narrow",), lambda: ElementwiseKernel("uint32 p", "uint16 h", "h = (unsigned short)p;",
                                                      "rk_gpu_narrow16"))


def _gather_kernel() -> ElementwiseKernel:
    # the sorted values of rows from the sorted in-row indices
    return _ew(("gather",), lambda: ElementwiseKernel("raw T x, int64 j, int64 L", "T y", "y = x[i - i % L + j];",
                                                      "rk_gpu_row_gather"))


def _as(a: Array, dtype) -> Array:
    """The contiguous ``a``'s memory read as ``dtype`` (of ``a``'s item size)."""
    v = Array._on_buffer(a._buf, a._shape, a._size, np.dtype(dtype))
    v._offset = a._offset
    return v


#: (key kind, payload bits, part) -> (cache key, ``make``) of its module
_modules: dict = {}


def _module(key_kind: str, payload_bits: int, part: str) -> tuple:
    """(cache key, ``make``) of the sort module ``part`` (of ``PARTS``) for (key kind,
    payload bits), as ``load_full_module`` takes them (made once).  The histogram counts
    keys alone: one module for every payload (a sort's serves the argsort's)."""
    if part == "hist":
        payload_bits = 0
    found = _modules.get((key_kind, payload_bits, part))
    if found is None:
        key = ("radix-gpu", VERSION, radix_gpu.ITEMS, radix_gpu.D_ITEMS, radix_gpu.RANKING_BLOCKS,
               radix_gpu.D_RANKING_BLOCKS, radix_gpu.D_RANKING_BLOCKS_KEYS32, radix_gpu.LOOK_BACK, key_kind,
               payload_bits, part)
        found = _modules[(key_kind, payload_bits, part)] = (key, functools.partial(_parts, key_kind, payload_bits,
                                                                                     part))
    return found


def _parts(key_kind: str, payload_bits: int, part: str) -> tuple:
    """``load_full_module``'s ``make()`` of the sort module ``part``: picklable, so that
    the compile process builds it when the background worker compiles it."""
    (suffix,) = PARTS[part]
    return (f"radix_sort_{key_kind}_p{payload_bits}_{part}",
            module_builder(build_radix_module, key_kind, payload_bits, (suffix,)), packer(suffix), ())


def _kernel(device, key_kind: str, payload_bits: int, part: str):
    """The sort module ``part`` (of ``PARTS``) for (key kind, payload bits) loaded on
    ``device``, fully compiled."""
    key, make = _module(key_kind, payload_bits, part)
    return load_full_module(key, device, make)


def _kernel_when_ready(device, key_kind: str, payload_bits: int, part: str):
    """``_kernel``'s module if it is loaded, else None, its compile started on the
    background worker (a later ``_kernel`` waits for that compile)."""
    key, make = _module(key_kind, payload_bits, part)
    return full_module_when_ready(key, device, make)


def short_rows_ready(dtype: np.dtype, L: int, payload_bits: int, device, start: bool = False) -> bool:
    """Whether the module that sorts rows of ``L`` values of ``dtype`` with a payload of
    ``payload_bits`` is loaded on ``device``: always for rows longer than ``TILE`` (the
    passes' modules, which such a sort waits for); for shorter rows the block sort's, whose
    compile ``start`` starts in the background when it is not (64-bit integers: their
    32-bit keys' module, unless the 64-bit keys' is loaded -- the keys' range picks at the
    sort)."""
    if L > radix_gpu.TILE:
        return True
    if dtype.kind == "f" and dtype.itemsize > 2:
        kind = f"f{8 * dtype.itemsize}"
    else:
        kind = "u32"
        if dtype.itemsize == 8 and loaded_full_module(_module("u64", payload_bits, "block")[0], device):
            return True
    if start:
        if dtype.kind in "biu" and (dtype, device) not in _prepared:
            # (first, so that they are ready when the module is)
            _prepared.add((dtype, device))
            compile_in_background(functools.partial(_prepare_int_kernels, dtype, device))
        return _kernel_when_ready(device, kind, payload_bits, "block") is not None
    return loaded_full_module(_module(kind, payload_bits, "block")[0], device) is not None


#: (dtype, device) whose integer key and value kernels ``short_rows_ready`` has started
#: preparing
_prepared: set = set()


def _prepare_int_kernels(dtype: np.dtype, device) -> None:
    """The key and value kernels (32-bit keys) of ``dtype`` loaded on ``device``: what the
    first sort the block module serves would otherwise compile on its way (36-46 ms once,
    a later call's; docs/primitives.md, stop 58)."""
    _int_plans(dtype, _U32, device)


def _int_plans(dtype: np.dtype, key_dtype: np.dtype, device) -> tuple:
    """The launch plans (``_Plan``) of the key and value kernels of ``dtype`` with keys of
    ``key_dtype`` on ``device`` (made once): the sort launches them on its flat arrays
    straight (``launch_flat``), without a call's checks of its operands' layouts."""
    key = (dtype, key_dtype, device)
    plans = _plans.get(key)
    if plans is None:
        plans = _plans.setdefault(key, (
            _int_key_kernel(dtype, key_dtype).plan_for((dtype, int, bool), (key_dtype,), device),
            _int_value_kernel(dtype, key_dtype).plan_for((key_dtype, int, bool), (dtype,), device)))
    return plans


#: (dtype, key dtype, device) -> ``_int_plans``
_plans: dict = {}


def _ptr(a: "Array | None") -> int:
    return 0 if a is None else a._buf.ptr + a._offset


def _launch(kernel, suffix: str, n: int, grid: int, *values) -> None:
    """Launch the one entry of ``kernel``, the module of entry ``suffix``."""
    kernel.code.launch_entry(kernel, 0, packer(suffix), n, values, grid, BLOCK, 0)


def gpu_radix_sort(keys: Array, rows: int, L: int, payload: "Array | None", descending: bool, float_key: str,
                   indices: bool = False):
    """Sort each of the ``rows`` rows of ``L`` values of the flat, contiguous ``keys`` on
    its GPU, stably (``payload``, 32- or 64-bit integers of ``keys``' shape, moves with
    them); returns the sorted (values, payload), flat.  ``keys`` is never written (the
    payload may be); only keys all equal come back as ``keys`` itself.  ``float_key``: the
    preamble defining ``rk_fkey`` for ``keys``' float type (``_radix``'s).

    ``indices`` (no ``payload``; not float16): the payload is each key's place in its row,
    made by the first pass, moved as 32 bits and written as int64 by the last (``argsort``);
    None when the keys are all equal (the places are in order)."""
    dtype, device = keys.dtype, keys.device
    n = keys.size
    kind = None
    if dtype.kind == "f" and dtype.itemsize > 2:  # the kernels order the floats themselves
        bits, kdt, k0, kmin = 8 * dtype.itemsize, dtype, keys, 0
        kind = f"f{bits}"
    elif dtype.kind == "f":
        bits = _float_key_bits(dtype)
        kdt = _U32
        k0 = Array._empty((n,), kdt, device)
        _float_key_kernel(dtype, kdt, float_key)(keys, descending, k0)
        kmin = 0
    else:
        width = (1 << (8 * dtype.itemsize)) - 1
        if dtype.itemsize >= 4:  # (narrower keys have at most two digits: nothing to read back)
            klo, khi = key_extremes(keys)
        else:
            klo, khi = 0, width
        kmin = width - khi if descending else klo
        bits = (khi - klo).bit_length()
        if bits == 0:  # every value equal: already sorted
            return keys, None if indices else payload
        kdt = _U32 if bits <= 32 else _U64
        k0 = Array._empty((n,), kdt, device)
        plans = _int_plans(dtype, kdt, device)
        plans[0].launch_flat(n, (keys, kmin, descending), (_ptr(k0),))
    passes = -(-bits // 8)
    if indices:
        p0, pbits = None, 32  # (the first pass makes them: a null payload pointer)
    elif payload is not None:
        p0, pbits = payload, 8 * payload.dtype.itemsize
    elif kind is None and dtype.kind == "f":  # float16: its bits
        p0, pbits = _widen_kernel()(_as(keys, np.uint16)), 32
    else:
        p0, pbits = None, 0
    desc = int(descending and kind is not None)  # (the other keys are complemented already)
    key_kind = kind or f"u{8 * kdt.itemsize}"
    owned = k0 is not keys  # (``keys`` itself is never written)
    k1 = Array._empty((n,), kdt, device)
    p1 = None if p0 is None else Array._empty((n,), p0.dtype, device)
    if L <= radix_gpu.TILE:
        if indices:
            p1 = Array._empty((n,), _I64, device)
        _launch(_kernel(device, key_kind, pbits, "block"), "_b", rows, rows, _ptr(k0), _ptr(p0), _ptr(k1), _ptr(p1),
                L, passes, desc, int(indices))
        k0, p0 = k1, p1
    else:
        tile = radix_gpu.D_TILE
        tiles = -(-L // tile)
        # (at a first call the pass's module compiles on the background worker while the
        # histogram's compiles here: their assemblers, outside LLVM, run side by side)
        passes_kernel = _kernel_when_ready(device, key_kind, pbits, "passes")
        kernel = _kernel(device, key_kind, pbits, "hist")
        # the histogram: as many chunks as its blocks the device holds at once
        resident = device.runtime.resident_grid(kernel.code.functions[0], BLOCK)
        tpb = -(-tiles // max(1, resident // rows))
        chunk = tpb * tile
        bpr = -(-L // chunk)
        blocks = rows * bpr
        # the passes' tile counters and status words, then the row's digit counts (32-bit)
        words = radix_gpu.COUNTERS + rows * tiles * BINS
        scratch = filled((words + -(-rows * kdt.itemsize * BINS // 2),), 0, _I64, device)
        status = _ptr(scratch)
        hist = status + 8 * words
        _launch(kernel, "", blocks, blocks, _ptr(k0), hist, L, chunk, bpr, passes, desc)
        kernel = passes_kernel or _kernel(device, key_kind, pbits, "passes")
        grid = min(rows * tiles, device.runtime.resident_grid(kernel.code.functions[0], BLOCK))
        for d in range(passes):
            wide = indices and d + 1 == passes  # (the last pass writes argsort's int64 result)
            if wide or (indices and p1 is None):
                p1 = Array._empty((n,), _I64 if wide else _U32, device)
            _launch(kernel, "_d", rows * tiles, grid, _ptr(k0), _ptr(p0), _ptr(k1), _ptr(p1), hist,
                    status, L, tiles, 8 * d, desc, int(wide))
            k0, k1, p0, p1 = k1, (k0 if d or owned else None), p1, p0
            if k1 is None and d + 1 < passes:
                k1 = Array._empty((n,), kdt, device)
    if kind is not None:
        return k0, p0
    if dtype.kind != "f":
        values = Array._empty((n,), dtype, device)
        plans[1].launch_flat(n, (k0, kmin, descending), (_ptr(values),))
        return values, p0
    if payload is not None:  # float16 with indices: the values, gathered by them
        return _gather_kernel()(keys, p0, L), p0
    return _as(_narrow_kernel()(p0), dtype), None
