"""The host target: this machine's CPU, compiled in-process to an object file, loaded by MCJIT.

``HostTarget.compile`` turns a module into the bytes of a relocatable object file for this
machine (the disk cache stores them); ``load_host_object`` maps such bytes into the process
and hands out function addresses.  Kernels use the host entry of the kernel ABI,
``void name(ptr args, i64 start, i64 stop)`` (docs/architecture.md).

Choosing the pipeline
---------------------
A new dtype signature pays for one compile, so compile time is what this file is tuned
for.  Measured on the development machine (2-core Xeon, Emerald Rapids, AVX-512) with
llvmlite 0.50 / LLVM 22.1, median of 30 compiles of one float32 ``a + b`` kernel following
the kernel ABI (a contiguous loop and a strided loop with per-dimension div/rem, the scalar
body an always-inline function), in milliseconds:

    pipeline                                        parse  optimise  emit   total  vector
    none, codegen O0                                 0.35    0.00    1.00    1.4    no
    none, codegen O2                                 0.38    0.00    6.8     7.2    no
    always-inline+sroa+instcombine+simplifycfg, O0   0.54    0.88    1.3     2.7    no
    same, codegen O2                                 0.56    0.93    7.5     9.0    no
    default O1 (vectorizer on, no unroll/SLP), O0    0.54    8.0     1.5    10.0    yes
    default O1 (same), codegen O2                    0.59   10.8    10.5    21.9    yes
    default O2 (no unroll/interleave/SLP), O2        0.61   11.6    10.3    22.5    yes
    default O3 (everything), codegen O2              0.51   13.0    15.8    29.3    yes

The real skeleton (rocarray.compiler.skeletons, row-by-row loops) is larger; through
``rocarray.multiply`` on a new dtype, ``compile`` costs (parse + optimise + emit):
opt_level 0: 3.8 ms (0.6 + 1.5 + 1.6), 1: 19 ms (0.6 + 16 + 2.4), 2: 42 ms
(0.8 + 23 + 19), 3: 105 ms (0.6 + 47 + 57).  Single runs vary by +-20 % on this VM.

* The llvmlite 0.50 wheel ships LLVM built with assertions on, and the template helpers
  it links in (``isa<>``, ilist iterators) are unoptimised copies (their code spills every
  argument to the stack); a profile of the O1 pipeline is spread thin over them.  So every
  figure above is several times what a release LLVM needs; the ratios between rows are
  what guided the choice.
* Only LLVM's default module pipeline contains the loop vectoriser: llvmlite 0.50 exposes
  no loop-vectorize, LICM or indvars pass on its own, nor a textual pipeline.  A vectorised
  contiguous loop therefore costs the whole O1 simplification pipeline; nothing in the
  custom pass list makes the loop vectorise.  Running the cheap custom passes first does
  not make the O1 pipeline any cheaper (measured).
* LLVM's "verify-cfg-preserved" check (on by default in assertion builds) re-checks the
  CFG around every pass; switching it off saves ~1.5 ms of the O1 pipeline and changes no
  output, so ``_init_llvm`` turns it off for the process.
* Codegen O2 costs ~7-17 ms more than O0 (SelectionDAG and the greedy register allocator
  against FastISel and the fast one); ~1.9 ms of it is fixed cost even for an empty
  function.  The O0 vector loop keeps its 256-bit ``vaddps`` with one spill per iteration:
  1M float32 ``a + b`` runs in 841 us against 578 us at O2 (NumPy: 590 us); a 16K-element
  ``a*b + a`` in cache: 9.3 us against 6.0 us (scalar code: 14.8 us at O2, 26 us at O0).
* The target machine is created once per codegen level and reused (creating one costs
  ~0.3 ms).  A pass builder cannot be reused: llvmlite registers fresh instrumentation
  callbacks on it at every run (and a module pass manager aborts when run twice), so a new
  one (~0.1 ms) is built per compile.

So the default (``opt_level=1``) is the O1 pipeline with the vectoriser and codegen O0:
the contiguous loop vectorises, at ~10 ms (test kernel) to ~19 ms (real skeleton) here.
``opt_level=0`` (the custom scalar pipeline, 2.7-3.8 ms) is the only tier near the 3 ms
goal on this LLVM build, and does not vectorise; 2 and 3 trade compile time for the last
1.5x of loop speed.  ``ROCARRAY_HOST_OPT`` picks the level for the process; it is part of
``cache_key`` because it changes the bytes.

The quick tier (``quick_tier``: what a new signature's first call runs while the full
tier compiles in the background once the kernel is hot) goes further.  Its kernel entry is
IR text written for the quick tier (``skeletons.host_simple_kernel_text``: parameters read
where the launcher packed them, no stack copies, one call site of the body; a 1-D loop,
N-d launches going through the row driver), so its IR
pipeline is the always-inliner alone (``pipeline = "inline"``) and codegen O0.  Measured
here on ``add`` / ``multiply`` / ``subtract`` / ``maximum`` / ``less`` over ten dtypes
(medians, ms): body IR 0.17 + its text 0.10 + entry text 0.01, parse 0.28, verify 0.05,
inline 0.16, emit 0.76, load 0.14: ~1.7 ms, against ~3.3 ms for the ``scalar`` pipeline
on the llvmlite-built skeleton (SROA, instcombine and simplifycfg had to clean up its
stack copies of the by-value shape and stride arrays).  The emit has a floor: 0.23 ms for
an empty module and 0.41 ms for an empty function, whatever the IR.  Since then the body
is put in place as text where it is a plain copy (``skeletons.host_simple_kernel_module``;
229 of the 249 built-in signatures of five dtypes, all but complex math, which calls the
prelude), so no inliner pass runs, and the verifier runs only with ``ROCARRAY_VERIFY_IR=1``
(the tests): -0.2 to -0.4 ms of LLVM per first call here.

Loading: a kernel object holds code, read-only constants and absolute 64-bit relocations
only (the large code model), so ``load_host_object`` maps it itself (``_Mapper``): the
sections are copied into a code arena -- one shared-memory file mapped twice, writable and
executable, 256 KiB at a time -- with the relocations applied on the way.  A load is then
a parse and a copy, no system call: ~40 us in a fresh process against ~85-130 us for
MCJIT's ``add_object_file`` + ``finalize_object`` with the digest, engine search and checks
(a disk-cache hit's whole first call: 0.47 -> 0.30 ms median on a busy machine, A/B;
docs/benchmarks.md).  Since then ``compile`` does the parse, once: it returns a *host
image* (``host_image``: the layout the mapper makes of the object, then the object), so a
disk hit's load reads the plan back (then one ``marshal`` call; now a few ``struct``
calls, whose counts and offsets are checked: "host images" below) and copies:
``_load_image`` of a disk hit's first call in a fresh process went from ~97K to ~42K
instructions (callgrind).  Objects of any other kind (writable data, other relocations, another
machine), or every object with ``ROCARRAY_HOST_LOADER=mcjit``, go to MCJIT: one
execution engine takes many object files; MCJIT resolves names across all objects of an
engine, so objects that define a name already present go to another engine of a small
pool.  Code lives for the life of the process either way.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import sys
import threading
import time

from llvmlite import ir

from .. import _settings
from . import hostrt
from .base import (
    LLVM_LOCK,
    MATH_FUNCTIONS,
    Target,
    ToolchainError,
    declare_function,
    llvm_binding,
    llvm_facts,
    optimise,
    parse_module,
)

I64 = ir.IntType(64)

#: opt_level -> (IR pipeline, codegen level).  See the module docstring for the figures.
PIPELINES = {
    0: ("scalar", 0),
    1: ("O1-vector", 0),
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

_llvm_state: dict = {}

#: The C libraries host code may call into (the math functions, memcpy / memset), opened
#: by name: a symbol resolves in them, in rocarray's own runtime helpers (``hostrt``) or
#: in the names registered with ``register_symbols``, never in whatever else the process
#: happens to have loaded.
_C_LIBRARIES = ("libm.so.6", "libc.so.6") if sys.platform.startswith("linux") else ()


def _c_libraries() -> list:
    """The C math and C libraries, opened by name for rocarray's resolver (once)."""
    libraries = _llvm_state.get("libraries")
    if libraries is None:
        names = list(_C_LIBRARIES)
        if not names:  # not glibc's sonames: ask the platform (slower: it may run a tool)
            names = [n for n in (ctypes.util.find_library("m"), ctypes.util.find_library("c")) if n]
        libraries = []
        for name in names:
            try:
                libraries.append((name, ctypes.CDLL(name)))
            except OSError:
                continue
        _llvm_state["libraries"] = libraries
    return libraries


