"""The host's reduction loops: lanes of accumulators, SIMD recipes over contiguous runs, tiles."""

from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..targets.base import declare_function
from .abi import I8, I64, PTR, storage_type
from .index_ir import CountedLoop, dim_at
from .reduction_abi import MODE_RECORDS, TILE
from .reduction_ir import GPU_RECIPE_NAMES, I32, RecordArray, convert_vector, splat

#: Interleaved accumulators per thread (independent chains: more loads in flight, and the
#: host's vectoriser turns eight of them into one vector operation).
HOST_LANES = 32
#: Host max/min/argmax/argmin over a contiguous run: bytes of elements per trip of the
#: wide loop ahead of the ``HOST_LANES`` one (eight 64-byte vector registers of lanes,
#: independent chains; 0: none).  It shortens the ``HOST_LANES`` loop's chain of compare,
#: mask and blend per trip (measured faster; see benchmarks/results/history/benchmarks.md).
HOST_WIDE_BYTES = 512
#: Host max/min: the wide loop prefetches the cache lines this many bytes ahead (0: none).
HOST_PREFETCH_BYTES = 8192
#: Host argmax/argmin: trips of the wide loop per block (a block is searched again for
#: the index only when it holds a new extreme).
HOST_BLOCK_TRIPS = 8


