"""The host's sort of rows by a bitonic sorting network on SIMD vectors, built as LLVM IR:
every row of up to ``longest_row(kind)`` keys of 32 or 64 bits (65,536; 16,384 of 64-bit
integers), and of 8- and 16-bit integers and float16 from ``shortest_row(kind)`` on, in a buffer
of ``STACK_BYTES`` on the item's stack where it holds the row (``row_max``: 16,384 keys of
32 bits, 8,192 of 64), else in the row's part of a scratch array the caller passes.

A row's elements become keys that order as NumPy orders the values, padded with the
largest key to a power of two ``P`` of at least a vector.  Integers become signed integers
(unsigned ones offset by half their range; complemented when descending): a SIMD set may
lack unsigned 64-bit comparisons where it has signed ones (AVX2 has ``vpcmpgtq`` alone, and
an unsigned minimum takes two more instructions).  Floats stay floats, compared as floats
(one ``vminpd`` where 64-bit integers take a compare and a blend), negated when
descending; a NaN becomes the infinity that sorts last, and the runs of NaNs and zeros are
put back afterwards (below).  float16 values, which x86 compares only with AVX512-FP16,
become signed integers ordered as they are (the magnitude complemented where the sign is
set; a NaN the largest key; complemented when descending), with their NaNs' and zeros'
runs put back as the other floats'.  A row of 64-bit integers whose magnitudes are at most 2**53
goes through the network as doubles, which hold them exactly.
The network sorts the buffer as ``P / W`` vectors of ``W`` lanes (``VECTOR_BYTES`` a
vector), in the form whose every comparator puts the smaller key first:

* each vector alone, by the stages of sizes 2 .. ``W`` (lanes exchanged by shuffles);
* then for each size ``k`` from ``2 W`` to ``P``: the *mirror* stage (element ``i`` of a
  block of ``k`` against element ``k - 1 - i``: vectors against the lane-reversed vectors
  of the block's other end), the half-cleaners across vectors (``j`` from ``k / 4`` down
  to ``W``: vector against vector, no shuffle), then those within each vector.

Each block of ``register_block`` vectors (a row of fewer: the row) goes through every
stage up to its own size as straight-line code on values held in registers, and so does
the end of every longer size within each block (the half-cleaners of distances under a
block, then those within each vector); only the mirror stages and the longer distances
of the sizes above a block go through the buffer, a pair of vectors at a time.

The keys go back to values in the buffer and out to the row.  Integer keys are equal only
where the values are.  Float keys are also equal for ``-0.0`` and ``+0.0`` (whose order
the comparisons do not keep) and for NaNs and the infinity they became: where a row holds
a zero or a NaN, its input is read once more and those elements are written over their
runs in input order, so that the sort is stable as the standard asks (the runs' places
come from counts taken as the row is read; the infinities left beside the NaNs' run are
the row's own).

The entry ``void entry(ptr args, i64 start, i64 stop)`` sorts rows ``start .. stop`` of the
C-contiguous ``(rows, L)`` array at ``a`` into those of ``out`` (which may be ``a``); its
parameters (``PARAMS``) are 64-bit words after the item count.  The *argsort* entry
(``arg``) writes each row's stable order into the int64 ``out`` instead: for 32-bit elements
the network sorts 64-bit keys made of each element's key and its place (``_ArgNetwork``),
for 64-bit ones vectors of keys beside vectors of places, compared by key, then by place
(``_ArgPairNetwork``).  One module per key kind
(``KINDS``); lengths are run-time arguments, so a new length compiles nothing.
"""

from __future__ import annotations

import struct

from llvmlite import ir

from ..targets.base import declare_function
from .gpu_ir import entry_slot, word_packer
from .index_ir import CountedLoop, opaque_pointer

I1 = ir.IntType(1)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()

