"""Generic elementwise skeletons: the loops a scalar body is inlined into.

One skeleton serves every op and user kernel; shapes, strides, sizes and the number of
(merged) dimensions are runtime arguments.  Inside one kernel the loop picks its path at run
time (contiguous and indexed, or strided); docs/architecture.md describes the host and GPU
loops and the quick tiers' simpler ones.
"""

from __future__ import annotations

from llvmlite import ir

from ..targets.base import Target
from .abi import (DIMS, I8, I64, N_OFFSET, NDIM_OFFSET, PTR, RAW_DESCRIPTOR, SHAPE_OFFSET, STRIDES_OFFSET,
                  dims_parameter_type, kernel_param_types, load_parameter, mark_dims_arguments, param_offsets,
                  storage_type)
from .index_ir import CountedLoop, declare_trap, dim_at, dims_loop, opaque_pointer, spill, udivrem, unravel


class _Fields:
    """Kernel parameters as IR values, whether they arrive as arguments or in a struct."""

    def __init__(self, values, operands):
        self.n, self.ndim, self.shape = values[0], values[1], values[2]
        self.ops = []
        pos = 3
        for op in operands:
            k = len(op.param_types())
            self.ops.append(values[pos:pos + k])
            pos += k


def build_elementwise(target: Target, kernel_name: str, operands, body_fn: ir.Function,
                      module: ir.Module, reads_out: tuple = ()) -> ir.Function:
    """Add the kernel entry ``kernel_name`` calling ``body_fn`` per element to ``module``.
    ``reads_out``: pairs (input, output) of operand positions whose input the launcher
    passes with that output's address and strides (an op in place, ``a += b``; a user
    kernel's output read in its body): the host loop reads it through the output's
    (``_host_loop``).

    The host quick tier (a host target with ``simple_loops``) is made as text instead:
    ``host_simple_kernel_text``."""
    if not target.facts.emits_grid and target.simple_loops:
        raise ValueError("the host quick tier's kernel entry is text: use host_simple_kernel_text")
    param_types = kernel_param_types(operands)
    if target.facts.emits_grid:
        param_types = kernel_param_types(operands, dims_parameter_type(target))
        fnty = ir.FunctionType(ir.VoidType(), param_types)
        fn = ir.Function(module, fnty, kernel_name)
        target.mark_kernel(fn)
        mark_dims_arguments(target, fn)
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)
        values = list(fn.args)
        fields = _Fields(values, operands)
        if target.simple_loops:
            _gpu_loop_simple(target, b, fields, operands, body_fn)
        else:
            _gpu_loop(target, b, fields, operands, body_fn)
    else:
        fnty = ir.FunctionType(ir.VoidType(), [PTR, I64, I64])
        fn = ir.Function(module, fnty, kernel_name)
        target.mark_kernel(fn)
        args_ptr, start, stop = fn.args
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)
        st = ir.LiteralStructType(param_types)
        values = [
            b.load(b.gep(args_ptr, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), k)],
                         source_etype=st), typ=t)
            for k, t in enumerate(param_types)
        ]
        fields = _Fields(values, operands)
        _host_loop(b, fields, operands, body_fn, start, stop, reads_out)
    b.ret_void()
    return fn


def _prepare(b, fields, operands, spill_dims=True):
    """Spill by-value arrays and scalars to stack slots; return (shape, per-operand info).

    Called while ``b`` is still in the entry block, so the slots are static allocas.  With
    ``spill_dims=False`` shape and strides stay by-value ``[MAX_DIMS x i64]`` values (GPU
    kernels spill them only on the paths that index them at run time)."""
    shape = spill(b, fields.shape, DIMS) if spill_dims else fields.shape
    info = []
    for op, vals in zip(operands, fields.ops):
        if op.kind == "scalar":
            info.append(("scalar", spill(b, vals[0], storage_type(op.dtype)), None))
        elif op.kind == "raw":
            desc = b.alloca(RAW_DESCRIPTOR)
            agg = ir.Constant(RAW_DESCRIPTOR, ir.Undefined)
            for k, v in enumerate(vals):
                agg = b.insert_value(agg, v, k)
            b.store(agg, desc)
            info.append(("raw", desc, None))
        else:
            info.append(("array", vals[0], spill(b, vals[1], DIMS) if spill_dims else vals[1]))
    return shape, info


