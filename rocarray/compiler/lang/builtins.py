"""Built-in functions of the kernel language: <cmath> overloaded per argument type, min/max,
classification, and the complex functions of thrust::complex.

Rules for argument types: integer (and bool) arguments of float functions convert to double;
float16 arguments compute in float and the result is rounded back to half; ``f``-suffixed
names (``expf``) compute in float.  Two-argument functions take the common float type of their
arguments (an integer next to a float adopts the float's type, as CUDA's ``pow(float, int)``).
Operations with a target-independent LLVM lowering are intrinsics; transcendental functions go
through ``target.math_function``.  Complex functions are written in the kernel language itself
(``prelude.rk``) and instantiated per component type when used.
"""

from __future__ import annotations

import math

from llvmlite import ir

from .errors import KernelSyntaxError
from .types import (BOOL, COMPLEX_OF, FLOAT16, FLOAT32, FLOAT64, INT32, INT64, UINT32, UINT64, KType,
                    arith_type, promote_int)
from .values import Value

I1 = ir.IntType(1)

#: Unary float functions that are LLVM intrinsics with a lowering on every target.
_INTRINSIC_1 = {"sqrt": "sqrt", "fabs": "fabs", "floor": "floor", "ceil": "ceil",
                "trunc": "trunc", "rint": "rint", "round": "round", "nearbyint": "nearbyint"}
#: Unary transcendental functions: the target provides them.
_TARGET_1 = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
             "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt",
             "erf", "erfc", "lgamma", "tgamma")
#: Binary functions: intrinsic name or None (target).
_BINARY = {"atan2": None, "hypot": None, "pow": None, "fmod": None, "nextafter": None,
           "copysign": "copysign", "fmin": "minnum", "fmax": "maxnum"}
#: Complex functions implemented in prelude.rk (name -> prelude function).
_COMPLEX_1 = {n: "_c" + n for n in ("exp", "expm1", "log", "log1p", "log10", "log2", "sqrt",
                                    "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
                                    "atan", "asinh", "acosh", "atanh")}

_UNSUPPORTED_CALLS = {
    "atomicAdd": "atomic operations", "atomicSub": "atomic operations",
    "atomicMax": "atomic operations", "atomicMin": "atomic operations",
    "atomicExch": "atomic operations", "atomicCAS": "atomic operations",
    "atomicAnd": "atomic operations", "atomicOr": "atomic operations",
    "atomicXor": "atomic operations", "atomicInc": "atomic operations",
    "atomicDec": "atomic operations",
    "__syncthreads": "block synchronisation (__syncthreads)",
    "__syncwarp": "warp synchronisation", "__shfl_sync": "warp shuffles",
    "__shfl_down_sync": "warp shuffles", "__shfl_xor_sync": "warp shuffles",
    "printf": "printf", "malloc": "dynamic allocation", "free": "dynamic allocation",
    "assert": "assert", "sincos": "sincos (it returns through pointers; use sin and cos)",
    "sincosf": "sincos (it returns through pointers; use sin and cos)",
    "frexp": "frexp (it returns through a pointer)", "modf": "modf (it returns through a "
    "pointer)", "remquo": "remquo (it returns through a pointer)",
}


def math_result_type(types) -> KType:
    """Result type of a float math function on arguments of these types."""
    best = None
    for t in types:
        if t.kind == "f" and (best is None or t.bits > best.bits):
            best = t
    return best if best is not None else FLOAT64


def _compute(t: KType) -> KType:
    return FLOAT32 if t is FLOAT16 else t


def _arity(lw, node, args, n, name):
    if len(args) != n:
        raise lw.err(f"{name}() takes {n} argument{'s' if n != 1 else ''}, {len(args)} given",
                     node)


def _no_complex(lw, node, args, name):
    for a in args:
        if a.t.kind == "c":
            raise lw.err(f"{name}() is not defined for {a.t.name} arguments", node)
        if a.t.kind == "v":
            raise lw.err(f"void value passed to {name}()", node)


def _real_operands(lw, node, args, force32: bool):
    """(result type, compute type, the arguments converted to it) of a real float function;
    an error for complex arguments."""
    _no_complex(lw, node, args, node.name)
    rt = FLOAT32 if force32 else math_result_type([a.t for a in args])
    ct = _compute(rt)
    return rt, ct, [lw.convert(a, ct, node).v for a in args]


