"""A test-only host target for the kernel-language tests: math through libm symbols, JIT-run
with llvmlite's MCJIT and called through ctypes.  (The real host target lives in
rocarray/targets/host.py; these tests do not depend on it.)"""

from __future__ import annotations

import ctypes
import dataclasses

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir

from rocarray.compiler.lang import compile_scalar_function
from rocarray.targets.base import LLVM_LOCK, MAX_DIMS, Target

_TWO_ARG = {"atan2", "hypot", "pow", "fmod", "copysign", "nextafter", "fmin", "fmax"}

llvm.initialize_native_target()
llvm.initialize_native_asmprinter()


class LangTestTarget(Target):
    name = "lang-test"

    def __init__(self):
        self.triple = llvm.get_process_triple()
        self.cpu = llvm.get_host_cpu_name()
        # host features (F16C converts half natively: no compiler-rt calls needed)
        self.features = llvm.get_host_cpu_features().flatten()
        self.tm = llvm.Target.from_triple(self.triple).create_target_machine(
            cpu=self.cpu, features=self.features, opt=2, jit=True)
        self.declared: list[str] = []   # math names requested (for tests)

    @property
    def data_layout(self) -> str:
        return str(self.tm.target_data)

    def math_function(self, module, fn, ty):
        assert isinstance(ty, (ir.FloatType, ir.DoubleType)), ty
        self.declared.append(fn)
        name = fn + ("f" if isinstance(ty, ir.FloatType) else "")
        existing = module.globals.get(name)
        if existing is not None:
            return existing
        nargs = 2 if fn in _TWO_ARG else 1
        return ir.Function(module, ir.FunctionType(ty, [ty] * nargs), name)


TARGET = LangTestTarget()


class GridLangTestTarget(LangTestTarget):
    """The same host machine, its facts saying the code runs as a grid of threads: the
    lowering's GPU choices (a raw descriptor read at constant places only, complex
    elements stored whole where aligned) run on the host, checked against NumPy."""

    name = "lang-test-grid"

    def __init__(self):
        super().__init__()
        self.facts = dataclasses.replace(self.facts, emits_grid=True)


GRID_TARGET = GridLangTestTarget()


class RawDesc(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_int64), ("ndim", ctypes.c_int64),
                ("shape", ctypes.c_int64 * MAX_DIMS), ("strides", ctypes.c_int64 * MAX_DIMS)]


def raw_desc(a: np.ndarray) -> RawDesc:
    d = RawDesc()
    d.data = a.ctypes.data
    d.size = a.size
    d.ndim = a.ndim
    for k in range(MAX_DIMS):
        d.shape[k] = a.shape[k] if k < a.ndim else 1
        d.strides[k] = a.strides[k] if k < a.ndim else 0
    return d


_PTR = ir.PointerType()
_I64 = ir.IntType(64)
_engines = []
_cache: dict = {}


def build_module(body, params, *, preamble="", typedefs=None, kernel_name="kernel", target=TARGET):
    """A module with the body function and ``void test_kernel(ptr ptrs, ptr steps, i64 n)``
    looping over i in [0, n): element k of parameter j is at ptrs[j] + i * steps[j]."""
    module = ir.Module(name="langtest")
    module.triple = target.triple
    body_fn = compile_scalar_function(module, "body", params, body, preamble=preamble,
                                      typedefs=typedefs or {}, target=target,
                                      kernel_name=kernel_name)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [_PTR, _PTR, _I64]), "test_kernel")
    ptrs, steps, n = fn.args
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed(">", n, ir.Constant(_I64, 0)), loop, done)
    b.position_at_end(loop)
    i = b.phi(_I64)
    i.add_incoming(ir.Constant(_I64, 0), entry)
    args = []
    for j in range(len(params)):
        base = b.load(b.gep(ptrs, [ir.Constant(_I64, j)], source_etype=_PTR), typ=_PTR)
        step = b.load(b.gep(steps, [ir.Constant(_I64, j)], source_etype=_I64), typ=_I64)
        args.append(b.gep(base, [b.mul(i, step)], source_etype=ir.IntType(8)))
    b.call(body_fn, args + [i, n])
    nxt = b.add(i, ir.Constant(_I64, 1))
    i.add_incoming(nxt, loop)
    b.cbranch(b.icmp_signed("<", nxt, n), loop, done)
    b.position_at_end(done)
    b.ret_void()
    return module


