"""The host target: compile hand-written kernels that follow the kernel ABI, JIT them into
this process and compare with NumPy; math functions; vector code; the object loader."""

from __future__ import annotations

import ctypes
import math
import os

import numpy as np
import pytest
from llvmlite import ir

from rocarray.targets.base import MAX_DIMS, ToolchainError
from rocarray.runtime.hostload import elf_symbols, load_host_object, object_file
from rocarray.targets.host import PIPELINES, HostTarget

I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
DIMS = ir.ArrayType(I64, MAX_DIMS)
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()

_NP_OF = {"half": np.float16, "float": np.float32, "double": np.float64,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
_CT_OF = {"float": ctypes.c_float, "double": ctypes.c_double, "i32": ctypes.c_int32,
          "i64": ctypes.c_int64, "i8": ctypes.c_int8, "i16": ctypes.c_int16}


@pytest.fixture(scope="module")
def target():
    return HostTarget()


_counter = [0]


def _fresh(prefix: str) -> str:
    _counter[0] += 1
    return f"{prefix}_{_counter[0]}"


# -- a hand-written elementwise kernel following the host ABI ---------------------------


def abi_kernel(target, name, inputs, outputs, body) -> ir.Module:
    """Module with host kernel ``name``: ``void name(ptr args, i64 start, i64 stop)``.

    ``inputs``: ``[("array" | "scalar", type)]``, ``outputs``: output array types;
    ``body(builder, module, values) -> [results]`` computes one element.  As the real
    skeleton does, the scalar body is an always-inline ``void body(ptr p0, ..., i64 i,
    i64 n)`` and the entry has a contiguous path (all innermost strides equal the item
    size, ndim 1: indexed addressing, which vectorises) and a strided path (the flat index
    unravelled over ``shape``, byte strides).
    """
    m = ir.Module(name=name)
    m.triple, m.data_layout = target.triple, target.data_layout
    fields = [I64, I64, DIMS]
    operands = [*inputs, *(("array", t) for t in outputs)]
    for kind, ty in operands:
        fields += [PTR, DIMS] if kind == "array" else [ty]
    args_ty = ir.LiteralStructType(fields)

    nops = len(operands)
    body_fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR] * nops + [I64, I64]), "body")
    body_fn.linkage = "internal"
    body_fn.attributes.add("alwaysinline")
    bb = ir.IRBuilder(body_fn.append_basic_block("entry"))
    vals = [bb.load(body_fn.args[k], typ=ty) for k, (_, ty) in enumerate(inputs)]
    results = body(bb, m, vals)
    for k, r in enumerate(results):
        bb.store(r, body_fn.args[len(inputs) + k])
    bb.ret_void()

    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), name)
    target.mark_kernel(fn)
    args, start, stop = fn.args
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(entry)

    def field(k):
        return b.gep(args, [I32(0), I32(k)], source_etype=args_ty)

    n = b.load(field(0), typ=I64)
    ndim = b.load(field(1), typ=I64)
    shape = field(2)
    ptrs, strides, contiguous = [], [], b.icmp_signed("==", ndim, I64(1))
    pos = 3
    for kind, ty in operands:
        if kind == "array":
            ptrs.append(b.load(field(pos), typ=PTR))
            st = field(pos + 1)
            strides.append(st)
            inner = b.load(b.gep(st, [I32(0), I32(0)], source_etype=DIMS), typ=I64)
            size = {"half": 2, "float": 4, "double": 8}.get(str(ty)) or ty.width // 8
            contiguous = b.and_(contiguous, b.icmp_signed("==", inner, I64(size)))
            pos += 2
        else:
            slot = b.alloca(ty)
            b.store(b.load(field(pos), typ=ty), slot)
            ptrs.append(slot)
            strides.append(None)
            pos += 1

    pre = fn.append_basic_block("pre")
    contig = fn.append_basic_block("contig")
    strided = fn.append_basic_block("strided")
    dims = fn.append_basic_block("dims")
    call = fn.append_basic_block("call")
    done = fn.append_basic_block("done")
    b.cbranch(b.icmp_signed("<", start, stop), pre, done)
    b.position_at_end(pre)
    b.cbranch(contiguous, contig, strided)

    b.position_at_end(contig)
    i = b.phi(I64)
    i.add_incoming(start, pre)
    eptrs = [p if st is None else b.gep(p, [i], source_etype=ty)
             for p, st, (_, ty) in zip(ptrs, strides, operands)]
    b.call(body_fn, eptrs + [i, n])
    i_next = b.add(i, I64(1))
    i.add_incoming(i_next, contig)
    b.cbranch(b.icmp_signed("<", i_next, stop), contig, done)

    b.position_at_end(strided)
    j = b.phi(I64)
    j.add_incoming(start, pre)
    b.branch(dims)
    b.position_at_end(dims)
    d = b.phi(I64)
    rem = b.phi(I64)
    offs = [b.phi(I64) for _ in operands]
    d.add_incoming(ndim, strided)
    rem.add_incoming(j, strided)
    for o in offs:
        o.add_incoming(I64(0), strided)
    d1 = b.sub(d, I64(1))
    extent = b.load(b.gep(shape, [I32(0), d1], source_etype=DIMS), typ=I64)
    idx = b.urem(rem, extent)
    new_offs = []
    for o, st in zip(offs, strides):
        if st is None:
            new_offs.append(o)
        else:
            s = b.load(b.gep(st, [I32(0), d1], source_etype=DIMS), typ=I64)
            new_offs.append(b.add(o, b.mul(idx, s)))
    d.add_incoming(d1, dims)
    rem.add_incoming(b.udiv(rem, extent), dims)
    for o, no in zip(offs, new_offs):
        o.add_incoming(no, dims)
    b.cbranch(b.icmp_signed(">", d1, I64(0)), dims, call)
    b.position_at_end(call)
    eptrs = [p if st is None else b.gep(p, [o], source_etype=ir.IntType(8))
             for p, st, o in zip(ptrs, strides, new_offs)]
    b.call(body_fn, eptrs + [j, n])
    j_next = b.add(j, I64(1))
    j.add_incoming(j_next, call)
    b.cbranch(b.icmp_signed("<", j_next, stop), strided, done)

    b.position_at_end(done)
    b.ret_void()
    return m


