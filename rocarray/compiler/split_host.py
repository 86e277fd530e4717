"""The split sort's class pass on the host, built as LLVM IR: a line's elements written out
by class -- below, between or equal to a few boundary values, NaN -- each class in input
order, by SIMD compares and compresses (AVX-512's ``vcompressps`` / ``vpcompressq`` move a
vector's selected lanes side by side, stored by a masked store; so a class costs a compare,
a compress, a store and a popcount a vector, and the pass runs at about the copy's speed).

The ``K`` boundaries (``bounds``, sorted, at most ``KMAX``) each compare as ``v < s`` or,
where ``strict`` is 0, ``v <= s``; the comparisons of a value hold from some boundary on,
and its class is the first that holds (``K``: none, the values above every boundary; for
floats ``K + 1``: the NaNs, which no ordered comparison holds for).  So a value ``h`` of
its own class has the boundaries ``< h`` and ``<= h`` around it.

The entry ``void entry(ptr args, i64 start, i64 stop)`` runs items ``start .. stop``, item
``i`` the chunk of ``C`` elements (a multiple of a vector) at ``i * C`` of the line at
``a`` of ``n``; its parameters (``PARAMS``) are 64-bit words after the item count.  Each
item has ``slots(K)`` int64 words at ``counts + i * slots(K)``: one a class, then its
``-0.0`` and its NaNs with ``np.nan``'s bits (floats).  With ``place`` 0 the item counts
its elements of each class into them; with ``place`` 1 they hold where in ``out`` each of
its classes begins (-1: a class not written) and it writes them there, leaving where each
written class ends (and its ``-0.0`` and ``np.nan``s counted again).  One module per key
kind (``KINDS``), with an entry for each ``K`` up to ``KMAX`` (its classes' places kept in
registers; ``entries``); the sizes are run-time arguments.
"""

from __future__ import annotations

import struct

from llvmlite import ir

from ..targets.base import declare_function
from .gpu_ir import entry_slot, popcount, word_packer
from .index_ir import CountedLoop, opaque_pointer
from .reduction_ir import splat

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()

#: Bytes of a vector (its lanes: this over the element's size).
VECTOR_BYTES = 64
#: The most boundaries a pass takes (an entry for each count, its classes in registers).
KMAX = 8
#: The entry's parameters, after the item count.
PARAMS = ("a", "n", "C", "K", "bounds", "strict", "counts", "out", "place")
#: Element kinds: a letter (``f`` float, ``i`` signed, ``u`` unsigned) and the size in bytes.
KINDS = ("f4", "f8", "i4", "u4", "i8", "u8", "i2", "u2")
#: Changes with the code the module is built from (part of its cache key).
VERSION = 3
#: np.nan's bits, by size
_DEFAULT_NAN = {4: 0x7FC0_0000, 8: 0x7FF8_0000_0000_0000}


def lanes(kind: str) -> int:
    """Elements of a vector of ``kind``: chunks are multiples of it."""
    return VECTOR_BYTES // int(kind[1:])


def slots(K: int) -> int:
    """int64 words an item has in ``counts`` for ``K`` boundaries: ``K + 2`` classes (the NaNs'
    last, empty but for floats), its ``-0.0``, its ``np.nan``s."""
    return K + 4


def entry_suffix(K: int) -> str:
    """The suffix of the entry for ``K`` boundaries (``K`` 0: the entry itself)."""
    return f"_k{K}"


def entries() -> tuple:
    """The suffixes of the module's other entries: entry ``K`` (``launch_entry``'s index)
    takes ``K`` boundaries."""
    return tuple(entry_suffix(K) for K in range(1, KMAX + 1))


def packer() -> struct.Struct:
    return word_packer(len(PARAMS))


def build_split_module(module: ir.Module, target, entry: str, kind: str) -> None:
    """Add the class pass ``entry`` over elements of ``kind`` (``KINDS``) to ``module`` for
    the host ``target``."""
    if target.facts.emits_grid:
        raise ValueError(f"the split sort's class pass is built for the host, not for {target.name}")
    if kind not in KINDS:
        raise ValueError(f"the split sort's class pass takes elements of the kinds {KINDS}, not {kind!r}")
    _ClassPass(module, target, entry, kind).build()