class HostReduction:
    """The host's item loops of ``ReductionBuilder``."""

    def host_item(self, b, o, c, in_bases, out_addrs, j_begin, j_end) -> None:
        """One host item: ``HOST_LANES`` accumulators in an array; each trip folds the next
        ``HOST_LANES`` elements into them in a loop the vectoriser turns into vector code
        (each lane is a separate chain, so no reassociation is needed), then the lanes
        are combined pairwise."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        one = ir.Constant(I64, 1)
        lanes_c = ir.Constant(I64, HOST_LANES)
        accs = self.lanes
        init = CountedLoop(b, zero, lanes_c, "lane.init")
        b.call(self.identity_fn, accs.fields(b, init.i) + [zero, zero])
        init.close(b, b.add(init.i, one))
        flat_bb = fn.append_basic_block("run.flat")
        nd_bb = fn.append_basic_block("run.nd")
        done_bb = fn.append_basic_block("run.done")
        b.cbranch(b.icmp_signed("==", self.ndim_r, one), flat_bb, nd_bb)

        b.position_at_end(flat_bb)
        strides = [dim_at(b, sr, zero) for _, _, sr in self.inputs]
        contig = ir.Constant(ir.IntType(1), 1)
        for s, size in zip(strides, self.in_sizes):
            contig = b.and_(contig, b.icmp_signed("==", s, ir.Constant(I64, size)))
        contig_bb = fn.append_basic_block("run.contiguous")
        strided_bb = fn.append_basic_block("run.strided")
        b.cbranch(contig, contig_bb, strided_bb)
        for bb, indexed in ((contig_bb, True), (strided_bb, False)):
            b.position_at_end(bb)
            last_full = b.sub(j_end, ir.Constant(I64, HOST_LANES - 1))
            if indexed and self.simd is not None:
                tail_start = self.simd_loop(b, accs, in_bases[0], j_begin, last_full)
            else:
                rows = CountedLoop(b, j_begin, last_full, "jl")
                lane = CountedLoop(b, zero, lanes_c, "lane")
                j = b.add(rows.i, lane.i)
                self.fold_into(b, accs.fields(b, lane.i), self.element_addrs(b, in_bases, strides, j, indexed), j)
                lane.close(b, b.add(lane.i, one))
                rows.close(b, b.add(rows.i, lanes_c))
                tail_start = rows.i
            tail = CountedLoop(b, tail_start, j_end, "jt")
            self.fold_into(b, accs.fields(b, zero), self.element_addrs(b, in_bases, strides, tail.i, indexed), tail.i)
            tail.close(b, b.add(tail.i, one))
            b.branch(done_bb)

        b.position_at_end(nd_bb)
        self.nd_run(b, accs.fields(b, zero), in_bases, j_begin, j_end, one)
        b.branch(done_bb)

        b.position_at_end(done_bb)
        width = 1
        while width < HOST_LANES:
            for k in range(0, HOST_LANES, 2 * width):
                b.call(self.reduce_fn, accs.fields(b, ir.Constant(I64, k))
                       + accs.fields(b, ir.Constant(I64, k + width)) + [zero, zero])
            width *= 2
        first = self.new_record(b)
        accs.copy_to(b, zero, first.fields(b))
        self.write(b, first, o, c, out_addrs)

    def simd_loop(self, b, accs, base, j_begin, last_full):
        """The host's contiguous run of a catalogue reduction with a SIMD recipe: the
        ``HOST_LANES`` lanes held in vector registers, one vector load and one vector
        operation per trip (NumPy's SIMD loops do the same); the lanes go back to ``accs``
        for the pairwise combine.  max and min first run a wider loop (``wide_extreme``),
        argmax and argmin wider blocks (``wide_arg``).  Returns the first index left for
        the scalar tail."""
        fn = self.fn
        lanes = HOST_LANES
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        acc_dt = self.field_dtypes[0]
        acc_t = storage_type(acc_dt)
        vin_t = ir.VectorType(in_t, lanes)
        vacc_t = ir.VectorType(acc_t, lanes)
        zero = ir.Constant(I64, 0)
        fields = accs.fields(b, zero)
        starts = [b.load(f, typ=ir.VectorType(t, lanes), align=8) for f, t in zip(fields, self.rec_type.elements)]
        recipe = self.simd
        idx_t = ir.VectorType(I64, lanes)
        wide = self.wide_lanes()
        found = None
        if wide and recipe in ("max", "min"):
            j_begin, starts[0] = self.wide_extreme(b, base, j_begin, last_full, starts[0], wide)
        elif wide:
            j_begin, found = self.wide_arg(b, base, j_begin, last_full, wide)
        incoming = [(j_begin, starts, b.block)]
        if recipe in ("argmax", "argmin"):
            # the first vector replaces the identity lanes outright; after it every lane
            # holds an earlier index than any element to come, so ties need no index test
            peel_bb = fn.append_basic_block("jv.first")
            join_bb = fn.append_basic_block("jv.start")
            b.cbranch(b.icmp_signed("<", j_begin, last_full), peel_bb, join_bb)
            b.position_at_end(peel_bb)
            x0 = b.load(b.gep(base, [j_begin], source_etype=in_t), typ=vin_t, align=in_dt.itemsize)
            first = [convert_vector(b, x0, in_dt, acc_dt, vacc_t),
                     b.add(splat(b, j_begin, lanes), ir.Constant(idx_t, list(range(lanes))))]
            incoming.append((b.add(j_begin, ir.Constant(I64, lanes)), first, b.block))
            b.branch(join_bb)
            b.position_at_end(join_bb)
            j_phi = b.phi(I64)
            start_phis = [b.phi(v.type) for v in starts]
            for j_in, vals, bb in incoming:
                j_phi.add_incoming(j_in, bb)
                for phi, v in zip(start_phis, vals):
                    phi.add_incoming(v, bb)
            incoming = [(j_phi, start_phis, join_bb)]
        pre = b.block
        head = fn.append_basic_block("jv.head")
        body = fn.append_basic_block("jv.body")
        exit_bb = fn.append_basic_block("jv.exit")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jv")
        j.add_incoming(incoming[0][0], pre)
        phis = []
        for v in incoming[0][1]:
            phi = b.phi(v.type)
            phi.add_incoming(v, pre)
            phis.append(phi)
        b.cbranch(b.icmp_signed("<", j, last_full), body, exit_bb)
        b.position_at_end(body)
        x = b.load(b.gep(base, [j], source_etype=in_t), typ=vin_t, align=in_dt.itemsize)
        if recipe in ("any", "all"):
            nz = (b.fcmp_unordered("!=", x, ir.Constant(vin_t, 0.0)) if in_dt.kind == "f"
                  else b.icmp_unsigned("!=", x, ir.Constant(vin_t, 0)))
            xv = b.zext(nz, vacc_t)
        else:
            xv = convert_vector(b, x, in_dt, acc_dt, vacc_t)
        a = phis[0]
        float_acc = acc_dt.kind == "f"
        if recipe == "add":
            new = [b.fadd(a, xv) if float_acc else b.add(a, xv)]
        elif recipe == "mul":
            new = [b.fmul(a, xv) if float_acc else b.mul(a, xv)]
        elif recipe == "any":
            new = [b.or_(a, xv)]
        elif recipe == "all":
            new = [b.and_(a, xv)]
        elif recipe in ("max", "min"):
            if float_acc:  # NaN propagates: keep a when it is NaN or already wins
                keep = b.or_(b.fcmp_unordered("uno", a, a),
                             b.fcmp_ordered(">=" if recipe == "max" else "<=", a, xv))
            else:
                cmp = b.icmp_unsigned if acc_dt.kind in "ub" else b.icmp_signed
                keep = cmp(">=" if recipe == "max" else "<=", a, xv)
            new = [b.select(keep, a, xv)]
        elif recipe in ("argmax", "argmin"):
            ai = phis[1]
            idx = b.add(splat(b, j, lanes), ir.Constant(idx_t, list(range(lanes))))
            op = ">" if recipe == "argmax" else "<"
            if float_acc:
                # a number beats a smaller one; the first NaN beats everything and stays
                take = b.or_(b.fcmp_ordered(op, xv, a),
                             b.and_(b.fcmp_unordered("uno", xv, xv), b.fcmp_ordered("ord", a, a)))
            else:
                take = (b.icmp_unsigned if acc_dt.kind in "ub" else b.icmp_signed)(op, xv, a)
            new = [b.select(take, xv, a), b.select(take, idx, ai)]
        else:
            raise ValueError(f"unknown SIMD recipe {recipe!r}")
        for phi, v in zip(phis, new):
            phi.add_incoming(v, b.block)
        j.add_incoming(b.add(j, ir.Constant(I64, lanes)), b.block)
        b.branch(head)
        b.position_at_end(exit_bb)
        for f, phi in zip(fields, phis):
            b.store(phi, f, align=8)
        if found is not None:
            # the blocks' first extreme (or first NaN) joins lane 0 through the reduce,
            # which settles a tie with the lanes by the index
            take_bb = fn.append_basic_block("jw.merge")
            after_bb = fn.append_basic_block("jw.merged")
            b.cbranch(b.icmp_signed(">=", found, zero), take_bb, after_bb)
            b.position_at_end(take_bb)
            rec = self.new_record(b)
            value_f, index_f = rec.fields(b)
            b.store(b.load(b.gep(base, [found], source_etype=in_t), typ=in_t), value_f)
            b.store(found, index_f)
            b.call(self.reduce_fn, fields + rec.fields(b) + [zero, zero])
            b.branch(after_bb)
            b.position_at_end(after_bb)
        return j

    def wide_lanes(self) -> int:
        """Lanes of the host's wide max/min/argmax/argmin loop (``HOST_WIDE_BYTES`` of
        elements per trip), 0 when the recipe or the dtypes have none (a conversion, or
        lanes no wider than ``HOST_LANES``)."""
        if self.simd not in GPU_RECIPE_NAMES or not HOST_WIDE_BYTES:
            return 0
        in_dt, acc_dt = self.in_dtypes[0], self.field_dtypes[0]
        if in_dt != acc_dt or in_dt.kind not in "biuf":
            return 0
        wide = HOST_WIDE_BYTES // in_dt.itemsize
        return wide if wide > HOST_LANES and wide % HOST_LANES == 0 else 0

    def _better(self, b, x, a):
        """Lanes where ``x`` beats ``a`` strictly (no NaN among them): ``x > a`` for max and
        argmax, ``x < a`` for min and argmin."""
        op = ">" if self.simd in ("max", "argmax") else "<"
        dt = self.field_dtypes[0]
        if dt.kind == "f":
            return b.fcmp_ordered(op, x, a)
        return (b.icmp_unsigned if dt.kind in "ub" else b.icmp_signed)(op, x, a)

    def _worst(self):
        """The value every element ties with or beats (the identity of max or min)."""
        dt = self.field_dtypes[0]
        low = self.simd in ("max", "argmax")
        if dt.kind == "f":
            return float("-inf") if low else float("inf")
        if dt.kind == "b":
            return 0 if low else 1
        info = np.iinfo(dt)
        v = int(info.min if low else info.max)
        return v - (1 << info.bits) if v >= 1 << (info.bits - 1) else v  # (the bits, signed)

    def _halve(self, b, v, width: int):
        """Fold the upper half of the ``width`` lanes of ``v`` into the lower half (lane
        ``l`` keeps the better of lanes ``l`` and ``l + width / 2``, ``l`` on a tie)."""
        half = width // 2
        lo = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(I32, half), list(range(half))))
        hi = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(I32, half), list(range(half, width))))
        return b.select(self._better(b, hi, lo), hi, lo)

    def _nan_mask(self, b, x, wide: int):
        """Lanes of one register's width (64 bytes) that are set where some lane of ``x``
        at the same place in its register is NaN: one unordered compare per pair of
        registers, the masks ORed (mask operations off the vector ports)."""
        reg = max(1, min(wide, 64 // self.in_dtypes[0].itemsize))
        pieces = [b.shuffle_vector(x, x, ir.Constant(ir.VectorType(I32, reg), list(range(k, k + reg))))
                  for k in range(0, wide, reg)]
        masks = [b.fcmp_unordered("uno", pieces[k], pieces[min(k + 1, len(pieces) - 1)])
                 for k in range(0, len(pieces), 2)]
        m = masks[0]
        for other in masks[1:]:
            m = b.or_(m, other)
        return m

    @staticmethod
    def _any(b, mask):
        """Whether any lane of the i1 vector ``mask`` is set."""
        t = ir.IntType(mask.type.count)
        return b.icmp_unsigned("!=", b.bitcast(mask, t), ir.Constant(t, 0))

    def wide_extreme(self, b, base, j_begin, last_full, start, wide: int):
        """max/min ahead of the ``HOST_LANES`` loop: ``wide`` lanes per trip (eight vector
        registers, independent chains) folded by the target's max instruction
        (``x > a ? x : a``, no NaN test on the chain).  A trip with a NaN stops the loop
        before its fold: the lanes are folded down to ``HOST_LANES`` and the loop that
        follows takes over from that trip, keeping the NaN as before (each lane's fold is
        the same max over the same elements; only the sign of a zero max among mixed
        zeros may come from another lane).  Returns (next index, the HOST_LANES lanes)."""
        fn = self.fn
        lanes = HOST_LANES
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        vw_t = ir.VectorType(in_t, wide)
        limit = b.sub(last_full, ir.Constant(I64, wide - lanes))  # j < limit: j + wide <= j_end
        a0 = b.shuffle_vector(start, start, ir.Constant(ir.VectorType(I32, wide), [k % lanes for k in range(wide)]))
        pre = b.block
        head = fn.append_basic_block("jw.head")
        body = fn.append_basic_block("jw.body")
        fold = fn.append_basic_block("jw.fold") if in_dt.kind == "f" else body
        exit_bb = fn.append_basic_block("jw.exit")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jw")
        j.add_incoming(j_begin, pre)
        a = b.phi(vw_t)
        a.add_incoming(a0, pre)
        b.cbranch(b.icmp_signed("<", j, limit), body, exit_bb)
        b.position_at_end(body)
        x = b.load(b.gep(base, [j], source_etype=in_t), typ=vw_t, align=in_dt.itemsize)
        self._prefetch_ahead(b, base, j, wide)
        if in_dt.kind == "f":
            b.cbranch(self._any(b, self._nan_mask(b, x, wide)), exit_bb, fold)
            b.position_at_end(fold)
        a.add_incoming(b.select(self._better(b, x, a), x, a), b.block)
        j.add_incoming(b.add(j, ir.Constant(I64, wide)), b.block)
        b.branch(head)
        b.position_at_end(exit_bb)
        v, width = a, wide
        while width > lanes:
            v = self._halve(b, v, width)
            width //= 2
        return j, v

    def _prefetch_ahead(self, b, base, j, count: int) -> None:
        """Prefetch the cache lines ``HOST_PREFETCH_BYTES`` past elements ``j .. j + count``
        (a prefetch never faults, so past the end is harmless)."""
        if not HOST_PREFETCH_BYTES:
            return
        fn = declare_function(self.module, "llvm.prefetch.p0",
                              ir.FunctionType(ir.VoidType(), [PTR, I32, I32, I32]))
        itemsize = self.in_dtypes[0].itemsize
        start = b.gep(base, [j], source_etype=self.in_types[0])
        for offset in range(HOST_PREFETCH_BYTES, HOST_PREFETCH_BYTES + count * itemsize, 64):
            b.call(fn, [b.gep(start, [ir.Constant(I64, offset)], source_etype=I8),
                        ir.Constant(I32, 0), ir.Constant(I32, 3), ir.Constant(I32, 1)])

    def wide_arg(self, b, base, j_begin, last_full, wide: int):
        """argmax/argmin ahead of the ``HOST_LANES`` loop, in blocks of ``HOST_BLOCK_TRIPS``
        trips of ``wide`` lanes: a block folds to its extreme value by the max instruction
        alone (no index vectors), and only a block strictly better than all before it is
        remembered (its start); at the end the remembered block is searched for the first
        element equal to the best value.  A block with a NaN ends the run: its first NaN is
        the answer (NaN beats everything, the first one wins).  Returns (next index, the
        index found or -1): the found element joins lane 0 after the loop that follows."""
        fn = self.fn
        lanes = HOST_LANES
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        vw_t = ir.VectorType(in_t, wide)
        trips = HOST_BLOCK_TRIPS
        span = wide * trips
        minus_one = ir.Constant(I64, -1)
        j_end = b.add(last_full, ir.Constant(I64, lanes - 1))
        limit = b.sub(last_full, ir.Constant(I64, span - lanes))  # j < limit: j + span <= j_end
        pre = b.block
        head = fn.append_basic_block("jb.head")
        body = fn.append_basic_block("jb.body")
        keep_bb = fn.append_basic_block("jb.keep")
        nan_bb = fn.append_basic_block("jb.nan") if in_dt.kind == "f" else None
        done_bb = fn.append_basic_block("jb.done")
        search_bb = fn.append_basic_block("jb.search")
        out_bb = fn.append_basic_block("jb.out")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jb")
        j.add_incoming(j_begin, pre)
        best = b.phi(in_t)
        best.add_incoming(ir.Constant(in_t, self._worst()), pre)  # (replaced by the first block)
        at = b.phi(I64)  # start of the best block so far, -1 before the first
        at.add_incoming(minus_one, pre)
        b.cbranch(b.icmp_signed("<", j, limit), body, done_bb)
        b.position_at_end(body)
        # the block's trips: a loop (unrolled, the loads of all eight trips were issued
        # first and spilled)
        block_end = b.add(j, ir.Constant(I64, span))
        trip_bb = fn.append_basic_block("jb.trip")
        b.branch(trip_bb)
        b.position_at_end(trip_bb)
        t = b.phi(I64, "jt")
        t.add_incoming(j, body)
        m = b.phi(vw_t)
        m.add_incoming(ir.Constant(vw_t, [self._worst()] * wide), body)
        if in_dt.kind == "f":
            reg = max(1, min(wide, 64 // in_dt.itemsize))
            mask_t = ir.VectorType(ir.IntType(1), reg)
            nan = b.phi(mask_t)
            nan.add_incoming(ir.Constant(mask_t, [0] * reg), body)
        x = b.load(b.gep(base, [t], source_etype=in_t), typ=vw_t, align=in_dt.itemsize)
        m_next = b.select(self._better(b, x, m), x, m)
        m.add_incoming(m_next, trip_bb)
        if in_dt.kind == "f":
            nan_next = b.or_(nan, self._nan_mask(b, x, wide))
            nan.add_incoming(nan_next, trip_bb)
        t_next = b.add(t, ir.Constant(I64, wide))
        t.add_incoming(t_next, trip_bb)
        trips_done = fn.append_basic_block("jb.trips")
        b.cbranch(b.icmp_signed("<", t_next, block_end), trip_bb, trips_done)
        b.position_at_end(trips_done)
        m = m_next
        if in_dt.kind == "f":
            b.cbranch(self._any(b, nan_next), nan_bb, keep_bb)
        else:
            b.branch(keep_bb)
        b.position_at_end(keep_bb)
        width = wide
        while width > 1:
            m = self._halve(b, m, width)
            width //= 2
        s = b.extract_element(m, ir.Constant(I32, 0))
        take = b.or_(b.icmp_signed("<", at, ir.Constant(I64, 0)), self._better(b, s, best))
        best.add_incoming(b.select(take, s, best), keep_bb)
        at.add_incoming(b.select(take, j, at), keep_bb)
        j.add_incoming(b.add(j, ir.Constant(I64, span)), keep_bb)
        b.branch(head)

        exits = []
        if in_dt.kind == "f":
            b.position_at_end(nan_bb)
            exits.append((j_end, self.find_first(b, base, j, trips, wide, None), b.block))
            b.branch(out_bb)

        b.position_at_end(done_bb)
        b.cbranch(b.icmp_signed(">=", at, ir.Constant(I64, 0)), search_bb, out_bb)
        exits.append((j, minus_one, done_bb))
        b.position_at_end(search_bb)
        exits.append((j, self.find_first(b, base, at, trips, wide, best), b.block))
        b.branch(out_bb)

        b.position_at_end(out_bb)
        j_next = b.phi(I64)
        found = b.phi(I64)
        for jv, fv, bb in exits:
            j_next.add_incoming(jv, bb)
            found.add_incoming(fv, bb)
        return j_next, found

    def find_first(self, b, base, start, trips: int, wide: int, value):
        """The index of the first element from ``start`` equal to ``value`` (None: the first
        NaN), one is known to be among the next ``trips`` trips of ``wide`` lanes."""
        fn = self.fn
        in_t = self.in_types[0]
        in_dt = self.in_dtypes[0]
        vw_t = ir.VectorType(in_t, wide)
        mask_t = ir.IntType(wide)
        pre = b.block
        head = fn.append_basic_block("jf.head")
        hit = fn.append_basic_block("jf.hit")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64, "jf")
        j.add_incoming(start, pre)
        x = b.load(b.gep(base, [j], source_etype=in_t), typ=vw_t, align=in_dt.itemsize)
        if value is None:
            eq = b.fcmp_unordered("uno", x, x)
        else:
            v = splat(b, value, wide)
            eq = b.fcmp_ordered("==", x, v) if in_dt.kind == "f" else b.icmp_unsigned("==", x, v)
        mask = b.bitcast(eq, mask_t)
        last = b.add(start, ir.Constant(I64, (trips - 1) * wide))
        # (the last trip counts as a hit whatever its mask says: the loop cannot run off)
        stop = b.or_(b.icmp_unsigned("!=", mask, ir.Constant(mask_t, 0)), b.icmp_signed(">=", j, last))
        j.add_incoming(b.add(j, ir.Constant(I64, wide)), head)
        b.cbranch(stop, hit, head)
        b.position_at_end(hit)
        name = f"llvm.cttz.i{wide}"
        cttz = self.module.globals.get(name) or ir.Function(
            self.module, ir.FunctionType(mask_t, [mask_t, ir.IntType(1)]), name)
        tz = b.call(cttz, [mask, ir.Constant(ir.IntType(1), 0)])
        return b.add(j, b.trunc(tz, I64) if wide > 64 else b.zext(tz, I64) if wide < 64 else tz)

    def tiles(self, b, start, stop) -> None:
        """Items are (chunk, tile of TILE adjacent outputs); needs one kept and one reduced
        dimension (the caller ensures it)."""
        fn = self.fn
        zero = ir.Constant(I64, 0)
        tile_c = ir.Constant(I64, TILE)
        n_tiles = b.udiv(b.add(self.n_out, ir.Constant(I64, TILE - 1)), tile_c)
        accs = RecordArray(b, self.rec_type, TILE)
        sk = [dim_at(b, s, zero) for _, s, _ in self.inputs]
        sr = [dim_at(b, s, zero) for _, _, s in self.inputs]
        out_sk = [dim_at(b, s, zero) for _, s in self.outputs]

        def acc_fields(t):
            return accs.fields(b, t)

        items = CountedLoop(b, start, stop, "tile")
        c, o0, count, j_begin, j_end = self.tile_of(b, items.i, n_tiles, tile_c)
        init = CountedLoop(b, zero, tile_c, "ti")
        b.call(self.identity_fn, acc_fields(init.i) + [zero, zero])
        init.close(b, b.add(init.i, ir.Constant(I64, 1)))

        full = b.icmp_signed("==", count, tile_c)
        for s, size in zip(sk, self.in_sizes):
            full = b.and_(full, b.icmp_signed("==", s, ir.Constant(I64, size)))
        rows = CountedLoop(b, j_begin, j_end, "trow")
        j = rows.i
        row_bases = [b.gep(p, [b.add(b.mul(j, r), b.mul(o0, s))], source_etype=I8)
                     for (p, _, _), r, s in zip(self.inputs, sr, sk)]
        full_bb = fn.append_basic_block("trow.full")
        part_bb = fn.append_basic_block("trow.part")
        next_bb = fn.append_basic_block("trow.next")
        b.cbranch(full, full_bb, part_bb)
        for bb, limit, indexed in ((full_bb, tile_c, True), (part_bb, count, False)):
            b.position_at_end(bb)
            inner = CountedLoop(b, zero, limit, "tcol")
            t = inner.i
            if indexed:
                addrs = [b.gep(base, [t], source_etype=ty) for base, ty in zip(row_bases, self.in_types)]
            else:
                addrs = [b.gep(base, [b.mul(t, s)], source_etype=I8) for base, s in zip(row_bases, sk)]
            b.call(self.map_fn, addrs + self.tmp.fields(b) + [j, self.n_r])
            b.call(self.reduce_fn, acc_fields(t) + self.tmp.fields(b) + [zero, zero])
            inner.close(b, b.add(t, ir.Constant(I64, 1)))
            b.branch(next_bb)
        b.position_at_end(next_bb)
        rows.close(b, b.add(j, ir.Constant(I64, 1)))

        wants_records = b.icmp_unsigned("!=", b.and_(self.mode, ir.Constant(I64, MODE_RECORDS)), zero)
        outs = CountedLoop(b, zero, count, "tout")
        t = outs.i
        o = b.add(o0, t)
        rec_bb = fn.append_basic_block("tout.record")
        post_bb = fn.append_basic_block("tout.post")
        end_bb = fn.append_basic_block("tout.end")
        b.cbranch(wants_records, rec_bb, post_bb)
        b.position_at_end(rec_bb)
        slot = b.add(b.mul(c, self.n_out), o)
        dst = b.gep(self.records, [slot], source_etype=self.rec_type)
        accs.copy_to(b, t, [b.gep(dst, [ir.Constant(I32, 0), ir.Constant(I32, f)], source_etype=self.rec_type)
                            for f in range(len(self.rec_type.elements))])
        b.branch(end_bb)
        b.position_at_end(post_bb)
        out_addrs = [b.gep(p, [b.mul(o, s)], source_etype=I8) for (p, _), s in zip(self.outputs, out_sk)]
        b.call(self.post_fn, acc_fields(t) + out_addrs + [o, self.n_out])
        b.branch(end_bb)
        b.position_at_end(end_bb)
        outs.close(b, b.add(t, ir.Constant(I64, 1)))
        items.close(b, b.add(items.i, ir.Constant(I64, 1)))