#: Bytes of one vector of the network (its lanes: ``VECTOR_BYTES`` over the key's size;
#: half for ``_ArgPairNetwork``, whose records are two vectors).
VECTOR_BYTES = 64
#: Bytes of the item's stack buffer, which holds the longest row the network sorts: a
#: buffer of this size stays well inside the stack of any thread that may run an item
#: (musl's threads have 128 KiB).  Rows up to that length sort faster here than through
#: the radix sort's row kernel (benchmarks/results/2026-12-03-cpu-network/).
STACK_BYTES = 1 << 16
#: The longest row the network sorts, by key kind (``KINDS``) and sort or argsort: rows
#: longer than its stack buffer holds (``row_max``) are sorted in a scratch array the
#: caller passes, ``P`` records a row.  Past 256 KiB of records the radix sort's passes
#: measured faster (the network's buffer no longer stays in the core's caches through its
#: passes), but for float64 sorts, which go on to 65,536: their keys vary in all eight of
#: the radix sort's digits, whose passes then cost more (rows of 20,000 to 65,536,
#: benchmarks/results/2026-12-03-cpu-float64-lines/; integer keys, whose range often
#: spares the radix sort digits, and argsorts measured mixed or slower with longer rows).
#: An argsort of 64-bit elements, whose comparisons cost the most, stops at its stack
#: buffer's 4,096 (rows of 5,000 took twice the radix sort's time).
#: Keys of 8 and 16 bits (64 and 32 lanes a vector) are sorted, not argsorted: their
#: argsort takes them widened to 32 bits (float16: to float32).
LINE_MAX = {
    ("f4", False): 1 << 16, ("i4", False): 1 << 16, ("u4", False): 1 << 16, ("f8", False): 1 << 16,
    ("i8", False): 1 << 14, ("u8", False): 1 << 14,
    ("i2", False): 1 << 16, ("u2", False): 1 << 16, ("i1", False): 1 << 16, ("u1", False): 1 << 16,
    ("f2", False): 1 << 16,
    ("f4", True): 1 << 14, ("i4", True): 1 << 14, ("u4", True): 1 << 14,
    ("f8", True): 1 << 12, ("i8", True): 1 << 12, ("u8", True): 1 << 12,
}
#: The shortest row of keys of 8 and 16 bits the network sorts as they are: a shorter row
#: pads to one vector of many more lanes than it fills, and sorts faster widened to 32
#: bits (16 lanes) (the callers widen it; rows of 16 of int16: 5.3 ms as they are, 4.0
#: widened; of 20: 4.9 and 5.1; of 24 of int8: 3.7 and 3.7, for 2^22 elements on the
#: 2-core VM, benchmarks/results/2026-12-05-cpu-stop60/).  float16, which has no wider
#: sort of its values (its argsort is float32's, and gathering the values by it cost more),
#: is sorted as it is from rows of 4 (rows of 2 and 3: the merge sort; 2-core VM,
#: benchmarks/results/2026-12-05-cpu-stop61/).
LINE_MIN = {"i2": 20, "u2": 20, "f2": 4, "i1": 24, "u1": 24}
#: The entry's parameters, after the item count.
PARAMS = ("a", "out", "L", "desc", "scratch")
#: Key kinds: a letter (``f`` float, ``i`` signed, ``u`` unsigned) and the size in bytes; the
#: network sorts and argsorts (``arg``) rows of each.
KINDS = ("f4", "i4", "u4", "f8", "i8", "u8", "i2", "u2", "f2", "i1", "u1")
#: Changes with the code the module is built from (part of its cache key).
VERSION = 9


def record_bytes(size: int, arg: bool = False) -> int:
    """Bytes of the buffer's record of an element of ``size`` bytes: its key; for an
    argsort its key and place (one 64-bit key for 32-bit elements, two words for 64-bit
    ones)."""
    return 2 * max(size, 4) if arg else size


def row_max(size: int) -> int:
    """The longest row of ``size``-byte records the network sorts in its stack buffer."""
    return STACK_BYTES // size


def longest_row(kind: str, arg: bool = False) -> int:
    """The longest row of keys of ``kind`` (``KINDS``) the network sorts (``arg``: argsorts;
    0: none)."""
    return LINE_MAX.get((kind, arg), 0)


def shortest_row(kind: str) -> int:
    """The shortest row of keys of ``kind`` (``KINDS``) the network sorts."""
    return LINE_MIN.get(kind, 2)


def scratch_bytes(rows: int, L: int, size: int) -> int:
    """Bytes of the scratch array for ``rows`` rows of ``L`` records of ``size`` bytes: none
    where the stack buffer holds a row, else ``P`` records a row (``P``: the power of two of
    at least ``L``)."""
    return 0 if L <= row_max(size) else rows * (1 << (L - 1).bit_length()) * size


def packer() -> struct.Struct:
    return word_packer(len(PARAMS))


def register_block(target) -> int:
    """Records of ``VECTOR_BYTES`` the network sorts in registers at once: eight take a
    quarter of AVX-512's registers; elsewhere four (half of AVX2's).  Sixteen measured
    5% faster than eight on AVX-512 but doubled the module's compile time, which grows with
    the straight-line code (benchmarks/results/2026-12-04-cpu-register-network/)."""
    return 8 if "+avx512f" in target.features.split(",") else 4


def build_network_module(module: ir.Module, target, entry: str, kind: str, arg: bool = False) -> None:
    """Add the entry ``entry`` sorting rows of keys of ``kind`` (``KINDS``; with ``arg``,
    the rows' stable ``argsort``) to ``module`` for the host ``target``."""
    if target.facts.emits_grid:
        raise ValueError(f"the sorting network is built for the host, not for {target.name}")
    if kind not in KINDS:
        raise ValueError(f"the sorting network {'argsorts' if arg else 'sorts'} keys of the kinds {KINDS}, "
                         f"not {kind!r}")
    if arg and longest_row(kind, True) == 0:
        raise ValueError(f"the sorting network argsorts keys of 32 and 64 bits, not {kind!r} (widen them)")
    cls = (_ArgNetwork if kind[1:] == "4" else _ArgPairNetwork) if arg else _Network
    cls(module, target, entry, kind).build()


