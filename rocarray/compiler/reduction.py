"""The generic reduction and scan skeleton: one module per (reduction, dtype signature); every
shape, axis set and strategy is chosen at run time through the entries' ``mode`` argument.

A reduction is four scalar functions in the kernel language (``identity``, ``map``,
``reduce``, ``post``) over an accumulator record; ``ReductionBuilder`` puts them into entries
whose parts live in ``reduction_host``, ``reduction_gpu``, ``reduction_scan`` and
``reduction_quick``.  docs/architecture.md, "Reductions and scans", describes the modes.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from llvmlite import ir

from .abi import DIMS, I8, I64, PTR, dims_parameter_type, mark_dims_arguments, storage_type
from .index_ir import CountedLoop, dim_at, index_divmod, spill, unravel
from .reduction_abi import (MODE_COOP, MODE_GROUPS, MODE_RECORDS, MODE_TILE, MODE_WAVE, EntryParams, gpu_tile_width,
                            record_layout, reduction_param_types)
from .reduction_gpu import GpuReduction
from .reduction_host import HOST_LANES, HostReduction
from .reduction_ir import GPU_RECIPE_NAMES, I32, Record, RecordArray, simd_allowed
from .reduction_quick import QuickTierBuilder
from .reduction_chain import ChainBuilder
from .reduction_scan import ScanBuilder


#: Accumulators per GPU thread: few enough that the pipelined loads of argmax and float64
#: min/max fit the register budget without spilling (measured; benchmarks/results/history/benchmarks.md).
GPU_LANES = 4
#: GPU vector loops of the catalogue's max/min/argmax/argmin fold with the recipe's own
#: instructions (``GpuReduction.recipe_fold``) instead of the generic reduce.
GPU_RECIPES = True
#: GPU reduction and scan kernels keep their registers within what this many blocks of the
#: target's largest block per multiprocessor need (occupancy hides memory latency).
GPU_MIN_BLOCKS = 4


def build_reduction(target, entry: str, module: ir.Module, in_dtypes, field_dtypes, out_dtypes,
                    identity_fn, map_fn, reduce_fn, post_fn, simd=None) -> None:
    """Add the two entries of a reduction to ``module``: ``entry`` (elements through
    ``map_fn``) and ``entry + "_c"`` (records through ``reduce_fn`` only).  ``simd``: the
    name of a recipe (see ``ReductionBuilder.simd_loop``) that computes exactly what map and
    reduce do, for the host's contiguous runs."""
    b = ReductionBuilder(target, entry, module, in_dtypes, field_dtypes, out_dtypes,
                 identity_fn, map_fn, reduce_fn, post_fn, source="map")
    if simd is not None and not target.facts.emits_grid and len(in_dtypes) == 1 and \
            simd_allowed(simd, in_dtypes[0], field_dtypes[0]):
        b.simd = simd
    if simd in GPU_RECIPE_NAMES and target.facts.emits_grid and GPU_RECIPES and len(in_dtypes) == 1 and \
            in_dtypes[0] == field_dtypes[0] and in_dtypes[0].kind in "biuf":
        b.gpu_recipe = simd
    b.build()
    ReductionBuilder(target, entry + "_c", module, None, field_dtypes, out_dtypes,
             identity_fn, map_fn, reduce_fn, post_fn, source="record").build()


def build_scan(target, entry: str, module: ir.Module, in_dtypes, field_dtypes, out_dtypes,
               identity_fn, map_fn, reduce_fn, post_fn) -> None:
    """Add the entries of a scan to ``module``: ``entry`` and ``entry + "_c"`` (a reduction's
    elements and records entries, for chunk totals), ``entry + "_s"`` (the scan of the
    elements) and ``entry + "_r"`` (the scan of records, in place, for the totals).

    A scan entry works items (line, chunk) of the one scanned dimension: it starts from the
    identity folded with record ``c - 1`` of the line's inclusive-scanned chunk totals (none
    for the first chunk), then writes ``post(acc)`` after each element (shifted one place,
    after ``post(identity)``, when ``include_initial``) -- or, for ``_r``, the raw record.
    One thread per item scans serially; on GPUs ``mode`` ``MODE_WAVE`` has one wave per
    item instead (``ReductionBuilder.wave_scan``; not in the quick tier)."""
    args = (target, module, in_dtypes, field_dtypes, out_dtypes, identity_fn, map_fn, reduce_fn, post_fn)
    ReductionBuilder(target, entry, *args[1:], source="map").build()
    ReductionBuilder(target, entry + "_c", module, None, *args[3:], source="record").build()
    ReductionBuilder(target, entry + "_s", *args[1:], source="map").build_scan()
    ReductionBuilder(target, entry + "_r", module, None, *args[3:], source="record").build_scan(records_out=True)


