"""The GPU compaction kernels (``x[mask]``, ``x[mask] = v``, ``nonzero``): per-tile counts
of a mask's true elements, then each tile's true elements written in order at the tile's
offset (or given the values from there), built as LLVM IR.

One module per value size holds three entries (``entries``; the flat indices', size 0,
two: no place); sizes are run-time parameters (each one 64-bit word, ``PARAMS``).  A
tile is ``TILE`` mask bytes, block ``b`` works tile ``b``;
a thread reads ``ITEMS`` 4-byte words of the mask (a wave's words adjacent each step),
four mask elements a word, element ``4 * word + byte`` (C order).

* ``entry`` (*count*, then *scan*): the number of true elements of each tile, summed by
  wave shuffles and across the waves in shared memory (a whole tile of a mask aligned to
  16 bytes is read as one 16-byte vector a thread, its nonzero bytes counted by bit
  arithmetic; other tiles by a ballot per element, as the other entries), published in
  the tile's 64-bit ``status`` word with the call's ``tag`` (``_chain_status``: the
  stream's words, kept from call to call, so nothing is zeroed first); then the last
  tile's block turns the counts into their inclusive scan ``incl[tile]`` (int64): one
  launch where a scan entry of its own cost a launch and its gap.  It reads ``SCAN_ITEMS``
  adjacent counts a thread per round (read and written through the stage in shared
  memory, so its loads and stores are of adjacent words; a word not yet carrying the tag
  is read again), keeps a running carry between rounds, and writes the sum of them all,
  the result's size, at ``total`` (a word of host memory mapped into the device, read by
  the host as soon as it lands: no copy back; not written where ``total`` is 0);
* ``entry_w`` (*write*): the tile's true elements, ranked in C order -- within a wave
  step by four ballots (one per byte of the word: lane ``l``'s byte ``b`` follows every
  true byte of the lanes below it and its own bytes below ``b``), steps by a running
  count, waves by a scan of their totals in shared memory -- each written at the tile's
  offset (``incl[tile - 1]``, the inclusive scan of the counts) plus its rank: the value
  of ``x`` (``size`` bytes, the entry's value size) or, for size 0, its flat index (that
  entry reads its tile's offset first, beside the mask; the others after the ranks).
  Values of up to 8 bytes go through shared memory at their ranks first, and the block
  writes the tile's run from there with adjacent lanes at adjacent places (a lane's four
  elements are adjacent in the mask, so written straight their places are four apart and
  every store instruction touches four times the sectors).  Where ``x`` is aligned to a
  lane's four elements and all of the lane's steps lie in range, the lane reads its four
  values as one vector as soon as the mask is (where any is true), so the reads are in
  flight while the ranks are summed; elsewhere each true value is read after its rank.
* ``entry_p`` (*place*, values of 1 to 16 bytes): ``x[mask] = vals``, where the mask's
  count is ``nvals`` (else nothing is written: the entry is queued before the host has
  read the count back) -- values of up to
  8 bytes: the tile's run of ``vals`` (from the tile's offset, its length the scan's) read
  first, in flight beside the mask's words, and put in shared memory with adjacent lanes
  at adjacent places; the same ranks, and each true element of the tile set to the value
  at its rank (16-byte values read straight from ``vals``).  A lane's four elements are
  written together where any is true and ``x`` is aligned to them (the false ones' old
  values read and written back): the wave's stores then fill whole sectors.

A mask element is true when its byte is not zero.  The mask's base must be 4-byte
aligned; the last tile's words past the end read bytes one at a time.

The *runs* module (``build_runs_module``: ``unique_values`` and ``unique_counts`` of a
sorted array) takes the same steps over the runs of equal neighbours of ``x``, with
no mask: an element starts a run where it differs from the one before it (``!=``: every
NaN is a run of its own) and ends one where it differs from the one after.  A lane reads
its four elements and their two neighbours; the count entry also writes the tile offset of
the tile's last start (``offs``, -1 for none), and its scan, beside the counts'
scan, the last tile up to each one that holds a start (``ltile``, a max-scan).  The write
entry writes each run's first value at the run's rank (staged as above) and, where
``lengths`` is not 0, each run's length from its last element: the place after it less the
run's start -- the last start before the element in the tile (a max-scan over lanes, steps
and waves), or for a run begun in an earlier tile, that tile's last start (staged too,
after the values; a run begun in an earlier tile has its length written straight).
"""

from __future__ import annotations

import struct

from llvmlite import ir

from .abi import I64
from .gpu_ir import KernelIR, entry_slot, load_relaxed, shared_array, store_relaxed, word_packer
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
PARAMS = {"": ("m", "n", "status", "tag", "incl", "total"), "_w": ("m", "n", "x", "incl", "out"),
          "_p": ("m", "n", "vals", "incl", "x", "nvals")}
ENTRIES = ("", "_w", "_p")
#: The entries of the runs module and of the flat indices' (size 0): no place.
RUN_ENTRIES = ("", "_w")
#: Counts a thread of the count entry's scanning block adds up per round.
SCAN_ITEMS = 16
#: Status words a thread of the scanning block has in flight at once (its registers are the
#: count's).
SCAN_LOADS = 4
#: Value sizes the write entry moves (0: flat indices, int64).
SIZES = (0, 1, 2, 4, 8, 16)
#: The largest value the write entry stages through shared memory (a tile of 16-byte
#: values would not fit in a block's static shared memory).
STAGED_MAX = 8
#: The runs module's parameters, as ``PARAMS``.
RUN_PARAMS = {"": ("x", "n", "status", "offs", "tag", "incl", "ltile", "total"),
              "_w": ("x", "n", "incl", "offs", "ltile", "values", "lengths")}