class _Network:
    vector_bytes = VECTOR_BYTES

    def __init__(self, module, target, entry, kind):
        self.module, self.target, self.entry = module, target, entry
        self.letter, self.size = kind[0], int(kind[1:])
        self.floats = self.letter == "f"
        #: whether the keys are floats compared as floats (float16's keys are integers
        #: ordered as its values: the SIMD sets have no float16 comparisons below AVX512-FP16)
        self.float_keys = self.floats and self.size >= 4
        #: an element's bits, and its key (the float itself for floats)
        self.I = ir.IntType(8 * self.size)
        self.K = (ir.FloatType() if self.size == 4 else ir.DoubleType()) if self.float_keys else self.I
        self.W = self.vector_bytes // self.size
        self.VT = ir.VectorType(self.K, self.W)
        self.block = register_block(target)
        if not self.float_keys:
            name = f"v{self.W}i{8 * self.size}"
            pair = ir.FunctionType(self.VT, [self.VT, self.VT])
            self.smin = declare_function(module, f"llvm.smin.{name}", pair)
            self.smax = declare_function(module, f"llvm.smax.{name}", pair)
        self.top = ir.Constant(self.I, 1 << (8 * self.size - 1))
        self.ones = ir.Constant(self.I, (1 << (8 * self.size)) - 1)
        #: the largest key (the padding's)
        self.largest = ir.Constant(self.K, float("inf") if self.float_keys else (1 << (8 * self.size - 1)) - 1)
        #: bytes of an element of the input rows and of the output rows, of a record
        self.src_size = self.dst_size = self.record = self.size

    def k(self, v):
        return ir.Constant(self.I, v)

    # -- keys ----------------------------------------------------------------------------

    def key(self, b, element, desc):
        """The key of an element (its bits; for floats its value; for float16 its bits as a
        signed integer ordered as the values)."""
        if self.float_keys:  # (a NaN: the infinity sorted last, negated with the rest)
            nan = b.fcmp_unordered("uno", element, element)
            return b.select(desc, b.fneg(b.select(nan, self.largest, element)), b.select(nan, self.largest, element))
        flip = b.select(desc, self.ones, self.k(0))
        if self.floats:  # (a negative value's magnitude bits complemented; a NaN the largest key)
            nan, _, _ = self.classes(b, element)
            return b.xor(b.select(nan, self.largest, self.signed_order(b, element)), flip)
        return b.xor(element if self.letter == "i" else b.xor(element, self.top), flip)

    def value(self, b, key, desc):
        """The element whose key is ``key`` (a NaN's: not a NaN; its run is put back)."""
        if self.float_keys:
            return b.select(desc, b.fneg(key), key)
        flip = b.select(desc, self.ones, self.k(0))
        if self.floats:
            return self.signed_order(b, b.xor(key, flip))
        return b.xor(key, flip) if self.letter == "i" else b.xor(b.xor(key, flip), self.top)

    def signed_order(self, b, bits):
        """A float's ``bits`` as a signed integer ordered as its value (-0.0 just below
        +0.0), and back: the magnitude's bits complemented where the sign is set."""
        magnitude = self.k((1 << (8 * self.size - 1)) - 1)
        return b.xor(bits, b.and_(b.ashr(bits, self.k(8 * self.size - 1)), magnitude))

    def lo_hi(self, b, x, y):
        """The lane-wise smaller and larger of the records ``x`` and ``y`` (tuples of one
        vector of keys; floats: no NaNs here, and the order of zeros is put back afterwards,
        so ``x < y ? x : y`` may be one minimum instruction)."""
        (x,), (y,) = x, y
        if self.float_keys:
            fm = ("nnan", "nsz")
            return ((b.select(b.fcmp_ordered("<", x, y, flags=fm), x, y, flags=fm),),
                    (b.select(b.fcmp_ordered(">", x, y, flags=fm), x, y, flags=fm),))
        return (b.call(self.smin, [x, y]),), (b.call(self.smax, [x, y]),)

    # -- the network: records of ``W`` elements, a vector from each of ``self.bufs`` ------

    def buffers(self, b, buf, P) -> list:
        """The buffers of the row's records: the keys' at ``buf``."""
        return [buf]

    def vec_ptr(self, b, buf, v):
        return b.gep(buf, [b.mul(v, ir.Constant(I64, self.W))], source_etype=self.K)

    def load_vec(self, b, v):
        out = []
        for buf in self.bufs:
            x = b.load(self.vec_ptr(b, buf, v), typ=self.VT)
            x.align = self.vector_bytes
            out.append(x)
        return tuple(out)

    def store_vec(self, b, xs, v):
        for buf, x in zip(self.bufs, xs):
            b.store(x, self.vec_ptr(b, buf, v)).align = self.vector_bytes

    def shuffle(self, b, xs, lanes):
        mask = ir.Constant(ir.VectorType(I32, self.W), lanes)
        return tuple(b.shuffle_vector(x, ir.Constant(x.type, None), mask) for x in xs)

    def exchange(self, b, x, lanes):
        """One stage within the record ``x``: lane ``l`` against lane ``lanes[l]``, the
        smaller to the lower lane."""
        p = self.shuffle(b, x, lanes)
        lo, hi = self.lo_hi(b, x, p)
        lower = ir.Constant(ir.VectorType(I1, self.W), [int(l < m) for l, m in enumerate(lanes)])
        return tuple(b.select(lower, l, h) for l, h in zip(lo, hi))

    def within(self, b, x, k):
        """The stages of size ``k`` (the mirror, when ``k <= W``) and below within ``x``."""
        W = self.W
        if k <= W:
            x = self.exchange(b, x, [l ^ (k - 1) for l in range(W)])
        j = min(k, W) // 4 if k <= W else W // 2
        while j >= 1:
            x = self.exchange(b, x, [l ^ j for l in range(W)])
            j //= 2
        return x

    def pairs(self, b, count, body, name):
        """``body(q)`` for ``q`` in ``0 .. count`` (a run-time loop)."""
        loop = CountedLoop(b, ir.Constant(I64, 0), count, name)
        body(loop.i)
        loop.close(b, b.add(loop.i, ir.Constant(I64, 1)))

    def log2(self, b, v):
        """log2 of the power of two ``v``."""
        return b.sub(ir.Constant(I64, 63), b.call(self.ctlz, [v, ir.Constant(I1, 0)]))

    # -- the network in registers: a block of vectors as SSA values ----------------------

    def mirror_pair(self, b, x, y):
        """The mirror stage's comparators between the records ``x`` and ``y`` (lane ``l`` of
        ``x`` against lane ``W - 1 - l`` of ``y``): the smaller keys to ``x``."""
        reverse = [self.W - 1 - l for l in range(self.W)]
        lo, hi = self.lo_hi(b, x, self.shuffle(b, y, reverse))
        return lo, self.shuffle(b, hi, reverse)

    def merge_block(self, b, xs, d) -> list:
        """The half-cleaners of a level within the records ``xs`` (a block of a power of two):
        across records at distances ``d`` .. 1, then within each record."""
        xs = list(xs)
        while d >= 1:
            for g in range(0, len(xs), 2 * d):
                for r in range(g, g + d):
                    xs[r], xs[r + d] = self.lo_hi(b, xs[r], xs[r + d])
            d //= 2
        return [self.within(b, x, 2 * self.W) for x in xs]

    def sort_block(self, b, xs) -> list:
        """The whole network on the records ``xs`` (a power of two of them), in registers:
        each record alone, then every level up to ``len(xs)`` records."""
        xs = list(xs)
        k = 2
        while k <= self.W:
            xs = [self.within(b, x, k) for x in xs]
            k *= 2
        kv = 2
        while kv <= len(xs):
            for g in range(0, len(xs), kv):
                for r in range(kv // 2):
                    xs[g + r], xs[g + kv - 1 - r] = self.mirror_pair(b, xs[g + r], xs[g + kv - 1 - r])
            xs = self.merge_block(b, xs, kv // 4)
            kv *= 2
        return xs

    def in_registers(self, b, first, count, body) -> None:
        """Load the ``count`` records from record ``first``, replace them by ``body(xs)``
        and store them back."""
        c = lambda v: ir.Constant(I64, v)  # noqa: E731
        xs = [self.load_vec(b, b.add(first, c(i))) for i in range(count)]
        for i, x in enumerate(body(xs)):
            self.store_vec(b, x, b.add(first, c(i)))

    # -- the network ---------------------------------------------------------------------

    def network(self, b, vectors) -> None:
        """Sort the buffer's ``vectors`` vectors (a power of two).  Each block of ``block``
        vectors is sorted in registers, as is the end of every level within each block (the
        half-cleaners of distances under a block, and those within a vector): only a
        level's mirror stage and its longer distances go through the buffer, one pair of
        vectors at a time.  Rows of fewer vectors are sorted in registers whole, by one
        straight-line body for each power of two."""
        B = self.block
        c = lambda v: ir.Constant(I64, v)  # noqa: E731
        fn = b.function
        done = fn.append_basic_block("net.done")
        blocks_bb = fn.append_basic_block("net.blocks")
        small = [1 << i for i in range(B.bit_length() - 1)]
        switch = b.switch(vectors, blocks_bb)
        for v in small:
            case = fn.append_basic_block(f"net.small{v}")
            switch.add_case(c(v), case)
            b.position_at_end(case)
            self.in_registers(b, c(0), v, lambda xs: self.sort_block(b, xs))
            b.branch(done)
        b.position_at_end(blocks_bb)
        log_b = B.bit_length() - 1
        blocks = b.lshr(vectors, c(log_b))

        def each_block(merge):
            return lambda q: self.in_registers(b, b.shl(q, c(log_b)), B, merge)

        self.pairs(b, blocks, each_block(lambda xs: self.sort_block(b, xs)), "net.sort")
        # the levels above a block: a run-time loop over ``kv`` (the size in vectors)
        level = CountedLoop(b, c(2 * B), b.add(vectors, c(1)), "net.level")
        kv = level.i
        log_kv = self.log2(b, kv)
        log_half = b.sub(log_kv, c(1))

        def mirror(q):
            r = b.and_(q, b.sub(b.lshr(kv, c(1)), c(1)))
            group = b.shl(b.lshr(q, log_half), log_kv)
            lo_v, hi_v = b.add(group, r), b.sub(b.add(group, b.sub(kv, c(1))), r)
            lo, hi = self.mirror_pair(b, self.load_vec(b, lo_v), self.load_vec(b, hi_v))
            self.store_vec(b, lo, lo_v)
            self.store_vec(b, hi, hi_v)

        self.pairs(b, b.lshr(vectors, c(1)), mirror, "net.mirror")
        # half-cleaners across blocks: distance ``kv / 4`` down to ``B`` vectors
        d_loop = CountedLoop(b, c(0), b.sub(log_kv, c(log_b + 1)), "net.cross")
        log_d = b.sub(b.sub(log_kv, c(2)), d_loop.i)
        d = b.shl(c(1), log_d)

        def cross(q):
            lo_v = b.add(b.shl(b.lshr(q, log_d), b.add(log_d, c(1))), b.and_(q, b.sub(d, c(1))))
            hi_v = b.add(lo_v, d)
            lo, hi = self.lo_hi(b, self.load_vec(b, lo_v), self.load_vec(b, hi_v))
            self.store_vec(b, lo, lo_v)
            self.store_vec(b, hi, hi_v)

        self.pairs(b, b.lshr(vectors, c(1)), cross, "net.pairs")
        d_loop.close(b, b.add(d_loop.i, c(1)))
        self.pairs(b, blocks, each_block(lambda xs: self.merge_block(b, xs, B // 2)), "net.merge")
        level.close(b, b.shl(kv, c(1)))
        b.branch(done)
        b.position_at_end(done)

    # -- the entry -----------------------------------------------------------------------

    def build(self) -> None:
        module, target = self.module, self.target
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
        target.mark_kernel(fn)
        args, start, stop = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        st = ir.LiteralStructType([I64] * (1 + len(PARAMS)))
        p = {name: b.load(b.gep(args, [ir.Constant(I32, 0), ir.Constant(I32, k + 1)], source_etype=st), typ=I64)
             for k, name in enumerate(PARAMS)}
        buf_t = ir.ArrayType(self.K, STACK_BYTES // self.size)
        stack = opaque_pointer(b.alloca(buf_t))
        stack.align = VECTOR_BYTES
        c = lambda v: ir.Constant(I64, v)  # noqa: E731
        self.inf = self.k({2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}.get(self.size, 0))  # (floats)
        L = p["L"]
        desc = b.icmp_unsigned("!=", p["desc"], c(0))
        # P: the power of two of at least L and a vector; its vectors
        self.ctlz = declare_function(module, "llvm.ctlz.i64", ir.FunctionType(I64, [I64, I1]))
        width = b.sub(c(64), b.call(self.ctlz, [b.sub(L, c(1)), ir.Constant(I1, 0)]))
        P = b.shl(c(1), width)
        P = b.select(b.icmp_unsigned("<", P, c(self.W)), c(self.W), P)
        vectors = b.udiv(P, c(self.W))
        rows = CountedLoop(b, start, stop, "row")
        # the row's buffer: the stack's, or for rows longer than it holds the row's own part
        # of ``scratch`` (``P`` keys a row, from a multiple of the vector's bytes)
        heap = b.gep(b.inttoptr(p["scratch"], PTR), [b.mul(rows.i, b.mul(P, c(self.record)))],
                     source_etype=ir.IntType(8))
        self.buf = b.select(b.icmp_unsigned("!=", p["scratch"], c(0)), heap, stack)
        self.bufs = self.buffers(b, self.buf, P)
        at = b.mul(rows.i, L)
        src = b.gep(b.inttoptr(p["a"], PTR), [b.mul(at, c(self.src_size))], source_etype=ir.IntType(8))
        dst = b.gep(b.inttoptr(p["out"], PTR), [b.mul(at, c(self.dst_size))], source_etype=ir.IntType(8))
        self.row(b, src, dst, L, P, vectors, desc)
        rows.close(b, b.add(rows.i, c(1)))
        b.ret_void()

    def elem(self, b, ptr, i):
        return b.gep(ptr, [i], source_etype=self.K)

    def row(self, b, src, dst, L, P, vectors, desc) -> None:
        """One row: its keys into the buffer (floats counted by class), padded to ``P``,
        sorted by the network, made back into values, zeros and NaNs put over their runs,
        written to ``dst``."""
        c = lambda v: ir.Constant(I64, v)  # noqa: E731
        if not self.floats:
            self.integer_row(b, src, dst, L, P, vectors, desc)
            return
        # the keys and the counts that place the zeros' and NaNs' runs
        tallies = [entry_slot(b, I64) for _ in range(3)]
        for t in tallies:
            b.store(c(0), t)
        read = CountedLoop(b, c(0), L, "row.read")
        bits = b.load(self.elem(b, src, read.i), typ=self.I)
        b.store(self.key(b, b.bitcast(bits, self.K) if self.float_keys else bits, desc), self.elem(b, self.buf, read.i))
        is_nan, is_zero, negative = self.classes(b, bits)
        for t, flag in zip(tallies, (is_nan, is_zero, negative)):
            b.store(b.add(b.load(t, typ=I64), b.zext(flag, I64)), t)
        read.close(b, b.add(read.i, c(1)))
        self.pad(b, L, P)
        self.network(b, vectors)
        nans, zeros, negatives = (b.load(t, typ=I64) for t in tallies)
        special = b.icmp_unsigned("!=", b.or_(nans, zeros), c(0))
        fix_bb, plain_bb, done_bb = (b.function.append_basic_block(n) for n in ("row.fix", "row.plain", "row.done"))
        b.cbranch(special, fix_bb, plain_bb)
        # a row of neither: its values straight out
        b.position_at_end(plain_bb)
        out = CountedLoop(b, c(0), L, "row.out")
        b.store(self.value(b, b.load(self.elem(b, self.buf, out.i), typ=self.K), desc), self.elem(b, dst, out.i))
        out.close(b, b.add(out.i, c(1)))
        b.branch(done_bb)
        b.position_at_end(fix_bb)
        back = CountedLoop(b, c(0), L, "row.values")
        at = self.elem(b, self.buf, back.i)
        b.store(self.value(b, b.load(at, typ=self.K), desc), at)
        back.close(b, b.add(back.i, c(1)))
        # zeros and NaNs over their runs in input order (stable: -0.0 and +0.0 are equal,
        # NaNs keep their bits); ascending: negatives, zeros, positives, NaNs; descending:
        # NaNs, positives, zeros, negatives (the NaNs' run holds infinities until then)
        positives = b.sub(b.sub(b.sub(L, nans), zeros), negatives)
        zero_at, nan_at = entry_slot(b, I64), entry_slot(b, I64)
        b.store(b.select(desc, b.add(nans, positives), negatives), zero_at)
        b.store(b.select(desc, c(0), b.sub(L, nans)), nan_at)
        fix = CountedLoop(b, c(0), L, "row.runs")
        bits = b.load(self.elem(b, src, fix.i), typ=self.I)
        is_nan, is_zero, _ = self.classes(b, bits)
        for flag, slot in ((is_zero, zero_at), (is_nan, nan_at)):
            then_bb, next_bb = (b.function.append_basic_block(n) for n in ("row.put", "row.next"))
            b.cbranch(flag, then_bb, next_bb)
            b.position_at_end(then_bb)
            k = b.load(slot, typ=I64)
            b.store(bits, self.elem(b, self.buf, k))
            b.store(b.add(k, c(1)), slot)
            b.branch(next_bb)
            b.position_at_end(next_bb)
        fix.close(b, b.add(fix.i, c(1)))
        out = CountedLoop(b, c(0), L, "row.write")
        b.store(b.load(self.elem(b, self.buf, out.i), typ=self.I), self.elem(b, dst, out.i))
        out.close(b, b.add(out.i, c(1)))
        b.branch(done_bb)
        b.position_at_end(done_bb)

    def pad(self, b, L, P) -> None:
        """The buffer's places ``L .. P`` set to the largest key."""
        pad = CountedLoop(b, L, P, "row.pad")
        b.store(self.largest, self.elem(b, self.buf, pad.i))
        pad.close(b, b.add(pad.i, ir.Constant(I64, 1)))

    def integer_row(self, b, src, dst, L, P, vectors, desc) -> None:
        """One row of integers: their signed keys through the network.  A row of 64-bit
        integers whose magnitudes are at most 2**53 goes through the network as doubles
        instead (exact, and ordered as the integers; negated when descending): where a
        64-bit minimum takes a compare and a blend, a double's is one instruction."""
        c = lambda v: ir.Constant(I64, v)  # noqa: E731
        fn = b.function

        def through_keys():
            read = CountedLoop(b, c(0), L, "row.read")
            bits = b.load(self.elem(b, src, read.i), typ=self.I)
            b.store(self.key(b, bits, desc), self.elem(b, self.buf, read.i))
            read.close(b, b.add(read.i, c(1)))
            self.pad(b, L, P)
            self.network(b, vectors)
            out = CountedLoop(b, c(0), L, "row.write")
            key = b.load(self.elem(b, self.buf, out.i), typ=self.K)
            b.store(self.value(b, key, desc), self.elem(b, dst, out.i))
            out.close(b, b.add(out.i, c(1)))

        if self.size != 8:
            through_keys()
            return
        signed = self.letter == "i"
        lo, hi = entry_slot(b, I64), entry_slot(b, I64)
        b.store(c(0 if not signed else (1 << 63) - 1), lo)
        b.store(c(0 if not signed else -(1 << 63)), hi)
        scan = CountedLoop(b, c(0), L, "row.range")
        v = b.load(self.elem(b, src, scan.i), typ=I64)
        if signed:
            b.store(b.select(b.icmp_signed("<", v, b.load(lo, typ=I64)), v, b.load(lo, typ=I64)), lo)
            b.store(b.select(b.icmp_signed(">", v, b.load(hi, typ=I64)), v, b.load(hi, typ=I64)), hi)
        else:
            b.store(b.select(b.icmp_unsigned(">", v, b.load(hi, typ=I64)), v, b.load(hi, typ=I64)), hi)
        scan.close(b, b.add(scan.i, c(1)))
        exact = c(1 << 53)
        fits = b.icmp_unsigned("<=", b.load(hi, typ=I64), exact)
        if signed:
            fits = b.and_(b.icmp_signed(">=", b.load(lo, typ=I64), b.neg(exact)),
                          b.icmp_signed("<=", b.load(hi, typ=I64), exact))
        doubles_bb, keys_bb, done_bb = (fn.append_basic_block(n) for n in ("row.doubles", "row.keys", "row.done"))
        b.cbranch(fits, doubles_bb, keys_bb)
        b.position_at_end(keys_bb)
        through_keys()
        b.branch(done_bb)
        b.position_at_end(doubles_bb)
        # (the network's code emitted once more for doubles: its types swapped, then back)
        saved = self.K, self.VT, self.floats, self.float_keys, self.largest
        self.K = ir.DoubleType()
        self.VT = ir.VectorType(self.K, self.W)
        self.floats = self.float_keys = True
        self.largest = ir.Constant(self.K, float("inf"))
        read = CountedLoop(b, c(0), L, "row.read")
        v = b.load(self.elem(b, src, read.i), typ=I64)
        d = b.sitofp(v, self.K) if signed else b.uitofp(v, self.K)
        b.store(b.select(desc, b.fneg(d), d), self.elem(b, self.buf, read.i))
        read.close(b, b.add(read.i, c(1)))
        self.pad(b, L, P)
        self.network(b, vectors)
        out = CountedLoop(b, c(0), L, "row.write")
        d = b.load(self.elem(b, self.buf, out.i), typ=self.K)
        d = b.select(desc, b.fneg(d), d)
        b.store(b.fptosi(d, I64) if signed else b.fptoui(d, I64), self.elem(b, dst, out.i))
        out.close(b, b.add(out.i, c(1)))
        self.K, self.VT, self.floats, self.float_keys, self.largest = saved
        b.branch(done_bb)
        b.position_at_end(done_bb)

    def classes(self, b, bits):
        """(NaN, zero, negative and neither) of a float's ``bits``."""
        magnitude = b.and_(bits, self.k((1 << (8 * self.size - 1)) - 1))
        is_nan = b.icmp_unsigned(">", magnitude, self.inf)
        is_zero = b.icmp_unsigned("==", magnitude, self.k(0))
        negative = b.and_(b.icmp_signed("<", bits, self.k(0)), b.not_(b.or_(is_nan, is_zero)))
        return is_nan, is_zero, negative


class _ArgNetwork(_Network):
    """The stable ``argsort`` of rows of 32-bit elements: each element's key (both zeros one
    key, every NaN the largest; complemented when descending) in the high half of a 64-bit
    key, its place in the row in the low half, so that the network's order is the stable
    order and no element is ever equal to another; the places go out as int64."""

    def __init__(self, module, target, entry, kind):
        super().__init__(module, target, entry, "u8")
        self.elem_letter = kind[0]
        self.E = ir.IntType(32)
        self.src_size, self.dst_size = 4, 8

    def element_key(self, b, bits):
        """The 32-bit key of an element's ``bits``: equal for equal values."""
        E = self.E
        top = ir.Constant(E, 1 << 31)
        if self.elem_letter == "u":
            return bits
        if self.elem_letter == "i":
            return b.xor(bits, top)
        magnitude = b.and_(bits, ir.Constant(E, (1 << 31) - 1))
        nan = b.icmp_unsigned(">", magnitude, ir.Constant(E, 0x7F800000))
        zero = b.icmp_unsigned("==", magnitude, ir.Constant(E, 0))
        flip = b.or_(b.ashr(bits, ir.Constant(E, 31)), top)
        key = b.select(zero, top, b.xor(bits, flip))
        return b.select(nan, ir.Constant(E, (1 << 32) - 1), key)

    def row(self, b, src, dst, L, P, vectors, desc) -> None:
        c = lambda v: ir.Constant(I64, v)  # noqa: E731
        flip = b.select(desc, ir.Constant(self.E, (1 << 32) - 1), ir.Constant(self.E, 0))
        read = CountedLoop(b, c(0), L, "arg.read")
        bits = b.load(b.gep(src, [read.i], source_etype=self.E), typ=self.E)
        key = b.zext(b.xor(self.element_key(b, bits), flip), I64)
        # (the 64-bit key signed: its high bit flipped)
        b.store(b.xor(b.or_(b.shl(key, c(32)), read.i), self.top), self.elem(b, self.buf, read.i))
        read.close(b, b.add(read.i, c(1)))
        pad = CountedLoop(b, L, P, "arg.pad")  # (after every element: the largest key and place)
        b.store(self.largest, self.elem(b, self.buf, pad.i))
        pad.close(b, b.add(pad.i, c(1)))
        self.network(b, vectors)
        out = CountedLoop(b, c(0), L, "arg.write")
        place = b.and_(b.load(self.elem(b, self.buf, out.i), typ=I64), c((1 << 32) - 1))
        b.store(place, b.gep(dst, [out.i], source_etype=I64))
        out.close(b, b.add(out.i, c(1)))


class _ArgPairNetwork(_Network):
    """The stable ``argsort`` of rows of 64-bit elements: a vector of keys (``_Network``'s)
    beside a vector of their places, compared by key, then by place, so that the network's
    order is the stable order and no record is ever equal to another.  For floats the
    places are doubles (exact: rows are far shorter than 2**53), compared with the keys'
    instructions; a NaN's key is the infinity sorted last (first when descending), and its
    place is moved past the row's (before it when descending), so that the NaNs follow
    the infinities (precede them), each in input order.  The places go out as int64.
    A vector of keys and one of places take one register each on AVX2 (a mask of four
    lanes: wider vectors have their masks packed and unpacked between the halves)."""

    vector_bytes = VECTOR_BYTES // 2

    def __init__(self, module, target, entry, kind):
        super().__init__(module, target, entry, kind)
        self.record = 2 * self.size
        self.dst_size = 8

    def buffers(self, b, buf, P) -> list:
        return [buf, b.gep(buf, [P], source_etype=self.K)]  # (the places after the row's keys)

    def lo_hi(self, b, x, y):
        (kx, px), (ky, py) = x, y
        cmp = b.fcmp_ordered if self.floats else b.icmp_signed
        first = b.or_(cmp("<", kx, ky), b.and_(cmp("==", kx, ky), cmp("<", px, py)))
        return ((b.select(first, kx, ky), b.select(first, px, py)),
                (b.select(first, ky, kx), b.select(first, py, px)))

    def row(self, b, src, dst, L, P, vectors, desc) -> None:
        c = lambda v: ir.Constant(I64, v)  # noqa: E731
        keys, places = self.bufs
        read = CountedLoop(b, c(0), L, "arg.read")
        element = b.bitcast(b.load(self.elem(b, src, read.i), typ=self.I), self.K)
        b.store(self.key(b, element, desc), self.elem(b, keys, read.i))
        place = read.i
        if self.floats:
            shift = b.select(b.fcmp_unordered("uno", element, element), b.select(desc, b.neg(L), L), c(0))
            place = b.sitofp(b.add(place, shift), self.K)
        b.store(place, self.elem(b, places, read.i))
        read.close(b, b.add(read.i, c(1)))
        pad = CountedLoop(b, L, P, "arg.pad")  # (after every element: the largest key and place)
        b.store(self.largest, self.elem(b, keys, pad.i))
        b.store(self.largest, self.elem(b, places, pad.i))
        pad.close(b, b.add(pad.i, c(1)))
        self.network(b, vectors)
        out = CountedLoop(b, c(0), L, "arg.write")
        place = b.load(self.elem(b, places, out.i), typ=self.K)
        if self.floats:  # (a NaN's place back into the row)
            place = b.fptosi(place, I64)
            place = b.select(b.icmp_signed("<", place, c(0)), b.add(place, L),
                             b.select(b.icmp_signed(">=", place, L), b.sub(place, L), place))
        b.store(place, b.gep(dst, [out.i], source_etype=I64))
        out.close(b, b.add(out.i, c(1)))
