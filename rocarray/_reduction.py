"""Reductions and scans: the generic engine (``ReductionDef``, ``reduce``, ``scan``) and
the catalogue's ops (``ReductionOp``).

A def is CuPy's ``ReductionKernel`` shape in the kernel language (identity, map, reduce,
post).  Axes, shapes and strides are run-time arguments, and the strategy is chosen per
call from the merged layout (``_choose``), so a new axis or shape compiles nothing;
docs/architecture.md ("Reductions and scans") describes the strategies.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from . import _dtypes
from ._array_object import Array, _prod
from ._buffer import allocate
from ._chain_status import chain_status
from ._copy import contiguous
from ._data_type_functions import astype
from ._kernels import catalogue
from ._launch import KernelSpec, full_module_when_ready, load, module_builder
from ._layout import broadcast_strides, merge_dims, pad_dims
from ._views import broadcast_shapes, broadcast_to, normalize_axes, permute_dims
from .runtime.host import PIECES_PER_THREAD
from .compiler.abi import DIMS, PTR
from .compiler.interp import NotInterpretable
from .compiler.lang import compile_scalar_function
from .compiler.gpu_ir import word_packer
from .compiler.reduction import (build_chained_scan, build_reduction, build_scan, item_functions, quick_tier_text,
                                 record_wrappers)
from .compiler.reduction_chain import CHAIN_BLOCK, CHAIN_BLOCKS, CHAIN_PARAMS, CHAIN_STEPS, CHAIN_VERSION, chain_tile
from .compiler.reduction_abi import (MODE_COOP, MODE_GROUPS, MODE_RECORDS, MODE_TILE, MODE_UNSCANNED, MODE_WAVE,
                                     SCAN_UNROLL, TILE, VECTOR_BYTES, VECTOR_ELEMENTS, gpu_tile_width, record_layout,
                                     reduction_param_types, scan_param_types)
from .targets.base import MAX_DIMS

#: Most reduced elements one host item folds (then records and a second pass): with
#: 16 lanes, 128 serial steps per lane, then a tree.
HOST_CHUNK = 2048
#: The same for the quick tier's code (one accumulator per item, on every device), so
#: that a float sum is never a long serial sum whichever tier runs it.
SIMPLE_CHUNK = 128
#: Threads of a GPU block for reductions.
GPU_BLOCK = 256
#: A block's chunk of a long run is a multiple of this many elements (whole vector trips).
GPU_CHUNK_QUANTUM = GPU_BLOCK * 16
#: Contiguous GPU runs: one wave per item (True) or one block per item (False).
GPU_WAVE_ITEMS = True
#: Most rounds of resident blocks a wave-per-item launch takes (more items than waves: the
#: waves then stride over them).  One round measured best (a block of waves retires only
#: when its slowest wave is done; benchmarks/results/history/benchmarks.md).
GPU_WAVE_ROUNDS = 1
#: GPU scans: one wave per (line, chunk), the lanes on consecutive elements and a wave
#: scan by shuffles per step (True), or one thread per (line, chunk) scanning serially
#: (False: kept in case the wave mode fails on some device).
GPU_WAVE_SCANS = True
#: The wave mode takes lines of at least this many wave-wide steps; shorter lines (many
#: short rows) keep a thread each.
GPU_SCAN_WAVE_STEPS = 4
#: Scans: lines cut into at most this many chunks leave the chunk totals unscanned, each
#: chunk folding the totals of those before it (``MODE_UNSCANNED``: a launch less than
#: scanning them; at most this many records read per chunk).
SCAN_UNSCANNED_MOST = 64
#: GPU wave scans of one line: chunk totals are left unscanned, each wave folding those of
#: the blocks (groups of chunks) before it and of the chunks before it in its block
#: (``MODE_GROUPS``: two launches less than scanning them), while that is at most this
#: many records.
SCAN_GROUPED_MOST = 2048
#: A host scan of integers by add, max or min whose elements move at least this many bytes
#: (input and output) runs each line in one pass: it is bound by memory, not by its chain of
#: one-cycle steps, and the chunked scan reads the input twice (narrower elements are
#: bound by the chain: chunks on every thread pay there; figures in
#: benchmarks/results/2026-12-02-cpu-primitives-2/).
HOST_ONE_PASS_BYTES = 16
#: GPU scans of one contiguous line of at least this many elements take one launch, a
#: single pass with decoupled look-back (``compiler/reduction_chain.py``), once its module
#: is compiled (on the background worker at the first such call: the passes serve that).
CHAIN_MIN = 1 << 17
_CHAIN_PACKER = word_packer(len(CHAIN_PARAMS))


@functools.lru_cache(maxsize=None)
def _struct_of(types: tuple) -> struct.Struct:
    """The launcher's packing of kernel parameters ``types`` (the kernel ABI's layout)."""
    return struct.Struct("<" + "".join(f"{MAX_DIMS}q" if t == DIMS else "Q" if t == PTR else "q"
                                       for t in types))


def _packer(n_inputs: int, n_outputs: int) -> struct.Struct:
    """Packing of a reduction entry's parameters."""
    return _struct_of(tuple(reduction_param_types(n_inputs, n_outputs)))


def _def_spec(args: tuple, scan: bool) -> KernelSpec:
    """The spec of ``ReductionDef(*args)`` (its scans' with ``scan``): a reduction's
    ``KernelSpec.recipe``."""
    d = ReductionDef(*args)
    return d.scan_spec() if scan else d.spec()


def _chain_parts(args: tuple) -> tuple:
    """``load_full_module``'s ``make()`` of the single-pass scan of ``ReductionDef(*args)``
    (picklable: the compile process can build it)."""
    return f"{args[0]}_chained", module_builder(_build_chain, args), _CHAIN_PACKER, ("_z",)


def _build_chain(module, target, entry, args: tuple) -> None:
    ReductionDef(*args)._build_chain(module, target, entry)


