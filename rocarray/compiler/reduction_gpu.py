"""The GPU reduction loops: tiled items, vector loops, recipe folds and wave and block combines."""

from __future__ import annotations

from llvmlite import ir

from .abi import I8, I64
from .index_ir import CountedLoop, dim_at, opaque_pointer
from .reduction_abi import VECTOR_BYTES, VECTOR_ELEMENTS
from .reduction_ir import I32

#: Vector loads per thread and trip in the GPU vector loop.
VECTOR_UNROLL = 4
#: GPU tiled mode: accumulator words one thread keeps (the tile's outputs times the rows
#: it has in flight; 16 words: four float32 outputs, four rows of 16-byte loads).
GPU_TILE_WORDS = 16


class GpuReduction:
    """The GPU item loops and combines of ``ReductionBuilder``."""

    def gpu_tile_item(self, b, it, width: int) -> None:
        """One GPU tiled item: outputs ``o0 .. o0 + width - 1`` (adjacent in memory) over one
        chunk of the reduced rows.  Whole vectors across the outputs, ``rows`` rows per trip
        (all their loads issued first), each element folded into its output's accumulator
        for that row; a group that is not whole, or not aligned for vector loads, folds
        each of its outputs on its own.  Needs one kept and one reduced dimension."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        w = ir.Constant(I64, width)
        rows = 1
        while 2 * rows * width * self.words <= GPU_TILE_WORDS:
            rows *= 2
        n_groups = b.udiv(b.add(self.n_out, ir.Constant(I64, width - 1)), w)
        c, o0, count, j_begin, j_end = self.tile_of(b, it, n_groups, w)
        sk = [dim_at(b, s, zero) for _, s, _ in self.inputs]
        sr = [dim_at(b, s, zero) for _, _, s in self.inputs]
        col0 = [b.gep(p, [b.mul(o0, s)], source_etype=I8) for (p, _, _), s in zip(self.inputs, sk)]
        accs = [[self.new_record(b) for _ in range(rows)] for _ in range(width)]
        for per_row in accs:
            for acc in per_row:
                self.set_identity(b, acc)
        ok = b.icmp_signed("==", count, w)
        for base, s, r, size in zip(col0, sk, sr, self.in_sizes):
            mask = ir.Constant(I64, width * size - 1)
            ok = b.and_(ok, b.icmp_signed("==", s, ir.Constant(I64, size)))
            ok = b.and_(ok, b.icmp_unsigned("==", b.and_(b.ptrtoint(base, I64), mask), zero))
            ok = b.and_(ok, b.icmp_unsigned("==", b.and_(r, mask), zero))
        vec_bb = fn.append_basic_block("tile.vector")
        cols_bb = fn.append_basic_block("tile.columns")
        done_bb = fn.append_basic_block("tile.done")
        b.cbranch(ok, vec_bb, cols_bb)

        b.position_at_end(vec_bb)
        space = ir.PointerType(addrspace=self.target.facts.global_address_space)
        slots = [self.vector_slots(b, width) for _ in range(rows)]

        def trip(j, n_rows):
            for r in range(n_rows):
                jr = b.add(j, ir.Constant(I64, r))
                for base, t, size, stride, slot in zip(col0, self.in_types, self.in_sizes, sr, slots[r]):
                    addr = b.addrspacecast(b.gep(base, [b.mul(jr, stride)], source_etype=I8), space)
                    b.store(b.load(addr, typ=ir.VectorType(t, width), align=width * size), slot)
            for r in range(n_rows):
                jr = b.add(j, ir.Constant(I64, r))
                for k in range(width):
                    addrs = [b.gep(slot, [zero, ir.Constant(I64, k)], source_etype=ir.ArrayType(t, width))
                             for slot, t in zip(slots[r], self.in_types)]
                    self.fold(b, accs[k][r], addrs, jr)

        loop = CountedLoop(b, j_begin, b.sub(j_end, ir.Constant(I64, rows - 1)), "trow")
        trip(loop.i, rows)
        loop.close(b, b.add(loop.i, ir.Constant(I64, rows)))
        tail = CountedLoop(b, loop.i, j_end, "ttail")
        trip(tail.i, 1)
        tail.close(b, b.add(tail.i, ir.Constant(I64, 1)))
        b.branch(done_bb)

        b.position_at_end(cols_bb)
        for k in range(width):
            col_bb = fn.append_basic_block("tile.column")
            next_bb = fn.append_basic_block("tile.column.next")
            b.cbranch(b.icmp_signed("<", ir.Constant(I64, k), count), col_bb, next_bb)
            b.position_at_end(col_bb)
            bases = [b.gep(base, [b.mul(ir.Constant(I64, k), s)], source_etype=I8) for base, s in zip(col0, sk)]
            col = CountedLoop(b, j_begin, j_end, "tcol")
            self.fold(b, accs[k][0], [b.gep(base, [b.mul(col.i, r)], source_etype=I8)
                                      for base, r in zip(bases, sr)], col.i)
            col.close(b, b.add(col.i, ir.Constant(I64, 1)))
            b.branch(next_bb)
            b.position_at_end(next_bb)
        b.branch(done_bb)

        b.position_at_end(done_bb)
        out_sk = [dim_at(b, s, zero) for _, s in self.outputs]
        for k in range(width):
            step = 1
            while step < rows:
                for r in range(0, rows, 2 * step):
                    self.combine(b, accs[k][r], accs[k][r + step])
                step *= 2
            write_bb = fn.append_basic_block("tile.write")
            next_bb = fn.append_basic_block("tile.write.next")
            b.cbranch(b.icmp_signed("<", ir.Constant(I64, k), count), write_bb, next_bb)
            b.position_at_end(write_bb)
            o = b.add(o0, ir.Constant(I64, k))
            self.write(b, accs[k][0], o, c, [b.gep(p, [b.mul(o, s)], source_etype=I8)
                                            for (p, _), s in zip(self.outputs, out_sk)])
            b.branch(next_bb)
            b.position_at_end(next_bb)

    # -- scans --------------------------------------------------------------------------------

    def vector_width(self) -> int:
        """Elements per vector load in a block's contiguous run (1: no vector path)."""
        facts = self.target.facts
        if self.source != "map" or not facts.emits_grid or facts.global_address_space is None:
            return 1
        if any(t.kind == "c" for t in self.in_dtypes):
            return 1
        return max(1, min(VECTOR_ELEMENTS, VECTOR_BYTES // max(self.in_sizes)))

    def vector_loop(self, b, accs, in_bases, j_begin, j_end, width: int):
        """Each thread loads ``VECTOR_UNROLL`` vectors of ``width`` elements per trip (16-byte
        accesses, several in flight) and folds element ``l`` of vector ``u`` into lane
        ``(u * width + l) % lanes``; every thread makes the same number of trips.  The next
        trip's loads are issued before the current trip's folds (the folds of max/argmax
        are long enough to leave the memory idle otherwise; the last trip loads itself again
        rather than branch).  A catalogue recipe
        (``gpu_recipe``) starts its lanes from the first trip's elements and then folds
        knowing that each lane sees its elements in increasing order (no index ties to
        settle).  Returns the first index left for the scalar loop."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        w = ir.Constant(I64, width)
        stride = b.mul(self.bdim, w)
        span = b.mul(stride, ir.Constant(I64, VECTOR_UNROLL))
        _, trips = self.divmod(b, b.sub(j_end, j_begin), span)
        start = b.add(j_begin, b.mul(self.tib, w))
        space = ir.PointerType(addrspace=self.target.facts.global_address_space)
        cur = [self.vector_slots(b, width) for _ in range(VECTOR_UNROLL)]
        nxt = [self.vector_slots(b, width) for _ in range(VECTOR_UNROLL)]
        # argmax/argmin lanes: the index relative to ``start`` in 32 bits (the caller keeps
        # runs shorter than 2**31), made the record's 64-bit index after the loop
        indexed = self.gpu_recipe in ("argmax", "argmin")
        if indexed:
            here = b.block
            b.position_at_start(fn.entry_basic_block)
            rel = [b.alloca(I32) for _ in accs]
            b.position_at_end(here)

        def load_trip(t, slots, ahead: bool = True):
            # (``ahead``: loads in the global address space; the loads before the loop are
            # left generic, or LLVM's instcombine would merge them with the loop's into one
            # load of a phi of the addresses, issued only when the trip is folded)
            j = b.add(start, b.mul(t, span))
            for u in range(VECTOR_UNROLL):  # every load of the trip first: all in flight at once
                ju = b.add(j, b.mul(stride, ir.Constant(I64, u)))
                for base, ty, size, slot in zip(in_bases, self.in_types, self.in_sizes, slots[u]):
                    addr = b.gep(base, [ju], source_etype=ty)
                    if ahead:
                        addr = b.addrspacecast(addr, space)
                    b.store(b.load(addr, typ=ir.VectorType(ty, width), align=width * size), slot)

        def fold_trip(t, slots, first: bool):
            j = b.add(start, b.mul(t, span))
            for u in range(VECTOR_UNROLL):
                ju = b.add(j, b.mul(stride, ir.Constant(I64, u)))
                for lane in range(width):
                    k = u * width + lane
                    addrs = [b.gep(slot, [zero, ir.Constant(I64, lane)], source_etype=ir.ArrayType(ty, width))
                             for slot, ty in zip(slots[u], self.in_types)]
                    if self.gpu_recipe is not None:
                        idx = b.add(b.trunc(b.sub(ju, start), I32), ir.Constant(I32, lane)) if indexed else None
                        self.recipe_fold(b, accs[k % len(accs)], addrs[0], idx, first and k < len(accs),
                                         rel[k % len(accs)] if indexed else None)
                    else:
                        self.fold(b, accs[k % len(accs)], addrs, b.add(ju, ir.Constant(I64, lane)))

        def take_next():
            for u in range(VECTOR_UNROLL):
                for src, dst, ty in zip(nxt[u], cur[u], self.in_types):
                    b.store(b.load(src, typ=ir.ArrayType(ty, width)), dst)

        def advance(t):
            """Fold trip ``t`` (its vectors in ``cur``), the next trip's loads first."""
            last = b.sub(trips, one)
            later = b.add(t, one)
            load_trip(b.select(b.icmp_signed("<", later, trips), later, last), nxt)
            fold_trip(t, cur, first=False)
            take_next()

        run_bb = fn.append_basic_block("vt.run")
        done_bb = fn.append_basic_block("vt.done")
        b.cbranch(b.icmp_signed(">", trips, zero), run_bb, done_bb)
        b.position_at_end(run_bb)
        load_trip(zero, cur, ahead=False)
        first_loop_trip = zero
        if self.gpu_recipe is not None:
            # the first trip sets the lanes (each lane's first element replaces the identity)
            load_trip(b.select(b.icmp_signed(">", trips, one), one, zero), nxt, ahead=False)
            fold_trip(zero, cur, first=True)
            take_next()
            first_loop_trip = one
        loop = CountedLoop(b, first_loop_trip, trips, "vt")
        advance(loop.i)
        loop.close(b, b.add(loop.i, one))
        if indexed:  # every lane with a place in a trip took an element of the first trip
            for acc, slot in zip(accs[:VECTOR_UNROLL * width], rel):
                b.store(b.add(start, b.zext(b.load(slot, typ=I32), I64)), acc.fields(b)[1])
        b.branch(done_bb)
        b.position_at_end(done_bb)
        return b.add(j_begin, b.mul(trips, span))

    def recipe_fold(self, b, acc, addr, idx, first: bool, rel=None) -> None:
        """Fold the element at ``addr`` into ``acc`` with the instructions of the catalogue
        recipe ``gpu_recipe``, knowing that the element comes after every one ``acc`` holds;
        ``first``: the element replaces ``acc`` (which holds the identity).  argmax/argmin
        keep the index (``idx``, 32 bits) in the slot ``rel``, not in the record."""
        recipe = self.gpu_recipe
        dt = self.in_dtypes[0]
        ty = self.in_types[0]
        value = acc.fields(b)[0]
        x = b.load(addr, typ=ty)
        if first:
            b.store(x, value)
            if rel is not None:
                b.store(idx, rel)
            return
        a = b.load(value, typ=ty)
        low = recipe in ("min", "argmin")
        if recipe in ("max", "min"):
            if dt.kind == "f":  # NaN propagates, as the row's reduce does
                name = f"llvm.{'minimum' if low else 'maximum'}.{'f64' if dt.itemsize == 8 else 'f32'}"
                fn = self.module.globals.get(name)
                if fn is None:
                    fn = ir.Function(self.module, ir.FunctionType(ty, [ty, ty]), name)
                b.store(b.call(fn, [a, x]), value)
            else:
                cmp = b.icmp_unsigned if dt.kind in "bu" else b.icmp_signed
                b.store(b.select(cmp("<=" if low else ">=", a, x), a, x), value)
            return
        op = "<" if low else ">"
        if dt.kind == "f":
            # x wins when it is better or NaN ("unordered or better"), unless the lane
            # already holds a NaN (the first NaN stays)
            take = b.and_(b.fcmp_unordered(op, x, a), b.fcmp_ordered("ord", a, a))
        else:
            take = (b.icmp_unsigned if dt.kind in "bu" else b.icmp_signed)(op, x, a)
        b.store(b.select(take, x, a), value)
        b.store(b.select(take, idx, b.load(rel, typ=I32)), rel)

    def vector_slots(self, b, width: int, types=None) -> list:
        """An entry-block slot of ``width`` elements for each of ``types`` (the inputs'
        by default)."""
        here = b.block
        b.position_at_start(b.function.entry_basic_block)
        slots = [opaque_pointer(b.alloca(ir.ArrayType(t, width))) for t in (types or self.in_types)]
        b.position_at_end(here)
        return slots

    def wave_combine(self, b, acc) -> None:
        other = self.new_record(b)
        d = self.target.facts.wave_size // 2
        while d >= 1:
            self.shuffle_record(b, acc, other, lambda v: self.target.emit_shuffle_down(b, v, d))
            self.combine(b, acc, other)
            d //= 2

    def block_combine(self, b, acc) -> None:
        """Leave the combination of every thread's ``acc`` in thread 0's ``acc``."""
        target = self.target
        fn = self.fn
        wave = ir.Constant(I64, target.facts.wave_size)
        lane = b.urem(self.tib, wave)
        wave_id = b.udiv(self.tib, wave)
        n_waves = b.udiv(self.bdim, wave)
        words_t = ir.ArrayType(I32, self.words)
        shared_t = self.shared.value_type

        def shared_slot(k):
            slot = b.gep(self.shared, [ir.Constant(I64, 0), k], source_etype=shared_t)
            slot.type = ir.PointerType(addrspace=target.facts.shared_address_space)  # opaque
            return slot

        self.wave_combine(b, acc)
        store_bb = fn.append_basic_block("shared.store")
        stored_bb = fn.append_basic_block("shared.stored")
        b.cbranch(b.icmp_unsigned("==", lane, ir.Constant(I64, 0)), store_bb, stored_bb)
        b.position_at_end(store_bb)
        b.store(b.load(acc.ptr, typ=words_t), shared_slot(wave_id))
        b.branch(stored_bb)
        b.position_at_end(stored_bb)
        target.emit_barrier(b)
        first_bb = fn.append_basic_block("wave0")
        load_bb = fn.append_basic_block("wave0.load")
        ident_bb = fn.append_basic_block("wave0.identity")
        loaded_bb = fn.append_basic_block("wave0.loaded")
        after_bb = fn.append_basic_block("wave0.done")
        b.cbranch(b.icmp_unsigned("==", wave_id, ir.Constant(I64, 0)), first_bb, after_bb)
        b.position_at_end(first_bb)
        b.cbranch(b.icmp_unsigned("<", lane, n_waves), load_bb, ident_bb)
        b.position_at_end(load_bb)
        b.store(b.load(shared_slot(lane), typ=words_t), acc.ptr)
        b.branch(loaded_bb)
        b.position_at_end(ident_bb)
        self.set_identity(b, acc)
        b.branch(loaded_bb)
        b.position_at_end(loaded_bb)
        self.wave_combine(b, acc)
        b.branch(after_bb)
        b.position_at_end(after_bb)
        # the next item's stores must not overtake this item's loads
        target.emit_barrier(b)

    # -- host: tiles of adjacent outputs --------------------------------------------------------
