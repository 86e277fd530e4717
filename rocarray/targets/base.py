"""The target interface: the hooks that emit what differs between machines, with defaults.

A target is a frozen ``TargetFacts`` (what the machine is) under a frozen ``CompileConfig``
(how this tier compiles), both in ``facts.py``; codegen reads the facts.  A target turns
an LLVM module (built with llvmlite's ``ir`` layer) into portable bytes (a host object
file, a cubin or PTX, an AMDGPU code object).  Targets never import the
array type or a runtime; the runtime loads the bytes a target produced.

The kernel ABI every target shares is described in ``docs/architecture.md`` ("Kernel ABI").
"""

from __future__ import annotations

import hashlib
import json
import os
import re as _re
import threading as _threading
from dataclasses import replace

from llvmlite import ir

from .. import _settings
from .facts import CompileConfig, Fact, Setting, TargetFacts
# (LLVM_LOCK, ToolchainError and llvm_binding are also every target's: used from here)
from ..runtime.llvm import LLVM_LOCK, ToolchainError, llvm_binding, llvm_step

#: Version of rocarray's code generator.  Bump it whenever generated code changes in a way
#: that makes old disk-cache entries wrong; it is part of every cache key.
CODEGEN_VERSION = 2

#: Most dimensions a kernel sees after the launcher has merged adjacent ones.  Shapes and
#: strides travel by value in the kernel's parameters as ``[MAX_DIMS x i64]``.
MAX_DIMS = 8