class ReductionDef:
    """A reduction written in the kernel language.

    inputs:   ((name, dtype), ...) -- array inputs, broadcast together
    fields:   ((a_name, b_name, dtype), ...) -- the accumulator record
    identity: statements setting the a-side fields to the identity
    map:      statements reading the inputs (and ``i``, the element's index in the reduced
              run, C order) and setting the a-side fields
    reduce:   statements folding the b-side fields into the a-side fields
    outputs:  ((name, dtype), ...)
    post:     statements reading the a-side fields and writing the outputs
    """

    __slots__ = ("name", "inputs", "fields", "identity", "map", "reduce", "outputs", "post",
                 "preamble", "typedefs", "key", "_spec", "_scan_spec", "_chain", "simd")

    def __init__(self, name, inputs, fields, identity, map, reduce, outputs, post,
                 preamble: str = "", typedefs=None, simd=None):
        self.name = name
        self.inputs = tuple((n, _dtypes.as_dtype(d)) for n, d in inputs)
        self.fields = tuple((a, b, _dtypes.as_dtype(d)) for a, b, d in fields)
        self.identity, self.map, self.reduce, self.post = identity, map, reduce, post
        self.outputs = tuple((n, _dtypes.as_dtype(d)) for n, d in outputs)
        self.preamble = preamble
        self.typedefs = dict(typedefs or {})
        #: catalogue rows only: the host SIMD recipe computing what map and reduce do
        self.simd = simd
        self.key = ("reduction", name, tuple((n, str(d)) for n, d in self.inputs),
                    tuple((a, b, str(d)) for a, b, d in self.fields), identity, map, reduce,
                    tuple((n, str(d)) for n, d in self.outputs), post, preamble,
                    tuple(sorted((k, str(v)) for k, v in self.typedefs.items())), simd)
        self._spec = self._scan_spec = self._chain = None

    @property
    def exact(self) -> bool:
        """True when the order of combination cannot change the result (integer sums and
        products, min, max, argmin, argmax, all, any): no chunking for accuracy."""
        if self.simd in ("max", "min", "argmax", "argmin", "any", "all"):
            return True
        return self.simd in ("add", "mul") and all(d.kind in "biu" for _, _, d in self.fields)

    def spec(self) -> KernelSpec:
        if self._spec is None:
            spec = KernelSpec(self.key, self.name, (), None, build_kernel=self._build,
                              packer=_packer(len(self.inputs), len(self.outputs)),
                              extra_entries=("_c",), heavy=True, build_items=self._build_items)
            spec.recipe = functools.partial(_def_spec, self._args(), False)
            self._spec = spec
        return self._spec

    def _args(self) -> tuple:
        """What ``ReductionDef(*args)`` makes this definition again from (picklable)."""
        return (self.name, self.inputs, self.fields, self.identity, self.map, self.reduce, self.outputs,
                self.post, self.preamble, self.typedefs, self.simd)

    def scan_spec(self) -> KernelSpec:
        """The module for scans: the elements entry (chunk totals) and the scan entry."""
        spec = self._scan_spec
        if spec is None:
            spec = self._scan_spec = KernelSpec(
                self.key + ("scan",), self.name, (), None,
                build_kernel=lambda m, t, e: self._build(m, t, e, scan=True),
                packer=_packer(len(self.inputs), len(self.outputs)), extra_entries=("_c", "_s", "_r"),
                heavy=True, build_items=lambda m, t, e: self._build_items(m, t, e, scan=True))
            spec.recipe = functools.partial(_def_spec, self._args(), True)
        return spec

    def chain_module(self) -> tuple:
        """(cache key, ``make``) of the single-pass GPU scan's module
        (``compiler/reduction_chain.py``), as ``load_full_module`` takes them."""
        found = self._chain
        if found is None:
            found = self._chain = (self.key + ("chained", CHAIN_VERSION, CHAIN_STEPS, CHAIN_BLOCKS),
                                   functools.partial(_chain_parts, self._args()))
        return found

    def _build_chain(self, module, target, entry) -> None:
        build_chained_scan(target, entry, module, [d for _, d in self.inputs], [d for _, _, d in self.fields],
                           [d for _, d in self.outputs], *self._scalar_functions(module, target, entry))

    def _scalar_functions(self, module, target, entry) -> tuple:
        """Add the scalar functions ``entry + "_identity"``, ``"_map"``, ``"_reduce"`` and
        ``"_post"`` to ``module``; return them."""
        def fn(suffix, params, body):
            return compile_scalar_function(module, f"{entry}_{suffix}", params, body,
                                           preamble=self.preamble, typedefs=self.typedefs,
                                           target=target, kernel_name=self.name)

        a_side = [(a, d, "out") for a, _, d in self.fields]
        identity = fn("identity", a_side, self.identity)
        mapped = fn("map", [(n, d, "in") for n, d in self.inputs] + a_side, self.map)
        reduce = fn("reduce", [(a, d, "inout") for a, _, d in self.fields]
                    + [(b, d, "in") for _, b, d in self.fields], self.reduce)
        post = fn("post", [(a, d, "in") for a, _, d in self.fields]
                  + [(n, d, "out") for n, d in self.outputs], self.post)
        return identity, mapped, reduce, post

    def _build_items(self, module, target, entry, scan: bool = False) -> list:
        """The interpreter tier's items of every entry (``KernelSpec.build_items``)."""
        n_in, n_outs = len(self.inputs), len(self.outputs)
        wrappers = record_wrappers(module, entry, [d for _, _, d in self.fields], n_in, n_outs,
                                   *self._scalar_functions(module, target, entry))
        if wrappers is None:
            raise NotInterpretable("an accumulator record larger than the interpreter keeps")
        items, names = item_functions(target, n_in, n_outs)
        subs = {names[call]: fn for call, fn in wrappers.items()}
        made = [(items[0], subs, _packer(n_in, n_outs)), (items[1], subs, _packer(1, n_outs))]
        if scan:
            made += [(items[2], subs, _scan_packer(1, 1)), (items[3], subs, _scan_packer(1, 1))]
        return made

    def _build(self, module, target, entry, scan: bool = False, template: bool = True) -> "str | None":
        """Add the kernel to ``module``; for a quick tier (unless not ``template``) return
        the whole module's text, its entries from the text template (``quick_tier_text``)."""
        identity, mapped, reduce, post = self._scalar_functions(module, target, entry)
        if target.simple_loops and template:  # quick tiers: the entries are a text template
            return quick_tier_text(target, entry, module, len(self.inputs), [d for _, _, d in self.fields],
                                   len(self.outputs), scan)
        args = (target, entry, module, [d for _, d in self.inputs], [d for _, _, d in self.fields],
                [d for _, d in self.outputs], identity, mapped, reduce, post)
        if scan:
            build_scan(*args)
        else:
            build_reduction(*args, simd=self.simd)
        return None


def _check_inputs(name: str, arrays) -> tuple:
    device = None
    for x in arrays:
        if not isinstance(x, Array):
            raise TypeError(f"{name}: expected rocarray arrays, got {type(x).__name__}")
        if device is None:
            device = x.device
        elif x.device != device:
            raise TypeError(f"{name}: arrays on different devices ({device} and {x.device}); "
                            "move them with .to_device()")
    return device, broadcast_shapes(*[x.shape for x in arrays])


