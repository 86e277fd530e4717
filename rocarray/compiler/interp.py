"""The interpreter tier: a first call that compiles nothing for the device.

A GPU kernel's first call used to wait for the driver's PTX JIT (5-17 ms on the H200 hosts
even for an empty kernel; docs/benchmarks.md).  Here the scalar body -- the same LLVM IR
the compiled tiers get, straight from the kernel language's lowering -- becomes a
*bytecode* in well under a millisecond of Python, and one *interpreter kernel*, compiled
once per machine and kept in the disk cache, runs it: the elementwise loop of the compiled
kernels (flat index, N-d unravel over the launch's shape and strides, the body's pointer
arguments) around a dispatch loop over the bytecode.  The compiled kernel is made on the
background worker meanwhile and replaces the interpreter when it is ready
(``rocarray._launch``).

Every handler of the interpreter is the very LLVM instruction (or math-library call) the
bytecode names, and contraction is explicit in the lowering (``lower.py``: ``llvm.fma``),
so the interpreter computes the compiled kernel's bits.  Being LLVM IR itself, it compiles
for the host too; the tests compare the two over the whole op catalogue without a GPU.

Bytecode (little-endian int32 words):

* a header: ``MAGIC``, the array operands ``A``, the slot of the flat index ``i`` and of the
  size ``n``, the pc of the prologue and of the body, then per array operand the byte
  offset of its pointer in the launch parameters (its strides follow) and its slot;
* instructions of ``INSTR_WORDS`` words: opcode, d, a, b, c.  Operands are *slots* (64-bit
  registers holding a value's bits), or immediates where the opcode says so.

The prologue runs once per thread (constants into slots, scalar and raw-array parameters
copied onto the thread's stack); the body once per element.
"""

from __future__ import annotations

import heapq
import struct
import threading

import numpy as np
from llvmlite import ir

from .skeletons import param_offsets, parameter_pointer_type
from ..targets.base import MATH_FUNCTIONS, MAX_DIMS

MAGIC = 0x52_4B_49_31  # "RKI1"
INSTR_WORDS = 5
#: 64-bit slots per thread and bytes of stack (locals the body keeps in memory); a body
#: needing more is compiled before its first call, as without the interpreter
SLOTS = 256
STACK_BYTES = 1024
#: 64-bit words of an interpreter launch's parameters: the bytecode's address, then the
#: compiled kernel's own parameter buffer (``_launch.pack_format``)
PARAM_WORDS = 160
HEADER_WORDS = 6
ENTRY = "rocarray_interp"

_I1, _I8, _I16, _I32, _I64 = (ir.IntType(w) for w in (1, 8, 16, 32, 64))
_F16, _F32, _F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()
_PTR = ir.PointerType()
_INT_WIDTHS = (1, 8, 16, 32, 64)
_FLOATS = {"f16": _F16, "f32": _F32, "f64": _F64}
_RANK = {"f16": 0, "f32": 1, "f64": 2}
_INT_BINOPS = ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "and", "or", "xor", "shl",
               "lshr", "ashr")
_FLOAT_BINOPS = ("fadd", "fsub", "fmul", "fdiv", "frem")
_ICMP = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
_FCMP = ("oeq", "one", "ogt", "oge", "olt", "ole", "ord", "ueq", "une", "ugt", "uge", "ult", "ule",
         "uno")
#: LLVM intrinsics the lowering calls (``llvm.<base>.<f32|f64>``), beside the target's
#: math functions
_INTRINSIC_BASES = ("fabs", "sqrt", "floor", "ceil", "trunc", "rint", "round", "nearbyint",
                    "copysign", "minnum", "maxnum", "fma")


class NotInterpretable(Exception):
    """The body uses something the interpreter does not run (it is compiled instead)."""


def _fname(ty) -> str | None:
    if isinstance(ty, ir.HalfType):
        return "f16"
    if isinstance(ty, ir.FloatType):
        return "f32"
    if isinstance(ty, ir.DoubleType):
        return "f64"
    return None


