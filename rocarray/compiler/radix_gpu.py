"""The GPU radix sort's kernels: block-cooperative passes over 8-bit digits of keys of 32
or 64 bits with an optional payload (32 or 64 bits), built as LLVM IR.

A key is an unsigned integer (``u32``, ``u64``: it orders as it is) or the bits of a
float (``f32``, ``f64``: every kernel orders it by its order-preserving key, computed
where a digit is needed -- ``-0.0`` as ``+0.0``, every NaN one largest key -- and moves
the float itself, so a float sort moves its values alone).  ``desc`` complements the keys.

One module per (key kind, payload bits, ``PARTS``) holds one entry: the histogram, the
onesweep pass or the block sort (a first call compiles what it runs: a short row's sort
does not wait for the passes' code, nor a long one's for the block sort's; and a long
one's two modules compile at once, their assemblers side by side); sizes, rows, digit positions and the
direction are run-time parameters (every parameter is one 64-bit word, ``PARAMS``):

* ``entry`` (*histogram*): block ``b`` counts, for every pass at once, the digits of its
  chunk of a row (``tpb`` tiles of ``D_TILE`` keys), in shared histograms (one shared atomic
  per key and pass; waves spread over ``copies`` histograms, so a bin's contention stays
  within a few waves), and adds them to the row's counts ``hist[(row * PASSES + pass) *
  256 + digit]`` (global atomics; ``hist`` starts zeroed);
* ``entry_d`` (*onesweep pass*, Adinets & Merrill's onesweep): each block (as many as the
  device holds at once) takes tile after tile of ``D_TILE`` keys from the pass's counter
  (so every tile before one has begun: a look-back waits on running blocks alone), ranks
  its keys stably by digit, publishing its count of each digit as soon as it is known
  (*aggregate*), stages the keys through shared memory in digit order and, per digit,
  looks back over the row's earlier tiles (decoupled look-back: aggregates are summed
  until a tile that has published its *inclusive* count, which stops the walk), publishes
  its own inclusive count and writes each run of one digit to its places (the row's digit
  start, from ``hist``, plus the keys of the digit in the row's earlier tiles): coalesced
  writes, stable order, no pass over the keys but this one.  A status word per (tile,
  digit) holds a flag and a count together (one 64-bit word: no ordering between two
  words to get wrong); the flags grow with the pass, so one zeroed array serves every
  pass;
* ``entry_b`` (*block sort*): one block sorts a whole row of at most ``TILE`` keys,
  every pass in shared memory, nothing through global memory between passes.

Payloads (onesweep pass and block sort): a null ``payload`` pointer makes each key's place in
its row its payload (``argsort``'s indices, made by the first pass instead of read), and
``wide`` writes 32-bit payloads out as int64 (its last pass writes the result).

Ranking (onesweep pass and block sort): each wave first counts its keys of each digit
(one shared atomic per key: the tile's counts are known early, and a onesweep pass
publishes them before it ranks); those counts, scanned per digit in wave order and across
the digits, say where each wave's run of each digit starts in the tile's stable digit
order.  Then a wave takes ``D_ITEMS`` (``ITEMS``) rounds of ``wave_size`` adjacent keys of
its part of the tile; the lanes holding the same digit (*peers*) are found by each lane
setting its bit in the wave's shared word of its digit (one atomic ``or``; with 64-bit keys
or payloads, where those words would not fit beside the stage, by eight ballots, one per
digit bit), and a key's place is its wave's running start of the digit (shared memory,
moved on by the peers together) plus the peers below it (a popcount of the lane mask).
"""

from __future__ import annotations

import struct

from llvmlite import ir

from .abi import I64
from .gpu_ir import KernelIR, entry_slot, load_relaxed, shared_array, store_relaxed, word_packer
from .index_ir import CountedLoop
from .reduction_abi import EntryParams

I1 = ir.IntType(1)
I32 = ir.IntType(32)

#: Threads of every block; keys per thread and tile (keys a block ranks at once) of the
#: block sort (``TILE``: its longest row) and of the downsweep (``D_TILE``).
BLOCK = 256
ITEMS = 8
TILE = BLOCK * ITEMS
D_ITEMS = 16
D_TILE = BLOCK * D_ITEMS
BINS = 256
#: The stage's slot for keys past the end of a tile (after the longest tile).
DUMP = max(TILE, D_TILE)
#: Blocks of the block sort and of the onesweep pass that one multiprocessor should hold
#: at once (their registers are capped to fit: one block alone leaves the tile's loads
#: unhidden); the pass's modules of 32-bit keys and no payload keep their keys and places
#: in fewer registers and fit three.
RANKING_BLOCKS = 3
D_RANKING_BLOCKS = 2
D_RANKING_BLOCKS_KEYS32 = 3
#: Loads in flight per thread in the histogram's loop (its blocks are few: one per chunk).
UPSWEEP_UNROLL = 16
#: Bytes of the histogram's shared counts (copies of one histogram per pass).
HIST_BYTES = 32768
#: The status array of the onesweep passes (``status``, 64-bit words, zeroed before the
#: first pass): ``COUNTERS`` words of per-pass tile counters (32-bit), then one word per
#: (tile, digit): its flag (``2 * pass + 1``: the tile's count of the digit; ``2 * pass +
#: 2``: its inclusive count over the row's tiles so far) above ``FLAG_SHIFT``, the count below.
COUNTERS = 8
FLAG_SHIFT = 56
#: Status words a look-back reads at once (more cost more than the walks they shorten:
#: most walks end at the tile before).
LOOK_BACK = 1

