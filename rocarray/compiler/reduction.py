"""The generic reduction skeleton: one kernel per (reduction, dtype signature), every shape,
axis set and strategy chosen at run time.

A reduction is four scalar functions compiled from the kernel language (CuPy's habit):
``identity(a)`` sets the accumulator, ``map(inputs..., a, i)`` turns one element (``i`` is
its index in the reduced run, C order) into an accumulator, ``reduce(a, b)`` folds ``b`` into
``a`` and ``post(a, outputs...)`` writes the result.  The accumulator is a *record* of one
or more fields (``argmax`` carries the value and its index).

The host reorders and merges the kept and the reduced dimensions and cuts the work into
*items*: an item is one output element and one chunk of its reduced run.  The kernel's
``mode`` argument says how the items are worked:

* per thread (mode 0): one loop trip (host) or one GPU thread per item, folding its chunk
  into ``LANES`` interleaved accumulators that are combined pairwise at the end (floating
  point sums are then a tree of short serial runs, not one long serial sum);
* cooperative (``MODE_COOP``, GPU): one block per item; its threads stride over the chunk
  (coalesced when the reduced run is contiguous), then combine through wave shuffles (the
  target's wave size: 32 on NVIDIA, 64 or 32 on AMD) and one shared-memory step;
  ``MODE_WAVE``: the same with one wave per item, combined by shuffles alone (no barrier);
* tiled (``MODE_TILE``): reductions over a leading axis -- on the host an item is a tile
  of ``TILE`` adjacent outputs, and each reduced row is folded into the whole tile at once
  (the contiguous inner loop vectorises, as NumPy's row-by-row reduction does); on a GPU an
  item is ``gpu_tile_width`` adjacent outputs and one chunk of rows, each thread loading
  whole 16-byte vectors across the outputs, several rows in flight;
* records (``MODE_RECORDS``): instead of the post-mapped result, the raw accumulator of
  each item is written to a records buffer ``[chunk, output]``; the module's second entry
  (``<entry>_c``) reduces such records (its one "input" is the records buffer), so a
  reduction cut into many chunks finishes in a second pass.

Kernel parameters (see reduction_param_types): n_items, mode, n_out, n_chunks, chunk_len,
ndim_kept, shape_kept, ndim_red, shape_red, n_red, then per input (ptr, strides over the
kept dims, strides over the reduced dims), per output (ptr, strides over the kept dims),
and the records pointer.  All strides are in bytes.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from llvmlite import ir

from ..targets.base import MAX_DIMS, declare_function
from .skeletons import (DIMS, I64, I8, PTR, SIMPLE_LOOP_MAX_ELEMENTS, _dim, _divmod32, _index_divmod, _Loop, _opaque,
                        _pointer_phis, _spill, _udivrem, _unravel, declare_trap, dims_parameter_type,
                        load_parameter, mark_dims_arguments, storage_type)

MODE_COOP = 1
MODE_RECORDS = 2
MODE_TILE = 4
MODE_WAVE = 8

#: Interleaved accumulators per thread (independent chains: more loads in flight, and the
#: host's vectoriser turns eight of them into one vector operation).
HOST_LANES = 32
#: (GPU: four lanes, so the pipelined loads of argmax and float64 min/max fit the register
#: budget without spilling; measured on the H200, docs/benchmarks.md)
GPU_LANES = 4
#: GPU blocks over a contiguous run: elements per vector load (at most 16 bytes), and
#: vector loads per thread and trip.
VECTOR_BYTES = 16
VECTOR_ELEMENTS = 4
VECTOR_UNROLL = 4
#: GPU wave scans (``MODE_WAVE`` in a scan entry): wave-wide steps per trip, their loads
#: issued together (more memory requests in flight per wave).
SCAN_UNROLL = 4
#: GPU vector loops of the catalogue's max/min/argmax/argmin fold with the recipe's own
#: instructions (see ``_Builder.recipe_fold``) instead of the generic reduce.
GPU_RECIPES = True
#: GPU reduction and scan kernels keep their registers within what this many blocks of
#: the target's largest block per multiprocessor need (occupancy hides memory latency;
#: measured on the H200, docs/benchmarks.md).
GPU_MIN_BLOCKS = 4
#: Host max/min/argmax/argmin over a contiguous run: bytes of elements per trip of the
#: wide loop ahead of the ``HOST_LANES`` one (eight 64-byte vector registers of lanes,
#: independent chains; 0: none).  The 32-lane loop's NaN-keeping select is a chain of a
#: compare, a mask OR and a blend per trip; float32 max over 256K elements (in L2, one
#: thread, median of 6 interleaved runs): 15.2 us against 22.0.
HOST_WIDE_BYTES = 512
#: Host max/min: the wide loop prefetches the cache lines this many bytes ahead (0: none).
HOST_PREFETCH_BYTES = 8192
#: Host argmax/argmin: trips of the wide loop per block (a block is searched again for
#: the index only when it holds a new extreme).
HOST_BLOCK_TRIPS = 8
#: Adjacent outputs one host item folds together in tiled mode.
TILE = 1024
#: GPU tiled mode: accumulator words one thread keeps (the tile's outputs times the rows
#: it has in flight; 16 words: four float32 outputs, four rows of 16-byte loads).
GPU_TILE_WORDS = 16


def gpu_tile_width(in_dtypes) -> int:
    """Adjacent outputs per thread in the GPU tiled mode: one 16-byte vector of the widest
    input (at most ``VECTOR_ELEMENTS``); 1 (no tiled mode) for complex inputs."""
    if not in_dtypes or any(d.kind == "c" for d in in_dtypes):
        return 1
    return max(1, min(VECTOR_ELEMENTS, VECTOR_BYTES // max(d.itemsize for d in in_dtypes)))

I32 = ir.IntType(32)


def record_layout(dtypes) -> tuple[tuple[int, ...], int]:
    """Byte offsets of the fields and the record size (natural alignment, as LLVM lays out
    the literal struct on every target)."""
    offsets, pos, align = [], 0, 1
    for dt in dtypes:
        a = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize
        pos = (pos + a - 1) // a * a
        offsets.append(pos)
        pos += dt.itemsize
        align = max(align, a)
    return tuple(offsets), (pos + align - 1) // align * align


def reduction_param_types(n_inputs: int, n_outputs: int) -> list:
    return ([I64] * 5 + [I64, DIMS, I64, DIMS, I64] + [PTR, DIMS, DIMS] * n_inputs
            + [PTR, DIMS] * n_outputs + [PTR])


class _Record:
    """One accumulator record in private memory: a word array (so a wave shuffle can move
    it 32 bits at a time) viewed as the struct of its fields."""

    def __init__(self, b, rec_type, words: int):
        slot = b.alloca(ir.ArrayType(I32, words))
        slot.align = 8
        self.ptr = _opaque(slot)
        self.rec_type = rec_type
        self.whole = False  # (True: the record's address stands for its fields)

    def fields(self, b) -> list:
        if self.whole:
            return [self.ptr]
        zero = ir.Constant(I32, 0)
        return [b.gep(self.ptr, [zero, ir.Constant(I32, k)], source_etype=self.rec_type)
                for k in range(len(self.rec_type.elements))]


class _EntryParams:
    """Where a reduction entry reads its parameters (GPU entries of both tiers, the host's
    quick tier), as the elementwise quick tier does (``skeletons._SimpleParams``): at the
    launcher's offsets in the target's parameter buffer, in the block that uses them
    (AMDGPU's kernarg segment, the host's argument struct); else the kernel's arguments,
    shapes and strides behind the pointer parameters of ``dims_parameter_type`` (NVPTX:
    ``byval``, read with ``ld.param``) -- no copy into private or local memory; else by
    value, copied once to the stack."""

    def __init__(self, target, b, args, types, buffer=None):
        self.args = args
        self.types = types
        self.offsets, pos = [], 0
        for t in types:  # every field is 8-byte aligned (reduction_param_types)
            self.offsets.append(pos)
            pos += 8 * MAX_DIMS if t == DIMS else 8
        # (the host passes its parameters as a pointer to the packed struct: ``buffer``)
        self.buffer = buffer if buffer is not None else target.emit_parameter_buffer(b)
        self.slots = {}
        if self.buffer is None:
            for k, a in enumerate(args):
                if isinstance(a.type, ir.ArrayType):
                    self.slots[k] = _spill(b, a, DIMS)

    def value(self, b, k):
        """Parameter ``k`` (an integer or a pointer)."""
        if self.buffer is None:
            return self.args[k]
        return load_parameter(b, self.buffer, self.offsets[k], self.types[k])

    def dims(self, b, k):
        """A pointer to the shape or strides parameter ``k`` (``[MAX_DIMS x i64]``), where
        it lies: in the parameter buffer, behind the by-reference argument, or in the
        stack copy."""
        if self.buffer is not None:
            return b.gep(self.buffer, [ir.Constant(I64, self.offsets[k])], source_etype=I8)
        return self.slots.get(k, self.args[k])

    def dim(self, b, k, d):
        """Element ``d`` (an i64 value) of the shape or strides parameter ``k``."""
        if self.buffer is not None:
            return load_parameter(b, self.buffer, self.offsets[k], I64, d)
        if k in self.slots:
            p = self.slots[k]
        else:
            p = self.args[k]
        return b.load(b.gep(p, [d], source_etype=I64), typ=I64, align=8)


def _splat(b, value, lanes: int):
    vec_t = ir.VectorType(value.type, lanes)
    v = b.insert_element(ir.Constant(vec_t, ir.Undefined), value, ir.Constant(I32, 0))
    return b.shuffle_vector(v, ir.Constant(vec_t, ir.Undefined), ir.Constant(ir.VectorType(I32, lanes), [0] * lanes))


def _convert_vector(b, x, src, dst, dst_t):
    """Vector conversion of elements of dtype ``src`` to ``dst`` (the pairs SIMD recipes
    allow: same kind widening, bool or integer to integer, integer to float)."""
    if src == dst:
        return x
    if dst.kind == "f":
        if src.kind == "f":
            return b.fpext(x, dst_t) if dst.itemsize > src.itemsize else b.fptrunc(x, dst_t)
        return b.uitofp(x, dst_t) if src.kind in "ub" else b.sitofp(x, dst_t)
    if src.itemsize == dst.itemsize:
        return x
    if src.itemsize > dst.itemsize:
        return b.trunc(x, dst_t)
    return b.zext(x, dst_t) if src.kind in "ub" else b.sext(x, dst_t)


def simd_allowed(recipe, in_dtype, acc_dtype) -> bool:
    """Whether the host's SIMD path can run ``recipe`` from ``in_dtype`` into ``acc_dtype``."""
    if recipe is None or in_dtype.kind == "c" or acc_dtype.kind == "c":
        return False
    if recipe in ("any", "all"):
        return acc_dtype.kind == "b"
    if acc_dtype.kind == "f":
        return in_dtype.kind in "biuf"
    return acc_dtype.kind in "iu" and in_dtype.kind in "biu"