def build_chained_scan(target, entry: str, module: ir.Module, in_dtypes, field_dtypes, out_dtypes,
                       identity_fn, map_fn, reduce_fn, post_fn) -> None:
    """Add ``entry``, the single-pass scan of one long contiguous line on a GPU
    (``compiler/reduction_chain.py``), to ``module``."""
    ReductionBuilder(target, entry, module, in_dtypes, field_dtypes, out_dtypes, identity_fn, map_fn, reduce_fn,
                     post_fn, source="map").build_chained()


def quick_tier_text(target, entry: str, module: ir.Module, n_inputs: int, field_dtypes, n_outputs: int,
                    scan: bool) -> str:
    """A quick tier's whole reduction (or scan) module as IR text: ``module``, which holds
    the scalar functions ``entry + "_identity"``, ``"_map"``, ``"_reduce"`` and ``"_post"``,
    and the entries ``build_reduction`` (``build_scan``) would add to it.  The entries are
    made once per target, kind, operand counts and accumulator record -- not per input
    dtype: they pass the inputs to the scalar functions as byte addresses -- and kept as
    text, into which only the names are put (building and printing them with llvmlite's
    ``ir`` objects costs several milliseconds a signature)."""
    # (an unsigned field is stored as the signed one of its size: one template for both)
    fields = tuple(np.dtype(f"i{d.itemsize}") if d.kind == "u" else d for d in map(np.dtype, field_dtypes))
    kernels, declarations, metadata = _quick_template(target, n_inputs, fields, n_outputs, scan)
    kernels = kernels.replace('@"' + _QUICK_PLACEHOLDER, '@"' + entry)
    own = [line for name, line in declarations if module.globals.get(name) is None]
    return "\n".join([str(module), kernels, *own, *metadata, ""])


_QUICK_PLACEHOLDER = "rk.template.reduction"
_QUICK_METADATA_BASE = 1_000_000
_QUICK_METADATA_REF = re.compile(r"!(\d+)\b")


@functools.lru_cache(maxsize=None)
def _quick_template(target, n_inputs: int, field_dtypes: tuple, n_outputs: int, scan: bool) -> tuple:
    """(the entries' definitions, [(name, text)] of the other globals they use, metadata
    lines) of a quick tier's reduction or scan module (see ``quick_tier_text``)."""
    module = ir.Module(name="template")
    module.triple = target.triple
    module.data_layout = target.data_layout
    n_fields = len(field_dtypes)
    pointers = lambda k: [PTR] * k + [I64, I64]  # noqa: E731

    def placeholder(suffix, n_pointers):
        return ir.Function(module, ir.FunctionType(ir.VoidType(), pointers(n_pointers)),
                           f"{_QUICK_PLACEHOLDER}_{suffix}")

    fns = (placeholder("identity", n_fields), placeholder("map", n_inputs + n_fields),
           placeholder("reduce", 2 * n_fields), placeholder("post", n_fields + n_outputs))
    in_dtypes = [np.dtype(np.uint8)] * n_inputs  # the entries address inputs in bytes
    out_dtypes = [np.dtype(np.uint8)] * n_outputs
    (build_scan if scan else build_reduction)(target, _QUICK_PLACEHOLDER, module, in_dtypes, list(field_dtypes),
                                              out_dtypes, *fns)
    renumber = lambda text: _QUICK_METADATA_REF.sub(  # noqa: E731
        lambda m: f"!{int(m[1]) + _QUICK_METADATA_BASE}", text)
    kernels, declarations = [], []
    for g in module.global_values:
        if g in fns:
            continue
        if isinstance(g, ir.Function) and not g.is_declaration:
            kernels.append(renumber(str(g)))
        else:
            declarations.append((g.name, renumber(str(g).strip())))
    metadata = [renumber(str(md).strip()) for md in module.metadata]
    return "\n".join(kernels), declarations, metadata