#: The elements the runs module compares: a letter (``i`` bit for bit, ``f`` float,
#: ``c`` complex: either part) and the element's size in bytes.
RUN_KINDS = ("i1", "i2", "i4", "i8", "f2", "f4", "f8", "c8", "c16")
#: Blocks of the runs' write entry a GPU unit holds at once: its registers are capped to
#: fit them (more blocks than they would otherwise allow: reads in flight).
RUNS_WRITE_BLOCKS = 3
#: Blocks of the place entry (values of up to 8 bytes) a GPU unit holds at once: its
#: registers, which hold the old values read early, are capped to fit them.
PLACE_BLOCKS = 3
#: Blocks of the write entry (values of 1 to 8 bytes) a GPU unit holds at once: its
#: registers, which hold the values read early, are capped to fit them.
WRITE_BLOCKS = 4
#: Blocks of the flat indices' write entry (``nonzero``) a GPU unit holds at once: its
#: registers are capped to fit them (as many as its stage of int64 indices leaves room
#: for on an NVIDIA multiprocessor).
INDEX_WRITE_BLOCKS = 6
#: Blocks of the count entry a GPU unit holds at once (as many as its threads allow on an
#: NVIDIA multiprocessor), and of the runs module's (its count alone took 48 registers,
#: five blocks): the registers are capped to fit them, the scan of the last block held to
#: the count's.
COUNT_BLOCKS = 8
RUNS_COUNT_BLOCKS = 4
#: Changes with the code these kernels are built from (part of their cache key).
VERSION = 11