#: Launch plans of recent layouts: (def, axis, keepdims, input layouts) -> _Plan.  A warm
#: call of a known layout allocates its outputs, fills in the pointers and launches.
_plans: dict = {}
_PLANS_MAX = 1024


def reduce(rdef: ReductionDef, arrays, axis=None, keepdims: bool = False, outs=None, *,
           plan_alias=None) -> list:
    """Run ``rdef`` over ``axis`` of the broadcast ``arrays``; return its output arrays.

    ``outs``: arrays to write into (shape and dtype must match the result exactly).
    ``plan_alias``: a further key under which the launch plan is kept (a caller's own
    cheaper key for the same call, looked up before it comes here)."""
    if outs is None:
        try:
            key = (rdef, axis, keepdims, tuple((x._shape, x._strides, x._dtype, x._buf.device) for x in arrays))
            plan = _plans.get(key)
        except (AttributeError, TypeError):  # not arrays, or an unhashable axis: the slow path says
            plan = key = None
        if plan is not None and not (plan.simple and not plan.kernel.code.simple_loops):
            if plan_alias is not None:
                _plans[plan_alias] = plan
            return plan.run(arrays)
    else:
        key = None
    name = rdef.name
    if len(arrays) != len(rdef.inputs):
        raise TypeError(f"{name}: takes {len(rdef.inputs)} input arrays ({len(arrays)} given)")
    device, shape = _check_inputs(name, arrays)
    ndim = len(shape)
    axes = normalize_axes(axis, ndim, name)
    kept = [d for d in range(ndim) if d not in axes]
    kept_shape = tuple(shape[d] for d in kept)
    red_shape = tuple(shape[d] for d in axes)
    out_shape = tuple(1 if d in axes else shape[d] for d in range(ndim)) if keepdims else kept_shape
    if any(x.dtype != d for x, (_, d) in zip(arrays, rdef.inputs)):
        arrays = [x if x.dtype == d else _cast(x, d) for x, (_, d) in zip(arrays, rdef.inputs)]
        key = None  # the casts are new arrays each call
    if outs is None:
        outs = [Array._empty(out_shape, d, device) for _, d in rdef.outputs]
    else:
        outs = list(outs)
        if len(outs) != len(rdef.outputs):
            raise TypeError(f"{name}: expected {len(rdef.outputs)} output arrays, got {len(outs)}")
        for o, (oname, d) in zip(outs, rdef.outputs):
            if not isinstance(o, Array) or o.device != device:
                raise TypeError(f"{name}: output '{oname}' must be a rocarray array on {device}")
            if o.shape != out_shape or o.dtype != d:
                raise ValueError(f"{name}: output '{oname}' must have shape {out_shape} and dtype {d}, "
                                 f"got {o.shape} and {o.dtype}")
    n_out = _prod(kept_shape)
    if n_out == 0:
        return outs
    n_red = _prod(red_shape)
    strides = [broadcast_strides(shape, x.shape, x.strides) for x in arrays]
    in_k = [tuple(s[d] for d in kept) for s in strides]
    in_r = [tuple(s[d] for d in axes) for s in strides]
    out_k = [o.strides if not keepdims else tuple(s for d, s in enumerate(o.strides) if d not in axes)
             for o in outs]
    shape_k, merged_k = merge_dims(kept_shape, in_k + out_k)
    shape_r, merged_r = merge_dims(red_shape, in_r) if n_red else ((0,), [(0,)] * len(arrays))
    if len(shape_k) > MAX_DIMS or len(shape_r) > MAX_DIMS:
        # lay every input out as (kept..., reduced...) contiguously: two merged dims
        order = tuple(kept) + tuple(axes)
        arrays = [contiguous(permute_dims(broadcast_to(x, shape), order)) for x in arrays]
        nk = len(kept)
        shape_k, merged_k = merge_dims(kept_shape, [x.strides[:nk] for x in arrays] + out_k)
        shape_r, merged_r = merge_dims(red_shape, [x.strides[nk:] for x in arrays]) if n_red \
            else ((0,), [(0,)] * len(arrays))
        key = None
    n_in = len(arrays)
    kernel = load(rdef.spec(), device)
    kernel.fit(n_out * max(n_red, 1))
    plan = _Plan(kernel, rdef, device, out_shape, shape_k, shape_r, n_red,
                 [(merged_k[k], merged_r[k]) for k in range(n_in)], merged_k[n_in:])
    if key is not None:
        if len(_plans) >= _PLANS_MAX:
            _plans.clear()
        _plans[key] = plan
        if plan_alias is not None:
            _plans[plan_alias] = plan
    return plan.run(arrays, outs)


