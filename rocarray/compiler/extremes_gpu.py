"""The GPU kernels of an integer array's smallest and largest key (the radix sort's key
range, ``isin``'s and the counting sort's value range), written where the host reads them
as they land, built as LLVM IR.

A key is the element's bits widened to 64 with ``flip`` (the sign bit, for signed types)
toggled: unsigned keys order as the values do.  One module per element size (``SIZES``)
holds two entries; sizes are run-time parameters (each one 64-bit word, ``PARAMS``):

* ``entry`` (*fold*): each block folds its share of the ``n`` elements (``step`` elements
  apart: any stride) into the smallest and largest key, ``UNROLL`` loads in flight a
  thread, the grid striding over them, and writes its two keys at ``partials[2 * block]``;
* ``entry_f`` (*final*, one block): folds the ``n`` blocks' keys and writes the smallest
  at ``lo``, the largest at ``hi`` and then, after a system-wide fence, 1 at ``done``:
  three words of host memory mapped into the device, read by the host as soon as
  ``done`` lands (no copy back; the fence makes the two keys visible before it).
"""

from __future__ import annotations

import struct

from llvmlite import ir

from .abi import I64
from .gpu_ir import KernelIR, entry_slot, shared_array, word_packer
from .index_ir import CountedLoop
from .reduction_abi import EntryParams

I32 = ir.IntType(32)

#: Threads of every block; loads in flight per thread in the fold's loop.
BLOCK = 256
UNROLL = 8
#: The parameters of each entry (after the leading item count ``n``), in order.
PARAMS = {"": ("x", "step", "flip", "partials"), "_f": ("partials", "lo", "hi", "done")}
ENTRIES = ("", "_f")
#: Element sizes in bytes.
SIZES = (1, 2, 4, 8)
#: Changes with the code these kernels are built from (part of their cache key).
VERSION = 1


def packer(suffix: str) -> struct.Struct:
    """The packing of entry ``suffix``'s parameters: ``n`` then ``PARAMS[suffix]``."""
    return word_packer(len(PARAMS[suffix]))