def pack_args(inputs, outputs, arrays_and_scalars, out_arrays, shape):
    """The kernel's argument bytes (natural alignment, as C lays the struct out)."""
    fields = [("n", ctypes.c_int64), ("ndim", ctypes.c_int64), ("shape", ctypes.c_int64 * MAX_DIMS)]
    values = []
    for k, ((kind, ty), v) in enumerate(zip([*inputs, *(("array", t) for t in outputs)],
                                            [*arrays_and_scalars, *out_arrays])):
        if kind == "array":
            fields += [(f"p{k}", ctypes.c_void_p), (f"s{k}", ctypes.c_int64 * MAX_DIMS)]
            v = np.broadcast_to(v, shape) if v.shape != tuple(shape) else v
            strides = list(v.strides) + [0] * (MAX_DIMS - v.ndim)
            values += [v.ctypes.data, (ctypes.c_int64 * MAX_DIMS)(*strides)]
        else:
            fields.append((f"v{k}", _CT_OF[str(ty)]))
            values.append(v)
    struct_t = type("Args", (ctypes.Structure,), {"_fields_": fields})
    shape = list(shape) or [1]
    n = int(np.prod(shape))
    return struct_t(n, len(shape), (ctypes.c_int64 * MAX_DIMS)(*(shape + [1] * (MAX_DIMS - len(shape)))), *values), n


_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


def run_kernel(target, inputs, outputs, body, arrays, shape, *, out_dtypes, ranges=None):
    name = _fresh("k")
    obj = target.compile(abi_kernel(target, name, inputs, outputs, body))
    fn = _ENTRY(load_host_object(obj).address(name))
    outs = [np.full(shape, 0, dtype=dt) for dt in out_dtypes]
    args, n = pack_args(inputs, outputs, arrays, outs, shape)
    for lo, hi in ranges or [(0, n)]:
        fn(ctypes.addressof(args), lo, hi)
    return outs