class Target:
    """Base class of the code-generation targets (``host``, ``sm_XX``, ``gfxXXXX``): one
    ``TargetFacts`` (what the machine is) under one ``CompileConfig`` (how this tier
    compiles), and the hooks that emit what differs between machines."""

    #: What the machine is; a subclass's ``__init__`` gives its own (``_start``).
    facts: TargetFacts = TargetFacts(kind="abstract", name="abstract")
    #: How this configuration compiles.
    config: CompileConfig = CompileConfig()

    # the facts and settings under their attribute names (``facts.py`` says why)
    name = Fact()
    triple = Fact()
    cpu = Fact()
    features = Fact()
    wave_size = Fact()
    #: The launcher's question (kernels run as a grid of threads); codegen asks the facts.
    is_gpu = Fact("emits_grid")
    global_address_space = Fact()
    shared_address_space = Fact()
    alloca_address_space = Fact()
    max_block_size = Fact()
    narrow_index_division = Fact()
    dims_by_reference = Fact()
    opt_level = Setting()
    simple_loops = Setting()

    #: What ``compile`` returns: "obj" (host object), "cubin", "ptx", "hsaco".
    binary_kind: str = "obj"

    def _start(self, facts: TargetFacts, config: CompileConfig) -> None:
        """Take ``facts`` and ``config``; a subclass also empties its per-configuration
        caches (target machines, layouts, keys) here."""
        self.facts = facts
        self.config = config

    def configured(self, config: "CompileConfig | None" = None, *, stands_in_for: "Target | None" = None,
                   **changes) -> "Target":
        """A target with these facts under ``config`` (default: this one's) with
        ``changes``; ``stands_in_for``: the configuration it is the quick tier of."""
        other = object.__new__(type(self))
        other._start(self.facts, replace(config or self.config, **changes))
        if stands_in_for is not None:
            other.stands_in_for = stands_in_for
        return other

    # -- facts used while building IR ---------------------------------------------------

    @property
    def data_layout(self) -> str:
        """LLVM data layout string, taken from the target machine."""
        raise NotImplementedError

    def math_function(self, module: ir.Module, fn: str, ty: ir.Type) -> ir.Function:
        """Declare (or find) in ``module`` the function computing math function ``fn``.

        ``fn`` is a C math name without type suffix ("exp", "log1p", "atan2", "pow",
        "floor", ...); ``ty`` is ``ir.FloatType()`` or ``ir.DoubleType()``.  The returned
        function takes one or two arguments of ``ty`` (two for atan2, hypot, pow, fmod,
        copysign, nextafter, fmin, fmax) and returns ``ty``.  Hosts map to LLVM intrinsics
        or libm symbols, NVPTX to libdevice ``__nv_*``, AMDGPU to intrinsics or ``__ocml_*``.
        """
        raise NotImplementedError

    def mark_kernel(self, fn: ir.Function) -> None:
        """Make ``fn`` a kernel entry point (calling convention, annotations, linkage)."""
        raise NotImplementedError

    def emit_global_thread_id(self, builder: ir.IRBuilder) -> ir.Value:
        """i64 index of the calling thread in the whole grid (GPU targets only)."""
        raise NotImplementedError(f"target {self.name} has no thread grid")

    def emit_global_thread_count(self, builder: ir.IRBuilder) -> ir.Value:
        """i64 number of threads in the whole grid (GPU targets only)."""
        raise NotImplementedError(f"target {self.name} has no thread grid")

    # -- cooperative work within a block (GPU targets; reductions) ----------------------

    def emit_block_id(self, builder: ir.IRBuilder) -> ir.Value:
        """i64 index of the calling thread's block in the grid."""
        raise NotImplementedError(f"target {self.name} has no thread grid")

    def emit_block_count(self, builder: ir.IRBuilder) -> ir.Value:
        """i64 number of blocks in the grid."""
        raise NotImplementedError(f"target {self.name} has no thread grid")

    def emit_thread_in_block(self, builder: ir.IRBuilder) -> ir.Value:
        """i64 index of the calling thread within its block."""
        raise NotImplementedError(f"target {self.name} has no thread grid")

    def emit_block_size(self, builder: ir.IRBuilder) -> ir.Value:
        """i64 number of threads in a block."""
        raise NotImplementedError(f"target {self.name} has no thread grid")

    def limit_registers(self, fn: ir.Function, blocks_per_unit: int) -> None:
        """Ask the code generator to leave room for ``blocks_per_unit`` blocks of
        ``max_block_size`` threads on one multiprocessor / compute unit (it then keeps the
        kernel's registers within that budget).  Nothing on the host."""

    def emit_barrier(self, builder: ir.IRBuilder) -> None:
        """Wait for every thread of the block; shared-memory writes before it are visible
        to every thread of the block after it."""
        raise NotImplementedError(f"target {self.name} has no thread grid")

    def emit_shuffle_down(self, builder: ir.IRBuilder, value: ir.Value, delta: int) -> ir.Value:
        """The i32 ``value`` of the lane ``delta`` above the caller's in its wave (every lane
        of the wave must execute it; lanes past the end get an unspecified value)."""
        raise NotImplementedError(f"target {self.name} has no waves")

    def emit_shuffle_up(self, builder: ir.IRBuilder, value: ir.Value, delta: int) -> ir.Value:
        """The i32 ``value`` of the lane ``delta`` below the caller's in its wave (every lane
        of the wave must execute it; lanes below ``delta`` get an unspecified value)."""
        raise NotImplementedError(f"target {self.name} has no waves")

    def emit_shuffle_index(self, builder: ir.IRBuilder, value: ir.Value, lane: int) -> ir.Value:
        """The i32 ``value`` of lane ``lane`` (0 .. wave_size - 1) of the caller's wave, in
        every lane (every lane of the wave must execute it)."""
        raise NotImplementedError(f"target {self.name} has no waves")

    def emit_ballot(self, builder: ir.IRBuilder, predicate: ir.Value) -> ir.Value:
        """The i1 ``predicate`` of every lane of the caller's wave as a mask of
        ``wave_size`` bits (an ``i32`` or ``i64``; bit ``k``: lane ``k``'s predicate), in
        every lane (every lane of the wave must execute it)."""
        raise NotImplementedError(f"target {self.name} has no waves: emit_ballot")

    def emit_wave_sync(self, builder: ir.IRBuilder) -> None:
        """Wait for every lane of the caller's wave; its shared-memory writes before it are
        visible to the wave's lanes after it."""
        raise NotImplementedError(f"target {self.name} has no waves: emit_wave_sync")

    def emit_atomic_add(self, builder: ir.IRBuilder, pointer: ir.Value, value: ir.Value) -> ir.Value:
        """Add the integer ``value`` to the integer at ``pointer`` (shared or global memory)
        atomically, with no ordering towards other memory; returns the value it held."""
        raise NotImplementedError(f"target {self.name} has no shared atomics: emit_atomic_add")

    #: A cheaper configuration of this target for the first compile of a kernel (tiered
    #: compilation), or None.  The launcher runs the quick tier's code at once and has the
    #: kernel recompiled with this target in the background once it proves hot.
    quick_tier: "Target | None" = None
    #: For a quick tier: the configuration it stands in for (whose ``quick_tier`` it is).
    #: The disk cache keeps a kernel's code of both in one entry, the stand-in's only
    #: until the other's is there (``compiler/cache.py``).
    stands_in_for: "Target | None" = None
    #: Optimisation level for the driver's JIT when this target's bytes are assembled at
    #: load time (PTX handed to the CUDA driver); None: nothing is assembled at load.
    jit_opt: "int | None" = None
    @property
    def interpreter_tier(self) -> "Target | None":
        """The configuration the first-call interpreter kernel is compiled with on this
        target's machine (once per machine, so fully optimised), or None where first calls
        wait for compiled code (no interpreter)."""
        return None

    @property
    def heavy_tier(self) -> "Target":
        """The configuration for kernels whose inner loops do more than move data
        (reductions): their full tier, compiled in the background once hot, is worth the
        target's whole optimisation pipeline.  This target itself unless overridden."""
        return self

    def emit_parameter_buffer(self, builder: ir.IRBuilder) -> "ir.Value | None":
        """A pointer to the kernel's explicit parameters laid out as the launcher packs
        them (GPU targets whose parameters live in addressable memory, such as AMDGPU's
        kernarg segment), or None.  The GPU quick tier reads each field through it in the
        block that uses it instead of keeping the arguments live across blocks (which
        the O0 register allocator spills and reloads at every block boundary)."""
        return None

    # -- compiling ------------------------------------------------------------------------

    def compile(self, module: ir.Module | str) -> bytes:
        """Optimise, emit and link ``module`` (IR object or text); return loadable bytes."""
        raise NotImplementedError

    def check_binary(self, data: bytes) -> None:
        """Raise ValueError unless ``data`` has the structure of what ``compile`` returns
        (headers, offsets and sizes inside it, the right magic and machine), so that a
        loader or driver given it reads and writes only inside it.  The compile cache
        calls it on every entry it reads from disk -- one whose checksum verifies may
        still hold other bytes --; an entry that fails is a miss: compiled and written
        again.  A structure check, cheap beside a load: it cannot tell sound machine code
        from garbage that is laid out right.  The default refuses only nothing at all."""
        if not data:
            raise ValueError(f"{self.name}: no code")

    def cache_key(self) -> tuple:
        """Everything about the target that changes the bytes ``compile`` returns."""
        return (
            self.name,
            self.triple,
            self.cpu,
            self.features,
            llvm_facts()["version"],
            CODEGEN_VERSION,
        )

    def __repr__(self) -> str:
        return f"<rocarray target {self.name} ({self.triple}, {self.cpu})>"