def _float_unary(name, force32=False):
    base = name

    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        a = args[0]
        if a.t.kind == "c" and not force32:
            if base in _COMPLEX_1:
                return lw.call_prelude(_COMPLEX_1[base], [a], node)
            if base == "fabs":
                return _cabs(lw, node, a)
            raise lw.err(f"{node.name}() is not defined for complex arguments", node)
        rt, ct, (x,) = _real_operands(lw, node, args, force32)
        if base in _INTRINSIC_1:
            r = lw.call_intrinsic(_INTRINSIC_1[base], ct, [x])
        else:
            r = lw.call_math(base, ct, [x])
        return lw.convert(Value(r, ct), rt, node)

    return handler


def _float_binary(name, force32=False):
    base = name

    def handler(lw, node, args):
        _arity(lw, node, args, 2, node.name)
        if base == "pow" and not force32 and (args[0].t.kind == "c" or args[1].t.kind == "c"):
            ct = COMPLEX_OF[_compute(math_result_type(
                [a.t.component if a.t.kind == "c" else a.t for a in args]))]
            x = lw.convert(args[0], ct, node)
            y = lw.convert(args[1], ct, node)
            return lw.call_prelude("_cpow", [x, y], node)
        rt, ct, (x, y) = _real_operands(lw, node, args, force32)
        intr = _BINARY[base]
        if intr is not None:
            r = lw.call_intrinsic(intr, ct, [x, y])
        else:
            r = lw.call_math(base, ct, [x, y])
        return lw.convert(Value(r, ct), rt, node)

    return handler


def _fma(force32=False):
    def handler(lw, node, args):
        _arity(lw, node, args, 3, node.name)
        rt, ct, xs = _real_operands(lw, node, args, force32)
        r = lw.call_intrinsic("fma", ct, xs)
        return lw.convert(Value(r, ct), rt, node)

    return handler


def _fdim(force32=False):
    def handler(lw, node, args):
        _arity(lw, node, args, 2, node.name)
        rt, ct, (x, y) = _real_operands(lw, node, args, force32)
        d = lw.fsub(x, y)
        # x > y: x - y; x <= y: +0; NaN propagates through the difference
        r = lw.b.select(lw.b.fcmp_ordered("<=", x, y), ir.Constant(ct.ir, 0.0), d)
        return lw.convert(Value(r, ct), rt, node)

    return handler


def _rsqrt(force32=False):
    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        rt, ct, (x,) = _real_operands(lw, node, args, force32)
        r = lw.fdiv(ir.Constant(ct.ir, 1.0), lw.call_intrinsic("sqrt", ct, [x]))
        return lw.convert(Value(r, ct), rt, node)

    return handler


def _cabs(lw, node, z: Value) -> Value:
    comp = z.t.component
    re, im = lw.cparts(z)
    return Value(lw.call_math("hypot", comp, [re, im]), comp)


def _abs(lw, node, args):
    _arity(lw, node, args, 1, node.name)
    a = args[0]
    t = a.t
    if t.kind == "c":
        return _cabs(lw, node, a)
    if t.kind == "v":
        raise lw.err("void value passed to abs()", node)
    if t.kind in "biu":
        pt = promote_int(t)
        x = lw.convert(a, pt, node).v
        if pt.kind == "u":
            return Value(x, pt)
        neg = lw.b.icmp_signed("<", x, ir.Constant(pt.ir, 0))
        return Value(lw.b.select(neg, lw.b.sub(ir.Constant(pt.ir, 0), x), x), pt)
    ct = _compute(t)
    x = lw.convert(a, ct, node).v
    return lw.convert(Value(lw.call_intrinsic("fabs", ct, [x]), ct), t, node)


def _int_abs(bits):
    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        t = INT32 if bits == 32 else INT64
        x = lw.convert(args[0], t, node).v
        neg = lw.b.icmp_signed("<", x, ir.Constant(t.ir, 0))
        return Value(lw.b.select(neg, lw.b.sub(ir.Constant(t.ir, 0), x), x), t)

    return handler


def _minmax(is_min):
    def handler(lw, node, args):
        _arity(lw, node, args, 2, node.name)
        _no_complex(lw, node, args, node.name)
        t = arith_type(args[0].t, args[1].t)
        a = lw.convert(args[0], t, node).v
        b = lw.convert(args[1], t, node).v
        bld = lw.b
        # std::min(a, b) = (b < a) ? b : a;  std::max(a, b) = (a < b) ? b : a
        if t.kind == "f":
            c = bld.fcmp_ordered("<", b, a) if is_min else bld.fcmp_ordered("<", a, b)
        elif t.kind == "i":
            c = bld.icmp_signed("<", b, a) if is_min else bld.icmp_signed("<", a, b)
        else:
            c = bld.icmp_unsigned("<", b, a) if is_min else bld.icmp_unsigned("<", a, b)
        return Value(bld.select(c, b, a), t)

    return handler


