"""The NVIDIA target: LLVM IR -> PTX (libdevice for math) -> cubin, for one ``sm_XX``.

Kernels are marked with the ``ptx_kernel`` calling convention.  Math goes to libdevice
(``__nv_expf`` ...), which is linked in slices only when a kernel calls it (see
``base.BitcodeLibrary``); the simple functions (fabs, floor, sqrt ...) stay LLVM
intrinsics, which NVPTX lowers to single correctly rounded instructions.

PTX becomes a cubin in-process through nvJitLink (the ``nvidia-nvjitlink`` wheel, reached
through ``cuda.bindings.nvjitlink``) when it loads, else through a ``ptxas`` subprocess,
else ``compile`` returns the PTX itself (``binary_kind == "ptx"``) and the driver
assembles it at load time.  nvJitLink comes first: no process to start, and it is
ahead on small kernels (benchmarks/results/history/benchmarks.md).
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

from llvmlite import ir

from .. import _settings
from .codeobject import EM_CUDA, check_elf
from .base import (
    EXACT_INTRINSICS,
    MATH_FUNCTIONS,
    BitcodeLibrary,
    Target,
    ToolchainError,
    add_string_attribute,
    declare_function,
    disk_facts,
    gpu_math_function,
    gpu_optimised_module,
    gpu_target_machine,
    llvm_binding,
    llvm_step,
    unresolved_functions,
)
from .facts import CompileConfig, Setting, TargetFacts
from .registry import register_target

#: Functions NVPTX lowers from LLVM intrinsics to one exact instruction (or a short exact
#: sequence: sqrt.rn is correctly rounded, min.f32 returns the number when one operand is
#: NaN, as fmin); everything else in ``MATH_FUNCTIONS`` goes to libdevice.
_INTRINSICS = EXACT_INTRINSICS

_ARCH = re.compile(r"sm_(\d+)([af]?)$")

#: libdevice functions the math table can ask for; the first use keeps them all in the
#: in-memory subset the later slices are cut from.
_LIBDEVICE_COMMON = [
    f"__nv_{fn}{suffix}" for fn in MATH_FUNCTIONS if fn not in _INTRINSICS for suffix in ("f", "")
]

_libraries: dict[str, BitcodeLibrary] = {}
_reflect_ready = False


# -- finding the toolchain -------------------------------------------------------------------


def _cuda_roots() -> list[str]:
    """CUDA toolkit directories, most specific first."""
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    roots.append("/usr/local/cuda")

    def version_key(path):
        return [int(x) for x in re.findall(r"\d+", os.path.basename(path))]

    roots += sorted(glob.glob("/usr/local/cuda-*"), key=version_key, reverse=True)
    roots.append("/opt/cuda")
    return [r for r in dict.fromkeys(roots) if r and os.path.isdir(r)]


def _wheel_roots() -> list[str]:
    """Toolkit trees inside NVIDIA's wheels on ``sys.path``: ``nvidia/cu13`` (CUDA 13:
    ``nvidia-nvvm`` holds libdevice, ``nvidia-cuda-nvcc`` ptxas) and ``nvidia/cuda_nvcc``
    (CUDA 12's ``nvidia-cuda-nvcc-cu12``, both)."""
    found = []
    for entry in sys.path:
        for name in ("cu13", "cu12", "cuda_nvcc"):
            path = os.path.join(entry or ".", "nvidia", name)
            if os.path.isdir(path):
                found.append(path)
    return found


def find_libdevice() -> str | None:
    """Path of ``libdevice.10.bc``: env ``ROCARRAY_LIBDEVICE`` (the file or its folder),
    then ``$CUDA_HOME`` / ``$CUDA_PATH``, /usr/local/cuda*, /opt/cuda, then NVIDIA's
    wheels (``nvidia-nvvm`` for CUDA 13)."""
    explicit = _settings.LIBDEVICE.get()
    if explicit:  # asked for by name: that one, or an error (never another one instead)
        if os.path.isfile(explicit):
            return explicit
        found = sorted(glob.glob(os.path.join(explicit, "libdevice*.bc")))
        if found:
            return found[-1]
        raise _settings.LIBDEVICE.invalid(
            explicit, "a folder without libdevice*.bc" if os.path.isdir(explicit) else "no such file")
    candidates = [os.path.join(r, "nvvm", "libdevice") for r in _cuda_roots() + _wheel_roots()]
    for path in candidates:
        if os.path.isfile(path):
            return path
        found = sorted(glob.glob(os.path.join(path, "libdevice*.bc")))
        if found:
            return found[-1]
    return None


def find_ptxas() -> str | None:
    """Path of ``ptxas``: env ``ROCARRAY_PTXAS``, the toolkit directories, ``PATH``,
    then the ``nvidia-cuda-nvcc`` wheel."""
    explicit = _settings.PTXAS.get()
    if explicit:  # asked for by name: that one, or an error (never another one instead)
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise _settings.PTXAS.invalid(explicit, "not an executable file")
    for root in _cuda_roots()[:1]:
        path = os.path.join(root, "bin", "ptxas")
        if os.access(path, os.X_OK):
            return path
    on_path = shutil.which("ptxas")
    if on_path:
        return on_path
    for root in _cuda_roots()[1:] + _wheel_roots():
        path = os.path.join(root, "bin", "ptxas")
        if os.access(path, os.X_OK):
            return path
    return None


_nvjitlink_state: list = []  # [module or None, reason]


def _nvjitlink():
    """The ``cuda.bindings.nvjitlink`` module when it imports and its library loads, else
    None (the reason is kept for ``toolchain_info``)."""
    if not _nvjitlink_state:
        try:
            from cuda.bindings import nvjitlink

            nvjitlink.version()  # loads libnvJitLink; raises when it is missing
            _nvjitlink_state[:] = [nvjitlink, ""]
        except Exception as exc:  # ImportError, or the library failing to load
            _nvjitlink_state[:] = [None, f"{type(exc).__name__}: {exc}"]
    return _nvjitlink_state[0]


_ptxas_versions: dict[str, str] = {}


def _ptxas_version(path: str) -> str:
    if path not in _ptxas_versions:
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
            match = re.search(r"V(\d+\.\d+\.\d+)", out)
            _ptxas_versions[path] = match.group(1) if match else "unknown"
        except OSError as exc:
            _ptxas_versions[path] = f"unusable ({exc})"
    return _ptxas_versions[path]


def _libdevice(path: str) -> BitcodeLibrary:
    if path not in _libraries:
        _libraries[path] = BitcodeLibrary(path, "__nv_", _LIBDEVICE_COMMON)
    return _libraries[path]


def _prec_sqrt_reflect() -> None:
    """Make ``__nvvm_reflect("__CUDA_PREC_SQRT")`` answer 1, as nvcc's default
    ``-prec-sqrt=true`` does; otherwise libdevice's hypotf and normf use sqrt.approx.
    LLVM 22 reads no module flag for it, only this (process-wide) option, which touches
    nothing but the reflect pass."""
    global _reflect_ready
    if not _reflect_ready:
        llvm_binding().set_option("rocarray", "-nvvm-reflect-add=__CUDA_PREC_SQRT=1")
        _reflect_ready = True


def _pick_assembler(choice: "str | None") -> tuple:
    """How PTX becomes bytes for ``choice`` (None: the first that works of nvJitLink,
    ptxas and the driver's JIT)."""
    if choice in (None, "nvjitlink"):
        nvjitlink = _nvjitlink()
        if nvjitlink is not None:
            return ("nvjitlink", tuple(nvjitlink.version()))
        if choice == "nvjitlink":
            raise ToolchainError(
                f"nvJitLink is not usable ({_nvjitlink_state[1]}); "
                "pip install cuda-bindings nvidia-nvjitlink"
            )
    if choice in (None, "ptxas"):
        ptxas = find_ptxas()
        if ptxas is not None:
            return ("ptxas", ptxas, _ptxas_version(ptxas))
        if choice == "ptxas":
            raise ToolchainError("ptxas not found; set ROCARRAY_PTXAS or CUDA_HOME")
    return ("ptx",)


def _toolchain_identity() -> str:
    """What names the installed CUDA toolchain cheaply (no import, no library load): the
    settings that choose its parts, the toolkit and wheel directories and their times,
    and where cuda-bindings lives."""
    roots = _cuda_roots() + _wheel_roots()
    bindings = [os.path.join(e or ".", "cuda", "bindings") for e in sys.path]
    parts = [_settings.LIBDEVICE.raw(), _settings.PTXAS.raw(), os.environ.get("PATH")]
    for path in roots + [b for b in bindings if os.path.isdir(b)]:
        try:
            parts.append((path, os.stat(path).st_mtime_ns))
        except OSError:
            continue
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


_toolchain: dict = {}


def _toolchain_facts() -> dict:
    """The default assembler (``_pick_assembler(None)``) and libdevice's (path, size,
    time), kept in the disk cache under ``_toolchain_identity`` (``disk_facts``): a
    process whose kernels are on disk imports no nvJitLink to name their entries."""
    if not _toolchain:
        def compute():
            libdevice = find_libdevice()
            stamp = None
            if libdevice:
                st = os.stat(libdevice)
                stamp = [libdevice, st.st_size, int(st.st_mtime)]
            return {"assembler": list(_pick_assembler(None)), "libdevice": stamp}

        def check(facts):
            kind = facts["assembler"][0]
            return kind in ("nvjitlink", "ptxas", "ptx") and (
                facts["libdevice"] is None or len(facts["libdevice"]) == 3)

        facts = disk_facts(f"nvptx-toolchain {_toolchain_identity()}", compute, check)
        assembler = facts["assembler"]
        if assembler[0] == "nvjitlink":  # the version as a tuple, as nvJitLink gives it
            assembler = [assembler[0], tuple(assembler[1])]
        _toolchain.update(facts, assembler=tuple(assembler))
    return _toolchain


# -- the target ------------------------------------------------------------------------------


def _shared_bytes(arch: str) -> int:
    """Shared memory of one multiprocessor for its blocks (CUDA's occupancy tables: 228 KiB
    from sm_90, 164 KiB on sm_80 and sm_87, else at least 96 KiB from sm_70)."""
    number = int(arch[3:].rstrip("af"))
    return 228 * 1024 if number >= 90 else 164 * 1024 if number in (80, 87) else 96 * 1024


def nvptx_facts(arch: str) -> TargetFacts:
    """The facts of NVIDIA architecture ``arch``."""
    return TargetFacts(
        kind="nvptx", name=arch, triple="nvptx64-nvidia-cuda", cpu=arch, features="", wave_size=32,
        emits_grid=True, global_address_space=1, shared_address_space=3,
        shared_bytes_per_unit=_shared_bytes(arch),
        # Most threads per block any launch of these kernels uses; written into each
        # kernel as ``.maxntid`` so ptxas may give a thread up to 255 registers.
        max_block_size=256, math_library="libdevice", contracts=True, fence_intermediates=True,
        slow_wide_division=True,
        # The quick tier reads shape and strides in the kernel parameter space (``ld.param``
        # with a register address, no ``.local`` copy).
        dims_by_reference=(0, "byval"))


class NVPTXTarget(Target):
    """Code generation for one NVIDIA architecture, ``NVPTXTarget("sm_90")``."""

    assembler_opt = Setting()

    def __init__(self, arch: str = "sm_90", *, assembler: str | None = None, opt_level: int | None = None):
        """``arch``: "sm_90", "sm_80", "sm_90a" ...; ``assembler``: "nvjitlink", "ptxas" or
        "ptx" (return PTX) to force one, else the first that works of nvjitlink, ptxas,
        ptx; ``opt_level``: LLVM's level (default 0: the PTX assembler optimises)."""
        if not _ARCH.match(arch):
            raise ValueError(f"NVPTXTarget: {arch!r} is not an NVIDIA architecture like 'sm_90'")
        # Default: a cubin made here (nvJitLink, else ptxas), which the disk cache keeps and
        # which loads fast; "ptx" hands PTX to the driver's JIT instead.  See
        # benchmarks/results/history/benchmarks.md for the measurements behind the choice.
        if assembler not in (None, "nvjitlink", "ptxas", "ptx"):
            raise ValueError(f"NVPTXTarget: assembler {assembler!r} is not 'nvjitlink', 'ptxas' or 'ptx'")
        # The PTX assembler (ptxas / nvJitLink / the driver) optimises at -O3 itself, so
        # LLVM only inlines and cleans up by default (see benchmarks/results/history/benchmarks.md).
        self._start(nvptx_facts(arch), CompileConfig(opt_level=0 if opt_level is None else opt_level,
                                                     assembler=assembler, assembler_opt=3))

    def _start(self, facts, config) -> None:
        super()._start(facts, config)
        self._assembler: tuple | None = None
        self._cache_key: tuple | None = None
        self._tm = None

    # -- facts ---------------------------------------------------------------------------

    @property
    def target_machine(self):
        if self._tm is None:
            self._tm = gpu_target_machine(self)
        return self._tm

    @property
    def data_layout(self) -> str:
        return str(self.target_machine.target_data)

    @property
    def assembler(self) -> tuple:
        """``("nvjitlink", version)``, ``("ptxas", path, version)`` or ``("ptx",)``: how
        ``compile`` turns PTX into bytes."""
        if self._assembler is None:
            self._assembler = self._pick_assembler()
        return self._assembler

    def _pick_assembler(self) -> tuple:
        choice = self.config.assembler
        if choice is None:  # the first that works, as the installation last said
            return tuple(_toolchain_facts()["assembler"])
        return _pick_assembler(choice)

    @property
    def interpreter_tier(self) -> "NVPTXTarget":
        return self.configured(CompileConfig(opt_level=3, assembler_opt=3))

    @property
    def jit_opt(self) -> "int | None":
        """The driver JIT's level for this target's PTX (None when it makes cubins)."""
        return self.assembler_opt if self.assembler[0] == "ptx" else None

    @property
    def binary_kind(self) -> str:
        return "ptx" if self.assembler[0] == "ptx" else "cubin"

    def cache_key(self) -> tuple:
        # made once per configuration: it is part of every disk look-up (the facts and
        # the configuration are replaced, never edited, when anything changes)
        memo = self._cache_key
        if memo is None or memo[0] is not self.facts or memo[1] is not self.config:
            tools = _toolchain_facts()
            memo = self._cache_key = (self.facts, self.config, super().cache_key() + (
                self.opt_level, self.assembler, self.assembler_opt, self.simple_loops,
                tools["libdevice"] and tuple(tools["libdevice"])))
        return memo[2]

    @property
    def quick_tier(self) -> "NVPTXTarget | None":
        """The first compile of a kernel: one simple grid-stride loop (a third of the PTX),
        handed as PTX to the driver's JIT, whose fixed cost is far below ptxas' or
        nvJitLink's even at -O0; the full kernel -- vector path, a cubin from the
        assembler at -O3, kept on disk -- is compiled in the background once the kernel
        proves hot.  None with ``ROCARRAY_TIERED=0``."""
        if not _settings.TIERED.get() or self.simple_loops:
            return None
        q = getattr(self, "_quick", None)
        if q is None:
            # the driver JIT at -O0: measured faster (benchmarks/results/history/benchmarks.md)
            q = self._quick = self.configured(CompileConfig(opt_level=0, assembler="ptx", assembler_opt=0,
                                                            simple_loops=True), stands_in_for=self)
        return q

    # -- building IR ---------------------------------------------------------------------

    def math_symbol(self, fn: str, width: str) -> str:
        """Name of the function computing ``fn`` on ``width`` ("f32", "f64") here."""
        if fn in _INTRINSICS:
            return f"{_INTRINSICS[fn]}.{width}"
        return f"__nv_{fn}{'f' if width == 'f32' else ''}"

    def math_function(self, module: ir.Module, fn: str, ty: ir.Type) -> ir.Function:
        return gpu_math_function(self, module, fn, ty)

    def mark_kernel(self, fn: ir.Function) -> None:
        fn.calling_convention = "ptx_kernel"
        fn.linkage = ""
        add_string_attribute(fn, "nvvm.maxntid", str(self.max_block_size))

    def _sreg(self, builder: ir.IRBuilder, name: str) -> ir.Value:
        i32 = ir.IntType(32)
        reader = declare_function(
            builder.module, f"llvm.nvvm.read.ptx.sreg.{name}", ir.FunctionType(i32, [])
        )
        return builder.zext(builder.call(reader, []), ir.IntType(64))

    def emit_global_thread_id(self, builder: ir.IRBuilder) -> ir.Value:
        block = builder.mul(self._sreg(builder, "ctaid.x"), self._sreg(builder, "ntid.x"), flags=["nuw"])
        return builder.add(block, self._sreg(builder, "tid.x"), flags=["nuw"])

    def emit_global_thread_count(self, builder: ir.IRBuilder) -> ir.Value:
        return builder.mul(self._sreg(builder, "nctaid.x"), self._sreg(builder, "ntid.x"), flags=["nuw"])

    def emit_block_id(self, builder: ir.IRBuilder) -> ir.Value:
        return self._sreg(builder, "ctaid.x")

    def emit_block_count(self, builder: ir.IRBuilder) -> ir.Value:
        return self._sreg(builder, "nctaid.x")

    def emit_thread_in_block(self, builder: ir.IRBuilder) -> ir.Value:
        return self._sreg(builder, "tid.x")

    def emit_block_size(self, builder: ir.IRBuilder) -> ir.Value:
        return self._sreg(builder, "ntid.x")

    def limit_registers(self, fn: ir.Function, blocks_per_unit: int) -> None:
        add_string_attribute(fn, "nvvm.minctasm", str(blocks_per_unit))  # .minnctapersm

    def emit_barrier(self, builder: ir.IRBuilder) -> None:
        i32 = ir.IntType(32)
        sync = declare_function(builder.module, "llvm.nvvm.barrier.cta.sync.aligned.all",
                                ir.FunctionType(ir.VoidType(), [i32]))
        builder.call(sync, [ir.Constant(i32, 0)])

    def emit_shuffle_down(self, builder: ir.IRBuilder, value: ir.Value, delta: int) -> ir.Value:
        i32 = ir.IntType(32)
        shfl = declare_function(builder.module, "llvm.nvvm.shfl.sync.down.i32",
                                ir.FunctionType(i32, [i32] * 4))
        return builder.call(shfl, [ir.Constant(i32, -1), value, ir.Constant(i32, delta),
                                   ir.Constant(i32, self.wave_size - 1)])

    def emit_shuffle_up(self, builder: ir.IRBuilder, value: ir.Value, delta: int) -> ir.Value:
        # shfl.up's clamp operand is the lowest lane (0): lanes below delta keep their value
        return self._shuffle(builder, "up", value, delta, 0)

    def emit_shuffle_index(self, builder: ir.IRBuilder, value: ir.Value, lane: int) -> ir.Value:
        return self._shuffle(builder, "idx", value, lane, self.wave_size - 1)

    def emit_ballot(self, builder: ir.IRBuilder, predicate: ir.Value) -> ir.Value:
        i32 = ir.IntType(32)
        vote = declare_function(builder.module, "llvm.nvvm.vote.ballot.sync",
                                ir.FunctionType(i32, [i32, ir.IntType(1)]))
        return builder.call(vote, [ir.Constant(i32, -1), predicate])

    def emit_wave_sync(self, builder: ir.IRBuilder) -> None:
        i32 = ir.IntType(32)
        sync = declare_function(builder.module, "llvm.nvvm.bar.warp.sync", ir.FunctionType(ir.VoidType(), [i32]))
        builder.call(sync, [ir.Constant(i32, -1)])

    def emit_atomic_add(self, builder: ir.IRBuilder, pointer: ir.Value, value: ir.Value) -> ir.Value:
        return builder.atomic_rmw("add", pointer, value, "monotonic")

    def _shuffle(self, builder: ir.IRBuilder, kind: str, value: ir.Value, operand: int, clamp: int) -> ir.Value:
        i32 = ir.IntType(32)
        shfl = declare_function(builder.module, f"llvm.nvvm.shfl.sync.{kind}.i32", ir.FunctionType(i32, [i32] * 4))
        return builder.call(shfl, [ir.Constant(i32, -1), value, ir.Constant(i32, operand), ir.Constant(i32, clamp)])

    # -- compiling -----------------------------------------------------------------------

    def _control_ir(self) -> str:
        # Module flags the kernel module may lack; linked in rather than edited into the
        # caller's module.  Denormals are kept (no flush to zero), as nvcc's default.
        return (
            f'target triple = "{self.triple}"\n'
            f'target datalayout = "{self.data_layout}"\n'
            "!llvm.module.flags = !{!0}\n"
            '!0 = !{i32 4, !"nvvm-reflect-ftz", i32 0}\n'
        )

    def optimised_module(self, module: ir.Module | str):
        """Parse ``module``, link the libdevice slices it calls, internalize all but its
        kernels, drop dead code and optimise; returns the llvmlite ``ModuleRef``."""
        text = module if isinstance(module, str) else str(module)
        return gpu_optimised_module(self, text, "ptx_kernel", self._link_libdevice,
                                    ignore=("__nvvm_reflect",))

    def _link_libdevice(self, mod, tm) -> None:
        wanted = [name for name in unresolved_functions(mod) if name.startswith("__nv_")]
        if wanted:
            path = find_libdevice()
            if path is None:
                raise ToolchainError(
                    f"the kernel calls {', '.join(wanted)} but libdevice.10.bc was not found; "
                    "set ROCARRAY_LIBDEVICE or CUDA_HOME, or pip install nvidia-nvvm"
                )
            _prec_sqrt_reflect()
            _libdevice(path).link_into(mod, wanted, tm)

    def emit_ptx(self, module: ir.Module | str) -> str:
        """PTX text of ``module`` with libdevice linked and optimised (``--emit ptx``)."""
        mod = self.optimised_module(module)
        with llvm_step():
            return self.target_machine.emit_assembly(mod)

    def emit_assembly(self, module: ir.Module | str) -> str:
        """The target's assembly, which for NVPTX is the PTX (``--emit asm``)."""
        return self.emit_ptx(module)

    def assemble(self, ptx: str) -> bytes:
        """PTX text -> the bytes ``compile`` returns (cubin, or the PTX itself)."""
        how = self.assembler
        data = ptx.encode()
        if how[0] == "nvjitlink":
            return self._nvjitlink_cubin(data)
        if how[0] == "ptxas":
            proc = subprocess.run(
                [how[1], f"-arch={self.name}", f"-O{self.assembler_opt}", "-", "-o", "/dev/stdout"],
                input=data,
                capture_output=True,
            )
            if proc.returncode != 0 or not proc.stdout:
                raise ToolchainError(f"ptxas failed: {proc.stderr.decode(errors='replace')}")
            return proc.stdout
        return data + b"\0"  # the driver takes PTX as a NUL-terminated image

    def _nvjitlink_cubin(self, data: bytes) -> bytes:
        nvjitlink = _nvjitlink()
        handle = nvjitlink.create(2, [f"-arch={self.name}", f"-O{self.assembler_opt}"])
        try:
            try:
                nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "rocarray")
                nvjitlink.complete(handle)
            except Exception as exc:
                size = nvjitlink.get_error_log_size(handle)
                log = bytearray(size)
                if size:
                    nvjitlink.get_error_log(handle, log)
                raise ToolchainError(f"nvJitLink failed: {exc}: {log.decode(errors='replace')}") from None
            cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
            nvjitlink.get_linked_cubin(handle, cubin)
            return bytes(cubin)
        finally:
            nvjitlink.destroy(handle)

    def compile(self, module: ir.Module | str) -> bytes:
        return self.assemble(self.emit_ptx(module))

    def check_binary(self, data: bytes) -> None:
        if self.binary_kind == "ptx":
            check_ptx(data)
        else:
            check_elf(data, machine=EM_CUDA, what="cubin")