# -- pieces shared by the GPU targets ------------------------------------------------------
#
# Both GPU targets compile the same way: parse the IR, link the slices of a bitcode math
# library the kernel calls, internalize everything but the kernels, drop what is dead,
# optimise, emit.  These helpers hold the steps; each target only says which library,
# which calling convention marks a kernel and how to turn its assembly into bytes.

#: Math functions ``Target.math_function`` knows, with their number of arguments.
MATH_FUNCTIONS = {
    **dict.fromkeys(
        (
            "sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh "
            "exp exp2 exp10 expm1 log log2 log10 log1p sqrt cbrt "
            "fabs floor ceil trunc rint nearbyint round erf erfc tgamma lgamma"
        ).split(),
        1,
    ),
    **dict.fromkeys("atan2 hypot pow fmod copysign nextafter fmin fmax".split(), 2),
}

# -- the disk store, lent by the layer above ----------------------------------------------
#
# Targets keep facts about the installation, library slices and support modules in the
# compile cache's disk store, but the cache sits above them: it lends them its store
# (``lend_store``) instead of being imported.  Until then there is none.

_store = {"disk": lambda: None, "salt": lambda: "", "support_image": None}


def lend_store(disk, salt, support_image) -> None:
    """Give the targets the disk store: ``disk()`` the ``DiskCache`` or None, ``salt()`` a
    digest of the code generator's source (part of every key written), and
    ``support_image(target, name, text, disk)`` the bytes of a support module through it."""
    _store.update(disk=disk, salt=salt, support_image=support_image)