# -- facts --------------------------------------------------------------------------------


def test_facts_of_this_machine(target):
    from llvmlite import binding

    assert target.name == "host" and not target.is_gpu and target.wave_size == 1
    assert target.triple == binding.get_process_triple()
    assert target.cpu == binding.get_host_cpu_name()
    assert target.features == binding.get_host_cpu_features().flatten()
    assert target.data_layout.startswith(("e-", "E-"))
    key = target.cache_key()
    assert target.triple in key and ("opt_level", target.opt_level) in key
    assert HostTarget(opt_level=0).cache_key() != HostTarget(opt_level=2).cache_key()
    # (one level's objects compiled at another codegen level are other bytes)
    one = HostTarget(opt_level=1)
    assert one.codegen_level == 1 and ("codegen_level", 1) in one.cache_key()
    assert one.configured(codegen_level=0).cache_key() != one.cache_key()
    with pytest.raises(ValueError):
        HostTarget(opt_level=7)


def test_mark_kernel_checks_the_host_entry(target):
    m = ir.Module()
    good = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), "good")
    target.mark_kernel(good)
    assert good.linkage in ("", "external")
    bad = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR, I64]), "bad")
    with pytest.raises(TypeError, match="void\\(ptr args, i64 start, i64 stop\\)"):
        target.mark_kernel(bad)


# -- kernels run for real ------------------------------------------------------------------

_BINARY = [
    ("float32", F32, "fadd", np.add),
    ("float64", F64, "fmul", np.multiply),
    ("int32", I32, "sub", np.subtract),
    ("int64", I64, "mul", np.multiply),
    ("int8", ir.IntType(8), "add", np.add),
]


@pytest.mark.parametrize("dtype, ty, op, ref", _BINARY, ids=[r[0] for r in _BINARY])
def test_binary_kernels_match_numpy(target, dtype, ty, op, ref):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        a = rng.uniform(-10, 10, 1001).astype(dtype)
        b = rng.uniform(-10, 10, 1001).astype(dtype)
    else:
        a = rng.integers(-100, 100, 1001).astype(dtype)
        b = rng.integers(-100, 100, 1001).astype(dtype)
    ins = [("array", ty), ("array", ty)]

    def body(bld, module, v):
        return [getattr(bld, op)(v[0], v[1])]

    with np.errstate(over="ignore"):
        expected = ref(a, b)
    (out,) = run_kernel(target, ins, [ty], body, [a, b], a.shape, out_dtypes=[dtype])
    np.testing.assert_array_equal(out, expected)
    # split over [start, stop) pieces, as the launcher does across threads
    (out,) = run_kernel(target, ins, [ty], body, [a, b], a.shape, out_dtypes=[dtype],
                        ranges=[(0, 3), (3, 500), (500, 1001)])
    np.testing.assert_array_equal(out, expected)


def test_strided_and_broadcast_operands(target):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 10)).astype(np.float32)
    a = base[::2, 1::3]                        # non-contiguous view, shape (3, 3)
    b = rng.standard_normal((1, 3)).astype(np.float32)   # broadcast along axis 0
    ins = [("array", F32), ("array", F32)]

    def body(bld, module, v):
        return [bld.fsub(bld.fmul(v[0], v[1]), v[1])]

    (out,) = run_kernel(target, ins, [F32], body, [a, b], (3, 3), out_dtypes=[np.float32])
    np.testing.assert_allclose(out, a * b - b, rtol=1e-6)


def test_scalar_operand_and_two_outputs(target):
    a = np.linspace(-3, 3, 257)
    ins = [("array", F64), ("scalar", F64)]

    def body(bld, module, v):
        return [bld.fmul(v[0], v[1]), bld.fadd(v[0], v[1])]

    s, d = run_kernel(target, ins, [F64, F64], body, [a, 2.5], a.shape,
                      out_dtypes=[np.float64, np.float64])
    np.testing.assert_array_equal(s, a * 2.5)
    np.testing.assert_array_equal(d, a + 2.5)


