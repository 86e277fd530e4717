"""IR pieces the parts of the reduction builder share: accumulator records, vector helpers, recipes."""

from __future__ import annotations

from llvmlite import ir

from .abi import I64
from .index_ir import opaque_pointer

#: The word of a record (a wave shuffle moves records 32 bits at a time).
I32 = ir.IntType(32)


class Record:
    """One accumulator record in private memory: a word array (so a wave shuffle can move
    it 32 bits at a time) viewed as the struct of its fields."""

    def __init__(self, b, rec_type, words: int):
        slot = b.alloca(ir.ArrayType(I32, words))
        slot.align = 8
        self.ptr = opaque_pointer(slot)
        self.rec_type = rec_type
        self.whole = False  # (True: the record's address stands for its fields)

    def fields(self, b) -> list:
        if self.whole:
            return [self.ptr]
        zero = ir.Constant(I32, 0)
        return [b.gep(self.ptr, [zero, ir.Constant(I32, k)], source_etype=self.rec_type)
                for k in range(len(self.rec_type.elements))]


def splat(b, value, lanes: int):
    vec_t = ir.VectorType(value.type, lanes)
    v = b.insert_element(ir.Constant(vec_t, ir.Undefined), value, ir.Constant(I32, 0))
    return b.shuffle_vector(v, ir.Constant(vec_t, ir.Undefined), ir.Constant(ir.VectorType(I32, lanes), [0] * lanes))


def convert_vector(b, x, src, dst, dst_t):
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


class RecordArray:
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
            self.ptrs.append(opaque_pointer(slot))
        b.position_at_end(here)

    def fields(self, b, k) -> list:
        zero = ir.Constant(I64, 0)
        return [b.gep(p, [zero, k], source_etype=t) for p, t in zip(self.ptrs, self.types)]

    def copy_to(self, b, k, dst_fields) -> None:
        """Copy record ``k`` to the field pointers ``dst_fields``."""
        for src, dst, t in zip(self.fields(b, k), dst_fields, self.rec_type.elements):
            b.store(b.load(src, typ=t), dst)


#: element's value and index as they are: the ``map`` is the identity).
GPU_RECIPE_NAMES = ("max", "min", "argmax", "argmin")
