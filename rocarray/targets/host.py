"""The host target: this machine's CPU, compiled in-process to an object file.

``HostTarget.compile`` turns a module into a *host image*: the relocatable object file
for this machine, laid out once for rocarray's own loader (``rocarray.runtime.hostload``,
which maps it into the process).  Kernels use the host entry of the kernel ABI,
``void name(ptr args, i64 start, i64 stop)`` (docs/architecture.md).

A new dtype signature pays for one compile, so compile time is what the pipelines are
chosen for (``PIPELINES``; the measurements behind them are in benchmarks/results/history/benchmarks.md):

* Only LLVM's default module pipeline contains the loop vectoriser (llvmlite exposes no
  loop-vectorize pass of its own), so a vectorised contiguous loop costs the whole O1
  pipeline.  The default (``opt_level=1``) is that pipeline without unrolling,
  interleaving or SLP (they buy little on memory-bound loops) and codegen O1.  Codegen
  O0's register allocator spills every value live across a block at its end, so a loop
  that is not vectorised (strided or broadcast operands: views, ``x[:, None]``) goes
  through memory at every element; codegen O1 allocates registers across the loop and
  runs such loops several times faster, for a longer compile
  (benchmarks/results/2026-12-04-cpu-codegen-calls/).  With tiering that compile runs in
  the background, once the kernel is hot.
* ``opt_level=0`` runs a short custom pipeline (inline, SROA, combine, simplify) and does
  not vectorise; 2 and 3 trade compile time for the last part of loop speed.  The
  heavy tier (reductions, compiled in the background once hot) is level 2.
* The quick tier (``quick_tier``: what a new signature's first call runs while the full
  tier compiles in the background once the kernel is hot) is IR text written to need
  no clean-up (``skeletons.host_simple_kernel_text``), so its pipeline is the
  always-inliner alone, or nothing where the body is already in place, and codegen O0.
* The target machine is made once per codegen level and reused; a pass builder is not
  reusable (llvmlite registers callbacks on it at every run), so one is built per compile.
* LLVM's "verify-cfg-preserved" check of assertion builds changes no output and is
  turned off for the process (``_init_llvm``).
"""

from __future__ import annotations

import time

from llvmlite import ir

from .. import _settings
from ..runtime import hostload
from ..runtime.llvm import llvm_step
from . import hostmath, hostrt
from .base import (
    LLVM_LOCK,
    MATH_FUNCTIONS,
    Target,
    declare_function,
    llvm_binding,
    llvm_facts,
    optimise,
    parse_module,
    support_image,
)
from .facts import CompileConfig, Setting, TargetFacts
from .registry import register_target

I64 = ir.IntType(64)

#: opt_level -> (IR pipeline, codegen level); the module docstring says why.
PIPELINES = {
    0: ("scalar", 0),
    1: ("O1-vector", 1),
    2: ("O2-vector", 2),
    3: ("O3", 3),
}
DEFAULT_OPT_LEVEL = 1

# C math name -> LLVM intrinsic.  x86-64 and AArch64 lower each either to instructions
# (sqrt, fabs, floor, ..., minnum) or to the libm call of the right precision themselves.
_INTRINSICS = {
    "sqrt": "sqrt", "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "rint": "rint", "nearbyint": "nearbyint", "round": "round", "roundeven": "roundeven",
    "copysign": "copysign", "fmin": "minnum", "fmax": "maxnum", "fma": "fma",
    "exp": "exp", "exp2": "exp2", "exp10": "exp10", "log": "log", "log2": "log2",
    "log10": "log10", "sin": "sin", "cos": "cos", "pow": "pow",
}
# Every other function is called in the C math library by name ("tanf" / "tan"):
# tan, asin, ..., expm1, log1p, cbrt, erf, tgamma, atan2, hypot, fmod, nextafter, ...
_ARITY = {**MATH_FUNCTIONS, "roundeven": 1, "fma": 3, "remainder": 2, "fdim": 2}

_options_set: list = []  # [True] once ``_init_llvm`` ran


def _init_llvm():
    """Process-wide LLVM options, once, before the first module is compiled."""
    binding = llvm_binding()
    if _options_set:
        return binding
    with LLVM_LOCK:
        if _options_set:
            return binding
        # A debug check of assertion-enabled LLVM builds; it changes no output.
        binding.set_option("rocarray", "-verify-cfg-preserved=false")
        for option in hostrt.DIV_REM_OPTIONS:
            binding.set_option("rocarray", option)
        _options_set.append(True)
    return binding


