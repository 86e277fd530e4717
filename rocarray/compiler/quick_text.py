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
from .ir_printer import module_text
from .skeletons import build_elementwise
from .text_inline import inline_body_text, ir_name


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