def disk_store():
    """The lent ``DiskCache``, or None (none lent, or the disk cache is off)."""
    return _store["disk"]()


def support_image(target, name: str, text: str) -> bytes:
    """The bytes ``target`` compiles from the support module ``name`` (IR ``text``),
    through the lent disk store when there is one."""
    lent = _store["support_image"]
    return target.compile(text) if lent is None else lent(target, name, text, disk_store())


_facts: dict = {}


def _cpu_identity() -> "str | None":
    """What names this CPU to LLVM's host detection, cheaply: the first processor's
    vendor, model and feature flags from /proc/cpuinfo (Linux), or None elsewhere."""
    try:
        with open("/proc/cpuinfo", "rb") as f:
            text = f.read(1 << 16)
    except OSError:
        return None
    first = text.split(b"\n\n", 1)[0]
    keep = (b"vendor_id", b"cpu family", b"model", b"model name", b"stepping", b"flags",
            b"Features", b"CPU implementer", b"CPU architecture", b"CPU variant", b"CPU part")
    lines = [line for line in first.splitlines() if line.split(b":", 1)[0].strip() in keep]
    return hashlib.blake2b(b"\n".join(lines), digest_size=16).hexdigest() if lines else None


def _llvmlite_identity() -> "str | None":
    """The installed llvmlite build: its version and its shared library's size and time."""
    import importlib.util

    spec = importlib.util.find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(spec.submodule_search_locations[0], "binding")
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("libllvmlite"))
        stats = [os.stat(os.path.join(folder, n)) for n in names]
    except OSError:
        return None
    return repr([(n, st.st_size, st.st_mtime_ns) for n, st in zip(names, stats)])


def llvm_facts_key() -> "str | None":
    """The disk-cache key of ``llvm_facts`` for this CPU and llvmlite build, or None
    where either cannot be told without LLVM."""
    cpu, build = _cpu_identity(), _llvmlite_identity()
    return None if cpu is None or build is None else f"llvm-facts {cpu} {build}"


def disk_facts(key: "str | None", compute, check) -> dict:
    """``compute()`` -- a dict of what an installation is (JSON: strings, numbers, lists)
    -- kept in the disk cache under ``key``, which names that installation cheaply (None:
    it cannot be named; always computed).  ``check(facts)`` says whether what was read
    back has the right form; a bad or missing entry is computed and written again.  So
    that a process whose kernels are all on disk needs neither LLVM nor a toolchain."""
    disk = None if key is None else disk_store()
    data = None if disk is None else disk.get(key)
    if data is not None:
        try:
            facts = json.loads(data)
            if isinstance(facts, dict) and check(facts):
                return facts
        except (ValueError, KeyError, TypeError, IndexError):
            pass
    facts = compute()
    if disk is not None:
        disk.put(key, json.dumps(facts).encode())
    return facts


