"""GPU kernels that move elements by position, built as LLVM IR: transposed copies through
shared-memory tiles, gathers along one axis, a binary search per query, and contiguous runs
joined one after another.

Each module is specialized per element size (copies and gathers: elements are moved as
bits) or per dtype (the search compares), never per size (the joins: one module for every
dtype): shapes, strides, the divisors' magic numbers, the axis length and the runs'
addresses and ends are run-time parameters, every one a 64-bit word after the leading
item count ``n`` (``PARAMS``).

* *transpose* (``build_transpose``): ``dst[b, r, c] = src[b, r, c]`` where ``r`` is
  ``src``'s innermost axis and ``c`` ``dst``'s.  A block copies a square tile
  (``tile_side``): its lanes read along ``r`` into shared memory (rows padded by one
  element, so the transposed reads hit distinct banks), then write along ``c``; both
  sides coalesce.  Where ``pairs`` is set (4-byte elements, both inner axes contiguous,
  every pair 8-byte aligned), a whole tile moves two adjacent elements a lane.
  ``n`` is the number of tiles (batch x tile rows x tile columns).
* *gather* (``build_gather``): ``out[i] = src[p*sp + w(idx[p*ip + j*ij + q*iq])*sa + q*sq]``
  for the flat position ``i`` of ``(p, j, q)`` in a ``(P, M, Q)`` result, ``w`` wrapping a
  negative index once.  ``p`` and ``j`` come from two divisions by magic numbers (a
  multiply and shifts: ``magic``), so nothing is unravelled dimension by dimension; a
  result with ``Q == 1`` (a 1-D take, a gather along the last axis) takes a loop without
  the ``q`` terms.  An index outside ``[-n, n)`` reads element 0 instead and sets the
  ``flag`` word, which the caller reads back to raise ``IndexError``.
* *scatter* (``build_scatter``): the gather's reverse,
  ``dst[p*dp + w(idx[p*ip + j*ij + q*iq])*da + q*dq] = vals[i]`` (or one value for every
  ``i``), over the same positions, divisions and parameters; and a *check* entry that only
  reads the indices and sets ``flag`` where one is outside ``[-n, n)``, which the caller
  reads back before it scatters (NumPy writes nothing when an index is out of range).  The
  scatter entries skip such an index rather than write outside ``dst``; of equal indices
  one write lands, unspecified which.
* *search* (``build_search``): for each query, the number of sorted elements before it
  (``left``) or before or equal to it (``right``), NaN last and complex values ordered as
  NumPy sorts them; or (``_f`` entries) whether the element at the left point equals the
  query (``isin``, one pass: no positions written and read again).  A thread takes
  ``SEARCH_ITEMS`` queries per round (each search is a chain of dependent loads: more
  threads, each with one chain, keep more loads in flight than fewer threads interleaving
  several); the entries ``_w`` keep 64-bit positions for arrays of 2**31 elements or more.
* *join* (``build_joins``, one entry per unit): up to ``JOIN_PIECES`` contiguous source
  runs ``s0``, ``s1``, ... copied one after another into ``dst`` (``concat`` and ``stack``
  of contiguous arrays in one launch), in units of 1 to 16 bytes that every run's size and
  address allow.  ``e{k}``
  is where run ``k`` ends in ``dst`` (in units, cumulative; ``n`` for unused runs), ``n``
  the units in all.  A unit's run is picked by a chain of compares and selects over the
  ends: no loop, no division.
"""

from __future__ import annotations

import struct

from llvmlite import ir

from .abi import I64
from .gpu_ir import entry_slot, global_ptr, if_then, shared_array, word_packer
from .index_ir import CountedLoop
from .reduction_abi import EntryParams

I1 = ir.IntType(1)
I32 = ir.IntType(32)

#: Threads of every block; items (elements or queries) a thread takes per round.
BLOCK = 256
ITEMS = 4
#: Queries a search thread takes per round.
SEARCH_ITEMS = 1
#: Source runs a join takes in one launch; the units it may move them in (bytes), widest
#: first: the entries of a join module in order (``build_joins``), each but the first
#: named by its suffix.
JOIN_PIECES = 8
JOIN_UNITS = (16, 8, 4, 2, 1)
JOIN_SUFFIXES = tuple(f"_u{u}" for u in JOIN_UNITS[1:])
#: The side of a transposing copy's tile (a block covers it in ``side * side / BLOCK``
#: rows) for elements of at most ``TILE_BYTES`` bytes; wider ones take half of it, so that
#: the tile stays within a block's 48 KiB of static shared memory.
TILE = 64
TILE_BYTES = 8

