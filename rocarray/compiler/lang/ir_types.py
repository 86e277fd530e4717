"""The LLVM types and constants the parts of the lowering share."""

from __future__ import annotations

from llvmlite import ir

from ..abi import I8, I64, PTR, RAW_DESCRIPTOR as RAW_DESC

__all__ = ["FSUFFIX", "I1", "I8", "I32", "I64", "PTR", "RAW_DESC", "ZERO32"]

I1 = ir.IntType(1)
I32 = ir.IntType(32)
ZERO32 = ir.Constant(I32, 0)
#: the suffix of an LLVM float intrinsic by the float's bits
FSUFFIX = {16: "f16", 32: "f32", 64: "f64"}