@pytest.mark.parametrize("level", sorted(PIPELINES))
def test_every_opt_level_runs(level):
    t = HostTarget(opt_level=level)
    a = np.arange(100, dtype=np.float32)
    (out,) = run_kernel(t, [("array", F32)], [F32], lambda bld, m, v: [bld.fadd(v[0], v[0])],
                        [a], a.shape, out_dtypes=[np.float32])
    np.testing.assert_array_equal(out, a + a)
    assert set(t.last_timings) == {"parse_ms", "optimise_ms", "emit_ms"}


def test_contiguous_float32_loop_is_vectorised(target):
    if not target.triple.startswith(("x86_64", "aarch64", "arm64")):
        pytest.skip("vector mnemonics checked for x86-64 and AArch64 only")
    m = abi_kernel(target, "vadd", [("array", F32), ("array", F32)], [F32],
                   lambda bld, mod, v: [bld.fadd(v[0], v[1])])
    asm = target.emit_assembly(m)
    if target.triple.startswith("x86_64"):
        assert "addps" in asm and ("%xmm" in asm or "%ymm" in asm or "%zmm" in asm), asm
    else:
        assert "fadd\tv" in asm, asm
    assert "addps" not in HostTarget(opt_level=0).emit_assembly(m)  # the scalar tier


def test_compile_accepts_text_and_rejects_foreign_triples(target):
    m = abi_kernel(target, "txt", [("array", F64)], [F64], lambda bld, mod, v: [v[0]])
    for source in (m, str(m)):
        obj = target.compile(source)
        assert isinstance(obj, bytes) and obj
        if target.triple.endswith("linux-gnu"):
            assert object_file(obj)[:4] == b"\x7fELF"
    foreign = str(m).replace(target.triple, "nvptx64-nvidia-cuda")
    with pytest.raises(ValueError):
        target.compile(foreign)


# -- math functions ---------------------------------------------------------------------

_ARGS = {
    "acosh": (1.0, 5.0), "acos": (-1.0, 1.0), "asin": (-1.0, 1.0), "atanh": (-0.9, 0.9),
    "log": (0.1, 5.0), "log2": (0.1, 5.0), "log10": (0.1, 5.0), "log1p": (-0.5, 5.0),
    "sqrt": (0.0, 9.0), "pow": (0.1, 3.0), "tgamma": (0.5, 5.0), "lgamma": (0.5, 5.0),
}


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_REFERENCE = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "exp": np.exp, "exp2": np.exp2,
    "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt, "cbrt": np.cbrt, "fabs": np.abs,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "nearbyint": np.rint, "round": _round_half_away, "roundeven": np.rint,
    "erf": np.vectorize(math.erf), "erfc": np.vectorize(math.erfc),
    "tgamma": np.vectorize(math.gamma), "lgamma": np.vectorize(math.lgamma),
    "atan2": np.arctan2, "hypot": np.hypot, "pow": np.power, "fmod": np.fmod,
    "copysign": np.copysign, "nextafter": np.nextafter, "fmin": np.fmin, "fmax": np.fmax,
    "remainder": np.vectorize(math.remainder), "fdim": lambda x, y: np.maximum(x - y, 0),
    "fma": lambda x, y, z: x * y + z,
}


def _math_module(target, ty, names):
    """One module with ``m_<fn>(ptr x, ptr y, ptr z, ptr out, i64 n)`` loops per function."""
    m = ir.Module(name="math")
    m.triple, m.data_layout = target.triple, target.data_layout
    for fn_name in names:
        callee = target.math_function(m, fn_name, ty)
        arity = len(callee.function_type.args)
        f = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, PTR, I64]), f"m_{fn_name}")
        entry, loop, done = (f.append_basic_block(s) for s in ("entry", "loop", "done"))
        b = ir.IRBuilder(entry)
        b.cbranch(b.icmp_signed(">", f.args[4], I64(0)), loop, done)
        b.position_at_end(loop)
        i = b.phi(I64)
        i.add_incoming(I64(0), entry)
        xs = [b.load(b.gep(f.args[k], [i], source_etype=ty), typ=ty) for k in range(arity)]
        b.store(b.call(callee, xs), b.gep(f.args[3], [i], source_etype=ty))
        nxt = b.add(i, I64(1))
        i.add_incoming(nxt, loop)
        b.cbranch(b.icmp_signed("<", nxt, f.args[4]), loop, done)
        b.position_at_end(done)
        b.ret_void()
    return m


