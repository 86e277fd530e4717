"""The quick tiers' kernel entries, kept as IR text templates per operand layout.

A first call builds only its scalar body; the entry around it is a template made once per
operand layout (host: one flat loop and the row driver for N-d launches; GPUs: the entry
``build_elementwise`` makes for the quick tier), into which the names are put per kernel.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from llvmlite import ir

from ..targets.base import Target
from .abi import HEAD_BYTES, I64, PTR, Operand, field_layout, field_offsets
from .index_ir import CountedLoop, dims_loop, opaque_pointer, wide_divmod
from .ir_printer import module_text
from .skeletons import build_elementwise
from .text_inline import inline_body_text, ir_name


def host_simple_kernel_text(kernel_name: str, operands, body_name: str = "body") -> str:
    """The host quick tier's kernel entry as LLVM IR text, calling ``body_name``.

    One loop over ``[start, stop)`` of a **1-D** space: each array pointer starts at
    ``start`` elements and steps by its stride (``shape``/``strides`` entry 0); an N-d
    launch goes through the row driver (``host_row_driver``), which calls this entry
    once per row with a copy of the parameters rewritten to that row.  Parameters are read
    where they lie in the argument buffer (no copies of shapes and strides): a scalar or
    raw operand's body pointer points into the buffer itself, whose layout equals the
    body's scalar or raw descriptor.  One call site of the body, so the inliner makes one
    copy of it.

    Why 1-D only: codegen at O0 costs in proportion to IR instructions and basic blocks, and
    an N-d unravel loop in every kernel (its blocks, phis and divisions) is a large part
    of a quick-tier compile; the row driver costs one compile per process instead.

    The text depends only on the operands' kinds and the sizes of scalar operands, so it
    is made once per such layout and only the names are put in per kernel.
    """
    layout = tuple(field_layout(op) for op in operands)
    return _host_simple_template(layout).replace("<<entry>>", ir_name(kernel_name)).replace(
        "<<body>>", ir_name(body_name))


def host_row_words(operands) -> tuple:
    """(buffer bytes, word index of each array operand's pointer) of ``operands``'
    parameter buffer: what the row driver rewrites per row (its ``desc``)."""
    layout = tuple(field_layout(op) for op in operands)
    offsets = field_offsets(layout)
    size = offsets[-1] + layout[-1][1] if layout else HEAD_BYTES
    return size, tuple(off // 8 for (kind, _, _), off in zip(layout, offsets) if kind in ("in", "out"))


#: The row driver's symbol (one per process, any operand layout).
HOST_ROW_DRIVER = "rocarray.host.rows"


def host_row_driver(target) -> ir.Module:
    """The row driver of the host quick tier, for ``target``:
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
    module = ir.Module(name=HOST_ROW_DRIVER)
    module.triple = target.triple
    module.data_layout = target.data_layout
    entry_type = ir.FunctionType(ir.VoidType(), [PTR, I64, I64])  # host_simple_kernel_text's
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [entry_type.as_pointer(), PTR, PTR, I64, I64]),
                     HOST_ROW_DRIVER)
    fn.attributes.add("nounwind")
    kernel, desc, args, start, stop = fn.args
    memcpy = module.declare_intrinsic("llvm.memcpy", [PTR, PTR, I64])
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)

    def word(base, k):  # the i64 at word ``k`` of ``base``
        return b.gep(base, [k], source_etype=I64)

    nbytes = b.load(desc, typ=I64)
    narr = b.load(word(desc, one), typ=I64)
    words = word(desc, ir.Constant(I64, 2))
    buf = opaque_pointer(b.alloca(ir.IntType(8), nbytes))
    buf.align = 8
    b.call(memcpy, [buf, args, nbytes, ir.Constant(ir.IntType(1), 0)])
    ndim = b.load(word(args, one), typ=I64)
    shape = word(args, ir.Constant(I64, 2))
    last = b.sub(ndim, one)
    ext = b.load(word(shape, last), typ=I64)
    b.store(one, word(buf, one))
    b.store(ext, word(buf, ir.Constant(I64, 2)))

    rows = CountedLoop(b, start, stop, "rows")                 # one row per trip
    i = rows.i
    col = b.srem(i, ext)
    row = b.sdiv(i, ext)
    avail = b.sub(ext, col)
    left = b.sub(stop, i)
    i_next = b.add(i, b.select(b.icmp_signed("<", left, avail), left, avail))
    ops = CountedLoop(b, zero, narr, "ops")                    # each array operand
    w = b.load(word(words, ops.i), typ=I64)
    base_p = word(args, w)
    strides = word(base_p, one)
    stride_last = b.load(word(strides, last), typ=I64)
    off0 = b.sub(b.mul(col, stride_last), b.mul(i, stride_last))

    def step(b, offs, idx, d):
        return [b.add(offs[0], b.mul(idx, b.load(word(strides, d), typ=I64)))]

    (off,), _ = dims_loop(b, b.sub(last, one), row, lambda b, d: b.load(word(shape, d), typ=I64), wide_divmod,
                          [off0], step)
    b.store(b.add(b.load(base_p, typ=I64), off), word(buf, w))
    b.store(stride_last, word(buf, b.add(w, one)))
    ops.close(b, b.add(ops.i, one))
    b.call(kernel, [buf, i, i_next])
    rows.close(b, i_next)
    b.ret_void()
    return module


def host_simple_kernel_module(kernel_name: str, operands, module: ir.Module, body: ir.Function) -> str:
    """The host quick tier's whole module as IR text: ``module`` (holding the scalar
    ``body``) and the kernel entry of ``host_simple_kernel_text``, with the body already
    put in place of its one call when that is a plain copy (``inline_body_text``) -- so
    the quick tier runs no inliner pass (a visible part of a first call).  Otherwise (the
    body calls functions of its own) the text keeps the call and LLVM's always-inliner
    does it."""
    text = module_text(module, body)
    entry = host_simple_kernel_text(kernel_name, operands, body.name)
    inlined = inline_body_text(text, entry, body)
    return text + entry if inlined is None else inlined


@functools.lru_cache(maxsize=None)
def _host_simple_template(layout) -> str:
    offsets = field_offsets(layout)
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
    which only the names are put per kernel: building and printing it with llvmlite's
    ``ir`` objects costs more than the body, which is all that changes.  The globals
    the entry uses (declarations) are added unless ``module`` has them; its metadata is
    numbered apart from ``module``'s.
    """
    layout = tuple((op.kind, op.dtype if op.kind == "scalar" else None) for op in operands)
    kernel, declarations, metadata = _gpu_simple_template(target, layout)
    kernel = kernel.replace(_KERNEL_PLACEHOLDER, "@" + ir_name(kernel_name)).replace(
        _BODY_PLACEHOLDER, "@" + ir_name(body_name))
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