def host_facts() -> TargetFacts:
    """This machine's facts (read without loading LLVM where they are known)."""
    facts = llvm_facts()
    return TargetFacts(
        kind="host", name="host", triple=facts["triple"], cpu=facts["cpu"], features=facts["features"],
        # the kernel language contracts where the CPU has FMA instructions
        contracts="+fma" in facts["features"].split(","),
    )


def host_config(opt_level: int) -> CompileConfig:
    """The configuration of ``opt_level`` (``PIPELINES``); ``ROCARRAY_TIERED`` is read
    here, when the target is made, not at every kernel load (that is on a disk hit's
    first call)."""
    level = int(opt_level)
    if level not in PIPELINES:
        raise ValueError(f"opt_level must be one of {sorted(PIPELINES)}, not {opt_level!r}")
    pipeline, codegen_level = PIPELINES[level]
    return CompileConfig(opt_level=level, pipeline=pipeline, codegen_level=codegen_level,
                         tiered=_settings.TIERED.get())


class HostTarget(Target):
    """This machine's CPU: its own triple, CPU name and features; objects run in-process."""

    binary_kind = "obj"
    pipeline = Setting()
    codegen_level = Setting()
    tiered = Setting()
    verify_ir = Setting()

    def __init__(self, opt_level: int | None = None):
        self._start(host_facts(), host_config(DEFAULT_OPT_LEVEL if opt_level is None else opt_level))

    def _start(self, facts, config) -> None:
        super()._start(facts, config)
        self._machines: dict = {}
        self._data_layout: str | None = None
        self._cache_key: tuple | None = None
        #: Milliseconds of the last compile by phase: parse, optimise, emit.
        self.last_timings: dict = {}

    # -- facts ------------------------------------------------------------------------

    def _machine(self, codegen_level: int):
        """The target machine for ``codegen_level``, created once and reused."""
        tm = self._machines.get(codegen_level)
        if tm is None:
            binding = llvm_binding()
            with LLVM_LOCK:
                tm = self._machines.get(codegen_level)
                if tm is None:
                    # jitdefault: the large code model, since MCJIT may place code, data
                    # and the libm it calls more than 2 GiB apart.
                    tm = binding.Target.from_triple(self.triple).create_target_machine(
                        cpu=self.cpu, features=self.features, opt=codegen_level,
                        codemodel="jitdefault",
                    )
                    self._machines[codegen_level] = tm
        return tm

    @property
    def data_layout(self) -> str:
        if self._data_layout is None:
            with LLVM_LOCK:
                self._data_layout = str(self._machine(self.codegen_level).target_data)
        return self._data_layout

    def cache_key(self) -> tuple:
        # made once per configuration: it is part of every disk look-up (the facts and
        # the configuration are replaced, never edited, when anything changes)
        memo = self._cache_key
        if memo is None or memo[0] is not self.facts or memo[1] is not self.config:
            memo = self._cache_key = (self.facts, self.config, super().cache_key() + (
                ("opt_level", self.opt_level), ("pipeline", self.pipeline),
                ("codegen_level", self.codegen_level), ("simple_loops", self.simple_loops)))
        return memo[2]

    @property
    def quick_tier(self) -> "HostTarget | None":
        """The quick configuration (text kernel entry, always-inliner only, codegen O0:
        the cheapest compile) when this one costs more; None when tiering is off
        (``ROCARRAY_TIERED=0`` when the target was made) or this is level 0."""
        if self.opt_level == 0 or not self.tiered:
            return None
        q = getattr(self, "_quick", None)
        if q is None:
            # The kernel entry is a text template (skeletons.py) that needs the inliner
            # alone.  Its IR is rocarray's own (the entry template and the kernel
            # language's lowering), verified by the tests (ROCARRAY_VERIFY_IR=1): not
            # re-verified on every first call.
            q = self._quick = self.configured(host_config(0), pipeline="inline", simple_loops=True,
                                              verify_ir=False, stands_in_for=self)
        return q

    @property
    def interpreter_tier(self) -> "HostTarget":
        return self.configured(host_config(2))

    @property
    def heavy_tier(self) -> "HostTarget":
        """Codegen O2 after the O2 pipeline (reductions keep their vector lanes in registers
        instead of spilling them every trip, as codegen O0 does)."""
        if self.opt_level >= 2 or self.simple_loops:
            return self
        h = getattr(self, "_heavy", None)
        if h is None:
            h = self._heavy = self.configured(host_config(2))
        return h

    def math_function(self, module: ir.Module, fn: str, ty: ir.Type) -> ir.Function:
        arity = _ARITY.get(fn)
        if arity is None:
            raise ValueError(f"host target: unknown math function {fn!r}")
        if isinstance(ty, ir.HalfType):
            return self._half_math(module, fn, arity)
        if isinstance(ty, ir.FloatType):
            if fn in hostmath.FUNCTIONS:
                return hostmath.float_function(module, fn, ty)
            suffix, libm_suffix = "f32", "f"
        elif isinstance(ty, ir.DoubleType):
            if fn in hostmath.FUNCTIONS64:
                return hostmath.float_function(module, fn, ty)
            suffix, libm_suffix = "f64", ""
        else:
            raise TypeError(f"host target: math function {fn} takes float or double, not {ty}")
        fnty = ir.FunctionType(ty, [ty] * arity)
        if fn in _INTRINSICS:
            return declare_function(module, f"llvm.{_INTRINSICS[fn]}.{suffix}", fnty)
        f = declare_function(module, fn + libm_suffix, fnty)
        # As with -fno-math-errno: the result depends on the arguments only, so calls may
        # be hoisted or merged.  errno is never read by generated code.
        f.attributes.add("nounwind")
        f.attributes.add("readnone")
        return f

    def _half_math(self, module: ir.Module, fn: str, arity: int) -> ir.Function:
        """float16 math computes in float32 (as C and NumPy do): an inlined wrapper."""
        half, single = ir.HalfType(), ir.FloatType()
        name = f"rocarray.host.{fn}.f16"
        existing = module.globals.get(name)
        if existing is not None:
            return existing
        wrapper = ir.Function(module, ir.FunctionType(half, [half] * arity), name)
        wrapper.linkage = "internal"
        wrapper.attributes.add("alwaysinline")
        wrapper.attributes.add("nounwind")
        b = ir.IRBuilder(wrapper.append_basic_block("entry"))
        if fn == "nextafter":  # one half-precision ulp: float32's step would round away
            b.ret(_half_nextafter(b, *wrapper.args))
            return wrapper
        inner = self.math_function(module, fn, single)
        r = b.call(inner, [b.fpext(a, single) for a in wrapper.args])
        b.ret(b.fptrunc(r, half))
        return wrapper

    def mark_kernel(self, fn: ir.Function) -> None:
        ft = fn.function_type
        ok = (
            isinstance(ft.return_type, ir.VoidType)
            and len(ft.args) == 3
            and isinstance(ft.args[0], ir.PointerType)
            and ft.args[1] == I64
            and ft.args[2] == I64
        )
        if not ok:
            raise TypeError(
                f"host kernel {fn.name}: the host entry is void(ptr args, i64 start, i64 stop), "
                f"not {ft}"
            )
        fn.linkage = ""  # external: the loader looks it up by name
        fn.calling_convention = ""
        fn.attributes.add("nounwind")

    # -- compiling --------------------------------------------------------------------

    def _optimise(self, mod, pipeline: str) -> None:
        binding = llvm_binding()
        if pipeline == "inline":
            # the quick tier: put the scalar body into the loop and nothing else (the
            # entry is written to need no clean-up: no stack copies of the parameters)
            pm = binding.create_new_module_pass_manager()
            pm.add_always_inliner_pass()
            pm.run(mod, binding.create_pass_builder(self._machine(self.codegen_level),
                                                    binding.create_pipeline_tuning_options(0)))
            return
        if pipeline == "scalar":
            optimise(mod, self._machine(0), 0)
            return
        level = {"O1-vector": 1, "O2-vector": 2, "O3": 3}[pipeline]
        pto = binding.create_pipeline_tuning_options(speed_level=level)
        if pipeline != "O3":
            # The vectoriser stays; unrolling, interleaving and SLP cost compile time and
            # buy little on a loop that is memory bound.
            pto.loop_vectorization = True
            pto.slp_vectorization = False
            pto.loop_unrolling = False
            pto.loop_interleaving = False
        pb = binding.create_pass_builder(self._machine(self.codegen_level), pto)
        pb.getModulePassManager().run(mod, pb)

    def _optimised_module(self, module: ir.Module | str):
        text = module if isinstance(module, str) else str(module)
        pipeline = self.pipeline
        t0 = time.perf_counter()
        mod = parse_module(text, self)
        if self.verify_ir or _settings.VERIFY_IR.get():
            mod.verify()
        t1 = time.perf_counter()
        if pipeline != "inline" or "alwaysinline" in text:  # else nothing to inline
            self._optimise(mod, pipeline)
        t2 = time.perf_counter()
        return mod, (t1 - t0) * 1e3, (t2 - t1) * 1e3

    def compile(self, module: ir.Module | str) -> bytes:
        """Parse, verify, optimise and emit ``module``: an object file for this machine,
        as a host image where rocarray's mapper places it (``host_image``;
        ``hostload.object_file`` gives the object back)."""
        _init_llvm()
        tm = self._machine(self.codegen_level)
        with llvm_step():
            mod, parse_ms, opt_ms = self._optimised_module(module)
        with llvm_step():
            t = time.perf_counter()
            obj = tm.emit_object(mod)
            emit_ms = (time.perf_counter() - t) * 1e3
        self.last_timings = {"parse_ms": parse_ms, "optimise_ms": opt_ms, "emit_ms": emit_ms}
        return hostload.host_image(obj, check=True)

    @staticmethod
    def check_binary(data: bytes) -> None:
        """The loader's ``check_binary``: raise ValueError unless ``data`` is a sound host
        image or object file (the compile cache checks what it reads)."""
        hostload.check_binary(data)

    def emit_assembly(self, module: ir.Module | str) -> str:
        """The assembly ``compile`` would assemble (same pipeline), for inspection."""
        _init_llvm()
        tm = self._machine(self.codegen_level)
        with LLVM_LOCK:
            mod, _, _ = self._optimised_module(module)
            return tm.emit_assembly(mod)

    def __repr__(self) -> str:
        return f"<rocarray target host ({self.triple}, {self.cpu}, opt_level={self.opt_level})>"