_MATH_NAMES = sorted(_REFERENCE)


@pytest.mark.parametrize("ty, dtype, rtol", [(F32, np.float32, 2e-6), (F64, np.float64, 1e-13)],
                         ids=["float32", "float64"])
def test_math_functions_match_numpy(target, ty, dtype, rtol):
    # a second declaration of the same function is the same function
    probe = ir.Module()
    assert target.math_function(probe, "tan", ty) is target.math_function(probe, "tan", ty)
    lib = load_host_object(target.compile(_math_module(target, ty, _MATH_NAMES)))
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_int64)
    rng = np.random.default_rng(11)
    for fn_name in _MATH_NAMES:
        lo, hi = _ARGS.get(fn_name, (-3.0, 3.0))
        xs = [rng.uniform(lo, hi, 64).astype(dtype) for _ in range(3)]
        xs[0][:4] = np.array([lo, hi, (lo + hi) / 2, 0.5 if lo < 0.5 < hi else lo], dtype=dtype)
        out = np.zeros(64, dtype=dtype)
        proto(lib.address(f"m_{fn_name}"))(*(x.ctypes.data for x in xs), out.ctypes.data, 64)
        arity = {"fma": 3}.get(fn_name, 2 if fn_name in ("atan2", "hypot", "pow", "fmod", "copysign",
                                                           "nextafter", "fmin", "fmax", "remainder",
                                                           "fdim") else 1)
        expected = np.asarray(_REFERENCE[fn_name](*(x.astype(np.float64) for x in xs[:arity])))
        if fn_name == "nextafter":  # exact in the argument's own precision
            expected = np.nextafter(xs[0], xs[1])
        np.testing.assert_allclose(out, expected.astype(dtype), rtol=rtol, atol=rtol,
                                   err_msg=f"{fn_name} {dtype.__name__}")


def test_float16_math_computes_in_float32(target):
    names = ["exp", "tan", "sqrt", "atan2"]
    lib = load_host_object(target.compile(_math_module(target, F16, names)))
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_int64)
    x = np.linspace(0.1, 2.0, 32).astype(np.float16)
    y = np.linspace(-1.0, 1.0, 32).astype(np.float16)
    for fn_name, ref in [("exp", np.exp(x)), ("tan", np.tan(x)), ("sqrt", np.sqrt(x)),
                         ("atan2", np.arctan2(x, y))]:
        out = np.zeros(32, dtype=np.float16)
        proto(lib.address(f"m_{fn_name}"))(x.ctypes.data, y.ctypes.data, x.ctypes.data,
                                           out.ctypes.data, 32)
        np.testing.assert_allclose(out.astype(np.float32), ref.astype(np.float32), rtol=2e-3,
                                   err_msg=fn_name)


def test_float16_nextafter_steps_one_half_ulp(target):
    lib = load_host_object(target.compile(_math_module(target, F16, ["nextafter"])))
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_int64)
    tiny = np.array([1, 0x8001], dtype=np.uint16).view(np.float16)  # +-smallest subnormal
    x = np.array([1.0, 1.0, -2.5, 0.0, -0.0, 65504.0, np.inf, 3.0, np.nan, 1e-7, *tiny],
                 dtype=np.float16)
    y = np.array([2.0, 0.0, -9.0, -1.0, 1.0, np.inf, 0.0, 3.0, 1.0, 0.0, -1.0, 1.0],
                 dtype=np.float16)
    out = np.zeros(len(x), dtype=np.float16)
    proto(lib.address("m_nextafter"))(x.ctypes.data, y.ctypes.data, x.ctypes.data,
                                      out.ctypes.data, len(x))
    with np.errstate(over="ignore"):
        expected = np.nextafter(x, y)
    np.testing.assert_array_equal(out.view(np.uint16), expected.view(np.uint16))