def check_ptx(data: bytes) -> None:
    """Raise ValueError unless ``data`` is PTX text as ``emit_ptx`` writes it: ASCII,
    no NUL but at the end (the driver reads PTX up to one), its ``.version`` and
    ``.target`` first."""
    head = data[:1024]
    if (not data.isascii() or b"\0" in data.rstrip(b"\0") or b".version " not in head
            or b".target " not in head):
        raise ValueError(f"PTX of {len(data)} bytes: not PTX text (ASCII with .version and .target)")


def toolchain_info() -> dict:
    """What the NVPTX target found on this machine (for ``python -m rocarray info``)."""
    binding = llvm_binding()
    nvjitlink = _nvjitlink()
    ptxas = find_ptxas()
    target = NVPTXTarget("sm_90")
    return {
        "llvm": ".".join(map(str, binding.llvm_version_info)),
        "libdevice": find_libdevice(),
        "nvjitlink": ".".join(map(str, nvjitlink.version())) if nvjitlink else None,
        "nvjitlink_problem": _nvjitlink_state[1] or None,
        "ptxas": ptxas,
        "ptxas_version": _ptxas_version(ptxas) if ptxas else None,
        "assembler": target.assembler[0],
        "binary_kind": target.binary_kind,
    }


register_target("sm_", NVPTXTarget)