class _RecordArray:
    """``count`` accumulator records in private memory, indexed at run time, one array per
    field (the host's lanes and tiles: a loop over them with a constant trip count
    vectorises, each field being contiguous)."""

    def __init__(self, b, rec_type, count: int):
        self.rec_type = rec_type
        self.types = [ir.ArrayType(t, count) for t in rec_type.elements]
        here = b.block
        b.position_at_start(b.function.entry_basic_block)
        self.ptrs = []
        for t in self.types:
            slot = b.alloca(t)
            slot.align = 16
            self.ptrs.append(_opaque(slot))
        b.position_at_end(here)

    def fields(self, b, k) -> list:
        zero = ir.Constant(I64, 0)
        return [b.gep(p, [zero, k], source_etype=t) for p, t in zip(self.ptrs, self.types)]

    def copy_to(self, b, k, dst_fields) -> None:
        """Copy record ``k`` to the field pointers ``dst_fields``."""
        for src, dst, t in zip(self.fields(b, k), dst_fields, self.rec_type.elements):
            b.store(b.load(src, typ=t), dst)


#: The recipes GPU vector loops have their own folds for (all of them keep the first
#: element's value and index as they are: the ``map`` is the identity).
GPU_RECIPE_NAMES = ("max", "min", "argmax", "argmin")


def build_reduction(target, entry: str, module: ir.Module, in_dtypes, field_dtypes, out_dtypes,
                    identity_fn, map_fn, reduce_fn, post_fn, simd=None) -> None:
    """Add the two entries of a reduction to ``module``: ``entry`` (elements through
    ``map_fn``) and ``entry + "_c"`` (records through ``reduce_fn`` only).  ``simd``: the
    name of a recipe (see ``_Builder.simd_loop``) that computes exactly what map and
    reduce do, for the host's contiguous runs."""
    b = _Builder(target, entry, module, in_dtypes, field_dtypes, out_dtypes,
                 identity_fn, map_fn, reduce_fn, post_fn, source="map")
    if simd is not None and not target.is_gpu and len(in_dtypes) == 1 and \
            simd_allowed(simd, in_dtypes[0], field_dtypes[0]):
        b.simd = simd
    if simd in GPU_RECIPE_NAMES and target.is_gpu and GPU_RECIPES and len(in_dtypes) == 1 and \
            in_dtypes[0] == field_dtypes[0] and in_dtypes[0].kind in "biuf":
        b.gpu_recipe = simd
    b.build()
    _Builder(target, entry + "_c", module, None, field_dtypes, out_dtypes,
             identity_fn, map_fn, reduce_fn, post_fn, source="record").build()


