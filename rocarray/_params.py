"""The kernel ABI's parameter buffer on the host side: scalar conversion and struct layouts.

The layout (docs/architecture.md, "Kernel ABI") is natural alignment, little endian; one
``struct.Struct`` per operand layout serves every kernel of that layout.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from ._dtypes import as_dtype, int_bounds
from .compiler import abi
from .compiler.abi import MAX_DIMS


_SCALAR_CODES = {
    "b": "?", "i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I", "i8": "q", "u8": "Q",
    "f2": "e", "f4": "f", "f8": "d", "c8": "ff", "c16": "dd",
}


def _scalar_code(dtype) -> str:
    return _SCALAR_CODES["b" if dtype.kind == "b" else f"{dtype.kind}{dtype.itemsize}"]


class ScalarOutOfRange(OverflowError):
    """A Python int that its parameter's integer type cannot hold (NumPy 2's OverflowError);
    ``value`` and ``dtype`` say which (a comparison answers it exactly instead: see
    ``rocarray._elementwise``)."""

    def __init__(self, message: str, value: int, dtype: np.dtype):
        super().__init__(message)
        self.value = value
        self.dtype = dtype


def _integer_fields(dtype: np.dtype):
    lo, hi = int_bounds[dtype]

    def fields(value, name: str) -> tuple:
        if lo <= value <= hi:
            return (int(value),)
        raise ScalarOutOfRange(f"{name}: Python integer {value} out of bounds for {dtype}", value, dtype)
    return fields


def _float_fields(dtype: np.dtype):
    """Python float -> a float that packs in ``dtype``'s format, rounded as NumPy converts
    it: a magnitude that rounds past the largest finite value is infinity (``struct``
    raises there instead)."""
    info = np.finfo(dtype)
    # the midpoint between the largest finite value and the next power of two: from there
    # on, round-to-nearest-even gives infinity (the largest value's last bit is odd)
    limit = float(info.max) + 2.0 ** (int(info.maxexp) - int(info.nmant) - 2)

    def saturate(v: float) -> float:
        return v if not (v >= limit or v <= -limit) else math.copysign(math.inf, v)

    if dtype.kind == "c":
        def fields(value, name: str) -> tuple:
            v = complex(value)
            re, im = v.real, v.imag
            if -limit < re < limit and -limit < im < limit:
                return (re, im)
            return (saturate(re), saturate(im))
    else:
        def fields(value, name: str) -> tuple:
            v = float(value)
            if -limit < v < limit:
                return (v,)
            return (saturate(v),)  # (NaN and the infinities come here too: kept as they are)
    return fields


def _float64_fields(value, name: str) -> tuple:
    return (float(value),)


def _complex128_fields(value, name: str) -> tuple:
    v = complex(value)
    return (v.real, v.imag)


def _bool_fields(value, name: str) -> tuple:
    return (bool(value),)


class _Converters(dict):
    """NumPy scalar type -> its converter ``(value, name) -> packed fields``, made at the
    first look-up of a type (an alias such as ``np.longlong`` gets its dtype's)."""

    def __missing__(self, np_type):
        d = as_dtype(np.dtype(np_type))
        if d.kind == "b":
            fields = _bool_fields
        elif d.kind in "iu":
            fields = _integer_fields(d)
        elif d.itemsize == 8 and d.kind == "f":
            fields = _float64_fields
        elif d.itemsize == 16:
            fields = _complex128_fields
        else:  # float16, float32, complex64: narrower than a Python float
            fields = _float_fields(d)
        self[np_type] = fields
        return fields


SCALAR_CONVERTERS = _Converters()


def scalar_fields(value, np_type, name: str) -> tuple:
    """The packed fields of a Python scalar passed as a kernel's scalar parameter of NumPy
    type ``np_type``: ``(bool,)``, ``(int,)``, ``(float,)`` or ``(real, imag)``, converted
    as NumPy converts a Python scalar to that type (NEP 50): a float past the type's range
    is infinity; an integer the type cannot hold is a ``ScalarOutOfRange`` (an
    OverflowError, as in NumPy; ``name`` says whose)."""
    return SCALAR_CONVERTERS[np_type](value, name)


def pack_format(operands) -> struct.Struct:
    """The parameter buffer layout: natural alignment, little endian (the kernel ABI)."""
    # an array operand's fields do not depend on its dtype: one packer serves, say, every
    # binary op on arrays (a new dtype signature then makes none: ~200 Python opcodes)
    layout = tuple([(op.kind, op.dtype if op.kind == "scalar" else None) for op in operands])
    packer = _packers.get(layout)
    if packer is None:
        packer = _packers[layout] = _pack_format(operands)
    return packer


_packers: dict = {}  # (kind, scalar dtype or None) per operand -> struct.Struct


def _pack_format(operands) -> struct.Struct:
    if _ARRAY_KINDS.issuperset([op.kind for op in operands]):
        # arrays only (most ops): every field a word, no padding
        return struct.Struct(abi.HEAD_FORMAT + abi.ARRAY_FORMAT * len(operands))
    fmt = [abi.HEAD_FORMAT]  # n, ndim, shape
    size = abi.HEAD_BYTES
    for op in operands:
        kind, nbytes, align = abi.field_layout(op)
        pad = -size % align
        if pad:
            fmt.append(f"{pad}x")
        fmt.append(_FIELD_FORMATS[kind] if kind != "scalar" else _scalar_code(op.dtype))
        size += pad + nbytes
    return struct.Struct("".join(fmt))


_ARRAY_KINDS = frozenset(("in", "out"))
#: an array operand's fields (pointer, strides) and a raw one's (pointer, size, ndim, shape,
#: strides) as ``struct`` codes; a scalar's is its dtype's own
_FIELD_FORMATS = {"in": abi.ARRAY_FORMAT, "out": abi.ARRAY_FORMAT, "raw": abi.RAW_FORMAT}


def stride_positions(operands) -> tuple:
    """Where each array operand's strides start in a launch's packed values (the fields
    after ``n``: ``ndim``, the shape, then each operand's), as ``contiguous_template``
    lays them out: right after the operand's pointer."""
    _, positions = contiguous_template(operands)
    return tuple(p + 1 for p, op in zip(positions, operands) if op.kind not in ("scalar", "raw"))


def contiguous_template(operands) -> tuple[list, list]:
    """The packed values (after ``n``) of a launch over one contiguous 1-D run of
    ``operands``, with zeros for the size (index 1), the pointers and the scalars, and the
    position of each operand's first value -- what warm calls copy and fill in."""
    template = [1, 0, *_UNIT_DIMS]  # ndim 1, shape (n, 1, ...)
    positions = []
    for op in operands:
        positions.append(len(template))
        kind = op.kind
        if kind == "in" or kind == "out":  # the pointer, then the strides (itemsize, 0, ...)
            template += (0, op.dtype.itemsize, *_ZERO_DIMS)
        elif kind == "raw":
            template += (0,) * (3 + 2 * MAX_DIMS)
        else:
            template += (0, 0) if op.dtype.kind == "c" else (0,)
    return template, positions


_UNIT_DIMS = (1,) * (MAX_DIMS - 1)


_ZERO_DIMS = (0,) * (MAX_DIMS - 1)