def status_words(tiles: int) -> int:
    """The status words the count entry of ``tiles`` tiles reads: whole rounds of its scan."""
    span = BLOCK * SCAN_ITEMS
    return -(-tiles // span) * span


def entries(size: int, runs: bool = False) -> tuple:
    """The entry suffixes of the module for values of ``size`` bytes (or of runs)."""
    return RUN_ENTRIES if runs or size == 0 else ENTRIES


def packer(suffix: str, runs: bool = False) -> struct.Struct:
    return word_packer(len((RUN_PARAMS if runs else PARAMS)[suffix]))


def build_compact_module(module: ir.Module, target, entry: str, size: int) -> None:
    """Add the entries ``entry + s`` for ``s`` in ``entries(size)`` to ``module`` for values
    of ``size`` bytes (``SIZES``) on the GPU ``target``."""
    facts = target.facts
    if not facts.emits_grid or facts.wave_size < 2 or BLOCK % facts.wave_size:
        raise ValueError(f"GPU compaction needs a GPU target with waves; {target.name} has none")
    if size not in SIZES:
        raise ValueError(f"GPU compaction moves values of {SIZES} bytes, not {size}")
    _build_entries(module, target, entry, size, None)


def build_runs_module(module: ir.Module, target, entry: str, kind: str) -> None:
    """Add the runs module's entries ``entry + s`` for ``s`` in ``RUN_ENTRIES`` to ``module``
    for elements of ``kind`` (``RUN_KINDS``) on the GPU ``target``."""
    facts = target.facts
    if not facts.emits_grid or facts.wave_size < 2 or BLOCK % facts.wave_size:
        raise ValueError(f"GPU runs need a GPU target with waves; {target.name} has none")
    if kind not in RUN_KINDS:
        raise ValueError(f"GPU runs compare elements of the kinds {RUN_KINDS}, not {kind!r}")
    _build_entries(module, target, entry, int(kind[1:]), kind)


def _build_entries(module, target, entry: str, size: int, runs) -> None:
    waves = BLOCK // target.facts.wave_size
    shared = shared_array(module, target, f"{entry}_waves", I32, waves, 8)
    # (the runs' maxima have slots of their own, a block's sums and maxima being read in
    # turn, and one more: whether a tile's last element ends a run)
    maxima = shared_array(module, target, f"{entry}_maxima", I32, waves + 1, 8) if runs else None
    # one stage in shared memory for every entry (a driver's linker may give each entry of
    # a module all of its shared arrays): the write and place entries' values (the runs'
    # values, then their int64 lengths), the scan's counts
    value_bytes = 8 if runs or size == 0 else size  # (the runs stage int64 lengths; size 0 int64 indices)
    stage_bytes = TILE * value_bytes if runs or size <= STAGED_MAX else 0
    span = BLOCK * SCAN_ITEMS
    stage = shared_array(module, target, f"{entry}_stage", I8, max(stage_bytes, 4 * (span + span // 32)), 16)
    for suffix in entries(size, runs is not None):
        _Kernel(module, target, entry + suffix, suffix, size, shared, stage, runs, maxima).build()


def _value_type(size: int) -> ir.Type:
    """The type the write entry moves values of ``size`` bytes as (0: the int64 index)."""
    if size == 0:
        return I64
    if size == 16:
        return ir.VectorType(I64, 2)
    return ir.IntType(8 * size)


_FLOATS = {2: ir.HalfType(), 4: ir.FloatType(), 8: ir.DoubleType()}


class _Kernel(KernelIR):
    def __init__(self, module, target, name, suffix, size, shared, stage, runs=None, maxima=None):
        self.module, self.target, self.name, self.suffix, self.size = module, target, name, suffix, size
        self.shared, self.stage, self.runs, self.maxima = shared, stage, runs, maxima
        self.out = "values" if runs else "out"
        self.W = target.facts.wave_size
        self.NW = BLOCK // self.W
        self.M = ir.IntType(self.W)
        self.gspace = ir.PointerType(addrspace=target.facts.global_address_space)
        self.sspace = target.facts.shared_address_space

    def wave_slot(self, b, w, array=None):
        array = self.shared if array is None else array
        p = b.gep(array, [self.c64(0), w], source_etype=array.value_type)
        p.type = ir.PointerType(addrspace=self.sspace)
        return p

    def build(self) -> None:
        target = self.target
        names = ("tiles",) + (RUN_PARAMS if self.runs else PARAMS)[self.suffix]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), self.name)
        target.mark_kernel(fn)
        if self.suffix == "_p" and self.size <= STAGED_MAX:
            target.limit_registers(fn, PLACE_BLOCKS)
        if self.suffix == "_w" and self.runs:
            target.limit_registers(fn, RUNS_WRITE_BLOCKS)
        elif self.suffix == "_w" and 0 < self.size <= STAGED_MAX:
            target.limit_registers(fn, WRITE_BLOCKS)
        elif self.suffix == "_w" and self.size == 0:
            target.limit_registers(fn, INDEX_WRITE_BLOCKS)
        elif self.suffix == "":
            target.limit_registers(fn, RUNS_COUNT_BLOCKS if self.runs else COUNT_BLOCKS)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        self.p = {name: params.value(b, k) for k, name in enumerate(names)}
        tid = target.emit_thread_in_block(b)
        self.lane = b.urem(tid, self.c64(self.W))
        self.wave = b.udiv(tid, self.c64(self.W))
        self.tid = tid
        self.tile = target.emit_block_id(b)
        {"": self.build_count, "_w": self.build_write, "_p": self.build_place}[self.suffix](b)
        b.ret_void()

    def load_runs(self, b):
        """As ``load_words``, the starts of runs for the runs module; also keeps whether
        each step's elements end a run (``ends``) and their offsets in the tile
        (``offsets``, i32)."""
        p = self.p
        n = p["n"]
        ty = _value_type(self.size)
        align = min(self.size, 8)
        last = b.sub(n, self.c64(1))
        zero = self.c64(0)
        tile_first = b.mul(self.tile, self.c64(TILE))
        wave_first = b.add(tile_first, b.mul(self.wave, self.c64(ITEMS * self.W * 4)))
        out, self.ends, self.offsets = [], [], []
        for u in range(ITEMS):
            e0 = b.add(wave_first, b.mul(b.add(self.c64(u * self.W), self.lane), self.c64(4)))
            near = []  # elements e0 - 1 .. e0 + 4, each read within [0, n)
            for k in range(-1, 5):
                e = b.add(e0, self.c64(k))
                at = b.select(b.icmp_signed("<", e, zero), zero, b.select(b.icmp_signed(">", e, last), last, e))
                v = b.load(self.gptr(b, p["x"], at, ty), typ=ty)
                v.align = align
                near.append(v)
            differ = [self.differ(b, near[k], near[k + 1]) for k in range(5)]  # (e0 + k - 1, e0 + k)
            starts, ends, offsets = [], [], []
            for k in range(4):
                e = b.add(e0, self.c64(k))
                inside = b.icmp_signed("<", e, n)
                starts.append(b.and_(inside, b.or_(b.icmp_signed("==", e, zero), differ[k])))
                ends.append(b.and_(inside, b.or_(b.icmp_signed("==", e, last), differ[k + 1])))
                offsets.append(b.trunc(b.sub(e, tile_first), I32))
            out.append((e0, starts))
            self.ends.append(ends)
            self.offsets.append(offsets)
        return out

    def differ(self, b, x, y):
        """Whether the elements ``x`` and ``y`` (as loaded) differ, as ``!=`` says (a NaN
        differs from everything)."""
        letter = self.runs[0]
        if letter == "i":
            return b.icmp_unsigned("!=", x, y)
        if letter == "f":
            ft = _FLOATS[self.size]
            return b.fcmp_unordered("!=", b.bitcast(x, ft), b.bitcast(y, ft))
        ft = _FLOATS[self.size // 2]
        vt = ir.VectorType(ft, 2)
        xv, yv = b.bitcast(x, vt), b.bitcast(y, vt)
        return b.or_(*[b.fcmp_unordered("!=", b.extract_element(xv, self.c32(k)), b.extract_element(yv, self.c32(k)))
                       for k in range(2)])

    def smax(self, b, x, y):
        return b.select(b.icmp_signed(">", x, y), x, y)

    def wave_max_scan(self, b, v):
        """(inclusive, exclusive) max-scans of the i32 ``v`` over the wave's lanes (the
        exclusive one -1 at lane 0)."""
        t = self.target
        lane = b.trunc(self.lane, I32)
        incl, d = v, 1
        while d < self.W:
            incl = b.select(b.icmp_unsigned(">=", lane, self.c32(d)), self.smax(b, incl, t.emit_shuffle_up(b, incl, d)),
                            incl)
            d *= 2
        excl = b.select(b.icmp_unsigned(">=", lane, self.c32(1)), t.emit_shuffle_up(b, incl, 1), self.c32(-1))
        return incl, excl

    def block_max(self, b, v):
        """(the greatest of the wave maxima ``v`` of the waves before this thread's, -1 for
        none; the greatest of all), as ``block_sum``."""
        self.if_then(b, b.icmp_unsigned("==", self.lane, self.c64(0)),
                     lambda: b.store(v, self.wave_slot(b, self.wave, self.maxima)))
        self.target.emit_barrier(b)
        before = total = self.c32(-1)
        for w in range(self.NW):
            x = b.load(self.wave_slot(b, self.c64(w), self.maxima), typ=I32)
            before = b.select(b.icmp_unsigned("<", self.c64(w), self.wave), self.smax(b, before, x), before)
            total = self.smax(b, total, x)
        return before, total

    def run_starts(self, b):
        """Per step and element, the tile offset of the last start at or before it in its
        wave (-1 for none), and the wave's last start."""
        carry = self.c32(-1)
        out = []
        for (_, starts), offsets in zip(self.flags, self.offsets):
            own = [b.select(s, o, self.c32(-1)) for s, o in zip(starts, offsets)]
            lane_last = own[0]
            for o in own[1:]:
                lane_last = self.smax(b, lane_last, o)
            incl, excl = self.wave_max_scan(b, lane_last)
            running = self.smax(b, carry, excl)
            step = []
            for o in own:
                running = self.smax(b, running, o)
                step.append(running)
            out.append(step)
            carry = self.smax(b, carry, self.target.emit_shuffle_index(b, incl, self.W - 1))
        return out, carry

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
        """The tile's true elements, published (``count_landed``; for runs, its last start
        into ``offs[tile]`` first).  A whole tile of a mask aligned to 16 bytes is read a
        vector a thread and its nonzero bytes counted by bit arithmetic (where a ballot a
        byte would be 16 instructions a thread); other tiles take the words as the other
        entries do."""
        if self.runs:
            self.flags = self.load_runs(b)
            count = self.ballot_count(b)
        else:
            p = self.p
            vec = ir.VectorType(I32, 4)
            fast = b.and_(b.icmp_unsigned("==", b.urem(p["m"], self.c64(16)), self.c64(0)),
                          b.icmp_signed("<=", b.mul(b.add(self.tile, self.c64(1)), self.c64(TILE)), p["n"]))
            with b.if_else(fast) as (then, otherwise):
                with then:
                    words = b.load(self.gptr(b, p["m"], b.add(b.mul(self.tile, self.c64(BLOCK)), self.tid), vec),
                                   typ=vec)
                    words.align = 16
                    mine = self.c32(0)
                    low7 = self.c32(0x7F7F7F7F)
                    for k in range(4):  # (a byte's top bit set where the byte is not zero)
                        w = b.extract_element(words, self.c32(k))
                        tops = b.and_(b.or_(b.add(b.and_(w, low7), low7), w), self.c32(-0x7F7F7F80))
                        mine = b.add(mine, self.popc(b, tops))
                    d = self.W // 2
                    while d:  # (the wave's sum in lane 0)
                        mine = b.add(mine, self.target.emit_shuffle_down(b, mine, d))
                        d //= 2
                    vec_bb = b.block
                with otherwise:
                    self.flags = self.load_words(b)
                    words_count = self.ballot_count(b)
                    words_bb = b.block
            count = b.phi(I32)
            count.add_incoming(mine, vec_bb)
            count.add_incoming(words_count, words_bb)
        _, total = self.block_sum(b, count)
        if self.runs:
            _, wave_last = self.run_starts(b)
            _, last = self.block_max(b, wave_last)
            self.if_then(b, b.icmp_unsigned("==", self.tid, self.c64(0)),
                         lambda: b.store(last, self.gptr(b, self.p["offs"], self.tile, I32)))
        self.count_landed(b, total)

    def count_landed(self, b, total) -> None:
        """Publish the tile's count (``total``) in its status word: one relaxed atomic write
        with the call's tag, no fence and no wait.  The last tile's block then scans every
        tile's count (``build_scan``), reading each word again until it carries the tag:
        every other block only writes, and the one that waits holds one block's place."""
        p = self.p
        self.tag_hi = b.shl(b.or_(p["tag"], self.c64(1)), self.c64(32))
        self.if_then(b, b.icmp_unsigned("==", self.tid, self.c64(0)),
                     lambda: store_relaxed(b, b.or_(b.zext(total, I64), self.tag_hi),
                                           self.gptr(b, p["status"], self.tile, I64)), "publish")
        self.if_then(b, b.icmp_unsigned("==", self.tile, b.sub(p["tiles"], self.c64(1))), lambda: self.build_scan(b),
                     "last")

    def landed_count(self, b, k, inside, word):
        """Tile ``k``'s count from its status ``word`` (read as a relaxed atomic), read again
        until it carries the call's tag (0 where ``inside`` is false)."""
        fn = b.function
        here = b.block
        wait_bb = fn.append_basic_block("count.wait")
        done_bb = fn.append_basic_block("count.done")
        high = self.c64(-(1 << 32))
        b.cbranch(b.and_(inside, b.icmp_unsigned("!=", b.and_(word, high), self.tag_hi)), wait_bb, done_bb)
        b.position_at_end(wait_bb)
        again = load_relaxed(b, self.gptr(b, self.p["status"], k, I64), I64)
        b.cbranch(b.icmp_unsigned("!=", b.and_(again, high), self.tag_hi), wait_bb, done_bb)
        b.position_at_end(done_bb)
        found = b.phi(I64)
        found.add_incoming(word, here)
        found.add_incoming(again, wait_bb)
        return b.select(inside, b.trunc(found, I32), self.c32(0))

    def ballot_count(self, b):
        """The wave's true elements (``flags``), the same in every lane."""
        count = self.c32(0)
        for _, bits in self.flags:
            for bit in bits:
                count = b.add(count, self.popc(b, self._ballot(b, bit)))
        return count

    def build_scan(self, b) -> None:
        """The count entry's last block: ``incl[t]`` = the sum of the counts of tiles
        ``0..t``, for every tile ``t``; the sum of all at ``total`` (unless 0).  A round's
        counts go through shared memory (the stage) both ways: the block reads and writes
        them with adjacent lanes at adjacent places, and each thread sums its own adjacent
        ones there, then writes their running sums over them -- few registers, as the count
        entry they share is held to its count's (``COUNT_BLOCKS``).  For runs also
        ``ltile``.  The status words run to a whole round past the last tile (the host
        sizes them so), so every load is in range."""
        p = self.p
        t = self.target
        tiles = p["tiles"]
        carry_slot = entry_slot(b, I64)
        b.store(self.c64(0), carry_slot)
        if self.runs:
            self.held_slot = entry_slot(b, I32)
            b.store(self.c32(-1), self.held_slot)
        rounds = CountedLoop(b, self.c64(0), tiles, "scan")
        base = rounds.i
        mine = b.add(base, self.tid)  # (the round's tile of the thread's first lane slot)
        for group in range(0, SCAN_ITEMS, SCAN_LOADS):  # (a group's words in flight at once)
            words = [load_relaxed(b, self.gptr(b, p["status"], b.add(mine, self.c64(j * BLOCK)), I64), I64)
                     for j in range(group, group + SCAN_LOADS)]
            for j, word in zip(range(group, group + SCAN_LOADS), words):  # (past the end: 0)
                k = b.add(mine, self.c64(j * BLOCK))
                b.store(self.landed_count(b, k, b.icmp_signed("<", k, tiles), word), self.lane_slot(b, j))
        t.emit_barrier(b)
        total = self.c32(0)
        for j in range(SCAN_ITEMS):  # the thread's adjacent counts
            total = b.add(total, b.load(self.own_slot(b, j), typ=I32))
        incl = total  # the wave's inclusive scan of the threads' sums (shuffles)
        d = 1
        lane = b.trunc(self.lane, I32)
        while d < self.W:
            up = t.emit_shuffle_up(b, incl, d)
            incl = b.add(incl, b.select(b.icmp_unsigned(">=", lane, self.c32(d)), up, self.c32(0)))
            d *= 2
        wave_prefix, block_total = self.block_sum(b, t.emit_shuffle_index(b, incl, self.W - 1))
        before = b.add(wave_prefix, b.sub(incl, total))  # (within the round: < 2^31)
        running = before
        for j in range(SCAN_ITEMS):  # (the thread's own slots: no other thread reads them yet)
            slot = self.own_slot(b, j)
            running = b.add(running, b.load(slot, typ=I32))
            b.store(running, slot)
        carry = b.load(carry_slot, typ=I64)
        self.write_round(b, base, lambda k, v: b.store(b.add(carry, b.zext(v, I64)), self.gptr(b, p["incl"], k, I64)))
        b.store(b.add(carry, b.zext(block_total, I64)), carry_slot)
        if self.runs:
            self.scan_held(b, base, before)
        t.emit_barrier(b)  # (the next round's counts and wave totals go where this round's were read)
        rounds.close(b, b.add(rounds.i, self.c64(BLOCK * SCAN_ITEMS)))
        write = b.and_(b.icmp_unsigned("==", self.tid, self.c64(0)), b.icmp_unsigned("!=", p["total"], self.c64(0)))
        self.if_then(b, write, lambda: b.store(b.load(carry_slot, typ=I64), self.gptr(b, p["total"], self.c64(0), I64)),
                     "total")

    # A round's count ``at`` (0 to ``BLOCK * SCAN_ITEMS``) has the stage's word ``at + at //
    # 32`` (one word skipped every 32: a thread's 16 adjacent counts, read by the lanes of a
    # wave at once, fall in distinct banks).  A thread's slots are one base and constant
    # steps, so its addresses cost no registers: ``own_slot`` (its ``SCAN_ITEMS`` adjacent
    # counts from ``SCAN_ITEMS * tid``) and ``lane_slot`` (count ``tid + j * BLOCK``).
    def own_slot(self, b, j: int):
        return self.stage_ptr(b, b.add(b.add(b.mul(self.tid, self.c64(SCAN_ITEMS)), b.lshr(self.tid, self.c64(1))),
                                       self.c64(j)), I32)

    def lane_slot(self, b, j: int):
        lane = b.add(self.tid, b.lshr(self.tid, self.c64(5)))
        return self.stage_ptr(b, b.add(lane, self.c64(j * (BLOCK + BLOCK // 32))), I32)

    def write_round(self, b, base, store) -> None:
        """After a barrier, ``store(tile, value)`` for each of the round's tiles and its i32
        value in the stage, the block's lanes at adjacent tiles."""
        self.target.emit_barrier(b)
        for j in range(SCAN_ITEMS):
            k = b.add(b.add(base, self.tid), self.c64(j * BLOCK))
            self.if_then(b, b.icmp_signed("<", k, self.p["tiles"]),
                         lambda k=k, j=j: store(k, b.load(self.lane_slot(b, j), typ=I32)), "out")

    def scan_held(self, b, base, before) -> None:
        """The runs' ``ltile[k]``: the last tile up to ``k`` that holds a start, a max-scan
        over the thread's own tiles, the lanes and waves before it and the rounds before.
        The stage holds the round's running sums of the counts (the thread's own, its sum
        before them ``before``): a tile holds a start where its sum passes the one before
        it.  Each thread writes its tiles' values over its sums."""
        t = self.target
        t.emit_barrier(b)  # (every thread has read the sums out)

        def held_in(prior, write):
            """The last of the thread's tiles that holds a start, ``prior`` if none; with
            ``write``, each tile's such value over its sum."""
            prev, held = before, prior
            tile = b.trunc(b.add(base, b.mul(self.tid, self.c64(SCAN_ITEMS))), I32)
            for j in range(SCAN_ITEMS):
                slot = self.own_slot(b, j)
                sum_ = b.load(slot, typ=I32)
                held = b.select(b.icmp_signed(">", sum_, prev), b.add(tile, self.c32(j)), held)
                prev = sum_
                if write:
                    b.store(held, slot)
            return held

        incl, excl = self.wave_max_scan(b, held_in(self.c32(-1), False))
        before_waves, block_last = self.block_max(b, t.emit_shuffle_index(b, incl, self.W - 1))
        carried = b.load(self.held_slot, typ=I32)
        held_in(self.smax(b, carried, self.smax(b, before_waves, excl)), True)
        self.write_round(b, base, lambda k, v: b.store(v, self.gptr(b, self.p["ltile"], k, I32)))
        b.store(self.smax(b, carried, block_last), self.held_slot)

    def _ballot(self, b, bit):
        mask = self.target.emit_ballot(b, bit)
        if mask.type.width != self.W:
            mask = b.trunc(mask, self.M) if mask.type.width > self.W else b.zext(mask, self.M)
        return mask

    def ranks(self, b, block_start=None) -> tuple:
        """([each step's ranks of its four elements within the wave's true ones], the wave's
        prefix in the block, the block's total (i32), the tile's first slot (i64): read
        here, after the ranks' sums, unless the caller read it as ``block_start``)."""
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
        return ranks, wave_prefix, block_total, self.tile_start(b) if block_start is None else block_start

    def tile_start(self, b):
        """The tile's first slot: the scan's count of the true elements before it
        (``incl[tile - 1]``, 0 for tile 0)."""
        tile = self.tile
        first = b.icmp_unsigned("==", tile, self.c64(0))
        before = b.load(self.gptr(b, self.p["incl"], b.select(first, tile, b.sub(tile, self.c64(1))), I64), typ=I64)
        return b.select(first, self.c64(0), before)  # (tile 0 reads its own count, unused)

    def build_write(self, b) -> None:
        p = self.p
        # (flat indices: the tile's first slot read first, its latency beside the mask's;
        # the value writes, whose registers hold their values read early, were slower so:
        # docs/primitives.md, "Stop 70")
        early = self.tile_start(b) if self.size == 0 and not self.runs else None
        self.flags = self.load_runs(b) if self.runs else self.load_words(b)
        staged = self.size <= STAGED_MAX
        whole = news = None
        if staged and self.size and not self.runs:
            # (the values read as soon as the mask is, a lane's four at once where any is
            # true: the reads are in flight through the ranks' sums)
            chunk = min(16, 4 * self.size)
            whole = self.lane_whole(b, chunk)
            news = [self.read_whole(b, e0, bits, b.and_(whole, self.any_all(b, bits)[0]), chunk,
                                    _value_type(self.size)) for e0, bits in self.flags]
        ranks, wave_prefix, block_total, block_start = self.ranks(b, early)
        # where a value goes: its block rank in the stage, or its place in ``out``
        start = b.zext(wave_prefix, I64) if staged else b.add(block_start, b.zext(wave_prefix, I64))
        ty = _value_type(self.size)
        align = min(self.size, 8) if self.size else 8
        plan = self.lengths_plan(b) if self.runs else None

        def put(rank, value):
            at = b.add(start, b.zext(rank, I64))
            b.store(value, self.stage_ptr(b, at, ty) if staged else self.gptr(b, p[self.out], at, ty)).align = align

        def each_read():
            for (e0, bits), step_ranks in zip(self.flags, ranks):
                for k, (bit, rank) in enumerate(zip(bits, step_ranks)):
                    e = b.add(e0, self.c64(k))

                    def write(e=e, rank=rank):
                        if self.size == 0:
                            value = e
                        else:
                            value = b.load(self.gptr(b, p["x"], e, ty), typ=ty)
                            value.align = align
                        put(rank, value)

                    self.if_then(b, bit, write, "write")

        if whole is None:
            each_read()
        else:
            with b.if_else(whole) as (then, otherwise):
                with then:
                    for (e0, bits), step_ranks, (_, chunks) in zip(self.flags, ranks, news):
                        per = 4 // len(chunks)
                        for k, (bit, rank) in enumerate(zip(bits, step_ranks)):
                            self.if_then(b, bit, lambda k=k, rank=rank, chunks=chunks: put(
                                rank, b.extract_element(chunks[k // per], self.c32(k % per))), "write")
                with otherwise:
                    each_read()
        if staged:
            self.target.emit_barrier(b)
            self.move_stage(b, b.zext(block_total, I64), block_start, p[self.out], ty, align)
        if self.runs:
            self.if_then(b, b.icmp_unsigned("!=", p["lengths"], self.c64(0)),
                         lambda: self.write_lengths(b, plan, ranks, wave_prefix, block_start, block_total), "lengths")

    def build_place(self, b) -> None:
        """``x[mask] = vals``: the tile's run of values (from the tile's first slot, its
        length the scan's: read before the mask) put in the stage, adjacent threads at
        adjacent places, then each true element of the tile takes the value at its rank
        (16-byte values straight from ``vals``).  Values of up
        to 8 bytes where ``x`` is aligned to a lane's four elements: the lane writes the four
        whole where any is true, the false ones' old values read (as soon as the mask is:
        their reads are in flight through the ranks' sums and the stage's fill), so the
        wave's stores fill whole sectors (true ones alone leave holes in every sector, which
        the memory reads back to merge)."""
        p = self.p
        # (queued before the host has read the count: nothing is written unless it is the
        # values' length, which the host checks then)
        total = b.load(self.gptr(b, p["incl"], b.sub(p["tiles"], self.c64(1)), I64), typ=I64)
        with b.if_then(b.icmp_unsigned("!=", total, p["nvals"]), likely=False):
            b.ret_void()
        staged = self.size <= STAGED_MAX
        ty = _value_type(self.size)
        align = min(self.size, 8)
        whole = olds = None
        # (the tile's run of values read first: its place and length are the scan's, so
        # its reads are in flight beside the mask's)
        run = self.read_run(b, ty, align) if staged else None
        self.flags = self.load_words(b)
        if staged:
            self.stage_run(b, run, ty, align)
            chunk = min(16, 4 * self.size)
            whole = self.lane_whole(b, chunk)
            olds, anys = [], []
            for e0, bits in self.flags:
                any_true, all_true = self.any_all(b, bits)
                anys.append(any_true)
                olds.append(self.read_whole(b, e0, bits, b.and_(whole, b.and_(any_true, b.not_(all_true))), chunk, ty))
        # (the ranks' sums hold a barrier: the stage's run is written before it is read)
        ranks, wave_prefix, block_total, block_start = self.ranks(b)
        start = b.zext(wave_prefix, I64) if staged else b.add(block_start, b.zext(wave_prefix, I64))

        def value_at(rank):
            at = b.add(start, b.zext(rank, I64))
            value = b.load(self.stage_ptr(b, at, ty) if staged else self.gptr(b, p["vals"], at, ty), typ=ty)
            value.align = align
            return value

        def each_alone():
            for (e0, bits), step_ranks in zip(self.flags, ranks):
                for k, (bit, rank) in enumerate(zip(bits, step_ranks)):

                    def place(k=k, rank=rank):
                        b.store(value_at(rank), self.gptr(b, p["x"], b.add(e0, self.c64(k)), ty)).align = align

                    self.if_then(b, bit, place, "place")

        if whole is None:
            each_alone()
            return
        with b.if_else(whole) as (then, otherwise):
            with then:
                for (e0, bits), step_ranks, (ptrs, old), any_true in zip(self.flags, ranks, olds, anys):
                    self.if_then(b, any_true,
                                 lambda bits=bits, step_ranks=step_ranks, ptrs=ptrs, old=old: self.write_whole(
                                     b, bits, [value_at(b.select(bit, r, self.c32(0))) for bit, r in
                                               zip(bits, step_ranks)], ptrs, old, chunk), "whole")
            with otherwise:
                each_alone()

    def read_run(self, b, ty, align):
        """(the tile's count, [its values of ``vals``, from the tile's first slot, adjacent
        threads at adjacent places]): the places past the count read its last value again
        (nothing is read where the count is 0)."""
        p = self.p
        tile = self.tile
        first = b.icmp_unsigned("==", tile, self.c64(0))
        before = b.load(self.gptr(b, p["incl"], b.select(first, tile, b.sub(tile, self.c64(1))), I64), typ=I64)
        before = b.select(first, self.c64(0), before)
        count = b.sub(b.load(self.gptr(b, p["incl"], tile, I64), typ=I64), before)

        def reads():
            last = b.sub(count, self.c64(1))
            values = []
            for j in range(0, TILE, BLOCK):
                at = b.add(self.tid, self.c64(j))
                at = b.select(b.icmp_signed("<", at, last), at, last)
                value = b.load(self.gptr(b, p["vals"], b.add(before, at), ty), typ=ty)
                value.align = align
                values.append(value)
            return values

        return count, self.read_where(b, b.icmp_signed(">", count, self.c64(0)), reads)

    def read_where(self, b, when, reads) -> list:
        """The values ``reads()`` loads, where ``when`` holds; undefined elsewhere."""
        head = b.block
        with b.if_then(when):
            loaded = reads()
            got = b.block
        values = []
        for value in loaded:
            v = b.phi(value.type)
            v.add_incoming(value, got)
            v.add_incoming(ir.Constant(value.type, ir.Undefined), head)
            values.append(v)
        return values

    def stage_run(self, b, run, ty, align) -> None:
        """``read_run``'s values into the stage at their places in the run."""
        count, values = run
        for j, value in zip(range(0, TILE, BLOCK), values):
            at = b.add(self.tid, self.c64(j))

            def put(at=at, value=value):
                b.store(value, self.stage_ptr(b, at, ty)).align = align

            self.if_then(b, b.icmp_signed("<", at, count), put, "fetch")

    def any_all(self, b, bits):
        any_true, all_true = bits[0], bits[0]
        for bit in bits[1:]:
            any_true, all_true = b.or_(any_true, bit), b.and_(all_true, bit)
        return any_true, all_true

    def lane_whole(self, b, chunk):
        """Whether ``x`` is aligned to ``chunk`` bytes (a lane's four elements) and the
        lane's last step lies wholly before ``n`` (so every step of the lane does)."""
        return b.and_(b.icmp_unsigned("==", b.urem(self.p["x"], self.c64(chunk)), self.c64(0)),
                      b.icmp_signed("<=", b.add(self.flags[-1][0], self.c64(4)), self.p["n"]))

    def read_whole(self, b, e0, bits, when, chunk, ty):
        """(the chunk addresses of the four elements of ``x`` from ``e0``, the values read
        from them, vectors of ``chunk`` bytes) where ``when`` holds; else undefined."""
        per = chunk // self.size
        cty = ir.VectorType(ty, per)
        ptrs = [self.gptr(b, self.p["x"], b.add(b.udiv(e0, self.c64(per)), self.c64(c)), cty) for c in range(4 // per)]

        def reads():
            values = [b.load(ptr, typ=cty) for ptr in ptrs]
            for value in values:
                value.align = chunk
            return values

        return ptrs, self.read_where(b, when, reads)

    def write_whole(self, b, bits, news, ptrs, olds, chunk) -> None:
        """The four elements written whole: ``news`` where ``bits`` are true, ``olds`` (the
        chunks ``read_whole`` read) elsewhere."""
        per = len(bits) // len(ptrs)
        for c, (ptr, old) in enumerate(zip(ptrs, olds)):
            out = old
            for j in range(per):
                k = c * per + j
                out = b.insert_element(out, b.select(bits[k], news[k], b.extract_element(old, self.c32(j))),
                                       self.c32(j))
            b.store(out, ptr).align = chunk

    def move_stage(self, b, count, first, out, ty, align) -> None:
        """The stage's first ``count`` elements of ``ty`` to ``out[first:]``, adjacent
        threads at adjacent places."""
        for j in range(0, TILE, BLOCK):
            at = b.add(self.tid, self.c64(j))

            def move(at=at):
                value = b.load(self.stage_ptr(b, at, ty), typ=ty)
                b.store(value, self.gptr(b, out, b.add(first, at), ty)).align = align

            self.if_then(b, b.icmp_signed("<", at, count), move, "move")

    def lengths_plan(self, b):
        """What the runs' lengths take (every thread: it holds a barrier): per step and
        element the tile offset of the last start at or before it (-1 for none), the
        start of a run begun in an earlier tile, and whether the tile's last run ends in
        it."""
        p = self.p
        prev, wave_last = self.run_starts(b)
        # (the thread of the tile's last element says whether it ends a run)
        self.if_then(b, b.icmp_unsigned("==", self.tid, self.c64(BLOCK - 1)), lambda: b.store(
            b.zext(self.ends[-1][3], I32), self.wave_slot(b, self.c64(self.NW), self.maxima)))
        before, _ = self.block_max(b, wave_last)
        ends_last = b.icmp_unsigned("!=", b.load(self.wave_slot(b, self.c64(self.NW), self.maxima), typ=I32),
                                    self.c32(0))
        ends_last = b.or_(ends_last, b.icmp_unsigned("==", self.tile, b.sub(p["tiles"], self.c64(1))))
        # a run begun in an earlier tile starts at the last start of the last earlier tile
        # holding one (tile 0 has none: its first element starts a run)
        first = b.icmp_unsigned("==", self.tile, self.c64(0))
        held = b.sext(b.load(self.gptr(b, p["ltile"], b.select(first, self.tile, b.sub(self.tile, self.c64(1))), I32),
                             typ=I32), I64)
        held = b.select(first, self.c64(0), held)
        carried = b.add(b.mul(held, self.c64(TILE)), b.sext(b.load(self.gptr(b, p["offs"], held, I32), typ=I32), I64))
        return [self.smax(b, before, o) for step in prev for o in step], carried, ends_last

    def write_lengths(self, b, plan, ranks, wave_prefix, block_start, block_total) -> None:
        """The runs' lengths, from each run's last element: the place after it less the
        run's start, staged at the run's rank in the block (``ranks`` and ``wave_prefix``
        as ``build_write`` makes them) and written out together; the length of a run
        begun in an earlier tile goes straight to its place, before the block's."""
        p = self.p
        starts_at, carried, ends_last = plan
        tile_first = b.mul(self.tile, self.c64(TILE))
        self.target.emit_barrier(b)  # (the stage's values are read)
        at = 0
        for (e0, starts), ends, step_ranks in zip(self.flags, self.ends, ranks):
            for k in range(4):
                def one(k=k, off=starts_at[at]):
                    e = b.add(e0, self.c64(k))
                    start = b.select(b.icmp_signed(">=", off, self.c32(0)), b.add(tile_first, b.sext(off, I64)),
                                     carried)
                    length = b.sub(b.add(e, self.c64(1)), start)
                    # (the run's rank: the element's own if it starts the run, else one less)
                    run = b.sub(b.add(b.zext(wave_prefix, I64), b.zext(step_ranks[k], I64)),
                                b.select(starts[k], self.c64(0), self.c64(1)))
                    inside = b.icmp_signed(">=", run, self.c64(0))
                    self.if_then(b, inside, lambda: b.store(length, self.stage_ptr(b, run, I64)), "staged")
                    self.if_then(b, b.not_(inside), lambda: b.store(
                        length, self.gptr(b, p["lengths"], b.sub(block_start, self.c64(1)), I64)), "carried")

                self.if_then(b, ends[k], one, "end")
                at += 1
        self.target.emit_barrier(b)
        # (the block's last run, if it goes on past the tile, is a later tile's to write)
        count = b.sub(b.zext(block_total, I64), b.select(ends_last, self.c64(0), self.c64(1)))
        self.move_stage(b, count, block_start, p["lengths"], I64, 8)

    def stage_ptr(self, b, at, ty):
        ptr = b.gep(self.stage, [at], source_etype=ty)
        ptr.type = ir.PointerType(addrspace=self.sspace)
        return ptr