def scan_param_types(n_inputs: int, n_outputs: int) -> list:
    """Parameters of a scan entry: those of a reduction, with every output also strided
    along the scanned dimension, then ``include_initial``."""
    return ([I64] * 5 + [I64, DIMS, I64, DIMS, I64] + [PTR, DIMS, DIMS] * n_inputs
            + [PTR, DIMS, DIMS] * n_outputs + [PTR, I64])


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
    item instead (``_Builder.wave_scan``; not in the quick tier)."""
    args = (target, module, in_dtypes, field_dtypes, out_dtypes, identity_fn, map_fn, reduce_fn, post_fn)
    _Builder(target, entry, *args[1:], source="map").build()
    _Builder(target, entry + "_c", module, None, *args[3:], source="record").build()
    _Builder(target, entry + "_s", *args[1:], source="map").build_scan()
    _Builder(target, entry + "_r", module, None, *args[3:], source="record").build_scan(records_out=True)


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
    """The interpreter tier's items of a reduction (``_Builder.build_item_function``): the
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
        b = _Builder(target, entry, module, ins, [bytes_], [bytes_] * n_outputs, fns["identity"], fns["map"],
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


class _Builder:
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

    def new_record(self, b) -> _Record:
        # allocas belong in the entry block
        here = b.block
        b.position_at_start(b.function.entry_basic_block)
        rec = _Record(b, self.rec_type, self.words)
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
        if target.is_gpu:
            # shapes and strides are read where they lie (``_EntryParams.dims``), not copied
            # by every thread into local (NVPTX) or scratch (AMDGPU) memory: that copy, 320
            # bytes a thread for a sum, held large reductions on the H200 at 0.85-0.91 of
            # the copy bandwidth, 0.96-1.01 without it (docs/benchmarks.md, stop 12)
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
            self.dims = lambda k: _spill(b, values[k], DIMS)
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
        if not target.is_gpu:
            self.lanes = _RecordArray(b, self.rec_type, HOST_LANES)

        if target.is_gpu:
            self.build_gpu(b)
        elif self.source == "record":
            loop = _Loop(b, start, stop, "item")
            self.item(b, loop.i, coop=None, lanes=1)
            loop.close(b, b.add(loop.i, ir.Constant(I64, 1)))
            b.ret_void()
        else:
            tile_bb = fn.append_basic_block("tile")
            items_bb = fn.append_basic_block("items")
            is_tile = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_TILE)), ir.Constant(I64, 0))
            b.cbranch(is_tile, tile_bb, items_bb)
            b.position_at_end(items_bb)
            loop = _Loop(b, start, stop, "item")
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
        size = ir.Constant(I64, target.wave_size)
        # in wave mode each wave works its own items: "the block" is the wave
        self.tib = b.select(wave, b.urem(tib, size), tib)
        self.bdim = b.select(wave, size, target.emit_block_size(b))
        gtid = target.emit_global_thread_id(b)
        gcount = target.emit_global_thread_count(b)
        first = b.select(block, target.emit_block_id(b), b.select(wave, b.udiv(gtid, size), gtid))
        step = b.select(block, target.emit_block_count(b), b.select(wave, b.udiv(gcount, size), gcount))
        waves = max(1, target.max_block_size // target.wave_size)
        shared_t = ir.ArrayType(ir.ArrayType(I32, self.words), waves)
        shared = ir.GlobalVariable(self.module, shared_t, f"{self.entry}_shared",
                                   addrspace=target.shared_address_space)
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
            tiles = _Loop(b, gtid, self.n_items, "tile")
            self.gpu_tile_item(b, tiles.i, width)
            tiles.close(b, b.add(tiles.i, gcount))
            b.ret_void()
            b.position_at_end(items_bb)
        loop = _Loop(b, first, self.n_items, "item")
        self.item(b, loop.i, coop=coop, lanes=GPU_LANES)
        loop.close(b, b.add(loop.i, step))
        b.ret_void()

    def gpu_entry(self, types):
        """The GPU kernel ``self.entry`` taking the parameters ``types`` (shapes and strides
        by reference where the target can: ``dims_parameter_type``): (function, builder in
        its entry block, ``_EntryParams``)."""
        target = self.target
        arg_types = [dims_parameter_type(target) if t == DIMS else t for t in types]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), arg_types), self.entry)
        target.mark_kernel(fn)
        mark_dims_arguments(target, fn)
        target.limit_registers(fn, GPU_MIN_BLOCKS)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        return fn, b, _EntryParams(target, b, list(fn.args), types)

    # -- the GPU quick tier ---------------------------------------------------------------

    def quick_entry(self, types):
        """Add the entry ``self.entry`` for the quick tier: the parameters ``types`` (the
        launcher's layout), read where they are (``_EntryParams``): on GPUs shapes and
        strides by reference where the target can (``dims_parameter_type``), on the host
        in the packed struct the entry's ``args`` points to.  Returns the builder, the
        ``_EntryParams``, the item loop (the builder in its body) and its step: on GPUs a
        grid-stride loop over ``n_items`` after one check that the launch fits the 32-bit
        index arithmetic (it traps otherwise); on the host the items ``start .. stop`` of
        the call (the launcher never hands the quick tier more: ``_fit_quick_tier``)."""
        target = self.target
        if not target.is_gpu:
            fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
            target.mark_kernel(fn)
            self.fn = fn
            b = ir.IRBuilder(fn.append_basic_block("entry"))
            args_ptr, start, stop = fn.args
            params = _EntryParams(target, b, None, types, buffer=args_ptr)
            return b, params, _Loop(b, start, stop, "item"), ir.Constant(I64, 1)
        fn, b, params = self.gpu_entry(types)
        self.fn = fn
        first = target.emit_global_thread_id(b)
        step = target.emit_global_thread_count(b)
        # every index below is under n_items (an output, a chunk) or n_r (a reduced index):
        # more than 2**31 - 1 of either traps (the launcher runs the full tier for those)
        limit = ir.Constant(I64, SIMPLE_LOOP_MAX_ELEMENTS)
        too_big = b.or_(b.icmp_unsigned(">", params.value(b, 0), limit),
                        b.icmp_unsigned(">", params.value(b, 9), limit))
        trap_bb = fn.append_basic_block("too.many.items")
        start_bb = fn.append_basic_block("start")
        b.cbranch(too_big, trap_bb, start_bb)
        b.position_at_end(trap_bb)
        b.call(declare_trap(self.module), [])
        b.unreachable()
        b.position_at_end(start_bb)
        return b, params, _Loop(b, first, params.value(b, 0), "item"), step

    def unravel32(self, b, params, ndim, shape, flat, bases, strides) -> list:
        """``bases`` (None stays None) each moved by the offset of index ``flat`` over the
        dimensions of shape parameter ``shape`` (``ndim`` of them, at least one), with the
        strides parameters ``strides``: dimensions ``ndim - 1`` down to 1 divide in 32 bits
        (every index and extent is below 2**31: ``quick_entry``), dimension 0 takes what
        is left, so a one-dimensional run divides nothing."""
        fn = self.fn
        one = ir.Constant(I64, 1)
        start = b.sub(ndim, one)
        flat32 = b.trunc(flat, I32)
        pre = b.block
        head = fn.append_basic_block("unravel.head")
        body = fn.append_basic_block("unravel.body")
        last = fn.append_basic_block("unravel.last")
        b.branch(head)
        b.position_at_end(head)
        d = b.phi(I64, "d")
        d.add_incoming(start, pre)
        rem = b.phi(I32, "rem")
        rem.add_incoming(flat32, pre)
        phis = _pointer_phis(b, bases, pre)
        b.cbranch(b.icmp_signed(">", d, ir.Constant(I64, 0)), body, last)
        b.position_at_end(body)
        r, q = _udivrem(b, rem, b.trunc(params.dim(b, shape, d), I32))
        idx = b.zext(r, I64)
        for p, s in zip(phis, strides):
            if p is not None:
                p.add_incoming(b.gep(p, [b.mul(idx, params.dim(b, s, d))], source_etype=I8), body)
        d.add_incoming(b.sub(d, one), body)
        rem.add_incoming(q, body)
        b.branch(head)
        b.position_at_end(last)
        zero = ir.Constant(I64, 0)
        idx = b.zext(rem, I64)
        return [None if p is None else b.gep(p, [b.mul(idx, params.dim(b, s, zero))], source_etype=I8)
                for p, s in zip(phis, strides)]

    def build_quick(self) -> None:
        """The quick tier's reduction entry (a new signature's first calls: little code,
        cheap for LLVM and a GPU driver's JIT): one thread (host: loop trip) per item
        (output, chunk), one accumulator, each reduced index unravelled in 32 bits;
        the result post-mapped, or the raw record with ``MODE_RECORDS``.  Parameters
        are read where the launcher packed them (``_EntryParams``)."""
        types = reduction_param_types(self.n_inputs, len(self.out_dtypes))
        b, params, items, step = self.quick_entry(types)
        self.quick_item(b, params, items.i)
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def build_item_function(self) -> ir.Function:
        """The interpreter tier's form of ``build_quick``: ``void entry(ptr params, i64
        item, i64 n)``, one item of the quick tier's loop, its parameters read from the
        packed struct at ``params`` (``compiler/interp.py``: ``compile_items``)."""
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
        self.fn = fn
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = _EntryParams(self.target, b, None, reduction_param_types(self.n_inputs, len(self.out_dtypes)),
                              buffer=fn.args[0])
        self.quick_item(b, params, fn.args[1])
        b.ret_void()
        return fn

    def quick_item(self, b, params, it) -> None:
        """One item ``it`` of the quick tier: the output and chunk it stands for, its
        elements folded into one accumulator, the result (or record) written."""
        n_in, n_outs = self.n_inputs, len(self.out_dtypes)
        ins = [10 + 3 * k for k in range(n_in)]  # pointer; kept strides, reduced strides after it
        outs = [10 + 3 * n_in + 2 * k for k in range(n_outs)]  # pointer; kept strides after it
        self.tmp = self.new_record(b)
        acc = self.new_record(b)
        self.n_out = params.value(b, 2)
        o, c = _divmod32(b, it, self.n_out)
        bases = self.unravel32(b, params, params.value(b, 5), 6, o, [params.value(b, k) for k in ins + outs],
                               [k + 1 for k in ins + outs])
        in_bases, out_addrs = bases[:n_in], bases[n_in:]
        self.chunk_len, self.n_r = params.value(b, 4), params.value(b, 9)
        j_begin, j_end = self.chunk_range(b, c)
        self.set_identity(b, acc)
        run = _Loop(b, j_begin, j_end, "j")
        addrs = self.unravel32(b, params, params.value(b, 7), 8, run.i, in_bases, [k + 2 for k in ins])
        self.fold_into(b, acc.fields(b), addrs, run.i)
        run.close(b, b.add(run.i, ir.Constant(I64, 1)))
        self.mode = params.value(b, 1)
        self.records = params.value(b, len(reduction_param_types(n_in, n_outs)) - 1)
        self.write(b, acc, o, c, out_addrs)

    def move_record(self, b, src, dst) -> None:
        """Copy the record at ``src`` to ``dst``."""
        if self.opaque is None:
            b.store(b.load(src, typ=self.rec_type), dst)
        else:
            zero = ir.Constant(I64, 0)
            b.call(self.opaque[0], [dst, src, zero, zero])

    def build_scan_quick(self, records_out: bool) -> None:
        """The quick tier's scan entry: ``build_scan``'s items, parameters read in
        place and lines unravelled in 32 bits, as ``build_quick`` does."""
        n_outs = 1 if records_out else len(self.out_dtypes)
        b, params, items, step = self.quick_entry(scan_param_types(self.n_inputs, n_outs))
        self.quick_scan_item(b, params, items.i, records_out)
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def build_scan_item_function(self, records_out: bool) -> ir.Function:
        """The interpreter tier's form of ``build_scan_quick`` (see ``build_item_function``)."""
        n_outs = 1 if records_out else len(self.out_dtypes)
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
        self.fn = fn
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = _EntryParams(self.target, b, None, scan_param_types(self.n_inputs, n_outs), buffer=fn.args[0])
        self.quick_scan_item(b, params, fn.args[1], records_out)
        b.ret_void()
        return fn

    def quick_scan_item(self, b, params, it, records_out: bool) -> None:
        """One item ``it`` of the quick tier's scan: a chunk of one line scanned serially."""
        n_in = self.n_inputs
        n_outs = 1 if records_out else len(self.out_dtypes)
        types = scan_param_types(n_in, n_outs)
        arrays = [10 + 3 * k for k in range(n_in + n_outs)]  # pointer, kept strides, scanned stride
        self.tmp = self.new_record(b)
        acc = self.new_record(b)
        self.n_out = params.value(b, 2)
        o, c = _divmod32(b, it, self.n_out)
        bases = self.unravel32(b, params, params.value(b, 5), 6, o, [params.value(b, k) for k in arrays],
                               [k + 1 for k in arrays])
        zero = ir.Constant(I64, 0)
        scanned = [params.dim(b, k + 2, zero) for k in arrays]
        self.chunk_len, self.n_r = params.value(b, 4), params.value(b, 9)
        self.records = params.value(b, len(types) - 2)
        self.scan_item(b, acc, o, c, bases[:n_in], bases[n_in:], scanned[:n_in], scanned[n_in:],
                       params.value(b, len(types) - 1), records_out)

    def gpu_tile_item(self, b, it, width: int) -> None:
        """One GPU tiled item: outputs ``o0 .. o0 + width - 1`` (adjacent in memory) over one
        chunk of the reduced rows.  Whole vectors across the outputs, ``rows`` rows per trip
        (all their loads issued first), each element folded into its output's accumulator
        for that row; a group that is not whole, or not aligned for vector loads, folds
        each of its outputs on its own.  Needs one kept and one reduced dimension."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        w = ir.Constant(I64, width)
        rows = 1
        while 2 * rows * width * self.words <= GPU_TILE_WORDS:
            rows *= 2
        n_groups = b.udiv(b.add(self.n_out, ir.Constant(I64, width - 1)), w)
        c, o0, count, j_begin, j_end = self.tile_of(b, it, n_groups, w)
        sk = [_dim(b, s, zero) for _, s, _ in self.inputs]
        sr = [_dim(b, s, zero) for _, _, s in self.inputs]
        col0 = [b.gep(p, [b.mul(o0, s)], source_etype=I8) for (p, _, _), s in zip(self.inputs, sk)]
        accs = [[self.new_record(b) for _ in range(rows)] for _ in range(width)]
        for per_row in accs:
            for acc in per_row:
                self.set_identity(b, acc)
        ok = b.icmp_signed("==", count, w)
        for base, s, r, size in zip(col0, sk, sr, self.in_sizes):
            mask = ir.Constant(I64, width * size - 1)
            ok = b.and_(ok, b.icmp_signed("==", s, ir.Constant(I64, size)))
            ok = b.and_(ok, b.icmp_unsigned("==", b.and_(b.ptrtoint(base, I64), mask), zero))
            ok = b.and_(ok, b.icmp_unsigned("==", b.and_(r, mask), zero))
        vec_bb = fn.append_basic_block("tile.vector")
        cols_bb = fn.append_basic_block("tile.columns")
        done_bb = fn.append_basic_block("tile.done")
        b.cbranch(ok, vec_bb, cols_bb)

        b.position_at_end(vec_bb)
        space = ir.PointerType(addrspace=self.target.global_address_space)
        slots = [self.vector_slots(b, width) for _ in range(rows)]

        def trip(j, n_rows):
            for r in range(n_rows):
                jr = b.add(j, ir.Constant(I64, r))
                for base, t, size, stride, slot in zip(col0, self.in_types, self.in_sizes, sr, slots[r]):
                    addr = b.addrspacecast(b.gep(base, [b.mul(jr, stride)], source_etype=I8), space)
                    b.store(b.load(addr, typ=ir.VectorType(t, width), align=width * size), slot)
            for r in range(n_rows):
                jr = b.add(j, ir.Constant(I64, r))
                for k in range(width):
                    addrs = [b.gep(slot, [zero, ir.Constant(I64, k)], source_etype=ir.ArrayType(t, width))
                             for slot, t in zip(slots[r], self.in_types)]
                    self.fold(b, accs[k][r], addrs, jr)

        loop = _Loop(b, j_begin, b.sub(j_end, ir.Constant(I64, rows - 1)), "trow")
        trip(loop.i, rows)
        loop.close(b, b.add(loop.i, ir.Constant(I64, rows)))
        tail = _Loop(b, loop.i, j_end, "ttail")
        trip(tail.i, 1)
        tail.close(b, b.add(tail.i, ir.Constant(I64, 1)))
        b.branch(done_bb)

        b.position_at_end(cols_bb)
        for k in range(width):
            col_bb = fn.append_basic_block("tile.column")
            next_bb = fn.append_basic_block("tile.column.next")
            b.cbranch(b.icmp_signed("<", ir.Constant(I64, k), count), col_bb, next_bb)
            b.position_at_end(col_bb)
            bases = [b.gep(base, [b.mul(ir.Constant(I64, k), s)], source_etype=I8) for base, s in zip(col0, sk)]
            col = _Loop(b, j_begin, j_end, "tcol")
            self.fold(b, accs[k][0], [b.gep(base, [b.mul(col.i, r)], source_etype=I8)
                                      for base, r in zip(bases, sr)], col.i)
            col.close(b, b.add(col.i, ir.Constant(I64, 1)))
            b.branch(next_bb)
            b.position_at_end(next_bb)
        b.branch(done_bb)

        b.position_at_end(done_bb)
        out_sk = [_dim(b, s, zero) for _, s in self.outputs]
        for k in range(width):
            step = 1
            while step < rows:
                for r in range(0, rows, 2 * step):
                    self.combine(b, accs[k][r], accs[k][r + step])
                step *= 2
            write_bb = fn.append_basic_block("tile.write")
            next_bb = fn.append_basic_block("tile.write.next")
            b.cbranch(b.icmp_signed("<", ir.Constant(I64, k), count), write_bb, next_bb)
            b.position_at_end(write_bb)
            o = b.add(o0, ir.Constant(I64, k))
            self.write(b, accs[k][0], o, c, [b.gep(p, [b.mul(o, s)], source_etype=I8)
                                            for (p, _), s in zip(self.outputs, out_sk)])
            b.branch(next_bb)
            b.position_at_end(next_bb)

    # -- scans --------------------------------------------------------------------------------

    def build_scan(self, records_out: bool = False) -> None:
        target = self.target
        if target.simple_loops:
            self.build_scan_quick(records_out)
            return
        n_outs = 1 if records_out else len(self.out_dtypes)
        b, values, start, stop = self.entry_function(scan_param_types(self.n_inputs, n_outs))
        fn = self.fn
        dims = self.dims
        pos = 10
        self.inputs = []
        for _ in range(self.n_inputs):
            self.inputs.append((values[pos], dims(pos + 1), dims(pos + 2)))
            pos += 3
        outputs = []
        for _ in range(n_outs):
            outputs.append((values[pos], dims(pos + 1), dims(pos + 2)))
            pos += 3
        self.records, include_initial = values[pos], values[pos + 1]
        self.tmp = self.new_record(b)
        acc = self.new_record(b)
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        if target.is_gpu:
            wave_bb = fn.append_basic_block("scan.waves")
            thread_bb = fn.append_basic_block("scan.threads")
            is_wave = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_WAVE)), zero)
            b.cbranch(is_wave, wave_bb, thread_bb)
            b.position_at_end(wave_bb)
            self.wave_scan(b, outputs, include_initial, records_out)
            b.position_at_end(thread_bb)
            first, step = target.emit_global_thread_id(b), target.emit_global_thread_count(b)
            limit = self.n_items
        else:
            first, step, limit = start, one, stop
        items = _Loop(b, first, limit, "item")
        o, c, in_bases, out_bases, in_sr, out_sr = self.scan_line(b, items.i, outputs)
        self.scan_item(b, acc, o, c, in_bases, out_bases, in_sr, out_sr, include_initial, records_out)
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def scan_line(self, b, it, outputs):
        """Item ``it`` of a full-tier scan: (line ``o``, chunk ``c``, input bases, output
        bases, input and output strides along the line)."""
        zero = ir.Constant(I64, 0)
        o, c = self.divmod(b, it, self.n_out)
        info = [("array", p, sk) for p, sk, _ in self.inputs] + [("array", p, sk) for p, sk, _ in outputs]
        bases = self.unravel(b, self.shape_k, self.ndim_k, o, info, [p for _, p, _ in info])
        in_sr = [_dim(b, sr, zero) for _, _, sr in self.inputs]
        out_sr = [_dim(b, sr, zero) for _, _, sr in outputs]
        return o, c, bases[:self.n_inputs], bases[self.n_inputs:], in_sr, out_sr

    def scan_start(self, b, o, c, out_bases, out_sr, carry, records_out: bool):
        """Start the scan of line ``o``, chunk ``c``: set ``carry`` to the identity folded
        with the total of the line's earlier chunks (record ``c - 1`` of the scanned chunk
        totals, none for the first chunk).  Returns (``emit(k, record)`` writing the
        result for position ``k``, j_begin, j_end)."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        self.set_identity(b, carry)
        carry_bb = fn.append_basic_block("scan.carry")
        start_bb = fn.append_basic_block("scan.start")
        b.cbranch(b.icmp_unsigned("!=", c, zero), carry_bb, start_bb)
        b.position_at_end(carry_bb)
        slot = b.add(b.mul(b.sub(c, one), self.n_out), o)
        if self.opaque is None:
            rec = b.gep(self.records, [slot], source_etype=self.rec_type)
            b.store(b.load(rec, typ=self.rec_type), self.tmp.ptr)
        else:
            b.call(self.opaque[2], [self.records, self.tmp.ptr, slot, zero])
        self.combine(b, carry, self.tmp)
        b.branch(start_bb)
        b.position_at_end(start_bb)

        def emit(k, acc):
            addrs = [b.gep(p, [b.mul(k, s)], source_etype=I8) for p, s in zip(out_bases, out_sr)]
            if records_out:
                (addr,) = addrs
                self.move_record(b, acc.ptr, addr)
            else:
                b.call(self.post_fn, acc.fields(b) + addrs + [k, self.n_r])

        return (emit, *self.chunk_range(b, c))

    def scan_initial(self, b, first, include_initial, emit, identity):
        """With ``include_initial``, where ``first()`` (a condition it builds) holds, write
        the record ``identity`` (post-mapped) at position 0; returns the shift of the later
        positions (1 with ``include_initial``, else 0)."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        initial = b.and_(b.icmp_unsigned("!=", include_initial, zero), first())
        init_bb = fn.append_basic_block("scan.initial")
        run_bb = fn.append_basic_block("scan.run")
        b.cbranch(initial, init_bb, run_bb)
        b.position_at_end(init_bb)
        emit(zero, identity)
        b.branch(run_bb)
        b.position_at_end(run_bb)
        return b.select(b.icmp_unsigned("!=", include_initial, zero), ir.Constant(I64, 1), zero)

    def scan_item(self, b, acc, o, c, in_bases, out_bases, in_sr, out_sr, include_initial, records_out) -> None:
        """One scan item worked by one thread: line ``o`` (its bases), chunk ``c``;
        ``in_sr``/``out_sr``: the strides along the scanned dimension."""
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        emit, j_begin, j_end = self.scan_start(b, o, c, out_bases, out_sr, acc, records_out)
        shift = self.scan_initial(b, lambda: b.icmp_unsigned("==", c, zero), include_initial, emit, acc)
        run = _Loop(b, j_begin, j_end, "scan")
        j = run.i
        self.fold(b, acc, [b.gep(p, [b.mul(j, s)], source_etype=I8) for p, s in zip(in_bases, in_sr)], j)
        emit(b.add(j, shift), acc)
        run.close(b, b.add(j, one))

    def wave_scan(self, b, outputs, include_initial, records_out: bool) -> None:
        """GPU scan items worked by one wave each (``MODE_WAVE``): the lanes take
        consecutive elements of the chunk (coalesced when the line is contiguous), and each
        step of ``wave_size`` elements is an inclusive wave scan by shuffles (log2(wave)
        rounds: lane l folds the partial result of lane l - d, for d = 1, 2, 4, ...) with
        the carry (the total of the earlier steps) folded in on the left; the carry then
        folds in the step's total (the last lane's scan, read by a shuffle).  Order is kept:
        every result is a left-to-right combination of its elements.  ``SCAN_UNROLL`` steps
        per trip: their loads first, then their wave scans.
        Every lane runs every shuffle: the item, trip and step are the same for the whole
        wave, and lanes past the chunk's end take the identity and write nothing."""
        target = self.target
        fn = self.fn
        wave = target.wave_size
        size = ir.Constant(I64, wave)
        zero = ir.Constant(I64, 0)
        lane = b.urem(target.emit_thread_in_block(b), size)
        first = b.udiv(target.emit_global_thread_id(b), size)
        step = b.udiv(target.emit_global_thread_count(b), size)
        carry = self.new_record(b)
        total = self.new_record(b)
        other = self.new_record(b)
        xs = [self.new_record(b) for _ in range(SCAN_UNROLL)]
        step_totals = [self.new_record(b) for _ in range(SCAN_UNROLL)]
        items = _Loop(b, first, self.n_items, "witem")
        o, c, in_bases, out_bases, in_sr, out_sr = self.scan_line(b, items.i, outputs)
        emit, j_begin, j_end = self.scan_start(b, o, c, out_bases, out_sr, carry, records_out)
        shift = self.scan_initial(b, lambda: b.icmp_unsigned("==", b.or_(c, lane), zero), include_initial, emit,
                                  carry)
        trips = _Loop(b, j_begin, j_end, "wtrip")
        js, inside = [], []
        for u, x in enumerate(xs):
            j = b.add(b.add(trips.i, ir.Constant(I64, u * wave)), lane)
            js.append(j)
            inside.append(b.icmp_signed("<", j, j_end))
            self.set_identity(b, x)
            load_bb = fn.append_basic_block("wscan.load")
            loaded_bb = fn.append_basic_block("wscan.loaded")
            b.cbranch(inside[u], load_bb, loaded_bb)
            b.position_at_end(load_bb)
            addrs = [b.gep(p, [b.mul(j, s)], source_etype=I8) for p, s in zip(in_bases, in_sr)]
            if self.source == "record":
                b.store(b.load(addrs[0], typ=self.rec_type), x.ptr)
            else:
                b.call(self.map_fn, addrs + x.fields(b) + [j, self.n_r])
            b.branch(loaded_bb)
            b.position_at_end(loaded_bb)
        # the steps' wave scans and step totals (the last lane's: the identity past the
        # end) do not depend on the carry: all of them first, straight-line code
        for x, t in zip(xs, step_totals):
            self.wave_inclusive_scan(b, x, other, lane)
            self.shuffle_record(b, x, t, lambda v: target.emit_shuffle_index(b, v, wave - 1))
        for u, (x, t) in enumerate(zip(xs, step_totals)):
            b.store(b.load(carry.ptr, typ=self.rec_type), total.ptr)
            self.combine(b, total, x)
            write_bb = fn.append_basic_block("wscan.write")
            written_bb = fn.append_basic_block("wscan.written")
            b.cbranch(inside[u], write_bb, written_bb)
            b.position_at_end(write_bb)
            emit(b.add(js[u], shift), total)
            b.branch(written_bb)
            b.position_at_end(written_bb)
            self.combine(b, carry, t)
        trips.close(b, b.add(trips.i, ir.Constant(I64, wave * SCAN_UNROLL)))
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def wave_inclusive_scan(self, b, x, other, lane) -> None:
        """Replace each lane's record ``x`` by the combination of lanes 0 .. lane, in order
        (Hillis-Steele).  Branch-free: every lane combines, and lanes below ``d`` keep their
        record (what they combined is some lane's valid record, never uninitialised)."""
        words_t = ir.ArrayType(I32, self.words)
        d = 1
        while d < self.target.wave_size:
            self.shuffle_record(b, x, other, lambda v: self.target.emit_shuffle_up(b, v, d))
            self.combine(b, other, x)  # the lower lanes on the left
            take = b.icmp_unsigned(">=", lane, ir.Constant(I64, d))
            for w in range(self.words):
                idx = [ir.Constant(I32, 0), ir.Constant(I32, w)]
                src = b.gep(other.ptr, idx, source_etype=words_t)
                dst = b.gep(x.ptr, idx, source_etype=words_t)
                b.store(b.select(take, b.load(src, typ=I32), b.load(dst, typ=I32)), dst)
            d *= 2

    def shuffle_record(self, b, src, dst, shuffle) -> None:
        """``dst`` = ``shuffle`` (an i32 wave shuffle) of record ``src``, word by word."""
        words_t = ir.ArrayType(I32, self.words)
        for w in range(self.words):
            idx = [ir.Constant(I32, 0), ir.Constant(I32, w)]
            value = b.load(b.gep(src.ptr, idx, source_etype=words_t), typ=I32)
            b.store(shuffle(value), b.gep(dst.ptr, idx, source_etype=words_t))

    # -- one item: an output element and one chunk of its reduced run ----------------------

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
        """``(x % y, x // y)`` of non-negative indices: on GPUs a 32-bit divide when both fit
        (a 64-bit one is a long instruction sequence there), else LLVM's own."""
        if self.target.is_gpu:
            return _index_divmod(b, x, y)
        return b.urem(x, y), b.udiv(x, y)

    def unravel(self, b, shape, ndim, flat, info, bases):
        return _unravel(b, shape, ndim, flat, info, bases, first_dim_from_end=1,
                        narrow_division=self.target.is_gpu)

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
        if not self.target.is_gpu:
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

    def host_item(self, b, o, c, in_bases, out_addrs, j_begin, j_end) -> None:
        """One host item: ``HOST_LANES`` accumulators in an array; each trip folds the next
        ``HOST_LANES`` elements into them in a loop the vectoriser turns into vector code
        (each lane is a separate chain, so no reassociation is needed), then the lanes
        are combined pairwise."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        lanes_c = ir.Constant(I64, HOST_LANES)
        accs = self.lanes
        init = _Loop(b, zero, lanes_c, "lane.init")
        b.call(self.identity_fn, accs.fields(b, init.i) + [zero, zero])
        init.close(b, b.add(init.i, one))
        flat_bb = fn.append_basic_block("run.flat")
        nd_bb = fn.append_basic_block("run.nd")
        done_bb = fn.append_basic_block("run.done")
        b.cbranch(b.icmp_signed("==", self.ndim_r, one), flat_bb, nd_bb)

        b.position_at_end(flat_bb)
        strides = [_dim(b, sr, zero) for _, _, sr in self.inputs]
        contig = ir.Constant(ir.IntType(1), 1)
        for s, size in zip(strides, self.in_sizes):
            contig = b.and_(contig, b.icmp_signed("==", s, ir.Constant(I64, size)))
        contig_bb = fn.append_basic_block("run.contiguous")
        strided_bb = fn.append_basic_block("run.strided")
        b.cbranch(contig, contig_bb, strided_bb)
        for bb, indexed in ((contig_bb, True), (strided_bb, False)):
            b.position_at_end(bb)
            last_full = b.sub(j_end, ir.Constant(I64, HOST_LANES - 1))
            if indexed and self.simd is not None:
                tail_start = self.simd_loop(b, accs, in_bases[0], j_begin, last_full)
            else:
                rows = _Loop(b, j_begin, last_full, "jl")
                lane = _Loop(b, zero, lanes_c, "lane")
                j = b.add(rows.i, lane.i)
                self.fold_into(b, accs.fields(b, lane.i), self.element_addrs(b, in_bases, strides, j, indexed), j)
                lane.close(b, b.add(lane.i, one))
                rows.close(b, b.add(rows.i, lanes_c))
                tail_start = rows.i
            tail = _Loop(b, tail_start, j_end, "jt")
            self.fold_into(b, accs.fields(b, zero), self.element_addrs(b, in_bases, strides, tail.i, indexed), tail.i)
            tail.close(b, b.add(tail.i, one))
            b.branch(done_bb)

        b.position_at_end(nd_bb)
        self.nd_run(b, accs.fields(b, zero), in_bases, j_begin, j_end, one)
        b.branch(done_bb)

        b.position_at_end(done_bb)
        width = 1
        while width < HOST_LANES:
            for k in range(0, HOST_LANES, 2 * width):
                b.call(self.reduce_fn, accs.fields(b, ir.Constant(I64, k))
                       + accs.fields(b, ir.Constant(I64, k + width)) + [zero, zero])
            width *= 2
        first = self.new_record(b)
        accs.copy_to(b, zero, first.fields(b))
        self.write(b, first, o, c, out_addrs)

    def simd_loop(self, b, accs, base, j_begin, last_full):
        """The host's contiguous run of a catalogue reduction with a SIMD recipe: the
        ``HOST_LANES`` lanes held in vector registers, one vector load and one vector
        operation per trip (NumPy's SIMD loops do the same); the lanes go back to ``accs``
        for the pairwise combine.  max and min first run a wider loop (``wide_extreme``),
        argmax and argmin wider blocks (``wide_arg``).  Returns the first index left for
        the scalar tail."""
        fn = self.fn
        lanes = HOST_LANES
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        acc_dt = self.field_dtypes[0]
        acc_t = storage_type(acc_dt)
        vin_t = ir.VectorType(in_t, lanes)
        vacc_t = ir.VectorType(acc_t, lanes)
        zero = ir.Constant(I64, 0)
        fields = accs.fields(b, zero)
        starts = [b.load(f, typ=ir.VectorType(t, lanes), align=8) for f, t in zip(fields, self.rec_type.elements)]
        recipe = self.simd
        idx_t = ir.VectorType(I64, lanes)
        wide = self.wide_lanes()
        found = None
        if wide and recipe in ("max", "min"):
            j_begin, starts[0] = self.wide_extreme(b, base, j_begin, last_full, starts[0], wide)
        elif wide:
            j_begin, found = self.wide_arg(b, base, j_begin, last_full, wide)
        incoming = [(j_begin, starts, b.block)]
        if recipe in ("argmax", "argmin"):
            # the first vector replaces the identity lanes outright; after it every lane
            # holds an earlier index than any element to come, so ties need no index test
            peel_bb = fn.append_basic_block("jv.first")
            join_bb = fn.append_basic_block("jv.start")
            b.cbranch(b.icmp_signed("<", j_begin, last_full), peel_bb, join_bb)
            b.position_at_end(peel_bb)
            x0 = b.load(b.gep(base, [j_begin], source_etype=in_t), typ=vin_t, align=in_dt.itemsize)
            first = [_convert_vector(b, x0, in_dt, acc_dt, vacc_t),
                     b.add(_splat(b, j_begin, lanes), ir.Constant(idx_t, list(range(lanes))))]
            incoming.append((b.add(j_begin, ir.Constant(I64, lanes)), first, b.block))
            b.branch(join_bb)
            b.position_at_end(join_bb)
            j_phi = b.phi(I64)
            start_phis = [b.phi(v.type) for v in starts]
            for j_in, vals, bb in incoming:
                j_phi.add_incoming(j_in, bb)
                for phi, v in zip(start_phis, vals):
                    phi.add_incoming(v, bb)
            incoming = [(j_phi, start_phis, join_bb)]
        pre = b.block
        head = fn.append_basic_block("jv.head")
        body = fn.append_basic_block("jv.body")
        exit_bb = fn.append_basic_block("jv.exit")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jv")
        j.add_incoming(incoming[0][0], pre)
        phis = []
        for v in incoming[0][1]:
            phi = b.phi(v.type)
            phi.add_incoming(v, pre)
            phis.append(phi)
        b.cbranch(b.icmp_signed("<", j, last_full), body, exit_bb)
        b.position_at_end(body)
        x = b.load(b.gep(base, [j], source_etype=in_t), typ=vin_t, align=in_dt.itemsize)
        if recipe in ("any", "all"):
            nz = (b.fcmp_unordered("!=", x, ir.Constant(vin_t, 0.0)) if in_dt.kind == "f"
                  else b.icmp_unsigned("!=", x, ir.Constant(vin_t, 0)))
            xv = b.zext(nz, vacc_t)
        else:
            xv = _convert_vector(b, x, in_dt, acc_dt, vacc_t)
        a = phis[0]
        float_acc = acc_dt.kind == "f"
        if recipe == "add":
            new = [b.fadd(a, xv) if float_acc else b.add(a, xv)]
        elif recipe == "mul":
            new = [b.fmul(a, xv) if float_acc else b.mul(a, xv)]
        elif recipe == "any":
            new = [b.or_(a, xv)]
        elif recipe == "all":
            new = [b.and_(a, xv)]
        elif recipe in ("max", "min"):
            if float_acc:  # NaN propagates: keep a when it is NaN or already wins
                keep = b.or_(b.fcmp_unordered("uno", a, a),
                             b.fcmp_ordered(">=" if recipe == "max" else "<=", a, xv))
            else:
                cmp = b.icmp_unsigned if acc_dt.kind in "ub" else b.icmp_signed
                keep = cmp(">=" if recipe == "max" else "<=", a, xv)
            new = [b.select(keep, a, xv)]
        elif recipe in ("argmax", "argmin"):
            ai = phis[1]
            idx = b.add(_splat(b, j, lanes), ir.Constant(idx_t, list(range(lanes))))
            op = ">" if recipe == "argmax" else "<"
            if float_acc:
                # a number beats a smaller one; the first NaN beats everything and stays
                take = b.or_(b.fcmp_ordered(op, xv, a),
                             b.and_(b.fcmp_unordered("uno", xv, xv), b.fcmp_ordered("ord", a, a)))
            else:
                take = (b.icmp_unsigned if acc_dt.kind in "ub" else b.icmp_signed)(op, xv, a)
            new = [b.select(take, xv, a), b.select(take, idx, ai)]
        else:
            raise ValueError(f"unknown SIMD recipe {recipe!r}")
        for phi, v in zip(phis, new):
            phi.add_incoming(v, b.block)
        j.add_incoming(b.add(j, ir.Constant(I64, lanes)), b.block)
        b.branch(head)
        b.position_at_end(exit_bb)
        for f, phi in zip(fields, phis):
            b.store(phi, f, align=8)
        if found is not None:
            # the blocks' first extreme (or first NaN) joins lane 0 through the reduce,
            # which settles a tie with the lanes by the index
            take_bb = fn.append_basic_block("jw.merge")
            after_bb = fn.append_basic_block("jw.merged")
            b.cbranch(b.icmp_signed(">=", found, zero), take_bb, after_bb)
            b.position_at_end(take_bb)
            rec = self.new_record(b)
            value_f, index_f = rec.fields(b)
            b.store(b.load(b.gep(base, [found], source_etype=in_t), typ=in_t), value_f)
            b.store(found, index_f)
            b.call(self.reduce_fn, fields + rec.fields(b) + [zero, zero])
            b.branch(after_bb)
            b.position_at_end(after_bb)
        return j

    def wide_lanes(self) -> int:
        """Lanes of the host's wide max/min/argmax/argmin loop (``HOST_WIDE_BYTES`` of
        elements per trip), 0 when the recipe or the dtypes have none (a conversion, or
        lanes no wider than ``HOST_LANES``)."""
        if self.simd not in GPU_RECIPE_NAMES or not HOST_WIDE_BYTES:
            return 0
        in_dt, acc_dt = self.in_dtypes[0], self.field_dtypes[0]
        if in_dt != acc_dt or in_dt.kind not in "biuf":
            return 0
        wide = HOST_WIDE_BYTES // in_dt.itemsize
        return wide if wide > HOST_LANES and wide % HOST_LANES == 0 else 0

    def _better(self, b, x, a):
        """Lanes where ``x`` beats ``a`` strictly (no NaN among them): ``x > a`` for max and
        argmax, ``x < a`` for min and argmin."""
        op = ">" if self.simd in ("max", "argmax") else "<"
        dt = self.field_dtypes[0]
        if dt.kind == "f":
            return b.fcmp_ordered(op, x, a)
        return (b.icmp_unsigned if dt.kind in "ub" else b.icmp_signed)(op, x, a)

    def _worst(self):
        """The value every element ties with or beats (the identity of max or min)."""
        dt = self.field_dtypes[0]
        low = self.simd in ("max", "argmax")
        if dt.kind == "f":
            return float("-inf") if low else float("inf")
        if dt.kind == "b":
            return 0 if low else 1
        info = np.iinfo(dt)
        v = int(info.min if low else info.max)
        return v - (1 << info.bits) if v >= 1 << (info.bits - 1) else v  # (the bits, signed)

    def _halve(self, b, v, width: int):
        """Fold the upper half of the ``width`` lanes of ``v`` into the lower half (lane
        ``l`` keeps the better of lanes ``l`` and ``l + width / 2``, ``l`` on a tie)."""
        half = width // 2
        lo = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(I32, half), list(range(half))))
        hi = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(I32, half), list(range(half, width))))
        return b.select(self._better(b, hi, lo), hi, lo)

    def _nan_mask(self, b, x, wide: int):
        """Lanes of one register's width (64 bytes) that are set where some lane of ``x``
        at the same place in its register is NaN: one unordered compare per pair of
        registers, the masks ORed (mask operations off the vector ports)."""
        reg = max(1, min(wide, 64 // self.in_dtypes[0].itemsize))
        pieces = [b.shuffle_vector(x, x, ir.Constant(ir.VectorType(I32, reg), list(range(k, k + reg))))
                  for k in range(0, wide, reg)]
        masks = [b.fcmp_unordered("uno", pieces[k], pieces[min(k + 1, len(pieces) - 1)])
                 for k in range(0, len(pieces), 2)]
        m = masks[0]
        for other in masks[1:]:
            m = b.or_(m, other)
        return m

    @staticmethod
    def _any(b, mask):
        """Whether any lane of the i1 vector ``mask`` is set."""
        t = ir.IntType(mask.type.count)
        return b.icmp_unsigned("!=", b.bitcast(mask, t), ir.Constant(t, 0))

    def wide_extreme(self, b, base, j_begin, last_full, start, wide: int):
        """max/min ahead of the ``HOST_LANES`` loop: ``wide`` lanes per trip (eight vector
        registers, independent chains) folded by the target's max instruction
        (``x > a ? x : a``, no NaN test on the chain).  A trip with a NaN stops the loop
        before its fold: the lanes are folded down to ``HOST_LANES`` and the loop that
        follows takes over from that trip, keeping the NaN as before (each lane's fold is
        the same max over the same elements; only the sign of a zero max among mixed
        zeros may come from another lane).  Returns (next index, the HOST_LANES lanes)."""
        fn = self.fn
        lanes = HOST_LANES
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        vw_t = ir.VectorType(in_t, wide)
        limit = b.sub(last_full, ir.Constant(I64, wide - lanes))  # j < limit: j + wide <= j_end
        a0 = b.shuffle_vector(start, start, ir.Constant(ir.VectorType(I32, wide), [k % lanes for k in range(wide)]))
        pre = b.block
        head = fn.append_basic_block("jw.head")
        body = fn.append_basic_block("jw.body")
        fold = fn.append_basic_block("jw.fold") if in_dt.kind == "f" else body
        exit_bb = fn.append_basic_block("jw.exit")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jw")
        j.add_incoming(j_begin, pre)
        a = b.phi(vw_t)
        a.add_incoming(a0, pre)
        b.cbranch(b.icmp_signed("<", j, limit), body, exit_bb)
        b.position_at_end(body)
        x = b.load(b.gep(base, [j], source_etype=in_t), typ=vw_t, align=in_dt.itemsize)
        self._prefetch_ahead(b, base, j, wide)
        if in_dt.kind == "f":
            b.cbranch(self._any(b, self._nan_mask(b, x, wide)), exit_bb, fold)
            b.position_at_end(fold)
        a.add_incoming(b.select(self._better(b, x, a), x, a), b.block)
        j.add_incoming(b.add(j, ir.Constant(I64, wide)), b.block)
        b.branch(head)
        b.position_at_end(exit_bb)
        v, width = a, wide
        while width > lanes:
            v = self._halve(b, v, width)
            width //= 2
        return j, v

    def _prefetch_ahead(self, b, base, j, count: int) -> None:
        """Prefetch the cache lines ``HOST_PREFETCH_BYTES`` past elements ``j .. j + count``
        (a prefetch never faults, so past the end is harmless)."""
        if not HOST_PREFETCH_BYTES:
            return
        fn = declare_function(self.module, "llvm.prefetch.p0",
                              ir.FunctionType(ir.VoidType(), [PTR, I32, I32, I32]))
        itemsize = self.in_dtypes[0].itemsize
        start = b.gep(base, [j], source_etype=self.in_types[0])
        for offset in range(HOST_PREFETCH_BYTES, HOST_PREFETCH_BYTES + count * itemsize, 64):
            b.call(fn, [b.gep(start, [ir.Constant(I64, offset)], source_etype=I8),
                        ir.Constant(I32, 0), ir.Constant(I32, 3), ir.Constant(I32, 1)])

    def wide_arg(self, b, base, j_begin, last_full, wide: int):
        """argmax/argmin ahead of the ``HOST_LANES`` loop, in blocks of ``HOST_BLOCK_TRIPS``
        trips of ``wide`` lanes: a block folds to its extreme value by the max instruction
        alone (no index vectors), and only a block strictly better than all before it is
        remembered (its start); at the end the remembered block is searched for the first
        element equal to the best value.  A block with a NaN ends the run: its first NaN is
        the answer (NaN beats everything, the first one wins).  Returns (next index, the
        index found or -1): the found element joins lane 0 after the loop that follows."""
        fn = self.fn
        lanes = HOST_LANES
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        vw_t = ir.VectorType(in_t, wide)
        trips = HOST_BLOCK_TRIPS
        span = wide * trips
        minus_one = ir.Constant(I64, -1)
        j_end = b.add(last_full, ir.Constant(I64, lanes - 1))
        limit = b.sub(last_full, ir.Constant(I64, span - lanes))  # j < limit: j + span <= j_end
        pre = b.block
        head = fn.append_basic_block("jb.head")
        body = fn.append_basic_block("jb.body")
        keep_bb = fn.append_basic_block("jb.keep")
        nan_bb = fn.append_basic_block("jb.nan") if in_dt.kind == "f" else None
        done_bb = fn.append_basic_block("jb.done")
        search_bb = fn.append_basic_block("jb.search")
        out_bb = fn.append_basic_block("jb.out")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jb")
        j.add_incoming(j_begin, pre)
        best = b.phi(in_t)
        best.add_incoming(ir.Constant(in_t, self._worst()), pre)  # (replaced by the first block)
        at = b.phi(I64)  # start of the best block so far, -1 before the first
        at.add_incoming(minus_one, pre)
        b.cbranch(b.icmp_signed("<", j, limit), body, done_bb)
        b.position_at_end(body)
        # the block's trips: a loop (unrolled, the loads of all eight trips were issued
        # first and spilled)
        block_end = b.add(j, ir.Constant(I64, span))
        trip_bb = fn.append_basic_block("jb.trip")
        b.branch(trip_bb)
        b.position_at_end(trip_bb)
        t = b.phi(I64, "jt")
        t.add_incoming(j, body)
        m = b.phi(vw_t)
        m.add_incoming(ir.Constant(vw_t, [self._worst()] * wide), body)
        if in_dt.kind == "f":
            reg = max(1, min(wide, 64 // in_dt.itemsize))
            mask_t = ir.VectorType(ir.IntType(1), reg)
            nan = b.phi(mask_t)
            nan.add_incoming(ir.Constant(mask_t, [0] * reg), body)
        x = b.load(b.gep(base, [t], source_etype=in_t), typ=vw_t, align=in_dt.itemsize)
        m_next = b.select(self._better(b, x, m), x, m)
        m.add_incoming(m_next, trip_bb)
        if in_dt.kind == "f":
            nan_next = b.or_(nan, self._nan_mask(b, x, wide))
            nan.add_incoming(nan_next, trip_bb)
        t_next = b.add(t, ir.Constant(I64, wide))
        t.add_incoming(t_next, trip_bb)
        trips_done = fn.append_basic_block("jb.trips")
        b.cbranch(b.icmp_signed("<", t_next, block_end), trip_bb, trips_done)
        b.position_at_end(trips_done)
        m = m_next
        if in_dt.kind == "f":
            b.cbranch(self._any(b, nan_next), nan_bb, keep_bb)
        else:
            b.branch(keep_bb)
        b.position_at_end(keep_bb)
        width = wide
        while width > 1:
            m = self._halve(b, m, width)
            width //= 2
        s = b.extract_element(m, ir.Constant(I32, 0))
        take = b.or_(b.icmp_signed("<", at, ir.Constant(I64, 0)), self._better(b, s, best))
        best.add_incoming(b.select(take, s, best), keep_bb)
        at.add_incoming(b.select(take, j, at), keep_bb)
        j.add_incoming(b.add(j, ir.Constant(I64, span)), keep_bb)
        b.branch(head)

        exits = []
        if in_dt.kind == "f":
            b.position_at_end(nan_bb)
            exits.append((j_end, self.find_first(b, base, j, trips, wide, None), b.block))
            b.branch(out_bb)

        b.position_at_end(done_bb)
        b.cbranch(b.icmp_signed(">=", at, ir.Constant(I64, 0)), search_bb, out_bb)
        exits.append((j, minus_one, done_bb))
        b.position_at_end(search_bb)
        exits.append((j, self.find_first(b, base, at, trips, wide, best), b.block))
        b.branch(out_bb)

        b.position_at_end(out_bb)
        j_next = b.phi(I64)
        found = b.phi(I64)
        for jv, fv, bb in exits:
            j_next.add_incoming(jv, bb)
            found.add_incoming(fv, bb)
        return j_next, found

    def find_first(self, b, base, start, trips: int, wide: int, value):
        """The index of the first element from ``start`` equal to ``value`` (None: the first
        NaN), one is known to be among the next ``trips`` trips of ``wide`` lanes."""
        fn = self.fn
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        vw_t = ir.VectorType(in_t, wide)
        mask_t = ir.IntType(wide)
        pre = b.block
        head = fn.append_basic_block("jf.head")
        hit = fn.append_basic_block("jf.hit")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jf")
        j.add_incoming(start, pre)
        x = b.load(b.gep(base, [j], source_etype=in_t), typ=vw_t, align=in_dt.itemsize)
        if value is None:
            eq = b.fcmp_unordered("uno", x, x)
        else:
            v = _splat(b, value, wide)
            eq = b.fcmp_ordered("==", x, v) if in_dt.kind == "f" else b.icmp_unsigned("==", x, v)
        mask = b.bitcast(eq, mask_t)
        last = b.add(start, ir.Constant(I64, (trips - 1) * wide))
        # (the last trip counts as a hit whatever its mask says: the loop cannot run off)
        stop = b.or_(b.icmp_unsigned("!=", mask, ir.Constant(mask_t, 0)), b.icmp_signed(">=", j, last))
        j.add_incoming(b.add(j, ir.Constant(I64, wide)), head)
        b.cbranch(stop, hit, head)
        b.position_at_end(hit)
        name = f"llvm.cttz.i{wide}"
        cttz = self.module.globals.get(name) or ir.Function(
            self.module, ir.FunctionType(mask_t, [mask_t, ir.IntType(1)]), name)
        tz = b.call(cttz, [mask, ir.Constant(ir.IntType(1), 0)])
        return b.add(j, b.trunc(tz, I64) if wide > 64 else b.zext(tz, I64) if wide < 64 else tz)

    def nd_run(self, b, acc_fields, in_bases, j0, j_end, step) -> None:
        """Fold reduced indices ``j0, j0 + step, ...`` below ``j_end``, each unravelled over
        the reduced dimensions (any number of them), into ``acc_fields``."""
        loop = _Loop(b, j0, j_end, "jn")
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
        strides = [_dim(b, sr, ir.Constant(I64, 0)) for _, _, sr in self.inputs]
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

    def vector_width(self) -> int:
        """Elements per vector load in a block's contiguous run (1: no vector path)."""
        if self.source != "map" or not self.target.is_gpu or self.target.global_address_space is None:
            return 1
        if any(t.kind == "c" for t in self.in_dtypes):
            return 1
        return max(1, min(VECTOR_ELEMENTS, VECTOR_BYTES // max(self.in_sizes)))

    def vector_loop(self, b, accs, in_bases, j_begin, j_end, width: int):
        """Each thread loads ``VECTOR_UNROLL`` vectors of ``width`` elements per trip (16-byte
        accesses, several in flight) and folds element ``l`` of vector ``u`` into lane
        ``(u * width + l) % lanes``; every thread makes the same number of trips.  The next
        trip's loads are issued before the current trip's folds (the folds of max/argmax
        are long enough to leave the memory idle otherwise; the last trip loads itself again
        rather than branch).  A catalogue recipe
        (``gpu_recipe``) starts its lanes from the first trip's elements and then folds
        knowing that each lane sees its elements in increasing order (no index ties to
        settle).  Returns the first index left for the scalar loop."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        w = ir.Constant(I64, width)
        stride = b.mul(self.bdim, w)
        span = b.mul(stride, ir.Constant(I64, VECTOR_UNROLL))
        _, trips = self.divmod(b, b.sub(j_end, j_begin), span)
        start = b.add(j_begin, b.mul(self.tib, w))
        space = ir.PointerType(addrspace=self.target.global_address_space)
        cur = [self.vector_slots(b, width) for _ in range(VECTOR_UNROLL)]
        nxt = [self.vector_slots(b, width) for _ in range(VECTOR_UNROLL)]
        # argmax/argmin lanes: the index relative to ``start`` in 32 bits (the caller keeps
        # runs shorter than 2**31), made the record's 64-bit index after the loop
        indexed = self.gpu_recipe in ("argmax", "argmin")
        if indexed:
            here = b.block
            b.position_at_start(fn.entry_basic_block)
            rel = [b.alloca(I32) for _ in accs]
            b.position_at_end(here)

        def load_trip(t, slots, ahead: bool = True):
            # (``ahead``: loads in the global address space; the loads before the loop are
            # left generic, or LLVM's instcombine would merge them with the loop's into one
            # load of a phi of the addresses, issued only when the trip is folded)
            j = b.add(start, b.mul(t, span))
            for u in range(VECTOR_UNROLL):  # every load of the trip first: all in flight at once
                ju = b.add(j, b.mul(stride, ir.Constant(I64, u)))
                for base, ty, size, slot in zip(in_bases, self.in_types, self.in_sizes, slots[u]):
                    addr = b.gep(base, [ju], source_etype=ty)
                    if ahead:
                        addr = b.addrspacecast(addr, space)
                    b.store(b.load(addr, typ=ir.VectorType(ty, width), align=width * size), slot)

        def fold_trip(t, slots, first: bool):
            j = b.add(start, b.mul(t, span))
            for u in range(VECTOR_UNROLL):
                ju = b.add(j, b.mul(stride, ir.Constant(I64, u)))
                for lane in range(width):
                    k = u * width + lane
                    addrs = [b.gep(slot, [zero, ir.Constant(I64, lane)], source_etype=ir.ArrayType(ty, width))
                             for slot, ty in zip(slots[u], self.in_types)]
                    if self.gpu_recipe is not None:
                        idx = b.add(b.trunc(b.sub(ju, start), I32), ir.Constant(I32, lane)) if indexed else None
                        self.recipe_fold(b, accs[k % len(accs)], addrs[0], idx, first and k < len(accs),
                                         rel[k % len(accs)] if indexed else None)
                    else:
                        self.fold(b, accs[k % len(accs)], addrs, b.add(ju, ir.Constant(I64, lane)))

        def take_next():
            for u in range(VECTOR_UNROLL):
                for src, dst, ty in zip(nxt[u], cur[u], self.in_types):
                    b.store(b.load(src, typ=ir.ArrayType(ty, width)), dst)

        def advance(t):
            """Fold trip ``t`` (its vectors in ``cur``), the next trip's loads first."""
            last = b.sub(trips, one)
            later = b.add(t, one)
            load_trip(b.select(b.icmp_signed("<", later, trips), later, last), nxt)
            fold_trip(t, cur, first=False)
            take_next()

        run_bb = fn.append_basic_block("vt.run")
        done_bb = fn.append_basic_block("vt.done")
        b.cbranch(b.icmp_signed(">", trips, zero), run_bb, done_bb)
        b.position_at_end(run_bb)
        load_trip(zero, cur, ahead=False)
        first_loop_trip = zero
        if self.gpu_recipe is not None:
            # the first trip sets the lanes (each lane's first element replaces the identity)
            load_trip(b.select(b.icmp_signed(">", trips, one), one, zero), nxt, ahead=False)
            fold_trip(zero, cur, first=True)
            take_next()
            first_loop_trip = one
        loop = _Loop(b, first_loop_trip, trips, "vt")
        advance(loop.i)
        loop.close(b, b.add(loop.i, one))
        if indexed:  # every lane with a place in a trip took an element of the first trip
            for acc, slot in zip(accs[:VECTOR_UNROLL * width], rel):
                b.store(b.add(start, b.zext(b.load(slot, typ=I32), I64)), acc.fields(b)[1])
        b.branch(done_bb)
        b.position_at_end(done_bb)
        return b.add(j_begin, b.mul(trips, span))

    def recipe_fold(self, b, acc, addr, idx, first: bool, rel=None) -> None:
        """Fold the element at ``addr`` into ``acc`` with the instructions of the catalogue
        recipe ``gpu_recipe``, knowing that the element comes after every one ``acc`` holds;
        ``first``: the element replaces ``acc`` (which holds the identity).  argmax/argmin
        keep the index (``idx``, 32 bits) in the slot ``rel``, not in the record."""
        recipe = self.gpu_recipe
        dt = self.in_dtypes[0]
        ty = self.in_types[0]
        value = acc.fields(b)[0]
        x = b.load(addr, typ=ty)
        if first:
            b.store(x, value)
            if rel is not None:
                b.store(idx, rel)
            return
        a = b.load(value, typ=ty)
        low = recipe in ("min", "argmin")
        if recipe in ("max", "min"):
            if dt.kind == "f":  # NaN propagates, as the row's reduce does
                name = f"llvm.{'minimum' if low else 'maximum'}.{'f64' if dt.itemsize == 8 else 'f32'}"
                fn = self.module.globals.get(name)
                if fn is None:
                    fn = ir.Function(self.module, ir.FunctionType(ty, [ty, ty]), name)
                b.store(b.call(fn, [a, x]), value)
            else:
                cmp = b.icmp_unsigned if dt.kind in "bu" else b.icmp_signed
                b.store(b.select(cmp("<=" if low else ">=", a, x), a, x), value)
            return
        op = "<" if low else ">"
        if dt.kind == "f":
            # x wins when it is better or NaN ("unordered or better"), unless the lane
            # already holds a NaN (the first NaN stays)
            take = b.and_(b.fcmp_unordered(op, x, a), b.fcmp_ordered("ord", a, a))
        else:
            take = (b.icmp_unsigned if dt.kind in "bu" else b.icmp_signed)(op, x, a)
        b.store(b.select(take, x, a), value)
        b.store(b.select(take, idx, b.load(rel, typ=I32)), rel)

    def vector_slots(self, b, width: int) -> list:
        here = b.block
        b.position_at_start(b.function.entry_basic_block)
        slots = [_opaque(b.alloca(ir.ArrayType(t, width))) for t in self.in_types]
        b.position_at_end(here)
        return slots

    def element_addrs(self, b, in_bases, strides, j, indexed):
        if indexed:
            return [b.gep(base, [j], source_etype=t) for base, t in zip(in_bases, self.in_types)]
        return [b.gep(base, [b.mul(j, s)], source_etype=I8) for base, s in zip(in_bases, strides)]

    def lanes_loop(self, b, accs, in_bases, strides, j0, j_end, step, indexed) -> None:
        lanes = len(accs)
        span = b.mul(step, ir.Constant(I64, lanes - 1))
        last_full = b.sub(j_end, span)
        loop = _Loop(b, j0, last_full, "jl")
        for k, acc in enumerate(accs):
            j = b.add(loop.i, b.mul(step, ir.Constant(I64, k)))
            self.fold(b, acc, self.element_addrs(b, in_bases, strides, j, indexed), j)
        loop.close(b, b.add(loop.i, b.mul(step, ir.Constant(I64, lanes))))
        tail = _Loop(b, loop.i, j_end, "jt")
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
        slot = b.add(b.mul(c, self.n_out), o)
        if self.opaque is None:
            self.move_record(b, acc.ptr, b.gep(self.records, [slot], source_etype=self.rec_type))
        else:
            b.call(self.opaque[1], [self.records, acc.ptr, slot, ir.Constant(I64, 0)])
        b.branch(end_bb)
        b.position_at_end(post_bb)
        b.call(self.post_fn, acc.fields(b) + list(out_addrs) + [o, self.n_out])
        b.branch(end_bb)
        b.position_at_end(end_bb)

    # -- GPU: combining the block's accumulators ----------------------------------------------

    def wave_combine(self, b, acc) -> None:
        other = self.new_record(b)
        d = self.target.wave_size // 2
        while d >= 1:
            self.shuffle_record(b, acc, other, lambda v: self.target.emit_shuffle_down(b, v, d))
            self.combine(b, acc, other)
            d //= 2

    def block_combine(self, b, acc) -> None:
        """Leave the combination of every thread's ``acc`` in thread 0's ``acc``."""
        target = self.target
        fn = self.fn
        wave = ir.Constant(I64, target.wave_size)
        lane = b.urem(self.tib, wave)
        wave_id = b.udiv(self.tib, wave)
        n_waves = b.udiv(self.bdim, wave)
        words_t = ir.ArrayType(I32, self.words)
        shared_t = self.shared.value_type

        def shared_slot(k):
            slot = b.gep(self.shared, [ir.Constant(I64, 0), k], source_etype=shared_t)
            slot.type = ir.PointerType(addrspace=target.shared_address_space)  # opaque
            return slot

        self.wave_combine(b, acc)
        store_bb = fn.append_basic_block("shared.store")
        stored_bb = fn.append_basic_block("shared.stored")
        b.cbranch(b.icmp_unsigned("==", lane, ir.Constant(I64, 0)), store_bb, stored_bb)
        b.position_at_end(store_bb)
        b.store(b.load(acc.ptr, typ=words_t), shared_slot(wave_id))
        b.branch(stored_bb)
        b.position_at_end(stored_bb)
        target.emit_barrier(b)
        first_bb = fn.append_basic_block("wave0")
        load_bb = fn.append_basic_block("wave0.load")
        ident_bb = fn.append_basic_block("wave0.identity")
        loaded_bb = fn.append_basic_block("wave0.loaded")
        after_bb = fn.append_basic_block("wave0.done")
        b.cbranch(b.icmp_unsigned("==", wave_id, ir.Constant(I64, 0)), first_bb, after_bb)
        b.position_at_end(first_bb)
        b.cbranch(b.icmp_unsigned("<", lane, n_waves), load_bb, ident_bb)
        b.position_at_end(load_bb)
        b.store(b.load(shared_slot(lane), typ=words_t), acc.ptr)
        b.branch(loaded_bb)
        b.position_at_end(ident_bb)
        self.set_identity(b, acc)
        b.branch(loaded_bb)
        b.position_at_end(loaded_bb)
        self.wave_combine(b, acc)
        b.branch(after_bb)
        b.position_at_end(after_bb)
        # the next item's stores must not overtake this item's loads
        target.emit_barrier(b)

    # -- host: tiles of adjacent outputs --------------------------------------------------------

    def tiles(self, b, start, stop) -> None:
        """Items are (chunk, tile of TILE adjacent outputs); needs one kept and one reduced
        dimension (the caller ensures it)."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        tile_c = ir.Constant(I64, TILE)
        n_tiles = b.udiv(b.add(self.n_out, ir.Constant(I64, TILE - 1)), tile_c)
        accs = _RecordArray(b, self.rec_type, TILE)
        sk = [_dim(b, s, zero) for _, s, _ in self.inputs]
        sr = [_dim(b, s, zero) for _, _, s in self.inputs]
        out_sk = [_dim(b, s, zero) for _, s in self.outputs]

        def acc_fields(t):
            return accs.fields(b, t)

        items = _Loop(b, start, stop, "tile")
        c, o0, count, j_begin, j_end = self.tile_of(b, items.i, n_tiles, tile_c)
        init = _Loop(b, zero, tile_c, "ti")
        b.call(self.identity_fn, acc_fields(init.i) + [zero, zero])
        init.close(b, b.add(init.i, ir.Constant(I64, 1)))

        full = b.icmp_signed("==", count, tile_c)
        for s, size in zip(sk, self.in_sizes):
            full = b.and_(full, b.icmp_signed("==", s, ir.Constant(I64, size)))
        rows = _Loop(b, j_begin, j_end, "trow")
        j = rows.i
        row_bases = [b.gep(p, [b.add(b.mul(j, r), b.mul(o0, s))], source_etype=I8)
                     for (p, _, _), r, s in zip(self.inputs, sr, sk)]
        full_bb = fn.append_basic_block("trow.full")
        part_bb = fn.append_basic_block("trow.part")
        next_bb = fn.append_basic_block("trow.next")
        b.cbranch(full, full_bb, part_bb)
        for bb, limit, indexed in ((full_bb, tile_c, True), (part_bb, count, False)):
            b.position_at_end(bb)
            inner = _Loop(b, zero, limit, "tcol")
            t = inner.i
            if indexed:
                addrs = [b.gep(base, [t], source_etype=ty) for base, ty in zip(row_bases, self.in_types)]
            else:
                addrs = [b.gep(base, [b.mul(t, s)], source_etype=I8) for base, s in zip(row_bases, sk)]
            b.call(self.map_fn, addrs + self.tmp.fields(b) + [j, self.n_r])
            b.call(self.reduce_fn, acc_fields(t) + self.tmp.fields(b) + [zero, zero])
            inner.close(b, b.add(t, ir.Constant(I64, 1)))
            b.branch(next_bb)
        b.position_at_end(next_bb)
        rows.close(b, b.add(j, ir.Constant(I64, 1)))

        wants_records = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_RECORDS)), zero)
        outs = _Loop(b, zero, count, "tout")
        t = outs.i
        o = b.add(o0, t)
        rec_bb = fn.append_basic_block("tout.record")
        post_bb = fn.append_basic_block("tout.post")
        end_bb = fn.append_basic_block("tout.end")
        b.cbranch(wants_records, rec_bb, post_bb)
        b.position_at_end(rec_bb)
        slot = b.add(b.mul(c, self.n_out), o)
        dst = b.gep(self.records, [slot], source_etype=self.rec_type)
        accs.copy_to(b, t, [b.gep(dst, [ir.Constant(I32, 0), ir.Constant(I32, f)], source_etype=self.rec_type)
                            for f in range(len(self.rec_type.elements))])
        b.branch(end_bb)
        b.position_at_end(post_bb)
        out_addrs = [b.gep(p, [b.mul(o, s)], source_etype=I8) for (p, _), s in zip(self.outputs, out_sk)]
        b.call(self.post_fn, acc_fields(t) + out_addrs + [o, self.n_out])
        b.branch(end_bb)
        b.position_at_end(end_bb)
        outs.close(b, b.add(t, ir.Constant(I64, 1)))
        items.close(b, b.add(items.i, ir.Constant(I64, 1)))
