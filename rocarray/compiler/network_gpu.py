"""The GPU sort's quick tier: a bitonic sorting network over (key, place) pairs, built as
LLVM IR -- two small kernels that compile in milliseconds and sort a new key kind while
the radix sort's modules (``radix_gpu``), which take a tenth of a second or more, are
not compiled yet.

A key is an unsigned integer of 32 or 64 bits (the radix sort's keys: the callers make
them from the values); a place is a key's index in its row (32 bits).  Pairs compare by
key, then by place, so the network sorts stably and gives the radix sort's order exactly.

The network is the bitonic sorter in its *flip* form: stage ``s`` (2, 4, ... up to the
row's length rounded up to a power of two, ``P``) first compares, in each block of ``s``
places, place ``i`` with ``i ^ (s - 1)`` (the block's mirror), then, for each distance
``d`` from ``s / 4`` down to 1, place ``i`` with ``i + d`` (``i`` without bit ``d``); each
compare leaves the smaller pair at the lower place.  Places from the row's length ``L``
to ``P`` hold no pair: a compare with such a place is skipped, as one with a pair larger
than any would keep it there.  A step's compares are independent, ``P / 2`` of them.

* ``entry`` (*tiles*): a block takes tiles of ``2**lt`` places of a row (``lt`` at most
  ``TILE_LOG``) into shared memory and either sorts each (every stage up to its size;
  the places are made, not read) or, with ``merge``, runs the distances below the tile's
  size of one later stage (the places read); the keys and places go back where they came
  from.  ``n`` is rows times ``tiles``, the row's tiles.
* ``entry_g`` (*step*): one compare of every row's step of stage ``2**ls`` at distance
  ``2**ld`` (``ld == ls - 1``: the stage's mirror step) through global memory, for steps
  whose distance spans tiles; ``n`` is rows times ``2**lh`` (``P / 2``).

A row of up to ``TILE`` keys is one launch; a longer one is that launch, then per later
stage one launch per distance of at least a tile and one merge of the tiles: 105 launches
for ``2**24`` keys, each a pass over the keys and places.  Sizes and stages are run-time
parameters: one module per key width, and a new size compiles nothing.
"""

from __future__ import annotations

import struct

from llvmlite import ir

from .abi import I64
from .gpu_ir import global_ptr, if_then, word_packer
from .index_ir import CountedLoop
from .reduction_abi import EntryParams

I32 = ir.IntType(32)

#: Threads of a block of either entry.
BLOCK = 256
#: The largest tile a block sorts in shared memory (``2**TILE_LOG`` pairs: 24 KiB with
#: 64-bit keys).
TILE_LOG = 11
TILE = 1 << TILE_LOG
#: The parameters of each entry after ``n``.
PARAMS = {
    "": ("keys", "pos", "L", "tiles", "lt", "merge"),
    "_g": ("keys", "pos", "L", "lh", "ls", "ld"),
}
ENTRIES = ("", "_g")
KEY_BITS = (32, 64)
#: Changes with the code these kernels are built from (part of their cache key).
VERSION = 1


def packer(suffix: str) -> struct.Struct:
    """The packing of entry ``suffix``'s parameters: ``n`` then ``PARAMS[suffix]``."""
    return word_packer(len(PARAMS[suffix]))


def partner_mask(b: ir.IRBuilder, ls, ld) -> ir.Value:
    """What place ``i`` is xor-ed with to find its partner at stage ``2**ls``, distance
    ``2**ld`` (integers of one type): the stage's low bits at its mirror step, else the
    distance."""
    one = ir.Constant(ls.type, 1)
    mirror = b.icmp_unsigned("==", ld, b.sub(ls, one))
    return b.select(mirror, b.sub(b.shl(one, ls), one), b.shl(one, ld))


def lower_place(b: ir.IRBuilder, q, ld) -> ir.Value:
    """The lower place of compare ``q`` of a step at distance ``2**ld``: ``q`` with a zero
    bit inserted at ``ld``."""
    one = ir.Constant(q.type, 1)
    low = b.and_(q, b.sub(b.shl(one, ld), one))
    return b.or_(b.shl(b.lshr(q, ld), b.add(ld, one)), low)


