"""The bytecode compiler: a scalar body's LLVM IR (llvmlite objects) to the interpreter's bytecode.

The prologue runs once per thread (constants into slots, scalar and raw-array parameters
copied onto the thread's stack); the body once per element.
"""

from __future__ import annotations

import heapq
import struct

import numpy as np
from llvmlite import ir

from .abi import RAW_BYTES, param_offsets
from .bytecode import (FLOAT_BINOPS, INSTR_WORDS, INT_BINOPS, MAGIC, PARAMS_AT, SLOTS, STACK_BYTES, InstructionSet,
                       NotInterpretable, field_offset, float_name, is_pair, scalar_name, size_align)


class _TooManyLive(NotInterpretable):
    """More values live at one point than there are slots (``compile_body`` tries again
    with the constants written where they are used)."""


class _Code:
    """Bytecode being written: instructions, labels, slots and the stack frame."""

    def __init__(self, iset: InstructionSet):
        self.op = iset.code
        self.externals = iset.externals
        self.prologue: list = []
        self.body: list = []
        self.next_slot = 0
        self.stack = 0
        self.consts: dict = {}
        self.labels: dict = {}     # label -> index in body
        self.inlining: list = []
        self.stubs: list = []      # edges whose phi moves are still to be written
        self.frames = 0
        self.placeholders = frozenset()  # declared functions whose calls are left open
        # constants written where they are used (a slot each time) rather than once in the
        # prologue, where each keeps a slot for the whole body: for bodies whose constants
        # alone would leave too few slots (``compile_body``'s second try)
        self.inline_consts = False

    def slot(self, n: int = 1) -> int:
        """``n`` new (virtual) slots: ``_allocate`` maps them onto the ``SLOTS`` there are."""
        s = self.next_slot
        self.next_slot += n
        return s

    def frame(self, size: int, align: int) -> int:
        align = max(align, 8)
        self.stack += (-self.stack) % align
        off = self.stack
        self.stack += size
        if self.stack > STACK_BYTES:
            raise NotInterpretable(f"more than {STACK_BYTES} bytes of locals")
        return off

    def emit(self, name: str, d=0, a=0, b=0, c=0) -> None:
        code = self.op.get(name)
        if code is None:
            raise NotInterpretable(f"operation {name}")
        self.body.append([code, d, a, b, c])

    def const_bits(self, bits: int) -> int:
        bits &= (1 << 64) - 1
        if self.inline_consts:
            s = self.slot()
            self.body.append([self.op["const"], s, _i32(bits & 0xFFFFFFFF), _i32(bits >> 32), 0])
            return s
        s = self.consts.get(bits)
        if s is None:
            s = self.consts[bits] = self.slot()
            lo, hi = bits & 0xFFFFFFFF, bits >> 32
            self.prologue.append([self.op["const"], s, _i32(lo), _i32(hi), 0])
        return s


def _i32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _bits(ty, value) -> int:
    """The bits of the constant ``value`` of scalar type ``ty`` as a slot holds them."""
    if value is None:
        return 0
    if isinstance(ty, ir.IntType):
        return int(value) & ((1 << ty.width) - 1)
    f = float_name(ty)
    if f == "f16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    if f == "f32":
        return int(np.array(value, dtype=np.float32).view(np.uint32))
    if f == "f64":
        return struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    if isinstance(ty, ir.PointerType):
        return int(value) if value else 0
    raise NotInterpretable(f"a constant of type {ty}")