def jit(module: ir.Module, opt: int = 2):
    text = str(module)
    # LLVM's global context is shared with rocarray's compiles, which a tier-up may be
    # running on a background thread meanwhile: LLVM_LOCK, as rocarray itself holds it
    with LLVM_LOCK:
        mod = llvm.parse_assembly(text)
        mod.verify()
        if opt:
            pto = llvm.create_pipeline_tuning_options(speed_level=opt)
            pb = llvm.create_pass_builder(TARGET.tm, pto)
            pb.getModulePassManager().run(mod, pb)
        engine = llvm.create_mcjit_compiler(mod, TARGET.tm)
        engine.finalize_object()
        _engines.append(engine)
        addr = engine.get_function_address("test_kernel")
    return ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(addr), mod


def compile_kernel(body, params, *, preamble="", typedefs=None, opt=2, target=TARGET):
    key = (body, tuple((p, np.dtype(d).str, k) for p, d, k in params), preamble,
           tuple(sorted((k, np.dtype(v).str) for k, v in (typedefs or {}).items())), opt, target.name)
    hit = _cache.get(key)
    if hit is None:
        module = build_module(body, params, preamble=preamble, typedefs=typedefs, target=target)
        hit = _cache[key] = jit(module, opt)[0]
    return hit


def run(body, params, arrays, *, preamble="", typedefs=None, n=None, opt=2, target=TARGET):
    """Run ``body`` over arrays (1-D, or 0-d for broadcast scalars; raw params take any
    ndarray).  Out/inout arrays are modified in place; returns them as a list."""
    func = compile_kernel(body, params, preamble=preamble, typedefs=typedefs, opt=opt, target=target)
    ptrs = (ctypes.c_void_p * max(1, len(params)))()
    steps = (ctypes.c_int64 * max(1, len(params)))()
    keep = []
    if n is None:
        n = max((a.shape[0] for (p, d, k), a in zip(params, arrays)
                 if k != "raw" and a.ndim == 1), default=1)
    for j, ((pname, dt, kind), a) in enumerate(zip(params, arrays)):
        if kind == "raw":
            d = raw_desc(a)
            keep.append(d)
            ptrs[j] = ctypes.addressof(d)
            steps[j] = 0
        else:
            assert a.dtype == np.dtype(dt), (pname, a.dtype, dt)
            assert a.ndim <= 1 and (a.ndim == 0 or a.flags.c_contiguous)
            ptrs[j] = a.ctypes.data
            steps[j] = a.itemsize if a.ndim == 1 else 0
    func(ctypes.cast(ptrs, ctypes.c_void_p), ctypes.cast(steps, ctypes.c_void_p), n)
    return [a for (p, d, k), a in zip(params, arrays) if k in ("out", "inout")]


def elementwise(body, ins, out_dtypes, *, names=None, preamble="", typedefs=None, opt=2):
    """Run body with inputs in0, in1... and outputs out0, out1... (NumPy arrays); returns the
    outputs."""
    ins = [np.ascontiguousarray(a) for a in ins]
    n = max((a.shape[0] for a in ins if a.ndim == 1), default=1)
    params, arrays = [], []
    for k, a in enumerate(ins):
        params.append((names[k] if names else f"in{k}", a.dtype, "in"))
        arrays.append(a)
    outs = []
    for k, dt in enumerate(out_dtypes):
        o = np.zeros(n, dtype=dt)
        outs.append(o)
        params.append((names[len(ins) + k] if names else f"out{k}", o.dtype, "out"))
        arrays.append(o)
    run(body, params, arrays, preamble=preamble, typedefs=typedefs, n=n, opt=opt)
    return outs[0] if len(outs) == 1 else outs