def _classify(kind):
    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        a = args[0]
        t = a.t
        bld = lw.b
        if t.kind == "v":
            raise lw.err(f"void value passed to {node.name}()", node)
        if t.kind in "biu":
            if kind == "signbit":
                if t.kind == "i":
                    return Value(bld.icmp_signed("<", a.v, ir.Constant(t.ir, 0)), BOOL)
                return Value(ir.Constant(I1, 0), BOOL)
            return Value(ir.Constant(I1, 1 if kind == "isfinite" else 0), BOOL)
        if t.kind == "c":
            if kind == "signbit":
                raise lw.err("signbit() is not defined for complex arguments", node)
            re, im = lw.cparts(a)
            comp = t.component
            r1 = _classify_float(lw, kind, Value(re, comp))
            r2 = _classify_float(lw, kind, Value(im, comp))
            # NumPy: isnan/isinf if either part is; isfinite if both are
            return Value(bld.and_(r1, r2) if kind == "isfinite" else bld.or_(r1, r2), BOOL)
        return Value(_classify_float(lw, kind, a), BOOL)

    return handler


def _classify_float(lw, kind, a: Value):
    bld = lw.b
    t = a.t
    x = a.v
    if kind == "signbit":
        ity = ir.IntType(t.bits)
        return bld.icmp_signed("<", bld.bitcast(x, ity), ir.Constant(ity, 0))
    if t is FLOAT16:
        x = bld.fpext(x, FLOAT32.ir)
        t = FLOAT32
    if kind == "isnan":
        return bld.fcmp_unordered("uno", x, x)
    ax = lw.call_intrinsic("fabs", t, [x])
    inf = ir.Constant(t.ir, math.inf)
    if kind == "isinf":
        return bld.fcmp_ordered("==", ax, inf)
    return bld.fcmp_ordered("<", ax, inf)   # isfinite: false for inf and NaN


def _real_imag(which):
    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        a = args[0]
        if a.t.kind == "c":
            re, im = lw.cparts(a)
            return Value(re if which == "real" else im, a.t.component)
        _no_complex(lw, node, args, node.name)
        t = a.t if a.t.kind == "f" else FLOAT64
        if which == "real":
            return lw.convert(a, t, node)
        return lw.const(t, 0)

    return handler


def _conj(lw, node, args):
    _arity(lw, node, args, 1, node.name)
    a = args[0]
    if a.t.kind == "c":
        re, im = lw.cparts(a)
        return lw.cmake(a.t, re, lw.b.fneg(im))
    _no_complex(lw, node, args, node.name)
    return a   # Note: std::conj of a real is complex; NumPy's conj keeps reals real