class _Frame:
    """One function's values while its body is written (the body, or an inlined call)."""

    def __init__(self, code: _Code, fn: ir.Function, args: list, ret_slot, ret_label):
        self.code = code
        self.fn = fn
        self.values: dict = {}
        for a, s in zip(fn.args, args):
            self.values[id(a)] = s
        self.ret_slot = ret_slot
        self.ret_label = ret_label
        code.frames += 1
        self.tag = code.frames  # (each inlined call of a function has labels of its own)
        for bb in fn.blocks:
            for ins in bb.instructions:
                ty = ins.type
                if isinstance(ty, ir.VoidType) or isinstance(ins, ir.AllocaInstr):
                    continue  # (an alloca's slot is made where it is met: ``_instruction``)
                self.values[id(ins)] = code.slot(2 if is_pair(ty) else 1)

    def label(self, bb) -> tuple:
        return (self.tag, id(bb))

    def value(self, v) -> int:
        s = self.values.get(id(v))
        if s is not None:
            return s
        if isinstance(v, ir.Constant):
            return self._constant(v)
        raise NotInterpretable(f"operand {v!r}")

    def _constant(self, v) -> int:
        code = self.code
        ty = v.type
        if v.constant is ir.Undefined:
            s = code.slot(2 if is_pair(ty) else 1)
        elif is_pair(ty):
            parts = v.constant
            s = code.slot(2)
            for k in range(2):
                p = parts[k]
                c = code.const_bits(_bits(p.type, p.constant))
                (code.body if code.inline_consts else code.prologue).append([code.op["mov"], s + k, c, 0, 0])
        else:
            scalar_name(ty)
            s = code.const_bits(_bits(ty, v.constant))
        if not code.inline_consts:  # (written at this use only: another use writes its own)
            self.values[id(v)] = s
        return s


def compile_body(module: ir.Module, body: ir.Function, operands, iset: InstructionSet) -> bytes:
    """The bytecode of elementwise body ``body`` (in ``module``) over ``operands`` (the
    kernel's ``Operand`` list, in the body's parameter order); NotInterpretable when the
    interpreter cannot run it."""
    try:
        return _compile_body(module, body, operands, iset, inline_consts=False)
    except _TooManyLive:
        return _compile_body(module, body, operands, iset, inline_consts=True)


def _compile_body(module: ir.Module, body: ir.Function, operands, iset: InstructionSet, inline_consts: bool) -> bytes:
    code = _Code(iset)
    code.inline_consts = inline_consts
    if len(body.args) != len(operands) + 2:
        raise NotInterpretable("the body's parameters do not match the operands")
    offsets = param_offsets(operands)
    arrays = []
    args = []
    for op, off in zip(operands, offsets):
        s = code.slot()
        args.append(s)
        if op.kind in ("in", "out"):
            arrays.append((PARAMS_AT + off, s))
            continue
        size = op.dtype.itemsize if op.kind == "scalar" else RAW_BYTES
        where = code.frame(size, 8)
        code.prologue.append([code.op["copyp"], where, PARAMS_AT + off, size, 0])
        code.prologue.append([code.op["addr"], s, where, 0, 0])
    i_slot, n_slot = code.slot(), code.slot()
    args += [i_slot, n_slot]
    _function(code, body, args, None, None)
    return _assemble(code, args, arrays, i_slot, n_slot, iset)


class ItemTemplate:
    """An item function's bytecode (``compile_items``) with its calls of placeholder
    functions left open: compiled once per function; each signature then only compiles
    its own callees into the open calls (``fill``)."""

    def __init__(self, fn: ir.Function, param_bytes: int, iset: InstructionSet, placeholders):
        code = _Code(iset)
        code.placeholders = frozenset(placeholders)
        if len(fn.args) != 3:
            raise NotInterpretable("an item function takes (params, i, n)")
        p_slot, i_slot, n_slot = code.slot(), code.slot(), code.slot()
        where = code.frame(param_bytes, 8)
        code.prologue.append([code.op["copyp"], where, 24, param_bytes, 0])
        code.prologue.append([code.op["addr"], p_slot, where, 0, 0])
        self.args = [p_slot, i_slot, n_slot]
        _function(code, fn, self.args, None, None)
        self.iset = iset
        self.code = code
        self.fn = fn  # (keeps the function, whose values the labels name, alive)
        # the labels at each position of the body
        self.labels_at: dict = {}
        for label, pos in code.labels.items():
            self.labels_at.setdefault(pos, []).append(label)

    def fill(self, substitutions: dict) -> bytes:
        """The bytecode with each open call running ``substitutions[name]`` (inlined)."""
        t = self.code
        code = _Code(self.iset)
        code.next_slot, code.stack, code.frames = t.next_slot, t.stack, t.frames
        code.consts = dict(t.consts)
        code.prologue = [list(ins) for ins in t.prologue]
        labels_at = self.labels_at
        for pos, ins in enumerate(t.body):
            for label in labels_at.get(pos, ()):
                code.labels[label] = len(code.body)
            if ins.__class__ is tuple:  # an open call: (name, argument slots)
                fn = substitutions.get(ins[0])
                if fn is None or fn.is_declaration or len(fn.args) != len(ins[1]):
                    raise NotInterpretable(f"no function for the call of {ins[0]}")
                label = ("return", "open", pos)
                _function(code, fn, list(ins[1]), None, label)
                code.labels[label] = len(code.body)
            else:
                code.body.append(list(ins))
        for label in labels_at.get(len(t.body), ()):
            code.labels[label] = len(code.body)
        return _assemble(code, self.args, [], self.args[1], self.args[2], self.iset)


