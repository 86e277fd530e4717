"""Single-pass GPU scans of one long contiguous line: decoupled look-back (Merrill & Garland, 2016).

One launch reads each element once and writes each result once.  Blocks take tiles in
order from a counter (so every tile before a block's has begun: a look-back waits on
running blocks alone) and work each in five phases:

1. the block's threads load the tile into shared memory, the stage (16-byte vectors
   where the line is aligned, else element by element), all loads in flight together;
2. each thread folds its run of ``E`` adjacent elements serially, and a wave scan of the
   runs' folds gives each wave's total and each lane's prefix within its wave, so the
   order of the combines is the line's (any associative operation);
3. the first wave folds the waves' totals into the tile's, publishes it, looks back over
   the tiles before (windows of a wave's width: each lane reads one tile's status; the
   totals after the nearest published inclusive prefix and that prefix are folded, later
   tiles on the left, by a wave scan downwards), publishes the tile's inclusive prefix
   and shares its prefix;
4. each thread scans its run again from its prefix and writes the results into the
   stage, over its inputs (or, where input and output differ in size, after every thread
   has read its own);
5. the block writes the stage to the output (vectors where aligned).

The stage, not registers, holds the data while a block looks back: shared memory holds
several blocks' tiles per multiprocessor, which keeps enough loads in flight.  Its
16-byte chunks are swizzled (``swizzle``) so that threads reading their runs and threads
reading the tile in order both meet distinct banks.

A tile's status is a 64-bit word for each 32-bit word of its record: the record's word
in the lower half, the scan's tag and the tile's state in the upper (the tag in its upper
30 bits; the state in its lower 2: 1 the total, 2 the inclusive prefix).  Each is written
and read as one relaxed atomic, so a reader that finds all of a tile's words in one state
has that record whole: no fences, which cost a block more than its look-back's reads
(benchmarks/results/2026-12-04-h200-chained-scan-6/).  A word with another scan's tag
reads as "nothing yet", and the tile counter only grows (a scan's tickets count from
``base``), so the words and the counter a stream's earlier scans left need no zeroing
launch before the next (``rocarray/_chain_status.py`` keeps them and hands out the tags).
"""

from __future__ import annotations

from llvmlite import ir

from .abi import I8, I64, storage_type
from .gpu_ir import if_then, load_relaxed, shared_array, store_relaxed
from .reduction_abi import EntryParams
from .reduction_ir import I32

#: Threads of a block of the single-pass scan.
CHAIN_BLOCK = 256
#: Elements of a thread's run, in ``width``s (16 bytes of the wider of input and output,
#: at most 4 elements): a tile is ``CHAIN_BLOCK * CHAIN_STEPS * width`` elements, 32 KiB
#: of that wider type.
CHAIN_STEPS = 8
#: Most blocks per multiprocessor the register budget leaves room for (fewer where the
#: staged tiles of more would not fit its shared memory).
CHAIN_BLOCKS = 6
#: The entry's parameters after ``n`` (the tiles): the line's length, the input and output
#: addresses, the tile counter (a 64-bit word), the tiles' status (64-bit words, as many a
#: tile as its record has 32-bit words), the output's shift (1 with the identity in
#: front), whether the input and the shifted output take 16-byte vectors, the counter's
#: value before this scan's first ticket, and the scan's tag (a multiple of 4 below 2^32,
#: none of the status words' upper halves before the scan holds it with a state).
CHAIN_PARAMS = ("length", "src", "dst", "counter", "status", "shift", "vec_in", "vec_out", "base", "tag")
#: Bump when the entry's parameters or its status words change (the module's cache key).
CHAIN_VERSION = 2

FLAG_TOTAL = 1
FLAG_PREFIX = 2


def chain_tile(width: int) -> int:
    """Elements of one tile (``width``: the elements of 16 bytes of the wider type, at most 4)."""
    return CHAIN_BLOCK * CHAIN_STEPS * width