class _Plan:
    """The launches of one reduction layout.  Each pass is (entry index, packer, parameter
    values with the pointers left to fill, the slots of those pointers, records bytes,
    items, GPU grid, elements of work)."""

    __slots__ = ("kernel", "device", "out_shape", "out_dtypes", "passes", "simple")

    def __init__(self, kernel, rdef, device, out_shape, shape_k, shape_r, n_red, in_strides, out_strides):
        self.kernel = kernel
        # planned for code of simple loops: re-planned once the kernel's code has none
        self.simple = simple = kernel.code.simple_loops
        self.device = device
        self.out_shape = out_shape
        self.out_dtypes = [d for _, d in rdef.outputs]
        n_out = _prod(shape_k)
        _, rec_size = record_layout([d for _, _, d in rdef.fields])
        n_outs = len(out_strides)
        outputs = [(0, sk) for sk in out_strides]
        inputs = [(0, sk, sr) for sk, sr in in_strides]
        # pointer sources: 0..n_in-1 inputs, then outputs, then -1 - k: records buffer k
        sources = list(range(len(inputs)))
        out_src = list(range(len(inputs), len(inputs) + n_outs))
        self.passes = []
        entry = 0
        work = n_out * max(n_red, 1)
        # the GPU tiled mode loads whole vectors across adjacent outputs: each input's
        # outputs must be adjacent elements (the kernel checks the alignment)
        tile = gpu_tile_width([d for _, d in rdef.inputs]) if kernel.is_gpu else 1
        if len(shape_k) != 1 or any(sk[0] != d.itemsize for (_, sk, _), (_, d) in zip(inputs, rdef.inputs)):
            tile = 1
        while True:
            mode, n_chunks, chunk_len, items, grid = _choose(kernel, shape_k, shape_r, n_red, inputs, entry, simple,
                                                             rdef.exact, tile if entry == 0 else 1)
            rec_bytes = 0
            if n_chunks > 1:
                mode |= MODE_RECORDS
                rec_bytes = n_chunks * n_out * rec_size
            values = _values(mode, n_out, n_chunks, chunk_len, shape_k, shape_r, n_red, inputs, outputs, 0)
            slots = []
            pos = 4 + 2 * (1 + MAX_DIMS) + 1  # after mode..chunk_len, the shapes and n_red
            for src in sources:
                slots.append((pos, src))
                pos += 1 + 2 * MAX_DIMS
            for src in out_src:
                slots.append((pos, src))
                pos += 1 + MAX_DIMS
            if rec_bytes:
                slots.append((pos, -1 - len(self.passes)))
            packer = kernel.packer if entry == 0 else _packer(1, n_outs)
            self.passes.append((entry, packer, values, slots, rec_bytes, items, grid, work))
            if n_chunks == 1:
                return
            # the next pass reduces the records [chunk, output] over the chunks
            entry = 1
            sources = [-1 - (len(self.passes) - 1)]
            inputs = [(0, _c_strides(shape_k, rec_size), (n_out * rec_size,))]
            shape_r = (n_chunks,)
            n_red = n_chunks

    def run(self, arrays, outs=None) -> list:
        device = self.device
        if outs is None:
            outs = [Array._empty(self.out_shape, d, device) for d in self.out_dtypes]
        ptrs = [x._buf.ptr + x._offset for x in arrays] + [o._buf.ptr + o._offset for o in outs]
        kernel = self.kernel
        records = []
        for entry, packer, template, slots, rec_bytes, items, grid, work in self.passes:
            if rec_bytes:
                buf = Array._empty((rec_bytes,), _dtypes.uint8, device)
                records.append(buf)  # alive until the passes have been queued
            values = template.copy()
            for slot, src in slots:
                values[slot] = ptrs[src] if src >= 0 else records[-1 - src]._buf.ptr
            code = kernel.code
            code.count(kernel, work)
            code.launch_entry(kernel, entry, packer, items, values, grid, GPU_BLOCK, work)
        return outs


def _scan_packer(n_inputs: int, n_outputs: int) -> struct.Struct:
    """Packing of a scan entry's parameters."""
    return _struct_of(tuple(scan_param_types(n_inputs, n_outputs)))


def _scan_waves(kernel, shape_k, n: int, kept_strides, line_stride: int) -> bool:
    """Whether a GPU scan of lines of ``n`` elements (``line_stride`` bytes apart, the
    lines laid out over ``shape_k`` with ``kept_strides``) takes the wave mode."""
    if not GPU_WAVE_SCANS or not kernel.is_gpu or kernel.code.simple_loops:
        return False
    wave = kernel.target.wave_size
    if n < GPU_SCAN_WAVE_STEPS * wave:
        return False  # short lines: a thread each (most lanes of a wave would idle)
    # lines adjacent in memory (a scan over a leading axis): neighbouring threads of the
    # per-thread mode read neighbouring elements already
    adjacent = len(shape_k) == 1 and _prod(shape_k) >= wave and abs(kept_strides[0]) < abs(line_stride)
    return not adjacent


