"""Typed values while lowering: rvalues (an LLVM value and its KType), lvalues, and the state
of the function being lowered."""

from __future__ import annotations

from llvmlite import ir

from .types import KType


class Value:
    """An rvalue: LLVM register value ``v`` of kernel type ``t``."""

    __slots__ = ("v", "t")

    def __init__(self, v, t: KType):
        self.v = v
        self.t = t

    def __repr__(self):
        return f"Value({self.t})"


class LValue:
    """Something that can be assigned: ``ptr`` to the storage of a ``t``.  ``value`` set means
    a read-only value with no storage (an input parameter, the index ``i``); ``element``: an
    element of a raw array (memory other threads may write too)."""

    __slots__ = ("ptr", "t", "const", "name", "value", "element")

    def __init__(self, ptr, t: KType, *, const: bool = False, name: str = "", value=None, element: bool = False):
        self.ptr = ptr
        self.t = t
        self.const = const
        self.name = name
        self.value = value
        self.element = element


class RawArray:
    """A raw parameter: ``desc`` points at ``{ptr data, i64 size, i64 ndim, [8 x i64] shape,
    [8 x i64] strides}``; ``t`` is its element type."""

    __slots__ = ("desc", "t", "name", "const")

    def __init__(self, desc, t: KType, name: str, const: bool = False):
        self.desc = desc
        self.t = t
        self.name = name
        self.const = const


class LocalArray:
    """A local fixed-size array: ``ptr`` to ``[size x storage]``."""

    __slots__ = ("ptr", "t", "size", "name", "const")

    def __init__(self, ptr, t: KType, size: int, name: str, const: bool = False):
        self.ptr = ptr
        self.t = t
        self.size = size
        self.name = name
        self.const = const


class ShapeOf:
    """``x.shape()`` / ``x.strides()`` of a raw parameter, waiting to be indexed."""

    __slots__ = ("raw", "field")

    def __init__(self, raw: RawArray, field: int):
        self.raw = raw
        self.field = field


class IndexObject:
    """CuPy's ``_ind`` (only ``_ind.size()`` is supported)."""

    __slots__ = ()


class FuncCtx:
    """State of the function whose body is being lowered."""

    __slots__ = ("fn", "b", "entry", "scopes", "types", "loops", "ret", "source", "unit",
                 "is_body", "name", "params")

    def __init__(self, fn, ret, source, unit, is_body, name):
        self.fn = fn
        # allocas go to "entry", which branches to "start" once the function is complete
        self.entry = fn.append_basic_block("entry")
        self.b = ir.IRBuilder(fn.append_basic_block("start"))
        self.scopes: list[dict] = [{}]
        self.types: list[dict] = [{}]
        self.loops: list[tuple] = []   # (break block, continue block or None)
        self.ret = ret
        self.source = source
        self.unit = unit
        self.is_body = is_body
        self.name = name
        self.params: set = set()   # kernel parameter names (the body's outermost scope)
