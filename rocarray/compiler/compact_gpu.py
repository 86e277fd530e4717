"""The GPU compaction kernels (``x[mask]``, ``nonzero``): per-tile counts of a mask's true
elements, then each tile's true elements written in order at the tile's offset, built as
LLVM IR.

One module per value size holds two entries; sizes are run-time parameters (each one
64-bit word, ``PARAMS``).  A tile is ``TILE`` mask bytes, block ``b`` works tile ``b``;
a thread reads ``ITEMS`` 4-byte words of the mask (a wave's words adjacent each step),
four mask elements a word, element ``4 * word + byte`` (C order).

* ``entry`` (*count*): the number of true elements of each tile into ``counts[tile]``
  (int32), summed by wave shuffles and across the waves in shared memory;
* ``entry_s`` (*scan*): one block turns the counts into their inclusive scan
  ``incl[tile]`` (int64), ``SCAN_ITEMS`` counts a thread per round of the block, a running
  carry between rounds (one launch: the result's size is its last element, read back);
* ``entry_w`` (*write*): the tile's true elements, ranked in C order -- within a wave
  step by four ballots (one per byte of the word: lane ``l``'s byte ``b`` follows every
  true byte of the lanes below it and its own bytes below ``b``), steps by a running
  count, waves by a scan of their totals in shared memory -- each written at the tile's
  offset (``incl[tile - 1]``, the inclusive scan of the counts) plus its rank: the value
  of ``x`` (``size`` bytes, the entry's value size) or, for size 0, its flat index.
  Values of up to 8 bytes go through shared memory at their ranks first, and the block
  writes the tile's run from there with adjacent lanes at adjacent places (a lane's four
  elements are adjacent in the mask, so written straight their places are four apart and
  every store instruction touches four times the sectors).

A mask element is true when its byte is not zero.  The mask's base must be 4-byte
aligned; the last tile's words past the end read bytes one at a time.
"""

from __future__ import annotations

import struct

from llvmlite import ir

from .abi import I64
from .gpu_ir import KernelIR, entry_slot, word_packer
from .index_ir import CountedLoop
from .reduction_abi import EntryParams

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)

#: Threads of every block, mask words per thread, mask elements of a tile.
BLOCK = 256
ITEMS = 4
TILE = BLOCK * ITEMS * 4
#: The parameters of each entry (after the leading item count, the tiles), in order.
PARAMS = {"": ("m", "n", "counts"), "_s": ("counts", "incl"), "_w": ("m", "n", "x", "incl", "out")}
ENTRIES = ("", "_s", "_w")
#: Counts a thread of the scan entry adds up per round.
SCAN_ITEMS = 16
#: Value sizes the write entry moves (0: flat indices, int64).
SIZES = (0, 1, 2, 4, 8, 16)
#: The largest value the write entry stages through shared memory (a tile of 16-byte
#: values would not fit in a block's static shared memory).
STAGED_MAX = 8
#: Changes with the code these kernels are built from (part of their cache key).
VERSION = 3


def packer(suffix: str) -> struct.Struct:
    return word_packer(len(PARAMS[suffix]))


def build_compact_module(module: ir.Module, target, entry: str, size: int) -> None:
    """Add the entries ``entry + s`` for ``s`` in ``ENTRIES`` to ``module`` for values of
    ``size`` bytes (``SIZES``) on the GPU ``target``."""
    facts = target.facts
    if not facts.emits_grid or facts.wave_size < 2 or BLOCK % facts.wave_size:
        raise ValueError(f"GPU compaction needs a GPU target with waves; {target.name} has none")
    if size not in SIZES:
        raise ValueError(f"GPU compaction moves values of {SIZES} bytes, not {size}")
    waves = BLOCK // facts.wave_size
    t = ir.ArrayType(I32, waves)
    shared = ir.GlobalVariable(module, t, f"{entry}_waves", addrspace=facts.shared_address_space)
    shared.linkage = "internal"
    shared.initializer = ir.Constant(t, ir.Undefined)
    shared.align = 8
    stage = None
    if 0 <= size <= STAGED_MAX:
        st = ir.ArrayType(_value_type(size), TILE)
        stage = ir.GlobalVariable(module, st, f"{entry}_stage", addrspace=facts.shared_address_space)
        stage.linkage = "internal"
        stage.initializer = ir.Constant(st, ir.Undefined)
        stage.align = 16
    for suffix in ENTRIES:
        _Kernel(module, target, entry + suffix, suffix, size, shared, stage).build()


def _value_type(size: int) -> ir.Type:
    """The type the write entry moves values of ``size`` bytes as (0: the int64 index)."""
    if size == 0:
        return I64
    if size == 16:
        return ir.VectorType(I64, 2)
    return ir.IntType(8 * size)