PARAMS = {
    "transpose": ("src", "dst", "R", "C", "ss0", "ss1", "ds0", "ds1", "sb", "db", "tr", "tc", "pairs"),
    "gather": ("src", "idx", "out", "flag", "nax", "MQ", "mq_m", "mq_l", "Q", "q_m", "q_l",
               "ip", "ij", "iq", "sp", "sa", "sq"),
    # (a gather's words in the same places: the scatter takes the same launch words)
    "scatter": ("vals", "idx", "dst", "flag", "nax", "MQ", "mq_m", "mq_l", "Q", "q_m", "q_l",
                "ip", "ij", "iq", "dp", "da", "dq"),
    "search": ("a", "v", "out", "L", "invert"),
    "join": ("dst",) + tuple(w for k in range(JOIN_PIECES) for w in (f"s{k}", f"e{k}")),
}
#: The suffix of a gather module's entry with 32-bit offsets (``build_gather``).
GATHER_NARROW = "_n"
#: The entries of a scatter module in order (``build_scatter``): (suffix, what it writes,
#: 32-bit offsets): the values in the result's order, one value for every position, or
#: nothing (the indices' check), each with 64-bit offsets and then 32-bit ones.
SCATTER_ENTRIES = tuple((("" if mode == "values" else "_" + mode) + (GATHER_NARROW if narrow else ""), mode, narrow)
                        for mode in ("values", "one", "check") for narrow in (False, True))
#: The entries of a search module: (suffix, side is right, 64-bit positions, found):
#: ``found`` entries write whether the query is at its left insertion point (a bool,
#: ``!= invert``: ``isin``) instead of the point.
SEARCH_ENTRIES = (("", False, False, False), ("_r", True, False, False), ("_w", False, True, False),
                  ("_wr", True, True, False), ("_f", False, False, True), ("_wf", False, True, True))
#: Changes with the code these kernels are built from (part of their cache key).
VERSION = 6


def packer(kind: str) -> struct.Struct:
    """The packing of a ``kind`` entry's parameters: ``n`` then ``PARAMS[kind]``."""
    return word_packer(len(PARAMS[kind]))


def magic(d: int) -> tuple[int, int]:
    """(multiplier, shift) that divide any 32-bit ``x`` by ``d`` (1 <= d < 2**32):
    ``x // d == (((x * m) >> 32) + x) >> l`` in 64-bit arithmetic (round-up method of
    Granlund and Montgomery)."""
    if not 1 <= d < 1 << 32:
        raise ValueError(f"a magic divisor must be in [1, 2**32), not {d}")
    l = (d - 1).bit_length()
    return ((1 << (32 + l)) // d) - (1 << 32) + 1, l


def tile_side(itemsize: int) -> int:
    """The side of the transposing copy's tile for elements of ``itemsize`` bytes."""
    return TILE if itemsize <= TILE_BYTES else TILE // 2


def _element_type(itemsize: int) -> ir.Type:
    if itemsize == 16:
        return ir.VectorType(I64, 2)
    if itemsize not in (1, 2, 4, 8):
        raise ValueError(f"elements of 1, 2, 4, 8 or 16 bytes, not {itemsize}")
    return ir.IntType(8 * itemsize)


class _Builder:
    """What every entry shares: its parameters, thread and block ids, global addresses."""

    def __init__(self, module, target, name, kind):
        facts = target.facts
        if not facts.emits_grid:
            raise ValueError(f"gather kernels need a GPU target; {target.name} has no grid")
        self.module = module
        self.target = target
        names = ("n",) + PARAMS[kind]
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), name)
        target.mark_kernel(fn)
        self.b = b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        self.p = {nm: params.value(b, k) for k, nm in enumerate(names)}
        self.tid = target.emit_thread_in_block(b)
        self.bid = target.emit_block_id(b)
        self.nblocks = target.emit_block_count(b)
        self.gspace = ir.PointerType(addrspace=facts.global_address_space)
        self.sspace = facts.shared_address_space
        self.invariant = module.add_metadata([])

    def c64(self, v):
        return ir.Constant(I64, v)

    def gptr(self, base, index, ty):
        return global_ptr(self.b, self.gspace, base, index, ty)

    def load(self, base, index, ty, align, read_only=False):
        """Element ``index`` of the ``ty`` array at ``base``; ``read_only``: memory no
        entry writes while it runs (loaded through the read-only path)."""
        v = self.b.load(self.gptr(base, index, ty), typ=ty, align=align)
        if read_only:
            v.set_metadata("invariant.load", self.invariant)
        return v

    def store(self, value, base, index, ty, align):
        self.b.store(value, self.gptr(base, index, ty), align=align)

    def if_then(self, cond, body):
        if_then(self.b, cond, body)

    def if_else(self, cond, then, otherwise):
        with self.b.if_else(cond) as (yes, no):
            with yes:
                then()
            with no:
                otherwise()

    def rounds(self, items=ITEMS):
        """A grid-stride loop over rounds of ``BLOCK * items`` items; returns (loop, the
        round's first item)."""
        b = self.b
        span = BLOCK * items
        count = b.udiv(b.add(self.p["n"], self.c64(span - 1)), self.c64(span))
        loop = CountedLoop(b, self.bid, count, "round")
        return loop, b.mul(loop.i, self.c64(span))

    def slot(self, ty):
        """A stack slot in the entry block (promoted to a register by the optimiser)."""
        return entry_slot(self.b, ty)

    def sptr(self, gv, index, ty):
        p = self.b.gep(gv, [index], source_etype=ty)
        p.type = ir.PointerType(addrspace=self.sspace)
        return p