#: The parameters of each entry (after the leading item count ``n``), in order.
PARAMS = {
    "": ("keys", "hist", "L", "chunk", "bpr", "passes", "desc"),
    "_d": ("keys", "payload", "keys_out", "payload_out", "hist", "status", "L", "tiles", "shift", "desc",
           "wide"),
    "_b": ("keys", "payload", "keys_out", "payload_out", "L", "passes", "desc", "wide"),
}
ENTRIES = ("", "_d", "_b")
#: The modules the entries are built in, one each: the histogram and the passes of long
#: rows, the block sort of short ones.
PARTS = {"hist": ("",), "passes": ("_d",), "block": ("_b",)}
#: The key kinds and their bits.
KEY_KINDS = {"u32": 32, "u64": 64, "f32": 32, "f64": 64}
#: Changes with the code these kernels are built from (part of their cache key).
VERSION = 9


def packer(suffix: str) -> struct.Struct:
    """The packing of entry ``suffix``'s parameters: ``n`` then ``PARAMS[suffix]``."""
    return word_packer(len(PARAMS[suffix]))


def build_radix_module(module: ir.Module, target, entry: str, key_kind: str, payload_bits: int,
                       suffixes: tuple = ENTRIES) -> None:
    """Add the entries of ``suffixes`` (of ``ENTRIES``) to ``module``, for keys of
    ``key_kind`` (``KEY_KINDS``) and a payload of ``payload_bits`` (0: none) on the GPU
    ``target``: the first named ``entry``, each other ``entry + s``."""
    facts = target.facts
    if not facts.emits_grid or facts.wave_size < 2 or BLOCK % facts.wave_size:
        raise ValueError(f"the GPU radix sort needs a GPU target with waves; {target.name} has none")
    if key_kind not in KEY_KINDS or payload_bits not in (0, 32, 64):
        raise ValueError(f"radix sort keys of kind {', '.join(KEY_KINDS)} and payloads of 0, 32 or 64 bits, "
                         f"not {key_kind!r} and {payload_bits}")
    shared = _Shared(module, target, entry, max(KEY_KINDS[key_kind], payload_bits), KEY_KINDS[key_kind] // 8)
    for k, suffix in enumerate(suffixes):
        _Kernel(module, target, entry + suffix if k else entry, suffix, key_kind, payload_bits, shared).build()


class _Shared:
    """The shared-memory arrays the entries use (each entry allocates what it touches)."""

    def __init__(self, module, target, entry, stage_bits, passes):
        waves = BLOCK // target.facts.wave_size
        self.space = target.facts.shared_address_space

        def array(name, ty, count, align=8):
            return shared_array(module, target, f"{entry}_{name}", ty, count, align)

        #: a tile of keys or payloads in digit order (one more slot, ``DUMP``: where lanes
        #: past the end of a tile write), of the wider of the two
        self.stage = array("stage", ir.IntType(stage_bits), DUMP + 1, 16)
        #: whether the ranking matches digits through shared words (``match_or``), which
        #: with a 64-bit stage would pass a block's static shared memory (``peers`` there)
        self.match_or = stage_bits <= 32
        #: each wave's count of each digit, then where its next key of the digit goes in
        #: the tile (one more row: lanes past the end of a tile write there)
        self.waves = array("waves", I32, (waves + 1) * BINS)
        self.tile_start = array("tile_start", I32, BINS)
        #: per digit, where the stage's run of it goes in global memory, less its start in
        #: the stage
        self.base = array("base", I64, BINS)
        self.wave_total = array("wave_total", I32, waves)
        #: the histogram's counts: ``copies`` of one histogram per pass (of ``passes``, the
        #: most a key has), wave ``w`` counting into copy ``w % copies``
        self.passes = passes
        self.copies = max(1, min(waves, HIST_BYTES // (4 * passes * BINS)))
        self.hist = array("hist", I32, self.copies * passes * BINS)
        #: the onesweep pass's tile (its number in the order blocks took them) and the next
        self.tile = array("tile", I64, 2)
        #: per wave and digit, the lanes holding the digit in the current round (``MATCH``
        #: "atomic_or"; zero between rounds)
        self.match = array("match", ir.IntType(target.facts.wave_size), waves * BINS)


class _Kernel(KernelIR):
    def __init__(self, module, target, name, suffix, key_kind, payload_bits, shared):
        self.module = module
        self.target = target
        self.name = name
        self.suffix = suffix
        self.kind = key_kind
        self.K = ir.IntType(KEY_KINDS[key_kind])
        self.P = ir.IntType(payload_bits) if payload_bits else None
        self.sh = shared
        self.W = target.facts.wave_size
        self.NW = BLOCK // self.W
        self.M = ir.IntType(self.W)
        self.gspace = ir.PointerType(addrspace=target.facts.global_address_space)

    # -- small pieces ---------------------------------------------------------------------

    def sptr(self, b, gv, index, ty):
        p = b.gep(gv, [index], source_etype=ty)
        p.type = ir.PointerType(addrspace=self.sh.space)
        return p

    def order_key(self, b, key):
        """The unsigned key that orders ``key`` (floats: by value, ``-0.0`` as ``+0.0``,
        every NaN last), complemented when descending."""
        K = self.K
        if self.kind[0] == "f":
            bits = K.width
            sign = ir.Constant(K, 1 << (bits - 1))
            magnitude = b.and_(key, ir.Constant(K, (1 << (bits - 1)) - 1))
            inf = ir.Constant(K, 0x7F800000 if bits == 32 else 0x7FF0000000000000)
            negative = b.icmp_unsigned("!=", b.and_(key, sign), ir.Constant(K, 0))
            k = b.select(negative, b.not_(key), b.or_(key, sign))
            k = b.select(b.icmp_unsigned("==", magnitude, ir.Constant(K, 0)), sign, k)
            key = b.select(b.icmp_unsigned(">", magnitude, inf), ir.Constant(K, -1), k)
        return b.select(self.desc, b.not_(key), key)

    def digit(self, b, key, shift):
        """The 8-bit digit at bit ``shift`` (a key-typed value) of ``key``'s order key, as i32."""
        return b.trunc(b.and_(b.lshr(self.order_key(b, key), shift), ir.Constant(self.K, BINS - 1)), I32)

    def alloca(self, b, ty):
        """A stack slot in the entry block (where LLVM keeps it in registers)."""
        return entry_slot(b, ty)

    def peers(self, b, digit, valid):
        """The mask of the wave's valid lanes whose digit equals this lane's (8 ballots:
        modules of 64-bit keys or payloads)."""
        t = self.target
        mask = t.emit_ballot(b, valid)
        for bit in range(8):
            on = b.trunc(b.lshr(digit, self.c32(bit)), I1)
            votes = t.emit_ballot(b, on)
            mask = b.and_(mask, b.select(on, votes, b.not_(votes)))
        return mask

    def match_or(self, b, digit, valid, wave_row):
        """``peers`` through shared memory, in fewer instructions: each valid lane sets its
        bit in its wave's word of ``digit`` (one atomic), reads the word back once the wave
        has, then clears it (modules of 32-bit keys and payloads)."""
        t = self.target
        slot = self.sptr(b, self.sh.match, b.add(wave_row, b.zext(digit, I64)), self.M)
        lane = b.zext(self.lane, self.M) if self.W > 32 else self.lane
        bit = b.shl(ir.Constant(self.M, 1), lane)
        self.if_then(b, valid, lambda: b.atomic_rmw("or", slot, bit, "monotonic"))
        t.emit_wave_sync(b)
        mask = b.select(valid, b.load(slot, typ=self.M), ir.Constant(self.M, 0))
        t.emit_wave_sync(b)
        self.if_then(b, valid, lambda: b.store(ir.Constant(self.M, 0), slot))
        return mask

    def zero_match(self, b) -> None:
        """Zero the waves' match words (``match_or``), once before an entry's first
        ranking: each round clears the words it set, so they stay zero between rounds
        (``rank``'s first barrier orders these stores before the first round)."""
        if self.sh.match_or:
            for w in range(self.NW):
                slot = self.sptr(b, self.sh.match, b.add(self.c64(w * BINS), self.tid64), self.M)
                b.store(ir.Constant(self.M, 0), slot)

    def min32(self, b, x, y):
        return b.select(b.icmp_signed("<", x, y), x, y)

    def block_scan(self, b, v):
        """(exclusive prefix, total) of the i32 ``v`` over the block's threads in order
        (every thread must call it; it ends with a barrier, so it can be called again)."""
        t = self.target
        incl = v
        d = 1
        while d < self.W:
            up = t.emit_shuffle_up(b, incl, d)
            incl = b.add(incl, b.select(b.icmp_unsigned(">=", self.lane, self.c32(d)), up, self.c32(0)))
            d *= 2
        last = b.icmp_unsigned("==", self.lane, self.c32(self.W - 1))
        self.if_then(b, last, lambda: b.store(incl, self.sptr(b, self.sh.wave_total, self.wave64, I32)))
        t.emit_barrier(b)
        prefix = total = self.c32(0)
        for w in range(self.NW):
            x = b.load(self.sptr(b, self.sh.wave_total, self.c64(w), I32), typ=I32)
            prefix = b.add(prefix, b.select(b.icmp_unsigned("<", self.c32(w), self.wave), x, self.c32(0)))
            total = b.add(total, x)
        t.emit_barrier(b)
        return b.sub(b.add(prefix, incl), v), total

    # -- the entries ----------------------------------------------------------------------

    def build(self) -> None:
        target = self.target
        names = ("n",) + PARAMS[self.suffix]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), self.name)
        target.mark_kernel(fn)
        if self.suffix in ("_d", "_b"):
            target.limit_registers(fn, RANKING_BLOCKS if self.suffix == "_b" else D_RANKING_BLOCKS_KEYS32
                                   if self.K.width == 32 and self.P is None else D_RANKING_BLOCKS)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        self.p = {name: params.value(b, k) for k, name in enumerate(names)}
        self.desc = b.icmp_unsigned("!=", self.p.get("desc", self.c64(0)), self.c64(0))
        tid = target.emit_thread_in_block(b)
        self.tid64 = tid
        self.tid = b.trunc(tid, I32)
        self.lane = b.and_(self.tid, self.c32(self.W - 1))
        self.wave = b.lshr(self.tid, self.c32(self.W.bit_length() - 1))
        self.wave64 = b.zext(self.wave, I64)
        self.lt_mask = b.sub(b.shl(ir.Constant(self.M, 1), b.zext(self.lane, self.M) if self.W > 32 else self.lane),
                             ir.Constant(self.M, 1))
        self.bid = target.emit_block_id(b)
        getattr(self, "build" + (self.suffix or "_h"))(b)
        b.ret_void()

    def chunk_of(self, b):
        """(row, chunk index in the row, first key, end) of this block."""
        p = self.p
        row = b.udiv(self.bid, p["bpr"])
        k = b.urem(self.bid, p["bpr"])
        row_lo = b.mul(row, p["L"])
        lo = b.add(row_lo, b.mul(k, p["chunk"]))
        end = b.add(row_lo, p["L"])
        hi = b.add(lo, p["chunk"])
        return row, k, lo, b.select(b.icmp_signed("<", hi, end), hi, end)

    def build_h(self, b):
        p = self.p
        target = self.target
        sh = self.sh
        row, k, lo, hi = self.chunk_of(b)
        words = sh.copies * sh.passes * BINS
        for w in range(words // BLOCK):
            b.store(self.c32(0), self.sptr(b, sh.hist, b.add(self.c64(w * BLOCK), self.tid64), I32))
        target.emit_barrier(b)
        copy = b.mul(b.urem(self.wave64, self.c64(sh.copies)), self.c64(sh.passes * BINS))
        span = BLOCK * UPSWEEP_UNROLL
        trips = b.udiv(b.add(b.sub(hi, lo), self.c64(span - 1)), self.c64(span))
        counted = [b.icmp_signed("<", self.c64(q), p["passes"]) for q in range(sh.passes)]
        every_pass = b.icmp_signed(">=", p["passes"], self.c64(sh.passes))
        loop = CountedLoop(b, self.c64(0), trips, "up")
        first = b.add(lo, b.mul(loop.i, self.c64(span)))
        last = b.sub(hi, self.c64(1))

        def count(guarded: bool):
            keys, valids = [], []
            for u in range(UPSWEEP_UNROLL):  # (every load first: all in flight at once)
                i = b.add(first, b.add(self.c64(u * BLOCK), self.tid64))
                valid = b.icmp_signed("<", i, hi)
                if guarded:
                    i = b.select(valid, i, last)
                keys.append(b.load(self.gptr(b, p["keys"], i, self.K), typ=self.K))
                valids.append(valid)
            for key, valid in zip(keys, valids):
                ok = self.order_key(b, key)
                for q in range(sh.passes):
                    d = b.and_(b.lshr(ok, ir.Constant(self.K, 8 * q)), ir.Constant(self.K, BINS - 1))
                    slot = self.sptr(b, sh.hist, b.add(copy, b.add(self.c64(q * BINS), b.zext(d, I64))), I32)
                    if guarded:
                        self.if_then(b, b.and_(valid, counted[q]),
                                     lambda slot=slot: target.emit_atomic_add(b, slot, self.c32(1)))
                    else:
                        target.emit_atomic_add(b, slot, self.c32(1))

        # a whole trip counting every pass (all but a chunk's last trip, unless the keys
        # have fewer digits than their width) loads and counts unguarded: a branch around
        # each atomic, and each load's clamp, cost several instructions more than the
        # atomic or the load
        whole = b.and_(every_pass, b.icmp_signed("<=", b.add(first, self.c64(span)), hi))
        with b.if_else(whole) as (then, otherwise):
            with then:
                count(False)
            with otherwise:
                count(True)
        loop.close(b, b.add(loop.i, self.c64(1)))
        target.emit_barrier(b)
        for q in range(sh.passes):
            h = self.c32(0)
            for c in range(sh.copies):
                at = self.c64((c * sh.passes + q) * BINS)
                h = b.add(h, b.load(self.sptr(b, sh.hist, b.add(at, self.tid64), I32), typ=I32))
            at = b.add(b.mul(b.add(b.mul(row, self.c64(sh.passes)), self.c64(q)), self.c64(BINS)), self.tid64)
            dest = self.gptr(b, p["hist"], at, I32)
            self.if_then(b, b.and_(counted[q], b.icmp_unsigned("!=", h, self.c32(0))),
                         lambda dest=dest, h=h: target.emit_atomic_add(b, dest, h))

    def rank(self, b, keys, valids, shift, rounds, on_counts=None):
        """Each key's place in the tile's stable order by its digit at ``shift``, as i32
        (``DUMP`` for keys not ``valids``), their digits, and the tile's count of this
        thread's digit (``self.tid``), which ``on_counts(count)`` is given as soon as it is
        known: before the places (a onesweep pass publishes it while it ranks).  Only the
        first ``rounds`` rounds hold keys (the others are skipped: a short tile costs its
        rounds alone).  Every thread must call it; it begins and ends with a barrier.

        First each wave counts its keys of each digit (one shared atomic per key); the
        counts, scanned in wave order per digit and across the digits, become where each
        wave's run of each digit starts in the tile; then the rounds give each key its place
        from its wave's running start (the peers' places taken together)."""
        target = self.target
        sh = self.sh
        for w in range(self.NW):
            b.store(self.c32(0), self.sptr(b, sh.waves, b.add(self.c64(w * BINS), self.tid64), I32))
        target.emit_barrier(b)
        wave_row = b.mul(self.wave64, self.c64(BINS))
        dump = self.c64(self.NW * BINS)
        digits = [self.digit(b, key, shift) for key in keys]
        for r, (d, valid) in enumerate(zip(digits, valids)):
            slot = self.sptr(b, sh.waves, b.add(wave_row, b.zext(d, I64)), I32)
            self.if_then(b, valid, lambda slot=slot: target.emit_atomic_add(b, slot, self.c32(1)))
        target.emit_barrier(b)
        # per digit (this thread's): the waves' counts to starts in wave order, then across digits
        run = self.c32(0)
        before = []
        for w in range(self.NW):
            x = b.load(self.sptr(b, sh.waves, b.add(self.c64(w * BINS), self.tid64), I32), typ=I32)
            before.append(run)
            run = b.add(run, x)
        if on_counts is not None:
            on_counts(run)
        start, _ = self.block_scan(b, run)
        b.store(start, self.sptr(b, sh.tile_start, self.tid64, I32))
        for w, x in enumerate(before):
            b.store(b.add(start, x), self.sptr(b, sh.waves, b.add(self.c64(w * BINS), self.tid64), I32))
        target.emit_barrier(b)
        places = []
        for r, (d, valid) in enumerate(zip(digits, valids)):
            out = self.alloca(b, I32)
            b.store(self.c32(DUMP), out)

            def one_round(d=d, valid=valid, out=out):
                mask = self.match_or(b, d, valid, wave_row) if sh.match_or else self.peers(b, d, valid)
                below = self.popc(b, b.and_(mask, self.lt_mask))
                slot = self.sptr(b, sh.waves, b.select(valid, b.add(wave_row, b.zext(d, I64)), dump), I32)
                first = b.load(slot, typ=I32)
                target.emit_wave_sync(b)
                b.store(b.add(first, self.popc(b, mask)), slot)
                target.emit_wave_sync(b)
                b.store(b.select(valid, b.add(first, below), self.c32(DUMP)), out)
            # (block-uniform: the wave's lanes take it together)
            self.if_then(b, b.icmp_signed("<", self.c32(r), rounds), one_round)
            places.append(out)
        places = [b.load(out, typ=I32) for out in places]
        target.emit_barrier(b)
        return places, digits, run

    def load_payloads(self, b, at, row_lo):
        """The payloads at the positions ``at``; where the ``payload`` pointer is null,
        each position's place in its row (which starts at ``row_lo``): ``argsort``'s
        indices, made by the first pass instead of read."""
        p = self.p
        slots = []
        for i in at:
            s = self.alloca(b, self.P)
            place = b.sub(i, row_lo)
            b.store(b.trunc(place, self.P) if self.P.width < 64 else place, s)
            slots.append(s)

        def read():
            for i, s in zip(at, slots):
                b.store(b.load(self.gptr(b, p["payload"], i, self.P), typ=self.P), s)

        self.if_then(b, b.icmp_unsigned("!=", p["payload"], self.c64(0)), read)
        return [b.load(s, typ=self.P) for s in slots]

    def store_payload(self, b, v, at):
        """Write the payload ``v`` at position ``at`` of ``payload_out``: widened to 64
        bits where ``wide`` is set (the last pass of an ``argsort`` moving 32-bit
        indices writes its int64 result)."""
        out = self.p["payload_out"]
        if self.P.width == 64:
            b.store(v, self.gptr(b, out, at, self.P))
            return
        wide = b.icmp_unsigned("!=", self.p["wide"], self.c64(0))
        with b.if_else(wide) as (then, otherwise):
            with then:
                b.store(b.zext(v, I64), self.gptr(b, out, at, I64))
            with otherwise:
                b.store(v, self.gptr(b, out, at, self.P))

    def stage_through(self, b, values, places, ty):
        """Write ``values`` at ``places`` of the stage (then a barrier)."""
        for v, q in zip(values, places):
            b.store(v, self.sptr(b, self.sh.stage, b.zext(q, I64), ty))
        self.target.emit_barrier(b)

    def positions(self, b, n, items, full: bool = False):
        """For a tile of ``n`` keys (i32, 1 to ``BLOCK * items``): the tile positions of
        this thread's ``items`` keys, whether each is one, and the rounds that hold keys.  Wave
        ``w``'s part of the tile is ``rounds`` rounds of ``wave_size`` adjacent keys, as
        few as cover the tile with every wave (a short tile keeps every wave busy).
        ``full``: ``n`` is the constant ``BLOCK * items`` (every key valid, as constants)."""
        rounds = b.udiv(b.add(n, self.c32(BLOCK - 1)), self.c32(BLOCK))
        first = b.add(b.mul(self.wave, b.mul(rounds, self.c32(self.W))), self.lane)
        pos = [b.add(first, self.c32(r * self.W)) for r in range(items)]
        if full:
            return pos, [ir.Constant(I1, 1)] * items, rounds
        valids = [b.and_(b.icmp_signed("<", q, n), b.icmp_signed("<", self.c32(r), rounds)) for r, q in enumerate(pos)]
        return pos, valids, rounds

    def status_word(self, b, tile):
        """The address of this thread's digit's status word of ``tile`` (i64)."""
        at = b.add(self.c64(COUNTERS), b.add(b.mul(tile, self.c64(BINS)), self.tid64))
        return self.gptr(b, self.p["status"], at, I64)

    def look_back(self, b, tile, first, agg):
        """The keys of this thread's digit in the row's tiles before ``tile`` (``first``:
        the row's first tile), summed from their status words: each tile's count (flag
        ``agg``) until one's inclusive count (flag ``agg + 1``).  The words are read
        ``LOOK_BACK`` tiles at a time (one latency for several tiles); the walk stops at a
        word whose flag is older than ``agg`` (its tile has not counted yet; it has begun,
        so it will) and reads again from there."""
        fn = b.function
        head = fn.append_basic_block("back.head")
        done = fn.append_basic_block("back.done")
        last = b.sub(tile, self.c64(1))
        pre = b.block
        b.cbranch(b.icmp_signed(">", tile, first), head, done)
        b.position_at_end(head)
        j = b.phi(I64, "j")
        acc = b.phi(I64, "acc")
        j.add_incoming(last, pre)
        acc.add_incoming(self.c64(0), pre)
        words = []
        for k in range(LOOK_BACK):
            at = b.sub(j, self.c64(k))
            inside = b.icmp_signed(">=", at, first)
            # (before the row's first tile: a word that ends the walk with nothing to add)
            words.append(b.select(inside, load_relaxed(b, self.status_word(b, b.select(inside, at, j)), I64),
                                  self.c64(1 << 63)))
        total, taken, stop = acc, self.c64(0), ir.Constant(I1, 0)
        live = ir.Constant(I1, 1)
        for word in words:
            flag = b.lshr(word, self.c64(FLAG_SHIFT))
            take = b.and_(live, b.icmp_unsigned(">=", flag, agg))
            total = b.add(total, b.select(take, b.and_(word, self.c64((1 << FLAG_SHIFT) - 1)), self.c64(0)))
            taken = b.add(taken, b.zext(take, I64))
            ends = b.and_(take, b.icmp_unsigned(">", flag, agg))
            stop = b.or_(stop, ends)
            live = b.and_(take, b.not_(ends))
        j.add_incoming(b.sub(j, taken), b.block)
        acc.add_incoming(total, b.block)
        back = b.block
        b.cbranch(stop, done, head)
        b.position_at_end(done)
        out = b.phi(I64, "before")
        out.add_incoming(self.c64(0), pre)
        out.add_incoming(total, back)
        return out

    def build_d(self, b):
        p = self.p
        target = self.target
        sh = self.sh
        counter = self.gptr(b, p["status"], b.udiv(p["shift"], self.c64(8)), I32)
        thread0 = b.icmp_unsigned("==", self.tid, self.c32(0))

        def take_tile(k):
            # thread 0 takes the next tile into shared slot ``k & 1``
            slot = self.sptr(b, sh.tile, b.and_(k, self.c64(1)), I64)
            self.if_then(b, thread0, lambda: b.store(
                b.zext(target.emit_atomic_add(b, counter, self.c32(1)), I64), slot))
            return slot

        pass_ = b.udiv(p["shift"], self.c64(8))
        take_tile(self.c64(0))
        self.zero_match(b)
        # the row's start of this thread's digit (the row's keys of the digits before it),
        # found again only when a tile's row is not the last tile's
        start_slot, row_slot = self.alloca(b, I32), self.alloca(b, I64)
        b.store(self.c64(-1), row_slot)
        target.emit_barrier(b)
        # a block sorts tile after tile, each taking its next one while it works on this
        # one (the counter's latency hidden; the next tile's predecessors have all begun)
        tiles = CountedLoop(b, self.c64(0), p["n"], "tile")
        tile = b.load(self.sptr(b, sh.tile, b.and_(tiles.i, self.c64(1)), I64), typ=I64)
        go_bb = b.function.append_basic_block("tile.go")
        b.cbranch(b.icmp_signed("<", tile, p["n"]), go_bb, tiles.exit)
        b.position_at_end(go_bb)
        take_tile(b.add(tiles.i, self.c64(1)))
        row = b.udiv(tile, p["tiles"])

        def row_starts():
            at = b.add(b.mul(b.add(b.mul(row, self.c64(sh.passes)), pass_), self.c64(BINS)), self.tid64)
            b.store(self.block_scan(b, b.load(self.gptr(b, p["hist"], at, I32), typ=I32))[0], start_slot)
            b.store(row, row_slot)

        # (block-uniform: every thread's tile is the block's)
        self.if_then(b, b.icmp_unsigned("!=", row, b.load(row_slot, typ=I64)), row_starts)
        t = b.urem(tile, p["tiles"])
        first = b.sub(tile, t)
        row_lo = b.mul(row, p["L"])
        tlo = b.add(row_lo, b.mul(t, self.c64(D_TILE)))
        start = b.load(start_slot, typ=I32)
        shift = b.trunc(p["shift"], self.K) if self.K.width < 64 else p["shift"]
        rest = b.sub(p["L"], b.mul(t, self.c64(D_TILE)))
        n = b.trunc(b.select(b.icmp_signed("<", rest, self.c64(D_TILE)), rest, self.c64(D_TILE)), I32)

        key_shift = (self.K.width // 8).bit_length() - 1  # (log2 of a key's bytes)

        def work(n, full: bool):
            """The tile's ranking, look-back and scatter (``full``: a whole tile, every key
            valid -- the guards of a short tile folded away)."""
            pos, valids, rounds = self.positions(b, n, D_ITEMS, full)
            at = [b.add(tlo, b.zext(q if full else self.min32(b, q, b.sub(n, self.c32(1))), I64)) for q in pos]
            keys = [b.load(self.gptr(b, p["keys"], i, self.K), typ=self.K) for i in at]
            pays = self.load_payloads(b, at, row_lo) if self.P else []
            agg = b.add(b.mul(pass_, self.c64(2)), self.c64(1))
            word = self.status_word(b, tile)

            def publish(count):
                # the row's first tile publishes its count as inclusive at once
                flag = b.add(agg, b.zext(b.icmp_signed("==", tile, first), I64))
                store_relaxed(b, b.or_(b.shl(flag, self.c64(FLAG_SHIFT)), b.zext(count, I64)), word)

            places, _, count = self.rank(b, keys, valids, shift, rounds, publish)
            self.stage_through(b, keys, places, self.K)
            before = self.look_back(b, tile, first, agg)
            inclusive = b.or_(b.shl(b.add(agg, self.c64(1)), self.c64(FLAG_SHIFT)), b.add(before, b.zext(count, I64)))
            self.if_then(b, b.icmp_signed(">", tile, first), lambda: store_relaxed(b, inclusive, word))
            # where the stage's run of this thread's digit goes, less its start in the stage:
            # as the byte address in ``keys_out`` (a key's address is then one add)
            ts = b.load(self.sptr(b, sh.tile_start, self.tid64, I32), typ=I32)
            place = b.add(row_lo, b.sub(b.add(b.zext(start, I64), before), b.zext(ts, I64)))
            b.store(b.add(p["keys_out"], b.shl(place, self.c64(key_shift))), self.sptr(b, sh.base, self.tid64, I64))
            target.emit_barrier(b)

            def scatter(ty, write, digits=None):
                # thread j moves the tile's values j, j + BLOCK, ...: a run of one digit goes to
                # adjacent places; each value's digit is its key's, computed from the staged key
                # (kept for the payloads that follow: fewer shared accesses than a staged digit)
                out = []
                for r in range(D_ITEMS):
                    i = b.add(self.tid, self.c32(r * BLOCK))
                    i64 = b.zext(i, I64)
                    v = b.load(self.sptr(b, sh.stage, i64, ty), typ=ty)
                    if digits is None:
                        d = b.zext(self.digit(b, v, shift), I64)
                    else:
                        d = digits[r]
                    out.append(d)
                    dest = b.add(b.load(self.sptr(b, sh.base, d, I64), typ=I64), b.shl(i64, self.c64(key_shift)))
                    if full:
                        write(v, dest)
                    else:
                        self.if_then(b, b.icmp_signed("<", i, n), lambda: write(v, dest))
                return out

            kd = scatter(self.K, lambda v, dest: b.store(v, b.inttoptr(dest, self.gspace)))
            if self.P:
                target.emit_barrier(b)
                self.stage_through(b, pays, places, self.P)
                # (the payload's place: the key's address back to an index)
                scatter(self.P, lambda v, dest: self.store_payload(
                    b, v, b.ashr(b.sub(dest, p["keys_out"]), self.c64(key_shift))), kd)
            target.emit_barrier(b)

        # whole tiles (all but a row's last) take a copy of the work without the guards a
        # short tile needs: fewer instructions per key (the branches cost as much as the
        # ranking's shared accesses)
        with b.if_else(b.icmp_signed("==", n, self.c32(D_TILE))) as (then, otherwise):
            with then:
                work(self.c32(D_TILE), True)
            with otherwise:
                work(n, False)
        tiles.close(b, b.add(tiles.i, self.c64(1)))

    def build_b(self, b):
        p = self.p
        target = self.target
        sh = self.sh
        self.zero_match(b)
        rows = CountedLoop(b, self.bid, p["n"], "row")
        row_lo = b.mul(rows.i, p["L"])
        n = b.trunc(p["L"], I32)
        pos, valids, rounds = self.positions(b, n, ITEMS)
        clamped = [self.min32(b, q, b.sub(n, self.c32(1))) for q in pos]
        at = [b.add(row_lo, b.zext(q, I64)) for q in clamped]
        key_slots = [self.alloca(b, self.K) for _ in range(ITEMS)]
        pay_slots = [self.alloca(b, self.P) for _ in range(ITEMS)] if self.P else []
        for i, s in zip(at, key_slots):
            b.store(b.load(self.gptr(b, p["keys"], i, self.K), typ=self.K), s)
        for v, s in zip(self.load_payloads(b, at, row_lo) if self.P else (), pay_slots):
            b.store(v, s)
        passes = CountedLoop(b, self.c64(0), p["passes"], "pass")
        shift64 = b.mul(passes.i, self.c64(8))
        shift = b.trunc(shift64, self.K) if self.K.width < 64 else shift64
        keys = [b.load(s, typ=self.K) for s in key_slots]
        places, _, _ = self.rank(b, keys, valids, shift, rounds)
        for slots, ty in ((key_slots, self.K), (pay_slots, self.P)):
            if not slots:
                continue
            self.stage_through(b, [b.load(s, typ=ty) for s in slots], places, ty)
            for q, s in zip(clamped, slots):
                b.store(b.load(self.sptr(b, sh.stage, b.zext(q, I64), ty), typ=ty), s)
            target.emit_barrier(b)
        passes.close(b, b.add(passes.i, self.c64(1)))
        for i, s, ok in zip(at, key_slots, valids):
            v = b.load(s, typ=self.K)
            self.if_then(b, ok, lambda: b.store(v, self.gptr(b, p["keys_out"], i, self.K)))
        for i, s, ok in zip(at, pay_slots, valids):
            v = b.load(s, typ=self.P)
            self.if_then(b, ok, lambda: self.store_payload(b, v, i))
        rows.close(b, b.add(rows.i, target.emit_block_count(b)))
