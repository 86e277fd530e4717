"""IR building blocks of the skeletons: counted loops, index division and the N-d unravel."""

from __future__ import annotations

from llvmlite import ir

from .abi import DIMS, I8, I64, PTR


def dim_at(builder, arr, d):
    """Element ``d`` (an i64 value) of a by-value [MAX_DIMS x i64] array."""
    # By-value arrays cannot be indexed dynamically: spill to a stack slot once.
    return builder.load(builder.gep(arr, [ir.Constant(I64, 0), d], source_etype=DIMS), typ=I64)


class CountedLoop:
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


def opaque_pointer(slot):
    """An alloca typed as an opaque ``ptr`` (llvmlite types it as a typed pointer and then
    refuses stores of other types, e.g. a vector into an array slot)."""
    slot.type = PTR
    return slot


def spill(builder, value, ty):
    slot = builder.alloca(ty)
    builder.store(value, slot)
    return slot


def pointer_phis(b, bases, pred) -> list:
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


def unravel(b, shape, ndim, flat, info, bases, first_dim_from_end, narrow_division=False):
    """Add to each base address the offset of multi-index ``flat`` over dims
    ``ndim - first_dim_from_end`` down to 0; return the new bases.  ``narrow_division``:
    divide with ``index_divmod`` instead of 64-bit ``sdiv``/``srem``."""
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
    phis = pointer_phis(b, bases, pre)
    b.cbranch(b.icmp_signed(">=", d, ir.Constant(I64, 0)), body, out)
    b.position_at_end(body)
    extent = dim_at(b, shape, d)
    if narrow_division:
        idx, rem_next = index_divmod(b, rem, extent)
        body = b.block
    else:
        idx = b.srem(rem, extent)
        rem_next = b.sdiv(rem, extent)
    for p, (kind, _, strides) in zip(phis, info):
        if p is not None:
            nxt = b.gep(p, [b.mul(idx, dim_at(b, strides, d))], source_etype=I8)
            p.add_incoming(nxt, body)
    d.add_incoming(b.sub(d, ir.Constant(I64, 1)), body)
    rem.add_incoming(rem_next, body)
    b.branch(head)
    b.position_at_end(out)
    return phis


def udivrem(b, x, y):
    """``(x % y, x // y)`` of unsigned integers of one width: one divide, then the
    remainder from the quotient (what a GPU's divide sequence gives almost for free)."""
    q = b.udiv(x, y)
    return b.sub(x, b.mul(q, y)), q


def divmod32(b, x, y):
    """``(x % y, x // y)`` (i64) of two i64 indices below 2**32, divided in 32 bits."""
    i32 = ir.IntType(32)
    r, q = udivrem(b, b.trunc(x, i32), b.trunc(y, i32))
    return b.zext(r, I64), b.zext(q, I64)


def index_divmod(b, x, y):
    """``(x % y, x // y)`` of two non-negative i64 indices, cheap to compile: a 32-bit
    ``udiv`` when both fit in 32 bits (always, short of 4G-element arrays), else a
    shift-and-subtract loop.  AMDGPU has no 64-bit divide; its instruction selector
    expands one into about a hundred instructions, most of a quick-tier compile's
    codegen even at O0.  The builder is left in a new block after both paths."""
    fn = b.function
    narrow_bb = fn.append_basic_block("div.narrow")
    wide_bb = fn.append_basic_block("div.wide")
    join = fn.append_basic_block("div.done")
    high = b.lshr(b.or_(x, y), ir.Constant(I64, 32))
    b.cbranch(b.icmp_unsigned("==", high, ir.Constant(I64, 0)), narrow_bb, wide_bb)

    b.position_at_end(narrow_bb)
    r_narrow, q_narrow = divmod32(b, x, y)
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


def declare_trap(module: ir.Module) -> ir.Function:
    """``llvm.trap``: stop the kernel with an error the runtime reports."""
    trap = module.globals.get("llvm.trap")
    if trap is None:
        trap = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "llvm.trap")
        trap.attributes.add("noreturn")
        trap.attributes.add("nounwind")
    return trap