def build_extremes_module(module: ir.Module, target, entry: str, size: int) -> None:
    """Add the entries ``entry + s`` for ``s`` in ``ENTRIES`` to ``module`` for elements of
    ``size`` bytes (``SIZES``) on the GPU ``target``."""
    facts = target.facts
    if not facts.emits_grid or facts.wave_size < 2 or BLOCK % facts.wave_size:
        raise ValueError(f"the GPU extremes need a GPU target with waves; {target.name} has none")
    if size not in SIZES:
        raise ValueError(f"the GPU extremes read elements of {SIZES} bytes, not {size}")
    waves = shared_array(module, target, f"{entry}_waves", I64, 2 * (BLOCK // facts.wave_size), 8)
    for suffix in ENTRIES:
        _Kernel(module, target, entry + suffix, suffix, size, waves).build()


class _Kernel(KernelIR):
    def __init__(self, module, target, name, suffix, size, waves):
        self.module, self.target, self.name, self.suffix, self.size = module, target, name, suffix, size
        self.waves = waves
        self.W = target.facts.wave_size
        self.NW = BLOCK // self.W
        self.gspace = ir.PointerType(addrspace=target.facts.global_address_space)

    def build(self) -> None:
        target = self.target
        names = ("n",) + PARAMS[self.suffix]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64] * len(names)), self.name)
        target.mark_kernel(fn)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(target, b, list(fn.args), [I64] * len(names))
        self.p = {name: params.value(b, k) for k, name in enumerate(names)}
        self.tid = target.emit_thread_in_block(b)
        self.lane = b.urem(self.tid, self.c64(self.W))
        self.wave = b.udiv(self.tid, self.c64(self.W))
        (self.build_final if self.suffix == "_f" else self.build_fold)(b)
        b.ret_void()

    # -- pieces ---------------------------------------------------------------------------

    def fold(self, b, lo, hi, other_lo, other_hi, inside=None):
        """(lo, hi) with the pair (``other_lo``, ``other_hi``) folded in (where ``inside``)."""
        take_lo, take_hi = b.icmp_unsigned("<", other_lo, lo), b.icmp_unsigned(">", other_hi, hi)
        if inside is not None:
            take_lo, take_hi = b.and_(inside, take_lo), b.and_(inside, take_hi)
        return b.select(take_lo, other_lo, lo), b.select(take_hi, other_hi, hi)

    def shuffle_down64(self, b, v, d):
        t = self.target
        low = t.emit_shuffle_down(b, b.trunc(v, I32), d)
        high = t.emit_shuffle_down(b, b.trunc(b.lshr(v, self.c64(32)), I32), d)
        return b.or_(b.zext(low, I64), b.shl(b.zext(high, I64), self.c64(32)))

    def wave_slot(self, b, k):
        p = b.gep(self.waves, [self.c64(0), k], source_etype=self.waves.value_type)
        p.type = ir.PointerType(addrspace=self.target.facts.shared_address_space)
        return p

    def block_fold(self, b, lo, hi):
        """The block's (lo, hi), in thread 0 (every thread must call it)."""
        t = self.target
        d = self.W // 2
        while d:  # (each wave's in its lane 0; lanes past the wave's end are never read)
            lo, hi = self.fold(b, lo, hi, self.shuffle_down64(b, lo, d), self.shuffle_down64(b, hi, d))
            d //= 2
        first_lane = b.icmp_unsigned("==", self.lane, self.c64(0))

        def put():
            b.store(lo, self.wave_slot(b, b.mul(self.wave, self.c64(2))))
            b.store(hi, self.wave_slot(b, b.add(b.mul(self.wave, self.c64(2)), self.c64(1))))

        self.if_then(b, first_lane, put)
        t.emit_barrier(b)
        for w in range(1, self.NW):
            lo, hi = self.fold(b, lo, hi, b.load(self.wave_slot(b, self.c64(2 * w)), typ=I64),
                               b.load(self.wave_slot(b, self.c64(2 * w + 1)), typ=I64))
        return lo, hi

    def folded_loop(self, b, first, stride, limit, each):
        """(lo, hi) over the pairs ``each(b, i) -> (lo, hi)`` for ``i`` in ``first, first + stride,
        ... < limit``, ``UNROLL`` of them a trip (the loads together, then the folds)."""
        lo_slot, hi_slot = entry_slot(b, I64), entry_slot(b, I64)
        b.store(self.c64(-1), lo_slot)
        b.store(self.c64(0), hi_slot)
        loop = CountedLoop(b, first, limit, "fold")
        got = []
        for u in range(UNROLL):
            i = b.add(loop.i, b.mul(stride, self.c64(u)))
            inside = b.icmp_signed("<", i, limit)
            got.append((each(b, b.select(inside, i, self.c64(0))), inside))
        lo, hi = b.load(lo_slot, typ=I64), b.load(hi_slot, typ=I64)
        for (a, z), inside in got:
            lo, hi = self.fold(b, lo, hi, a, z, inside)
        b.store(lo, lo_slot)
        b.store(hi, hi_slot)
        loop.close(b, b.add(loop.i, b.mul(stride, self.c64(UNROLL))))
        return b.load(lo_slot, typ=I64), b.load(hi_slot, typ=I64)

    # -- the entries ----------------------------------------------------------------------

    def build_fold(self, b) -> None:
        p, t = self.p, self.target
        ty = ir.IntType(8 * self.size)
        block = t.emit_block_id(b)
        stride = b.mul(t.emit_block_count(b), self.c64(BLOCK))

        def key(b, i):
            v = b.load(self.gptr(b, p["x"], b.mul(i, p["step"]), ty), typ=ty)
            k = b.xor(b.zext(v, I64) if self.size < 8 else v, p["flip"])
            return k, k

        lo, hi = self.folded_loop(b, b.add(b.mul(block, self.c64(BLOCK)), self.tid), stride, p["n"], key)
        lo, hi = self.block_fold(b, lo, hi)

        def write():
            b.store(lo, self.gptr(b, p["partials"], b.mul(block, self.c64(2)), I64))
            b.store(hi, self.gptr(b, p["partials"], b.add(b.mul(block, self.c64(2)), self.c64(1)), I64))

        self.if_then(b, b.icmp_unsigned("==", self.tid, self.c64(0)), write)

    def build_final(self, b) -> None:
        p = self.p

        def pair(b, i):
            at = b.mul(i, self.c64(2))
            return (b.load(self.gptr(b, p["partials"], at, I64), typ=I64),
                    b.load(self.gptr(b, p["partials"], b.add(at, self.c64(1)), I64), typ=I64))

        lo, hi = self.folded_loop(b, self.tid, self.c64(BLOCK), p["n"], pair)
        lo, hi = self.block_fold(b, lo, hi)

        def write():
            b.store(lo, self.gptr(b, p["lo"], self.c64(0), I64))
            b.store(hi, self.gptr(b, p["hi"], self.c64(0), I64))
            b.fence("seq_cst")  # (system scope: both keys reach the host before ``done``)
            b.store(self.c64(1), self.gptr(b, p["done"], self.c64(0), I64))

        self.if_then(b, b.icmp_unsigned("==", self.tid, self.c64(0)), write)