def _init_llvm():
    """Process-wide LLVM set-up, once, when the first module is compiled or MCJIT loads
    one: options, and the C libraries and the registered names made visible to MCJIT
    (which resolves names through the libraries loaded "permanently")."""
    binding = llvm_binding()
    if "ready" in _llvm_state:
        return binding
    with LLVM_LOCK:
        if "ready" in _llvm_state:
            return binding
        # A debug check of assertion-enabled LLVM builds; it changes no output.
        binding.set_option("rocarray", "-verify-cfg-preserved=false")
        for option in hostrt.DIV_REM_OPTIONS:
            binding.set_option("rocarray", option)
        for name, _ in _c_libraries():
            try:
                binding.load_library_permanently(name)
            except RuntimeError:
                pass
        for name, address in _registered.items():
            binding.add_symbol(name, address)
        _llvm_state["ready"] = True
    return binding


def _opt_level_from_env() -> int:
    return _settings.HOST_OPT.get()  # (its default is DEFAULT_OPT_LEVEL; levels: PIPELINES)


class HostTarget(Target):
    """This machine's CPU: its own triple, CPU name and features; objects run in-process."""

    name = "host"
    wave_size = 1
    is_gpu = False
    binary_kind = "obj"

    def __init__(self, opt_level: int | None = None):
        facts = llvm_facts()  # without loading LLVM where it is known
        self.triple, self.cpu, self.features = facts["triple"], facts["cpu"], facts["features"]
        self.opt_level = _opt_level_from_env() if opt_level is None else int(opt_level)
        if self.opt_level not in PIPELINES:
            raise ValueError(f"opt_level must be one of {sorted(PIPELINES)}, not {opt_level!r}")
        #: the IR pipeline and the codegen level of this configuration
        self.pipeline, self.codegen_level = PIPELINES[self.opt_level]
        #: whether first calls run a quick tier (``quick_tier``); ``ROCARRAY_TIERED`` is
        #: read when the target is made, as ``ROCARRAY_HOST_OPT`` is (an environment look-up
        #: at every kernel load cost a disk hit's first call ~2-4 %)
        self.tiered = _settings.TIERED.get()
        self._machines: dict = {}
        self._data_layout: str | None = None
        self._cache_key: tuple | None = None
        #: Run LLVM's IR verifier before optimising (always for this configuration;
        #: the quick tier only with ``ROCARRAY_VERIFY_IR=1``, as the tests set it).
        self.verify_ir = True
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
        # made once per configuration: it is part of every disk look-up
        state = (self.opt_level, self.pipeline, self.simple_loops)
        memo = self._cache_key
        if memo is None or memo[0] != state:
            memo = self._cache_key = (state, super().cache_key() + (
                ("opt_level", self.opt_level), ("pipeline", self.pipeline),
                ("simple_loops", self.simple_loops)))
        return memo[1]

    @property
    def contracts(self) -> bool:
        """Whether the kernel language contracts a product feeding an add into an FMA
        here: where the CPU has FMA instructions (``compiler/lang/lower.py``)."""
        return "+fma" in self.features.split(",")

    @property
    def quick_tier(self) -> "HostTarget | None":
        """The quick configuration (text kernel entry, always-inliner only, codegen O0:
        ~1.5 ms of LLVM per kernel) when this one costs more; None when tiering is off
        (``ROCARRAY_TIERED=0`` when the target was made) or this is level 0."""
        if self.opt_level == 0 or not self.tiered:
            return None
        q = getattr(self, "_quick", None)
        if q is None:
            q = HostTarget(opt_level=0)
            q.simple_loops = True  # the kernel entry is a text template (skeletons.py)
            q.tier_of = self
            q.pipeline = "inline"
            # Its IR is rocarray's own (the entry template and the kernel language's
            # lowering), verified by the tests (ROCARRAY_VERIFY_IR=1): not re-verified on
            # every first call (~0.05-0.1 ms of it).
            q.verify_ir = False
            self._quick = q
        return q

    @property
    def heavy_tier(self) -> "HostTarget":
        """Codegen O2 after the O2 pipeline (reductions keep their vector lanes in registers
        instead of spilling them every trip, as codegen O0 does)."""
        if self.opt_level >= 2 or self.simple_loops:
            return self
        h = getattr(self, "_heavy", None)
        if h is None:
            h = self._heavy = HostTarget(opt_level=2)
        return h

    def math_function(self, module: ir.Module, fn: str, ty: ir.Type) -> ir.Function:
        arity = _ARITY.get(fn)
        if arity is None:
            raise ValueError(f"host target: unknown math function {fn!r}")
        if isinstance(ty, ir.HalfType):
            return self._half_math(module, fn, arity)
        if isinstance(ty, ir.FloatType):
            suffix, libm_suffix = "f32", "f"
        elif isinstance(ty, ir.DoubleType):
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
        ``object_file`` gives the object back)."""
        _init_llvm()
        tm = self._machine(self.codegen_level)
        with LLVM_LOCK:
            mod, parse_ms, opt_ms = self._optimised_module(module)
            t = time.perf_counter()
            obj = tm.emit_object(mod)
            emit_ms = (time.perf_counter() - t) * 1e3
        self.last_timings = {"parse_ms": parse_ms, "optimise_ms": opt_ms, "emit_ms": emit_ms}
        return host_image(obj, check=True)

    @staticmethod
    def check_binary(data: bytes) -> None:
        """``check_binary`` of the loader below: raise ValueError unless ``data`` is a
        sound host image or object file (the compile cache checks what it reads)."""
        check_binary(data)

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


# -- loading ----------------------------------------------------------------------------

_ELF64_LE = b"\x7fELF\x02\x01"  # magic, 64-bit, little endian
_SH = struct.Struct("<IIQQQQIIQQ")  # one ELF64 section header
_SYM = struct.Struct("<IBBHQQ")     # one ELF64 symbol
_RELA = struct.Struct("<QQq")       # one ELF64 relocation with addend
_SHT_PROGBITS, _SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 1, 2, 4, 8, 9
_SHF_WRITE, _SHF_ALLOC, _SHF_TLS = 0x1, 0x2, 0x400
_SHN_LORESERVE = 0xFF00
_R_X86_64_NONE, _R_X86_64_64, _R_X86_64_PC32, _R_X86_64_PLT32 = 0, 1, 2, 4
#: bytes each relocation kind the mapper applies writes
_RELOC_WIDTH = {_R_X86_64_64: 8, _R_X86_64_PC32: 4, _R_X86_64_PLT32: 4}
#: ... and of the other x86-64 kinds MCJIT applies (a kind not listed: at least one byte)
_MCJIT_RELOC_WIDTH = {**_RELOC_WIDTH, 9: 4, 10: 4, 11: 4, 24: 8, 26: 8, 41: 4, 42: 4}
#: The strictest section alignment a kernel object may ask for, and its largest image:
#: far beyond anything the host target emits; more is a corrupt object, not a big kernel.
_MAX_ALIGN = 1 << 16
_MAX_IMAGE = 1 << 30


def _corrupt(what: str) -> ValueError:
    return ValueError(f"corrupt host object: {what}")


class _ElfObject:
    """The parts of a little-endian ELF64 relocatable object that loading needs.

    ``sections``: the section headers, as tuples (name, type, flags, addr, offset, size,
    link, info, addralign, entsize); ``symbols``: (name, bind, type, section index, value)
    of every symbol but the null one (the name only of global and weak symbols, "" for
    local ones); ``defined`` and ``undefined``: the names of global and weak symbols,
    defined in the object or not.
    """

    __slots__ = ("sections", "symbols", "defined", "undefined", "machine")

    def __init__(self, data: bytes):
        # Every offset, size and index is checked against the data before it is used:
        # the bytes may come from a damaged cache entry whose checksum still verifies,
        # and MCJIT (or the mapper) given a section past the end would read or write
        # outside it.  Anything wrong is a ValueError (``_corrupt``).
        n = len(data)
        if n < 64 or data[:6] != _ELF64_LE:
            raise _corrupt("not a little-endian ELF64 file")
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        (self.machine,) = struct.unpack_from("<H", data, 0x12)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        if shentsize != _SH.size:
            raise ValueError("unexpected ELF section header size")
        if shoff > n or shnum * shentsize > n - shoff:
            raise _corrupt(f"{shnum} section headers at {shoff} run past the end ({n} bytes)")
        self.sections = list(_SH.iter_unpack(data[shoff:shoff + shnum * shentsize]))
        allocated = 0
        for idx, sh in enumerate(self.sections):
            offset, size = sh[4], sh[5]
            if sh[1] != _SHT_NOBITS and (offset > n or size > n - offset):
                raise _corrupt(f"section {idx} ({size} bytes at {offset}) runs past the end ({n} bytes)")
            if sh[2] & _SHF_ALLOC:
                align = sh[8]
                if align & (align - 1) or align > _MAX_ALIGN:
                    raise _corrupt(f"section {idx} aligned to {align} bytes")
                allocated += size  # (a NOBITS section's size has no bytes in the file)
                if allocated > _MAX_IMAGE:
                    raise _corrupt(f"allocated sections of more than {_MAX_IMAGE} bytes")
            if sh[1] == _SHT_RELA and (sh[6] >= shnum or sh[7] >= shnum or (sh[9] or _RELA.size) != _RELA.size
                                       or size % _RELA.size):
                raise _corrupt(f"relocation section {idx}: bad link, target or entry size")
        self.symbols = []
        self.defined, self.undefined = set(), set()
        for sh in self.sections:
            if sh[1] != _SHT_SYMTAB:
                continue
            offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9] or _SYM.size
            if entsize != _SYM.size:
                raise ValueError("unexpected ELF symbol size")
            if size % entsize or link >= shnum or self.sections[link][1] == _SHT_NOBITS:
                raise _corrupt("symbol table: bad size or string table")
            str_off, str_end = self.sections[link][4], self.sections[link][4] + self.sections[link][5]
            append = self.symbols.append
            for st_name, st_info, _, st_shndx, st_value, _ in _SYM.iter_unpack(
                    data[offset + entsize:offset + size]):  # entry 0 is the null symbol
                if st_shndx >= shnum and st_shndx < _SHN_LORESERVE:
                    raise _corrupt(f"symbol of section {st_shndx} (of {shnum})")
                bind = st_info >> 4
                if bind in (1, 2):  # STB_GLOBAL, STB_WEAK: only their names are used
                    start = str_off + st_name
                    stop = data.find(b"\0", start, str_end) if st_name < str_end - str_off else -1
                    if stop < 0:
                        raise _corrupt(f"symbol name at {st_name} outside its string table")
                    name = data[start:stop].decode("utf-8", "replace")
                    (self.undefined if st_shndx == 0 else self.defined).add(name)
                else:
                    name = ""
                append((name, bind, st_info & 0xF, st_shndx, st_value))

    def check_relocations(self, data: bytes) -> None:
        """Raise ValueError unless every relocation of an allocated section lies inside
        that section and names a symbol of the object (what MCJIT is given must be sound:
        it applies them without such checks)."""
        sections, count = self.sections, len(self.symbols)
        widths = _MCJIT_RELOC_WIDTH if self.machine == 62 else {}  # (EM_X86_64)
        for sh in sections:
            if sh[1] != _SHT_RELA or not sections[sh[7]][2] & _SHF_ALLOC:
                continue
            target_size = sections[sh[7]][5]
            for r_offset, r_info, _ in _RELA.iter_unpack(data[sh[4]:sh[4] + sh[5]]):
                k, kind = r_info >> 32, r_info & 0xFFFFFFFF
                width = 0 if kind == _R_X86_64_NONE else widths.get(kind, 1)
                if k > count or r_offset > target_size or width > target_size - r_offset:
                    raise _corrupt(f"relocation at {r_offset} (symbol {k} of {count}) outside its "
                                   f"section of {target_size} bytes")


def elf_symbols(data: bytes) -> tuple[set, set] | None:
    """(defined, undefined) global symbol names of a little-endian ELF64 object, or None
    for any other format."""
    if len(data) < 64 or data[:6] != _ELF64_LE:
        return None
    elf = _ElfObject(data)
    return elf.defined, elf.undefined


class _Engine:
    """One MCJIT execution engine and the global names its objects define."""

    def __init__(self, target: HostTarget):
        binding = llvm_binding()
        tm = binding.Target.from_triple(target.triple).create_target_machine(
            cpu=target.cpu, features=target.features, codemodel="jitdefault", jit=True,
        )
        self.ee = binding.create_mcjit_compiler(binding.parse_assembly(""), tm)
        self.names: set = set()


class HostModule:
    """An object file mapped into this process; it stays for the life of the process.

    Loaded either by rocarray's own mapper (``engine`` None: every address is known at
    load) or by an MCJIT engine."""

    __slots__ = ("names", "_engine", "_addresses", "nbytes")

    def __init__(self, engine: _Engine | None, names, nbytes: int, addresses: dict | None = None):
        self._engine = engine
        #: the global names it defines (a set or a dict's keys); None when the object
        #: format is not read (non-ELF)
        self.names = names
        self.nbytes = nbytes
        #: name -> address, of every name when the mapper loaded it
        self._addresses: dict = {} if addresses is None else addresses

    def address(self, name: str) -> int:
        """The address of function ``name`` defined by this object."""
        addr = self._addresses.get(name)
        if addr is not None:
            return addr
        if self.names is not None and name not in self.names:
            raise KeyError(f"host object defines no function {name!r} (it defines {sorted(self.names)})")
        if self._engine is None:
            raise KeyError(f"host object defines no function {name!r}")
        with LLVM_LOCK:
            addr = self._engine.ee.get_function_address(name)
        if not addr:
            raise KeyError(f"host object defines no function {name!r}")
        self._addresses[name] = addr
        return addr

    def __repr__(self) -> str:
        return f"<HostModule {sorted(self.names or ())} ({self.nbytes} bytes)>"


class _Mapper:
    """rocarray's own loader for the simple objects the host target emits.

    A kernel object holds code and read-only constants and, in the large code model, only
    absolute 64-bit relocations (to its own constants and to C library functions).  Such
    an object needs no linker: its allocated sections are copied into a code arena, the
    relocations applied on the way.  The arena is one shared-memory file mapped twice, a
    writable view and an executable one (no page is ever writable and executable through
    the same address), made once per 256 KiB: a load is a copy, with no system call, no
    page fault and no engine search, against MCJIT's ``add_object_file`` +
    ``finalize_object`` (~65 us in a fresh process).  ``map`` returns None for anything
    else (writable or thread-local data, other relocation kinds, another machine or
    system), which MCJIT then loads.  Like MCJIT's engines, the arena is never unmapped.
    A forked child maps a chunk of its own (the pages are shared with the parent).
    """

    #: bytes per arena chunk; an object larger than this gets a chunk of its own size
    CHUNK = 1 << 18
    #: objects start on cache-line boundaries (no line holds code of two kernels)
    ALIGN = 64

    def __init__(self):
        import mmap

        libc = ctypes.CDLL(None, use_errno=True)
        self._mmap = libc.mmap
        self._mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                               ctypes.c_int, ctypes.c_long]
        self._mmap.restype = ctypes.c_void_p
        self._munmap = libc.munmap
        self._munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self._munmap.restype = ctypes.c_int
        self._mm = mmap
        self._page = mmap.PAGESIZE
        self._failed = ctypes.c_void_p(-1).value
        self._write_base = self._exec_base = 0
        self._view: memoryview | None = None  # the current chunk's writable mapping
        self._used = self._size = 0
        #: False once the system refused the arena: MCJIT loads everything then
        self.usable = True
        # a forked child must not fill its parent's chunk: it forgets it (no ``getpid``
        # system call per load)
        os.register_at_fork(after_in_child=self._forget_chunk)

    def _forget_chunk(self) -> None:
        self._size = self._used = 0  # the next load maps a chunk of this process's own

    def _new_chunk(self, nbytes: int) -> bool:
        """Map a fresh arena chunk of at least ``nbytes``; False when the system refuses."""
        mm = self._mm
        size = max(self.CHUNK, -(-nbytes // self._page) * self._page)
        try:
            fd = os.memfd_create("rocarray-kernels", os.MFD_CLOEXEC)
        except (AttributeError, OSError):
            return False
        try:
            os.ftruncate(fd, size)
            flags = mm.MAP_SHARED | getattr(mm, "MAP_POPULATE", 0)
            w = self._mmap(None, size, mm.PROT_READ | mm.PROT_WRITE, flags, fd, 0)
            if not w or w == self._failed:
                return False
            x = self._mmap(None, size, mm.PROT_READ | mm.PROT_EXEC, flags, fd, 0)
            if not x or x == self._failed:
                self._munmap(w, size)
                return False
        except OSError:
            return False
        finally:
            os.close(fd)  # the mappings keep the memory
        self._write_base, self._exec_base, self._used, self._size = w, x, 0, size
        # the writable mapping as a Python buffer: a load copies and relocates into it
        # with no foreign call
        self._view = memoryview((ctypes.c_char * size).from_address(w)).cast("B")
        return True

    def place(self, image: bytes, align: int, relocs, externals, defined, resolve) -> dict | None:
        """Copy ``image`` into the arena, relocated (the arguments are those ``_plan_map``
        returns), and return {defined global name: address}; None when the arena cannot
        take it (nothing is used then).  ``resolve(name)`` gives the address of a C
        library symbol, 0 when none is known.  The caller holds ``_map_lock``."""
        if align > self._page:  # chunks start on a page boundary
            return None
        size = len(image)
        start = -(-self._used // align) * align
        if start + size > self._size:
            # full, or none yet -- a forked child has forgotten its parent's
            # (``_forget_chunk``): the chunk's pages are shared (MAP_SHARED) with the
            # parent, which goes on filling its free part; the child maps a chunk of its
            # own (the code already in the old one stays valid, nobody rewrites it)
            if not self._new_chunk(size):
                self.usable = False
                return None
            start = 0
        base = self._exec_base + start  # where the code runs
        view = self._view
        view[start:start + size] = image
        # relocated in place: the space is only taken (``_used``) once they all applied
        for at, kind, symbol, value, addend in relocs:
            if symbol >= 0:
                s_addr = resolve(externals[symbol])
                if not s_addr:
                    return None
            elif symbol == _IN_IMAGE:
                s_addr = base + value
            else:
                s_addr = value
            if kind == _R_X86_64_64:
                _U64.pack_into(view, start + at, (s_addr + addend) & 0xFFFFFFFFFFFFFFFF)
            else:  # _R_X86_64_PC32, _R_X86_64_PLT32
                rel = s_addr + addend - (base + at)
                if not -(1 << 31) <= rel < (1 << 31):
                    return None
                _I32.pack_into(view, start + at, rel)
        self._used = start + size
        return {name: base + offset for name, offset in defined}


#: ``_plan_map``'s relocation symbols other than an index into the C library names
_IN_IMAGE, _ABSOLUTE = -1, -2
_U64, _I32 = struct.Struct("<Q"), struct.Struct("<i")


def _plan_map(data: bytes, elf: _ElfObject) -> tuple | None:
    """How ``_Mapper`` places the object file ``data`` (``elf``, parsed), as the arguments
    of ``_Mapper.place`` after ``self``: (the image -- the allocated sections laid out at
    their offsets --, its alignment, the relocations (offset in the image, kind, symbol,
    value, addend: symbol is an index into the C library names, or ``_IN_IMAGE``:
    the image's address + value, or ``_ABSOLUTE``: value), the C library names, the
    (name, offset) of each global symbol it defines); None when the object is not of the
    simple kind (writable or thread-local data, other relocation kinds, another machine):
    MCJIT loads those."""
    if elf.machine != 62:  # EM_X86_64
        return None
    sections = elf.sections
    place = {}  # section index -> offset in the object's image
    relas = []
    size = 0
    align_all = _Mapper.ALIGN  # the object's start: its strictest section alignment
    for idx, sh in enumerate(sections):
        sh_type, flags = sh[1], sh[2]
        if sh_type == _SHT_RELA:
            if sections[sh[7]][2] & _SHF_ALLOC:
                relas.append(sh)
            continue
        if sh_type == _SHT_REL:
            return None
        if not flags & _SHF_ALLOC or not sh[5]:
            continue
        if flags & (_SHF_WRITE | _SHF_TLS) or sh_type not in (_SHT_PROGBITS, _SHT_NOBITS):
            return None
        align = sh[8] or 1  # (a power of two, at most _MAX_ALIGN: _ElfObject checked)
        align_all = max(align_all, align)
        size = -(-size // align) * align
        place[idx] = size
        size += sh[5]
    if not place:
        return None
    image = bytearray(size)
    for idx, off in place.items():
        sh = sections[idx]
        if sh[1] == _SHT_PROGBITS:
            image[off:off + sh[5]] = data[sh[4]:sh[4] + sh[5]]
    externals = tuple(sorted(elf.undefined))
    index = {name: k for k, name in enumerate(externals)}
    symbols = elf.symbols
    relocs = []
    for sh in relas:
        target_off = place.get(sh[7])
        if target_off is None:  # relocations of an empty allocated section
            continue
        target_size = sections[sh[7]][5]
        for r_offset, r_info, addend in _RELA.iter_unpack(data[sh[4]:sh[4] + sh[5]]):
            kind, k = r_info & 0xFFFFFFFF, r_info >> 32
            if kind == _R_X86_64_NONE:
                continue
            if kind not in (_R_X86_64_64, _R_X86_64_PC32, _R_X86_64_PLT32):
                return None
            if r_offset > target_size - _RELOC_WIDTH[kind] or k > len(symbols):
                raise _corrupt(f"relocation at {r_offset} (symbol {k} of {len(symbols)}) outside "
                               f"its section of {target_size} bytes")
            if not k:
                relocs.append((target_off + r_offset, kind, _ABSOLUTE, 0, addend))
                continue
            name, _, _, shndx, value = symbols[k - 1]
            if shndx == 0:
                symbol = index.get(name)
                if symbol is None:
                    return None
                relocs.append((target_off + r_offset, kind, symbol, 0, addend))
            elif shndx in place:
                if value > sections[shndx][5]:
                    raise _corrupt(f"relocation to offset {value} of a section of {sections[shndx][5]} bytes")
                relocs.append((target_off + r_offset, kind, _IN_IMAGE, place[shndx] + value, addend))
            else:
                return None
    defined = []
    for name, bind, _, shndx, value in symbols:
        if bind in (1, 2) and shndx in place:
            if value >= sections[shndx][5]:
                raise _corrupt(f"symbol {name!r} at {value}, past its section of {sections[shndx][5]} bytes")
            defined.append((name, place[shndx] + value))
    return bytes(image), align_all, tuple(relocs), externals, tuple(defined)


# -- host images ---------------------------------------------------------------------------
#
# What ``HostTarget.compile`` returns (and the disk cache keeps) for an object the mapper
# places: ``_plan_map``'s result, made once when the kernel is compiled, so that loading
# it -- a disk-cache hit in every later process -- parses no ELF; the object itself
# follows, for MCJIT (``ROCARRAY_HOST_LOADER=mcjit``, or no arena).  Little-endian:
#
#     offset  size  field
#     0       8     magic  b"RKHOSTv3"
#     8       4     P, bytes of the plan (u32)
#     12      4     O, bytes of the object file (u32)
#     16      24    the plan's counts (u32 each): I bytes of the image, its alignment, R
#                   relocations, E C library names, D defined names, N bytes of names
#     40      I     the image
#     ...     40*R  the relocations: offset u64, kind i64, symbol i64, value u64, addend i64
#     ...     8*D   the defined names' offsets in the image (u64)
#     ...     N     the E C library names, then the D defined names, each UTF-8 + NUL
#     16+P    O     the object file
#
# A handful of C calls read it back (``struct``, ``bytes.split``): ~1 us of a disk hit's
# first call.  Format 2 held the plan in ``marshal`` format, which reads garbage without
# a bound: a damaged count made one read allocate gigabytes for seconds (and the
# module's own documentation says it is not for data that may be erroneous).  These
# counts are checked against the bytes before anything is made of them, and every
# offset against the image after (``_check_plan``).

_IMAGE_MAGIC = b"RKHOSTv3"
_IMAGE = struct.Struct("<8sII")
_PLAN_COUNTS = struct.Struct("<6I")
_PLAN_RELOC = struct.Struct("<QqqQq")


def _encode_plan(plan: tuple) -> bytes:
    image, align, relocs, externals, defined = plan
    names = b"".join(name.encode() + b"\0" for name in (*externals, *(name for name, _ in defined)))
    return b"".join((
        _PLAN_COUNTS.pack(len(image), align, len(relocs), len(externals), len(defined), len(names)),
        image, b"".join(_PLAN_RELOC.pack(*r) for r in relocs),
        struct.pack(f"<{len(defined)}Q", *(offset for _, offset in defined)), names))


def _decode_plan(data: bytes, start: int, end: int) -> tuple:
    """The plan encoded in ``data[start:end]`` (``_encode_plan``); ValueError when its
    counts do not add up to its bytes or a name is not UTF-8."""
    if end - start < _PLAN_COUNTS.size:
        raise ValueError("host image: its plan is cut short")
    n_image, align, n_relocs, n_externals, n_defined, n_names = _PLAN_COUNTS.unpack_from(data, start)
    at_image = start + _PLAN_COUNTS.size
    at_relocs = at_image + n_image
    at_offsets = at_relocs + n_relocs * _PLAN_RELOC.size
    at_names = at_offsets + 8 * n_defined
    if at_names + n_names != end:
        raise ValueError("host image: its plan's counts do not add up to its bytes")
    names = data[at_names:end].decode().split("\0")  # (UnicodeDecodeError is a ValueError)
    if len(names) != n_externals + n_defined + 1 or names[-1]:
        raise ValueError("host image: its plan's names do not match their count")
    offsets = struct.unpack_from(f"<{n_defined}Q", data, at_offsets)
    return (data[at_image:at_relocs], align, tuple(_PLAN_RELOC.iter_unpack(data[at_relocs:at_offsets])),
            tuple(names[:n_externals]), tuple(zip(names[n_externals:-1], offsets)))


def host_image(obj: bytes, check: bool = False) -> bytes:
    """The host image of the object file ``obj`` (see above), or ``obj`` itself when
    rocarray's mapper cannot place it.  ``check``: raise ``ToolchainError`` when it names
    a symbol rocarray does not provide (``_check_provided``)."""
    if len(obj) < 64 or obj[:6] != _ELF64_LE:
        return obj
    elf = _ElfObject(obj)
    if check:
        _check_provided(elf)
    plan = _plan_map(obj, elf)
    if plan is None:
        return obj
    encoded = _encode_plan(plan)
    return b"".join((_IMAGE.pack(_IMAGE_MAGIC, len(encoded), len(obj)), encoded, obj))


#: the last image ``_read_image`` read and checked, with its answer: a disk-cache hit is
#: checked when it is read (``HostTarget.check_binary``) and loaded right after
_last_read: list = [None]


def _read_image(data: bytes) -> tuple[tuple, int]:
    """(``_plan_map``'s result, where the object file starts) of host image ``data``,
    checked (``_check_plan``); ValueError when it cannot be read or is not sound."""
    last = _last_read[0]
    if last is not None and last[0] == data:
        return last[1]
    if len(data) >= _IMAGE.size:
        magic, n_plan, n_obj = _IMAGE.unpack_from(data)
        obj = _IMAGE.size + n_plan
        if magic == _IMAGE_MAGIC and obj + n_obj == len(data) and data[obj:obj + 6] == _ELF64_LE:
            plan = _decode_plan(data, _IMAGE.size, obj)
            _check_plan(plan)
            _last_read[0] = (data, (plan, obj))
            return plan, obj
    raise ValueError(f"host image of {len(data)} bytes: its plan cannot be read")


def _check_plan(plan: tuple) -> None:
    """Raise ValueError unless every offset, index and size of ``plan`` (``_plan_map``'s
    form) lies inside its image -- so that ``_Mapper.place`` writes only into the image
    and the addresses it hands out point into it.  (The plan comes from a file: a damaged
    entry whose checksum still verifies must not reach the mapper.)"""
    def bad(what):
        return ValueError(f"host image: its plan is not sound ({what})")

    image, align, relocs, externals, defined = plan
    size = len(image)
    if not 0 < size <= _MAX_IMAGE:
        raise bad(f"an image of {size} bytes")
    if not 0 < align <= _MAX_ALIGN or align & (align - 1):
        raise bad(f"alignment {align}")
    for name, offset in defined:
        if offset >= size:
            raise bad(f"{name!r} at {offset}, past the image's {size} bytes")
    n_ext, widths = len(externals), _RELOC_WIDTH
    for r in relocs:
        at, kind, symbol, value, addend = r
        width = widths.get(kind)
        if width is None or at > size - width:
            raise bad(f"relocation {r} outside the image's {size} bytes")
        if symbol == _IN_IMAGE:
            # the address it makes points into the image (PC-relative ones count from
            # the end of their instruction: a few bytes before the target)
            if value > size or not (0 if kind == _R_X86_64_64 else -8) <= value + addend <= size:
                raise bad(f"relocation {r} points outside the image")
        elif symbol == _ABSOLUTE:
            if value:
                raise bad(f"relocation {r}")
        elif not 0 <= symbol < n_ext:
            raise bad(f"relocation {r} names symbol {symbol} of {n_ext}")


def object_file(data: bytes) -> bytes:
    """The object file in ``data``: a host image's (``HostTarget.compile``), else ``data``."""
    if data[:8] != _IMAGE_MAGIC:
        return data
    return data[_read_image(data)[1]:]


_engines: list = []
_loaded: dict = {}  # object bytes -> HostModule: the same object loads once
_host_target: list = []
_mapper: list = []
_map_lock = threading.Lock()


def _default_host() -> HostTarget:
    if not _host_target:
        _host_target.append(HostTarget())
    return _host_target[0]


_symbols: dict = {}  # name -> address: what ``_resolve_symbol`` found or was told
_registered: dict = {}  # name -> address: what ``register_symbols`` was told


def _resolve_symbol(name: str) -> int:
    """The address of C symbol ``name``, 0 when rocarray does not provide it: a name
    registered with ``register_symbols`` (the runtime helpers once loaded, the CPython
    API), else one the C math or C library defines.  Found ones are memoized (those
    libraries stay loaded)."""
    addr = _symbols.get(name)
    if addr is None:
        addr = 0
        for _, library in _c_libraries():
            try:
                addr = ctypes.cast(library[name], ctypes.c_void_p).value or 0
            except AttributeError:
                continue
            break
        if addr:
            _symbols[name] = addr
    return addr


def register_symbols(symbols: dict) -> None:
    """Make C names that no C library defines known to the loader and to MCJIT:
    ``name -> address`` (the runtime helpers, the CPython functions
    ``rocarray.runtime.native`` calls).  They are resolved like any other name from then
    on (``_resolve_symbol``)."""
    for name, address in symbols.items():
        if _symbols.get(name) != address:
            _symbols[name] = _registered[name] = address
            if "ready" in _llvm_state:  # else ``_init_llvm`` tells MCJIT
                llvm_binding().add_symbol(name, address)


_helpers_lock = threading.Lock()


def _load_runtime_helpers() -> None:
    """Compile (or read from the disk cache) and load ``hostrt``'s functions, and register
    their names: once per process, when the first object that needs one is loaded."""
    with _helpers_lock:
        if all(name in _symbols for name in hostrt.NAMES):
            return
        module = load_support_module(_default_host().heavy_tier, "rocarray.targets.hostrt", hostrt.IR)
        register_symbols({name: module.address(name) for name in hostrt.NAMES})


def load_support_module(target, name: str, text: str) -> HostModule:
    """The support module ``name`` (IR ``text``: no kernel, e.g. the runtime helpers or
    the native built-ins) compiled for ``target``, through the disk cache, and loaded."""
    from ..compiler.cache import default_cache, support_image  # the cache sits above the targets

    try:
        return load_host_object(support_image(target, name, text, default_cache().disk))
    except ValueError:  # an image the loader cannot read: compiled again, not fatal
        return load_host_object(target.compile(text))


def provides(name: str) -> bool:
    """Whether host objects may name ``name``: rocarray resolves it in every process."""
    return name in hostrt.NAMES or name.startswith("_GLOBAL_OFFSET_TABLE_") or bool(_resolve_symbol(name))


def _check_provided(elf: "_ElfObject") -> None:
    """Raise ``ToolchainError`` when the object ``elf`` names a symbol rocarray does not
    provide (``provides``): found when the object is made, not when a later process
    loads it."""
    missing = sorted(name for name in elf.undefined if not provides(name))
    if missing:
        defines = ", ".join(sorted(elf.defined)) or "nothing"
        raise ToolchainError(
            f"host object defining {defines} needs {', '.join(missing)}, which rocarray does not "
            f"provide (host code may call the C math and C library functions, rocarray's runtime "
            f"helpers {', '.join(sorted(hostrt.NAMES))} and the names rocarray registers)"
        )


def load_host_object(data: bytes) -> HostModule:
    """Map ``data`` -- a host image or an object file (``HostTarget.compile``) -- into
    this process.

    Kernel objects are mapped by rocarray itself (``_Mapper``; a host image is laid out for
    it already); any other object, or every one when ``ROCARRAY_HOST_LOADER=mcjit`` (read
    once per process), goes to an MCJIT engine whose names it does not clash with.  Either
    way an undefined symbol that no loaded library defines raises ``ToolchainError``
    (MCJIT would abort)."""
    data = bytes(data)
    mod = _loaded.get(data)
    if mod is not None:
        return mod
    if data[:8] == _IMAGE_MAGIC:
        plan, at = _read_image(data)
        if plan[3]:
            _check_resolvable(plan[3])
        mod = _map(data, plan)
        if mod is not None:
            return mod
        obj = data[at:]
        _ElfObject(obj).check_relocations(obj)  # (MCJIT checks no offsets itself)
        return _load_mcjit(data, obj, frozenset(name for name, _ in plan[4]))
    if len(data) >= 64 and data[:6] == _ELF64_LE:
        elf = _ElfObject(data)
        _check_resolvable(elf.undefined)
        mapper = _the_mapper()
        if mapper is not None and mapper.usable:
            plan = _plan_map(data, elf)
            if plan is not None:
                mod = _map(data, plan)
                if mod is not None:
                    return mod
        elf.check_relocations(data)
        return _load_mcjit(data, data, elf.defined)
    if data[:4] == b"\x7fELF" or not _OTHER_FORMATS:
        raise ValueError(f"host object of {len(data)} bytes: not a host image nor a little-endian ELF64 object")
    return _load_mcjit(data, data, None)  # (Mach-O, COFF: MCJIT reads those itself)


#: Whether this system's objects are other than ELF (MCJIT then reads what ``compile``
#: emits, unchecked: this loader knows ELF only)
_OTHER_FORMATS = sys.platform == "darwin" or os.name == "nt"


def check_binary(data: bytes) -> None:
    """Raise ValueError unless ``data`` is what ``HostTarget.compile`` returns, sound
    enough to load: a host image whose plan checks (``_read_image``) -- and, where
    MCJIT loads every object, whose object does too --, or an ELF object whose
    headers, sections, symbols and relocations lie inside it.  (An image the mapper
    cannot place after all goes to MCJIT, its object checked then: a damaged one is a
    ValueError of that load, not a miss.)"""
    if data[:8] == _IMAGE_MAGIC:
        plan, at = _read_image(data)
        mapper = _the_mapper()
        if mapper is None or not mapper.usable:  # MCJIT will load the object inside it
            obj = data[at:]
            _ElfObject(obj).check_relocations(obj)
    elif len(data) >= 64 and data[:6] == _ELF64_LE:
        _ElfObject(data).check_relocations(data)
    elif data[:4] == b"\x7fELF" or not _OTHER_FORMATS or not data:
        raise ValueError(f"host object of {len(data)} bytes: not a host image nor a little-endian ELF64 object")


def _check_resolvable(names) -> None:
    """Raise ``ToolchainError`` unless rocarray resolves every one of ``names``
    (``_resolve_symbol``; MCJIT aborts the whole process on a name it cannot resolve;
    most kernels name none), loading the runtime helpers first when one is named."""
    if not names:
        return
    missing = [s for s in names if not s.startswith("_GLOBAL_OFFSET_TABLE_") and not _resolve_symbol(s)]
    if missing and not hostrt.NAMES.isdisjoint(missing):
        _load_runtime_helpers()
        missing = [s for s in missing if not _resolve_symbol(s)]
    if missing:
        raise ToolchainError(
            f"host object needs {', '.join(sorted(missing))}, which rocarray does not provide "
            f"(not in the C math or C library, nor a name rocarray registers)"
        )


def _the_mapper() -> "_Mapper | None":
    """The process's mapper, or None when ``ROCARRAY_HOST_LOADER=mcjit`` (read once)."""
    if not _mapper:
        with _map_lock:
            if not _mapper:
                use = os.name == "posix" and _settings.HOST_LOADER.get() != "mcjit"
                _mapper.append(_Mapper() if use else None)
    return _mapper[0]


def _map(data: bytes, plan: tuple) -> "HostModule | None":
    """``data`` placed by the mapper as ``plan`` (``_plan_map``) says, or None when the
    mapper is off or cannot place it."""
    mapper = _mapper[0] if _mapper else _the_mapper()
    if mapper is None or not mapper.usable:
        return None
    with _map_lock:
        mod = _loaded.get(data)
        if mod is not None:
            return mod
        addresses = mapper.place(*plan, _resolve_symbol)
        if addresses is None:
            return None
        mod = _loaded[data] = HostModule(None, addresses.keys(), len(data), addresses)
    return mod


def _load_mcjit(data: bytes, obj: bytes, defined) -> HostModule:
    """The object file ``obj`` (of ``data``) loaded by an MCJIT engine; ``defined``: the
    global names it defines (None: unknown, non-ELF)."""
    binding = _init_llvm()
    with LLVM_LOCK:
        mod = _loaded.get(data)
        if mod is not None:
            return mod
        if defined is not None:
            engine = next((e for e in _engines if e.names.isdisjoint(defined)), None)
        else:
            engine = None  # unknown names: a fresh engine is always safe
        if engine is None:
            engine = _Engine(_default_host())
            _engines.append(engine)
        engine.ee.add_object_file(binding.ObjectFileRef.from_data(obj))
        engine.ee.finalize_object()
        if defined is not None:
            engine.names |= defined
        mod = HostModule(engine, defined, len(obj))
        if defined is not None:  # resolve now, so address() is a dict lookup
            for name in defined:
                addr = engine.ee.get_function_address(name)
                if addr:
                    mod._addresses[name] = addr
        _loaded[data] = mod
    return mod