def _scan_chunks(kernel, n_out: int, n: int, waves: bool = False) -> int:
    """Chunks each line of ``n`` elements is cut into (one thread, wave or loop trip per
    chunk).  Wave mode: one round of the waves the device holds at once (as the
    reduction's wave mode), chunks of at least 16 wave steps."""
    if waves:
        wave = kernel.target.wave_size
        resident = kernel.runtime.resident_grid(kernel.code.functions[2], GPU_BLOCK)
        return max(1, min(-(-resident * GPU_BLOCK // wave // n_out), n // (16 * wave)))
    if kernel.is_gpu:
        threads = kernel.runtime.max_grid(kernel.index, GPU_BLOCK) * GPU_BLOCK
        return max(1, min(-(-threads // n_out), n // 256))
    threads = getattr(kernel.runtime, "_threads", 1)
    return 1 if n_out >= threads or n < (1 << 18) else min(8 * threads, n // 4096)


def _scan_values(mode, n_out, n_chunks, chunk, shape_k, n, src, dst, records, include_initial):
    """Parameters of a scan entry; ``src``/``dst`` are (pointer, kept strides, axis stride)."""
    vals = [mode, n_out, n_chunks, chunk, len(shape_k), *pad_dims(shape_k, 1), 1, *pad_dims((n,), 1), n]
    for ptr, sk, sr in (src, dst):
        vals += [ptr, *pad_dims(sk, 0), *pad_dims((sr,), 0)]
    return vals + [records, 1 if include_initial else 0]


#: Launch plans of recent scan layouts: (def, axis, include_initial, input layout) -> _ScanPlan
#: (and the callers' own keys of the same calls).  A warm call of a known layout allocates
#: the output and one scratch buffer, fills in the pointers and launches.
_scan_plans: dict = {}


def scan(rdef: ReductionDef, x: Array, axis: int, include_initial: bool = False, *, plan_alias=None) -> Array:
    """The inclusive scan of ``rdef`` (one input, one output) along ``axis`` of ``x``;
    with ``include_initial`` the result starts with ``post(identity)`` (one longer).

    Each line is cut into chunks worked in parallel: a reduction pass writes each chunk's
    total, those totals are scanned (the same way, recursively), and each chunk's scan
    starts from the total before it.  The launches of a layout are planned once
    (``_ScanPlan``); ``plan_alias`` is a further key for that plan (a caller's cheaper key
    of the same call, looked up before it comes here)."""
    try:
        key = (rdef, axis, include_initial, x._shape, x._strides, x._dtype, x._buf.device)
        plan = _scan_plans.get(key)
    except (AttributeError, TypeError):  # not an array: the checks below say
        plan = key = None
    if plan is not None and plan.code is plan.kernel.code:
        if plan_alias is not None:
            _scan_plans[plan_alias] = plan
        return plan.run(x)
    (_, in_dt), = rdef.inputs
    (_, out_dt), = rdef.outputs
    if x.dtype != in_dt:
        x = _cast(x, in_dt)
        key = None  # the cast is a new array each call
    device = x.device
    n = x.shape[axis]
    out_shape = tuple(d + (1 if include_initial and k == axis else 0) for k, d in enumerate(x.shape))
    out_strides = _c_strides(out_shape, out_dt.itemsize)
    kept = [d for d in range(x.ndim) if d != axis]
    kept_shape = tuple(x.shape[d] for d in kept)
    if _prod(out_shape) == 0:
        return Array._empty(out_shape, out_dt, device)
    shape_k, (sk_in, sk_out) = merge_dims(kept_shape, [tuple(x.strides[d] for d in kept),
                                                       tuple(out_strides[d] for d in kept)])
    if len(shape_k) > MAX_DIMS:
        x = contiguous(x)
        key = None  # the copy is a new array each call
        shape_k, (sk_in, sk_out) = merge_dims(kept_shape, [tuple(x.strides[d] for d in kept),
                                                           tuple(out_strides[d] for d in kept)])
    kernel = load(rdef.scan_spec(), device)
    plan = _ScanPlan(kernel, device, rdef, axis, n, out_shape, shape_k, sk_in, sk_out, x.strides[axis],
                     out_strides[axis], include_initial)
    if key is not None:
        if len(_scan_plans) >= _PLANS_MAX:
            _scan_plans.clear()
        _scan_plans[key] = plan
        if plan_alias is not None:
            _scan_plans[plan_alias] = plan
    return plan.run(x)


class _Ptr:
    """A pointer of a planned launch: ``offset`` bytes into the input (0), the output (1)
    or the plan's scratch buffer of chunk totals (2), filled in at each run."""

    __slots__ = ("source", "offset")

    def __init__(self, source: int, offset: int = 0):
        self.source, self.offset = source, offset


class _ScanPlan:
    """The launches of one scan layout, planned for the kernel's code in place (a tier-up
    re-plans): each is (entry, packer, items, parameter values with the pointers left to
    fill, the (slot, source, offset) of those pointers, GPU grid, elements of work).  A run
    allocates the output and one scratch buffer for every level's chunk totals."""

    __slots__ = ("kernel", "code", "device", "out_shape", "out_dtype", "work", "scratch", "launches",
                 "exclusive_view", "chain", "chained")

    def __init__(self, kernel, device, rdef, axis, n, out_shape, shape_k, sk_in, sk_out, in_stride, out_stride,
                 include_initial):
        (_, in_dt), = rdef.inputs
        (_, self.out_dtype), = rdef.outputs
        self.kernel = kernel
        self.device = device
        self.out_shape = out_shape
        #: ``ra.scan``'s exclusive result: this (inclusive, identity in front) less its last position
        self.exclusive_view = tuple(slice(None, -1) if d == axis else slice(None) for d in range(len(out_shape)))
        n_out = _prod(shape_k)
        self.work = work = n_out * max(n, 1)
        kernel.fit(work)
        self.code = kernel.code  # (after ``fit``, which may replace it)
        _, rec_size = record_layout([d for _, _, d in rdef.fields])
        self.scratch = 0
        self.launches = []
        src = (_Ptr(0), sk_in, in_stride)
        waves = _scan_waves(kernel, shape_k, n, sk_in, in_stride)
        n_chunks, chunk = (1, n) if _one_pass(kernel, rdef, in_dt, self.out_dtype) else \
            _scan_cut(kernel, n_out, n, waves)
        totals, unscanned = self._chunk_totals(0, kernel.packer, (n_out, n_chunks, chunk, n), shape_k,
                                               (src[0], sk_in, (in_stride,)), [(0, sk_out)], work, waves, rec_size,
                                               len(rdef.outputs))
        dst = (_Ptr(1), sk_out, out_stride)
        values = _scan_values(_scan_mode(unscanned, waves), n_out, n_chunks, chunk, shape_k, n, src, dst, totals,
                              include_initial)
        self._launch(2, _scan_packer(1, 1), n_out * n_chunks, values, work, waves)
        #: a single pass's module to wait for: (its key, ``make``, line length, width of a
        #: lane's step, record size, shift of the output), while it compiles; then the
        #: single pass's launch (``_plan_chained``), which replaces the passes
        self.chain = self.chained = None
        if _chains(device, n_out, in_dt, self.out_dtype, in_stride, out_stride):
            key, make = rdef.chain_module()
            if n < CHAIN_MIN:
                # compiled now, in the background, so that a longer line later compiles nothing
                full_module_when_ready(key, device, make)
            else:
                size = max(in_dt.itemsize, self.out_dtype.itemsize)
                self.chain = (key, make, n, min(VECTOR_ELEMENTS, VECTOR_BYTES // size), rec_size,
                              int(include_initial))
                self._plan_chained()

    def _plan_chained(self) -> None:
        """Plan the single pass if its module is loaded (else start its compile)."""
        key, make, n, width, rec_size, shift = self.chain
        ck = full_module_when_ready(key, self.device, make)
        if ck is None:
            return
        self.chain = None
        tiles = -(-n // chain_tile(width))
        grid = min(tiles, ck.runtime.resident_grid(ck.code.functions[0], CHAIN_BLOCK))
        # the tiles' status: a 64-bit word for each 32 bits of a record
        words = tiles * -(-rec_size // 4)
        self.chained = (ck, tiles, grid, words, n, shift, shift * self.out_dtype.itemsize)

    def _run_chained(self, x: Array) -> Array:
        ck, tiles, grid, words, n, shift, lead = self.chained
        out = Array._empty(self.out_shape, self.out_dtype, self.device)
        src, dst = x._buf.ptr + x._offset, out._buf.ptr
        values = [n, src, dst, 0, 0, shift, int(src % 16 == 0), int((dst + lead) % 16 == 0), 0, 0]
        ck.code.count(ck, self.work)

        def zero(address, count):  # (the module's second entry)
            values[3] = address
            ck.code.launch_entry(ck, 1, _CHAIN_PACKER, count, values, min(-(-count // 256), 1024), 256, count)

        def launch(counter, status, base, tag):
            values[3:5] = counter, status
            values[8:10] = base, tag
            ck.code.launch_entry(ck, 0, _CHAIN_PACKER, tiles, values, grid, CHAIN_BLOCK, self.work)

        # the stream's counter and status words, kept from its last scan (no zeroing launch)
        chain_status(self.device).scan(self.device, words, tiles + grid, zero, launch)
        return out

    def run(self, x: Array) -> Array:
        if self.chain is not None:
            self._plan_chained()
        if self.chained is not None:
            return self._run_chained(x)
        kernel = self.kernel
        code = self.code
        device = self.device
        out = Array._empty(self.out_shape, self.out_dtype, device)
        # (the scratch buffer is freed after the launches are queued: stream-ordered reuse)
        scratch = allocate(device, self.scratch) if self.scratch else None
        bases = (x._buf.ptr + x._offset, out._buf.ptr, scratch.ptr if scratch is not None else 0)
        code.count(kernel, self.work)  # (one call: the scan's launches count once)
        for entry, packer, items, template, slots, grid, work in self.launches:
            values = template.copy()
            for slot, source, offset in slots:
                values[slot] = bases[source] + offset
            code.launch_entry(kernel, entry, packer, items, values, grid, GPU_BLOCK, work)
        return out

    def _scratch(self, nbytes: int) -> _Ptr:
        """``nbytes`` of the scratch buffer (each part aligned for any record)."""
        ptr = _Ptr(2, self.scratch)
        self.scratch += -(-nbytes // 256) * 256
        return ptr

    def _launch(self, entry: int, packer, items, values, work, waves: bool = False) -> None:
        """Plan a launch of entry ``entry`` of the scan's module over ``items``."""
        kernel = self.kernel
        code = self.code
        rt = kernel.runtime
        if waves:  # a wave per item, at most GPU_WAVE_ROUNDS rounds of resident blocks (compiled code only)
            grid = min(-(-items * kernel.target.wave_size // GPU_BLOCK),
                       GPU_WAVE_ROUNDS * rt.resident_grid(code.functions[entry], GPU_BLOCK))
        else:  # a thread per item, at most four rounds of resident blocks (the host: one call)
            grid = min(-(-items // GPU_BLOCK), 4 * rt.max_grid(kernel.index, GPU_BLOCK)) if kernel.is_gpu else 0
        slots = [(k, v.source, v.offset) for k, v in enumerate(values) if isinstance(v, _Ptr)]
        template = [0 if isinstance(v, _Ptr) else v for v in values]
        self.launches.append((entry, packer, items, template, tuple(slots), grid, work))

    def _chunk_totals(self, entry: int, packer, cut, shape_k, src, outs, work, waves: bool, rec_size: int,
                      n_outs: int):
        """(The pointer to each chunk's total as records ``[chunk, output]``, scanned in
        place -- the carry into each chunk -- or left unscanned for few chunks; the mode bit
        saying which), or (0, 0) when the lines are one chunk each.  ``cut`` is (outputs,
        chunks, chunk length, line length); entry ``entry`` folds ``src``."""
        n_out, n_chunks, chunk, n = cut
        if n_chunks <= 1:
            return 0, 0
        groups = self._groups(entry, n_out, n_chunks) if waves and n_chunks > SCAN_UNSCANNED_MOST else 0
        totals = self._scratch((n_chunks * n_out + groups) * rec_size)
        mode = MODE_RECORDS | (MODE_GROUPS if groups else 0)
        values = _values(_scan_mode(mode, waves), n_out, n_chunks, chunk, shape_k, (n,), n, [src], outs, totals)
        self._launch(entry, packer, n_out * n_chunks, values, work, waves)
        if n_chunks <= SCAN_UNSCANNED_MOST:
            return totals, MODE_UNSCANNED
        if groups:
            return totals, MODE_UNSCANNED | MODE_GROUPS
        self._scan_records(totals, n_chunks, n_out, shape_k, rec_size, n_outs)
        return totals, 0

    def _groups(self, entry: int, n_out: int, n_chunks: int) -> int:
        """Group records (``MODE_GROUPS``) the wave-mode totals of entry ``entry`` can
        write, or 0: one line, one chunk per wave (one round), and a fold of at most
        ``SCAN_GROUPED_MOST`` records per wave in the scan."""
        kernel = self.kernel
        size = GPU_BLOCK // kernel.target.wave_size
        blocks = -(-n_chunks // size)
        if n_out != 1 or blocks > GPU_WAVE_ROUNDS * kernel.runtime.resident_grid(self.code.functions[entry], GPU_BLOCK):
            return 0
        return blocks if blocks + size <= SCAN_GROUPED_MOST else 0

    def _scan_records(self, ptr, m, n_out, shape_k, rec_size, n_outs) -> None:
        """Scan, in place, the records ``[m, output]`` at ``ptr`` along their first axis."""
        kernel = self.kernel
        rec_k = _c_strides(shape_k, rec_size)
        line = (ptr, rec_k, n_out * rec_size)
        waves = _scan_waves(kernel, shape_k, m, rec_k, line[2])
        m_chunks, chunk = _scan_cut(kernel, n_out, m, waves)
        totals, unscanned = self._chunk_totals(1, _packer(1, n_outs), (n_out, m_chunks, chunk, m), shape_k,
                                               (ptr, rec_k, (line[2],)), [(0, rec_k)] * n_outs, n_out * m, waves,
                                               rec_size, n_outs)
        values = _scan_values(_scan_mode(unscanned, waves), n_out, m_chunks, chunk, shape_k, m, line, line, totals, False)
        self._launch(3, _scan_packer(1, 1), n_out * m_chunks, values, n_out * m, waves)


def _one_pass(kernel, rdef: ReductionDef, in_dt, out_dt) -> bool:
    """Whether a host scan of ``rdef`` runs each line in one pass (``HOST_ONE_PASS_BYTES``)."""
    return (not kernel.is_gpu and rdef.simd in ("add", "max", "min")
            and all(d.kind in "biu" for _, _, d in rdef.fields)
            and in_dt.itemsize + out_dt.itemsize >= HOST_ONE_PASS_BYTES)


def _chains(device, n_out: int, in_dt, out_dt, in_stride: int, out_stride: int) -> bool:
    """Whether a scan on ``device`` takes the single pass once its line is ``CHAIN_MIN``
    long: on a GPU (whatever tier runs this call), one contiguous line of real or integer
    elements of at most 8 bytes (16 bytes of them are a thread's vector)."""
    return (device.kind != "cpu" and n_out == 1
            and in_stride == in_dt.itemsize and out_stride == out_dt.itemsize and in_dt.kind in "biuf"
            and out_dt.kind in "biuf" and max(in_dt.itemsize, out_dt.itemsize) <= 8)


def _scan_mode(mode: int, waves: bool) -> int:
    return mode | MODE_WAVE if waves else mode


def _scan_cut(kernel, n_out: int, n: int, waves: bool) -> tuple[int, int]:
    """(chunks, chunk length) of lines of ``n`` elements; in wave mode every chunk but
    the last is whole vector trips of the wave scan (each starts on an element that a
    vector trip of an aligned line starts on)."""
    n_chunks = _scan_chunks(kernel, n_out, n, waves)
    chunk = -(-n // n_chunks) if n else 0
    if waves and n_chunks > 1:
        quantum = kernel.target.wave_size * SCAN_UNROLL * VECTOR_ELEMENTS
        chunk = -(-chunk // quantum) * quantum
        n_chunks = -(-n // chunk)
    return n_chunks, chunk


def _cast(x: Array, dtype) -> Array:
    return astype(x, dtype)


def _values(mode, n_out, n_chunks, chunk_len, shape_k, shape_r, n_red, inputs, outputs, records):
    vals = [mode, n_out, n_chunks, chunk_len, len(shape_k), *pad_dims(shape_k, 1),
            len(shape_r), *pad_dims(shape_r, 1), n_red]
    for ptr, sk, sr in inputs:
        vals += [ptr, *pad_dims(sk, 0), *pad_dims(sr, 0)]
    for ptr, sk in outputs:
        vals += [ptr, *pad_dims(sk, 0)]
    vals.append(records)
    return vals


def _c_strides(shape, itemsize) -> tuple:
    out, s = [], itemsize
    for n in reversed(shape):
        out.append(s)
        s *= n
    return tuple(reversed(out))


def _choose(kernel, shape_k, shape_r, n_red, inputs, source, simple=False, exact=False, tile=1):
    """(mode, n_chunks, chunk_len, items, GPU grid) for one pass (``source`` 1: a pass
    over records, which has no tiled mode; ``simple``: quick-tier code, which has only
    the per-thread mode; ``tile``: outputs per item of the GPU tiled mode, 1 for none)."""
    n_out = _prod(shape_k)
    # the outputs are adjacent in memory and the reduced run is not: a leading-axis reduction
    leading = (len(shape_k) == 1 and len(shape_r) == 1 and n_out > 1 and n_red > 1
               and max(abs(sk[0]) for _, sk, _ in inputs) < min(abs(sr[0]) for _, _, sr in inputs))
    if simple:
        n_chunks = max(1, -(-n_red // SIMPLE_CHUNK))
        if kernel.is_gpu:
            max_grid = kernel.runtime.max_grid(kernel.index, GPU_BLOCK)
            threads = max_grid * GPU_BLOCK
            n_chunks = max(n_chunks, min(-(-threads // n_out), n_red // 64))
        chunk = -(-n_red // n_chunks) if n_red else 0
        items = n_out * n_chunks
        grid = min(-(-items // GPU_BLOCK), 4 * max_grid) if kernel.is_gpu else 0
        return 0, n_chunks, chunk, items, grid
    if not kernel.is_gpu:
        if leading and n_out >= TILE // 2 and source == 0:
            tiles = -(-n_out // TILE)
            n_chunks = 1
            threads = getattr(kernel.runtime, "_threads", 1)
            if tiles < threads and n_red > 2 * HOST_CHUNK:  # chunks only to give threads work
                n_chunks = min(-(-n_red // HOST_CHUNK), 2 * threads)
            chunk = -(-n_red // n_chunks) if n_red else 0
            return MODE_TILE, n_chunks, chunk, tiles * n_chunks, 0
        if exact:
            # no rounding to keep in check: chunks only to give every thread work, a few
            # each, so that a thread on a busy core takes fewer (``HostRuntime._parallel``)
            threads = getattr(kernel.runtime, "_threads", 1)
            n_chunks = 1 if n_out >= threads else max(1, min(PIECES_PER_THREAD * threads, n_red // (1 << 16)))
        else:
            n_chunks = max(1, -(-n_red // HOST_CHUNK))
        chunk = -(-n_red // n_chunks) if n_red else 0
        return 0, n_chunks, chunk, n_out * n_chunks, 0
    max_grid = kernel.runtime.max_grid(kernel.index, GPU_BLOCK)
    if leading and tile > 1 and n_out >= GPU_BLOCK * tile and n_red >= 64:
        # one thread per (group of ``tile`` adjacent outputs, chunk of rows), vector loads;
        # threads for half a round of resident blocks: fewer, longer chunks measured faster
        # than a whole round or more (benchmarks/results/history/benchmarks.md)
        resident = kernel.runtime.resident_grid(kernel.code.functions[0], GPU_BLOCK)
        threads = max(1, resident // 2) * GPU_BLOCK
        n_groups = -(-n_out // tile)
        n_chunks = max(1, min(-(-threads // n_groups), n_red // 64))
        chunk = -(-n_red // n_chunks)
        n_chunks = -(-n_red // chunk)
        items = n_groups * n_chunks
        return MODE_TILE, n_chunks, chunk, items, min(-(-items // GPU_BLOCK), resident)
    if leading or n_red < 64:
        # one thread per (output, chunk); enough threads to fill the device
        threads = max_grid * GPU_BLOCK
        n_chunks = max(1, min(-(-threads // n_out), n_red // 64))
        chunk = -(-n_red // n_chunks) if n_red else 0
        items = n_out * n_chunks
        return 0, n_chunks, chunk, items, min(-(-items // GPU_BLOCK), 4 * max_grid)
    if GPU_WAVE_ITEMS:
        # one wave per (output, chunk): no barrier; a few outputs are split into as many
        # chunks as the device holds waves of this entry at once (one round: a second,
        # partly filled round of waves costs more than the longer chunks)
        wave = kernel.target.wave_size
        resident = kernel.runtime.resident_grid(kernel.code.functions[source], GPU_BLOCK)
        waves = resident * GPU_BLOCK // wave
        quantum = wave * 16
        n_chunks = max(1, min(-(-waves // n_out), n_red // quantum))
        chunk = -(-n_red // n_chunks)
        if n_chunks > 1:
            chunk = -(-chunk // quantum) * quantum
            n_chunks = -(-n_red // chunk)
        items = n_out * n_chunks
        return MODE_WAVE, n_chunks, chunk, items, min(-(-items * wave // GPU_BLOCK), GPU_WAVE_ROUNDS * resident)
    # one block per (output, chunk); chunks of whole block-wide vector trips, so that
    # every chunk of a contiguous run starts 16-byte aligned and takes the vector path
    n_chunks = max(1, min(-(-2 * max_grid // n_out), n_red // (GPU_BLOCK * 16)))
    chunk = -(-n_red // n_chunks)
    if n_chunks > 1:
        chunk = -(-chunk // GPU_CHUNK_QUANTUM) * GPU_CHUNK_QUANTUM
        n_chunks = -(-n_red // chunk)
    items = n_out * n_chunks
    return MODE_COOP, n_chunks, chunk, items, min(items, 4 * max_grid)


# -- the catalogue's reductions ------------------------------------------------------------

_ACCEPTS = {"numeric": "biufc", "real": "biuf", "any": "biufc"}


def _per_kind(value, dtype):
    if isinstance(value, dict):
        for kinds, src in value.items():
            if dtype.kind in kinds:
                return src
        raise TypeError(f"no body for dtype {dtype}")
    return value(dtype) if callable(value) else value


class ReductionOp:
    """A reduction of the catalogue, callable as ``op(x, axis=None, keepdims=False)``."""

    def __init__(self, row):
        self.row = row
        self.__name__ = row.name
        self._defs: dict = {}
        self._by_dtype: dict = {}  # (input dtype, requested dtype) -> ReductionDef

    def __repr__(self):
        return f"<rocarray reduction {self.row.name}>"

    def dtypes(self, dtype: np.dtype, requested=None):
        """(accumulator dtype, output dtype) for input ``dtype``."""
        row = self.row
        if dtype.kind not in _ACCEPTS[row.accepts]:
            raise TypeError(f"{row.name}: dtype {dtype} is not supported (complex numbers have no order)")
        if row.acc == "bool":
            return _dtypes.bool, _dtypes.bool
        if row.acc == "index":
            return dtype, _dtypes.int64
        if requested is not None:
            out = _dtypes.as_dtype(requested)
            if dtype.kind == "c" and out.kind != "c":
                raise TypeError(f"{row.name}: cannot reduce complex {dtype} into {out}")
        elif row.acc == "sum":
            if dtype.kind in "bi":
                out = _dtypes.int64
            elif dtype.kind == "u":
                out = _dtypes.uint64
            else:
                out = dtype
        else:
            out = dtype
        acc = _dtypes.float32 if out == _dtypes.float16 else out
        return acc, out

    def definition(self, in_dt, acc_dt, out_dt) -> ReductionDef:
        key = (in_dt, acc_dt, out_dt)
        rdef = self._defs.get(key)
        if rdef is None:
            row = self.row
            fields = [(a, b, acc_dt if t == "acc" else _dtypes.as_dtype(t)) for a, b, t in row.fields]
            map_src, simd = _per_kind(row.map, in_dt), row.simd
            if out_dt == _dtypes.float16 and acc_dt != out_dt and in_dt != out_dt:
                # a float16 result (sum and prod accumulate it in float32; their one field
                # is ``a``) of another input dtype: each element cast to float16 first, as
                # ``dtype=`` asks; the SIMD recipes convert the input straight to the
                # accumulator, so none is used
                map_src, simd = "a = (out0_type)in0;", None
            rdef = ReductionDef(row.name, [("in0", in_dt)], fields,
                                _per_kind(row.identity, in_dt), map_src,
                                _per_kind(row.reduce, in_dt), [("out0", out_dt)], row.post,
                                typedefs={"acc_type": acc_dt, "in0_type": in_dt, "out0_type": out_dt},
                                simd=simd)
            rdef = self._defs.setdefault(key, rdef)
        return rdef

    def scan_definition(self, in_dt, acc_dt, out_dt, include_initial: bool) -> ReductionDef:
        """The definition a scan of ``in_dt`` folds with: ``definition``'s, but where
        folding the identity into a line's first element would change it (NumPy's running
        sums and products start from the first element itself):

        * a float or complex sum runs from ``-0.0`` (``x + -0.0`` is ``x`` for every ``x``,
          ``-0.0`` included, so a line starting with ``-0.0`` keeps its sign), and writes
          the identity in front (``include_initial``) as ``+0.0``, as NumPy does;
        * a complex product's record carries a flag "nothing folded yet" beside the
          product, so the first element is taken as it is: ``(1+0j) * (inf+0j)`` is
          ``inf+nanj`` and ``(1+0j) * (-0.0-0.0j)`` is ``0.0-0.0j``."""
        rdef = self.definition(in_dt, acc_dt, out_dt)
        name = self.row.name
        if not ((name == "sum" and acc_dt.kind in "fc") or (name == "prod" and acc_dt.kind == "c")):
            return rdef
        key = ("scan", in_dt, acc_dt, out_dt, include_initial and name == "sum")
        found = self._defs.get(key)
        if found is None:
            fields, identity, map_src, reduce_src, post = (rdef.fields, rdef.identity, rdef.map, rdef.reduce,
                                                           rdef.post)
            if name == "sum":
                identity = "a = -0.0;" if acc_dt.kind == "f" else "a = acc_type(-0.0, -0.0);"
                if include_initial:
                    post = "if (i == 0) { out0 = 0; } else { out0 = a; }"
            else:
                fields = fields + (("e", "f", _dtypes.bool),)
                identity = "a = 1; e = true;"
                map_src = map_src + " e = false;"
                reduce_src = "a = e ? b : (f ? a : a * b); e = e & f;"
            found = ReductionDef(rdef.name, rdef.inputs, fields, identity, map_src, reduce_src, rdef.outputs,
                                 post, typedefs=rdef.typedefs)
            found = self._defs.setdefault(key, found)
        return found

    def __call__(self, x, /, *, axis=None, keepdims=False, dtype=None):
        # the warm path: a layout seen before goes straight to its launch plan
        try:
            op_key = (self, dtype, axis, keepdims, x._shape, x._strides, x._dtype, x._buf.device)
            plan = _plans.get(op_key)
        except (AttributeError, TypeError):  # not an array, or an unhashable axis
            plan = op_key = None
        if plan is not None and not (plan.simple and not plan.kernel.code.simple_loops):
            return plan.run((x,))[0]
        row = self.row
        if not isinstance(x, Array):
            raise TypeError(f"{row.name}: expected a rocarray array, got {type(x).__name__}")
        rdef = self._by_dtype.get((x._dtype, dtype))
        if rdef is None:
            acc_dt, out_dt = self.dtypes(x.dtype, dtype)
            rdef = self._by_dtype[(x._dtype, dtype)] = self.definition(x.dtype, acc_dt, out_dt)
        if row.empty_error and x.size == 0:
            axes = normalize_axes(axis, x.ndim, row.name)
            if any(x.shape[d] == 0 for d in axes) and \
                    _prod(tuple(x.shape[d] for d in range(x.ndim) if d not in axes)) != 0:
                raise ValueError(f"{row.name}: zero-size reduction (axes {axes} of shape {x.shape}) "
                                 "has no identity")
        if row.acc == "index" and axis is not None and not isinstance(axis, int):
            raise TypeError(f"{row.name}: axis must be an int or None, not {type(axis).__name__}")
        (out,) = reduce(rdef, [x], axis=axis, keepdims=keepdims, plan_alias=op_key)
        return out


_rows = {row.name: row for row in catalogue().reductions.REDUCTIONS}


def _reduction(name: str) -> ReductionOp:
    return ReductionOp(_rows[name])