def compile_items(fn: ir.Function, param_bytes: int, iset: InstructionSet, substitutions: dict) -> bytes:
    """The bytecode of ``fn``, ``void (ptr params, i64 i, i64 n)``, run once per item ``i``
    of ``n`` (a reduction's items: ``reduction.item_functions``).  ``params`` points to a
    copy of the ``param_bytes`` bytes of parameters packed after the interpreter's three
    words (the bytecode's address, ``n`` and a 1-D ``ndim``: there are no array operands
    to unravel).  ``substitutions``: name -> the ``ir.Function`` a call of that declared
    function runs instead (inlined, as defined functions are).  The template of ``fn``
    is kept on ``iset`` for the next signature."""
    key = (id(fn), param_bytes, frozenset(substitutions))
    template = iset.templates.get(key)
    if template is None or template.fn is not fn:
        template = iset.templates[key] = ItemTemplate(fn, param_bytes, iset, substitutions)
    return template.fill(substitutions)


def _assemble(code: _Code, args: list, arrays: list, i_slot: int, n_slot: int, iset: InstructionSet) -> bytes:
    """The bytecode's words: the header, the prologue, the body (slots allocated)."""
    prologue = code.prologue + [[code.op["ret"], 0, 0, 0, 0]]
    if code.next_slot > SLOTS:
        where = _allocate(code, prologue, args, iset)
        i_slot, n_slot = where[i_slot], where[n_slot]
        arrays = [(off, where[s]) for off, s in arrays]
    header = [MAGIC, len(arrays), i_slot, n_slot, 0, 0]
    for off, s in arrays:
        header += [off, s]
    start = len(header)
    body_pc = start + INSTR_WORDS * len(prologue)
    header[4], header[5] = start, body_pc
    words = list(header)
    for ins in prologue:
        words += ins
    labels = {k: body_pc + INSTR_WORDS * v for k, v in code.labels.items()}
    for ins in code.body:
        words += [labels[x] if isinstance(x, tuple) else x for x in ins]
    return np.array(words, dtype=np.int32).tobytes()


