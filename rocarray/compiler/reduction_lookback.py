"""GPU single-pass scans by decoupled look-back (Merrill & Garland, 2016): the look-back
entry of the reduction builder, generic over the accumulator record.

Blocks of ``LOOKBACK_BLOCK`` threads take tiles of ``tile_elements(words, wave)`` elements
in the order they start (a tile counter, bumped atomically by each block's first thread),
so a tile's predecessors have all started and the look-back cannot wait on a tile that
never runs.  Tile ``t`` is tile ``t % tpl`` of line ``t // tpl``.  A wave takes ``ITEMS``
steps of ``wave_size`` adjacent elements (one load per lane and step), scans each step
by shuffles (``wave_inclusive_scan``), and the waves' totals meet in shared memory.  The
first wave then publishes the tile's aggregate (flag ``AGGREGATE``; the first tile of a
line its inclusive prefix at once, flag ``PREFIX``), looks back a wave of predecessors at a
time -- each lane one tile, nearest first -- folding aggregates until a lane finds an
inclusive prefix, and publishes the tile's own inclusive prefix.  Every thread then folds
the tile's exclusive prefix, its wave's and its step's into its elements and writes them.

Memory between blocks: the state is ``[counter, flag of tile 0, flag of tile 1, ...]``
(i32, zeroed before each launch by the caller) and two record slots per tile (aggregate,
inclusive prefix: a reader that saw ``AGGREGATE`` must not read a prefix written since).
A writer stores the record's words, fences (``emit_device_fence``), then stores the flag;
a reader loads the flag, fences, then loads the words -- all with device-scope loads and
stores, so no stale cached copy is read.
"""

from __future__ import annotations

from llvmlite import ir

from .abi import I64, PTR
from .reduction_abi import EntryParams
from .reduction_ir import I32

#: Threads of a look-back block.
LOOKBACK_BLOCK = 256
#: Flags of a tile's state.
NOT_READY, AGGREGATE, PREFIX = 0, 1, 2
#: The entry's parameters (all i64), after the launcher's item count (the tiles).
LOOKBACK_PARAMS = ("n", "x", "sx_line", "sx", "out", "so_line", "so", "state", "records", "tpl",
                   "include_initial")
#: Blocks of the look-back entry a multiprocessor should hold at once (registers capped to fit).
LOOKBACK_MIN_BLOCKS = 3