#: The interpreter tier's items keep a record in this many bytes (a larger record's
#: reduction is compiled first, as without the interpreter).
ITEM_RECORD_BYTES = 64
#: The calls an item makes (``item_functions``): each a placeholder for one of the
#: signature's ``record_wrappers``, with its pointer arguments (then two i64s).
ITEM_CALLS = ("identity", "map", "reduce", "post", "move", "put", "take")


@functools.lru_cache(maxsize=None)
def item_functions(target, n_inputs: int, n_outputs: int) -> tuple:
    """The interpreter tier's items of a reduction (``ReductionBuilder.build_item_function``): the
    elements entry's and the records entry's, made once per target and operand counts,
    and for one input and one output also the two scan entries' (``build_scan``).
    Records are opaque to them (``ITEM_RECORD_BYTES`` of private memory): every use of a
    record's fields is a call of a placeholder, which the bytecode compiler replaces with
    the signature's own ``record_wrappers`` (``interp.compile_items``).  Returns (the
    functions, in the module's entry order, the placeholders' names by call:
    ``ITEM_CALLS``)."""
    module = ir.Module(name="items")
    module.triple = target.triple
    module.data_layout = target.data_layout
    names = {}

    def placeholder(call, n_pointers):
        names[call] = f"{_QUICK_PLACEHOLDER}_{call}"
        return ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR] * n_pointers + [I64, I64]), names[call])

    counts = dict(identity=1, map=n_inputs + 1, reduce=2, post=1 + n_outputs, move=2, put=2, take=2)
    fns = {call: placeholder(call, counts[call]) for call in ITEM_CALLS}
    bytes_ = np.dtype(np.uint8)  # (the items address inputs and outputs in bytes)
    made = []
    for entry, ins, source, scan in (("items", [bytes_] * n_inputs, "map", None), ("items_c", None, "record", None),
                                     ("items_s", [bytes_] * n_inputs, "map", False),
                                     ("items_r", None, "record", True)):
        if scan is not None and (n_inputs, n_outputs) != (1, 1):
            break  # (scans have one input and one output)
        b = ReductionBuilder(target, entry, module, ins, [bytes_], [bytes_] * n_outputs, fns["identity"], fns["map"],
                     fns["reduce"], fns["post"], source=source)
        b.opaque = (fns["move"], fns["put"], fns["take"])
        b.words = ITEM_RECORD_BYTES // 4
        made.append(b.build_item_function() if scan is None else b.build_scan_item_function(scan))
    return tuple(made), names


def record_wrappers(module, entry: str, field_dtypes, n_inputs: int, n_outputs: int, identity_fn, map_fn,
                    reduce_fn, post_fn) -> dict:
    """A signature's functions for the calls of ``item_functions``' items (``ITEM_CALLS``):
    the scalar functions with each record's field pointers taken from its address, a
    record copy (``move(dst, src)``), a store into a records buffer (``put(records, src,
    slot)``) and a load from one (``take(records, dst, slot)``); None when the record is
    larger than ``ITEM_RECORD_BYTES``."""
    rec_type = ir.LiteralStructType([storage_type(np.dtype(d)) for d in field_dtypes])
    if record_layout(field_dtypes)[1] > ITEM_RECORD_BYTES:
        return None
    zero = ir.Constant(I32, 0)
    out = {}

    def fields(b, ptr):
        return [b.gep(ptr, [zero, ir.Constant(I32, k)], source_etype=rec_type) for k in range(len(rec_type.elements))]

    def wrapper(call, n_pointers, body):
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR] * n_pointers + [I64, I64]), f"{entry}_w_{call}")
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        body(b, list(fn.args))
        b.ret_void()
        out[call] = fn

    def copy(b, src, dst):
        for s, d, t in zip(fields(b, src), fields(b, dst), rec_type.elements):
            b.store(b.load(s, typ=t), d)

    wrapper("identity", 1, lambda b, a: b.call(identity_fn, fields(b, a[0]) + a[1:]))
    wrapper("map", n_inputs + 1,
            lambda b, a: b.call(map_fn, a[:n_inputs] + fields(b, a[n_inputs]) + a[n_inputs + 1:]))
    wrapper("reduce", 2, lambda b, a: b.call(reduce_fn, fields(b, a[0]) + fields(b, a[1]) + a[2:]))
    wrapper("post", 1 + n_outputs, lambda b, a: b.call(post_fn, fields(b, a[0]) + a[1:]))
    wrapper("move", 2, lambda b, a: copy(b, a[1], a[0]))
    wrapper("put", 2, lambda b, a: copy(b, a[1], b.gep(a[0], [a[2]], source_etype=rec_type)))
    wrapper("take", 2, lambda b, a: copy(b, b.gep(a[0], [a[2]], source_etype=rec_type), a[1]))
    return out