def _ask_llvm() -> dict:
    binding = llvm_binding()
    return {"version": list(binding.llvm_version_info), "triple": binding.get_process_triple(),
            "cpu": binding.get_host_cpu_name(), "features": binding.get_host_cpu_features().flatten()}


def llvm_facts() -> dict:
    """What the cache keys and the host target need to know of LLVM -- its version (a
    tuple), this process's triple, the host CPU's name and features -- without loading
    LLVM where they are known (``disk_facts``: loading LLVM is most of a disk-warm
    process's first call)."""
    if not _facts:
        facts = disk_facts(llvm_facts_key(), _ask_llvm, lambda f: all(
            isinstance(f[k], str) for k in ("triple", "cpu", "features")) and all(
            isinstance(v, int) for v in f["version"]))
        _facts.update(facts, version=tuple(facts["version"]))
    return _facts


def declare_function(module: ir.Module, name: str, fnty: ir.FunctionType) -> ir.Function:
    """The function ``name`` of ``module``, declared with ``fnty`` if it is not there yet."""
    existing = module.globals.get(name)
    if existing is None:
        return ir.Function(module, fnty, name)
    if not isinstance(existing, ir.Function) or existing.ftype != fnty:
        raise TypeError(f"{name} is already in the module with type {existing.type}, not {fnty}")
    return existing


class _KernelAttributes(ir.values.FunctionAttributes):
    """Function attributes that also take LLVM string attributes (``"key"="value"``),
    which llvmlite's own set refuses."""

    def add(self, name):
        if name.startswith('"'):
            set.add(self, name)
        else:
            super().add(name)


def add_string_attribute(fn: ir.Function, key: str, value: str) -> None:
    """Give ``fn`` the string attribute ``"key"="value"`` (as clang writes target hints)."""
    if not isinstance(fn.attributes, _KernelAttributes):
        attrs = _KernelAttributes(fn.attributes)
        attrs.alignstack = fn.attributes.alignstack
        attrs.personality = fn.attributes.personality
        fn.attributes = attrs
    for old in [a for a in fn.attributes if a.startswith(f'"{key}"=')]:
        fn.attributes.discard(old)
    fn.attributes.add(f'"{key}"="{value}"')


#: The exact math operations (``MATH_FUNCTIONS`` names) both GPU backends lower from an
#: LLVM intrinsic to one instruction or a short exact sequence, at f32 and f64.
EXACT_INTRINSICS = {
    "fabs": "llvm.fabs",
    "floor": "llvm.floor",
    "ceil": "llvm.ceil",
    "trunc": "llvm.trunc",
    "rint": "llvm.rint",
    "nearbyint": "llvm.nearbyint",
    "round": "llvm.round",
    "sqrt": "llvm.sqrt",
    "copysign": "llvm.copysign",
    "fmin": "llvm.minnum",
    "fmax": "llvm.maxnum",
}

#: LLVM math intrinsics (``llvm.<name>.f32``) -> the ``MATH_FUNCTIONS`` name they compute.
INTRINSIC_MATH = {
    **{fn: fn for fn in MATH_FUNCTIONS if fn not in ("fmin", "fmax")},
    "minnum": "fmin",
    "maxnum": "fmax",
}
_MATH_INTRINSIC = _re.compile(r'@"?llvm\.([a-z0-9]+)\.(f32|f64)"?(?=\()')


