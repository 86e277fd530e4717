"""Lowering of parsed kernel-language code to LLVM IR (llvmlite ``ir``).

Types are checked while lowering: every expression becomes a ``Value`` (LLVM value + KType).
Locals live in allocas at the top of the entry block (LLVM's mem2reg makes them registers);
conditionals, ``&&``/``||`` and ``?:`` branch, so a guarded load never runs when its guard
fails.  Integer ``/`` and ``%`` by zero give 0, shifts by out-of-range counts are defined,
float-to-integer conversions saturate (no poison anywhere).
"""

from __future__ import annotations

from llvmlite import ir

from . import syntax as A
from .calls import CallLowering
from .errors import KernelNameError, KernelSyntaxError, KernelTypeError
from .expressions import ExpressionLowering
from .ir_types import FSUFFIX, I1, I8, I32, I64, PTR
from .statements import StatementLowering
from .types import BOOL, FLOAT16, FLOAT32, FLOAT64, UINT64, VOID, KType, complex_of_component
from .values import FuncCtx, LValue, Value


class Lowerer(ExpressionLowering, CallLowering, StatementLowering):
    """Lowers one kernel (its body and the preamble functions it calls) into a module."""

    def __init__(self, module: ir.Module, target, kernel_name: str, typedefs: dict,
                 unit: A.Unit, prefix: str, whole_stores: bool = False):
        self.module = module
        self.target = target
        self.kernel_name = kernel_name
        self.typedefs = typedefs          # name -> KType
        self.unit = unit                  # the user's preamble
        self.prefix = prefix
        #: a complex element of a raw array stored as one vector (``_store_whole``): on GPUs
        #: always, on the host where the kernel asks (``compile_scalar_function``)
        self.whole_stores = bool(whole_stores or target.facts.emits_grid)
        self.instances: dict = {}         # (id(FuncDef), types) -> ir.Function
        self.active: list = []            # instantiation stack (recursion check)
        self.ctx: FuncCtx | None = None
        self.global_stack: list = []
        self._alloca_addrspace: int | None = None
        #: whether a product feeding an add is contracted (``fadd``): the target's facts say
        #: (GPUs, and a host whose CPU has FMA instructions); the products so far
        self.contracts = target.facts.contracts
        self._products: dict = {}

    # -- errors -------------------------------------------------------------------------------

    def err(self, msg, node, cls=KernelTypeError):
        text, where = self.ctx.source if self.ctx is not None else (None, "body")
        line = getattr(node, "line", None)
        col = getattr(node, "col", None)
        return cls(msg, line, col, source=text, where=where)

    # -- small IR helpers ---------------------------------------------------------------------

    @property
    def b(self) -> ir.IRBuilder:
        return self.ctx.b

    def const(self, t: KType, value) -> Value:
        if t.kind == "c":
            c = complex(value)
            return Value(ir.Constant(t.ir, [ir.Constant(t.component.ir, c.real),
                                            ir.Constant(t.component.ir, c.imag)]), t)
        if t.kind == "b":
            return Value(ir.Constant(I1, int(bool(value))), t)
        if t.kind == "f":
            return Value(ir.Constant(t.ir, float(value)), t)
        v = int(value) & ((1 << t.bits) - 1)
        return Value(ir.Constant(t.ir, v), t)

    def intrinsic(self, name: str, ret, args) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, list(args)), name)
        return fn

    def call_intrinsic(self, base: str, t: KType, args):
        """Call a float intrinsic such as llvm.sqrt on arguments of float type t."""
        fn = self.intrinsic(f"llvm.{base}.{FSUFFIX[t.bits]}", t.ir, [t.ir] * len(args))
        return self.b.call(fn, args)

    def call_math(self, fn_name: str, t: KType, args):
        """Call the target's math function fn_name on float32/float64 arguments."""
        fn = self.target.math_function(self.module, fn_name, t.ir)
        return self.b.call(fn, args)

    def alloca(self, ty, name=""):
        """A stack slot, as a generic ``ptr``.  Where the target keeps the stack in its own
        address space (AMDGPU: 5), the slot is allocated there and cast to generic, as clang
        does; LLVM's address-space inference and SROA remove the cast."""
        entry = self.ctx.entry
        aspace = self.alloca_addrspace
        if aspace:
            slot = _AllocaInAddrspace(entry, ty, name, aspace)
            entry.instructions.append(slot)
            return ir.IRBuilder(entry).addrspacecast(slot, PTR)
        slot = ir.IRBuilder(entry).alloca(ty, name=name)
        slot.type = PTR   # llvmlite types allocas as typed pointers; LLVM 22 wants 'ptr'
        return slot

    @property
    def alloca_addrspace(self) -> int:
        aspace = self._alloca_addrspace
        if aspace is None:
            aspace = self._alloca_addrspace = _alloca_addrspace(self.module, self.target)
        return aspace

    def finish(self):
        """Close the function: return at the end of the body, link the alloca block."""
        ctx = self.ctx
        if not ctx.b.block.is_terminated:
            if ctx.ret is VOID:
                ctx.b.ret_void()
            else:
                # falling off the end of a non-void function: defined as returning 0
                ctx.b.ret(self.const(ctx.ret, 0).v)
        ir.IRBuilder(ctx.entry).branch(ctx.fn.blocks[1])

    def new_block(self, name=""):
        return self.ctx.fn.append_basic_block(name)

    def branch_to(self, bb):
        if not self.b.block.is_terminated:
            self.b.branch(bb)

    def dead_block(self):
        self.b.position_at_end(self.new_block("dead"))

    # -- float ops: no fast-math flags; contraction explicit ----------------------------------
    #
    # On a GPU target (and a host with FMA) a multiply that feeds an add or a subtract
    # directly -- within one expression, or one step of a helper such as the complex
    # product -- becomes one ``llvm.fma`` here, as C's ``FP_CONTRACT ON`` allows; a
    # product kept in a local first is rounded.  Contraction is decided here and nowhere
    # else (no ``contract`` flags for the backend to act on), so every tier of a kernel
    # computes the same bits: the interpreter of first calls (``compiler/interp.py``), the
    # quick tier and the full one.  A host contracts where its CPU has FMA instructions,
    # as NumPy's own loops do there (its complex products, for one).

    def fadd(self, x, y):
        m = self._product(x)
        if m is not None:
            return self.call_intrinsic("fma", m[2], [m[0], m[1], y])
        m = self._product(y)
        if m is not None:
            return self.call_intrinsic("fma", m[2], [m[0], m[1], x])
        return self.b.fadd(x, y)

    def fsub(self, x, y):
        m = self._product(x)
        if m is not None:
            return self.call_intrinsic("fma", m[2], [m[0], m[1], self.b.fneg(y)])
        m = self._product(y)
        if m is not None:
            return self.call_intrinsic("fma", m[2], [self.b.fneg(m[0]), m[1], x])
        return self.b.fsub(x, y)

    def fmul(self, x, y):
        r = self.b.fmul(x, y)
        if self.contracts and isinstance(r.type, (ir.FloatType, ir.DoubleType)):
            self._products[id(r)] = (x, y, r)
        return r

    def _product(self, v):
        """(x, y, KType) when ``v`` is a product made by ``fmul`` that may be contracted."""
        p = self._products.get(id(v)) if self._products else None
        if p is None or p[2] is not v:
            return None
        return p[0], p[1], FLOAT32 if isinstance(v.type, ir.FloatType) else FLOAT64

    def fdiv(self, x, y):
        return self.b.fdiv(x, y)

    # -- complex helpers ----------------------------------------------------------------------

    def cparts(self, v: Value):
        return self.b.extract_value(v.v, 0), self.b.extract_value(v.v, 1)

    def cmake(self, t: KType, re, im) -> Value:
        agg = ir.Constant(t.ir, ir.Undefined)
        agg = self.b.insert_value(agg, re, 0)
        agg = self.b.insert_value(agg, im, 1)
        return Value(agg, t)

    # -- conversions --------------------------------------------------------------------------

    def to_bool(self, v: Value, node) -> ir.Value:
        t = v.t
        if t is BOOL:
            return v.v
        b = self.b
        if t.kind in "iu":
            return b.icmp_unsigned("!=", v.v, ir.Constant(t.ir, 0))
        if t.kind == "f":
            return b.fcmp_unordered("!=", v.v, ir.Constant(t.ir, 0.0))
        if t.kind == "c":
            raise self.err(f"a {t.name} value cannot be used as a condition", node)
        raise self.err("a void value cannot be used as a condition", node)

    def convert(self, v: Value, t: KType, node, explicit: bool = False) -> Value:
        f = v.t
        if f is t:
            return v
        if f is VOID or t is VOID:
            if t is VOID and explicit:
                return Value(None, VOID)
            raise self.err("void value used where a value is needed" if f is VOID
                           else "cannot convert to void", node)
        b = self.b
        if t.kind == "c":
            comp = t.component
            if f.kind == "c":
                re, im = self.cparts(v)
                re = self.convert(Value(re, f.component), comp, node).v
                im = self.convert(Value(im, f.component), comp, node).v
                return self.cmake(t, re, im)
            re = self.convert(v, comp, node).v
            return self.cmake(t, re, ir.Constant(comp.ir, 0.0))
        if f.kind == "c":
            if not explicit:
                raise self.err(f"cannot convert {f.name} to {t.name} implicitly (use real(z), "
                               "abs(z) or an explicit cast)", node)
            re, im = self.cparts(v)
            if t is BOOL:
                zero = ir.Constant(f.component.ir, 0.0)
                return Value(b.or_(b.fcmp_unordered("!=", re, zero),
                                   b.fcmp_unordered("!=", im, zero)), BOOL)
            return self.convert(Value(re, f.component), t, node)
        if t is BOOL:
            return Value(self.to_bool(v, node), BOOL)
        x = v.v
        if f is BOOL:
            if t.kind in "iu":
                return Value(b.zext(x, t.ir), t)
            return Value(b.uitofp(x, t.ir), t)
        if f.kind in "iu":
            if t.kind in "iu":
                if t.bits < f.bits:
                    return Value(b.trunc(x, t.ir), t)
                if t.bits > f.bits:
                    return Value(b.sext(x, t.ir) if f.kind == "i" else b.zext(x, t.ir), t)
                return Value(x, t)
            # to float
            return Value(b.sitofp(x, t.ir) if f.kind == "i" else b.uitofp(x, t.ir), t)
        # f is float
        if t.kind == "f":
            if t.bits > f.bits:
                return Value(b.fpext(x, t.ir), t)
            if f is FLOAT64 and t is FLOAT16:
                return Value(self.double_to_half(x), t)
            return Value(b.fptrunc(x, t.ir), t)
        # float -> integer, defined for every input: 64-bit targets saturate (NaN -> 0),
        # narrower ones convert through int64 and wrap, as NumPy does on x86.
        if f is FLOAT16:
            x = b.fpext(x, FLOAT32.ir)
            f = FLOAT32
        sfx = FSUFFIX[f.bits]
        if t is UINT64:
            fn = self.intrinsic(f"llvm.fptoui.sat.i64.{sfx}", I64, [f.ir])
            return Value(b.call(fn, [x]), t)
        fn = self.intrinsic(f"llvm.fptosi.sat.i64.{sfx}", I64, [f.ir])
        r = b.call(fn, [x])
        if t.bits < 64:
            r = b.trunc(r, t.ir)
        return Value(r, t)

    def double_to_half(self, d):
        """Correctly rounded double -> half without a libcall: round to odd into float,
        then round to nearest into half."""
        b = self.b
        f = b.fptrunc(d, FLOAT32.ir)
        back = b.fpext(f, FLOAT64.ir)
        inexact = b.fcmp_ordered("!=", back, d)
        bits = b.bitcast(f, I32)
        fabs = self.intrinsic("llvm.fabs.f64", FLOAT64.ir, [FLOAT64.ir])
        over = b.fcmp_ordered(">", b.call(fabs, [back]), b.call(fabs, [d]))
        toward_zero = b.select(over, b.sub(bits, ir.Constant(I32, 1)), bits)
        odd = b.or_(toward_zero, ir.Constant(I32, 1))
        f2 = b.bitcast(b.select(inexact, odd, bits), FLOAT32.ir)
        return b.fptrunc(f2, FLOAT16.ir)

    # -- types --------------------------------------------------------------------------------

    def resolve(self, spec: A.TypeSpec, _depth: int = 0) -> KType:
        kind = spec.kind
        if kind == "k":
            return spec.ktype
        if kind == "complex":
            comp = self.resolve(spec.arg, _depth + 1)
            c = complex_of_component(comp)
            if c is None:
                if comp is FLOAT16:
                    raise self.err("complex<half> is not supported", spec)
                raise self.err(f"complex<{comp.name}> is not supported (use complex<float> "
                               "or complex<double>)", spec)
            return c
        if kind == "auto":
            raise self.err("'auto' needs an initialiser", spec, KernelSyntaxError)
        name = spec.name
        for scope in reversed(self.ctx.types):
            t = scope.get(name)
            if t is not None:
                return t
        unit = self.ctx.unit
        if unit is not None and name in unit.typedefs:
            if _depth > 50:
                raise self.err(f"typedef '{name}' refers to itself", spec)
            return self.resolve(unit.typedefs[name], _depth + 1)
        t = self.typedefs.get(name)
        if t is not None:
            return t
        raise self.err(f"unknown type '{name}' (a type placeholder that no parameter binds?)",
                       spec, KernelNameError)

    # -- names --------------------------------------------------------------------------------

    def lookup(self, name: str):
        for scope in reversed(self.ctx.scopes):
            sym = scope.get(name)
            if sym is not None:
                return sym
        return None

    def declare(self, name: str, sym, node):
        scope = self.ctx.scopes[-1]
        if name in scope:
            what = ("a kernel parameter" if name in self.ctx.params and len(self.ctx.scopes) == 1
                    else "already declared in this scope")
            raise self.err(f"redeclaration of '{name}' ({what})", node, KernelSyntaxError)
        scope[name] = sym

    def load(self, lv: LValue) -> Value:
        if lv.value is not None:
            return Value(lv.value, lv.t)
        t = lv.t
        v = self.b.load(lv.ptr, typ=t.storage)
        if t is BOOL:
            v = self.b.icmp_unsigned("!=", v, ir.Constant(I8, 0))
        return Value(v, t)

    def store(self, lv: LValue, v: Value, node):
        if lv.const or lv.value is not None:
            raise self.err(f"cannot assign to {lv.const or lv.name}", node)
        x = v.v
        if lv.t is BOOL:
            x = self.b.zext(x, I8)
        if lv.element and self.whole_stores and isinstance(x.type, ir.LiteralStructType):
            self._store_whole(x, lv.ptr)
            return
        self.b.store(x, lv.ptr)

    def _store_whole(self, x, ptr) -> None:
        """A complex element of a raw array stored as one vector, so that two threads
        writing one element (a scatter's repeated indices) leave one's value, not a part of
        each: on a GPU where its address is aligned to its size (a misaligned vector access
        faults there; part by part otherwise), on the host at its parts' alignment (one
        store instruction either way)."""
        b = self.b
        part = x.type.elements[0]
        size = 8 if isinstance(part, ir.FloatType) else 16
        vec = ir.Constant(ir.VectorType(part, 2), ir.Undefined)
        for k in range(2):
            vec = b.insert_element(vec, b.extract_value(x, k), ir.Constant(I32, k))
        if not self.target.facts.emits_grid:
            b.store(vec, ptr, align=size // 2)
            return
        aligned = b.icmp_unsigned("==", b.and_(b.ptrtoint(ptr, I64), ir.Constant(I64, size - 1)), ir.Constant(I64, 0))
        with b.if_else(aligned) as (whole, parts):
            with whole:
                b.store(vec, ptr, align=size)
            with parts:
                b.store(x, ptr)

    # -- expressions --------------------------------------------------------------------------

    def expr(self, node) -> Value:
        """Lower an expression to an rvalue."""
        fn = _EXPR.get(type(node))
        if fn is None:
            raise self.err(f"unsupported expression {type(node).__name__}", node,
                           KernelSyntaxError)
        return fn(self, node)

    def stmt(self, node):
        fn = _STMT.get(type(node))
        if fn is None:
            raise self.err(f"unsupported statement {type(node).__name__}", node,
                           KernelSyntaxError)
        fn(self, node)


class _AllocaInAddrspace(ir.instructions.AllocaInstr):
    """``alloca T, addrspace(N)`` (llvmlite's builder has no address-space argument)."""

    def __init__(self, parent, typ, name, addrspace):
        super().__init__(parent, typ, None, name)
        self.type = ir.PointerType(addrspace=addrspace)
        self.addrspace = addrspace

    def descr(self, buf):
        buf.append(f"alloca {self.allocated_type}, addrspace({self.addrspace})")


def _alloca_addrspace(module: ir.Module, target) -> int:
    """Address space of stack slots: the data layout's 'A<n>' when the module has one, else
    the target's (``TargetFacts.alloca_address_space``)."""
    layout = module.data_layout or ""
    for part in layout.split("-"):
        if part.startswith("A") and part[1:].isdigit():
            return int(part[1:])
    if layout:
        return 0
    return target.facts.alloca_address_space


_EXPR = {
    A.Num: Lowerer.ex_num, A.Name: Lowerer.ex_name, A.Unary: Lowerer.ex_unary,
    A.IncDec: Lowerer.ex_incdec, A.Binary: Lowerer.ex_binary, A.Assign: Lowerer.ex_assign,
    A.Cond: Lowerer.ex_cond, A.Comma: Lowerer.ex_comma, A.Cast: Lowerer.ex_cast,
    A.Call: Lowerer.ex_call, A.Method: Lowerer.ex_method, A.Index: Lowerer.ex_index,
    A.SizeOf: Lowerer.ex_sizeof, A.InitList: Lowerer.ex_initlist,
}

_STMT = {
    A.Block: Lowerer.st_block, A.Empty: Lowerer.st_empty, A.ExprStmt: Lowerer.st_expr,
    A.Decl: Lowerer.st_decl, A.Typedef: Lowerer.st_typedef, A.If: Lowerer.st_if,
    A.While: Lowerer.st_while, A.DoWhile: Lowerer.st_dowhile, A.For: Lowerer.st_for,
    A.Switch: Lowerer.st_switch, A.Case: Lowerer.st_case, A.Break: Lowerer.st_break,
    A.Continue: Lowerer.st_continue, A.Return: Lowerer.st_return,
}