class ReductionBuilder(HostReduction, GpuReduction, ScanBuilder, ChainBuilder, QuickTierBuilder):
    """One entry of a reduction or scan module (its parts: the mixins' modules)."""

    def __init__(self, target, entry, module, in_dtypes, field_dtypes, out_dtypes,
                 identity_fn, map_fn, reduce_fn, post_fn, source):
        self.target = target
        self.entry = entry
        self.module = module
        self.field_dtypes = list(field_dtypes)
        self.rec_type = ir.LiteralStructType([storage_type(d) for d in field_dtypes])
        _, self.rec_size = record_layout(field_dtypes)
        self.words = (self.rec_size + 3) // 4
        self.source = source
        self.simd = None
        self.gpu_recipe = None
        self.n_inputs = 1 if source == "record" else len(in_dtypes)
        self.in_types = ([self.rec_type] if source == "record"
                         else [storage_type(d) for d in in_dtypes])
        self.in_sizes = ([self.rec_size] if source == "record" else [d.itemsize for d in in_dtypes])
        self.in_dtypes = [] if source == "record" else list(in_dtypes)
        self.out_dtypes = list(out_dtypes)
        self.identity_fn, self.map_fn, self.reduce_fn, self.post_fn = identity_fn, map_fn, reduce_fn, post_fn
        #: the interpreter's items: records are opaque, moved by calls of these (``move``,
        #: ``put``, ``take``: ``item_functions``); None elsewhere
        self.opaque = None

    # -- small pieces ---------------------------------------------------------------------

    def new_record(self, b) -> Record:
        # allocas belong in the entry block
        here = b.block
        b.position_at_start(b.function.entry_basic_block)
        rec = Record(b, self.rec_type, self.words)
        rec.whole = self.opaque is not None
        b.position_at_end(here)
        return rec

    def set_identity(self, b, rec) -> None:
        b.call(self.identity_fn, rec.fields(b) + [ir.Constant(I64, 0), ir.Constant(I64, 0)])

    def combine(self, b, acc, other) -> None:
        b.call(self.reduce_fn, acc.fields(b) + other.fields(b) + [ir.Constant(I64, 0), ir.Constant(I64, 0)])

    def fold(self, b, acc, addrs, j) -> None:
        """Fold the element (or record) at ``addrs`` with reduced index ``j`` into ``acc``."""
        self.fold_into(b, acc.fields(b), addrs, j)

    # -- the kernel -----------------------------------------------------------------------

    def entry_function(self, types):
        """Add the entry ``self.entry`` taking the parameters ``types`` (one kernel parameter
        each on GPUs; on the host ``(args, start, stop)`` with the parameters in the
        struct at ``args``); read the common head of the parameters.  Returns (builder,
        parameter values, start, stop)."""
        target = self.target
        if target.facts.emits_grid:
            # shapes and strides are read where they lie (``EntryParams.dims``), not copied
            # by every thread into local (NVPTX) or scratch (AMDGPU) memory: that copy held
            # large reductions well below the copy bandwidth (benchmarks/results/history/benchmarks.md)
            fn, b, params = self.gpu_entry(types)
            values = list(fn.args)
            self.dims = lambda k: params.dims(b, k)
            start = stop = None
        else:
            fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
            target.mark_kernel(fn)
            args_ptr, start, stop = fn.args
            b = ir.IRBuilder(fn.append_basic_block("entry"))
            st = ir.LiteralStructType(types)
            values = [b.load(b.gep(args_ptr, [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=st), typ=t)
                      for k, t in enumerate(types)]
            self.dims = lambda k: spill(b, values[k], DIMS)
        self.fn = fn
        (self.n_items, self.mode, self.n_out, self.n_chunks, self.chunk_len,
         self.ndim_k, _, self.ndim_r, _, self.n_r) = values[:10]
        self.shape_k = self.dims(6)
        return b, values, start, stop

    def build(self) -> None:
        target = self.target
        if target.simple_loops:
            self.build_quick()
            return
        b, values, start, stop = self.entry_function(reduction_param_types(self.n_inputs, len(self.out_dtypes)))
        fn = self.fn
        dims = self.dims
        self.shape_r = dims(8)
        pos = 10
        self.inputs = []  # (ptr, kept strides slot, reduced strides slot)
        for _ in range(self.n_inputs):
            self.inputs.append((values[pos], dims(pos + 1), dims(pos + 2)))
            pos += 3
        self.outputs = []
        for _ in self.out_dtypes:
            self.outputs.append((values[pos], dims(pos + 1)))
            pos += 2
        self.records = values[pos]
        self.tmp = self.new_record(b)
        if not target.facts.emits_grid:
            self.lanes = RecordArray(b, self.rec_type, HOST_LANES)

        if target.facts.emits_grid:
            self.build_gpu(b)
        elif self.source == "record":
            loop = CountedLoop(b, start, stop, "item")
            self.item(b, loop.i, coop=None, lanes=1)
            loop.close(b, b.add(loop.i, ir.Constant(I64, 1)))
            b.ret_void()
        else:
            tile_bb = fn.append_basic_block("tile")
            items_bb = fn.append_basic_block("items")
            is_tile = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_TILE)), ir.Constant(I64, 0))
            b.cbranch(is_tile, tile_bb, items_bb)
            b.position_at_end(items_bb)
            loop = CountedLoop(b, start, stop, "item")
            self.item(b, loop.i, coop=None, lanes=1)
            loop.close(b, b.add(loop.i, ir.Constant(I64, 1)))
            b.ret_void()
            b.position_at_end(tile_bb)
            self.tiles(b, start, stop)
            b.ret_void()

    def build_gpu(self, b) -> None:
        target = self.target
        fn = self.fn
        zero = ir.Constant(I64, 0)
        block = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_COOP)), zero)
        wave = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_WAVE)), zero)
        self.wave_mode = wave
        coop = b.or_(block, wave)
        tib = target.emit_thread_in_block(b)
        size = ir.Constant(I64, target.facts.wave_size)
        # in wave mode each wave works its own items: "the block" is the wave
        self.tib = b.select(wave, b.urem(tib, size), tib)
        self.bdim = b.select(wave, size, target.emit_block_size(b))
        gtid = target.emit_global_thread_id(b)
        gcount = target.emit_global_thread_count(b)
        first = b.select(block, target.emit_block_id(b), b.select(wave, b.udiv(gtid, size), gtid))
        step = b.select(block, target.emit_block_count(b), b.select(wave, b.udiv(gcount, size), gcount))
        waves = max(1, target.facts.max_block_size // target.facts.wave_size)
        shared_t = ir.ArrayType(ir.ArrayType(I32, self.words), waves)
        shared = ir.GlobalVariable(self.module, shared_t, f"{self.entry}_shared",
                                   addrspace=target.facts.shared_address_space)
        shared.linkage = "internal"
        shared.initializer = ir.Constant(shared_t, ir.Undefined)
        shared.align = 8
        self.shared = shared
        width = gpu_tile_width(self.in_dtypes) if self.source == "map" else 1
        if width > 1:
            tile_bb = fn.append_basic_block("tile")
            items_bb = fn.append_basic_block("items")
            b.cbranch(b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_TILE)), zero),
                      tile_bb, items_bb)
            b.position_at_start(tile_bb)
            tiles = CountedLoop(b, gtid, self.n_items, "tile")
            self.gpu_tile_item(b, tiles.i, width)
            tiles.close(b, b.add(tiles.i, gcount))
            b.ret_void()
            b.position_at_end(items_bb)
        loop = CountedLoop(b, first, self.n_items, "item")
        self.item(b, loop.i, coop=coop, lanes=GPU_LANES)
        loop.close(b, b.add(loop.i, step))
        self.group_total(b)
        b.ret_void()

    def group_total(self, b) -> None:
        """``MODE_GROUPS``: once the block's waves have written their chunk totals (one
        item each), its first thread folds them in order and writes the fold as record
        ``n_items + block`` (the mode is block-uniform: every thread takes the barrier)."""
        target = self.target
        fn = self.fn
        zero = ir.Constant(I64, 0)
        group_bb = fn.append_basic_block("group")
        first_bb = fn.append_basic_block("group.first")
        done_bb = fn.append_basic_block("group.done")
        b.cbranch(b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_GROUPS)), zero), group_bb, done_bb)
        b.position_at_end(group_bb)
        target.emit_barrier(b)
        b.cbranch(b.icmp_unsigned("==", target.emit_thread_in_block(b), zero), first_bb, done_bb)
        b.position_at_end(first_bb)
        size = self.block_waves(b)
        block = target.emit_block_id(b)
        lo = b.mul(block, size)
        hi = b.add(lo, size)
        hi = b.select(b.icmp_signed("<", hi, self.n_items), hi, self.n_items)
        acc = self.new_record(b)
        self.set_identity(b, acc)
        totals = CountedLoop(b, lo, hi, "group.total")
        self.load_record(b, totals.i, self.tmp)
        self.combine(b, acc, self.tmp)
        totals.close(b, b.add(totals.i, ir.Constant(I64, 1)))
        self.store_record(b, acc, b.add(self.n_items, block))
        b.branch(done_bb)
        b.position_at_end(done_bb)

    def block_waves(self, b):
        """Waves in a block (i64): the records a block's group folds (``MODE_GROUPS``)."""
        return b.udiv(self.target.emit_block_size(b), ir.Constant(I64, self.target.facts.wave_size))

    def load_record(self, b, slot, rec) -> None:
        """``rec`` = record ``slot`` of the records array."""
        if self.opaque is None:
            b.store(b.load(b.gep(self.records, [slot], source_etype=self.rec_type), typ=self.rec_type), rec.ptr)
        else:
            b.call(self.opaque[2], [self.records, rec.ptr, slot, ir.Constant(I64, 0)])

    def store_record(self, b, rec, slot) -> None:
        """Record ``slot`` of the records array = ``rec``."""
        if self.opaque is None:
            self.move_record(b, rec.ptr, b.gep(self.records, [slot], source_etype=self.rec_type))
        else:
            b.call(self.opaque[1], [self.records, rec.ptr, slot, ir.Constant(I64, 0)])

    def gpu_entry(self, types):
        """The GPU kernel ``self.entry`` taking the parameters ``types`` (shapes and strides
        by reference where the target can: ``dims_parameter_type``): (function, builder in
        its entry block, ``EntryParams``)."""
        target = self.target
        arg_types = [dims_parameter_type(target) if t == DIMS else t for t in types]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), arg_types), self.entry)
        target.mark_kernel(fn)
        mark_dims_arguments(target, fn)
        target.limit_registers(fn, GPU_MIN_BLOCKS)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        return fn, b, EntryParams(target, b, list(fn.args), types)

    # -- the GPU quick tier ---------------------------------------------------------------

    def chunk_range(self, b, c):
        """``(j_begin, j_end)``: the reduced indices of chunk ``c``."""
        j_begin = b.mul(c, self.chunk_len)
        rest = b.sub(self.n_r, j_begin)
        return j_begin, b.add(j_begin, b.select(b.icmp_signed("<", rest, self.chunk_len), rest, self.chunk_len))

    def tile_of(self, b, it, n_tiles, size):
        """``(chunk, first output, outputs in the tile, j_begin, j_end)`` of tiled item
        ``it``: tiles of ``size`` adjacent outputs (``n_tiles`` of them), tile-minor."""
        c = b.udiv(it, n_tiles)
        o0 = b.mul(b.urem(it, n_tiles), size)
        left = b.sub(self.n_out, o0)
        count = b.select(b.icmp_signed("<", left, size), left, size)
        return (c, o0, count, *self.chunk_range(b, c))

    def divmod(self, b, x, y):
        """``(x % y, x // y)`` of non-negative indices: a 32-bit divide when both fit where
        a 64-bit one is a long instruction sequence (the GPUs), else LLVM's own."""
        if self.target.facts.slow_wide_division:
            return index_divmod(b, x, y)
        return b.urem(x, y), b.udiv(x, y)

    def unravel(self, b, shape, ndim, flat, info, bases):
        return unravel(b, shape, ndim, flat, info, bases, first_dim_from_end=1,
                        narrow_division=self.target.facts.slow_wide_division)

    def item(self, b, it, coop, lanes: int) -> None:
        fn = self.fn
        o, c = self.divmod(b, it, self.n_out)
        info = [("array", p, sk) for p, sk, _ in self.inputs] + [("array", p, sk) for p, sk in self.outputs]
        bases = self.unravel(b, self.shape_k, self.ndim_k, o, info, [p for _, p, _ in info])
        in_bases, out_addrs = bases[:self.n_inputs], bases[self.n_inputs:]
        j_begin, j_end = self.chunk_range(b, c)
        if coop is None:
            j0, step = j_begin, ir.Constant(I64, 1)
        else:
            j0 = b.add(j_begin, b.select(coop, self.tib, ir.Constant(I64, 0)))
            step = b.select(coop, self.bdim, ir.Constant(I64, 1))
        if not self.target.facts.emits_grid:
            self.host_item(b, o, c, in_bases, out_addrs, j_begin, j_end)
            return
        accs = [self.new_record(b) for _ in range(lanes)]
        for acc in accs:
            self.set_identity(b, acc)

        nd_bb = fn.append_basic_block("run.nd")
        done_bb = fn.append_basic_block("run.done")
        flat_bb = fn.append_basic_block("run.flat")
        b.cbranch(b.icmp_signed("==", self.ndim_r, ir.Constant(I64, 1)), flat_bb, nd_bb)
        b.position_at_end(flat_bb)
        self.flat_run(b, accs, in_bases, j_begin, j_end, j0, step, coop)
        b.branch(done_bb)

        # several reduced dimensions: each index unravelled
        b.position_at_end(nd_bb)
        self.nd_run(b, accs[0].fields(b), in_bases, j0, j_end, step)
        b.branch(done_bb)

        b.position_at_end(done_bb)
        width = 1
        while width < lanes:
            for k in range(0, lanes, 2 * width):
                self.combine(b, accs[k], accs[k + width])
            width *= 2
        if coop is None:
            self.write(b, accs[0], o, c, out_addrs)
            return
        coop_bb = fn.append_basic_block("block.combine")
        wave_bb = fn.append_basic_block("wave.combine")
        combined_bb = fn.append_basic_block("combined")
        write_bb = fn.append_basic_block("write")
        skip_bb = fn.append_basic_block("item.end")
        b.cbranch(coop, coop_bb, write_bb)
        b.position_at_end(coop_bb)
        b.cbranch(self.wave_mode, wave_bb, fn.append_basic_block("block.tree"))
        b.position_at_end(fn.blocks[-1])
        self.block_combine(b, accs[0])
        b.branch(combined_bb)
        b.position_at_end(wave_bb)
        self.wave_combine(b, accs[0])
        b.branch(combined_bb)
        b.position_at_end(combined_bb)
        b.cbranch(b.icmp_unsigned("==", self.tib, ir.Constant(I64, 0)), write_bb, skip_bb)
        b.position_at_end(write_bb)
        self.write(b, accs[0], o, c, out_addrs)
        b.branch(skip_bb)
        b.position_at_end(skip_bb)

    def nd_run(self, b, acc_fields, in_bases, j0, j_end, step) -> None:
        """Fold reduced indices ``j0, j0 + step, ...`` below ``j_end``, each unravelled over
        the reduced dimensions (any number of them), into ``acc_fields``."""
        loop = CountedLoop(b, j0, j_end, "jn")
        info_r = [("array", p, sr) for (_, _, sr), p in zip(self.inputs, in_bases)]
        addrs = self.unravel(b, self.shape_r, self.ndim_r, loop.i, info_r, list(in_bases))
        self.fold_into(b, acc_fields, addrs, loop.i)
        loop.close(b, b.add(loop.i, step))

    def fold_into(self, b, acc_fields, addrs, j) -> None:
        tmp = self.tmp
        if self.source == "record":
            self.move_record(b, addrs[0], tmp.ptr)
        else:
            b.call(self.map_fn, list(addrs) + tmp.fields(b) + [j, self.n_r])
        b.call(self.reduce_fn, acc_fields + tmp.fields(b) + [ir.Constant(I64, 0), ir.Constant(I64, 0)])

    def flat_run(self, b, accs, in_bases, j_begin, j_end, j0, step, coop) -> None:
        """Fold a one-dimensional reduced run: interleaved lanes, then a tail; a block over a
        contiguous, aligned run first takes whole vectors per thread and trip."""
        fn = self.fn
        strides = [dim_at(b, sr, ir.Constant(I64, 0)) for _, _, sr in self.inputs]
        width = self.vector_width() if coop is not None else 1
        if width > 1:
            ok = coop
            for base, s, size in zip(in_bases, strides, self.in_sizes):
                first = b.ptrtoint(b.gep(base, [b.mul(j_begin, s)], source_etype=I8), I64)
                aligned = b.icmp_unsigned("==", b.and_(first, ir.Constant(I64, width * size - 1)),
                                          ir.Constant(I64, 0))
                ok = b.and_(ok, b.and_(aligned, b.icmp_signed("==", s, ir.Constant(I64, size))))
            if self.gpu_recipe in ("argmax", "argmin"):  # its lanes keep 32-bit indices
                ok = b.and_(ok, b.icmp_signed("<", b.sub(j_end, j_begin), ir.Constant(I64, 1 << 31)))
            vec_bb = fn.append_basic_block("run.vector")
            scalar_bb = fn.append_basic_block("run.scalar")
            join_bb = fn.append_basic_block("run.joined")
            b.cbranch(ok, vec_bb, scalar_bb)
            b.position_at_end(vec_bb)
            rest_start = self.vector_loop(b, accs, in_bases, j_begin, j_end, width)
            self.lanes_loop(b, accs, in_bases, strides, b.add(rest_start, self.tib), j_end, self.bdim, False)
            b.branch(join_bb)
            b.position_at_end(scalar_bb)
            self.lanes_loop(b, accs, in_bases, strides, j0, j_end, step, False)
            b.branch(join_bb)
            b.position_at_end(join_bb)
            return
        self.lanes_loop(b, accs, in_bases, strides, j0, j_end, step, False)

    def element_addrs(self, b, in_bases, strides, j, indexed):
        if indexed:
            return [b.gep(base, [j], source_etype=t) for base, t in zip(in_bases, self.in_types)]
        return [b.gep(base, [b.mul(j, s)], source_etype=I8) for base, s in zip(in_bases, strides)]

    def lanes_loop(self, b, accs, in_bases, strides, j0, j_end, step, indexed) -> None:
        lanes = len(accs)
        span = b.mul(step, ir.Constant(I64, lanes - 1))
        last_full = b.sub(j_end, span)
        loop = CountedLoop(b, j0, last_full, "jl")
        for k, acc in enumerate(accs):
            j = b.add(loop.i, b.mul(step, ir.Constant(I64, k)))
            self.fold(b, acc, self.element_addrs(b, in_bases, strides, j, indexed), j)
        loop.close(b, b.add(loop.i, b.mul(step, ir.Constant(I64, lanes))))
        tail = CountedLoop(b, loop.i, j_end, "jt")
        self.fold(b, accs[0], self.element_addrs(b, in_bases, strides, tail.i, indexed), tail.i)
        tail.close(b, b.add(tail.i, step))

    def write(self, b, acc, o, c, out_addrs) -> None:
        fn = self.fn
        rec_bb = fn.append_basic_block("write.record")
        post_bb = fn.append_basic_block("write.post")
        end_bb = fn.append_basic_block("write.end")
        wants_records = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_RECORDS)), ir.Constant(I64, 0))
        b.cbranch(wants_records, rec_bb, post_bb)
        b.position_at_end(rec_bb)
        self.store_record(b, acc, b.add(b.mul(c, self.n_out), o))
        b.branch(end_bb)
        b.position_at_end(post_bb)
        b.call(self.post_fn, acc.fields(b) + list(out_addrs) + [o, self.n_out])
        b.branch(end_bb)
        b.position_at_end(end_bb)

    # -- GPU: combining the block's accumulators ----------------------------------------------