# -- transposing copies ---------------------------------------------------------------------

def build_transpose(module: ir.Module, target, entry: str, itemsize: int) -> None:
    """Add the transposing copy of ``itemsize``-byte elements, ``entry``, to ``module``."""
    ET = _element_type(itemsize)
    align = min(itemsize, 8)
    k = _Builder(module, target, entry, "transpose")
    b, p = k.b, k.p
    side = tile_side(itemsize)
    rows_per_thread = side * side // BLOCK
    tile = shared_array(module, target, f"{entry}_tile", ET, side * (side + 1), 16)
    lane = b.and_(k.tid, k.c64(side - 1))
    row = b.lshr(k.tid, k.c64(side.bit_length() - 1))
    per_batch = b.mul(p["tr"], p["tc"])
    tiles = CountedLoop(b, k.bid, p["n"], "tile")
    t = tiles.i
    batch = b.udiv(t, per_batch)
    rest = b.sub(t, b.mul(batch, per_batch))
    ti = b.udiv(rest, p["tc"])
    r0 = b.mul(ti, k.c64(side))
    c0 = b.mul(b.sub(rest, b.mul(ti, p["tc"])), k.c64(side))
    src = b.add(p["src"], b.mul(b.mul(batch, p["sb"]), k.c64(itemsize)))
    dst = b.add(p["dst"], b.mul(b.mul(batch, p["db"]), k.c64(itemsize)))
    step = k.c64(BLOCK // side)

    def places(r, c, frm, to, along_c, frm_step, to_step):
        """A thread's elements of the tile, ``(r, c, offset read, offset written)`` each,
        stepping along ``c`` or ``r`` (offsets stepped by additions from the first)."""
        out = []
        for _ in range(rows_per_thread):
            out.append((r, c, frm, to))
            r, c = (r, b.add(c, step)) if along_c else (b.add(r, step), c)
            frm, to = b.add(frm, frm_step), b.add(to, to_step)
        return out

    def move(elements, fetch, put, guarded):
        """``put(fetch(frm), to)`` for each element: at a tile's edge one by one under a
        guard; in a whole tile every fetch first, with no branch between them, so that the
        loads are in flight together (the copy is bound by how many are)."""
        if guarded:
            for r, c, frm, to in elements:
                inside = b.and_(b.icmp_signed("<", r, p["R"]), b.icmp_signed("<", c, p["C"]))
                k.if_then(inside, lambda frm=frm, to=to: put(fetch(frm), to))
        else:
            values = [fetch(frm) for _, _, frm, _ in elements]
            for (_, _, _, to), v in zip(elements, values):
                put(v, to)

    def copy_tile(guarded):
        # lanes along r (src's inner axis), rows of the block along c; the tile is [c][r]
        r, c = b.add(r0, lane), b.add(c0, row)
        move(places(r, c, b.add(b.mul(r, p["ss0"]), b.mul(c, p["ss1"])),
                    b.add(b.mul(row, k.c64(side + 1)), lane), True, b.mul(step, p["ss1"]),
                    k.c64((BLOCK // side) * (side + 1))),
             lambda at: k.load(src, at, ET, align, read_only=True),
             lambda v, at: b.store(v, k.sptr(tile, at, ET)), guarded)
        target.emit_barrier(b)
        # lanes along c (dst's inner axis)
        r, c = b.add(r0, row), b.add(c0, lane)
        move(places(r, c, b.add(b.mul(lane, k.c64(side + 1)), row),
                    b.add(b.mul(r, p["ds0"]), b.mul(c, p["ds1"])), False, step, b.mul(step, p["ds0"])),
             lambda at: b.load(k.sptr(tile, at, ET), typ=ET),
             lambda v, at: k.store(v, dst, at, ET, align), guarded)
        target.emit_barrier(b)  # (the next tile overwrites the shared one)

    def copy_tile_in_pairs():
        """A whole tile of 4-byte elements moved two adjacent ones (8 aligned bytes) a
        lane on both sides, as 8-byte elements move: half the requests for the same bytes.
        Each pair is read along ``r`` into two elements of a tile row, and written along
        ``c`` from the same place in two adjacent rows."""
        PT = ir.VectorType(ET, 2)
        half = side // 2  # (lanes along a tile row)
        rows = BLOCK // half  # (tile rows a step of the block covers)
        pair_lane = b.and_(k.tid, k.c64(half - 1))
        pair_row = b.lshr(k.tid, k.c64(half.bit_length() - 1))
        two = k.c64(2)

        def pair_places(frm, to, frm_step, to_step):
            """A thread's pairs, ``(offset read, offset written)`` each."""
            out = []
            for _ in range(side * side // (2 * BLOCK)):
                out.append((frm, to))
                frm, to = b.add(frm, frm_step), b.add(to, to_step)
            return out

        # (offsets in elements, the global ones 8-byte aligned: the caller checked strides)
        r, c = b.add(r0, b.mul(pair_lane, two)), b.add(c0, pair_row)
        elements = pair_places(b.add(b.mul(r, p["ss0"]), b.mul(c, p["ss1"])),
                               b.add(b.mul(pair_row, k.c64(side + 1)), b.mul(pair_lane, two)),
                               b.mul(k.c64(rows), p["ss1"]), k.c64(rows * (side + 1)))
        loaded = [b.load(k.gptr(src, b.lshr(at, ir.Constant(I64, 1)), PT), typ=PT, align=8) for at, _ in elements]
        for v in loaded:
            v.set_metadata("invariant.load", k.invariant)
        for (_, to), v in zip(elements, loaded):
            for h in range(2):
                b.store(b.extract_element(v, ir.Constant(I32, h)), k.sptr(tile, b.add(to, k.c64(h)), ET))
        target.emit_barrier(b)
        r, c = b.add(r0, pair_row), b.add(c0, b.mul(pair_lane, two))
        elements = pair_places(b.add(b.mul(b.mul(pair_lane, two), k.c64(side + 1)), pair_row),
                               b.add(b.mul(r, p["ds0"]), b.mul(c, p["ds1"])),
                               k.c64(rows), b.mul(k.c64(rows), p["ds0"]))
        packed = []
        for frm, _ in elements:
            v = ir.Constant(PT, ir.Undefined)
            for h in range(2):
                e = b.load(k.sptr(tile, b.add(frm, k.c64(h * (side + 1))), ET), typ=ET)
                v = b.insert_element(v, e, ir.Constant(I32, h))
            packed.append(v)
        for (_, to), v in zip(elements, packed):
            b.store(v, k.gptr(dst, b.lshr(to, ir.Constant(I64, 1)), PT), align=8)
        target.emit_barrier(b)

    # (the same for every thread of the block, so its barriers are reached by all): an
    # edge tile, a whole one, or -- 4-byte elements where the launch's ``pairs`` says so --
    # a whole one in pairs
    whole = b.and_(b.icmp_signed("<=", b.add(r0, k.c64(side)), p["R"]),
                   b.icmp_signed("<=", b.add(c0, k.c64(side)), p["C"]))
    fn = b.function
    paths = {"edge": lambda: copy_tile(True), "whole": lambda: copy_tile(False)}
    if itemsize == 4:
        paths["pairs"] = copy_tile_in_pairs
    blocks = {name: fn.append_basic_block(f"tile.{name}") for name in paths}
    next_bb = fn.append_basic_block("tile.next")
    if itemsize == 4:
        choose = fn.append_basic_block("tile.choose")
        b.cbranch(whole, choose, blocks["edge"])
        b.position_at_end(choose)
        b.cbranch(b.icmp_unsigned("!=", p["pairs"], k.c64(0)), blocks["pairs"], blocks["whole"])
    else:
        b.cbranch(whole, blocks["whole"], blocks["edge"])
    for name, copy in paths.items():
        b.position_at_end(blocks[name])
        copy()
        b.branch(next_bb)
    b.position_at_end(next_bb)
    tiles.close(b, b.add(t, k.nblocks))
    b.ret_void()


# -- gathers ------------------------------------------------------------------------------

def _wide(b, x, y):
    """The i64 product of the i64 values ``x`` and ``y``, both below 2**32 (one 32-bit
    multiply with a 64-bit result, not a 64-bit multiply)."""
    return b.mul(b.zext(b.trunc(x, I32), I64), b.zext(b.trunc(y, I32), I64), flags=["nuw"])


def _divmod(b, x, d, m, l):
    """``(x // d, x % d)`` for ``x`` < 2**32 (i64) and ``(m, l) = magic(d)`` (i64
    parameters)."""
    t = b.lshr(_wide(b, x, m), ir.Constant(I64, 32))
    q = b.lshr(b.add(t, x), l)
    r = b.sub(b.trunc(x, I32), b.mul(b.trunc(q, I32), b.trunc(d, I32)))
    return q, b.zext(r, I64)


def build_gather(module: ir.Module, target, entry: str, itemsize: int, index_bits: int, signed: bool) -> None:
    """Add the gathers of ``itemsize``-byte elements by ``index_bits``-bit indices (``signed``
    or not) to ``module``: ``entry``, with 64-bit element offsets, and ``entry + "_n"``
    (``GATHER_NARROW``), with 32-bit ones -- a multiply-add each instead of a 64-bit
    multiply's several -- for gathers whose every offset and position is below 2**31.
    ``n`` (the result's elements) must be below 2**32."""
    _build_moves(module, target, entry, itemsize, index_bits, signed, False, "gather")
    _build_moves(module, target, entry + GATHER_NARROW, itemsize, index_bits, signed, True, "gather")


def build_scatter(module: ir.Module, target, entry: str, itemsize: int, index_bits: int, signed: bool) -> None:
    """Add the scatters of ``itemsize``-byte elements by ``index_bits``-bit indices (``signed``
    or not) and their check to ``module``: ``entry`` plus each suffix of
    ``SCATTER_ENTRIES``, over the gather's positions (``n`` below 2**32; 32-bit offsets as
    ``build_gather``'s)."""
    for suffix, mode, narrow in SCATTER_ENTRIES:
        _build_moves(module, target, entry + suffix, itemsize, index_bits, signed, narrow, mode)


def _build_moves(module, target, name, itemsize, index_bits, signed, narrow, mode):
    """One entry moving elements between an array and the positions its indices name:
    ``mode`` 'gather' (read ``src`` there into ``out``), 'values' (write ``vals`` in the
    result's order there into ``dst``), 'one' (write ``vals[0]`` there) or 'check' (only
    the flag)."""
    ET = _element_type(itemsize)
    IT = ir.IntType(index_bits)
    align = min(itemsize, 8)
    gather = mode == "gather"
    k = _Builder(module, target, name, "gather" if gather else "scatter")
    b, p = k.b, k.p
    data, strides = ("src", ("sp", "sa", "sq")) if gather else ("dst", ("dp", "da", "dq"))

    def offset(*terms):
        """The element offset sum(x * stride) of (x, stride) pairs (i64 values), as i64."""
        if not narrow:
            total = b.mul(*terms[0])
            for x, stride in terms[1:]:
                total = b.add(total, b.mul(x, stride))
            return total
        total = None
        for x, stride in terms:
            t = b.mul(b.trunc(x, I32), b.trunc(stride, I32))
            total = t if total is None else b.add(total, t)
        return b.sext(total, I64)

    bad_slot = k.slot(I1)
    b.store(ir.Constant(I1, 0), bad_slot)
    # (the scatters read their values as read-only memory: the caller copies values that
    # share the destination's memory)
    one = k.load(p["vals"], k.c64(0), ET, align, read_only=True) if mode == "one" else None
    # 16-byte elements (complex128) are written whole, one vector store, where the
    # destination is aligned to 16 bytes (every element is then: its offsets are whole
    # elements): two threads writing one element (repeated indices) leave one's value,
    # not a half of each, as two 8-byte stores could
    whole = None
    if itemsize == 16 and not gather:
        whole = b.icmp_unsigned("==", b.and_(p[data], k.c64(15)), k.c64(0))
    inner = b.icmp_unsigned("==", p["Q"], k.c64(1))
    fn = b.function
    inner_bb, general_bb, done_bb = (fn.append_basic_block(s) for s in ("inner", "general", "done"))
    b.cbranch(inner, inner_bb, general_bb)
    for bb, with_q in ((inner_bb, False), (general_bb, True)):
        b.position_at_end(bb)
        loop, first = k.rounds()
        items = []
        for u in range(ITEMS):
            i = b.add(first, b.add(k.c64(u * BLOCK), k.tid))
            ok = b.icmp_unsigned("<", i, p["n"])
            i = b.select(ok, i, k.c64(0))
            row, r = _divmod(b, i, p["MQ"], p["mq_m"], p["mq_l"])
            if with_q:
                j, q = _divmod(b, r, p["Q"], p["q_m"], p["q_l"])
                ia = offset((row, p["ip"]), (j, p["ij"]), (q, p["iq"]))
            else:
                q = None
                ia = offset((row, p["ip"]), (r, p["ij"]))
            raw = k.load(p["idx"], ia, IT, index_bits // 8, read_only=True)
            items.append((i, ok, row, q, raw))
        moves = []
        for i, ok, row, q, raw in items:
            v = b.sext(raw, I64) if signed and index_bits < 64 else (b.zext(raw, I64) if index_bits < 64 else raw)
            if signed:
                v = b.select(b.icmp_signed("<", v, k.c64(0)), b.add(v, p["nax"]), v)
            out_of_range = b.icmp_unsigned(">=", v, p["nax"])
            if mode in ("gather", "check"):
                b.store(b.or_(b.load(bad_slot, typ=I1), b.and_(ok, out_of_range)), bad_slot)
            if mode == "check":
                continue
            v = b.select(out_of_range, k.c64(0), v)
            at = offset((row, p[strides[0]]), (v, p[strides[1]]), *(((q, p[strides[2]]),) if with_q else ()))
            if gather:
                moves.append((ok, i, k.load(p["src"], at, ET, align, read_only=True)))
            else:
                value = one if mode == "one" else k.load(p["vals"], i, ET, align, read_only=True)
                moves.append((b.and_(ok, b.not_(out_of_range)), at, value))
        # (every load of the round first, then the stores: the loads are in flight together)
        for ok, at, value in moves:
            if whole is None:
                k.if_then(ok, lambda at=at, value=value: k.store(value, p["out" if gather else data], at, ET, align))
            else:
                k.if_then(ok, lambda at=at, value=value: k.if_else(
                    whole, lambda: k.store(value, p[data], at, ET, 16), lambda: k.store(value, p[data], at, ET, 8)))
        loop.close(b, b.add(loop.i, k.nblocks))
        b.branch(done_bb)
    b.position_at_end(done_bb)
    if mode in ("gather", "check"):
        k.if_then(b.load(bad_slot, typ=I1), lambda: k.store(ir.Constant(I32, 1), p["flag"], k.c64(0), I32, 4))
    b.ret_void()


# -- searching ----------------------------------------------------------------------------

_FLOATS = {2: ir.HalfType(), 4: ir.FloatType(), 8: ir.DoubleType()}


def build_search(module: ir.Module, target, entry: str, kind: str, itemsize: int) -> None:
    """Add the search entries ``entry + suffix`` (``SEARCH_ENTRIES``) for sorted arrays
    and queries of the dtype of ``kind`` ('b', 'i', 'u', 'f', 'c') and ``itemsize``."""
    if kind not in "biufc" or (kind == "f" and itemsize not in _FLOATS) or (kind == "c" and itemsize not in (8, 16)):
        raise ValueError(f"no search for dtype kind {kind!r} of {itemsize} bytes")
    for suffix, right, wide, found in SEARCH_ENTRIES:
        _build_search_entry(module, target, entry + suffix, kind, itemsize, right, wide, found)


def _build_search_entry(module, target, name, kind, itemsize, right, wide, found):
    k = _Builder(module, target, name, "search")
    b, p = k.b, k.p
    PT = I64 if wide else I32
    if kind == "c":
        FT = _FLOATS[itemsize // 2]
        part = itemsize // 2

        def element(base, at, read_only):
            two = b.mul(at, k.c64(2))
            return (k.load(base, two, FT, part, read_only), k.load(base, b.add(two, k.c64(1)), FT, part, read_only))
    else:
        ET = _FLOATS[itemsize] if kind == "f" else ir.IntType(8 * itemsize)

        def element(base, at, read_only):
            v = k.load(base, at, ET, itemsize, read_only)
            # (half compared as float: exact, and no target needs half comparisons)
            return b.fpext(v, ir.FloatType()) if itemsize == 2 and kind == "f" else v

    def lt(x, y):
        """x sorts before y (NaN last; complex numbers in NumPy's order)."""
        if kind in "bu":
            return b.icmp_unsigned("<", x, y)
        if kind == "i":
            return b.icmp_signed("<", x, y)
        if kind == "f":
            return b.or_(b.fcmp_ordered("<", x, y),
                         b.and_(b.fcmp_unordered("uno", y, y), b.fcmp_ordered("ord", x, x)))
        # NumPy's order: R + Rj, R + nanj, nan + Rj, nan + nanj, each group lexicographic
        (xr, xi), (yr, yi) = x, y
        xi_num, yi_nan = b.fcmp_ordered("ord", xi, xi), b.fcmp_unordered("uno", yi, yi)
        imag_lt = b.or_(b.fcmp_ordered("<", xi, yi), b.and_(yi_nan, xi_num))
        both_nan = b.and_(b.fcmp_unordered("uno", xr, xr), b.fcmp_unordered("uno", yr, yr))
        same = b.or_(b.fcmp_ordered("==", xr, yr), both_nan)
        ret = b.select(same, imag_lt, b.fcmp_unordered("uno", yr, yr))
        ret = b.select(b.fcmp_ordered(">", xr, yr), b.and_(yi_nan, xi_num), ret)
        return b.select(b.fcmp_ordered("<", xr, yr), b.or_(xi_num, yi_nan), ret)

    def equal(x, y):
        """x == y as NumPy compares (NaN equals nothing, -0.0 equals +0.0)."""
        if kind in "biu":
            return b.icmp_unsigned("==", x, y)
        if kind == "f":
            return b.fcmp_ordered("==", x, y)
        return b.and_(b.fcmp_ordered("==", x[0], y[0]), b.fcmp_ordered("==", x[1], y[1]))

    def goes_past(am, v):
        return b.not_(lt(v, am)) if right else lt(am, v)

    def step(los, offset):
        """Each query moves past ``a[lo + offset]`` when it sorts after it; ``offset``: PT."""
        for s in los:
            lo = b.load(s, typ=PT)
            at = b.add(lo, offset)
            am = element(p["a"], b.zext(at, I64) if not wide else at, True)
            b.store(b.select(goes_past(am, qv[s]), b.add(lo, b.sub(offset, ir.Constant(PT, -1))), lo), s)

    loop, first = k.rounds(SEARCH_ITEMS)
    qs, los, qv = [], [], {}
    for u in range(SEARCH_ITEMS):
        i = b.add(first, b.add(k.c64(u * BLOCK), k.tid))
        ok = b.icmp_unsigned("<", i, p["n"])
        v = element(p["v"], b.select(ok, i, k.c64(0)), True)
        s = k.slot(PT)
        b.store(ir.Constant(PT, 0), s)
        qs.append((i, ok, s))
        los.append(s)
        qv[s] = v
    L = p["L"] if wide else b.trunc(p["L"], PT)
    len_slot = k.slot(PT)
    b.store(L, len_slot)
    fn = b.function
    head, body, tail = (fn.append_basic_block(s) for s in ("halve.head", "halve.body", "halve.tail"))
    b.branch(head)
    b.position_at_end(head)
    n = b.load(len_slot, typ=PT)
    b.cbranch(b.icmp_signed(">", n, ir.Constant(PT, 1)), body, tail)
    b.position_at_end(body)
    half = b.lshr(n, ir.Constant(PT, 1))
    # a[lo + half - 1] is the last of the lower half: past it, the query skips the half
    step(los, b.sub(half, ir.Constant(PT, 1)))
    b.store(b.sub(n, half), len_slot)
    b.branch(head)
    b.position_at_end(tail)
    k.if_then(b.icmp_signed("==", n, ir.Constant(PT, 1)), lambda: step(los, ir.Constant(PT, 0)))
    if found:
        invert = b.icmp_unsigned("!=", p["invert"], k.c64(0))
        for i, ok, s in qs:
            def write(i=i, s=s):
                lo = b.load(s, typ=PT)
                inside = b.icmp_signed("<", lo, L)
                at = b.select(inside, lo, ir.Constant(PT, 0))
                am = element(p["a"], b.zext(at, I64) if not wide else at, True)
                hit = b.and_(inside, equal(am, qv[s]))
                k.store(b.zext(b.xor(hit, invert), ir.IntType(8)), p["out"], i, ir.IntType(8), 1)
            # (an empty ``a`` holds nothing: the point is 0, never inside)
            k.if_then(ok, write)
    else:
        for i, ok, s in qs:
            k.if_then(ok, lambda i=i, s=s: k.store(b.zext(b.load(s, typ=PT), I64) if not wide else b.load(s, typ=PT),
                                                   p["out"], i, I64, 8))
    loop.close(b, b.add(loop.i, k.nblocks))
    b.ret_void()


# -- joining runs ---------------------------------------------------------------------------

def build_joins(module: ir.Module, target, entry: str) -> None:
    """Add a join for every unit of ``JOIN_UNITS`` to ``module``: ``entry`` moves the first
    (widest), ``entry + JOIN_SUFFIXES[k]`` the others.  One module for all: which unit a
    join takes depends on its arrays' sizes and addresses, and a new size compiles nothing."""
    for unit, suffix in zip(JOIN_UNITS, ("",) + JOIN_SUFFIXES):
        build_join(module, target, entry + suffix, unit)


def build_join(module: ir.Module, target, entry: str, unit: int) -> None:
    """Add the join of ``JOIN_PIECES`` contiguous runs into ``dst``, ``entry``, moving
    ``unit`` bytes at a time (one of ``JOIN_UNITS``: every run's address and size, and
    ``dst``'s address, must be multiples of it)."""
    UT = _element_type(unit)
    k = _Builder(module, target, entry, "join")
    b, p = k.b, k.p
    # per run, its source address less the units before it in ``dst``: unit ``i`` of the
    # run is at ``base[i]``, so the chain below selects one word, not an address and a start
    ends = [p[f"e{j}"] for j in range(JOIN_PIECES)]
    bases = [p["s0"]] + [b.sub(p[f"s{j}"], b.mul(ends[j - 1], k.c64(unit))) for j in range(1, JOIN_PIECES)]
    loop, first = k.rounds()
    fn = b.function
    whole_bb, tail_bb, next_bb = (fn.append_basic_block(s) for s in ("whole", "tail", "next"))
    # every round but the last is whole: its units copied with no test of ``n``
    b.cbranch(b.icmp_unsigned("<=", b.add(first, k.c64(BLOCK * ITEMS)), p["n"]), whole_bb, tail_bb)
    for bb, guarded in ((whole_bb, False), (tail_bb, True)):
        b.position_at_end(bb)
        items = []
        for u in range(ITEMS):
            i = b.add(first, b.add(k.c64(u * BLOCK), k.tid))
            ok = None
            if guarded:
                ok = b.icmp_unsigned("<", i, p["n"])
                i = b.select(ok, i, k.c64(0))  # (past the end: unit 0 read again, not written)
            base = bases[0]
            # the ends never decrease: the last run that starts at or before ``i`` holds it
            # (an empty run is passed over by the next; an unused one starts at ``n``)
            for j in range(1, JOIN_PIECES):
                base = b.select(b.icmp_unsigned(">=", i, ends[j - 1]), bases[j], base)
            items.append((i, ok, base))
        # every load of the round before its stores: ``ITEMS`` units in flight per thread
        values = [(i, ok, k.load(base, i, UT, unit, read_only=True)) for i, ok, base in items]
        for i, ok, v in values:
            if ok is None:
                k.store(v, p["dst"], i, UT, unit)
            else:
                k.if_then(ok, lambda i=i, v=v: k.store(v, p["dst"], i, UT, unit))
        b.branch(next_bb)
    b.position_at_end(next_bb)
    loop.close(b, b.add(loop.i, k.nblocks))
    b.ret_void()
