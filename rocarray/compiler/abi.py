"""The kernel ABI: how a kernel's parameters are laid out, as IR types and as byte offsets.

The launcher packs the same layout (docs/architecture.md, "Kernel ABI"); every skeleton and
the interpreter read it through this module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from ..targets.base import MAX_DIMS, Target

I8 = ir.IntType(8)
I64 = ir.IntType(64)
PTR = ir.PointerType()
DIMS = ir.ArrayType(I64, MAX_DIMS)
RAW_DESCRIPTOR = ir.LiteralStructType([PTR, I64, I64, DIMS, DIMS])
#: Byte offsets of the head of the parameters (``n``, ``ndim``, ``shape``) and its size:
#: the first operand's fields follow it.
N_OFFSET = 0
NDIM_OFFSET = 8
SHAPE_OFFSET = 16
HEAD_BYTES = SHAPE_OFFSET + 8 * MAX_DIMS
#: Bytes of an array operand's fields (pointer, strides) and of a raw operand's (pointer,
#: size, ndim, shape, strides); the strides of an array operand follow its pointer.
ARRAY_BYTES = 8 + 8 * MAX_DIMS
RAW_BYTES = 24 + 16 * MAX_DIMS
STRIDES_OFFSET = 8
#: The same fields as ``struct`` formats (little endian), for the launcher's packing: the
#: head, an array operand's and a raw operand's (a scalar is its dtype's own code).
HEAD_FORMAT = f"<qq{MAX_DIMS}q"
ARRAY_FORMAT = f"Q{MAX_DIMS}q"
RAW_FORMAT = f"Qqq{MAX_DIMS}q{MAX_DIMS}q"


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
    (``target.facts.dims_by_reference``), else by value.  Same bytes, same offsets for the
    launcher; a pointer lets the loop index a dimension at run time without copying the
    array into private (local) memory first."""
    by_ref = target.facts.dims_by_reference
    return DIMS if by_ref is None or _ParamPointer is None else _ParamPointer(by_ref[0])


def parameter_pointer_type(target: Target, pointee: ir.Type) -> "ir.Type | None":
    """A pointer to a by-reference kernel parameter of type ``pointee`` (see
    ``dims_parameter_type``), or None where the target (or llvmlite) has none."""
    by_ref = target.facts.dims_by_reference
    return None if by_ref is None or _ParamPointer is None else _ParamPointer(by_ref[0], pointee)


def mark_dims_arguments(target: Target, fn: ir.Function) -> None:
    """Give ``fn``'s pointer parameters of ``dims_parameter_type`` the target's attribute
    (``byval``: the pointee is the parameter's own bytes) and their alignment."""
    for arg in fn.args:
        if _ParamPointer is not None and isinstance(arg.type, _ParamPointer):
            arg.add_attribute(target.facts.dims_by_reference[1])
            arg.attributes.align = 8


def field_layout(op) -> tuple:
    """(kind, size, alignment) of an operand's fields in the parameter buffer."""
    if op.kind == "scalar":
        size = op.dtype.itemsize
        return ("scalar", size, max(1, size // (2 if op.dtype.kind == "c" else 1)))
    if op.kind == "raw":
        return ("raw", RAW_BYTES, 8)
    return (op.kind, ARRAY_BYTES, 8)


def field_offsets(layout) -> tuple:
    pos = HEAD_BYTES
    offsets = []
    for _, size, align in layout:
        pos += (-pos) % align
        offsets.append(pos)
        pos += size
    return tuple(offsets)


def param_offsets(operands) -> tuple:
    """Byte offset of each operand's first field in the parameter buffer (natural
    alignment, as the launcher packs it: ``rocarray._launch.pack_format``)."""
    return field_offsets(tuple(field_layout(op) for op in operands))


def load_parameter(b, buffer, offset: int, ty, index=None):
    """The ``ty`` field at byte ``offset`` of a parameter buffer (element ``index`` of it,
    as i64, for shapes and strides): what the quick tiers read in the block that uses it."""
    p = b.gep(buffer, [ir.Constant(I64, offset)], source_etype=I8)
    if index is not None:
        p = b.gep(p, [index], source_etype=I64)
    return b.load(p, typ=ty, align=8)