def _scalar_name(ty) -> str:
    """"i8", "f32", "ptr" ... of a first-class scalar type (NotInterpretable otherwise)."""
    if isinstance(ty, ir.IntType):
        if ty.width not in _INT_WIDTHS:
            raise NotInterpretable(f"integer width {ty.width}")
        return f"i{ty.width}"
    f = _fname(ty)
    if f is not None:
        return f
    if isinstance(ty, ir.PointerType):
        return "ptr"
    raise NotInterpretable(f"values of type {ty}")


def _size_align(ty) -> tuple[int, int]:
    if isinstance(ty, ir.IntType):
        n = max(1, ty.width // 8)
        return n, n
    if isinstance(ty, (ir.HalfType, ir.FloatType, ir.DoubleType)):
        n = {"f16": 2, "f32": 4, "f64": 8}[_fname(ty)]
        return n, n
    if isinstance(ty, ir.PointerType):
        return 8, 8
    if isinstance(ty, ir.ArrayType):
        s, a = _size_align(ty.element)
        return s * ty.count, a
    if isinstance(ty, (ir.LiteralStructType, ir.IdentifiedStructType)):
        off, align = 0, 1
        for e in ty.elements:
            s, a = _size_align(e)
            off += (-off) % a
            off += s
            align = max(align, a)
        return off + (-off) % align, align
    raise NotInterpretable(f"memory of type {ty}")


def _field_offset(ty, k: int) -> int:
    off = 0
    for idx, e in enumerate(ty.elements):
        s, a = _size_align(e)
        off += (-off) % a
        if idx == k:
            return off
        off += s
    raise NotInterpretable("struct field out of range")


def _is_pair(ty) -> bool:
    """A complex value: a struct of two floats, kept in two consecutive slots."""
    return (isinstance(ty, ir.LiteralStructType) and len(ty.elements) == 2
            and _fname(ty.elements[0]) is not None and ty.elements[0] == ty.elements[1])


# -- the instruction set -----------------------------------------------------------------------

def external_functions(target) -> dict:
    """name -> ``ir.FunctionType`` of every function outside the body the interpreter can
    call on ``target``: its math functions and the LLVM intrinsics the lowering uses."""
    module = ir.Module()
    for fn, arity in MATH_FUNCTIONS.items():
        for ty in (_F32, _F64):
            try:
                target.math_function(module, fn, ty)
            except (ValueError, TypeError):
                continue
    for base in _INTRINSIC_BASES:
        for sfx, ty in (("f32", _F32), ("f64", _F64)):
            n = 3 if base == "fma" else 2 if base in ("copysign", "minnum", "maxnum") else 1
            name = f"llvm.{base}.{sfx}"
            if name not in module.globals:
                ir.Function(module, ir.FunctionType(ty, [ty] * n), name)
    for sfx, ty in (("f32", _F32), ("f64", _F64)):
        for kind in ("fptosi", "fptoui"):
            ir.Function(module, ir.FunctionType(_I64, [ty]), f"llvm.{kind}.sat.i64.{sfx}")
    for sfx, ty in _FLOATS.items():
        ir.Function(module, ir.FunctionType(ty, [ty]), f"llvm.arithmetic.fence.{sfx}")
    out = {}
    for f in module.functions:
        if f.is_declaration:
            out[f.name] = f.function_type
        # (a target's wrapper defined in the module, e.g. the host's float16 math, is
        # inlined by the bytecode compiler instead)
    return dict(sorted(out.items()))


def opcode_names(externals: dict) -> list:
    """Every opcode's name, in opcode order."""
    names = ["ret", "jmp", "br", "mov", "select", "const", "lea", "addi", "copyp", "addr"]
    for w in _INT_WIDTHS:
        names += [f"{op}.i{w}" for op in _INT_BINOPS]
        names += [f"icmp.{p}.i{w}" for p in _ICMP]
        if w < 64:
            names += [f"zext.i{w}", f"sext.i{w}"]
    for f in _FLOATS:
        names += [f"{op}.{f}" for op in _FLOAT_BINOPS]
        names.append(f"fneg.{f}")
        names += [f"fcmp.{p}.{f}" for p in _FCMP]
        for w in _INT_WIDTHS:
            names += [f"sitofp.i{w}.{f}", f"uitofp.i{w}.{f}"]
            if w > 1:
                names += [f"fptosi.{f}.i{w}", f"fptoui.{f}.i{w}"]
        for g in _FLOATS:
            if g != f:
                names.append(f"{'fpext' if _RANK[g] > _RANK[f] else 'fptrunc'}.{f}.{g}")
    for t in ("i1", "i8", "i16", "i32", "i64", "f16", "f32", "f64"):
        names += [f"load.{t}", f"store.{t}"]
    names += [f"call.{name}" for name in externals]
    return names


class InstructionSet:
    """The opcodes of one target's interpreter (they depend on its math functions)."""

    def __init__(self, target):
        self.externals = external_functions(target)
        self.names = opcode_names(self.externals)
        self.code = {name: k for k, name in enumerate(self.names)}
        #: per opcode: (whether field d is a slot it writes, the fields it reads slots
        #: from: indices 2-4 of an instruction [op, d, a, b, c])
        self.roles = [_roles(name, self.externals) for name in self.names]
        #: item templates compiled for this target (``compile_items``)
        self.templates: dict = {}


def _roles(name: str, externals: dict) -> tuple:
    head = name.split(".")[0]
    if name in ("ret", "jmp", "copyp"):
        return False, ()
    if name == "br":
        return False, (2,)
    if name in ("const", "addr"):
        return True, ()
    if name == "select":
        return True, (2, 3, 4)
    if name == "lea" or head in _INT_BINOPS or head in _FLOAT_BINOPS or head in ("icmp", "fcmp"):
        return True, (2, 3)
    if head == "store":
        return False, (2, 3)
    if head == "call":
        fnty = externals[name[5:]]
        return not isinstance(fnty.return_type, ir.VoidType), tuple(range(2, 2 + len(fnty.args)))
    return True, (2,)   # mov, addi, load, the casts, fneg


_sets: dict = {}
_sets_lock = threading.Lock()


def instruction_set(target) -> InstructionSet:
    key = target.cache_key()
    s = _sets.get(key)
    if s is None:
        with _sets_lock:
            s = _sets.get(key)
            if s is None:
                s = _sets[key] = InstructionSet(target)
    return s


# -- the bytecode compiler -----------------------------------------------------------------

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
    f = _fname(ty)
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
                self.values[id(ins)] = code.slot(2 if _is_pair(ty) else 1)

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
            s = code.slot(2 if _is_pair(ty) else 1)
        elif _is_pair(ty):
            parts = v.constant
            s = code.slot(2)
            for k in range(2):
                p = parts[k]
                c = code.const_bits(_bits(p.type, p.constant))
                code.prologue.append([code.op["mov"], s + k, c, 0, 0])
        else:
            _scalar_name(ty)
            s = code.const_bits(_bits(ty, v.constant))
        self.values[id(v)] = s
        return s


def compile_body(module: ir.Module, body: ir.Function, operands, iset: InstructionSet) -> bytes:
    """The bytecode of elementwise body ``body`` (in ``module``) over ``operands`` (the
    kernel's ``Operand`` list, in the body's parameter order); NotInterpretable when the
    interpreter cannot run it."""
    code = _Code(iset)
    if len(body.args) != len(operands) + 2:
        raise NotInterpretable("the body's parameters do not match the operands")
    offsets = param_offsets(operands)
    arrays = []
    args = []
    for op, off in zip(operands, offsets):
        s = code.slot()
        args.append(s)
        if op.kind in ("in", "out"):
            arrays.append((8 + off, s))   # (after the bytecode's address word)
            continue
        size = op.dtype.itemsize if op.kind == "scalar" else 24 + 16 * MAX_DIMS
        where = code.frame(size, 8)
        code.prologue.append([code.op["copyp"], where, 8 + off, size, 0])
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
            raise NotInterpretable(f"more than {SLOTS} values live at once")
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
                moves += [(d + k, s + k) for k in range(2 if _is_pair(ins.type) else 1)]
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
            size = _size_align(ty)[0]
        elif isinstance(ty, (ir.LiteralStructType, ir.IdentifiedStructType)):
            if not isinstance(idx, ir.Constant):
                raise NotInterpretable("a struct indexed by a variable")
            offset += _field_offset(ty, int(idx.constant))
            ty = ty.elements[int(idx.constant)]
            continue
        elif isinstance(ty, ir.ArrayType):
            ty = ty.element
            size = _size_align(ty)[0]
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
        size, align = _size_align(ins.allocated_type)
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
            for k in range(2 if _is_pair(v.type) else 1):
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
        name = _scalar_name(ins.value.type)
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
        if len(ins.indices) != 1 or not _is_pair(ins.aggregate.type):
            raise NotInterpretable("extractvalue of that aggregate")
        code.emit("mov", d, frame.value(ins.aggregate) + ins.indices[0])
        return
    if isinstance(ins, ir.InsertValue):
        if len(ins.indices) != 1 or not _is_pair(ins.aggregate.type):
            raise NotInterpretable("insertvalue into that aggregate")
        src = frame.value(ins.aggregate)
        k = ins.indices[0]
        code.emit("mov", d + 1 - k, src + 1 - k)
        code.emit("mov", d + k, frame.value(ins.value))
        return
    if op == "select":
        c, a, b = ins.operands
        cs, sa, sb = frame.value(c), frame.value(a), frame.value(b)
        for k in range(2 if _is_pair(ins.type) else 1):
            code.emit("select", d + k, cs, sa + k, sb + k)
        return
    if isinstance(ins, ir.CompareInstr):
        a, b = ins.operands
        name = _scalar_name(a.type)
        if name == "ptr":
            name = "i64"
        code.emit(f"{op}.{ins.op}.{name}", d, frame.value(a), frame.value(b))
        return
    if isinstance(ins, ir.CastInstr):
        _cast(code, d, frame.value(ins.operands[0]), op, ins.operands[0].type, ins.type)
        return
    if op == "fneg":
        code.emit(f"fneg.{_fname(ins.type)}", d, frame.value(ins.operands[0]))
        return
    if op in _INT_BINOPS or op in _FLOAT_BINOPS:
        a, b = ins.operands
        code.emit(f"{op}.{_scalar_name(ins.type)}", d, frame.value(a), frame.value(b))
        return
    raise NotInterpretable(f"instruction {op}")


def _load(code: _Code, d: int, p: int, ty) -> None:
    if _is_pair(ty):
        f = _fname(ty.elements[0])
        step = _size_align(ty.elements[0])[0]
        code.emit(f"load.{f}", d, p, 0)
        code.emit(f"load.{f}", d + 1, p, step)
        return
    name = _scalar_name(ty)
    code.emit("load.i64" if name == "ptr" else f"load.{name}", d, p, 0)


def _store(code: _Code, p: int, v: int, ty) -> None:
    if _is_pair(ty):
        f = _fname(ty.elements[0])
        step = _size_align(ty.elements[0])[0]
        code.emit(f"store.{f}", 0, p, v, 0)
        code.emit(f"store.{f}", 0, p, v + 1, step)
        return
    name = _scalar_name(ty)
    code.emit("store.i64" if name == "ptr" else f"store.{name}", 0, p, v, 0)


_CAST_OPCODES = {  # cast -> its opcode's name, from the source and destination types
    "zext": lambda a, b: f"zext.i{a.width}", "sext": lambda a, b: f"sext.i{a.width}",
    "fpext": lambda a, b: f"fpext.{_fname(a)}.{_fname(b)}",
    "fptrunc": lambda a, b: f"fptrunc.{_fname(a)}.{_fname(b)}",
    "fptosi": lambda a, b: f"fptosi.{_fname(a)}.i{b.width}",
    "fptoui": lambda a, b: f"fptoui.{_fname(a)}.i{b.width}",
    "sitofp": lambda a, b: f"sitofp.i{a.width}.{_fname(b)}",
    "uitofp": lambda a, b: f"uitofp.i{a.width}.{_fname(b)}",
}


def _cast(code: _Code, d: int, s: int, op: str, src, dst) -> None:
    if op in ("bitcast", "ptrtoint", "inttoptr", "addrspacecast", "trunc"):
        if op == "bitcast" and (_is_pair(src) or _is_pair(dst)):
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


# -- the interpreter kernel ----------------------------------------------------------------

class _Kernel:
    """The interpreter's IR: the element loop around the dispatch loop (``build``)."""

    def __init__(self, target, iset: InstructionSet):
        self.target = target
        self.iset = iset
        module = self.module = ir.Module(name=ENTRY)
        module.triple = target.triple
        module.data_layout = target.data_layout
        self.functions = {name: ir.Function(module, fnty, name) for name, fnty in iset.externals.items()}
        if target.is_gpu:
            ptype = parameter_pointer_type(target, ir.ArrayType(_I64, PARAM_WORDS))
            if ptype is None:
                raise NotInterpretable(f"target {target.name} passes no parameters by reference")
            fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptype]), ENTRY)
            target.mark_kernel(fn)
            fn.args[0].add_attribute(target.dims_by_reference[1])
            fn.args[0].attributes.align = 8
        else:
            fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [_PTR, _I64, _I64]), ENTRY)
            target.mark_kernel(fn)
        self.fn = fn
        self.params = fn.args[0]

    # -- small helpers (``b`` is the builder at the current block) --

    def word(self, b, base_ptr, index, ty=_I32):
        """Element ``index`` (an i32/i64 value) of the ``ty`` array at ``base_ptr``."""
        return b.load(b.gep(base_ptr, [index], source_etype=ty), typ=ty)

    def param_at(self, b, byte_offset, ty=_I64):
        """The ``ty`` at ``byte_offset`` (i64) of the launch parameters."""
        p = b.gep(self.params, [byte_offset], source_etype=_I8)
        return b.load(p, typ=ty, align=1 if ty == _I8 else 8)

    def slot_ptr(self, b, s):
        return b.gep(self.regs, [b.zext(s, _I64) if s.type != _I64 else s], source_etype=_I64)

    def read(self, b, s):
        return b.load(self.slot_ptr(b, s), typ=_I64)

    def write(self, b, s, v):
        b.store(v, self.slot_ptr(b, s))

    @staticmethod
    def as_type(b, v, name: str):
        """The i64 slot bits ``v`` as a value of type ``name`` ("i8", "f32", ...)."""
        if name == "i64":
            return v
        if name[0] == "i":
            return b.trunc(v, ir.IntType(int(name[1:])))
        if name == "f64":
            return b.bitcast(v, _F64)
        if name == "f32":
            return b.bitcast(b.trunc(v, _I32), _F32)
        if name == "f16":
            return b.bitcast(b.trunc(v, _I16), _F16)
        raise AssertionError(name)

    @staticmethod
    def to_slot(b, v):
        ty = v.type
        if isinstance(ty, ir.IntType):
            return v if ty.width == 64 else b.zext(v, _I64)
        if isinstance(ty, ir.DoubleType):
            return b.bitcast(v, _I64)
        if isinstance(ty, ir.FloatType):
            return b.zext(b.bitcast(v, _I32), _I64)
        if isinstance(ty, ir.HalfType):
            return b.zext(b.bitcast(v, _I16), _I64)
        raise AssertionError(ty)

    @staticmethod
    def type_name(ty) -> str:
        return _scalar_name(ty)

    # -- the kernel --

    def build(self) -> ir.Module:
        fn, target = self.fn, self.target
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)
        self.regs = b.alloca(ir.ArrayType(_I64, SLOTS), name="slots")
        self.regs.type = _PTR
        stack = b.alloca(ir.ArrayType(_I64, STACK_BYTES // 8), name="stack")
        stack.type = _PTR
        self.stack = stack
        pcv = b.alloca(_I32, name="pc")
        phase = b.alloca(_I1, name="phase")
        iv = b.alloca(_I64, name="i")
        code = b.inttoptr(self.param_at(b, ir.Constant(_I64, 0)), _PTR)
        n = self.param_at(b, ir.Constant(_I64, 8))
        ndim = self.param_at(b, ir.Constant(_I64, 16))
        if target.is_gpu:
            start = target.emit_global_thread_id(b)
            step = target.emit_global_thread_count(b)
            stop = n
        else:
            start, stop = fn.args[1], fn.args[2]
            step = ir.Constant(_I64, 1)
        n_arrays = self.word(b, code, ir.Constant(_I32, 1))
        i_slot = self.word(b, code, ir.Constant(_I32, 2))
        n_slot = self.word(b, code, ir.Constant(_I32, 3))
        body_pc = self.word(b, code, ir.Constant(_I32, 5))
        b.store(start, iv)
        b.store(self.word(b, code, ir.Constant(_I32, 4)), pcv)
        b.store(ir.Constant(_I1, 0), phase)

        dispatch = fn.append_basic_block("dispatch")
        nxt = fn.append_basic_block("next")
        elem_head = fn.append_basic_block("element.head")
        elem_body = fn.append_basic_block("element.body")
        elem_next = fn.append_basic_block("element.next")
        done = fn.append_basic_block("done")
        b.branch(dispatch)

        # the element loop: operand addresses for element i, then the body's bytecode
        b.position_at_end(elem_head)
        i = b.load(iv, typ=_I64)
        b.cbranch(b.icmp_signed("<", i, stop), elem_body, done)
        b.position_at_end(elem_body)
        self._addresses(b, code, n_arrays, ndim, i)
        self.write(b, i_slot, i)
        self.write(b, n_slot, n)
        b.store(ir.Constant(_I1, 1), phase)
        b.store(body_pc, pcv)
        b.branch(dispatch)
        b.position_at_end(elem_next)
        b.store(b.add(b.load(iv, typ=_I64), step), iv)
        b.branch(elem_head)
        b.position_at_end(done)
        b.ret_void()

        # the dispatch loop
        b.position_at_end(dispatch)
        pc = b.load(pcv, typ=_I32)
        op = self.word(b, code, pc)
        fields = [self.word(b, code, b.add(pc, ir.Constant(_I32, k))) for k in range(1, INSTR_WORDS)]
        bad = fn.append_basic_block("bad")
        sw = b.switch(op, bad)
        b.position_at_end(bad)
        b.branch(done)  # (never: every opcode has a handler)
        b.position_at_end(nxt)
        b.store(b.add(pc, ir.Constant(_I32, INSTR_WORDS)), pcv)
        b.branch(dispatch)
        self.ctx = (pcv, phase, elem_head, elem_next, dispatch, nxt)
        for k, name in enumerate(self.iset.names):
            block = fn.append_basic_block(name.replace(".", "_").replace("@", ""))
            sw.add_case(ir.Constant(_I32, k), block)
            b.position_at_end(block)
            self._handler(b, name, *fields)
        return self.module

    def _addresses(self, b, code, n_arrays, ndim, i):
        """Each array operand's element address into its slot: its pointer plus the
        element's index along each dimension times the operand's stride there."""
        fn = self.fn
        eight = ir.Constant(_I64, 8)
        # pass 1: slot = pointer (+ i * stride[0] when the space is 1-D)
        flat = b.icmp_signed("<=", ndim, ir.Constant(_I64, 1))

        def start(b, off, s):
            ptr = self.param_at(b, off)
            stride0 = self.param_at(b, b.add(off, eight))
            self.write(b, s, b.add(ptr, b.select(flat, b.mul(i, stride0), ir.Constant(_I64, 0))))

        self._each_array(b, code, n_arrays, start, "arrays")
        after = b.block
        nd = fn.append_basic_block("unravel")
        rest = fn.append_basic_block("unravel.done")
        last = b.sub(ndim, ir.Constant(_I64, 1))
        b.cbranch(flat, rest, nd)
        # pass 2 (N-d): d from ndim-1 down to 0, idx = rem % shape[d], rem /= shape[d]
        b.position_at_end(nd)
        d = b.phi(_I64)
        rem = b.phi(_I64)
        d.add_incoming(last, after)
        rem.add_incoming(i, after)
        extent = self.param_at(b, b.add(ir.Constant(_I64, 24), b.mul(d, eight)))
        idx = b.urem(rem, extent)
        rem1 = b.udiv(rem, extent)

        def step(b, off, s):
            stride = self.param_at(b, b.add(off, b.add(eight, b.mul(d, eight))))
            self.write(b, s, b.add(self.read(b, s), b.mul(idx, stride)))

        self._each_array(b, code, n_arrays, step, "unravel.arrays")
        d1 = b.sub(d, ir.Constant(_I64, 1))
        d.add_incoming(d1, b.block)
        rem.add_incoming(rem1, b.block)
        b.cbranch(b.icmp_signed(">=", d1, ir.Constant(_I64, 0)), nd, rest)
        b.position_at_end(rest)

    def _each_array(self, b, code, n_arrays, emit, name: str) -> None:
        """A loop over the header's array operands, ``emit(b, off, s)`` for each (the byte
        offset of its pointer in the launch parameters, its slot); ``b`` is left after it."""
        fn = self.fn
        head = b.block
        loop = fn.append_basic_block(name)
        out = fn.append_basic_block(name + ".done")
        b.cbranch(b.icmp_signed(">", n_arrays, ir.Constant(_I32, 0)), loop, out)
        b.position_at_end(loop)
        j = b.phi(_I32)
        j.add_incoming(ir.Constant(_I32, 0), head)
        at = b.add(ir.Constant(_I32, HEADER_WORDS), b.mul(j, ir.Constant(_I32, 2)))
        emit(b, b.sext(self.word(b, code, at), _I64), self.word(b, code, b.add(at, ir.Constant(_I32, 1))))
        j1 = b.add(j, ir.Constant(_I32, 1))
        j.add_incoming(j1, b.block)
        b.cbranch(b.icmp_signed("<", j1, n_arrays), loop, out)
        b.position_at_end(out)

    def _handler(self, b, name: str, d, a, bb, c) -> None:
        pcv, phase, elem_head, elem_next, dispatch, nxt = self.ctx
        parts = name.split(".")
        head = parts[0]
        if name == "ret":
            b.cbranch(b.load(phase, typ=_I1), elem_next, elem_head)
            return
        if name == "jmp":
            b.store(a, pcv)
            b.branch(dispatch)
            return
        if name == "br":
            cond = b.trunc(self.read(b, a), _I1)
            b.store(b.select(cond, bb, c), pcv)
            b.branch(dispatch)
            return
        if name == "mov":
            self.write(b, d, self.read(b, a))
        elif name == "select":
            cond = b.trunc(self.read(b, a), _I1)
            self.write(b, d, b.select(cond, self.read(b, bb), self.read(b, c)))
        elif name == "const":
            lo = b.zext(a, _I64)
            hi = b.shl(b.zext(bb, _I64), ir.Constant(_I64, 32))
            self.write(b, d, b.or_(lo, hi))
        elif name == "lea":
            self.write(b, d, b.add(self.read(b, a), b.mul(self.read(b, bb), b.sext(c, _I64))))
        elif name == "addi":
            self.write(b, d, b.add(self.read(b, a), b.sext(c, _I64)))
        elif name == "addr":
            self.write(b, d, b.add(b.ptrtoint(self.stack, _I64), b.sext(a, _I64)))
        elif name == "copyp":
            self._copy_parameters(b, d, a, bb)
        elif head in ("load", "store"):
            t = parts[1]
            mem = "i8" if t == "i1" else t
            mty = ir.IntType(int(mem[1:])) if mem[0] == "i" else _FLOATS[mem]
            size = _size_align(mty)[0]
            if head == "load":
                p = b.inttoptr(b.add(self.read(b, a), b.sext(bb, _I64)), _PTR)
                self.write(b, d, self.to_slot(b, b.load(p, typ=mty, align=size)))
            else:
                p = b.inttoptr(b.add(self.read(b, a), b.sext(c, _I64)), _PTR)
                v = self.as_type(b, self.read(b, bb), t)
                if t == "i1":
                    v = b.zext(v, _I8)
                b.store(v, p, align=size)
        elif head == "call":
            fn = self.functions[name[5:]]
            args = [self.as_type(b, self.read(b, s), self.type_name(t))
                    for s, t in zip((a, bb, c), fn.function_type.args)]
            r = b.call(fn, args)
            if not isinstance(fn.function_type.return_type, ir.VoidType):
                self.write(b, d, self.to_slot(b, r))
        elif head in ("icmp", "fcmp"):
            t = parts[2]
            x, y = self.as_type(b, self.read(b, a), t), self.as_type(b, self.read(b, bb), t)
            if head == "icmp":
                r = _icmp(b, parts[1], x, y)
            else:
                r = _fcmp(b, parts[1], x, y)
            self.write(b, d, b.zext(r, _I64))
        elif head in ("zext", "sext"):
            x = self.as_type(b, self.read(b, a), parts[1])
            self.write(b, d, b.zext(x, _I64) if head == "zext" else b.sext(x, _I64))
        elif head in ("fpext", "fptrunc"):
            x = self.as_type(b, self.read(b, a), parts[1])
            conv = b.fpext if head == "fpext" else b.fptrunc
            self.write(b, d, self.to_slot(b, conv(x, _FLOATS[parts[2]])))
        elif head in ("fptosi", "fptoui"):
            x = self.as_type(b, self.read(b, a), parts[1])
            conv = b.fptosi if head == "fptosi" else b.fptoui
            self.write(b, d, self.to_slot(b, conv(x, ir.IntType(int(parts[2][1:])))))
        elif head in ("sitofp", "uitofp"):
            x = self.as_type(b, self.read(b, a), parts[1])
            conv = b.sitofp if head == "sitofp" else b.uitofp
            self.write(b, d, self.to_slot(b, conv(x, _FLOATS[parts[2]])))
        elif head == "fneg":
            self.write(b, d, self.to_slot(b, b.fneg(self.as_type(b, self.read(b, a), parts[1]))))
        else:
            t = parts[1]
            x, y = self.as_type(b, self.read(b, a), t), self.as_type(b, self.read(b, bb), t)
            method = {"and": "and_", "or": "or_"}.get(head, head)
            self.write(b, d, self.to_slot(b, getattr(b, method)(x, y)))
        b.branch(nxt)

    def _copy_parameters(self, b, dst, src, count) -> None:
        """``count`` bytes of the launch parameters from byte ``src`` to stack byte ``dst``."""
        fn = self.fn
        head = b.block
        loop = fn.append_basic_block("copy")
        out = fn.append_basic_block("copy.done")
        b.cbranch(b.icmp_signed(">", count, ir.Constant(_I32, 0)), loop, out)
        b.position_at_end(loop)
        k = b.phi(_I32)
        k.add_incoming(ir.Constant(_I32, 0), head)
        v = self.param_at(b, b.sext(b.add(src, k), _I64), _I8)
        b.store(v, b.gep(self.stack, [b.sext(b.add(dst, k), _I64)], source_etype=_I8))
        k1 = b.add(k, ir.Constant(_I32, 1))
        k.add_incoming(k1, b.block)
        b.cbranch(b.icmp_signed("<", k1, count), loop, out)
        b.position_at_end(out)


_ICMP_OPS = {"eq": "==", "ne": "!=", "ugt": ">", "uge": ">=", "ult": "<", "ule": "<=",
             "sgt": ">", "sge": ">=", "slt": "<", "sle": "<="}
_FCMP_OPS = {"eq": "==", "ne": "!=", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}


def _icmp(b, pred, x, y):
    if pred in ("eq", "ne") or pred[0] == "u":
        return b.icmp_unsigned(_ICMP_OPS[pred], x, y)
    return b.icmp_signed(_ICMP_OPS[pred], x, y)


def _fcmp(b, pred, x, y):
    if pred in ("ord", "uno"):
        return b.fcmp_ordered(pred, x, y) if pred == "ord" else b.fcmp_unordered(pred, x, y)
    op = _FCMP_OPS[pred[1:]]
    return b.fcmp_ordered(op, x, y) if pred[0] == "o" else b.fcmp_unordered(op, x, y)


def build_interpreter(target) -> ir.Module:
    """The interpreter kernel ``ENTRY`` for ``target`` (see the module's doc)."""
    return _Kernel(target, instruction_set(target)).build()