def lookback_items(words: int) -> int:
    """Steps of a wave in a tile (elements per thread) for a record of ``words`` 32-bit words."""
    return max(2, 16 // words)


def tile_elements(words: int) -> int:
    """Elements of a look-back tile for a record of ``words`` words."""
    return LOOKBACK_BLOCK * lookback_items(words)


class LookbackScan:
    """The look-back scan entry of ``ReductionBuilder`` (``build_lookback``)."""

    def build_lookback(self) -> None:
        target = self.target
        facts = target.facts
        W = facts.wave_size
        if not facts.emits_grid or W < 2 or LOOKBACK_BLOCK % W:
            raise ValueError(f"the look-back scan needs a GPU target with waves; {target.name} has none")
        names = ("tiles",) + LOOKBACK_PARAMS
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), self.entry)
        target.mark_kernel(fn)
        target.limit_registers(fn, LOOKBACK_MIN_BLOCKS)
        self.fn = fn
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        p = {name: params.value(b, k) for k, name in enumerate(names)}
        c64 = lambda v: ir.Constant(I64, v)  # noqa: E731
        c32 = lambda v: ir.Constant(I32, v)  # noqa: E731
        NW = LOOKBACK_BLOCK // W
        items = lookback_items(self.words)
        words_t = ir.ArrayType(I32, self.words)
        gspace = ir.PointerType(addrspace=facts.global_address_space)
        sspace = facts.shared_address_space
        self.n_r = p["n"]

        def shared(name, ty):
            gv = ir.GlobalVariable(self.module, ty, f"{self.entry}_{name}", addrspace=sspace)
            gv.linkage = "internal"
            gv.initializer = ir.Constant(ty, ir.Undefined)
            gv.align = 8
            return gv

        # the waves' totals, then (slot NW) the tile's exclusive prefix
        rec_sh = shared("records", ir.ArrayType(words_t, NW + 1))
        tile_sh = shared("tile", I64)

        def rec_slot(k):
            slot = b.gep(rec_sh, [c64(0), k], source_etype=rec_sh.value_type)
            slot.type = ir.PointerType(addrspace=sspace)
            return slot

        def if_then(cond, body, name="then"):
            then_bb = fn.append_basic_block(name)
            done_bb = fn.append_basic_block(name + ".done")
            b.cbranch(cond, then_bb, done_bb)
            b.position_at_end(then_bb)
            body()
            b.branch(done_bb)
            b.position_at_end(done_bb)

        def copy(src, dst):
            b.store(b.load(src.ptr, typ=words_t), dst.ptr)

        state = b.inttoptr(p["state"], gspace)
        records = b.inttoptr(p["records"], gspace)
        tid = target.emit_thread_in_block(b)
        lane = b.urem(tid, c64(W))
        wave = b.udiv(tid, c64(W))
        first_thread = b.icmp_unsigned("==", tid, c64(0))

        # the tile: in the order the blocks start
        if_then(first_thread, lambda: b.store(
            b.zext(target.emit_atomic_add(b, state, c32(1)), I64), tile_sh), "tile.take")
        target.emit_barrier(b)
        t = b.load(tile_sh, typ=I64)
        line, k = b.udiv(t, p["tpl"]), b.urem(t, p["tpl"])
        line_first = b.sub(t, k)
        x_base = b.add(p["x"], b.mul(line, p["sx_line"]))
        out_base = b.add(p["out"], b.mul(line, p["so_line"]))
        tile_begin = b.mul(k, c64(LOOKBACK_BLOCK * items))
        n = p["n"]

        # each wave's steps: loads, then the steps' wave scans and totals
        xs = [self.new_record(b) for _ in range(items)]
        totals = [self.new_record(b) for _ in range(items)]
        other = self.new_record(b)
        self.tmp = self.new_record(b)
        js, inside = [], []
        wave_first = b.add(tile_begin, b.mul(wave, c64(items * W)))
        for u, x in enumerate(xs):
            j = b.add(b.add(wave_first, c64(u * W)), lane)
            js.append(j)
            inside.append(b.icmp_signed("<", j, n))
            self.set_identity(b, x)
            addr = b.inttoptr(b.add(x_base, b.mul(j, p["sx"])), PTR)
            if_then(inside[u], lambda addr=addr, x=x, j=j: b.call(self.map_fn, [addr] + x.fields(b) + [j, n]),
                    "load")
        for x, tot in zip(xs, totals):
            self.wave_inclusive_scan(b, x, other, lane)
            self.shuffle_record(b, x, tot, lambda v: target.emit_shuffle_index(b, v, W - 1))
        wave_total = self.new_record(b)
        self.set_identity(b, wave_total)
        for tot in totals:
            self.combine(b, wave_total, tot)
        if_then(b.icmp_unsigned("==", lane, c64(0)),
                lambda: b.store(b.load(wave_total.ptr, typ=words_t), rec_slot(wave)), "wave.total")
        target.emit_barrier(b)

        # the first wave: the tile's aggregate, the look-back, the tile's exclusive prefix
        prefix = self.new_record(b)
        agg = self.new_record(b)
        first_tile = b.icmp_unsigned("==", k, c64(0))
        look_bb = fn.append_basic_block("lookback")
        looked_bb = fn.append_basic_block("lookback.done")
        b.cbranch(b.icmp_unsigned("==", wave, c64(0)), look_bb, looked_bb)
        b.position_at_end(look_bb)
        self.set_identity(b, agg)
        for v in range(NW):
            b.store(b.load(rec_slot(c64(v)), typ=words_t), other.ptr)
            self.combine(b, agg, other)
        self.set_identity(b, prefix)
        lane0 = b.icmp_unsigned("==", lane, c64(0))
        # publish the aggregate (the first tile of a line: its inclusive prefix)
        if_then(lane0, lambda: self.publish(b, records, state, t, agg,
                                            b.select(first_tile, c32(PREFIX), c32(AGGREGATE))), "publish")
        back_bb = fn.append_basic_block("lookback.run")
        back_done_bb = fn.append_basic_block("lookback.found")
        b.cbranch(first_tile, back_done_bb, back_bb)
        b.position_at_end(back_bb)
        self.look_back(b, records, state, t, line_first, lane, prefix, other)
        copy(prefix, other)
        self.combine(b, other, agg)
        if_then(lane0, lambda: self.publish(b, records, state, t, other, c32(PREFIX)), "publish.prefix")
        b.branch(back_done_bb)
        b.position_at_end(back_done_bb)
        if_then(lane0, lambda: b.store(b.load(prefix.ptr, typ=words_t), rec_slot(c64(NW))), "prefix.share")
        b.branch(looked_bb)
        b.position_at_end(looked_bb)
        target.emit_barrier(b)

        # every thread: the tile's prefix, its wave's, then each step's
        run = self.new_record(b)
        b.store(b.load(rec_slot(c64(NW)), typ=words_t), run.ptr)
        for v in range(NW - 1):
            if_then(b.icmp_unsigned(">", wave, c64(v)), lambda v=v: (
                b.store(b.load(rec_slot(c64(v)), typ=words_t), other.ptr), self.combine(b, run, other)),
                "wave.prefix")
        shift = b.select(b.icmp_unsigned("!=", p["include_initial"], c64(0)), c64(1), c64(0))

        def emit(pos, rec):
            addr = b.inttoptr(b.add(out_base, b.mul(pos, p["so"])), PTR)
            b.call(self.post_fn, rec.fields(b) + [addr, pos, n])

        if_then(b.and_(b.and_(first_thread, first_tile), b.icmp_unsigned("!=", shift, c64(0))),
                lambda: (self.set_identity(b, other), emit(c64(0), other)), "initial")
        for u, (x, tot) in enumerate(zip(xs, totals)):
            copy(run, other)
            self.combine(b, other, x)
            if_then(inside[u], lambda u=u: emit(b.add(js[u], shift), other), "write")
            if u + 1 < items:
                self.combine(b, run, tot)
        b.ret_void()

    def record_word(self, b, records, t, slot, w):
        """The global address of word ``w`` of record slot ``slot`` (0: aggregate, 1:
        inclusive prefix) of tile ``t``."""
        index = b.add(b.mul(b.add(b.mul(t, ir.Constant(I64, 2)), slot), ir.Constant(I64, self.words)),
                      ir.Constant(I64, w))
        return b.gep(records, [index], source_etype=I32)

    def publish(self, b, records, state, t, rec, flag) -> None:
        """Write ``rec`` as tile ``t``'s record of kind ``flag`` (``AGGREGATE``,
        ``PREFIX``), then the flag."""
        target = self.target
        words_t = ir.ArrayType(I32, self.words)
        slot = b.zext(b.sub(flag, ir.Constant(I32, AGGREGATE)), I64)
        for w in range(self.words):
            word = b.load(b.gep(rec.ptr, [ir.Constant(I32, 0), ir.Constant(I32, w)], source_etype=words_t), typ=I32)
            target.emit_device_store(b, word, self.record_word(b, records, t, slot, w))
        target.emit_device_fence(b)
        target.emit_device_store(b, flag, b.gep(state, [b.add(t, ir.Constant(I64, 1))], source_etype=I32))

    def look_back(self, b, records, state, t, line_first, lane, prefix, other) -> None:
        """Fold into ``prefix`` (lane 0's) the records of tile ``t``'s predecessors in its
        line, nearest last, back to the nearest inclusive prefix: a wave of predecessors
        per round, lane ``l`` on tile ``end - 1 - l``."""
        target = self.target
        fn = self.fn
        W = target.facts.wave_size
        c64 = lambda v: ir.Constant(I64, v)  # noqa: E731
        c32 = lambda v: ir.Constant(I32, v)  # noqa: E731
        words_t = ir.ArrayType(I32, self.words)
        end_slot = self.alloca(b, I64)
        flag_slot = self.alloca(b, I32)
        b.store(t, end_slot)
        window = self.new_record(b)
        round_bb = fn.append_basic_block("lb.round")
        spin_bb = fn.append_basic_block("lb.spin")
        reload_bb = fn.append_basic_block("lb.reload")
        ready_bb = fn.append_basic_block("lb.ready")
        done_bb = fn.append_basic_block("lb.done")
        b.branch(round_bb)

        b.position_at_end(round_bb)
        end = b.load(end_slot, typ=I64)
        q = b.sub(b.sub(end, c64(1)), lane)
        valid = b.icmp_signed(">=", q, line_first)
        flag_addr = b.gep(state, [b.add(b.select(valid, q, line_first), c64(1))], source_etype=I32)
        # lanes before the line's first tile wait for nothing and are never folded
        b.store(b.select(valid, c32(NOT_READY), c32(PREFIX)), flag_slot)
        b.branch(spin_bb)

        b.position_at_end(spin_bb)
        waiting = b.icmp_unsigned("==", b.load(flag_slot, typ=I32), c32(NOT_READY))
        pending = target.emit_ballot(b, waiting)
        b.cbranch(b.icmp_unsigned("!=", pending, ir.Constant(pending.type, 0)), reload_bb, ready_bb)

        b.position_at_end(reload_bb)
        then_bb = fn.append_basic_block("lb.load")
        b.cbranch(waiting, then_bb, spin_bb)
        b.position_at_end(then_bb)
        b.store(target.emit_device_load(b, flag_addr, I32), flag_slot)
        b.branch(spin_bb)

        b.position_at_end(ready_bb)
        target.emit_device_fence(b)
        flag = b.load(flag_slot, typ=I32)
        found = target.emit_ballot(b, b.and_(valid, b.icmp_unsigned("==", flag, c32(PREFIX))))
        mtype = found.type
        cttz = self.module.globals.get(f"llvm.cttz.i{mtype.width}")
        if cttz is None:
            cttz = ir.Function(self.module, ir.FunctionType(mtype, [mtype, ir.IntType(1)]), f"llvm.cttz.i{mtype.width}")
        any_found = b.icmp_unsigned("!=", found, ir.Constant(mtype, 0))
        stop = b.zext(b.call(cttz, [found, ir.Constant(ir.IntType(1), 0)]), I64) if mtype.width < 64 else \
            b.call(cttz, [found, ir.Constant(ir.IntType(1), 0)])
        stop = b.select(any_found, stop, c64(W - 1))
        take = b.and_(valid, b.icmp_unsigned("<=", lane, stop))
        self.set_identity(b, window)
        load_bb = fn.append_basic_block("lb.record")
        loaded_bb = fn.append_basic_block("lb.recorded")
        b.cbranch(take, load_bb, loaded_bb)
        b.position_at_end(load_bb)
        slot = b.zext(b.sub(flag, c32(AGGREGATE)), I64)
        for w in range(self.words):
            word = target.emit_device_load(b, self.record_word(b, records, q, slot, w), I32)
            b.store(word, b.gep(window.ptr, [c32(0), c32(w)], source_etype=words_t))
        b.branch(loaded_bb)
        b.position_at_end(loaded_bb)
        # the window's records in order (the farthest lane on the left): a tree by
        # shuffles down, leaving the whole window's combination in lane 0
        d = 1
        while d < W:
            self.shuffle_record(b, window, other, lambda v: target.emit_shuffle_down(b, v, d))
            self.combine(b, other, window)
            b.store(b.load(other.ptr, typ=words_t), window.ptr)
            d *= 2
        self.combine(b, window, prefix)
        b.store(b.load(window.ptr, typ=words_t), prefix.ptr)
        b.store(b.sub(end, c64(W)), end_slot)
        b.cbranch(any_found, done_bb, round_bb)
        b.position_at_end(done_bb)

    def alloca(self, b, ty):
        here = b.block
        b.position_at_start(b.function.entry_basic_block)
        slot = b.alloca(ty)
        b.position_at_end(here)
        return slot