def _allocate(code: _Code, prologue: list, args: list, iset: InstructionSet) -> dict:
    """Map the virtual slots onto at most ``SLOTS`` (rewriting the instructions in place):
    slots the prologue or the element loop writes keep one of their own; the body's values
    share slots where their live ranges (in the body's linear order, from a liveness
    analysis over its branches) do not meet.  Returns virtual -> physical."""
    body, roles = code.body, iset.roles
    n = len(body)
    at = code.labels
    succ = []
    uses, defs = [], []
    for i, ins in enumerate(body):
        name = iset.names[ins[0]]
        if name == "jmp":
            succ.append((at[ins[2]],))
        elif name == "br":
            succ.append((at[ins[3]], at[ins[4]]))
        elif name == "ret":
            succ.append(())
        else:
            succ.append((i + 1,) if i + 1 < n else ())
        writes, reads = roles[ins[0]]
        u = 0
        for f in reads:
            u |= 1 << ins[f]
        uses.append(u)
        defs.append(1 << ins[1] if writes else 0)
    live_in = [0] * n
    changed = True
    while changed:   # backward dataflow to a fixed point (few rounds: the loops are few)
        changed = False
        for i in range(n - 1, -1, -1):
            out = 0
            for j in succ[i]:
                out |= live_in[j]
            new = uses[i] | (out & ~defs[i])
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    pinned = list(dict.fromkeys(args + [ins[f] for ins in prologue
                                        for f in ((1,) if roles[ins[0]][0] else ()) + roles[ins[0]][1]]))
    where = {v: k for k, v in enumerate(pinned)}
    pinned_bits = 0
    for v in pinned:
        pinned_bits |= 1 << v
    # each value's range: from the first position it is live (or written) at to the last
    # (each value's bit is taken once from each end: positions times values would cost
    # milliseconds for the large bodies)
    first, last = {}, {}
    for order, ends in ((range(n), first), (range(n - 1, -1, -1), last)):
        seen = pinned_bits
        for i in order:
            bits = (live_in[i] | defs[i]) & ~seen
            if bits:
                seen |= bits
                while bits:
                    low = bits & -bits
                    ends[low.bit_length() - 1] = i
                    bits ^= low
    free = list(range(len(pinned), SLOTS))[::-1]
    ending = []   # (last position, physical slot) of the ranges still open
    for v in sorted(first, key=first.__getitem__):
        start = first[v]
        while ending and ending[0][0] < start:
            free.append(heapq.heappop(ending)[1])
        if not free:
            raise _TooManyLive(f"more than {SLOTS} values live at once")
        p = free.pop()
        where[v] = p
        heapq.heappush(ending, (last[v], p))
    for ins in prologue + body:
        writes, reads = roles[ins[0]]
        if writes:
            ins[1] = where[ins[1]]
        for f in reads:
            ins[f] = where[ins[f]]
    return where


def _function(code: _Code, fn: ir.Function, args: list, ret_slot, ret_label) -> None:
    if fn in code.inlining:
        raise NotInterpretable(f"recursive call of {fn.name}")
    code.inlining.append(fn)
    try:
        frame = _Frame(code, fn, args, ret_slot, ret_label)
        for bb in fn.blocks:
            code.labels[frame.label(bb)] = len(code.body)
            for ins in bb.instructions:
                _instruction(code, frame, bb, ins)
    finally:
        code.inlining.pop()


def _jump_to(code: _Code, frame: _Frame, src, dst) -> tuple:
    """A label to branch to for the edge ``src -> dst``: ``dst`` itself, or a stub that
    first moves the values of ``dst``'s phis (all read before any is written)."""
    moves = []
    for ins in dst.instructions:
        if not isinstance(ins, ir.PhiInstr):
            break
        for v, pred in ins.incomings:
            if pred is src:
                d = frame.values[id(ins)]
                s = frame.value(v)
                moves += [(d + k, s + k) for k in range(2 if is_pair(ins.type) else 1)]
                break
        else:
            raise NotInterpretable("a phi without an incoming value for its predecessor")
    if not moves:
        return frame.label(dst)
    stub = ("stub", len(code.labels), len(code.stubs))
    code.labels[stub] = None  # (set when ``_flush_stubs`` writes it after the branch)
    code.stubs.append((stub, moves, frame.label(dst)))
    return stub


def _flush_stubs(code: _Code) -> None:
    stubs, code.stubs = code.stubs, []
    for stub, moves, target in stubs:
        code.labels[stub] = len(code.body)
        dests = {d for d, _ in moves}
        if any(s in dests and s != d for d, s in moves):
            temps = []
            for d, s in moves:
                t = code.slot()
                code.emit("mov", t, s)
                temps.append((d, t))
            moves = temps
        for d, s in moves:
            if d != s:
                code.emit("mov", d, s)
        code.emit("jmp", 0, target)