class _ClassPass:
    def __init__(self, module, target, entry, kind):
        self.module, self.target, self.entry = module, target, entry
        self.letter, self.size = kind[0], int(kind[1:])
        self.floats = self.letter == "f"
        self.I = ir.IntType(8 * self.size)
        self.T = (ir.FloatType() if self.size == 4 else ir.DoubleType()) if self.floats else self.I
        self.W = lanes(kind)
        self.VT = ir.VectorType(self.T, self.W)
        self.MT = ir.VectorType(I1, self.W)
        name = f"v{self.W}{'f' if self.floats else 'i'}{8 * self.size}"
        # (compressed in a register, then stored by a masked store of its first lanes: the
        # store form of AVX-512's compress is reported far slower on AMD's Zen 4; not measured here)
        self.compress = declare_function(module, f"llvm.experimental.vector.compress.{name}",
                                         ir.FunctionType(self.VT, [self.VT, self.MT, self.VT]))
        self.masked_store = declare_function(module, f"llvm.masked.store.{name}.p0",
                                             ir.FunctionType(ir.VoidType(), [self.VT, PTR, I32, self.MT]))
        self.lane_ids = ir.Constant(ir.VectorType(I64, self.W), list(range(self.W)))
        self.masked_load = declare_function(module, f"llvm.masked.load.{name}.p0",
                                            ir.FunctionType(self.VT, [PTR, I32, self.MT, self.VT]))

    def c(self, v):
        return ir.Constant(I64, v)

    def below(self, b, v, s, strict):
        """``v < s`` where ``strict``, else ``v <= s``, lane by lane (ordered: never a NaN's)."""
        if self.floats:
            lt, le = b.fcmp_ordered("<", v, s), b.fcmp_ordered("<=", v, s)
        else:
            cmp = b.icmp_signed if self.letter == "i" else b.icmp_unsigned
            lt, le = cmp("<", v, s), cmp("<=", v, s)
        return b.select(strict, lt, le)

    def count(self, b, mask):
        return b.zext(popcount(b, b.bitcast(mask, ir.IntType(self.W))), I64)

    def build(self) -> None:
        for K in range(KMAX + 1):
            self.build_entry(self.entry if K == 0 else f"{self.entry}{entry_suffix(K)}", K)

    def build_entry(self, name: str, K: int) -> None:
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), name)
        self.target.mark_kernel(fn)
        args, start, stop = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        st = ir.LiteralStructType([I64] * (1 + len(PARAMS)))
        p = {name: b.load(b.gep(args, [ir.Constant(I32, 0), ir.Constant(I32, k + 1)], source_etype=st), typ=I64)
             for k, name in enumerate(PARAMS)}
        c = self.c
        self.a, self.out = b.inttoptr(p["a"], PTR), b.inttoptr(p["out"], PTR)
        bounds, strict = b.inttoptr(p["bounds"], PTR), b.inttoptr(p["strict"], PTR)
        self.K, self.place = K, b.icmp_unsigned("!=", p["place"], c(0))
        # the boundaries, splat, and how each compares
        self.bounds = [(splat(b, b.load(self.at(b, bounds, c(k)), typ=self.T), self.W),
                        b.icmp_unsigned("!=", b.load(b.gep(strict, [c(k)], source_etype=I8), typ=I8),
                                        ir.Constant(I8, 0))) for k in range(K)]
        counts = b.inttoptr(p["counts"], PTR)
        S = slots(K)
        # the item's running places (or counts), one a slot: stack slots LLVM keeps in registers
        self.pos = [entry_slot(b, I64) for _ in range(S)]
        n, C = p["n"], p["C"]
        items = CountedLoop(b, start, stop, "item")
        mine = [b.gep(counts, [b.add(b.mul(items.i, c(S)), c(k))], source_etype=I64) for k in range(S)]
        for k in range(S):  # (``place``: the classes' first places; the extra counts start from 0)
            b.store(b.select(self.place, b.load(mine[k], typ=I64), c(0)) if k < K + 2 else c(0), self.pos[k])
        lo = b.mul(items.i, C)
        hi = b.add(lo, C)
        hi = b.select(b.icmp_signed("<", hi, n), hi, n)
        full = b.sub(hi, b.urem(b.sub(hi, lo), c(self.W)))
        vectors = CountedLoop(b, lo, full, "vector")
        v = b.load(self.at(b, self.a, vectors.i), typ=self.VT, align=self.size)
        self.classes(b, v, None)
        vectors.close(b, b.add(vectors.i, c(self.W)))
        # the chunk's last part vector, its lanes past ``hi`` masked off
        tail = fn.append_basic_block("tail")
        done = fn.append_basic_block("done")
        b.cbranch(b.icmp_signed("<", full, hi), tail, done)
        b.position_at_end(tail)
        valid = b.icmp_signed("<", self.lane_ids, splat(b, b.sub(hi, full), self.W))
        v = b.call(self.masked_load, [self.at(b, self.a, full), ir.Constant(I32, self.size), valid,
                                      ir.Constant(self.VT, None)])
        self.classes(b, v, valid)
        b.branch(done)
        b.position_at_end(done)
        for k in range(S):
            b.store(b.load(self.pos[k], typ=I64), mine[k])
        items.close(b, b.add(items.i, c(1)))
        b.ret_void()

    def at(self, b, base, i):
        return b.gep(base, [i], source_etype=self.T)

    def classes(self, b, v, valid) -> None:
        """Count or write the vector ``v``'s lanes (those of ``valid``; None: all) by class."""
        live = valid if valid is not None else ir.Constant(self.MT, [1] * self.W)
        rest = live
        for k, (s, strict) in enumerate(self.bounds):
            holds = self.below(b, v, s, strict)
            self.one_class(b, v, k, b.and_(holds, rest))
            rest = b.and_(rest, b.not_(holds))
        K = self.K
        if self.floats:
            number = b.fcmp_ordered("ord", v, v)
            self.one_class(b, v, K, b.and_(rest, number))
            self.one_class(b, v, K + 1, b.and_(rest, b.not_(number)))
            bits = b.bitcast(v, ir.VectorType(self.I, self.W))
            for k, pattern in ((K + 2, 1 << (8 * self.size - 1)), (K + 3, _DEFAULT_NAN[self.size])):
                same = b.and_(b.icmp_unsigned("==", bits, ir.Constant(bits.type, [pattern] * self.W)), live)
                b.store(b.add(b.load(self.pos[k], typ=I64), self.count(b, same)), self.pos[k])
        else:
            self.one_class(b, v, K, rest)

    def one_class(self, b, v, k, mask) -> None:
        """Class ``k``'s lanes ``mask`` of ``v``: counted, or written at the class's next place
        (classes at -1 are not written)."""
        at = self.pos[k]
        p = b.load(at, typ=I64)
        count = self.count(b, mask)
        skip = b.and_(self.place, b.icmp_signed("<", p, self.c(0)))
        write = b.function.append_basic_block("write")
        after = b.function.append_basic_block("written")
        # (a vector with none of the class's lanes skips the compress, which takes dozens of
        # cycles on some CPUs: a class that is empty, or narrow, costs a compare a vector)
        some = b.icmp_unsigned("!=", count, self.c(0))
        b.cbranch(b.and_(b.and_(self.place, b.not_(skip)), some), write, after)
        b.position_at_end(write)
        packed = b.call(self.compress, [v, mask, ir.Constant(self.VT, ir.Undefined)])
        first = b.icmp_signed("<", self.lane_ids, splat(b, count, self.W))
        b.call(self.masked_store, [packed, self.at(b, self.out, p), ir.Constant(I32, self.size), first])
        b.branch(after)
        b.position_at_end(after)
        b.store(b.select(skip, p, b.add(p, count)), at)