def test_unknown_math_function_is_an_error(target):
    with pytest.raises(ValueError):
        target.math_function(ir.Module(), "frobnicate", F32)
    with pytest.raises(TypeError):
        target.math_function(ir.Module(), "exp", I32)


# -- loading ------------------------------------------------------------------------------


def _const_kernel(target, name, value):
    """``double name()`` returning ``value``."""
    m = ir.Module()
    m.triple, m.data_layout = target.triple, target.data_layout
    f = ir.Function(m, ir.FunctionType(F64, []), name)
    ir.IRBuilder(f.append_basic_block()).ret(F64(value))
    return target.compile(m)


def test_same_name_in_two_objects_and_same_bytes_load_once(target):
    first = _const_kernel(target, "rocarray_test_same_name", 1.0)
    second = _const_kernel(target, "rocarray_test_same_name", 2.0)
    m1, m2 = load_host_object(first), load_host_object(second)
    proto = ctypes.CFUNCTYPE(ctypes.c_double)
    assert proto(m1.address("rocarray_test_same_name"))() == 1.0
    assert proto(m2.address("rocarray_test_same_name"))() == 2.0
    assert load_host_object(bytes(first)) is m1
    assert elf_symbols(object_file(first))[0] == {"rocarray_test_same_name"}
    with pytest.raises(KeyError):
        m1.address("no_such_function")


def test_unresolvable_symbol_raises_instead_of_aborting(target):
    m = ir.Module()
    m.triple, m.data_layout = target.triple, target.data_layout
    ext = ir.Function(m, ir.FunctionType(F64, []), "rocarray_test_nowhere_defined")
    f = ir.Function(m, ir.FunctionType(F64, []), "calls_nowhere")
    b = ir.IRBuilder(f.append_basic_block())
    b.ret(b.call(ext, []))
    with pytest.raises(ToolchainError, match="rocarray_test_nowhere_defined"):
        load_host_object(target.compile(m))


def test_libm_symbols_resolve_in_the_jit():
    from llvmlite import binding

    from rocarray.runtime.hostload import _init_mcjit as _init_llvm

    _init_llvm()  # loads the C math library into the JIT's symbol search
    for sym in ("tanf", "tan", "expm1", "log1p", "atan2", "hypot", "cbrt", "erf",
                "nextafter", "fmod", "fmodf", "lgamma", "tgammaf"):
        assert binding.address_of_symbol(sym), sym


def _libm_kernel(target, name):
    """``double name(double x)`` = ``tan(x) * 3.5 + 0.25``: a C library call and
    constants, so the object carries absolute relocations (large code model)."""
    m = ir.Module()
    m.triple, m.data_layout = target.triple, target.data_layout
    tan = target.math_function(m, "tan", F64)
    f = ir.Function(m, ir.FunctionType(F64, [F64]), name)
    b = ir.IRBuilder(f.append_basic_block())
    b.ret(b.fadd(b.fmul(b.call(tan, [f.args[0]]), F64(3.5)), F64(0.25)))
    return target.compile(m)


def test_kernel_objects_are_mapped_without_mcjit(target):
    """Code, constants and C library calls: rocarray's own mapper loads them (no engine)
    and the relocated code computes what C does."""
    name = _fresh("rocarray_test_mapped")
    mod = load_host_object(_libm_kernel(target, name))
    assert mod._engine is None
    assert mod.names == {name}
    fn = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(mod.address(name))
    assert fn(0.7) == math.tan(0.7) * 3.5 + 0.25
    with pytest.raises(KeyError):
        mod.address("no_such_function")


