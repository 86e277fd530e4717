"""The reduction and scan kernels' ABI: modes, parameters, record layout and tile widths.

The launcher (``rocarray._reduction``) packs what these describe; every entry reads its
parameters through ``EntryParams``.
"""

from __future__ import annotations

from llvmlite import ir

from ..targets.base import MAX_DIMS
from .abi import DIMS, I8, I64, PTR, load_parameter
from .index_ir import spill

#: The ``mode`` argument's bits (docs/architecture.md, "Reductions and scans").
MODE_COOP = 1
MODE_RECORDS = 2
MODE_TILE = 4
MODE_WAVE = 8
#: scan entries: the chunk totals are not scanned; each chunk folds those of the chunks
#: before it (few chunks: one launch less than scanning them)
MODE_UNSCANNED = 16
#: GPU wave modes, one item per wave, one line: the elements entry also writes, as record
#: ``n_items + k``, the fold of block ``k``'s chunk totals (its waves' items, in order); a
#: scan entry with ``MODE_UNSCANNED`` folds the records of the groups before its chunk's,
#: then the totals of the chunks before it in its group (no launch scans the totals)
MODE_GROUPS = 32

#: GPU vector loads over a contiguous run: at most this many bytes and elements each.
VECTOR_BYTES = 16
VECTOR_ELEMENTS = 4
#: GPU wave scans (``MODE_WAVE`` in a scan entry): wave-wide steps per trip, their loads
#: issued together (more memory requests in flight per wave).
SCAN_UNROLL = 4
#: Adjacent outputs one host item folds together in tiled mode.
TILE = 1024


def gpu_tile_width(in_dtypes) -> int:
    """Adjacent outputs per thread in the GPU tiled mode: one 16-byte vector of the widest
    input (at most ``VECTOR_ELEMENTS``); 1 (no tiled mode) for complex inputs."""
    if not in_dtypes or any(d.kind == "c" for d in in_dtypes):
        return 1
    return max(1, min(VECTOR_ELEMENTS, VECTOR_BYTES // max(d.itemsize for d in in_dtypes)))


def record_layout(dtypes) -> tuple[tuple[int, ...], int]:
    """Byte offsets of the fields and the record size (natural alignment, as LLVM lays out
    the literal struct on every target)."""
    offsets, pos, align = [], 0, 1
    for dt in dtypes:
        a = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize
        pos = (pos + a - 1) // a * a
        offsets.append(pos)
        pos += dt.itemsize
        align = max(align, a)
    return tuple(offsets), (pos + align - 1) // align * align


def reduction_param_types(n_inputs: int, n_outputs: int) -> list:
    return ([I64] * 5 + [I64, DIMS, I64, DIMS, I64] + [PTR, DIMS, DIMS] * n_inputs
            + [PTR, DIMS] * n_outputs + [PTR])


def scan_param_types(n_inputs: int, n_outputs: int) -> list:
    """Parameters of a scan entry: those of a reduction, with every output also strided
    along the scanned dimension, then ``include_initial``."""
    return ([I64] * 5 + [I64, DIMS, I64, DIMS, I64] + [PTR, DIMS, DIMS] * n_inputs
            + [PTR, DIMS, DIMS] * n_outputs + [PTR, I64])


class EntryParams:
    """Where a reduction entry reads its parameters (GPU entries of both tiers, the host's
    quick tier), as the elementwise quick tier does (``skeletons._SimpleParams``): at the
    launcher's offsets in the target's parameter buffer, in the block that uses them
    (AMDGPU's kernarg segment, the host's argument struct); else the kernel's arguments,
    shapes and strides behind the pointer parameters of ``dims_parameter_type`` (NVPTX:
    ``byval``, read with ``ld.param``) -- no copy into private or local memory; else by
    value, copied once to the stack."""

    def __init__(self, target, b, args, types, buffer=None):
        self.args = args
        self.types = types
        self.offsets, pos = [], 0
        for t in types:  # every field is 8-byte aligned (reduction_param_types)
            self.offsets.append(pos)
            pos += 8 * MAX_DIMS if t == DIMS else 8
        # (the host passes its parameters as a pointer to the packed struct: ``buffer``)
        self.buffer = buffer if buffer is not None else target.emit_parameter_buffer(b)
        self.slots = {}
        if self.buffer is None:
            for k, a in enumerate(args):
                if isinstance(a.type, ir.ArrayType):
                    self.slots[k] = spill(b, a, DIMS)

    def value(self, b, k):
        """Parameter ``k`` (an integer or a pointer)."""
        if self.buffer is None:
            return self.args[k]
        return load_parameter(b, self.buffer, self.offsets[k], self.types[k])

    def dims(self, b, k):
        """A pointer to the shape or strides parameter ``k`` (``[MAX_DIMS x i64]``), where
        it lies: in the parameter buffer, behind the by-reference argument, or in the
        stack copy."""
        if self.buffer is not None:
            return b.gep(self.buffer, [ir.Constant(I64, self.offsets[k])], source_etype=I8)
        return self.slots.get(k, self.args[k])

    def dim(self, b, k, d):
        """Element ``d`` (an i64 value) of the shape or strides parameter ``k``."""
        if self.buffer is not None:
            return load_parameter(b, self.buffer, self.offsets[k], I64, d)
        if k in self.slots:
            p = self.slots[k]
        else:
            p = self.args[k]
        return b.load(b.gep(p, [d], source_etype=I64), typ=I64, align=8)