def _of_parts(of_complex, of_real):
    """A one-argument function of a complex number's parts, or of a real number computed in
    its float type and converted back (``arg``, ``norm``)."""
    def lower(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        a = args[0]
        if a.t.kind == "c":
            comp = a.t.component
            return Value(of_complex(lw, comp, *lw.cparts(a)), comp)
        rt, ct, (x,) = _real_operands(lw, node, args, False)
        return lw.convert(Value(of_real(lw, ct, x), ct), rt, node)
    return lower


_arg = _of_parts(lambda lw, t, re, im: lw.call_math("atan2", t, [im, re]),
                 lambda lw, t, x: lw.call_math("atan2", t, [ir.Constant(t.ir, 0.0), x]))
_norm = _of_parts(lambda lw, t, re, im: lw.fadd(lw.fmul(re, re), lw.fmul(im, im)),
                  lambda lw, t, x: lw.fmul(x, x))


def _polar(lw, node, args):
    if len(args) not in (1, 2):
        raise lw.err(f"polar() takes 1 or 2 arguments, {len(args)} given", node)
    _no_complex(lw, node, args, node.name)
    rt = _compute(math_result_type([a.t for a in args]))
    r = lw.convert(args[0], rt, node).v
    ct = COMPLEX_OF[rt]
    if len(args) == 1:
        return lw.cmake(ct, r, ir.Constant(rt.ir, 0.0))
    th = lw.convert(args[1], rt, node).v
    c = lw.call_math("cos", rt, [th])
    s = lw.call_math("sin", rt, [th])
    return lw.cmake(ct, lw.fmul(r, c), lw.fmul(r, s))


def _unsupported_call(what):
    def handler(lw, node, args):
        raise lw.err(f"{what} are not supported" if what.endswith("s") else
                     f"{what} is not supported", node, KernelSyntaxError)

    return handler


# -- CUDA device intrinsics that kernels written for CuPy use --------------------------------


def _convert_to(t: KType, rounding: str | None = None):
    """``__float2int_rn`` and friends: round (rn/rz/rd/ru) and convert to ``t``."""
    op = {"rn": "rint", "rd": "floor", "ru": "ceil", "rz": None, None: None}[rounding]

    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        _no_complex(lw, node, args, node.name)
        v = args[0]
        if op is not None and v.t.kind == "f":
            ct = _compute(v.t)
            x = lw.convert(v, ct, node).v
            v = Value(lw.call_intrinsic(op, ct, [x]), ct)
        return lw.convert(v, t, node, explicit=True)

    return handler


def _uncontracted(op, t: KType):
    """``__fadd_rn`` etc.: one IEEE operation that is never fused."""
    def handler(lw, node, args):
        _arity(lw, node, args, 2, node.name)
        _no_complex(lw, node, args, node.name)
        x = lw.convert(args[0], t, node).v
        y = lw.convert(args[1], t, node).v
        fn = {"add": lw.b.fadd, "sub": lw.b.fsub, "mul": lw.b.fmul, "div": lw.b.fdiv}[op]
        return Value(fn(x, y), t)

    return handler


def _mulhi(t: KType):
    """``__umulhi`` etc.: the high half of the full product of two integers of type ``t``
    (CUDA's intrinsics; the wide product is one instruction on every target)."""
    wide = ir.IntType(2 * t.bits)

    def handler(lw, node, args):
        _arity(lw, node, args, 2, node.name)
        _no_complex(lw, node, args, node.name)
        b = lw.b
        ext = b.sext if t.kind == "i" else b.zext
        x, y = (ext(lw.convert(a, t, node).v, wide) for a in args)
        hi = b.lshr(b.mul(x, y), ir.Constant(wide, t.bits))
        return Value(b.trunc(hi, t.ir), t)

    return handler


def _recip(t: KType):
    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        _no_complex(lw, node, args, node.name)
        x = lw.convert(args[0], t, node).v
        return Value(lw.fdiv(ir.Constant(t.ir, 1.0), x), t)

    return handler


def _saturate(lw, node, args):
    _arity(lw, node, args, 1, node.name)
    _no_complex(lw, node, args, node.name)
    x = lw.convert(args[0], FLOAT32, node).v
    b = lw.b
    zero = ir.Constant(FLOAT32.ir, 0.0)
    one = ir.Constant(FLOAT32.ir, 1.0)
    # NaN -> 0, as CUDA's __saturatef
    r = b.select(b.fcmp_ordered(">", x, zero), x, zero)
    return Value(b.select(b.fcmp_ordered("<", r, one), r, one), FLOAT32)


def _bitcast(src: KType, dst: KType):
    def handler(lw, node, args):
        _arity(lw, node, args, 1, node.name)
        _no_complex(lw, node, args, node.name)
        x = lw.convert(args[0], src, node).v
        return Value(lw.b.bitcast(x, dst.ir), dst)

    return handler


def _cuda_intrinsics(table):
    names = {"int": INT32, "uint": UINT32, "ll": INT64, "ull": UINT64, "float": FLOAT32,
             "double": FLOAT64, "half": FLOAT16}
    for src in ("float", "double"):
        for dst in ("int", "uint", "ll", "ull"):
            for rnd in ("rn", "rz", "rd", "ru"):
                table[f"__{src}2{dst}_{rnd}"] = _convert_to(names[dst], rnd)
    for src in ("int", "uint", "ll", "ull"):
        for dst in ("float", "double"):
            table[f"__{src}2{dst}_rn"] = _convert_to(names[dst])
    table["__double2float_rn"] = _convert_to(FLOAT32)
    for name in ("__float2half", "__float2half_rn", "__double2half"):
        table[name] = _convert_to(FLOAT16)
    table["__half2float"] = _convert_to(FLOAT32)
    for fn in ("exp", "log", "sin", "cos", "tan", "log2", "log10"):
        table[f"__{fn}f"] = _float_unary(fn, force32=True)
    table["__powf"] = _float_binary("pow", force32=True)
    table["__fsqrt_rn"] = _float_unary("sqrt", force32=True)
    table["__dsqrt_rn"] = _convert_then(_float_unary("sqrt"), FLOAT64)
    table["__fdividef"] = table["fdividef"] = _uncontracted("div", FLOAT32)
    for op in ("add", "sub", "mul", "div"):
        table[f"__f{op}_rn"] = _uncontracted(op, FLOAT32)
        table[f"__d{op}_rn"] = _uncontracted(op, FLOAT64)
    table["__fmaf_rn"] = _fma(True)
    table["__fma_rn"] = _fma()
    table["__frcp_rn"] = _recip(FLOAT32)
    table["__drcp_rn"] = _recip(FLOAT64)
    table["__saturatef"] = _saturate
    table["__mulhi"] = _mulhi(INT32)
    table["__umulhi"] = _mulhi(UINT32)
    table["__mul64hi"] = _mulhi(INT64)
    table["__umul64hi"] = _mulhi(UINT64)
    table["__int_as_float"] = _bitcast(INT32, FLOAT32)
    table["__uint_as_float"] = _bitcast(UINT32, FLOAT32)
    table["__float_as_int"] = _bitcast(FLOAT32, INT32)
    table["__float_as_uint"] = _bitcast(FLOAT32, UINT32)
    table["__longlong_as_double"] = _bitcast(INT64, FLOAT64)
    table["__double_as_longlong"] = _bitcast(FLOAT64, INT64)


def _convert_then(handler, t: KType):
    def wrapped(lw, node, args):
        return handler(lw, node, [lw.convert(a, t, node) for a in args])

    return wrapped


def _op_boundary(lw, node, args):
    """``__rk_op_boundary(x)``: x, rounded to its type and never contracted with what follows.

    ``rocarray.fuse`` puts it between the ops it fuses, so a fused kernel rounds each
    intermediate as the unfused ops would: a product of one op is never contracted with an
    add of the next (the lowering forgets it as a product), and where the target's facts
    say so (``fence_intermediates``: the GPUs) ``llvm.arithmetic.fence`` keeps LLVM from
    carrying an intermediate in more precision; elsewhere (the host) float16 is fenced (the
    host promotes half), float32/float64 need no fence and stay vectorisable."""
    _arity(lw, node, args, 1, node.name)
    v = args[0]
    t = v.t
    lw._products.pop(id(v.v), None)
    if t.kind not in "fc":
        return v
    comp = t.component if t.kind == "c" else t
    if not lw.target.facts.fence_intermediates and comp.bits != 16:
        return v
    fn = lw.intrinsic(f"llvm.arithmetic.fence.{_FSUFFIX_OF[comp.bits]}", comp.ir, [comp.ir])
    if t.kind == "f":
        return Value(lw.b.call(fn, [v.v]), t)
    re, im = lw.cparts(v)
    return lw.cmake(t, lw.b.call(fn, [re]), lw.b.call(fn, [im]))


_FSUFFIX_OF = {16: "f16", 32: "f32", 64: "f64"}


def _build_table():
    table = {}
    for name in list(_INTRINSIC_1) + list(_TARGET_1):
        table[name] = _float_unary(name)
        table[name + "f"] = _float_unary(name, force32=True)
    for name in _BINARY:
        table[name] = _float_binary(name)
        table[name + "f"] = _float_binary(name, force32=True)
    table["fma"] = _fma()
    table["fmaf"] = _fma(True)
    table["fdim"] = _fdim()
    table["fdimf"] = _fdim(True)
    table["rsqrt"] = _rsqrt()
    table["rsqrtf"] = _rsqrt(True)
    table["abs"] = _abs
    table["labs"] = _int_abs(64)
    table["llabs"] = _int_abs(64)
    table["min"] = _minmax(True)
    table["max"] = _minmax(False)
    for kind in ("isnan", "isinf", "isfinite", "signbit"):
        table[kind] = _classify(kind)
    table["real"] = _real_imag("real")
    table["imag"] = _real_imag("imag")
    table["conj"] = _conj
    table["arg"] = _arg
    table["norm"] = _norm
    table["polar"] = _polar
    _cuda_intrinsics(table)
    table["__rk_op_boundary"] = _op_boundary
    for name, what in _UNSUPPORTED_CALLS.items():
        table[name] = _unsupported_call(what)
    return table


BUILTINS = _build_table()

__all__ = ["BUILTINS", "math_result_type"]