class ChainBuilder:
    """The single-pass scan entry of ``ReductionBuilder`` (``build_chained``)."""

    def build_chained(self) -> None:
        target = self.target
        facts = target.facts
        W = facts.wave_size
        width = self.scan_vector_width()
        if not facts.emits_grid or width < 2 or CHAIN_BLOCK % W or self.source != "map" or self.n_inputs != 1:
            raise ValueError(f"a single-pass scan needs a GPU target and a vector path; {target.name} or the "
                             "operation has none")
        self.W, self.width = W, width
        self.waves = CHAIN_BLOCK // W
        self.E = CHAIN_STEPS * width
        self.T = chain_tile(width)
        (out_dt,) = self.out_dtypes
        self.out_size = out_dt.itemsize
        self.out_types = [storage_type(out_dt)]
        if self.E * min(self.in_sizes[0], self.out_size) % 16:
            raise ValueError(f"a thread's run of {self.E} elements of {min(self.in_sizes[0], self.out_size)} bytes "
                             "is not whole 16-byte chunks")
        names = ("n",) + CHAIN_PARAMS
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), self.entry)
        target.mark_kernel(fn)
        stage_bytes = self.T * max(self.in_sizes[0], self.out_size)
        tile_bytes = stage_bytes + 1024
        target.limit_registers(fn, max(1, min(CHAIN_BLOCKS, facts.shared_bytes_per_unit // tile_bytes)))
        self.fn = fn
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        p = self.p = {name: params.value(b, k) for k, name in enumerate(names)}
        self.n_r = p["length"]
        self.tag_hi = b.shl(p["tag"], self.c(32))
        self.gspace = ir.PointerType(addrspace=facts.global_address_space)
        self.sspace = ir.PointerType(addrspace=facts.shared_address_space)
        self.tmp = self.new_record(b)
        tid = target.emit_thread_in_block(b)
        self.tid = tid
        self.lane = b.urem(tid, self.c(W))
        self.wave = b.udiv(tid, self.c(W))
        self.stage = self.shared_array("stage", I8, stage_bytes, 16)
        (self.run,) = self.vector_slots(b, self.E)
        self.wave_totals = self.shared_array("totals", self.rec_type, self.waves + 1, 8)
        self.ticket = self.shared_array("ticket", I64, 1, 8)
        self.identity = self.new_record(b)
        self.set_identity(b, self.identity)
        self.tile_loop(b)
        self.build_zero(len(names))

    def build_zero(self, n_params: int) -> None:
        """The entry ``_z`` (the scan's parameters): zero the ``n`` 64-bit words from
        ``counter`` (the tile counter, then the status), before a stream's first scan and
        when its tags run out.  In the scan's module, so a scan's first long line compiles
        nothing more."""
        target = self.target
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64] * n_params), self.entry + "_z")
        target.mark_kernel(fn)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * n_params)
        n, base = params.value(b, 0), params.value(b, 1 + CHAIN_PARAMS.index("counter"))
        first = target.emit_global_thread_id(b)
        step = target.emit_global_thread_count(b)
        pre = b.block
        loop_bb = fn.append_basic_block("zero")
        done_bb = fn.append_basic_block("done")
        b.cbranch(b.icmp_unsigned("<", first, n), loop_bb, done_bb)
        b.position_at_end(loop_bb)
        i = b.phi(I64, "i")
        i.add_incoming(first, pre)
        b.store(ir.Constant(I64, 0), b.gep(b.inttoptr(base, self.gspace), [i], source_etype=I64), align=8)
        after = b.add(i, step)
        i.add_incoming(after, loop_bb)
        b.cbranch(b.icmp_unsigned("<", after, n), loop_bb, done_bb)
        b.position_at_end(done_bb)
        b.ret_void()

    # -- small pieces ------------------------------------------------------------------

    def c(self, v):
        return ir.Constant(I64, v)

    def shared_array(self, name, ty, count, align):
        return shared_array(self.module, self.target, f"{self.entry}_{name}", ty, count, align)

    def shared_at(self, b, array, index, ty):
        """The shared-memory address of element ``index`` (i64) of ``array`` as ``ty``."""
        ptr = b.gep(array, [index], source_etype=ty)
        ptr.type = self.sspace  # (opaque: the element type is the gep's)
        return ptr

    def global_at(self, b, base, index, ty):
        return b.gep(b.inttoptr(base, self.gspace), [index], source_etype=ty)

    def put_total(self, b, rec, k):
        """Shared slot ``k`` (a wave's total, or the tile's prefix at ``waves``) = ``rec``,
        moved whole (a 64-bit field stored as two 32-bit words came out wrong on the H200:
        the low word of a float64 sum)."""
        b.store(b.load(rec.ptr, typ=self.rec_type), self.shared_at(b, self.wave_totals, k, self.rec_type))

    def get_total(self, b, k, rec):
        b.store(b.load(self.shared_at(b, self.wave_totals, k, self.rec_type), typ=self.rec_type), rec.ptr)

    # -- the tiles ---------------------------------------------------------------------

    def take_ticket(self, b):
        """The block's next tile, from the counter less ``base`` (by its first thread,
        through shared memory: the caller's barrier after the last read of the ticket comes
        first).  Each block takes one ticket past the last tile, so a scan of ``n`` tiles on
        ``grid`` blocks moves the counter by ``n + grid``."""
        ticket = self.shared_at(b, self.ticket, self.c(0), I64)
        if_then(b, b.icmp_unsigned("==", self.tid, self.c(0)), lambda: b.store(b.sub(
            self.target.emit_atomic_add(b, b.inttoptr(self.p["counter"], self.gspace), self.c(1)), self.p["base"]),
            ticket), "take")
        self.target.emit_barrier(b)
        return b.load(ticket, typ=I64)

    def tile_loop(self, b) -> None:
        """Each block takes tiles from the counter until none is left."""
        target = self.target
        fn = self.fn
        loop_bb = fn.append_basic_block("tile")
        work_bb = fn.append_basic_block("tile.work")
        exit_bb = fn.append_basic_block("exit")
        b.branch(loop_bb)
        b.position_at_end(loop_bb)
        t = self.take_ticket(b)
        b.cbranch(b.icmp_unsigned("<", t, self.p["n"]), work_bb, exit_bb)
        b.position_at_end(work_bb)
        self.tile(b, t)
        # (the next tile reuses the stage, the totals and the ticket)
        target.emit_barrier(b)
        b.branch(loop_bb)
        b.position_at_end(exit_bb)
        b.ret_void()

    def stage_at(self, b, offset):
        """The stage's address for byte ``offset`` (i64)."""
        return self.shared_at(b, self.stage, offset, I8)

    def tile(self, b, t) -> None:
        """Tile ``t``, its five phases (the module's docstring)."""
        target = self.target
        p = self.p
        zero = self.c(0)
        E = self.E
        j0 = b.mul(t, self.c(self.T))
        rest = b.sub(p["length"], j0)
        count = b.select(b.icmp_signed("<", rest, self.c(self.T)), rest, self.c(self.T))
        full = b.icmp_unsigned("==", count, self.c(self.T))
        self.load_tile(b, j0, count, full)
        target.emit_barrier(b)
        # phase 2: each lane's run folded serially, the lanes' folds scanned across the wave
        first = b.mul(self.tid, self.c(E))
        self.read_run(b)
        total = self.new_record(b)
        self.set_identity(b, total)
        x = self.new_record(b)
        for v in range(E):
            self.map_element(b, v, first, j0, count, full, x)
            self.combine(b, total, x)
        other = self.new_record(b)
        before, wave_total = self.new_record(b), self.new_record(b)
        self.wave_inclusive_scan(b, total, other, self.lane)
        self.shuffle_record(b, total, wave_total, lambda v: target.emit_shuffle_index(b, v, self.W - 1))
        self.shuffle_record(b, total, before, lambda v: target.emit_shuffle_up(b, v, 1))
        if_then(b, b.icmp_unsigned("==", self.lane, zero), lambda: self.put_total(b, wave_total, self.wave), "wtotal")
        target.emit_barrier(b)
        # phase 3: the tile's total, published; the look-back; its prefix, shared
        if_then(b, b.icmp_unsigned("==", self.wave, zero), lambda: self.chain(b, t), "chain")
        target.emit_barrier(b)
        # phase 4: each lane's run scanned from its prefix, into the stage; the stage written
        carry = self.new_record(b)
        self.get_total(b, self.c(self.waves), carry)
        for w in range(self.waves - 1):
            def fold_before(w=w):
                self.get_total(b, self.c(w), self.tmp)
                self.combine(b, carry, self.tmp)
            if_then(b, b.icmp_unsigned(">", self.wave, self.c(w)), fold_before, "before")
        prefix = self.new_record(b)
        self.move_record(b, carry.ptr, prefix.ptr)
        self.combine(b, prefix, before)
        self.select_record(b, b.icmp_unsigned("!=", self.lane, zero), prefix, carry)
        in_place = self.out_size == self.in_sizes[0]
        if not in_place:
            # the results' runs overlap other lanes' inputs: every lane reads its own first
            self.read_run(b)
            target.emit_barrier(b)
        in_n = 16 // self.in_sizes[0]
        out_n = 16 // self.out_size
        (out_ty,) = self.out_types
        (oslot,) = self.vector_slots(b, out_n, [out_ty])
        shift = p["shift"]
        for v in range(E):
            if in_place and v % in_n == 0:
                self.read_run(b, v // in_n)
            self.map_element(b, v, first, j0, count, full, x)
            self.combine(b, carry, x)
            k = v % out_n
            addr = b.gep(oslot, [zero, self.c(k)], source_etype=ir.ArrayType(out_ty, out_n))
            b.call(self.post_fn, carry.fields(b) + [addr, b.add(b.add(j0, b.add(first, self.c(v))), shift), self.n_r])
            if k == out_n - 1:
                vec_t = ir.VectorType(out_ty, out_n)
                chunk = b.add(b.mul(self.tid, self.c(E * self.out_size // 16)), self.c(v // out_n))
                b.store(b.load(oslot, typ=vec_t), self.stage_at(b, self.chunk_offset(b, chunk)), align=16)
        # with the identity in front, the first tile's first thread writes it at 0
        if_then(b, b.and_(b.icmp_unsigned("!=", shift, zero), b.icmp_unsigned("==", b.or_(t, self.tid), zero)),
                lambda: self.store_identity(b), "initial")
        target.emit_barrier(b)
        self.write_tile(b, j0, count, full)

    def swizzle(self, b, chunk):
        """Where 16-byte chunk ``chunk`` of a tile sits in the stage: its place among each 8
        chunks permuted by the eighth it falls in, so that the lanes reading their runs
        (one chunk each, a run of 1, 2, 4 or 8 chunks apart) and the threads reading the
        tile in order (adjacent chunks) both meet distinct banks."""
        return b.xor(chunk, b.and_(b.lshr(chunk, self.c(3)), self.c(7)))

    def chunk_offset(self, b, chunk):
        """The stage's byte offset of the tile's 16-byte ``chunk``, swizzled."""
        return b.shl(self.swizzle(b, chunk), self.c(4))

    def stage_byte(self, b, offset):
        """The stage's byte offset for the tile's byte ``offset`` (i64), swizzled by chunk."""
        return b.or_(self.chunk_offset(b, b.lshr(offset, self.c(4))), b.and_(offset, self.c(15)))

    def read_run(self, b, only=None) -> None:
        """This lane's run of ``E`` adjacent inputs (or its chunk ``only``) from the stage
        into ``self.run``."""
        ty = self.in_types[0]
        size = self.in_sizes[0]
        n = 16 // size
        vec_t = ir.VectorType(ty, n)
        chunks = self.E * size // 16
        for c in range(chunks) if only is None else [only]:
            chunk = b.add(b.mul(self.tid, self.c(chunks)), self.c(c))
            value = b.load(self.stage_at(b, self.chunk_offset(b, chunk)), typ=vec_t, align=16)
            b.store(value, b.gep(self.run, [self.c(0), self.c(c * n)], source_etype=ir.ArrayType(ty, self.E)),
                    align=size)

    def map_element(self, b, v, first, j0, count, full, x) -> None:
        """Record ``x`` = element ``v`` of this lane's run, mapped, where it lies inside the
        line, else the identity."""
        ty = self.in_types[0]
        k = b.add(first, self.c(v))
        addr = b.gep(self.run, [self.c(0), self.c(v)], source_etype=ir.ArrayType(ty, self.E))
        self.move_record(b, self.identity.ptr, x.ptr)
        if_then(b, b.or_(full, b.icmp_signed("<", k, count)),
                lambda: b.call(self.map_fn, [addr] + x.fields(b) + [b.add(j0, k), self.n_r]), "map")

    def load_tile(self, b, j0, count, full) -> None:
        """Phase 1: the tile's elements from the input into the stage."""
        p = self.p
        size = self.in_sizes[0]
        self.move_tile(b, b.add(p["src"], b.mul(j0, self.c(size))), size, self.in_types[0], count,
                       b.and_(full, b.icmp_unsigned("!=", p["vec_in"], self.c(0))), True)

    def write_tile(self, b, j0, count, full) -> None:
        """Phase 5: the tile's results from the stage into the output, from element
        ``j0 + shift``."""
        p = self.p
        size = self.out_size
        self.move_tile(b, b.add(p["dst"], b.mul(b.add(j0, p["shift"]), self.c(size))), size, self.out_types[0],
                       count, b.and_(full, b.icmp_unsigned("!=", p["vec_out"], self.c(0))), False)

    def move_tile(self, b, address, size: int, ty, count, vectors, into_stage: bool) -> None:
        """Move the tile's ``count`` elements of ``size`` bytes between global memory at
        ``address`` and the stage (swizzled by chunk), the block's threads taking adjacent
        pieces: whole 16-byte vectors where ``vectors`` (the tile whole, ``address``
        aligned; a thread's loads first, then its stores), else element by element."""
        fn = self.fn
        vec_bb = fn.append_basic_block("move.vectors")
        elem_bb = fn.append_basic_block("move.elements")
        done_bb = fn.append_basic_block("move.done")
        b.cbranch(vectors, vec_bb, elem_bb)
        b.position_at_end(vec_bb)
        vec_t = ir.VectorType(I32, 4)
        chunks = [b.add(self.tid, self.c(k * CHAIN_BLOCK)) for k in range(self.T * size // 16 // CHAIN_BLOCK)]
        ends = [(self.global_at(b, address, k, vec_t), self.stage_at(b, self.chunk_offset(b, k))) for k in chunks]
        if not into_stage:
            ends = [(stage, place) for place, stage in ends]
        values = [b.load(source, typ=vec_t, align=16) for source, _ in ends]
        for (_, target), value in zip(ends, values):
            b.store(value, target, align=16)
        b.branch(done_bb)
        b.position_at_end(elem_bb)
        for k in range(self.T // CHAIN_BLOCK):
            e = b.add(self.tid, self.c(k * CHAIN_BLOCK))

            def move(e=e):
                place = self.global_at(b, address, e, ty)
                stage = self.stage_at(b, self.stage_byte(b, b.mul(e, self.c(size))))
                source, target = (place, stage) if into_stage else (stage, place)
                b.store(b.load(source, typ=ty), target)

            if_then(b, b.icmp_signed("<", e, count), move, "move.e")
        b.branch(done_bb)
        b.position_at_end(done_bb)

    def store_identity(self, b) -> None:
        """The identity, post-mapped, at the output's first element."""
        (ty,) = self.out_types
        (slot,) = self.vector_slots(b, 1, [ty])
        addr = b.gep(slot, [self.c(0), self.c(0)], source_etype=ir.ArrayType(ty, 1))
        b.call(self.post_fn, self.identity.fields(b) + [addr, self.c(0), self.n_r])
        b.store(b.load(addr, typ=ty), self.global_at(b, self.p["dst"], self.c(0), ty))

    # -- phase 3: the first wave ---------------------------------------------------------

    def publish(self, b, t, rec, flag: int) -> None:
        """Lane 0 writes ``rec`` as tile ``t``'s total (``FLAG_TOTAL``) or inclusive
        prefix (``FLAG_PREFIX``): each 32-bit word of the record in a 64-bit status word of
        its own, with the scan's tag and ``flag`` in the upper half.  Each word is one
        relaxed atomic write, so a reader that finds every word of a tile with one upper
        half has that record whole (each is written once a scan), with no fence on either
        side."""
        words_t = ir.ArrayType(I32, self.words)

        def write():
            first = b.mul(t, self.c(self.words))
            for w in range(self.words):
                word = b.load(b.gep(rec.ptr, [ir.Constant(I32, 0), ir.Constant(I32, w)], source_etype=words_t),
                              typ=I32)
                store_relaxed(b, b.or_(b.zext(word, I64), b.or_(self.tag_hi, self.c(flag << 32))),
                              self.global_at(b, self.p["status"], b.add(first, self.c(w)), I64))

        if_then(b, b.icmp_unsigned("==", self.lane, self.c(0)), write, "publish")

    def chain(self, b, t) -> None:
        """The first wave: the tile's total (its waves' totals in order), published; for a
        tile after the first, the look-back for its prefix and its inclusive prefix
        published; the prefix into the shared slot ``waves`` (the identity for the first)."""
        agg = self.new_record(b)
        self.set_identity(b, agg)
        for w in range(self.waves):
            self.get_total(b, self.c(w), self.tmp)
            self.combine(b, agg, self.tmp)
        prefix = self.new_record(b)
        self.move_record(b, self.identity.ptr, prefix.ptr)
        fn = self.fn
        first_bb = fn.append_basic_block("chain.first")
        later_bb = fn.append_basic_block("chain.later")
        done_bb = fn.append_basic_block("chain.done")
        b.cbranch(b.icmp_unsigned("==", t, self.c(0)), first_bb, later_bb)
        b.position_at_end(first_bb)
        self.publish(b, t, agg, FLAG_PREFIX)
        b.branch(done_bb)
        b.position_at_end(later_bb)
        self.publish(b, t, agg, FLAG_TOTAL)
        self.look_back(b, t, prefix)
        inclusive = self.new_record(b)
        self.move_record(b, prefix.ptr, inclusive.ptr)
        self.combine(b, inclusive, agg)
        self.publish(b, t, inclusive, FLAG_PREFIX)
        b.branch(done_bb)
        b.position_at_end(done_bb)
        if_then(b, b.icmp_unsigned("==", self.lane, self.c(0)), lambda: self.put_total(b, prefix, self.c(self.waves)),
                "share")

    def look_back(self, b, t, prefix) -> None:
        """Fold into ``prefix`` (the identity) the records the tiles before ``t`` published:
        a window of ``W`` tiles at a time, lane ``l`` on tile ``hi - 1 - l`` (``hi``: the
        window's end, ``t`` first).  The wave waits until each of its tiles has published
        something (tiles before the line count as published prefixes, the identity), then
        folds, later tiles on the left, the nearest tile's prefix and the totals after it;
        the window's fold joins ``prefix`` on the left.  The walk ends at a window holding
        a prefix.  A tile's state is its status words' common upper half less the scan's
        tag: 0 (nothing yet) while they differ (a write under way) or where it is not 1 or
        2 (another scan's words)."""
        target = self.target
        p = self.p
        fn = self.fn
        W = self.W
        lane = self.lane
        zero = self.c(0)
        window_bb = fn.append_basic_block("back.window")
        spin_bb = fn.append_basic_block("back.spin")
        got_bb = fn.append_basic_block("back.got")
        done_bb = fn.append_basic_block("back.done")
        pre = b.block
        b.branch(window_bb)
        b.position_at_end(window_bb)
        hi = b.phi(I64, "hi")
        hi.add_incoming(t, pre)
        q = b.sub(b.sub(hi, self.c(1)), lane)
        inside = b.icmp_signed(">=", q, zero)
        at = b.select(inside, q, zero)
        b.branch(spin_bb)
        b.position_at_end(spin_bb)
        first = b.mul(at, self.c(self.words))
        words = [load_relaxed(b, self.global_at(b, p["status"], b.add(first, self.c(w)), I64), I64)
                 for w in range(self.words)]
        tags = [b.lshr(word, self.c(32)) for word in words]
        flag = b.sub(tags[0], p["tag"])
        flag = b.select(b.icmp_unsigned("<", b.sub(flag, self.c(1)), self.c(2)), flag, zero)
        for tag in tags[1:]:
            flag = b.select(b.icmp_unsigned("==", tag, tags[0]), flag, zero)
        flag = b.select(inside, flag, self.c(FLAG_PREFIX))
        waiting = target.emit_ballot(b, b.icmp_unsigned("==", flag, zero))
        mask_t = waiting.type
        b.cbranch(b.icmp_unsigned("!=", waiting, ir.Constant(mask_t, 0)), spin_bb, got_bb)
        b.position_at_end(got_bb)
        prefixes = target.emit_ballot(b, b.icmp_unsigned("==", flag, self.c(FLAG_PREFIX)))
        found = b.icmp_unsigned("!=", prefixes, ir.Constant(mask_t, 0))
        nearest = b.zext(b.cttz(prefixes, ir.Constant(ir.IntType(1), 0)), I64)
        nearest = b.select(found, nearest, self.c(W))
        x = self.new_record(b)
        self.move_record(b, self.identity.ptr, x.ptr)
        words_t = ir.ArrayType(I32, self.words)

        def read():
            for w, word in enumerate(words):
                b.store(b.trunc(word, I32), b.gep(x.ptr, [ir.Constant(I32, 0), ir.Constant(I32, w)],
                                                  source_etype=words_t))

        # lanes before the nearest prefix hold totals, the nearest its prefix (the tiles
        # before the line: the identity)
        if_then(b, b.or_(b.icmp_unsigned("<", lane, nearest), b.and_(inside, b.icmp_unsigned("==", lane, nearest))),
                read, "back.read")
        # the window's fold, later lanes on the left, into lane 0 (a wave scan downwards)
        other = self.new_record(b)
        d = 1
        while d < W:
            self.shuffle_record(b, x, other, lambda v, d=d: target.emit_shuffle_down(b, v, d))
            self.combine(b, other, x)
            self.select_record(b, b.icmp_unsigned("<", b.add(lane, self.c(d)), self.c(W)), other, x)
            d *= 2
        self.shuffle_record(b, x, other, lambda v: target.emit_shuffle_index(b, v, 0))
        self.combine(b, other, prefix)
        self.move_record(b, other.ptr, prefix.ptr)
        hi.add_incoming(b.sub(hi, self.c(W)), b.block)
        b.cbranch(found, done_bb, window_bb)
        b.position_at_end(done_bb)
