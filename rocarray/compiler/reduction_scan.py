"""Scan entries of the reduction builder: serial scans per item and wave-wide scans on GPUs."""

from __future__ import annotations

from llvmlite import ir

from .abi import I8, I64, storage_type
from .index_ir import CountedLoop, dim_at
from .reduction_abi import (MODE_GROUPS, MODE_UNSCANNED, MODE_WAVE, SCAN_UNROLL, VECTOR_BYTES, VECTOR_ELEMENTS,
                            scan_param_types)
from .reduction_ir import I32

#: ``MODE_UNSCANNED``: chunk totals loaded together before they are folded.
TOTALS_UNROLL = 4
#: A wave's fold of unscanned totals (``wave_fold_totals``): loads in flight per lane.
WAVE_TOTALS_UNROLL = 8
#: Host scans of adjacent elements: elements a trip of the loop (fewer instructions an
#: element beside the chain of combines).
HOST_SCAN_UNROLL = 4


class ScanBuilder:
    """The scan entries of ``ReductionBuilder``."""

    def build_scan(self, records_out: bool = False) -> None:
        target = self.target
        if target.simple_loops:
            self.build_scan_quick(records_out)
            return
        n_outs = 1 if records_out else len(self.out_dtypes)
        b, values, start, stop = self.entry_function(scan_param_types(self.n_inputs, n_outs))
        fn = self.fn
        dims = self.dims
        pos = 10
        self.inputs = []
        for _ in range(self.n_inputs):
            self.inputs.append((values[pos], dims(pos + 1), dims(pos + 2)))
            pos += 3
        outputs = []
        for _ in range(n_outs):
            outputs.append((values[pos], dims(pos + 1), dims(pos + 2)))
            pos += 3
        self.records, include_initial = values[pos], values[pos + 1]
        self.tmp = self.new_record(b)
        acc = self.new_record(b)
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        if target.facts.emits_grid:
            wave_bb = fn.append_basic_block("scan.waves")
            thread_bb = fn.append_basic_block("scan.threads")
            is_wave = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_WAVE)), zero)
            b.cbranch(is_wave, wave_bb, thread_bb)
            b.position_at_end(wave_bb)
            self.wave_scan(b, outputs, include_initial, records_out)
            b.position_at_end(thread_bb)
            first, step = target.emit_global_thread_id(b), target.emit_global_thread_count(b)
            limit = self.n_items
        else:
            first, step, limit = start, one, stop
        items = CountedLoop(b, first, limit, "item")
        o, c, in_bases, out_bases, in_sr, out_sr = self.scan_line(b, items.i, outputs)
        self.scan_item(b, acc, o, c, in_bases, out_bases, in_sr, out_sr, include_initial, records_out)
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def scan_line(self, b, it, outputs):
        """Item ``it`` of a full-tier scan: (line ``o``, chunk ``c``, input bases, output
        bases, input and output strides along the line).  On the host the items count the
        chunks from the last one."""
        zero = ir.Constant(I64, 0)
        o, c = self.divmod(b, it, self.n_out)
        if not self.target.facts.emits_grid:
            # (the threads take items in order: the chunks the totals' pass read last, still
            # in cache, come first)
            c = b.sub(b.sub(self.n_chunks, ir.Constant(I64, 1)), c)
        info = [("array", p, sk) for p, sk, _ in self.inputs] + [("array", p, sk) for p, sk, _ in outputs]
        bases = self.unravel(b, self.shape_k, self.ndim_k, o, info, [p for _, p, _ in info])
        in_sr = [dim_at(b, sr, zero) for _, _, sr in self.inputs]
        out_sr = [dim_at(b, sr, zero) for _, _, sr in outputs]
        return o, c, bases[:self.n_inputs], bases[self.n_inputs:], in_sr, out_sr

    def scan_start(self, b, o, c, out_bases, out_sr, carry, records_out: bool, lane=None):
        """Start the scan of line ``o``, chunk ``c``: set ``carry`` to the identity folded
        with the total of the line's earlier chunks: record ``c - 1`` of the scanned chunk
        totals, or with ``MODE_UNSCANNED`` records ``0 .. c - 1`` of the unscanned ones,
        folded in order (none for the first chunk); a wave (``lane``: this thread's) folds
        those together (``wave_fold_totals``).  Returns (``emit(k, record)`` writing the
        result for position ``k``, j_begin, j_end)."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        self.set_identity(b, carry)
        carry_bb = fn.append_basic_block("scan.carry")
        start_bb = fn.append_basic_block("scan.start")
        b.cbranch(b.icmp_unsigned("!=", c, zero), carry_bb, start_bb)
        b.position_at_end(carry_bb)
        unscanned = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_UNSCANNED)), zero)
        if lane is not None:
            fold_bb = fn.append_basic_block("scan.fold")
            last_bb = fn.append_basic_block("scan.last")
            b.cbranch(unscanned, fold_bb, last_bb)
            b.position_at_end(fold_bb)
            self.wave_fold_totals(b, o, c, carry, lane)
            b.branch(start_bb)
            b.position_at_end(last_bb)
            self.load_record(b, b.add(b.mul(b.sub(c, one), self.n_out), o), self.tmp)
            self.combine(b, carry, self.tmp)
            b.branch(start_bb)
        else:  # the unscanned totals 0 .. c - 1 (or the one scanned record, c - 1)
            self.fold_records(b, carry, b.select(unscanned, zero, b.sub(c, one)), c,
                              lambda k: b.add(b.mul(k, self.n_out), o), TOTALS_UNROLL, ("scan.totals", "scan.total"))
            b.branch(start_bb)
        b.position_at_end(start_bb)

        def emit(k, acc, strides=out_sr):
            addrs = [b.gep(p, [b.mul(k, s)], source_etype=I8) for p, s in zip(out_bases, strides)]
            if records_out:
                (addr,) = addrs
                self.move_record(b, acc.ptr, addr)
            else:
                b.call(self.post_fn, acc.fields(b) + addrs + [k, self.n_r])

        return (emit, *self.chunk_range(b, c))

    def wave_fold_totals(self, b, o, c, carry, lane) -> None:
        """Fold into ``carry`` (the identity) the unscanned totals before chunk ``c`` of line
        ``o``, the wave's lanes together: the list to fold is the chunk totals ``0 .. c - 1``,
        or with ``MODE_GROUPS`` (one line) the records of the groups before chunk ``c``'s,
        then the totals of the chunks before it in its group.  Each lane folds a run of
        adjacent places of the list (``WAVE_TOTALS_UNROLL`` loads in flight), then an
        ordered wave scan joins the runs and every lane takes the last lane's."""
        target = self.target
        wave = target.facts.wave_size
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        grouped = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_GROUPS)), zero)
        size = self.block_waves(b)
        groups = b.select(grouped, b.udiv(c, size), zero)
        first_total = b.mul(groups, size)
        length = b.add(groups, b.sub(c, first_total))
        share = b.udiv(b.add(length, ir.Constant(I64, wave - 1)), ir.Constant(I64, wave))
        lo = b.mul(lane, share)
        hi = b.add(lo, share)
        hi = b.select(b.icmp_signed("<", hi, length), hi, length)
        group_base = b.mul(self.n_chunks, self.n_out)

        def slot(k):  # place k of the list: a group's record, else a chunk's total
            return b.select(b.icmp_signed("<", k, groups), b.add(group_base, k),
                            b.add(b.mul(b.add(first_total, b.sub(k, groups)), self.n_out), o))

        self.fold_records(b, carry, lo, hi, slot, WAVE_TOTALS_UNROLL, ("wfold", "wfold.rest"))
        other = self.new_record(b)
        self.wave_inclusive_scan(b, carry, other, lane)
        self.shuffle_record(b, carry, other, lambda v: target.emit_shuffle_index(b, v, wave - 1))
        self.move_record(b, other.ptr, carry.ptr)

    def fold_records(self, b, acc, begin, end, slot, unroll: int, names: tuple) -> None:
        """Fold into ``acc``, in order, the records ``slot(k)`` of the records array for
        ``k`` in ``begin .. end - 1``: ``unroll`` at a time, their loads first (in flight
        together), then the rest one by one (``names``: the two loops')."""
        recs = [self.new_record(b) for _ in range(unroll)]
        trips = CountedLoop(b, begin, b.sub(end, ir.Constant(I64, unroll - 1)), names[0])
        for u, rec in enumerate(recs):
            self.load_record(b, slot(b.add(trips.i, ir.Constant(I64, u))), rec)
        for rec in recs:
            self.combine(b, acc, rec)
        trips.close(b, b.add(trips.i, ir.Constant(I64, unroll)))
        rest = CountedLoop(b, trips.i, end, names[1])
        self.load_record(b, slot(rest.i), self.tmp)
        self.combine(b, acc, self.tmp)
        rest.close(b, b.add(rest.i, ir.Constant(I64, 1)))

    def scan_initial(self, b, first, include_initial, emit, identity):
        """With ``include_initial``, where ``first()`` (a condition it builds) holds, write
        the record ``identity`` (post-mapped) at position 0; returns the shift of the later
        positions (1 with ``include_initial``, else 0)."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        initial = b.and_(b.icmp_unsigned("!=", include_initial, zero), first())
        init_bb = fn.append_basic_block("scan.initial")
        run_bb = fn.append_basic_block("scan.run")
        b.cbranch(initial, init_bb, run_bb)
        b.position_at_end(init_bb)
        emit(zero, identity)
        b.branch(run_bb)
        b.position_at_end(run_bb)
        return b.select(b.icmp_unsigned("!=", include_initial, zero), ir.Constant(I64, 1), zero)

    def scan_item(self, b, acc, o, c, in_bases, out_bases, in_sr, out_sr, include_initial, records_out) -> None:
        """One scan item worked by one thread: line ``o`` (its bases), chunk ``c``;
        ``in_sr``/``out_sr``: the strides along the scanned dimension."""
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        emit, j_begin, j_end = self.scan_start(b, o, c, out_bases, out_sr, acc, records_out)
        shift = self.scan_initial(b, lambda: b.icmp_unsigned("==", c, zero), include_initial, emit, acc)

        def step(j, in_strides, out_strides):
            self.fold(b, acc, [b.gep(p, [b.mul(j, s)], source_etype=I8) for p, s in zip(in_bases, in_strides)], j)
            emit(b.add(j, shift), acc, out_strides)

        def run(in_strides, out_strides, unroll=1):
            start = j_begin
            if unroll > 1:  # (whole groups of elements, then the rest one by one)
                groups = CountedLoop(b, j_begin, b.sub(j_end, ir.Constant(I64, unroll - 1)), "scan.group")
                for u in range(unroll):
                    step(b.add(groups.i, ir.Constant(I64, u)), in_strides, out_strides)
                groups.close(b, b.add(groups.i, ir.Constant(I64, unroll)))
                start = groups.i
            loop = CountedLoop(b, start, j_end, "scan")
            step(loop.i, in_strides, out_strides)
            loop.close(b, b.add(loop.i, one))

        if self.target.facts.emits_grid or self.target.simple_loops:
            run(in_sr, out_sr)
            return
        # on the host's full tier, lines of adjacent elements get a loop of their own whose
        # addresses step by constants (a stride known only at run time costs two multiplies
        # an element); the quick tier's text is shared by inputs of other sizes
        out_sizes = [self.rec_size] if records_out else [d.itemsize for d in self.out_dtypes]
        sizes = [ir.Constant(I64, k) for k in self.in_sizes + out_sizes]
        adjacent = ir.Constant(ir.IntType(1), 1)
        for stride, size in zip(in_sr + out_sr, sizes):
            adjacent = b.and_(adjacent, b.icmp_signed("==", stride, size))
        fn = self.fn
        unit_bb, general_bb, done_bb = (fn.append_basic_block(f"scan.{n}") for n in ("unit", "strided", "done"))
        b.cbranch(adjacent, unit_bb, general_bb)
        b.position_at_end(unit_bb)
        run(sizes[:len(in_sr)], sizes[len(in_sr):], HOST_SCAN_UNROLL)
        b.branch(done_bb)
        b.position_at_end(general_bb)
        run(in_sr, out_sr)
        b.branch(done_bb)
        b.position_at_end(done_bb)

    def wave_scan(self, b, outputs, include_initial, records_out: bool) -> None:
        """GPU scan items worked by one wave each (``MODE_WAVE``): the lanes take
        consecutive elements of the chunk (coalesced when the line is contiguous), and each
        step of ``wave_size`` elements is an inclusive wave scan by shuffles (log2(wave)
        rounds: lane l folds the partial result of lane l - d, for d = 1, 2, 4, ...) with
        the carry (the total of the earlier steps) folded in on the left; the carry then
        folds in the step's total (the last lane's scan, read by a shuffle).  Order is kept:
        every result is a left-to-right combination of its elements.  ``SCAN_UNROLL`` steps
        per trip: their loads first, then their wave scans.
        Every lane runs every shuffle: the item, trip and step are the same for the whole
        wave, and lanes past the chunk's end take the identity and write nothing."""
        target = self.target
        fn = self.fn
        wave = target.facts.wave_size
        size = ir.Constant(I64, wave)
        zero = ir.Constant(I64, 0)
        lane = b.urem(target.emit_thread_in_block(b), size)
        first = b.udiv(target.emit_global_thread_id(b), size)
        step = b.udiv(target.emit_global_thread_count(b), size)
        carry = self.new_record(b)
        total = self.new_record(b)
        other = self.new_record(b)
        xs = [self.new_record(b) for _ in range(SCAN_UNROLL)]
        step_totals = [self.new_record(b) for _ in range(SCAN_UNROLL)]
        items = CountedLoop(b, first, self.n_items, "witem")
        o, c, in_bases, out_bases, in_sr, out_sr = self.scan_line(b, items.i, outputs)
        emit, j_begin, j_end = self.scan_start(b, o, c, out_bases, out_sr, carry, records_out, lane)
        shift = self.scan_initial(b, lambda: b.icmp_unsigned("==", b.or_(c, lane), zero), include_initial, emit,
                                  carry)
        start = j_begin
        width = 1 if records_out else self.scan_vector_width()
        if width > 1:
            start = self.wave_vector_trips(b, j_begin, j_end, shift, carry, lane, in_bases, out_bases, in_sr, out_sr,
                                           width)
        trips = CountedLoop(b, start, j_end, "wtrip")
        js, inside = [], []
        for u, x in enumerate(xs):
            j = b.add(b.add(trips.i, ir.Constant(I64, u * wave)), lane)
            js.append(j)
            inside.append(b.icmp_signed("<", j, j_end))
            self.set_identity(b, x)
            load_bb = fn.append_basic_block("wscan.load")
            loaded_bb = fn.append_basic_block("wscan.loaded")
            b.cbranch(inside[u], load_bb, loaded_bb)
            b.position_at_end(load_bb)
            addrs = [b.gep(p, [b.mul(j, s)], source_etype=I8) for p, s in zip(in_bases, in_sr)]
            if self.source == "record":
                b.store(b.load(addrs[0], typ=self.rec_type), x.ptr)
            else:
                b.call(self.map_fn, addrs + x.fields(b) + [j, self.n_r])
            b.branch(loaded_bb)
            b.position_at_end(loaded_bb)
        # the steps' wave scans and step totals (the last lane's: the identity past the
        # end) do not depend on the carry: all of them first, straight-line code
        for x, t in zip(xs, step_totals):
            self.wave_inclusive_scan(b, x, other, lane)
            self.shuffle_record(b, x, t, lambda v: target.emit_shuffle_index(b, v, wave - 1))
        for u, (x, t) in enumerate(zip(xs, step_totals)):
            b.store(b.load(carry.ptr, typ=self.rec_type), total.ptr)
            self.combine(b, total, x)
            write_bb = fn.append_basic_block("wscan.write")
            written_bb = fn.append_basic_block("wscan.written")
            b.cbranch(inside[u], write_bb, written_bb)
            b.position_at_end(write_bb)
            emit(b.add(js[u], shift), total)
            b.branch(written_bb)
            b.position_at_end(written_bb)
            self.combine(b, carry, t)
        trips.close(b, b.add(trips.i, ir.Constant(I64, wave * SCAN_UNROLL)))
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def scan_vector_width(self) -> int:
        """Elements a lane takes as one vector in the wave scan's vector trips (1: none):
        16-byte accesses of the widest input or output, real or integer elements only."""
        sizes = self.in_sizes + [d.itemsize for d in self.out_dtypes]
        if self.vector_width() == 1 or any(d.kind not in "biuf" for d in self.out_dtypes):
            return 1
        return max(1, min(VECTOR_ELEMENTS, VECTOR_BYTES // max(sizes)))

    def wave_vector_trips(self, b, j_begin, j_end, shift, carry, lane, in_bases, out_bases, in_sr, out_sr, width):
        """The wave scan's whole trips over a contiguous, aligned line (else none): each of
        ``SCAN_UNROLL`` steps covers ``wave * width`` elements, lane ``l`` the ``width``
        adjacent ones from ``l * width``, loaded and stored as one vector each
        (``vector_step_scans``, ``vector_step_writes``).  Returns the first element left
        to the per-element trips."""
        zero = ir.Constant(I64, 0)
        span = ir.Constant(I64, self.target.facts.wave_size * width * SCAN_UNROLL)
        ok = self.vector_aligned(b, j_begin, shift, in_bases, out_bases, in_sr, out_sr, width)
        whole = b.mul(b.udiv(b.sub(j_end, j_begin), span), span)
        end = b.add(j_begin, b.select(ok, whole, zero))
        trips = CountedLoop(b, j_begin, end, "wvtrip")
        steps = self.vector_step_scans(b, trips.i, lane, in_bases, width)
        self.vector_step_writes(b, steps, shift, carry, lane, out_bases, width)
        trips.close(b, b.add(trips.i, span))
        return end

    def vector_aligned(self, b, j_begin, shift, in_bases, out_bases, in_sr, out_sr, width):
        """Whether every input and output of the line is contiguous and its element
        ``j_begin`` (an output's ``j_begin + shift``) starts a whole ``width``-vector."""
        zero = ir.Constant(I64, 0)
        out_sizes = [d.itemsize for d in self.out_dtypes]
        ok = ir.Constant(ir.IntType(1), 1)
        for bases, strides, sizes, at in ((in_bases, in_sr, self.in_sizes, j_begin),
                                          (out_bases, out_sr, out_sizes, b.add(j_begin, shift))):
            for p, s, size in zip(bases, strides, sizes):
                ok = b.and_(ok, b.icmp_signed("==", s, ir.Constant(I64, size)))
                addr = b.add(b.ptrtoint(p, I64), b.mul(at, ir.Constant(I64, size)))
                ok = b.and_(ok, b.icmp_unsigned("==", b.and_(addr, ir.Constant(I64, width * size - 1)), zero))
        return ok

    def vector_step_scans(self, b, trip, lane, in_bases, width) -> list:
        """The part of a vector trip from ``trip`` that does not depend on the carry: the
        loads (all of them first, in flight together), then per step each lane's serial
        scan of its ``width`` elements, a wave scan of the lanes' totals, the fold of the
        lanes below each lane (a shuffle up of that scan) and the step's total (the last
        lane's).  Returns per step ``(first element of the lane, its running folds, the
        fold below it, the step's total)``."""
        target = self.target
        wave = target.facts.wave_size
        zero = ir.Constant(I64, 0)
        space = ir.PointerType(addrspace=target.facts.global_address_space)
        js = [b.add(b.add(trip, ir.Constant(I64, u * wave * width)), b.mul(lane, ir.Constant(I64, width)))
              for u in range(SCAN_UNROLL)]
        in_slots = [self.vector_slots(b, width) for _ in range(SCAN_UNROLL)]
        for j, slots in zip(js, in_slots):
            for p, ty, size, slot in zip(in_bases, self.in_types, self.in_sizes, slots):
                addr = b.addrspacecast(b.gep(p, [b.mul(j, ir.Constant(I64, size))], source_etype=I8), space)
                b.store(b.load(addr, typ=ir.VectorType(ty, width), align=width * size), slot)
        other = self.new_record(b)
        lane_total = self.new_record(b)
        steps = []
        for j, slots in zip(js, in_slots):
            run = [self.new_record(b) for _ in range(width)]
            before, total = self.new_record(b), self.new_record(b)
            for v, rec in enumerate(run):
                addrs = [b.gep(slot, [zero, ir.Constant(I64, v)], source_etype=ir.ArrayType(ty, width))
                         for slot, ty in zip(slots, self.in_types)]
                b.call(self.map_fn, addrs + rec.fields(b) + [b.add(j, ir.Constant(I64, v)), self.n_r])
                if v:
                    self.move_record(b, run[v - 1].ptr, other.ptr)
                    self.combine(b, other, rec)
                    self.move_record(b, other.ptr, rec.ptr)
            self.move_record(b, run[-1].ptr, lane_total.ptr)
            self.wave_inclusive_scan(b, lane_total, other, lane)
            self.shuffle_record(b, lane_total, total, lambda v: target.emit_shuffle_index(b, v, wave - 1))
            self.shuffle_record(b, lane_total, before, lambda v: target.emit_shuffle_up(b, v, 1))
            steps.append((j, run, before, total))
        return steps

    def vector_step_writes(self, b, steps, shift, carry, lane, out_bases, width) -> None:
        """The rest of a vector trip (``vector_step_scans``' steps): per step, each result
        is the carry, the fold below the lane (past lane 0) and the lane's running fold, in
        that order, post-mapped into a vector of the output and stored whole; then the
        carry takes the step's total."""
        target = self.target
        zero = ir.Constant(I64, 0)
        space = ir.PointerType(addrspace=target.facts.global_address_space)
        out_types = [storage_type(d) for d in self.out_dtypes]
        out_sizes = [d.itemsize for d in self.out_dtypes]
        out_slot = self.vector_slots(b, width, out_types)
        prefix, result = self.new_record(b), self.new_record(b)
        first_lane = b.icmp_unsigned("==", lane, zero)
        for j, run, before, total in steps:
            self.move_record(b, carry.ptr, prefix.ptr)
            self.combine(b, prefix, before)
            self.select_record(b, first_lane, carry, prefix)
            for v, rec in enumerate(run):
                self.move_record(b, prefix.ptr, result.ptr)
                self.combine(b, result, rec)
                addrs = [b.gep(slot, [zero, ir.Constant(I64, v)], source_etype=ir.ArrayType(ty, width))
                         for slot, ty in zip(out_slot, out_types)]
                b.call(self.post_fn, result.fields(b) + addrs + [b.add(b.add(j, ir.Constant(I64, v)), shift),
                                                                  self.n_r])
            for p, ty, size, slot in zip(out_bases, out_types, out_sizes, out_slot):
                addr = b.addrspacecast(b.gep(p, [b.mul(b.add(j, shift), ir.Constant(I64, size))], source_etype=I8),
                                       space)
                b.store(b.load(slot, typ=ir.VectorType(ty, width)), addr, align=width * size)
            self.combine(b, carry, total)

    def wave_inclusive_scan(self, b, x, other, lane) -> None:
        """Replace each lane's record ``x`` by the combination of lanes 0 .. lane, in order
        (Hillis-Steele).  Branch-free: every lane combines, and lanes below ``d`` keep their
        record (what they combined is some lane's valid record, never uninitialised)."""
        d = 1
        while d < self.target.facts.wave_size:
            self.shuffle_record(b, x, other, lambda v: self.target.emit_shuffle_up(b, v, d))
            self.combine(b, other, x)  # the lower lanes on the left
            self.select_record(b, b.icmp_unsigned(">=", lane, ir.Constant(I64, d)), other, x)
            d *= 2

    def select_record(self, b, cond, src, dst) -> None:
        """``dst`` = ``src`` where ``cond`` holds (else unchanged), word by word: no branch
        (the lanes of a wave differ in ``cond``)."""
        words_t = ir.ArrayType(I32, self.words)
        for w in range(self.words):
            idx = [ir.Constant(I32, 0), ir.Constant(I32, w)]
            s = b.gep(src.ptr, idx, source_etype=words_t)
            t = b.gep(dst.ptr, idx, source_etype=words_t)
            b.store(b.select(cond, b.load(s, typ=I32), b.load(t, typ=I32)), t)

    def shuffle_record(self, b, src, dst, shuffle) -> None:
        """``dst`` = ``shuffle`` (an i32 wave shuffle) of record ``src``, word by word."""
        words_t = ir.ArrayType(I32, self.words)
        for w in range(self.words):
            idx = [ir.Constant(I32, 0), ir.Constant(I32, w)]
            value = b.load(b.gep(src.ptr, idx, source_etype=words_t), typ=I32)
            b.store(shuffle(value), b.gep(dst.ptr, idx, source_etype=words_t))

    # -- one item: an output element and one chunk of its reduced run ----------------------