def test_objects_the_mapper_does_not_handle_go_to_mcjit(target, monkeypatch):
    """Writable data (a global counter) is not for the mapper: MCJIT loads it, as it loads
    every object where there is no mapper."""
    m = ir.Module()
    m.triple, m.data_layout = target.triple, target.data_layout
    g = ir.GlobalVariable(m, I64, _fresh("rocarray_test_counter"))
    g.initializer = I64(41)
    name = _fresh("rocarray_test_bump")
    f = ir.Function(m, ir.FunctionType(I64, []), name)
    b = ir.IRBuilder(f.append_basic_block())
    v = b.add(b.load(g), I64(1))
    b.store(v, g)
    b.ret(v)
    obj = target.compile(m)
    assert obj[:4] == b"\x7fELF" and object_file(obj) is obj  # no host image: the object
    mod = load_host_object(obj)
    assert mod._engine is not None
    fn = ctypes.CFUNCTYPE(ctypes.c_int64)(mod.address(name))
    assert (fn(), fn()) == (42, 43)

    from rocarray.runtime import hostload as host

    monkeypatch.setattr(host, "_mapper", [None])  # what the switch sets at the first load
    name = _fresh("rocarray_test_forced")
    mod = load_host_object(_libm_kernel(target, name))
    assert mod._engine is not None
    fn = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(mod.address(name))
    assert fn(0.7) == math.tan(0.7) * 3.5 + 0.25


def test_compiled_kernels_are_host_images(target, monkeypatch):
    """``compile`` lays a kernel object out for the mapper once (a host image): loading
    it reads no ELF, and the object itself rides along for MCJIT."""
    from rocarray.runtime import hostload as host

    name = _fresh("rocarray_test_image")
    image = _libm_kernel(target, name)
    assert image[:8] == host._IMAGE_MAGIC == b"RKHOSTv3"
    (code, align, relocs, externals, defined), at = host._read_image(image)
    assert externals == ("tan",) and [n for n, _ in defined] == [name] and align >= 64
    assert any(r[2] == 0 for r in relocs) and any(r[2] == host._IN_IMAGE for r in relocs)
    obj = object_file(image)
    assert obj == image[at:] and obj[:4] == b"\x7fELF"
    # the same layout as the mapper makes of the object file itself
    assert host._plan_map(obj, host._ElfObject(obj)) == (code, align, relocs, externals, defined)
    def no_parse(self, data):
        raise AssertionError("a host image was parsed as ELF")

    monkeypatch.setattr(host._ElfObject, "__init__", no_parse)
    mod = load_host_object(image)
    assert mod._engine is None and mod.names == {name}
    fn = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(mod.address(name))
    assert fn(0.7) == math.tan(0.7) * 3.5 + 0.25
    monkeypatch.undo()

    # the mapper off: MCJIT loads the object inside the image
    name = _fresh("rocarray_test_image_mcjit")
    image = _libm_kernel(target, name)
    monkeypatch.setattr(host, "_mapper", [None])
    mod = load_host_object(image)
    assert mod._engine is not None and mod.names == {name}
    fn = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(mod.address(name))
    assert fn(0.7) == math.tan(0.7) * 3.5 + 0.25


def test_a_cut_host_image_is_an_error():
    image = _libm_kernel(HostTarget(), _fresh("rocarray_test_cut"))
    bad_plan = image[:16] + b"\xff" + image[17:]  # (a count that does not add up)
    for cut in (image[:-7], image[:40], image[:12], bad_plan):
        with pytest.raises(ValueError, match="host image"):
            load_host_object(cut)


def test_tiering_is_read_from_the_environment_when_the_target_is_made(monkeypatch):
    monkeypatch.setenv("ROCARRAY_TIERED", "0")
    assert HostTarget(opt_level=1).quick_tier is None
    monkeypatch.setenv("ROCARRAY_TIERED", "1")
    tiered = HostTarget(opt_level=1)
    quick = tiered.quick_tier
    assert quick is not None and quick.stands_in_for is tiered and quick.quick_tier is None
    monkeypatch.setenv("ROCARRAY_TIERED", "0")  # (read once, when the target is made)
    assert tiered.quick_tier is quick