def redirect_math_intrinsics(text: str, symbol_for) -> str:
    """Call the target's own function wherever ``text`` calls an LLVM math intrinsic the
    target does not lower (``symbol_for(fn, "f32"|"f64")`` names it).

    A GPU backend given ``llvm.sin.f32`` or ``llvm.exp.f64`` it cannot select stops the
    whole process ("LLVM ERROR: Cannot select"); this turns such a call, from any code
    generator, into the libdevice/ocml call ``math_function`` would have made.
    """
    replaced = set()

    def swap(match):
        fn = INTRINSIC_MATH.get(match[1])
        if fn is None:
            return match[0]
        symbol = symbol_for(fn, match[2])
        if symbol == f"llvm.{match[1]}.{match[2]}":
            return match[0]
        replaced.add(symbol)
        return f'@"{symbol}"'

    text = _MATH_INTRINSIC.sub(swap, text)
    for symbol in replaced:  # one declaration each, even if the module had both
        decls = list(_re.finditer(r'^declare [^\n]*@"' + _re.escape(symbol) + r'"\(.*\n?', text, _re.M))
        plain = list(_re.finditer(r'^declare [^\n]*@' + _re.escape(symbol) + r'\(.*\n?', text, _re.M))
        for extra in sorted(decls + plain, key=lambda m: m.start())[1:][::-1]:
            text = text[: extra.start()] + text[extra.end():]
    return text


def parse_module(text: str, target: "Target"):
    """Parse LLVM IR ``text`` for ``target``: its triple (when the text names none) and its
    data layout; a module built for another triple is an error, not silently retargeted."""
    mod = llvm_binding().parse_assembly(text)
    # Text that already names the target's triple and data layout (what rocarray's own
    # builders write) is left as parsed: asking LLVM for the triple and setting the layout
    # again are two more library calls, and a layout is re-parsed when set.
    layout = target.data_layout
    if (f'\ntarget triple = "{target.triple}"\n' in text
            and f'\ntarget datalayout = "{layout}"\n' in text):
        return mod
    if not mod.triple or mod.triple.startswith("unknown"):
        mod.triple = target.triple
    elif mod.triple != target.triple:
        raise ValueError(f"target {target.name}: the module is built for {mod.triple}, not {target.triple}")
    mod.data_layout = layout
    return mod


def kernel_names(text: str, calling_convention: str) -> list[str]:
    """Names of the functions that ``text`` (LLVM IR) defines with ``calling_convention``."""
    pattern = (
        r'^define\b[^@\n]*\b' + _re.escape(calling_convention) + r'\b[^@\n]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\('
    )
    return [m.strip('"') for m in _re.findall(pattern, text, _re.M)]


def internalize(mod, keep, tm) -> None:
    """Give every definition of ``mod`` not named in ``keep`` internal linkage, then drop
    what nothing reaches (global DCE), so the optimiser never sees unused library code."""
    binding = llvm_binding()
    linkage = binding.Linkage
    discardable = (linkage.linkonce_any, linkage.linkonce_odr, linkage.weak_any, linkage.weak_odr)
    for value in list(mod.functions) + list(mod.global_variables):
        if value.is_declaration:
            continue
        if value.name not in keep:
            value.linkage = linkage.internal
        elif value.linkage in discardable:
            # ocml defines its functions linkonce_odr: DCE would drop them unused
            value.linkage = linkage.external
    pm = binding.ModulePassManager()
    pm.add_global_dead_code_eliminate_pass()
    pm.run(mod, binding.create_pass_builder(tm, binding.create_pipeline_tuning_options(0)))


def optimise(mod, tm, level: int = 3) -> None:
    """Optimise ``mod`` for ``tm``'s target: level 0 is the light pipeline (inline the
    scalar bodies, promote stack slots, combine, simplify), 1-3 LLVM's default
    ``O<level>`` module pipeline."""
    binding = llvm_binding()
    if level == 0:
        pb = binding.create_pass_builder(tm, binding.create_pipeline_tuning_options(speed_level=0))
        pm = binding.create_new_module_pass_manager()
        pm.add_always_inliner_pass()
        pm.add_sroa_pass()
        pm.add_instruction_combine_pass()
        pm.add_simplify_cfg_pass()
        pm.run(mod, pb)
        return
    pb = binding.create_pass_builder(tm, binding.create_pipeline_tuning_options(level))
    pb.getModulePassManager().run(mod, pb)