def _half_nextafter(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """C ``nextafter`` on float16 values, by stepping the bit pattern."""
    i16 = ir.IntType(16)
    half = ir.HalfType()
    bits = b.bitcast(x, i16)
    # away from zero when x < y and x > 0, or x > y and x < 0: bits + 1, else bits - 1
    up = b.icmp_unsigned("==", b.fcmp_ordered("<", x, y), b.fcmp_ordered(">", x, half(0.0)))
    stepped = b.bitcast(b.select(up, b.add(bits, i16(1)), b.sub(bits, i16(1))), half)
    # from +-0 the next value is the smallest subnormal with y's sign
    tiny = b.bitcast(b.or_(b.and_(b.bitcast(y, i16), i16(0x8000)), i16(1)), half)
    r = b.select(b.fcmp_ordered("==", x, half(0.0)), tiny, stepped)
    r = b.select(b.fcmp_ordered("==", x, y), y, r)
    return b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), r)


# -- what the loader needs of the target -------------------------------------------------

_host_target: list = []


def default_host() -> HostTarget:
    """The process's default host configuration (made once)."""
    if not _host_target:
        _host_target.append(HostTarget())
    return _host_target[0]


def load_support_module(target, name: str, text: str) -> hostload.HostModule:
    """The support module ``name`` (IR ``text``: no kernel, e.g. the runtime helpers or
    the native built-ins) compiled for ``target``, through the disk store, and loaded."""
    try:
        return hostload.load_host_object(support_image(target, name, text))
    except ValueError:  # an image the loader cannot read: compiled again, not fatal
        return hostload.load_host_object(target.compile(text))


def _runtime_helpers() -> dict:
    """``hostrt``'s functions compiled (or read from the disk store) and loaded: their
    addresses by name."""
    module = load_support_module(default_host().heavy_tier, "rocarray.targets.hostrt", hostrt.IR)
    return {name: module.address(name) for name in hostrt.NAMES}


# every host object the loader gets was compiled by (and cached for) a host target, so
# this module is imported before the loader needs the helpers
hostload.lend_runtime_helpers(hostrt.NAMES, _runtime_helpers)
register_target("host", lambda name: HostTarget(), exact=True)
