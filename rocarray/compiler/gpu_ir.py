"""LLVM IR pieces the hand-built GPU kernels share (radix sort, compaction, gathers,
extremes): a global element's address, a shared array, a lane-mask popcount, an if-block
and an entry-block slot; and the packing of their parameters."""

from __future__ import annotations

import functools
import struct

from llvmlite import ir

I32 = ir.IntType(32)


@functools.lru_cache(maxsize=None)
def word_packer(params: int) -> struct.Struct:
    """The packing of an entry's ``n`` and ``params`` parameters, each a 64-bit word (made
    once per count: launches look it up)."""
    return struct.Struct("<" + "Q" * (1 + params))


def global_ptr(b: ir.IRBuilder, space: ir.PointerType, base, index, ty) -> ir.Value:
    """The address of element ``index`` (i64) of the ``ty`` array at the integer address
    ``base`` in global memory (``space``: a pointer type of the global address space)."""
    return b.gep(b.inttoptr(base, space), [index], source_etype=ty)


def shared_array(module: ir.Module, target, name: str, ty, count: int, align: int) -> ir.GlobalVariable:
    """A block's shared array of ``count`` elements of ``ty`` in ``module`` (internal,
    uninitialised, aligned to ``align`` bytes) on the GPU ``target``."""
    t = ir.ArrayType(ty, count)
    gv = ir.GlobalVariable(module, t, name, addrspace=target.facts.shared_address_space)
    gv.linkage = "internal"
    gv.initializer = ir.Constant(t, ir.Undefined)
    gv.align = align
    return gv


def popcount(b: ir.IRBuilder, mask) -> ir.Value:
    """The number of set bits of the integer ``mask`` (a lane mask of 32 or 64 bits), as i32."""
    width = mask.type.width
    name = f"llvm.ctpop.i{width}"
    module = b.module
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(mask.type, [mask.type]), name)
    count = b.call(fn, [mask])
    return b.trunc(count, I32) if width > 32 else count


def if_then(b: ir.IRBuilder, cond, body, name: str = "then") -> None:
    """Run ``body()`` (which builds at ``b``) where the i1 ``cond`` holds; ``b`` is left
    after the block."""
    then_bb = b.function.append_basic_block(name)
    done_bb = b.function.append_basic_block(name + ".done")
    b.cbranch(cond, then_bb, done_bb)
    b.position_at_end(then_bb)
    body()
    b.branch(done_bb)
    b.position_at_end(done_bb)


def store_relaxed(b: ir.IRBuilder, value, ptr) -> None:
    """Store ``value`` at ``ptr`` as one relaxed (monotonic) atomic write, which other
    blocks' relaxed reads see whole (llvmlite's ``store_atomic`` asks typed pointers for
    their pointee, which opaque ones have not)."""
    b._insert(ir.instructions.StoreAtomicInstr(b.block, value, ptr, "monotonic", value.type.width // 8))


def load_relaxed(b: ir.IRBuilder, ptr, ty) -> ir.Value:
    """``ty`` at ``ptr``, read as one relaxed (monotonic) atomic load: never served from a
    stale copy, and whole as another block's relaxed store wrote it."""
    return b.load_atomic(ptr, "monotonic", ty.width // 8, typ=ty)


def entry_slot(b: ir.IRBuilder, ty) -> ir.Value:
    """A stack slot of ``ty`` in the function's entry block, where LLVM promotes it to a
    register."""
    here = b.block
    b.position_at_start(b.function.entry_basic_block)
    slot = b.alloca(ty)
    b.position_at_end(here)
    return slot


class KernelIR:
    """The small methods of a kernel builder class that keeps ``gspace`` (a pointer type of
    the target's global address space)."""

    gspace: ir.PointerType

    def c32(self, v):
        return ir.Constant(I32, v)

    def c64(self, v):
        return ir.Constant(ir.IntType(64), v)

    def gptr(self, b, base, index, ty):
        """The global address of element ``index`` (i64) of the ``ty`` array at ``base``."""
        return global_ptr(b, self.gspace, base, index, ty)

    def popc(self, b, mask):
        return popcount(b, mask)

    def if_then(self, b, cond, body, name="then"):
        if_then(b, cond, body, name)