def _gep(code: _Code, frame: _Frame, ins) -> None:
    cur = frame.value(ins.pointer)
    ty = ins.source_etype
    offset = 0
    for k, idx in enumerate(ins.indices):
        if k == 0:
            size = size_align(ty)[0]
        elif isinstance(ty, (ir.LiteralStructType, ir.IdentifiedStructType)):
            if not isinstance(idx, ir.Constant):
                raise NotInterpretable("a struct indexed by a variable")
            offset += field_offset(ty, int(idx.constant))
            ty = ty.elements[int(idx.constant)]
            continue
        elif isinstance(ty, ir.ArrayType):
            ty = ty.element
            size = size_align(ty)[0]
        else:
            raise NotInterpretable(f"getelementptr into {ty}")
        if isinstance(idx, ir.Constant):
            offset += int(idx.constant) * size
            continue
        s = frame.value(idx)
        w = idx.type.width
        if w < 64:
            t = code.slot()
            code.emit(f"sext.i{w}", t, s)
            s = t
        t = code.slot()
        code.emit("lea", t, cur, s, size)
        cur = t
    d = frame.values[id(ins)]
    if -(1 << 31) <= offset < (1 << 31):
        code.emit("addi", d, cur, 0, offset)
    else:
        code.emit("add.i64", d, cur, code.const_bits(offset))


def _instruction(code: _Code, frame: _Frame, bb, ins) -> None:
    op = ins.opname
    vals = frame.values
    if isinstance(ins, ir.PhiInstr):
        return  # moved on the incoming edges
    if isinstance(ins, ir.AllocaInstr):
        size, align = size_align(ins.allocated_type)
        where = code.frame(size, align)
        s = code.slot()
        vals[id(ins)] = s
        code.prologue.append([code.op["addr"], s, where, 0, 0])
        return
    if isinstance(ins, ir.Ret):
        if frame.ret_label is None:
            code.emit("ret")
            return
        if ins.operands:
            v = ins.operands[0]
            s = frame.value(v)
            for k in range(2 if is_pair(v.type) else 1):
                code.emit("mov", frame.ret_slot + k, s + k)
        code.emit("jmp", 0, frame.ret_label)
        return
    if isinstance(ins, ir.Unreachable):
        code.emit("ret")
        return
    if isinstance(ins, ir.ConditionalBranch):
        c, t, f = ins.operands
        code.emit("br", 0, frame.value(c), _jump_to(code, frame, bb, t), _jump_to(code, frame, bb, f))
        _flush_stubs(code)
        return
    if isinstance(ins, ir.Branch):
        target = _jump_to(code, frame, bb, ins.operands[0])
        code.emit("jmp", 0, target)
        _flush_stubs(code)
        return
    if isinstance(ins, ir.SwitchInstr):
        x = frame.value(ins.value)
        name = scalar_name(ins.value.type)
        for cv, dest in ins.cases:
            t = code.slot()
            code.emit(f"icmp.eq.{name}", t, x, frame.value(cv))
            nxt = ("case", len(code.labels))
            code.emit("br", 0, t, _jump_to(code, frame, bb, dest), nxt)
            _flush_stubs(code)
            code.labels[nxt] = len(code.body)
        code.emit("jmp", 0, _jump_to(code, frame, bb, ins.default))
        _flush_stubs(code)
        return
    if isinstance(ins, ir.CallInstr):
        _call(code, frame, ins)
        return
    if isinstance(ins, ir.LoadInstr):
        _load(code, vals[id(ins)], frame.value(ins.operands[0]), ins.type)
        return
    if isinstance(ins, ir.StoreInstr):
        v, p = ins.operands
        _store(code, frame.value(p), frame.value(v), v.type)
        return
    if isinstance(ins, ir.GEPInstr):
        _gep(code, frame, ins)
        return
    d = vals.get(id(ins))
    if isinstance(ins, ir.ExtractValue):
        if len(ins.indices) != 1 or not is_pair(ins.aggregate.type):
            raise NotInterpretable("extractvalue of that aggregate")
        code.emit("mov", d, frame.value(ins.aggregate) + ins.indices[0])
        return
    if isinstance(ins, ir.InsertValue):
        if len(ins.indices) != 1 or not is_pair(ins.aggregate.type):
            raise NotInterpretable("insertvalue into that aggregate")
        src = frame.value(ins.aggregate)
        k = ins.indices[0]
        code.emit("mov", d + 1 - k, src + 1 - k)
        code.emit("mov", d + k, frame.value(ins.value))
        return
    if op == "select":
        c, a, b = ins.operands
        cs, sa, sb = frame.value(c), frame.value(a), frame.value(b)
        for k in range(2 if is_pair(ins.type) else 1):
            code.emit("select", d + k, cs, sa + k, sb + k)
        return
    if isinstance(ins, ir.CompareInstr):
        a, b = ins.operands
        name = scalar_name(a.type)
        if name == "ptr":
            name = "i64"
        code.emit(f"{op}.{ins.op}.{name}", d, frame.value(a), frame.value(b))
        return
    if isinstance(ins, ir.CastInstr):
        _cast(code, d, frame.value(ins.operands[0]), op, ins.operands[0].type, ins.type)
        return
    if op == "fneg":
        code.emit(f"fneg.{float_name(ins.type)}", d, frame.value(ins.operands[0]))
        return
    if op in INT_BINOPS or op in FLOAT_BINOPS:
        a, b = ins.operands
        code.emit(f"{op}.{scalar_name(ins.type)}", d, frame.value(a), frame.value(b))
        return
    raise NotInterpretable(f"instruction {op}")