class _Network:
    """One entry's builder: its parameters, ids and the compare-exchange of pairs."""

    def __init__(self, module, target, name, suffix, bits):
        facts = target.facts
        if not facts.emits_grid:
            raise ValueError(f"the sorting network needs a GPU target; {target.name} has no grid")
        if bits not in KEY_BITS:
            raise ValueError(f"the sorting network takes keys of {KEY_BITS} bits, not {bits}")
        self.module, self.target = module, target
        self.K = ir.IntType(bits)
        names = ("n",) + PARAMS[suffix]
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), name + suffix)
        target.mark_kernel(fn)
        self.b = b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        self.p = {nm: params.value(b, k) for k, nm in enumerate(names)}
        self.tid = target.emit_thread_in_block(b)  # (i64, as every target gives its ids)
        self.bid = target.emit_block_id(b)
        self.nblocks = target.emit_block_count(b)
        self.gspace = ir.PointerType(addrspace=facts.global_address_space)
        self.sspace = facts.shared_address_space

    def c(self, v):
        return ir.Constant(I64, v)

    def gptr(self, base, index, ty):
        return global_ptr(self.b, self.gspace, base, index, ty)

    def greater(self, ka, pa, kb, pb):
        """Whether pair a orders after pair b (key, then place)."""
        b = self.b
        return b.or_(b.icmp_unsigned(">", ka, kb), b.and_(b.icmp_unsigned("==", ka, kb), b.icmp_unsigned(">", pa, pb)))

    def exchange(self, ptrs_i, ptrs_j):
        """Compare the pairs at two places (their (key, place) pointers) and leave the
        smaller at the first."""
        b = self.b
        (ki_p, pi_p), (kj_p, pj_p) = ptrs_i, ptrs_j
        ki, pi = b.load(ki_p, typ=self.K), b.load(pi_p, typ=I32)
        kj, pj = b.load(kj_p, typ=self.K), b.load(pj_p, typ=I32)

        def swap():
            b.store(kj, ki_p)
            b.store(pj, pi_p)
            b.store(ki, kj_p)
            b.store(pi, pj_p)

        if_then(b, self.greater(ki, pi, kj, pj), swap, "swap")


def build_network_module(module: ir.Module, target, entry: str, bits: int) -> None:
    """Add both entries of the network over ``bits``-bit keys to ``module``."""
    _build_tiles(module, target, entry, bits)
    _build_step(module, target, entry, bits)