def unresolved_functions(mod) -> list[str]:
    """Functions ``mod`` calls but does not define, LLVM intrinsics aside."""
    return sorted(
        f.name for f in mod.functions if f.is_declaration and not f.name.startswith("llvm.")
    )


def unresolved_symbols(mod) -> list[str]:
    """Functions and global variables ``mod`` uses but does not define (intrinsics aside)."""
    names = unresolved_functions(mod)
    names += [g.name for g in mod.global_variables if g.is_declaration and not g.name.startswith("llvm.")]
    return sorted(names)


def gpu_math_function(target, module: ir.Module, fn: str, ty: ir.Type) -> ir.Function:
    """``Target.math_function`` of the GPU targets: the function ``target.math_symbol``
    names for ``fn`` at the width of ``ty`` (float or double), declared in ``module``."""
    if fn not in MATH_FUNCTIONS:
        raise ValueError(f"math function {fn!r} is not one of {sorted(MATH_FUNCTIONS)}")
    if isinstance(ty, ir.FloatType):
        width = "f32"
    elif isinstance(ty, ir.DoubleType):
        width = "f64"
    else:
        raise TypeError(f"math function {fn}: type {ty} is not float or double")
    fnty = ir.FunctionType(ty, [ty] * MATH_FUNCTIONS[fn])
    return declare_function(module, target.math_symbol(fn, width), fnty)


def gpu_target_machine(target, **options):
    """The LLVM target machine of a GPU target: codegen O0 with the light pipeline
    (``opt_level`` 0: fast instruction selection and register allocation, much cheaper
    to emit; the PTX assembler's own -O3 does the instruction work on NVPTX), else O3."""
    binding = llvm_binding(all_targets=True)
    with LLVM_LOCK:  # (the compile cache calls targets unlocked: each locks its LLVM steps)
        return binding.Target.from_triple(target.triple).create_target_machine(
            cpu=target.cpu, features=target.features, opt=0 if target.opt_level == 0 else 3,
            codemodel="default", **options)


def gpu_optimised_module(target, text: str, convention: str, link_libraries, ignore=()):
    """The GPU targets' common compile front: redirect math intrinsics to the target's
    library, parse, link the target's control IR, ``link_libraries(mod, tm)`` (the library
    slices the kernel calls), internalize all but the kernels (``convention``), check that
    nothing but ``ignore`` is left unresolved, verify and optimise at ``target.opt_level``.

    A quick tier (``opt_level`` 0) is verified only with ``ROCARRAY_VERIFY_IR=1``, which
    the tests set, as on the host: the IR comes from rocarray's own code generator."""
    name = type(target).__name__
    text = redirect_math_intrinsics(text, target.math_symbol)
    kernels = kernel_names(text, convention)
    if not kernels:
        raise ValueError(f"{name}.compile: the module defines no {convention} function")
    with llvm_step():  # (also for callers outside the compile cache: tests, the CLI)
        tm = target.target_machine
        mod = parse_module(text, target)
        mod.link_in(llvm_binding().parse_assembly(target._control_ir()))
        link_libraries(mod, tm)
        internalize(mod, set(kernels), tm)
        missing = [n for n in unresolved_symbols(mod) if n not in ignore]
        if missing:
            raise ToolchainError(f"{name}: unresolved symbols {', '.join(missing)}")
        if target.opt_level != 0 or _settings.VERIFY_IR.get():
            mod.verify()
        optimise(mod, tm, target.opt_level)
    return mod


def _check_bitcode(blob: bytes) -> None:
    """A library slice from the disk cache: empty (the library lacks the function) or
    bitcode LLVM parses; else ValueError (then a miss: cut again).  Parsed here, once per
    slice and process, so that a damaged slice never fails a compile that links it."""
    if not blob:
        return
    if blob[:4] not in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b"):  # raw bitcode, its wrapper
        raise ValueError("bitcode slice: bad magic")
    with LLVM_LOCK:
        try:
            llvm_binding().parse_bitcode(blob)
        except RuntimeError as exc:
            raise ValueError(f"bitcode slice: {exc}") from None