def _all_contiguous(b, info, operands, d):
    """i1: every array operand's stride along dim ``d`` equals its item size."""
    ok = ir.Constant(ir.IntType(1), 1)
    for (kind, _, strides), op in zip(info, operands):
        if kind == "array":
            if isinstance(d, int):  # by value, or a pointer to where the strides lie
                s = (b.extract_value(strides, d) if isinstance(strides.type, ir.ArrayType)
                     else dim_at(b, strides, ir.Constant(I64, d)))
            else:
                s = dim_at(b, strides, d)
            ok = b.and_(ok, b.icmp_signed("==", s, ir.Constant(I64, op.dtype.itemsize)))
    return ok


def _call_body(b, body_fn, info, addrs, i, n):
    args = []
    for (kind, slot, _), addr in zip(info, addrs):
        args.append(addr if kind == "array" else slot)
    b.call(body_fn, args + [i, n])


def _host_loop(b, fields, operands, body_fn, start, stop, reads_out=()):
    shape, info = _prepare(b, fields, operands)
    # an input that is an output (in place) is read through the output's address and
    # strides: LLVM vectorises a load and a store of one address, where two pointers that
    # are equal at run time fail its overlap check and run the scalar loop
    for k, o in reads_out:
        info[k] = info[o]
    one = ir.Constant(I64, 1)
    zero = ir.Constant(I64, 0)
    last = b.sub(fields.ndim, one)
    inner_n = dim_at(b, shape, last)
    contiguous = _all_contiguous(b, info, operands, last)
    inner_strides = [
        dim_at(b, strides, last) if kind == "array" else None for kind, _, strides in info
    ]
    fn = b.function

    # while i < stop: one row (a run along the last dimension) per trip
    rows = CountedLoop(b, start, stop, "row")
    i = rows.i
    col = b.srem(i, inner_n)
    row = b.sdiv(i, inner_n)
    # unravel the row index over the outer dimensions: base address of each operand
    bases = [slot if kind == "array" else None for kind, slot, _ in info]
    bases = unravel(b, shape, fields.ndim, row, info, bases, first_dim_from_end=2)
    for k, o in reads_out:  # (one value, not two sums LLVM cannot tell equal)
        bases[k] = bases[o]
    count = b.sub(inner_n, col)
    rest = b.sub(stop, i)
    count = b.select(b.icmp_signed("<", rest, count), rest, count)

    # the inner loop, in two versions: contiguous (indexed, vectorisable) and strided
    contig_bb = fn.append_basic_block("inner.contiguous")
    strided_bb = fn.append_basic_block("inner.strided")
    row_end = fn.append_basic_block("row.end")
    b.cbranch(contiguous, contig_bb, strided_bb)

    for bb, is_contig in ((contig_bb, True), (strided_bb, False)):
        b.position_at_end(bb)
        if is_contig:
            starts = [
                None if base is None else b.gep(base, [col], source_etype=storage_type(op.dtype))
                for base, op in zip(bases, operands)
            ]
        else:
            starts = [
                None if base is None else b.gep(base, [b.mul(col, s)], source_etype=I8)
                for base, s in zip(bases, inner_strides)
            ]
        inner = CountedLoop(b, zero, count, "j")
        j = inner.i
        addrs = []
        for base, s, op in zip(starts, inner_strides, operands):
            if base is None:
                addrs.append(None)
            elif is_contig:
                addrs.append(b.gep(base, [j], source_etype=storage_type(op.dtype)))
            else:
                addrs.append(b.gep(base, [b.mul(j, s)], source_etype=I8))
        _call_body(b, body_fn, info, addrs, b.add(i, j), fields.n)
        inner.close(b, b.add(j, one))
        b.branch(row_end)

    b.position_at_end(row_end)
    rows.close(b, b.add(i, count))


#: Bytes one GPU thread moves per operand and iteration on the vector path (16-byte
#: accesses reach the copy bandwidth where one element per access does not; see
#: benchmarks/results/history/benchmarks.md).
VECTOR_BYTES = 16
MAX_LANES = 4


