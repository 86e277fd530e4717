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


def dims_loop(b, start, rem, extent, divide, carried=(), step=None, *, stop=0, entered_from=None,
              then=None, name: str = "unravel"):
    """The N-d unravel: the one loop over dimensions that every skeleton, the interpreter
    and the row driver build.  For ``d`` from ``start`` down to ``stop``:
    ``idx, rem = divide(b, rem, extent(b, d))``, then the carried values (pointers or
    offsets; None stays None) become ``step(b, carried, idx, d)``.  Returns the carried
    values and ``rem`` after the last dimension, the builder left after the loop.

    ``entered_from`` None: the loop tests ``d >= stop`` before each trip, in blocks of its
    own after the current one (no trip when ``start < stop``).  A block: the builder is at
    the start of the empty block the caller branched to from ``entered_from``, and the
    loop tests after each trip (at least one trip; one block fewer, which the quick tiers'
    compile time counts), leaving to block ``then`` if given.  ``extent`` and ``divide`` work in ``rem``'s width, so a loop
    over 32-bit indices divides in 32 bits."""
    fn = b.function
    one = ir.Constant(start.type, 1)
    bound = ir.Constant(start.type, stop)
    if entered_from is None:
        pre = b.block
        loop = fn.append_basic_block(f"{name}.head")
        body = fn.append_basic_block(f"{name}.body")
        out = fn.append_basic_block(f"{name}.done")
        b.branch(loop)
        b.position_at_end(loop)
    else:
        pre, loop = entered_from, b.block
    d = b.phi(start.type, "d")
    d.add_incoming(start, pre)
    r = b.phi(rem.type, "rem")
    r.add_incoming(rem, pre)
    phis = []
    for v in carried:
        p = None if v is None else b.phi(PTR if isinstance(v.type, ir.PointerType) else v.type)
        if p is not None:
            p.add_incoming(v, pre)
        phis.append(p)
    if entered_from is None:
        b.cbranch(b.icmp_signed(">=", d, bound), body, out)
        b.position_at_end(body)
    idx, r_next = divide(b, r, extent(b, d))
    nexts = step(b, phis, idx, d) if step is not None else []
    d_next = b.sub(d, one)
    end = b.block
    for p, v in zip(phis, nexts):
        if p is not None:
            p.add_incoming(v, end)
    d.add_incoming(d_next, end)
    r.add_incoming(r_next, end)
    if entered_from is None:
        b.branch(loop)
        b.position_at_end(out)
        return phis, r
    out = then if then is not None else fn.append_basic_block(f"{name}.done")
    b.cbranch(b.icmp_signed(">", d, bound), loop, out)
    b.position_at_end(out)
    return list(nexts), r_next


def wide_divmod(b, x, y):
    """``(x % y, x // y)`` of signed indices by LLVM's own division."""
    return b.srem(x, y), b.sdiv(x, y)


def unravel(b, shape, ndim, flat, info, bases, first_dim_from_end, narrow_division=False):
    """Add to each base address the offset of multi-index ``flat`` over dims
    ``ndim - first_dim_from_end`` down to 0 (``dims_loop``); return the new bases.
    ``narrow_division``: divide with ``index_divmod`` instead of 64-bit ``sdiv``/``srem``."""
    def step(b, ptrs, idx, d):
        return [None if p is None else b.gep(p, [b.mul(idx, dim_at(b, strides, d))], source_etype=I8)
                for p, (_, _, strides) in zip(ptrs, info)]

    ptrs, _ = dims_loop(b, b.sub(ndim, ir.Constant(I64, first_dim_from_end)), flat,
                        lambda b, d: dim_at(b, shape, d), index_divmod if narrow_division else wide_divmod,
                        bases, step)
    return ptrs


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