class BitcodeLibrary:
    """A device math library in LLVM bitcode (libdevice, ocml, ockl), linked in slices.

    Parsing a whole library costs tens of milliseconds per compile, and so does linking it
    and throwing most of it away again.  So the library is parsed once per process and cut
    into slices: a small bitcode module holding the functions asked for and only what they
    call.  Later compiles link the slices they need (well under a millisecond each).
    ``common`` names the functions likely to be asked for; the first cut keeps all of them
    in an intermediate subset, so that later cuts start from the subset, not the whole file.
    Slices are kept in the disk cache too (keyed by the library file's path, size and
    modification time, the LLVM version and the code generator's hash; an absent function
    is kept as an empty entry), so a later process links them without parsing the library.
    """

    def __init__(self, path: str, prefix: str, common=()):
        self.path = path
        self.prefix = prefix
        self._common = set(common)
        self._subset: bytes | None = None
        self._subset_names: set[str] = set()
        self._slices: dict[str, bytes | None] = {}
        self._lock = _threading.Lock()
        self._key_prefix: str | None = None

    def link_into(self, mod, names, tm) -> None:
        """Link into ``mod`` the definitions of ``names`` (and of what they call)."""
        binding = llvm_binding()
        for blob in {b: None for b in self.slices(names, tm).values() if b is not None}:  # (once each)
            mod.link_in(binding.parse_bitcode(blob))

    def slices(self, names, tm) -> dict:
        """``{name: bitcode of its slice, or None when the library lacks it}`` for ``names``
        (cut, or read from the disk cache, when first asked for)."""
        names = sorted(set(names))
        with self._lock:
            missing = [n for n in names if n not in self._slices]
            if missing:
                missing = self._from_disk(missing)
            if missing:
                self._cut(missing, tm)
                self._to_disk(missing)
            return {n: self._slices[n] for n in names}

    def _disk_key(self, name: str) -> str | None:
        if self._key_prefix is None:
            try:
                st = os.stat(self.path)
            except OSError:
                return None
            version = ".".join(map(str, llvm_binding().llvm_version_info))
            self._key_prefix = (f"bitcode-slice|{self.path}|{st.st_size}|{st.st_mtime_ns}|llvm {version}|"
                                f"{_store['salt']()}|")
        return self._key_prefix + name

    _disk = staticmethod(disk_store)

    def _from_disk(self, names) -> list:
        """Take the slices of ``names`` the disk cache holds; returns the names left."""
        disk = self._disk()
        if disk is None:
            return names
        left = []
        for n in names:
            key = self._disk_key(n)
            blob = None if key is None else disk.get(key, check=_check_bitcode)
            if blob is None:
                left.append(n)
            else:
                self._slices[n] = blob or None  # empty: not in the library
        return left

    def _to_disk(self, names) -> None:
        disk = self._disk()
        if disk is None:
            return
        for n in names:
            key = self._disk_key(n)
            if key is not None:
                disk.put(key, self._slices[n] or b"")

    def _cut(self, names, tm) -> None:
        binding = llvm_binding()
        if self._subset is None or not set(names) <= self._subset_names:
            with open(self.path, "rb") as f:
                whole = binding.parse_bitcode(f.read())
            defined = {fn.name for fn in whole.functions if not fn.is_declaration}
            self._subset_names = (self._subset_names | self._common | set(names)) & defined
            internalize(whole, self._subset_names, tm)
            self._subset = whole.as_bitcode()
        part = binding.parse_bitcode(self._subset)
        present = set(names) & self._subset_names
        internalize(part, present, tm)
        # the functions asked for as linkonce_odr: two slices that define one of them (cut
        # in different batches, by different processes) link together
        for fn in part.functions:
            if fn.name in present:
                fn.linkage = binding.Linkage.linkonce_odr
        blob = part.as_bitcode() if present else None
        for n in names:
            self._slices[n] = blob if n in present else None