def vector_lanes(operands) -> int:
    """Elements per thread iteration on the GPU vector path (1: no vector path)."""
    arrays = [op for op in operands if op.kind in ("in", "out")]
    if not arrays or any(op.dtype.kind == "c" or op.kind == "raw" for op in operands):
        return 1
    widest = max(op.dtype.itemsize for op in arrays)
    return max(1, min(MAX_LANES, VECTOR_BYTES // widest))


def _gpu_loop(target, b, fields, operands, body_fn):
    shape_value, info = _prepare(b, fields, operands, spill_dims=False)
    # shape and strides where they lie: behind the by-reference parameters (NVPTX,
    # ``dims_parameter_type``) or in the parameter buffer (AMDGPU's kernarg segment); else
    # (by value) in stack slots filled only on the paths that index them: a copy made by
    # every thread costs bandwidth (``ReductionBuilder.entry_function``), so here it is
    # off the contiguous paths.
    buffer = target.emit_parameter_buffer(b)
    offsets = param_offsets(operands) if buffer is not None else None

    def where(value, offset):
        if not isinstance(value.type, ir.ArrayType):
            return value
        if buffer is not None:
            return b.gep(buffer, [ir.Constant(I64, offset)], source_etype=I8)
        return None

    spills = []  # (by-value array, its stack slot)

    def dims(value, offset):
        p = where(value, offset)
        if p is None:
            p = b.alloca(DIMS)
            spills.append((value, p))
        return p

    shape = dims(shape_value, SHAPE_OFFSET)
    dim_slots = [dims(strides, offsets[k] + STRIDES_OFFSET if offsets else 0) if kind == "array" else None
                 for k, (kind, _, strides) in enumerate(info)]
    fn = b.function
    one = ir.Constant(I64, 1)
    lanes = vector_lanes(operands)
    # private lane buffers for the vector path (static allocas: in the entry block)
    lane_slots = [
        opaque_pointer(b.alloca(ir.ArrayType(storage_type(op.dtype), lanes))) if kind == "array" and lanes > 1 else None
        for (kind, _, _), op in zip(info, operands)
    ]
    tid = target.emit_global_thread_id(b)
    nthreads = target.emit_global_thread_count(b)
    is_1d = b.icmp_signed("==", fields.ndim, one)
    contiguous = b.and_(is_1d, _all_contiguous(b, info, operands, 0))
    bases = [slot if kind == "array" else None for kind, slot, _ in info]

    done = fn.append_basic_block("done")
    versions = ("contiguous", "flat", "nd")
    blocks = {name: fn.append_basic_block(f"loop.{name}") for name in versions}
    if lanes > 1:
        # contiguous and every pointer aligned for whole-vector accesses: the vector loop
        # first, then the scalar contiguous loop finishes the tail
        vec_bb = fn.append_basic_block("loop.vector")
        check_bb = fn.append_basic_block("check.aligned")
        b.cbranch(contiguous, check_bb, fn.append_basic_block("not.contiguous"))
        not_contig = fn.blocks[-1]
        b.position_at_end(check_bb)
        aligned = ir.Constant(ir.IntType(1), 1)
        for (kind, base, _), op in zip(info, operands):
            if kind == "array":
                mask = ir.Constant(I64, lanes * op.dtype.itemsize - 1)
                low = b.and_(b.ptrtoint(base, I64), mask)
                aligned = b.and_(aligned, b.icmp_unsigned("==", low, ir.Constant(I64, 0)))
        b.cbranch(aligned, vec_bb, blocks["contiguous"])
        b.position_at_end(vec_bb)
        tail_start = _gpu_vector_loop(b, fn, fields, operands, info, bases, lane_slots, lanes,
                                      tid, nthreads, body_fn, target.facts.global_address_space)
        tail_start = b.add(tail_start, tid)
        vec_end = b.block
        b.branch(blocks["contiguous"])
        b.position_at_end(not_contig)
    else:
        b.cbranch(contiguous, blocks["contiguous"], fn.append_basic_block("not.contiguous"))
        b.position_at_end(fn.blocks[-1])
    for value, slot in spills:
        b.store(value, slot)
    strided_info = [(kind, base, strides if slot is None else slot)
                    for (kind, base, strides), slot in zip(info, dim_slots)]
    b.cbranch(is_1d, blocks["flat"], blocks["nd"])

    for name in versions:
        b.position_at_end(blocks[name])
        start = tid
        if name == "contiguous" and lanes > 1:
            # from the vector loop: continue after its last whole vector; else from 0
            start = b.phi(I64, "tail.start")
            start.add_incoming(tail_start, vec_end)
            start.add_incoming(tid, check_bb)
        loop = CountedLoop(b, start, fields.n, name)
        i = loop.i
        if name == "contiguous":
            addrs = [None if base is None else b.gep(base, [i], source_etype=storage_type(op.dtype))
                     for base, op in zip(bases, operands)]
        elif name == "flat":
            addrs = [None if base is None else
                     b.gep(base, [b.mul(i, dim_at(b, strides, ir.Constant(I64, 0)))], source_etype=I8)
                     for base, (_, _, strides) in zip(bases, strided_info)]
        else:
            addrs = unravel(b, shape, fields.ndim, i, strided_info, bases, first_dim_from_end=1)
        _call_body(b, body_fn, info, addrs, i, fields.n)
        loop.close(b, b.add(i, nthreads))
        b.branch(done)
    b.position_at_end(done)


#: Largest iteration space a GPU quick-tier kernel takes: it divides indices in 32 bits,
#: and its grid (one thread per element) stays within a 32-bit count of work-items.  The
#: launcher runs the full tier for larger launches (``rocarray._launch``); the kernel
#: itself traps rather than compute wrong addresses.
SIMPLE_LOOP_MAX_ELEMENTS = 2**31 - 1
#: Largest byte offset, from its base pointer, of any element of an array operand of a GPU
#: quick-tier kernel: the kernel adds up offsets in 32-bit arithmetic.  The launcher checks
#: it (``simple_loop_offsets_fit``) and runs the full tier otherwise, as for more elements.
SIMPLE_LOOP_MAX_OFFSET = 2**31 - 1


def simple_loop_offsets_fit(values, stride_positions) -> bool:
    """Whether a launch's packed ``values`` (the fields after ``n``: ``ndim``, the shape,
    then the operands') suit a GPU quick-tier kernel's 32-bit offsets: for each array
    operand whose strides start at one of ``stride_positions``, the sum over the
    dimensions of ``(extent - 1) * |stride|`` -- the largest offset of any element, and a
    bound on every partial sum and product the kernel forms -- is at most
    ``SIMPLE_LOOP_MAX_OFFSET``.  (Extents are >= 1 in any launch with elements.)  A size-1
    dimension adds nothing whatever its stride."""
    ndim = values[0]
    if ndim == 1:  # the common case: merged into one run
        extent = values[1] - 1
        for p in stride_positions:
            s = values[p]
            if extent * (s if s >= 0 else -s) > SIMPLE_LOOP_MAX_OFFSET:
                return False
        return True
    for p in stride_positions:
        span = 0
        for d in range(ndim):
            s = values[p + d]
            span += (values[1 + d] - 1) * (s if s >= 0 else -s)
        if span > SIMPLE_LOOP_MAX_OFFSET:
            return False
    return True


def _gpu_loop_simple(target, b, fields, operands, body_fn):
    """The quick tier's GPU kernel: one thread per element (no grid-stride loop: the
    launcher gives a quick-tier kernel a grid of at least ``n`` threads), its index
    unravelled over the dimensions, one copy of the body -- code that is cheap to compile,
    for first calls.

    What the compile costs is mostly the backend at O0, whose register allocator stores
    and reloads every value live across a block boundary, and whose control-flow
    structurizer adds blocks around every divergent loop; so the kernel has six blocks
    (one of them the trap), one uniform loop and few values live across blocks.  Shape
    and strides are read where the launcher packed them, indexed by the dimension (no
    copy into private or local memory): through the target's pointer to the parameter
    buffer (``emit_parameter_buffer``: each block reads the fields it uses, so they are
    not live across blocks), else through the pointer parameters of
    ``dims_parameter_type``.  The unravel is a loop of one block over dimensions
    ``ndim-1`` down to 0 (dimension 0 divides the index by its own extent: the quotient
    is 0), dividing in 32 bits: every index and extent is at most ``n`` (an extent is 0
    only when ``n`` is, and then no thread gets that far), and ``n`` is at most
    ``SIMPLE_LOOP_MAX_ELEMENTS``.  The loop carries one 32-bit byte offset per array
    operand (the low halves of the packed extents and strides, multiplied and added in
    32 bits: exact, as the launcher keeps every operand's offsets within
    ``SIMPLE_LOOP_MAX_OFFSET``), and the base pointers are read in the element's block,
    after the loop: no 64-bit multiply, and no pointer live across the loop (fewer
    instructions and less spill code than 64-bit strides and pointers carried through
    the loop, and a faster emit; benchmarks/results/history/benchmarks.md).  A launch with more elements than
    that or than threads traps (checked once, before anything else): a 64-bit divide, a
    fallback for wide indices inside the loop or a grid-stride loop would each cost more
    codegen time than the whole rest of the kernel.
    """
    fn = b.function
    i32 = ir.IntType(32)
    # scalars and raw descriptors: behind pointers for the body (SROA removes the slots)
    _, info = _prepare(b, fields, operands, spill_dims=False)
    params = _SimpleParams(target, b, fields, operands)
    tid = target.emit_global_thread_id(b)
    nthreads = target.emit_global_thread_count(b)
    n = params.n(b)
    too_big = b.or_(b.icmp_unsigned(">", n, ir.Constant(I64, SIMPLE_LOOP_MAX_ELEMENTS)),
                    b.icmp_unsigned(">", n, nthreads))
    trap_bb = fn.append_basic_block("too.many.elements")
    head = fn.append_basic_block("thread")
    dims_bb = fn.append_basic_block("unravel")
    call_bb = fn.append_basic_block("element")
    exit_bb = fn.append_basic_block("done")
    b.cbranch(too_big, trap_bb, head)

    b.position_at_end(trap_bb)
    b.call(declare_trap(b.module), [])
    b.unreachable()

    # if (i < n): the thread's element
    b.position_at_end(head)
    i = tid
    last = b.sub(params.ndim(b), ir.Constant(I64, 1))
    i_low = b.trunc(i, i32)  # i < n <= SIMPLE_LOOP_MAX_ELEMENTS
    b.cbranch(b.icmp_signed("<", i, params.n(b)), dims_bb, exit_bb)

    # for (d = ndim - 1, rem = i; d >= 0; d--): off += (rem % shape[d]) * strides[d]; rem /= shape[d]
    b.position_at_end(dims_bb)

    def step(b, offsets, idx, d):
        return [None if off is None else b.add(off, b.mul(idx, params.dim(b, k, d, i32)))
                for k, off in enumerate(offsets)]

    zero = ir.Constant(i32, 0)
    nexts, _ = dims_loop(b, last, i_low, lambda b, d: params.dim(b, None, d, i32), udivrem,
                         [zero if kind == "array" else None for kind, _, _ in info], step, entered_from=head,
                         then=call_bb)
    addrs = [None if off is None else b.gep(params.base(b, k), [b.sext(off, I64)], source_etype=I8)
             for k, off in enumerate(nexts)]
    _call_body(b, body_fn, info, addrs, i, params.n(b))
    b.branch(exit_bb)
    b.position_at_end(exit_bb)


class _SimpleParams:
    """Where the quick-tier GPU loop reads ``n``, ``ndim``, the array pointers, shape and
    strides: loaded from the target's parameter buffer at the launcher's offsets in the
    block that uses them (``Target.emit_parameter_buffer``), or the kernel's arguments."""

    def __init__(self, target, b, fields, operands):
        self.fields = fields
        self.buffer = target.emit_parameter_buffer(b)
        self.offsets = param_offsets(operands)
        # shape and strides by value (no pointer type for them in this llvmlite): one
        # stack copy each, made here in the entry block, indexed at run time
        self.dims = {}
        if self.buffer is None and isinstance(fields.shape.type, ir.ArrayType):
            self.dims[None] = spill(b, fields.shape, DIMS)
            for k, op in enumerate(fields.ops):
                if len(op) > 1 and isinstance(op[1].type, ir.ArrayType):
                    self.dims[k] = spill(b, op[1], DIMS)

    def _load(self, b, offset, ty, index=None):
        return load_parameter(b, self.buffer, offset, ty, index)

    def n(self, b):
        return self.fields.n if self.buffer is None else self._load(b, N_OFFSET, I64)

    def ndim(self, b):
        return self.fields.ndim if self.buffer is None else self._load(b, NDIM_OFFSET, I64)

    def base(self, b, k):
        """Data pointer of array operand ``k``."""
        return self.fields.ops[k][0] if self.buffer is None else self._load(b, self.offsets[k], PTR)

    def dim(self, b, k, d, ty=I64):
        """``shape[d]`` (``k`` None) or the strides of array operand ``k`` at ``d``; with
        ``ty`` i32, the low half of the packed 64-bit value (little endian)."""
        if self.buffer is not None:
            return self._load(b, SHAPE_OFFSET if k is None else self.offsets[k] + STRIDES_OFFSET, ty, d)
        dims = self.dims.get(k)
        if dims is None:
            dims = self.fields.shape if k is None else self.fields.ops[k][1]
        return b.load(b.gep(dims, [d], source_etype=I64), typ=ty, align=8)


#: Vectors per thread and trip on the GPU vector path: the loads of all of them are in
#: flight before the first body runs, so an op with real work per element (``exp``) still
#: keeps enough bytes in flight to run at the copy bandwidth.
VECTOR_UNROLL = 2


def _gpu_vector_loop(b, fn, fields, operands, info, bases, lane_slots, lanes, tid, nthreads, body_fn,
                     addrspace=None):
    """Whole vectors of ``lanes`` elements per thread and trip: ``VECTOR_UNROLL`` vectors
    ``nthreads`` apart per trip (one vector load per input each, all issued first), the body
    per lane on private copies, one vector store per output; then single vectors for what
    is left of the whole vectors.  Returns the index of the first element left for the
    scalar tail."""
    lanes_c = ir.Constant(I64, lanes)
    nvec = b.sdiv(fields.n, lanes_c)
    span = b.mul(nthreads, ir.Constant(I64, VECTOR_UNROLL - 1))
    # trips of VECTOR_UNROLL vectors while the last of them is a whole vector
    loop = CountedLoop(b, tid, b.sub(nvec, span), "vu")
    firsts = [b.mul(b.add(loop.i, b.mul(nthreads, ir.Constant(I64, u))), lanes_c) for u in range(VECTOR_UNROLL)]
    slots = [lane_slots] + [_lane_slots_like(b, lane_slots, operands, lanes) for _ in range(VECTOR_UNROLL - 1)]
    vaddrs = [_vector_loads(b, bases, operands, s, first, lanes, addrspace) for s, first in zip(slots, firsts)]
    for s, first, va in zip(slots, firsts, vaddrs):
        _vector_bodies(b, info, operands, s, first, lanes, body_fn, fields.n)
        _vector_stores(b, va, operands, s, lanes)
    loop.close(b, b.add(loop.i, b.mul(nthreads, ir.Constant(I64, VECTOR_UNROLL))))
    # the whole vectors left: one per thread and trip
    single = CountedLoop(b, loop.i, nvec, "v")
    first = b.mul(single.i, lanes_c)
    va = _vector_loads(b, bases, operands, lane_slots, first, lanes, addrspace)
    _vector_bodies(b, info, operands, lane_slots, first, lanes, body_fn, fields.n)
    _vector_stores(b, va, operands, lane_slots, lanes)
    single.close(b, b.add(single.i, nthreads))
    return b.mul(nvec, lanes_c)


def _lane_slots_like(b, lane_slots, operands, lanes) -> list:
    """Another set of private lane buffers (static allocas in the entry block)."""
    here = b.block
    b.position_at_start(b.function.entry_basic_block)
    out = [None if slot is None else opaque_pointer(b.alloca(ir.ArrayType(storage_type(op.dtype), lanes)))
           for slot, op in zip(lane_slots, operands)]
    b.position_at_end(here)
    return out


def _vector_loads(b, bases, operands, slots, first, lanes, addrspace) -> list:
    """The vector address of each array operand at element ``first``; inputs loaded into
    their lane buffers."""
    vaddrs = []
    for base, op, slot in zip(bases, operands, slots):
        if base is None or slot is None:
            vaddrs.append(None)
            continue
        t = storage_type(op.dtype)
        addr = b.gep(base, [first], source_etype=t)
        if addrspace is not None:
            addr = b.addrspacecast(addr, ir.PointerType(addrspace=addrspace))
        vaddrs.append(addr)
        if op.kind == "in":
            b.store(b.load(addr, typ=ir.VectorType(t, lanes), align=lanes * op.dtype.itemsize), slot)
    return vaddrs


def _vector_bodies(b, info, operands, slots, first, lanes, body_fn, n) -> None:
    for j in range(lanes):
        addrs = [None if slot is None else
                 b.gep(slot, [ir.Constant(I64, 0), ir.Constant(I64, j)],
                       source_etype=ir.ArrayType(storage_type(op.dtype), lanes))
                 for slot, op in zip(slots, operands)]
        _call_body(b, body_fn, info, addrs, b.add(first, ir.Constant(I64, j)), n)


def _vector_stores(b, vaddrs, operands, slots, lanes) -> None:
    for addr, op, slot in zip(vaddrs, operands, slots):
        if addr is not None and op.kind == "out":
            vec_t = ir.VectorType(storage_type(op.dtype), lanes)
            b.store(b.load(slot, typ=vec_t), addr, align=lanes * op.dtype.itemsize)