def test_quick_tier_skips_the_verifier_outside_the_tests(monkeypatch):
    """The quick tier's IR is rocarray's own: verified when ``ROCARRAY_VERIFY_IR=1`` (the
    tests), not on every first call; the other tiers always verify."""
    full = HostTarget(opt_level=1)
    quick = full.quick_tier
    if quick is None:
        pytest.skip("ROCARRAY_TIERED=0")
    assert full.verify_ir and not quick.verify_ir
    calls = []
    from llvmlite import binding

    real = binding.ModuleRef.verify
    monkeypatch.setattr(binding.ModuleRef, "verify", lambda self: (calls.append(1), real(self))[1])
    text = _text_module(quick)
    monkeypatch.setenv("ROCARRAY_VERIFY_IR", "0")
    quick.compile(text)
    assert calls == []
    monkeypatch.setenv("ROCARRAY_VERIFY_IR", "1")
    quick.compile(text)
    assert calls == [1]


def _text_module(target):
    """A small module as IR text: ``i64 rocarray_test_twice(i64 x)`` = ``2 * x``."""
    return ("define i64 @rocarray_test_twice(i64 %x) nounwind {\n"
            "  %y = shl i64 %x, 1\n  ret i64 %y\n}\n")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_never_writes_into_the_parents_arena(target):
    """The code arena is shared memory: a child made by fork() must load its kernels into
    chunks of its own, or the parent's next kernel would overwrite them (and the child
    the parent's)."""
    from rocarray.runtime import hostload as host

    load_host_object(_libm_kernel(target, _fresh("rocarray_test_before_fork")))
    mapper = host._mapper[0]
    if mapper is None or not mapper.usable:
        pytest.skip("the arena loader is off")
    free_at = mapper._write_base + -(-mapper._used // mapper.ALIGN) * mapper.ALIGN
    room = min(256, mapper._size - (free_at - mapper._write_base))
    if room <= 0:
        pytest.skip("the chunk is full")
    name = _fresh("rocarray_test_in_child")
    obj = _libm_kernel(target, name)  # compiled here, loaded only in the child
    pid = os.fork()
    if pid == 0:  # the child: load and run, then leave without any clean-up
        ok = False
        try:
            fn = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(load_host_object(obj).address(name))
            ok = fn(0.5) == math.tan(0.5) * 3.5 + 0.25
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert ctypes.string_at(free_at, room) == b"\0" * room  # the parent's free part is untouched


def test_host_compiles_register_only_the_native_target(tmp_path):
    # Every registered target adds its codegen passes to LLVM's pass registry, which each
    # codegen pipeline walks: a CPU-only process registers this machine's target alone,
    # and a GPU target registers the others when it makes its target machine.
    import subprocess
    import sys

    code = """
import numpy as np, rocarray as ra
from llvmlite import binding
x = ra.asarray(np.arange(5, dtype=np.int16), device="cpu")  # (not the default GPU, if any)
assert (np.asarray(ra.add(x, x)) == 2 * np.arange(5)).all()
try:
    binding.Target.from_triple("nvptx64-nvidia-cuda")
except RuntimeError:
    pass
else:
    raise SystemExit("the NVPTX target was registered by a host compile")
from rocarray.targets.nvptx import NVPTXTarget
assert NVPTXTarget("sm_90").target_machine is not None
print("ok")
"""
    env = dict(os.environ, ROCARRAY_CACHE_DIR=str(tmp_path))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_parse_module_keeps_or_sets_triple_and_layout():
    # text naming the target's triple and layout is taken as parsed; other text gets them
    # set, and a module built for another triple is refused
    from rocarray.targets.base import parse_module

    t = HostTarget(opt_level=0)
    body = "define void @f() {\n  ret void\n}\n"
    head = f'target triple = "{t.triple}"\ntarget datalayout = "{t.data_layout}"\n'
    for text in ("; ModuleID = \"m\"\n" + head + body, body):
        mod = parse_module(text, t)
        assert mod.triple == t.triple and mod.data_layout == t.data_layout
    with pytest.raises(ValueError, match="built for"):
        parse_module('target triple = "nvptx64-nvidia-cuda"\n' + body, t)
