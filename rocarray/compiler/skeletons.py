"""Generic elementwise skeletons: the loops a scalar body is inlined into.

One skeleton serves every op and user kernel.  Shapes, strides, sizes and the number of
(merged) dimensions are runtime arguments (see "Kernel ABI" in docs/architecture.md); the
only thing that differs between two kernels is the scalar body and the operand dtypes.

Inside one compiled kernel the skeleton picks its path at run time: when every array
operand's innermost stride equals its item size the inner loop addresses elements by
index (so LLVM vectorises it); otherwise it follows byte strides.  On the host the loop
walks ``[start, stop)`` row by row (divisions once per row); on GPUs each thread takes a
grid-stride walk over the flat index.  The quick tiers (first calls) are simpler still:
one flat loop on the host (``host_simple_kernel_text``), one thread per element on GPUs
(``_gpu_loop_simple``), each with its entry kept as a text template per operand layout.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from ..targets.base import MAX_DIMS, Target

I8 = ir.IntType(8)
I64 = ir.IntType(64)
PTR = ir.PointerType()
DIMS = ir.ArrayType(I64, MAX_DIMS)
RAW_DESCRIPTOR = ir.LiteralStructType([PTR, I64, I64, DIMS, DIMS])


def storage_type(dtype: np.dtype) -> ir.Type:
    """The LLVM type an element of ``dtype`` is stored as."""
    k = dtype.kind
    if k == "b":
        return I8
    if k in "iu":
        return ir.IntType(8 * dtype.itemsize)
    if k == "f":
        return {2: ir.HalfType(), 4: ir.FloatType(), 8: ir.DoubleType()}[dtype.itemsize]
    if k == "c":
        f = ir.FloatType() if dtype.itemsize == 8 else ir.DoubleType()
        return ir.LiteralStructType([f, f])
    raise TypeError(f"no storage type for dtype {dtype}")


@dataclass(frozen=True)
class Operand:
    """One kernel operand: its dtype and how it is passed.

    kind: "in" (array input), "scalar" (input passed by value), "out" (array output),
    "raw" (whole array, indexed by the body).
    """

    dtype: np.dtype
    kind: str

    def param_types(self) -> list:
        if self.kind == "scalar":
            return [storage_type(self.dtype)]
        if self.kind == "raw":
            return [PTR, I64, I64, DIMS, DIMS]
        return [PTR, DIMS]


def kernel_param_types(operands, dims: ir.Type = DIMS) -> list:
    """The kernel's parameter types (docs/architecture.md, "Kernel ABI").  ``dims``: the
    type of the shape and of each array operand's strides -- by-value ``[MAX_DIMS x i64]``,
    or a pointer to where the launcher packed them (``dims_parameter_type``)."""
    types = [I64, I64, dims]
    for op in operands:
        types.extend([PTR, dims] if op.kind in ("in", "out") else op.param_types())
    return types


# llvmlite's typed pointer class is private: without it (another llvmlite), shape and
# strides go by value, which is as correct and a little slower to assemble.
_TypedPointer = getattr(getattr(ir, "types", None), "_TypedPointerType", None)

if _TypedPointer is not None:
    class _ParamPointer(_TypedPointer):
        """A pointer to a kernel parameter's bytes (``pointee``, by default the
        ``[MAX_DIMS x i64]`` of a shape or strides) printed as an opaque ``ptr`` (llvmlite
        prints its typed pointers in the pre-LLVM-17 syntax), so that a ``byref``/``byval``
        parameter attribute can name the pointee type."""

        def __init__(self, addrspace: int, pointee: ir.Type = DIMS):
            super().__init__(pointee, addrspace)

        def _to_string(self):
            return ir.PointerType._to_string(self)
else:  # pragma: no cover - depends on the llvmlite release
    _ParamPointer = None


def dims_parameter_type(target: Target) -> ir.Type:
    """How shape and strides reach a GPU quick-tier kernel: a pointer to the
    ``[MAX_DIMS x i64]`` bytes in the kernel's parameter space when the target has one
    (``target.dims_by_reference``), else by value.  Same bytes, same offsets for the
    launcher; a pointer lets the loop index a dimension at run time without copying the
    array into private (local) memory first."""
    by_ref = target.dims_by_reference
    return DIMS if by_ref is None or _ParamPointer is None else _ParamPointer(by_ref[0])


def parameter_pointer_type(target: Target, pointee: ir.Type) -> "ir.Type | None":
    """A pointer to a by-reference kernel parameter of type ``pointee`` (see
    ``dims_parameter_type``), or None where the target (or llvmlite) has none."""
    by_ref = target.dims_by_reference
    return None if by_ref is None or _ParamPointer is None else _ParamPointer(by_ref[0], pointee)


def mark_dims_arguments(target: Target, fn: ir.Function) -> None:
    """Give ``fn``'s pointer parameters of ``dims_parameter_type`` the target's attribute
    (``byval``: the pointee is the parameter's own bytes) and their alignment."""
    for arg in fn.args:
        if _ParamPointer is not None and isinstance(arg.type, _ParamPointer):
            arg.add_attribute(target.dims_by_reference[1])
            arg.attributes.align = 8


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


def _dim(builder, arr, d):
    """Element ``d`` (an i64 value) of a by-value [MAX_DIMS x i64] array."""
    # By-value arrays cannot be indexed dynamically: spill to a stack slot once.
    return builder.load(builder.gep(arr, [ir.Constant(I64, 0), d], source_etype=DIMS), typ=I64)


class _Loop:
    """``for (i = start; i < limit; i = next)``: the builder is left in the body; ``close``
    takes the next value, closes the loop and leaves the builder after it."""

    def __init__(self, b, start, limit, name: str):
        fn = b.function
        self.head = fn.append_basic_block(f"{name}.head")
        body = fn.append_basic_block(f"{name}.body")
        self.exit = fn.append_basic_block(f"{name}.exit")
        pre = b.block
        b.branch(self.head)
        b.position_at_end(self.head)
        self.i = b.phi(I64, name)
        self.i.add_incoming(start, pre)
        b.cbranch(b.icmp_signed("<", self.i, limit), body, self.exit)
        b.position_at_end(body)

    def close(self, b, next_value) -> None:
        self.i.add_incoming(next_value, b.block)
        b.branch(self.head)
        b.position_at_end(self.exit)


def _opaque(slot):
    """An alloca typed as an opaque ``ptr`` (llvmlite types it as a typed pointer and then
    refuses stores of other types, e.g. a vector into an array slot)."""
    slot.type = PTR
    return slot


def _spill(builder, value, ty):
    slot = builder.alloca(ty)
    builder.store(value, slot)
    return slot


def build_elementwise(target: Target, kernel_name: str, operands, body_fn: ir.Function,
                      module: ir.Module) -> ir.Function:
    """Add the kernel entry ``kernel_name`` calling ``body_fn`` per element to ``module``.

    The host quick tier (a host target with ``simple_loops``) is made as text instead:
    ``host_simple_kernel_text``."""
    if not target.is_gpu and target.simple_loops:
        raise ValueError("the host quick tier's kernel entry is text: use host_simple_kernel_text")
    param_types = kernel_param_types(operands)
    if target.is_gpu:
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
        _host_loop(b, fields, operands, body_fn, start, stop)
    b.ret_void()
    return fn


def _prepare(b, fields, operands, spill_dims=True):
    """Spill by-value arrays and scalars to stack slots; return (shape, per-operand info).

    Called while ``b`` is still in the entry block, so the slots are static allocas.  With
    ``spill_dims=False`` shape and strides stay by-value ``[MAX_DIMS x i64]`` values (GPU
    kernels spill them only on the paths that index them at run time)."""
    shape = _spill(b, fields.shape, DIMS) if spill_dims else fields.shape
    info = []
    for op, vals in zip(operands, fields.ops):
        if op.kind == "scalar":
            info.append(("scalar", _spill(b, vals[0], storage_type(op.dtype)), None))
        elif op.kind == "raw":
            desc = b.alloca(RAW_DESCRIPTOR)
            agg = ir.Constant(RAW_DESCRIPTOR, ir.Undefined)
            for k, v in enumerate(vals):
                agg = b.insert_value(agg, v, k)
            b.store(agg, desc)
            info.append(("raw", desc, None))
        else:
            info.append(("array", vals[0], _spill(b, vals[1], DIMS) if spill_dims else vals[1]))
    return shape, info


def _all_contiguous(b, info, operands, d):
    """i1: every array operand's stride along dim ``d`` equals its item size."""
    ok = ir.Constant(ir.IntType(1), 1)
    for (kind, _, strides), op in zip(info, operands):
        if kind == "array":
            if isinstance(d, int):  # by value, or a pointer to where the strides lie
                s = (b.extract_value(strides, d) if isinstance(strides.type, ir.ArrayType)
                     else _dim(b, strides, ir.Constant(I64, d)))
            else:
                s = _dim(b, strides, d)
            ok = b.and_(ok, b.icmp_signed("==", s, ir.Constant(I64, op.dtype.itemsize)))
    return ok


def _call_body(b, body_fn, info, addrs, i, n):
    args = []
    for (kind, slot, _), addr in zip(info, addrs):
        args.append(addr if kind == "array" else slot)
    b.call(body_fn, args + [i, n])


def _host_loop(b, fields, operands, body_fn, start, stop):
    shape, info = _prepare(b, fields, operands)
    one = ir.Constant(I64, 1)
    zero = ir.Constant(I64, 0)
    last = b.sub(fields.ndim, one)
    inner_n = _dim(b, shape, last)
    contiguous = _all_contiguous(b, info, operands, last)
    inner_strides = [
        _dim(b, strides, last) if kind == "array" else None for kind, _, strides in info
    ]
    fn = b.function

    # while i < stop: one row (a run along the last dimension) per trip
    rows = _Loop(b, start, stop, "row")
    i = rows.i
    col = b.srem(i, inner_n)
    row = b.sdiv(i, inner_n)
    # unravel the row index over the outer dimensions: base address of each operand
    bases = [slot if kind == "array" else None for kind, slot, _ in info]
    bases = _unravel(b, shape, fields.ndim, row, info, bases, first_dim_from_end=2)
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
        inner = _Loop(b, zero, count, "j")
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


def _field_layout(op) -> tuple:
    """(kind, size, alignment) of an operand's fields in the parameter buffer."""
    if op.kind == "scalar":
        size = op.dtype.itemsize
        return ("scalar", size, max(1, size // (2 if op.dtype.kind == "c" else 1)))
    if op.kind == "raw":
        return ("raw", 24 + 16 * MAX_DIMS, 8)
    return (op.kind, 8 + 8 * MAX_DIMS, 8)


def _offsets(layout) -> tuple:
    pos = 16 + 8 * MAX_DIMS  # n, ndim, shape
    offsets = []
    for _, size, align in layout:
        pos += (-pos) % align
        offsets.append(pos)
        pos += size
    return tuple(offsets)


def param_offsets(operands) -> tuple:
    """Byte offset of each operand's first field in the parameter buffer (natural
    alignment, as the launcher packs it: ``rocarray._launch.pack_format``)."""
    return _offsets(tuple(_field_layout(op) for op in operands))


def host_simple_kernel_text(kernel_name: str, operands, body_name: str = "body") -> str:
    """The host quick tier's kernel entry as LLVM IR text, calling ``body_name``.

    One loop over ``[start, stop)`` of a **1-D** space: each array pointer starts at
    ``start`` elements and steps by its stride (``shape``/``strides`` entry 0); an N-d
    launch goes through the row driver (``host_row_driver_text``), which calls this entry
    once per row with a copy of the parameters rewritten to that row.  Parameters are read
    where they lie in the argument buffer (no copies of shapes and strides): a scalar or
    raw operand's body pointer points into the buffer itself, whose layout equals the
    body's scalar or raw descriptor.  One call site of the body, so the inliner makes one
    copy of it.

    Why 1-D only: codegen O0 costs LLVM ~17K instructions per IR instruction and ~40K per
    basic block (RegAllocFast); the N-d unravel loop in every kernel (its blocks, phis and
    divisions) was 0.8M of the 3.8M instructions of ``add(int16)``'s compile (callgrind,
    parse + emit), the driver costs one compile per process.

    The text depends only on the operands' kinds and the sizes of scalar operands, so it
    is made once per such layout and only the names are put in per kernel.
    """
    layout = tuple(_field_layout(op) for op in operands)
    return _host_simple_template(layout).replace("<<entry>>", _ir_name(kernel_name)).replace(
        "<<body>>", _ir_name(body_name))


def host_row_words(operands) -> tuple:
    """(buffer bytes, word index of each array operand's pointer) of ``operands``'
    parameter buffer: what the row driver rewrites per row (its ``desc``)."""
    layout = tuple(_field_layout(op) for op in operands)
    offsets = _offsets(layout)
    size = offsets[-1] + layout[-1][1] if layout else 16 + 8 * MAX_DIMS
    return size, tuple(off // 8 for (kind, _, _), off in zip(layout, offsets) if kind in ("in", "out"))


#: The row driver's symbol (one per process, any operand layout).
HOST_ROW_DRIVER = "rocarray.host.rows"


def host_row_driver_text() -> str:
    """The row driver of the host quick tier, as LLVM IR text:
    ``void rocarray.host.rows(ptr kernel, ptr desc, ptr args, i64 start, i64 stop)``.

    It runs a quick-tier entry (``host_simple_kernel_text``, 1-D only) over the flat
    indices ``[start, stop)`` of an N-d space, one row (a run along the last dimension) at
    a time: a copy of the parameter buffer with ``ndim`` 1, and each array operand's
    pointer and stride set so that the entry's element ``i`` is the row's element -- the
    pointer is the row's start less ``i`` times the stride, so the body still sees the
    flat index ``i`` (and ``n``, scalars and raw operands are copied as they are).
    ``desc`` is ``{i64 buffer bytes, i64 array operands, i64 word index of each array
    operand's pointer}`` (``host_row_words``).  One driver serves every layout, so it is
    compiled once per process (and kept in the disk cache), at the first N-d launch of a
    quick-tier kernel.
    """
    return _ROW_DRIVER


_ROW_DRIVER = f"""define void @"{HOST_ROW_DRIVER}"(ptr %kernel, ptr %desc, ptr %args, i64 %start,
                                         i64 %stop) nounwind {{
entry:
  %nbytes = load i64, ptr %desc
  %narr.p = getelementptr i8, ptr %desc, i64 8
  %narr = load i64, ptr %narr.p
  %words = getelementptr i8, ptr %desc, i64 16
  %buf = alloca i8, i64 %nbytes, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %buf, ptr align 8 %args, i64 %nbytes, i1 false)
  %ndim.p = getelementptr i8, ptr %args, i64 8
  %ndim = load i64, ptr %ndim.p
  %shape = getelementptr i8, ptr %args, i64 16
  %last = sub i64 %ndim, 1
  %ext.p = getelementptr i64, ptr %shape, i64 %last
  %ext = load i64, ptr %ext.p
  %bndim.p = getelementptr i8, ptr %buf, i64 8
  store i64 1, ptr %bndim.p
  %bshape = getelementptr i8, ptr %buf, i64 16
  store i64 %ext, ptr %bshape
  br label %rows
rows:
  %i = phi i64 [%start, %entry], [%i.next, %run]
  %more = icmp slt i64 %i, %stop
  br i1 %more, label %row, label %exit
row:
  %col = srem i64 %i, %ext
  %rowi = sdiv i64 %i, %ext
  %avail = sub i64 %ext, %col
  %left = sub i64 %stop, %i
  %short = icmp slt i64 %left, %avail
  %count = select i1 %short, i64 %left, i64 %avail
  %i.next = add i64 %i, %count
  br label %ops
ops:
  %k = phi i64 [0, %row], [%k.next, %op.done]
  %ops.more = icmp slt i64 %k, %narr
  br i1 %ops.more, label %op, label %run
op:
  %w.p = getelementptr i64, ptr %words, i64 %k
  %w = load i64, ptr %w.p
  %base.p = getelementptr i64, ptr %args, i64 %w
  %base = load i64, ptr %base.p
  %st = getelementptr i64, ptr %base.p, i64 1
  %stl.p = getelementptr i64, ptr %st, i64 %last
  %stl = load i64, ptr %stl.p
  %at = mul i64 %col, %stl
  %back = mul i64 %i, %stl
  %off0 = sub i64 %at, %back
  br label %dims
dims:
  %d = phi i64 [%last, %op], [%d.prev, %dim]
  %r = phi i64 [%rowi, %op], [%r.next, %dim]
  %off = phi i64 [%off0, %op], [%off.next, %dim]
  %dims.more = icmp sgt i64 %d, 0
  br i1 %dims.more, label %dim, label %op.done
dim:
  %d.prev = sub i64 %d, 1
  %dx.p = getelementptr i64, ptr %shape, i64 %d.prev
  %dx = load i64, ptr %dx.p
  %idx = srem i64 %r, %dx
  %r.next = sdiv i64 %r, %dx
  %sd.p = getelementptr i64, ptr %st, i64 %d.prev
  %sd = load i64, ptr %sd.p
  %o = mul i64 %idx, %sd
  %off.next = add i64 %off, %o
  br label %dims
op.done:
  %addr = add i64 %base, %off
  %bbase.p = getelementptr i64, ptr %buf, i64 %w
  store i64 %addr, ptr %bbase.p
  %bst.p = getelementptr i64, ptr %bbase.p, i64 1
  store i64 %stl, ptr %bst.p
  %k.next = add i64 %k, 1
  br label %ops
run:
  call void %kernel(ptr %buf, i64 %i, i64 %i.next)
  br label %rows
exit:
  ret void
}}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"""


def host_simple_kernel_module(kernel_name: str, operands, module: ir.Module, body: ir.Function) -> str:
    """The host quick tier's whole module as IR text: ``module`` (holding the scalar
    ``body``) and the kernel entry of ``host_simple_kernel_text``, with the body already
    put in place of its one call when that is a plain copy (``_inline_body_text``) -- so
    the quick tier runs no inliner pass (~0.15-0.3 ms of a first call).  Otherwise (the
    body calls functions of its own) the text keeps the call and LLVM's always-inliner
    does it."""
    text = module_text(module, body)
    entry = host_simple_kernel_text(kernel_name, operands, body.name)
    inlined = _inline_body_text(text, entry, body)
    return text + entry if inlined is None else inlined


def module_text(module: ir.Module, fn: ir.Function) -> str:
    """``str(module)``, the same text, with function ``fn``'s instructions written by
    ``_instruction_text`` (llvmlite's printing raises and catches two exceptions per value
    printed the first time and formats through several layers: printing ``add(int16)``'s
    module took ~100-130 us of its first call here, about as long as building it)."""
    if module.namedmetadata or module.metadata or getattr(fn, "metadata", None):
        return str(module)
    lines = ['; ModuleID = "%s"' % (module.name,), 'target triple = "%s"' % (module.triple,),
             'target datalayout = "%s"' % (module.data_layout,), '']
    lines += [t.get_declaration() for t in module.get_identified_types().values()]
    for g in module.globals.values():
        if g is not fn:
            lines.append(str(g))
            continue
        buf = [_prototype(fn), "{\n"]
        for blk in fn.blocks:
            buf.append(blk._format_name() + ":\n")
            for ins in blk.instructions:
                printer = _PRINTERS.get(type(ins)) if not ins.metadata else None
                if printer is None:
                    buf.append(f"  {ins}\n")
                elif isinstance(ins.type, ir.VoidType):
                    buf.append(f"  {printer(ins)}\n")
                else:
                    buf.append(f"  {_ref(ins)} = {printer(ins)}\n")
        buf.append("}\n")
        lines.append("".join(buf))
    return "\n".join(lines)


def _prototype(fn: ir.Function) -> str:
    """The first line of llvmlite's text of function definition ``fn`` (no metadata)."""
    args = []
    for a in fn.args:
        attrs = a.attributes._to_list(a.type)
        args.append(f"{a.type} {' '.join(attrs)} {_ref(a)}" if attrs else f"{a.type} {_ref(a)}")
    args = ", ".join(args)
    if fn.ftype.var_arg:
        args += ", ..." if fn.args else "..."
    attrs = " " + " ".join(fn.attributes._to_list(fn.ftype.return_type)) if fn.attributes else ""
    prefix = " ".join([str(x) for x in ("define", fn.linkage, fn.calling_convention, fn.return_value) if x])
    section = f' section "{fn.section}"' if fn.section else ""
    return f"{prefix} {_ref(fn)}({args}){attrs}{section}\n"


def _ref(v) -> str:
    """``v.get_reference()``: a named value's is written here (llvmlite computes it through
    a caught AttributeError the first time), anything else is llvmlite's."""
    name = getattr(v, "_name", None)
    if name is None or "\\" in name or '"' in name:
        return v.get_reference()
    return f'{v.name_prefix}"{name}"'


def _op_text(ins) -> str:
    flags = ins.flags
    ops = ", ".join([_ref(op) for op in ins.operands])
    return f"{' '.join([ins.opname] + flags) if flags else ins.opname} {ins.type} {ops}"


def _cast_text(ins) -> str:
    op = ins.operands[0]
    return f"{ins.opname} {op.type} {_ref(op)} to {ins.type}"


def _load_text(ins) -> str:
    (val,) = ins.operands
    align = "" if ins.align is None else f", align {ins.align}"
    return f"load {ins.type}, {val.type} {_ref(val)}{align}"


def _store_text(ins) -> str:
    val, ptr = ins.operands
    align = "" if ins.align is None else f", align {ins.align}"
    return f"store {val.type} {_ref(val)}, {ptr.type} {_ref(ptr)}{align}"


def _terminator_text(ins) -> str:
    ops = ", ".join([f"{op.type} {_ref(op)}" for op in ins.operands])
    return f"{ins.opname} {ops}".rstrip()


def _ret_text(ins) -> str:
    rv = ins.return_value
    return ins.opname if rv is None else f"{ins.opname} {rv.type} {_ref(rv)}"


def _compare_text(ins) -> str:
    a, b = ins.operands
    flags = "".join([" " + f for f in ins.flags])
    return f"{ins.opname}{flags} {ins.op} {a.type} {_ref(a)}, {_ref(b)}"


def _select_text(ins) -> str:
    c, x, y = ins.cond, ins.lhs, ins.rhs
    return (f"select {' '.join(ins.flags)} {c.type} {_ref(c)}, {x.type} {_ref(x)}, {y.type} "
            f"{_ref(y)}")


def _phi_text(ins) -> str:
    incs = ", ".join([f"[{_ref(v)}, {_ref(b)}]" for v, b in ins.incomings])
    return f"phi {' '.join(ins.flags)} {ins.type} {incs}".rstrip()


#: instruction class -> its text without the result name, as llvmlite writes it (the
#: classes of the catalogue's bodies; any other is printed by llvmlite)
_PRINTERS = {
    ir.instructions.Instruction: _op_text,
    ir.instructions.CastInstr: _cast_text,
    ir.instructions.LoadInstr: _load_text,
    ir.instructions.StoreInstr: _store_text,
    ir.instructions.Branch: _terminator_text,
    ir.instructions.ConditionalBranch: _terminator_text,
    ir.instructions.Ret: _ret_text,
    ir.instructions.ICMPInstr: _compare_text,
    ir.instructions.FCMPInstr: _compare_text,
    ir.instructions.SelectInstr: _select_text,
    ir.instructions.PhiInstr: _phi_text,
}


#: a block name llvmlite writes without quotes
_SIMPLE_LABEL = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*$")
#: a static stack slot (its operands are types and constants only), after renaming
_ALLOCA = re.compile(r'^  %"(?:[^"\\]|\\.)*" = alloca [^%]*$')
#: a local name llvmlite did not quote (or a numbered one): not copied as text
_UNQUOTED_LOCAL = re.compile(r'%(?!")')


def _inline_body_text(text: str, entry: str, body: ir.Function) -> str | None:
    """``text`` (llvmlite's module with ``body`` as its only definition) and ``entry``
    (which calls ``body`` once) as one module whose entry holds a renamed copy of the
    body, as LLVM's inliner would make it; None when the body is not that simple (other
    definitions, a non-void return, dynamic stack slots, names llvmlite does not quote).

    The body's locals and labels get a ``b.`` prefix and its parameters become the call's
    arguments; ``ret void`` branches to the rest of the calling block (``<label>.done``);
    stack slots move to the entry block, where the inliner would put them."""
    start = text.find("\ndefine ")
    if start < 0 or text.find("\ndefine ", start + 1) >= 0:
        return None
    open_at = text.find("\n{\n", start)
    close_at = text.find("\n}\n", open_at)
    if open_at < 0 or close_at < 0:
        return None
    call_at = entry.find(f"  call void @{_ir_name(body.name)}(")
    if call_at < 0:
        return None
    call_end = entry.index("\n", call_at)
    call_args = entry[entry.index("(", call_at) + 1:entry.rindex(")", call_at, call_end)]
    args = [a.rsplit(" ", 1)[1] for a in call_args.split(", ")]
    if len(args) != len(body.args):
        return None
    params = {arg.name: value for arg, value in zip(body.args, args)}
    block = entry.rindex("\n", 0, entry.rindex(":\n", 0, call_at)) + 1
    label = entry[block:entry.index(":\n", block)]
    done = f"{label}.done"
    code = "\n" + text[open_at + 3:close_at]
    labels = [blk.name for blk in body.blocks]
    if (not isinstance(body.function_type.return_type, ir.VoidType) or not labels
            or _UNQUOTED_LOCAL.search(code)
            or not all(_SIMPLE_LABEL.match(n) and f"\n{n}:\n" in code for n in labels)):
        return None
    # plain replacements, no per-match Python: every local gets the prefix, then the
    # parameters become the call's arguments, label definitions are renamed and each
    # return (a void function's: ``ret void``) branches to the rest of the calling block
    code = code.replace('%"', '%"b.')
    for name, value in params.items():
        code = code.replace(f'%"b.{name}"', value)
    for n in labels:
        code = code.replace(f"\n{n}:\n", f'\n"b.{n}":\n')
    code = code[1:].replace("  ret void", f"  br label %{done}")
    slots = ""
    if " alloca " in code:  # stack slots go to the entry block, as the inliner puts them
        kept = []
        for line in code.split("\n"):
            if " alloca " in line:
                if not _ALLOCA.match(line):
                    return None
                slots += line + "\n"
            else:
                kept.append(line)
        code = "\n".join(kept)
    code, pred = _merged_blocks(code, f'"b.{labels[0]}"', label, done)
    before, after = entry[:call_at], entry[call_end:]
    if pred != label:  # the entry's phis naming the calling block (not the body's own)
        before = before.replace(f", %{label}]", f", %{pred}]")
        after = after.replace(f", %{label}]", f", %{pred}]")
    entry = before + code + after
    if slots:
        first_block = entry.index(":\n") + 2
        entry = entry[:first_block] + slots + entry[first_block:]
    end = text.find("\n", close_at + 1)
    return text[:start + 1] + text[end + 1:] + entry


def _merged_blocks(code: str, first: str, label: str, done: str) -> tuple[str, str]:
    """The renamed body ``code`` (its first block ``first``) as it replaces the call in
    block ``label``, whose rest becomes block ``done``: (the text, the block the rest of
    the calling block ends up in, which the phis after it must name).

    Straight-line joins are not kept as blocks: the body's entry block (never branched to)
    goes on the calling block, the lowering's lone branch from it to the next block goes
    when it is that block's only way in, and a body that returns once, at its end, goes
    on into the rest of the calling block.  Codegen O0 costs ~20K LLVM instructions per
    block (RegAllocFast spills and reloads at every boundary): -78K of ``add(int16)``'s
    2.78M (callgrind, parse + emit)."""
    head = first + ":\n"
    if not code.startswith(head) or "%" + first in code:
        return f"  br label %{first}\n{code}\n{done}:", done
    code = code[len(head):]
    m = _LONE_BRANCH.match(code)
    if m:
        nxt = m.group(1)
        phis = code.count(f", %{nxt}]")  # phis naming it as a predecessor name ``label`` then
        if code.count("%" + nxt) == 1 + phis:
            code = code[m.end():]
            if phis:
                code = code.replace(f", %{nxt}]", f", %{label}]")
    tail = f"\n  br label %{done}"
    if not code.endswith(tail) or code.count(f"%{done}") != 1:  # returns meet in ``done``
        return f"{code}\n{done}:", done
    code = code[:-len(tail)]
    lasts = _LABEL_LINE.findall(code)
    return code, lasts[-1] if lasts else label


#: the lowering's branch from its entry block to the next block, which follows it
_LONE_BRANCH = re.compile(r'  br label %("b\.(?:[^"\\]|\\.)*")\n\1:\n')
#: a block's label line in the renamed body
_LABEL_LINE = re.compile(r'^("b\.(?:[^"\\]|\\.)*"):$', re.M)


def _ir_name(name: str) -> str:
    return '"' + name.replace("\\", "\\5C").replace('"', "\\22") + '"'


@functools.lru_cache(maxsize=None)
def _host_simple_template(layout) -> str:
    offsets = _offsets(layout)
    arrays = [k for k, (kind, _, _) in enumerate(layout) if kind in ("in", "out")]
    t = [
        "define void @<<entry>>(ptr %args, i64 %start, i64 %stop) nounwind {",
        "entry:",
        "  %n = load i64, ptr %args",
    ]
    for k, off in enumerate(offsets):
        if k in arrays:
            t += [f"  %b{k}.p = getelementptr i8, ptr %args, i64 {off}",
                  f"  %b{k} = load ptr, ptr %b{k}.p",
                  f"  %s{k}.p = getelementptr i8, ptr %args, i64 {off + 8}",
                  f"  %s{k} = load i64, ptr %s{k}.p",
                  f"  %o{k} = mul i64 %start, %s{k}",
                  f"  %c{k} = getelementptr i8, ptr %b{k}, i64 %o{k}"]
        else:  # scalar or raw: the body reads it in place
            t.append(f"  %v{k} = getelementptr i8, ptr %args, i64 {off}")
    t += [
        "  br label %head",
        "head:",
        "  %i = phi i64 [%start, %entry], [%i.next, %call]",
    ]
    t += [f"  %a{k} = phi ptr [%c{k}, %entry], [%a{k}.next, %call]" for k in arrays]
    t += [
        "  %more = icmp slt i64 %i, %stop",
        "  br i1 %more, label %call, label %exit",
        "call:",
    ]
    args = [f"ptr %a{k}" if k in arrays else f"ptr %v{k}" for k in range(len(layout))]
    t.append(f"  call void @<<body>>({', '.join(args + ['i64 %i', 'i64 %n'])})")
    t += [f"  %a{k}.next = getelementptr i8, ptr %a{k}, i64 %s{k}" for k in arrays]
    t += [
        "  %i.next = add i64 %i, 1",
        "  br label %head",
        "exit:",
        "  ret void",
        "}",
        "",
    ]
    return "\n".join(t)


def gpu_simple_kernel_text(target: Target, kernel_name: str, operands, module: ir.Module,
                           body_name: str = "body") -> str:
    """``module`` (holding the scalar body ``body_name``) and a GPU quick tier's kernel
    entry ``kernel_name``, as LLVM IR text.

    The entry is what ``build_elementwise`` makes for ``target`` (``_gpu_loop_simple``),
    made once per target and operand layout -- kinds, and the types of scalar operands:
    array dtypes do not change it, the body takes pointers -- and kept as text, into
    which only the names are put per kernel.  Building and printing it with llvmlite's
    ``ir`` objects costs ~1.2 ms a kernel; the body alone is what changes.  The globals
    the entry uses (declarations) are added unless ``module`` has them; its metadata is
    numbered apart from ``module``'s.
    """
    layout = tuple((op.kind, op.dtype if op.kind == "scalar" else None) for op in operands)
    kernel, declarations, metadata = _gpu_simple_template(target, layout)
    kernel = kernel.replace(_KERNEL_PLACEHOLDER, "@" + _ir_name(kernel_name)).replace(
        _BODY_PLACEHOLDER, "@" + _ir_name(body_name))
    own = [line for name, line in declarations if module.globals.get(name) is None]
    return "\n".join([str(module), kernel, *own, *metadata, ""])


_KERNEL_PLACEHOLDER = '@"rk.template.kernel"'
_BODY_PLACEHOLDER = '@"rk.template.body"'
#: The template's metadata is renumbered from here, clear of the body module's own.
_METADATA_BASE = 1_000_000
_METADATA_REF = re.compile(r"!(\d+)\b")


@functools.lru_cache(maxsize=None)
def _gpu_simple_template(target: Target, layout) -> tuple:
    """(kernel definition, [(name, text)] of the other globals it uses -- intrinsic
    declarations --, metadata lines) of the GPU quick tier's entry for ``target`` and
    ``layout`` (see ``gpu_simple_kernel_text``)."""
    operands = [Operand(dtype if dtype is not None else np.dtype(np.uint8), kind) for kind, dtype in layout]
    module = ir.Module(name="template")
    module.triple = target.triple
    module.data_layout = target.data_layout
    body = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR] * len(operands) + [I64, I64]),
                       _BODY_PLACEHOLDER[2:-1])
    build_elementwise(target, _KERNEL_PLACEHOLDER[2:-1], operands, body, module)
    renumber = lambda text: _METADATA_REF.sub(lambda m: f"!{int(m[1]) + _METADATA_BASE}", text)  # noqa: E731
    kernel = renumber(str(module.globals[_KERNEL_PLACEHOLDER[2:-1]]))
    declarations = [(g.name, renumber(str(g).strip())) for g in module.global_values
                    if g is not body and g.name != _KERNEL_PLACEHOLDER[2:-1]]
    metadata = [renumber(str(md).strip()) for md in module.metadata]
    return kernel, declarations, metadata


def _pointer_phis(b, bases, pred) -> list:
    """A pointer phi per base (None stays None), entered from block ``pred`` with the base."""
    phis = []
    for base in bases:
        if base is None:
            phis.append(None)
        else:
            p = b.phi(PTR)
            p.add_incoming(base, pred)
            phis.append(p)
    return phis


def _unravel(b, shape, ndim, flat, info, bases, first_dim_from_end, narrow_division=False):
    """Add to each base address the offset of multi-index ``flat`` over dims
    ``ndim - first_dim_from_end`` down to 0; return the new bases.  ``narrow_division``:
    divide with ``_index_divmod`` instead of 64-bit ``sdiv``/``srem``."""
    fn = b.function
    start_d = b.sub(ndim, ir.Constant(I64, first_dim_from_end))
    head = fn.append_basic_block("unravel.head")
    body = fn.append_basic_block("unravel.body")
    out = fn.append_basic_block("unravel.done")
    pre = b.block
    b.branch(head)
    b.position_at_end(head)
    d = b.phi(I64, "d")
    d.add_incoming(start_d, pre)
    rem = b.phi(I64, "rem")
    rem.add_incoming(flat, pre)
    phis = _pointer_phis(b, bases, pre)
    b.cbranch(b.icmp_signed(">=", d, ir.Constant(I64, 0)), body, out)
    b.position_at_end(body)
    extent = _dim(b, shape, d)
    if narrow_division:
        idx, rem_next = _index_divmod(b, rem, extent)
        body = b.block
    else:
        idx = b.srem(rem, extent)
        rem_next = b.sdiv(rem, extent)
    for p, (kind, _, strides) in zip(phis, info):
        if p is not None:
            nxt = b.gep(p, [b.mul(idx, _dim(b, strides, d))], source_etype=I8)
            p.add_incoming(nxt, body)
    d.add_incoming(b.sub(d, ir.Constant(I64, 1)), body)
    rem.add_incoming(rem_next, body)
    b.branch(head)
    b.position_at_end(out)
    return phis


def _udivrem(b, x, y):
    """``(x % y, x // y)`` of unsigned integers of one width: one divide, then the
    remainder from the quotient (what a GPU's divide sequence gives almost for free)."""
    q = b.udiv(x, y)
    return b.sub(x, b.mul(q, y)), q


def _divmod32(b, x, y):
    """``(x % y, x // y)`` (i64) of two i64 indices below 2**32, divided in 32 bits."""
    i32 = ir.IntType(32)
    r, q = _udivrem(b, b.trunc(x, i32), b.trunc(y, i32))
    return b.zext(r, I64), b.zext(q, I64)


def _index_divmod(b, x, y):
    """``(x % y, x // y)`` of two non-negative i64 indices, cheap to compile: a 32-bit
    ``udiv`` when both fit in 32 bits (always, short of 4G-element arrays), else a
    shift-and-subtract loop.  AMDGPU has no 64-bit divide; its instruction selector
    expands one into ~100 instructions, ~3.5 ms of codegen even at O0, which is most of
    a quick-tier compile.  The builder is left in a new block after both paths."""
    fn = b.function
    narrow_bb = fn.append_basic_block("div.narrow")
    wide_bb = fn.append_basic_block("div.wide")
    join = fn.append_basic_block("div.done")
    high = b.lshr(b.or_(x, y), ir.Constant(I64, 32))
    b.cbranch(b.icmp_unsigned("==", high, ir.Constant(I64, 0)), narrow_bb, wide_bb)

    b.position_at_end(narrow_bb)
    r_narrow, q_narrow = _divmod32(b, x, y)
    b.branch(join)

    # restoring division, one quotient bit per trip, most significant first
    pre = wide_bb
    b.position_at_end(wide_bb)
    loop_bb = fn.append_basic_block("div.loop")
    b.branch(loop_bb)
    b.position_at_end(loop_bb)
    k = b.phi(I64, "div.bit")
    r = b.phi(I64, "div.rem")
    q = b.phi(I64, "div.quot")
    for phi in (k, r, q):
        phi.add_incoming(ir.Constant(I64, 63 if phi is k else 0), pre)
    bit = b.and_(b.lshr(x, k), ir.Constant(I64, 1))
    shifted = b.or_(b.shl(r, ir.Constant(I64, 1)), bit)
    fits = b.icmp_unsigned(">=", shifted, y)
    r_next = b.select(fits, b.sub(shifted, y), shifted)
    q_next = b.or_(q, b.shl(b.zext(fits, I64), k))
    k_next = b.sub(k, ir.Constant(I64, 1))
    for phi, value in ((k, k_next), (r, r_next), (q, q_next)):
        phi.add_incoming(value, loop_bb)
    b.cbranch(b.icmp_signed(">=", k_next, ir.Constant(I64, 0)), loop_bb, join)

    b.position_at_end(join)
    rem = b.phi(I64, "div.r")
    rem.add_incoming(r_narrow, narrow_bb)
    rem.add_incoming(r_next, loop_bb)
    quot = b.phi(I64, "div.q")
    quot.add_incoming(q_narrow, narrow_bb)
    quot.add_incoming(q_next, loop_bb)
    return rem, quot


#: Bytes one GPU thread moves per operand and iteration on the vector path (16-byte
#: accesses reached the copy ceiling on the H200; one element per access did not).
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
    # (by value) in stack slots filled only on the paths that index them.  A copy made by
    # every thread cost large reductions on the H200 5-10% of their bandwidth
    # (``reduction._Builder.entry_function``); here it is off the contiguous paths.
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

    shape = dims(shape_value, 16)
    dim_slots = [dims(strides, offsets[k] + 8 if offsets else 0) if kind == "array" else None
                 for k, (kind, _, strides) in enumerate(info)]
    fn = b.function
    one = ir.Constant(I64, 1)
    lanes = vector_lanes(operands)
    # private lane buffers for the vector path (static allocas: in the entry block)
    lane_slots = [
        _opaque(b.alloca(ir.ArrayType(storage_type(op.dtype), lanes))) if kind == "array" and lanes > 1 else None
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
                                      tid, nthreads, body_fn, target.global_address_space)
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
        loop = _Loop(b, start, fields.n, name)
        i = loop.i
        if name == "contiguous":
            addrs = [None if base is None else b.gep(base, [i], source_etype=storage_type(op.dtype))
                     for base, op in zip(bases, operands)]
        elif name == "flat":
            addrs = [None if base is None else
                     b.gep(base, [b.mul(i, _dim(b, strides, ir.Constant(I64, 0)))], source_etype=I8)
                     for base, (_, _, strides) in zip(bases, strided_info)]
        else:
            addrs = _unravel(b, shape, fields.ndim, i, strided_info, bases, first_dim_from_end=1)
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
    after the loop: no 64-bit multiply, and no pointer live across the loop.  Against
    64-bit strides and pointers carried through the loop (gfx942): GCN assembly of
    ``add(float32)`` 318 -> 270 instructions (70 -> 55 of them spill code), emit 10.2 ->
    9.3 ms (fastest of 21, interleaved, the 2-core VM under load; the other simple
    signatures -0.7..-1.0 ms alike); offsets in 64 bits with the bases read late: no gain.
    A launch with more elements than that or than threads traps (checked once, before
    anything else).  A 64-bit divide costs ~3.5 ms of AMDGPU instruction selection, a
    fallback for wide indices inside the loop 2-4 ms of register allocation, a
    grid-stride loop ~0.6 ms.
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

    # for (d = ndim - 1, rem = i; ; d--): off += (rem % shape[d]) * strides[d]; rem /= shape[d]
    b.position_at_end(dims_bb)
    d = b.phi(I64, "d")
    d.add_incoming(last, head)
    rem = b.phi(i32, "rem")
    rem.add_incoming(i_low, head)
    offsets = []
    for kind, _, _ in info:
        if kind == "array":
            off = b.phi(i32)
            off.add_incoming(ir.Constant(i32, 0), head)
            offsets.append(off)
        else:
            offsets.append(None)
    extent = params.dim(b, None, d, i32)
    quotient = b.udiv(rem, extent)
    idx = b.sub(rem, b.mul(quotient, extent))
    rem.add_incoming(quotient, dims_bb)
    nexts = []
    for k, off in enumerate(offsets):
        if off is None:
            nexts.append(None)
            continue
        nxt = b.add(off, b.mul(idx, params.dim(b, k, d, i32)))
        off.add_incoming(nxt, dims_bb)
        nexts.append(nxt)
    d.add_incoming(b.sub(d, ir.Constant(I64, 1)), dims_bb)
    b.cbranch(b.icmp_signed(">", d, ir.Constant(I64, 0)), dims_bb, call_bb)

    b.position_at_end(call_bb)
    addrs = [None if off is None else b.gep(params.base(b, k), [b.sext(off, I64)], source_etype=I8)
             for k, off in enumerate(nexts)]
    _call_body(b, body_fn, info, addrs, i, params.n(b))
    b.branch(exit_bb)
    b.position_at_end(exit_bb)


def load_parameter(b, buffer, offset: int, ty, index=None):
    """The ``ty`` field at byte ``offset`` of a parameter buffer (element ``index`` of it,
    as i64, for shapes and strides): what the quick tiers read in the block that uses it."""
    p = b.gep(buffer, [ir.Constant(I64, offset)], source_etype=I8)
    if index is not None:
        p = b.gep(p, [index], source_etype=I64)
    return b.load(p, typ=ty, align=8)


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
            self.dims[None] = _spill(b, fields.shape, DIMS)
            for k, op in enumerate(fields.ops):
                if len(op) > 1 and isinstance(op[1].type, ir.ArrayType):
                    self.dims[k] = _spill(b, op[1], DIMS)

    def _load(self, b, offset, ty, index=None):
        return load_parameter(b, self.buffer, offset, ty, index)

    def n(self, b):
        return self.fields.n if self.buffer is None else self._load(b, 0, I64)

    def ndim(self, b):
        return self.fields.ndim if self.buffer is None else self._load(b, 8, I64)

    def base(self, b, k):
        """Data pointer of array operand ``k``."""
        return self.fields.ops[k][0] if self.buffer is None else self._load(b, self.offsets[k], PTR)

    def dim(self, b, k, d, ty=I64):
        """``shape[d]`` (``k`` None) or the strides of array operand ``k`` at ``d``; with
        ``ty`` i32, the low half of the packed 64-bit value (little endian)."""
        if self.buffer is not None:
            return self._load(b, 16 if k is None else self.offsets[k] + 8, ty, d)
        dims = self.dims.get(k)
        if dims is None:
            dims = self.fields.shape if k is None else self.fields.ops[k][1]
        return b.load(b.gep(dims, [d], source_etype=I64), typ=ty, align=8)


def declare_trap(module: ir.Module) -> ir.Function:
    """``llvm.trap``: stop the kernel with an error the runtime reports."""
    trap = module.globals.get("llvm.trap")
    if trap is None:
        trap = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "llvm.trap")
        trap.attributes.add("noreturn")
        trap.attributes.add("nounwind")
    return trap


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
    loop = _Loop(b, tid, b.sub(nvec, span), "vu")
    firsts = [b.mul(b.add(loop.i, b.mul(nthreads, ir.Constant(I64, u))), lanes_c) for u in range(VECTOR_UNROLL)]
    slots = [lane_slots] + [_lane_slots_like(b, lane_slots, operands, lanes) for _ in range(VECTOR_UNROLL - 1)]
    vaddrs = [_vector_loads(b, bases, operands, s, first, lanes, addrspace) for s, first in zip(slots, firsts)]
    for s, first, va in zip(slots, firsts, vaddrs):
        _vector_bodies(b, info, operands, s, first, lanes, body_fn, fields.n)
        _vector_stores(b, va, operands, s, lanes)
    loop.close(b, b.add(loop.i, b.mul(nthreads, ir.Constant(I64, VECTOR_UNROLL))))
    # the whole vectors left: one per thread and trip
    single = _Loop(b, loop.i, nvec, "v")
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
    out = [None if slot is None else _opaque(b.alloca(ir.ArrayType(storage_type(op.dtype), lanes)))
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