class _Kernel(KernelIR):
    def __init__(self, module, target, name, suffix, size, shared, stage):
        self.module, self.target, self.name, self.suffix, self.size = module, target, name, suffix, size
        self.shared, self.stage = shared, stage
        self.W = target.facts.wave_size
        self.NW = BLOCK // self.W
        self.M = ir.IntType(self.W)
        self.gspace = ir.PointerType(addrspace=target.facts.global_address_space)
        self.sspace = target.facts.shared_address_space

    def wave_slot(self, b, w):
        p = b.gep(self.shared, [self.c64(0), w], source_etype=self.shared.value_type)
        p.type = ir.PointerType(addrspace=self.sspace)
        return p

    def build(self) -> None:
        target = self.target
        names = ("tiles",) + PARAMS[self.suffix]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), self.name)
        target.mark_kernel(fn)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        self.p = {name: params.value(b, k) for k, name in enumerate(names)}
        tid = target.emit_thread_in_block(b)
        self.lane = b.urem(tid, self.c64(self.W))
        self.wave = b.udiv(tid, self.c64(self.W))
        self.tid = tid
        self.tile = target.emit_block_id(b)
        if self.suffix == "_s":
            self.build_scan(b)
        else:
            self.flags = self.load_words(b)
            (self.build_count if self.suffix == "" else self.build_write)(b)
        b.ret_void()

    def load_words(self, b):
        """Per step ``u``: (the first element of the lane's word, [the i1 truth of each of
        its four elements])."""
        p = self.p
        n = p["n"]
        fn = b.function
        out = []
        wave_first = b.add(b.mul(self.tile, self.c64(TILE)), b.mul(self.wave, self.c64(ITEMS * self.W * 4)))
        for u in range(ITEMS):
            e0 = b.add(wave_first, b.mul(b.add(self.c64(u * self.W), self.lane), self.c64(4)))
            slot = entry_slot(b, I32)
            whole_bb = fn.append_basic_block("word")
            part_bb = fn.append_basic_block("word.part")
            done_bb = fn.append_basic_block("word.done")
            b.cbranch(b.icmp_signed("<=", b.add(e0, self.c64(4)), n), whole_bb, part_bb)
            b.position_at_end(whole_bb)
            word = b.load(self.gptr(b, p["m"], b.udiv(e0, self.c64(4)), I32), typ=I32)
            word.align = 4
            b.store(word, slot)
            b.branch(done_bb)
            b.position_at_end(part_bb)  # the mask's last bytes, one at a time
            acc = self.c32(0)
            for k in range(4):
                e = b.add(e0, self.c64(k))
                inside = b.icmp_signed("<", e, n)
                byte_slot = self.gptr(b, p["m"], b.select(inside, e, self.c64(0)), I8)
                byte = b.select(inside, b.load(byte_slot, typ=I8), ir.Constant(I8, 0))
                acc = b.or_(acc, b.shl(b.zext(byte, I32), self.c32(8 * k)))
            b.store(acc, slot)
            b.branch(done_bb)
            b.position_at_end(done_bb)
            word = b.load(slot, typ=I32)
            out.append((e0, [b.icmp_unsigned("!=", b.and_(word, self.c32(0xFF << (8 * k))), self.c32(0))
                             for k in range(4)]))
        return out

    def block_sum(self, b, v):
        """(exclusive prefix of this thread's wave, total) of the wave totals ``v`` (i32,
        the same in every lane of a wave) over the block's waves in order."""
        t = self.target
        self.if_then(b, b.icmp_unsigned("==", self.lane, self.c64(0)), lambda: b.store(v, self.wave_slot(b, self.wave)))
        t.emit_barrier(b)
        prefix = total = self.c32(0)
        for w in range(self.NW):
            x = b.load(self.wave_slot(b, self.c64(w)), typ=I32)
            prefix = b.add(prefix, b.select(b.icmp_unsigned("<", self.c64(w), self.wave), x, self.c32(0)))
            total = b.add(total, x)
        return prefix, total

    def build_count(self, b) -> None:
        count = self.c32(0)
        for _, bits in self.flags:
            for bit in bits:
                count = b.add(count, self.popc(b, self._ballot(b, bit)))
        _, total = self.block_sum(b, count)
        self.if_then(b, b.icmp_unsigned("==", self.tid, self.c64(0)),
                     lambda: b.store(total, self.gptr(b, self.p["counts"], self.tile, I32)))

    def build_scan(self, b) -> None:
        """One block: ``incl[t]`` = the sum of ``counts[0..t]``, for every tile ``t``."""
        p = self.p
        t = self.target
        tiles = p["tiles"]
        carry_slot = entry_slot(b, I64)
        b.store(self.c64(0), carry_slot)
        span = BLOCK * SCAN_ITEMS
        rounds = CountedLoop(b, self.c64(0), tiles, "scan")
        first = b.add(rounds.i, b.mul(self.tid, self.c64(SCAN_ITEMS)))
        own, total = [], self.c32(0)
        for j in range(SCAN_ITEMS):  # the thread's adjacent counts (past the end: 0)
            k = b.add(first, self.c64(j))
            inside = b.icmp_signed("<", k, tiles)
            c = b.load(self.gptr(b, p["counts"], b.select(inside, k, self.c64(0)), I32), typ=I32)
            total = b.add(total, b.select(inside, c, self.c32(0)))
            own.append((k, inside, total))
        incl = total  # the wave's inclusive scan of the threads' sums (shuffles)
        d = 1
        lane = b.trunc(self.lane, I32)
        while d < self.W:
            up = t.emit_shuffle_up(b, incl, d)
            incl = b.add(incl, b.select(b.icmp_unsigned(">=", lane, self.c32(d)), up, self.c32(0)))
            d *= 2
        wave_prefix, block_total = self.block_sum(b, t.emit_shuffle_index(b, incl, self.W - 1))
        carry = b.load(carry_slot, typ=I64)
        before = b.add(carry, b.zext(b.add(wave_prefix, b.sub(incl, total)), I64))
        for k, inside, running in own:
            self.if_then(b, inside, lambda k=k, running=running: b.store(
                b.add(before, b.zext(running, I64)), self.gptr(b, p["incl"], k, I64)), "out")
        b.store(b.add(carry, b.zext(block_total, I64)), carry_slot)
        t.emit_barrier(b)  # (the next round's wave totals go where this round's were read)
        rounds.close(b, b.add(rounds.i, self.c64(span)))

    def _ballot(self, b, bit):
        mask = self.target.emit_ballot(b, bit)
        if mask.type.width != self.W:
            mask = b.trunc(mask, self.M) if mask.type.width > self.W else b.zext(mask, self.M)
        return mask

    def build_write(self, b) -> None:
        p = self.p
        M = self.M
        lane_m = b.trunc(self.lane, M) if self.W < 64 else self.lane
        lt = b.sub(b.shl(ir.Constant(M, 1), lane_m), ir.Constant(M, 1))
        # each step's ballots, ranks within the wave's run and the wave's total
        ranks, running = [], self.c32(0)
        for e0, bits in self.flags:
            votes = [self._ballot(b, bit) for bit in bits]
            below = self.c32(0)
            for v in votes:
                below = b.add(below, self.popc(b, b.and_(v, lt)))
            own = self.c32(0)
            step_ranks = []
            for bit in bits:
                step_ranks.append(b.add(b.add(running, below), own))
                own = b.add(own, b.zext(bit, I32))
            ranks.append(step_ranks)
            for v in votes:
                running = b.add(running, self.popc(b, v))
        wave_prefix, block_total = self.block_sum(b, running)
        tile = self.tile
        first = b.icmp_unsigned("==", tile, self.c64(0))
        before = b.load(self.gptr(b, p["incl"], b.select(first, tile, b.sub(tile, self.c64(1))), I64), typ=I64)
        block_start = b.select(first, self.c64(0), before)  # (tile 0 reads its own count, unused)
        staged = self.stage is not None
        # where a value goes: its block rank in the stage, or its place in ``out``
        start = b.zext(wave_prefix, I64) if staged else b.add(block_start, b.zext(wave_prefix, I64))
        ty = _value_type(self.size)
        align = min(self.size, 8) if self.size else 8
        for (e0, bits), step_ranks in zip(self.flags, ranks):
            for k, (bit, rank) in enumerate(zip(bits, step_ranks)):
                e = b.add(e0, self.c64(k))

                def write(e=e, rank=rank):
                    if self.size == 0:
                        value = e
                    else:
                        value = b.load(self.gptr(b, p["x"], e, ty), typ=ty)
                        value.align = align
                    at = b.add(start, b.zext(rank, I64))
                    store = b.store(value, self.stage_ptr(b, at) if staged else self.gptr(b, p["out"], at, ty))
                    store.align = align

                self.if_then(b, bit, write, "write")
        if not staged:
            return
        self.target.emit_barrier(b)
        total = b.zext(block_total, I64)
        for j in range(0, TILE, BLOCK):
            at = b.add(self.tid, self.c64(j))

            def move(at=at):
                value = b.load(self.stage_ptr(b, at), typ=ty)
                b.store(value, self.gptr(b, p["out"], b.add(block_start, at), ty)).align = align

            self.if_then(b, b.icmp_unsigned("<", at, total), move, "move")

    def stage_ptr(self, b, at):
        ptr = b.gep(self.stage, [self.c64(0), at], source_etype=self.stage.value_type)
        ptr.type = ir.PointerType(addrspace=self.sspace)
        return ptr
