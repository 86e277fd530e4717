"""The interpreter's bytecode: its format, its value types and the instruction set of a target.

Bytecode is little-endian int32 words: a header (``MAGIC``, the array operands, the slots of
the flat index and of the size, the pcs of the prologue and of the body, then per array
operand the byte offset of its pointer in the launch parameters and its slot), then
instructions of ``INSTR_WORDS`` words: opcode, d, a, b, c.  Operands are slots (64-bit
registers holding a value's bits), or immediates where the opcode says so.
"""

from __future__ import annotations

import threading

from llvmlite import ir

from ..targets.base import MATH_FUNCTIONS

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
#: Byte offset of the compiled kernel's parameters in an interpreter launch's (after the
#: bytecode's address).
PARAMS_AT = 8
ENTRY = "rocarray_interp"

I1, I8, I16, I32, I64 = (ir.IntType(w) for w in (1, 8, 16, 32, 64))
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()
PTR = ir.PointerType()
_INT_WIDTHS = (1, 8, 16, 32, 64)
FLOAT_TYPES = {"f16": F16, "f32": F32, "f64": F64}
_RANK = {"f16": 0, "f32": 1, "f64": 2}
INT_BINOPS = ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "and", "or", "xor", "shl",
               "lshr", "ashr")
FLOAT_BINOPS = ("fadd", "fsub", "fmul", "fdiv", "frem")
_ICMP = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
_FCMP = ("oeq", "one", "ogt", "oge", "olt", "ole", "ord", "ueq", "une", "ugt", "uge", "ult", "ule",
         "uno")
#: LLVM intrinsics the lowering calls (``llvm.<base>.<f32|f64>``), beside the target's
#: math functions
_INTRINSIC_BASES = ("fabs", "sqrt", "floor", "ceil", "trunc", "rint", "round", "nearbyint",
                    "copysign", "minnum", "maxnum", "fma")


class NotInterpretable(Exception):
    """The body uses something the interpreter does not run (it is compiled instead)."""


_FLOAT_NAMES = {ir.HalfType: "f16", ir.FloatType: "f32", ir.DoubleType: "f64"}


def float_name(ty) -> str | None:
    return _FLOAT_NAMES.get(type(ty))


def scalar_name(ty) -> str:
    """"i8", "f32", "ptr" ... of a first-class scalar type (NotInterpretable otherwise)."""
    if isinstance(ty, ir.IntType):
        if ty.width not in _INT_WIDTHS:
            raise NotInterpretable(f"integer width {ty.width}")
        return f"i{ty.width}"
    f = float_name(ty)
    if f is not None:
        return f
    if isinstance(ty, ir.PointerType):
        return "ptr"
    raise NotInterpretable(f"values of type {ty}")


def size_align(ty) -> tuple[int, int]:
    if isinstance(ty, ir.IntType):
        n = max(1, ty.width // 8)
        return n, n
    if isinstance(ty, (ir.HalfType, ir.FloatType, ir.DoubleType)):
        n = {"f16": 2, "f32": 4, "f64": 8}[float_name(ty)]
        return n, n
    if isinstance(ty, ir.PointerType):
        return 8, 8
    if isinstance(ty, ir.ArrayType):
        s, a = size_align(ty.element)
        return s * ty.count, a
    if isinstance(ty, (ir.LiteralStructType, ir.IdentifiedStructType)):
        off, align = 0, 1
        for e in ty.elements:
            s, a = size_align(e)
            off += (-off) % a
            off += s
            align = max(align, a)
        return off + (-off) % align, align
    raise NotInterpretable(f"memory of type {ty}")


def field_offset(ty, k: int) -> int:
    off = 0
    for idx, e in enumerate(ty.elements):
        s, a = size_align(e)
        off += (-off) % a
        if idx == k:
            return off
        off += s
    raise NotInterpretable("struct field out of range")


def is_pair(ty) -> bool:
    """A complex value: a struct of two floats, kept in two consecutive slots."""
    return (isinstance(ty, ir.LiteralStructType) and len(ty.elements) == 2
            and float_name(ty.elements[0]) is not None and ty.elements[0] == ty.elements[1])


# -- the instruction set -----------------------------------------------------------------------


def external_functions(target) -> dict:
    """name -> ``ir.FunctionType`` of every function outside the body the interpreter can
    call on ``target``: its math functions and the LLVM intrinsics the lowering uses."""
    module = ir.Module()
    for fn, arity in MATH_FUNCTIONS.items():
        for ty in (F32, F64):
            try:
                target.math_function(module, fn, ty)
            except (ValueError, TypeError):
                continue
    for base in _INTRINSIC_BASES:
        for sfx, ty in (("f32", F32), ("f64", F64)):
            n = 3 if base == "fma" else 2 if base in ("copysign", "minnum", "maxnum") else 1
            name = f"llvm.{base}.{sfx}"
            if name not in module.globals:
                ir.Function(module, ir.FunctionType(ty, [ty] * n), name)
    for sfx, ty in (("f32", F32), ("f64", F64)):
        for kind in ("fptosi", "fptoui"):
            ir.Function(module, ir.FunctionType(I64, [ty]), f"llvm.{kind}.sat.i64.{sfx}")
    for sfx, ty in FLOAT_TYPES.items():
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
        names += [f"{op}.i{w}" for op in INT_BINOPS]
        names += [f"icmp.{p}.i{w}" for p in _ICMP]
        if w < 64:
            names += [f"zext.i{w}", f"sext.i{w}"]
    for f in FLOAT_TYPES:
        names += [f"{op}.{f}" for op in FLOAT_BINOPS]
        names.append(f"fneg.{f}")
        names += [f"fcmp.{p}.{f}" for p in _FCMP]
        for w in _INT_WIDTHS:
            names += [f"sitofp.i{w}.{f}", f"uitofp.i{w}.{f}"]
            if w > 1:
                names += [f"fptosi.{f}.i{w}", f"fptoui.{f}.i{w}"]
        for g in FLOAT_TYPES:
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
    if name == "lea" or head in INT_BINOPS or head in FLOAT_BINOPS or head in ("icmp", "fcmp"):
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