def _load(code: _Code, d: int, p: int, ty) -> None:
    if is_pair(ty):
        f = float_name(ty.elements[0])
        step = size_align(ty.elements[0])[0]
        code.emit(f"load.{f}", d, p, 0)
        code.emit(f"load.{f}", d + 1, p, step)
        return
    name = scalar_name(ty)
    code.emit("load.i64" if name == "ptr" else f"load.{name}", d, p, 0)


def _store(code: _Code, p: int, v: int, ty) -> None:
    if is_pair(ty):
        f = float_name(ty.elements[0])
        step = size_align(ty.elements[0])[0]
        code.emit(f"store.{f}", 0, p, v, 0)
        code.emit(f"store.{f}", 0, p, v + 1, step)
        return
    name = scalar_name(ty)
    code.emit("store.i64" if name == "ptr" else f"store.{name}", 0, p, v, 0)


_CAST_OPCODES = {  # cast -> its opcode's name, from the source and destination types
    "zext": lambda a, b: f"zext.i{a.width}", "sext": lambda a, b: f"sext.i{a.width}",
    "fpext": lambda a, b: f"fpext.{float_name(a)}.{float_name(b)}",
    "fptrunc": lambda a, b: f"fptrunc.{float_name(a)}.{float_name(b)}",
    "fptosi": lambda a, b: f"fptosi.{float_name(a)}.i{b.width}",
    "fptoui": lambda a, b: f"fptoui.{float_name(a)}.i{b.width}",
    "sitofp": lambda a, b: f"sitofp.i{a.width}.{float_name(b)}",
    "uitofp": lambda a, b: f"uitofp.i{a.width}.{float_name(b)}",
}


def _cast(code: _Code, d: int, s: int, op: str, src, dst) -> None:
    if op in ("bitcast", "ptrtoint", "inttoptr", "addrspacecast", "trunc"):
        if op == "bitcast" and (is_pair(src) or is_pair(dst)):
            raise NotInterpretable("bitcast of an aggregate")
        code.emit("mov", d, s)  # (a slot is read at its type's width)
        return
    name = _CAST_OPCODES.get(op)
    if name is None:
        raise NotInterpretable(f"cast {op}")
    code.emit(name(src, dst), d, s)


def _call(code: _Code, frame: _Frame, ins) -> None:
    fn = ins.callee
    if not isinstance(fn, ir.Function):
        raise NotInterpretable("an indirect call")
    args = [frame.value(a) for a in ins.args]
    if fn.is_declaration and fn.name in code.placeholders:
        code.body.append((fn.name, tuple(args)))  # (filled in by ``ItemTemplate.fill``)
        return
    if not fn.is_declaration:
        # (a pair argument is two slots; the callee's argument names the first)
        ret = frame.values.get(id(ins))
        label = ("return", len(code.labels))
        _function(code, fn, args, ret, label)
        code.labels[label] = len(code.body)
        return
    name = fn.name
    fnty = code.externals.get(name)
    if fnty is None or fnty != fn.function_type:
        raise NotInterpretable(f"a call of {name}")
    if len(args) > 3:
        raise NotInterpretable(f"a call of {name} with {len(args)} arguments")
    d = frame.values.get(id(ins), 0)
    code.emit(f"call.{name}", d, *args)