def _build_tiles(module, target, entry, bits) -> None:
    k = _Network(module, target, entry, "", bits)
    b, p, K = k.b, k.p, k.K
    keys_t = ir.ArrayType(K, TILE)
    pos_t = ir.ArrayType(I32, TILE)
    shared = []
    for name, ty in (("network_keys", keys_t), ("network_places", pos_t)):
        gv = ir.GlobalVariable(module, ty, name, addrspace=k.sspace)
        gv.linkage = "internal"
        gv.initializer = ir.Constant(ty, ir.Undefined)
        gv.align = 16
        shared.append(gv)

    def sptr(gv, ety, index):
        ptr = b.gep(gv, [ir.Constant(index.type, 0), index], source_etype=gv.value_type)
        ptr.type = ir.PointerType(addrspace=k.sspace)
        return ptr

    def pair(index):
        return sptr(shared[0], K, index), sptr(shared[1], I32, index)

    # (a tile's places, stages and steps count in 32 bits: 64-bit shifts and compares are
    # pairs of instructions, and the assembler's time grows with them)
    L = p["L"]
    lt, merge = b.trunc(p["lt"], I32), b.trunc(p["merge"], I32)
    one, block = ir.Constant(I32, 1), ir.Constant(I32, BLOCK)
    tid = b.trunc(k.tid, I32)
    size = b.shl(one, lt)
    half = b.lshr(size, one)
    merging = b.icmp_unsigned("!=", merge, ir.Constant(I32, 0))
    tiles_loop = CountedLoop(b, k.bid, p["n"], "tile")
    t = tiles_loop.i
    # (32-bit: a 64-bit division is a long subroutine; a launch has fewer than 2**31 tiles)
    t32, tiles = b.trunc(t, I32), b.trunc(p["tiles"], I32)
    row = b.udiv(t32, tiles)
    start = b.shl(b.sub(t32, b.mul(row, tiles)), lt)  # (the tile's first place: below L < 2**32)
    base = b.add(b.mul(b.zext(row, I64), L), b.zext(start, I64))
    rest = b.trunc(b.sub(L, b.zext(start, I64)), I32)
    count = b.select(b.icmp_unsigned("<", rest, size), rest, size)

    def at(e):
        return b.add(base, b.zext(e, I64))

    # the tile into shared memory; places past the row hold the largest pair
    load = CountedLoop(b, tid, size, "load")
    e = load.i
    kp, pp = pair(e)
    fn = b.function
    read_bb, pad_bb, loaded_bb = (fn.append_basic_block(s) for s in ("read", "pad", "loaded"))
    b.cbranch(b.icmp_unsigned("<", e, count), read_bb, pad_bb)
    b.position_at_end(read_bb)
    key = b.load(k.gptr(p["keys"], at(e), K), typ=K, align=bits // 8)
    read = b.load(k.gptr(p["pos"], at(e), I32), typ=I32, align=4)
    b.store(key, kp)
    b.store(b.select(merging, read, b.add(start, e)), pp)
    b.branch(loaded_bb)
    b.position_at_end(pad_bb)
    b.store(ir.Constant(K, (1 << bits) - 1), kp)
    b.store(ir.Constant(I32, (1 << 32) - 1), pp)
    b.branch(loaded_bb)
    b.position_at_end(loaded_bb)
    load.close(b, b.add(e, block), unroll=False)
    target.emit_barrier(b)
    # the stages: 1 .. lt, each from its mirror step (ld = ls - 1); a merge: the one stage
    # lt + 1 from distance lt - 1 (its steps of longer distances ran through global memory)
    first_stage = b.select(merging, b.add(lt, one), one)
    stages = CountedLoop(b, first_stage, b.add(b.add(lt, one), merge), "stage")
    ls = stages.i
    top = b.sub(b.sub(ls, one), merge)
    steps = CountedLoop(b, ir.Constant(I32, 0), b.add(top, one), "step")
    ld = b.sub(top, steps.i)
    mask = partner_mask(b, ls, ld)
    compares = CountedLoop(b, tid, half, "compare")
    i = lower_place(b, compares.i, ld)
    k.exchange(pair(i), pair(b.xor(i, mask)))
    compares.close(b, b.add(compares.i, block), unroll=False)
    target.emit_barrier(b)
    steps.close(b, b.add(steps.i, one), unroll=False)
    stages.close(b, b.add(ls, one), unroll=False)
    # the tile's pairs back (none past the row)
    store = CountedLoop(b, tid, count, "store")
    kp, pp = pair(store.i)
    b.store(b.load(kp, typ=K), k.gptr(p["keys"], at(store.i), K), align=bits // 8)
    b.store(b.load(pp, typ=I32), k.gptr(p["pos"], at(store.i), I32), align=4)
    store.close(b, b.add(store.i, block), unroll=False)
    target.emit_barrier(b)  # (before the next tile's loads overwrite the stage)
    tiles_loop.close(b, b.add(t, k.nblocks), unroll=False)
    b.ret_void()


def _build_step(module, target, entry, bits) -> None:
    k = _Network(module, target, entry, "_g", bits)
    b, p, K = k.b, k.p, k.K
    one = k.c(1)
    L, lh, ls, ld = p["L"], p["lh"], p["ls"], p["ld"]
    mask = partner_mask(b, ls, ld)
    stride = b.mul(k.nblocks, k.c(BLOCK))
    loop = CountedLoop(b, b.add(b.mul(k.bid, k.c(BLOCK)), k.tid), p["n"], "compare")
    q = loop.i
    row = b.lshr(q, lh)
    i = lower_place(b, b.and_(q, b.sub(b.shl(one, lh), one)), ld)
    j = b.xor(i, mask)

    def compare():
        base = b.mul(row, L)

        def at(place):
            return k.gptr(p["keys"], b.add(base, place), K), k.gptr(p["pos"], b.add(base, place), I32)

        k.exchange(at(i), at(j))

    if_then(b, b.icmp_unsigned("<", j, L), compare, "present")  # (i < j: both in the row)
    loop.close(b, b.add(q, stride), unroll=False)
    b.ret_void()
