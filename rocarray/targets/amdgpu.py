"""The AMD target: LLVM IR -> AMDGPU object -> code object v5 (hsaco), for one ``gfxXXXX``.

Kernels are marked with the ``amdgpu_kernel`` calling convention.  Math goes to LLVM
intrinsics where the AMDGPU backend lowers them accurately (f32 exp/log family, and the
exact operations: sqrt, floor, fabs ...), and to ROCm device-libs ``__ocml_*`` otherwise;
ocml (and ockl, should ocml need it) is linked in slices only when a kernel calls it, with
the ``__oclc_*`` control constants defined here for the target instead of linking the
``oclc_*.bc`` files (Debian's rocm-device-libs has none for gfx942 or gfx11).

The object is linked into a shared code object in-process (``hsalink``: the layout
``ld.lld -shared`` writes, without starting a process), or by ``ld.lld -shared`` for an
object that linker does not handle; see ``find_lld`` for where ``ld.lld`` is looked for.

``opt_level=0`` is the quick tier (``quick_tier``): one simple loop, the light IR
pipeline with ocml inlined into the kernel, and codegen O0; the launcher runs its code
first and has the O3 kernel built in the background once the kernel is hot.  Its kernels
are compiled in two parts (``AMDGPUTarget.quick_split_module``): the entry -- the same
for every signature of an operand layout -- once per layout, calling ``body`` as an
external function, and per signature only the scalar body, with a probe kernel for its
resource counts; ``hsalink.merge_objects`` joins the two objects, the entry is renamed
and its stack size raised by the body's (``quick_split_link``).  A kernel whose body
needs more registers than the entry's descriptor gives is compiled whole.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import subprocess
import tempfile
import threading

from llvmlite import ir

from . import hsalink
from .codeobject import EM_AMDGPU, NT_AMDGPU_METADATA, check_elf, pack_msgpack, unpack_msgpack
from .. import _settings
from .base import (
    EXACT_INTRINSICS,
    LLVM_LOCK,
    Target,
    ToolchainError,
    add_string_attribute,
    declare_function,
    disk_store,
    gpu_math_function,
    gpu_optimised_module,
    gpu_target_machine,
    llvm_binding,
    llvm_step,
    parse_module,
    redirect_math_intrinsics,
    unresolved_functions,
)
from .facts import AMDGPUFacts, CompileConfig, Fact
from .registry import register_target
from .rocm import CODE_OBJECT_VERSION, MIN_LLD, _ockl, _ocml, find_device_libs, find_lld
from .rocm import toolchain_info  # noqa: F401 (`python -m rocarray info` asks each target module)
from .rocm import _libraries  # noqa: F401 (benchmarks read it here)

#: Exact operations: one instruction or a short exact expansion for f32 and f64 (sqrt
#: correctly rounded: LLVM >= 17 expands it so).
_EXACT = EXACT_INTRINSICS
#: f32 only: LLVM >= 17 lowers these with range reduction and denormal scaling around
#: v_exp_f32 / v_log_f32, as accurate as ocml's (checked in the emitted ISA).  The f64
#: forms have no lowering at all, and f32 sin/cos lower to v_sin_f32 without a proper
#: range reduction, so those go to ocml.
_F32_ONLY = {
    "exp": "llvm.exp",
    "exp2": "llvm.exp2",
    "exp10": "llvm.exp10",
    "log": "llvm.log",
    "log2": "llvm.log2",
    "log10": "llvm.log10",
}

_ARCH = re.compile(r"gfx(\d+)([0-9a-f])([0-9a-f])$")
_TARGET_ID_FEATURES = ("sramecc", "xnack")

#: The name of the function a ``define`` or ``declare`` line is about: ``@"name"(`` or
#: ``@name(`` (the line's first ``@``).
_FUNCTION_NAME = re.compile(r'@(?:"((?:[^"\\]|\\.)*)"|([-\w.$]+))\(')
_INTERNAL_GLOBAL = re.compile(r"@[^=\n]*= (?:internal|private) ")


def _quick_globals(text: str, callable_body: bool = False):
    """``(kernel names, declared function names, whether codegen alone can take it)`` of
    module ``text`` if it defines nothing
    but ``amdgpu_kernel`` functions, internal or private functions and internal or
    private globals -- what keeps it on the quick tier's short front
    (``AMDGPUTarget._quick_module``): internalize would change nothing of it, and a
    declared global would be unresolved -- else None.  One pass over the lines' first
    characters, measured much cheaper than regular expressions over the whole text.

    Codegen alone can take the module (``_quick_module`` runs no IR pipeline) when it has
    no global variable and every internal function is ``alwaysinline`` as llvmlite writes
    it (the attribute on the ``define`` line): the backend's own always-inliner then does
    what the pipeline's inliner and global DCE would have done."""
    kernels, declared = [], []
    bare = True
    for line in text.split("\n"):
        c = line[:1]
        if c == "d":
            if line.startswith("define "):
                if line.startswith("define internal "):
                    if bare and " alwaysinline" not in line.rpartition(")")[2]:
                        bare = False
                    continue
                if not line.startswith("define amdgpu_kernel "):
                    if callable_body and line.startswith(f'define hidden void @"{_SPLIT_BODY}"('):
                        continue
                    return None
                m = _FUNCTION_NAME.search(line)
                kernels.append(m[1] if m[1] is not None else m[2])
            elif line.startswith("declare "):
                m = _FUNCTION_NAME.search(line)
                declared.append(m[1] if m[1] is not None else m[2])
        elif c == "@":
            if not _INTERNAL_GLOBAL.match(line):
                return None
            bare = False
        elif c == "!" and line.startswith("!llvm.module.flags"):
            return None
    return kernels, declared, bare
#: The scalar body's name in the quick tier's kernel text (``skeletons.gpu_simple_kernel_text``).
_SPLIT_BODY = "body"
#: The split quick tier's names (``AMDGPUTarget._quick_split``): the entry kernel as
#: compiled once per operand layout, and the probe kernel compiled with each body.
_SPLIT_ENTRY = "rk.quick.entry"
_SPLIT_PROBE = "rk.quick.probe"
_DECLARE_NAME = re.compile(r'^declare [^@\n]*@(?:"((?:[^"\\]|\\.)*)"|([-\w.$]+))\(', re.M)
#: The entry template's metadata (numbered from 1,000,000) and any declaration line.
_TEMPLATE_METADATA = re.compile(r"^![1-9]\d{6,} = [^\n]*", re.M)
_DECLARE_LINE = re.compile(r"^declare [^\n]*", re.M)
_PARAM_TYPES = re.compile(r'(?:^|, )([^,%]+?) %(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)')
#: The entries compiled so far: entry text -> (object, resource counts, metadata) or None.
_split_entries: dict = {}
#: Set to False to compile every quick-tier kernel whole (tests compare the two).
QUICK_SPLIT = True
#: Tests set this to run the quick tier's IR pipeline on every module (``_quick_module``).
_FORCE_QUICK_PIPELINE = False
#: Metadata number of the code-object-version flag put into a quick-tier module's text:
#: clear of the body builders' numbers and of the entry template's (from 1,000,000).
_METADATA_FLAG_BASE = 2_000_000

_ALLOCA = re.compile(
    r'^(?P<indent>[ \t]*)(?P<name>%(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)) = alloca (?P<rest>.*?)'
    r'(?P<meta>(?:, ![-\w.]+ !\d+)*)$',
    re.M,
)


def private_allocas(text: str) -> str:
    """Move every ``alloca`` of ``text`` to the private address space 5 that AMDGPU requires
    (llvmlite's builder cannot write ``addrspace`` on an alloca), casting the result back to
    a flat ``ptr`` so the uses stay valid; InferAddressSpaces and SROA remove the casts."""
    if " alloca " not in text:
        return text

    def move(match):
        if "addrspace(" in match["rest"]:  # already private (the kernel language does that)
            return match.group(0)
        name = match["name"]
        private = name[:-1] + '.private"' if name.endswith('"') else name + ".private"
        indent = match["indent"]
        return (
            f"{indent}{private} = alloca {match['rest']}, addrspace(5){match['meta']}\n"
            f"{indent}{name} = addrspacecast ptr addrspace(5) {private} to ptr"
        )

    return _ALLOCA.sub(move, text)


#: The quick tier's library slices, parsed, by their bitcode (``_quick_slice``).
_quick_slices: dict[bytes, tuple] = {}
_quick_slices_lock = threading.Lock()


def _quick_slice(blob: bytes) -> tuple:
    """``(module, library functions it declares, its other unresolved functions, whether
    the inliner can take all it defines)`` for a slice of ocml or ockl: a new copy of the
    slice, parsed once per process and marked ``alwaysinline`` then (cloning it costs
    about half of parsing the bitcode again)."""
    with _quick_slices_lock:
        got = _quick_slices.get(blob)
        if got is None:
            parsed = llvm_binding().parse_bitcode(blob)
            calls, unresolved, all_inline = [], [], True
            for fn in parsed.functions:
                name = fn.name
                if fn.is_declaration:
                    if name.startswith(("__ocml_", "__ockl_")):
                        calls.append(name)
                    elif not name.startswith("llvm."):
                        unresolved.append(name)
                elif b"noinline" in set(fn.attributes):
                    all_inline = False
                else:
                    fn.add_function_attribute("alwaysinline")
            got = _quick_slices[blob] = (parsed, tuple(calls), tuple(unresolved), all_inline)
        parsed, calls, unresolved, all_inline = got
        return parsed.clone(), calls, unresolved, all_inline


def _inline_library(mod) -> None:
    """Have the light pipeline inline the ocml/ockl functions linked into ``mod`` (ocml's
    own helpers with them).  At codegen O0 a call costs more to compile than the inlined
    code: each callee runs the whole backend pipeline on its own and the call's ABI makes
    the register allocator spill around it (measured; benchmarks/results/history/benchmarks.md).  On NVPTX libdevice is
    inlined the same way: its functions are ``alwaysinline`` already."""
    for fn in mod.functions:
        if (not fn.is_declaration and fn.name.startswith(("__ocml", "__ockl"))
                and b"noinline" not in set(fn.attributes)):
            fn.add_function_attribute("alwaysinline")


def _quick_split_on() -> bool:
    """Whether the quick tier compiles kernels split (``AMDGPUTarget.quick_split_module``):
    unless a test set ``QUICK_SPLIT`` to False."""
    return QUICK_SPLIT


def _entry_disk():
    """The disk store that keeps the split quick tier's entry objects across processes, or
    None: an entry costs a whole kernel's compile, once per operand layout."""
    return disk_store()


def _check_entry_object(data: bytes) -> None:
    """A split quick-tier entry object from the disk cache: a sound AMDGPU ELF
    relocatable object, or ValueError (then a miss: compiled again)."""
    check_elf(data, machine=EM_AMDGPU, elf_type=hsalink.ET_REL, what="AMDGPU entry object")


def _ir_ref(name: str) -> str:
    """How llvmlite writes a reference to global ``name``: ``@"name"``."""
    return '@"' + name.replace("\\", "\\5c").replace('"', "\\22") + '"'


def _declared_in(line: str, block: str) -> bool:
    """Whether the function ``line`` declares is referenced in ``block``."""
    m = _DECLARE_NAME.match(line)
    if m is None:
        return True
    name = m[1] if m[1] is not None else m[2]
    return f'@"{name}"(' in block or f"@{name}(" in block


def _absolute_counts(obj: bytes, kernel: str) -> dict:
    """``{count: value}`` of the absolute symbols ``<kernel>.<count>`` of ``obj`` (the
    resource counts LLVM writes for a kernel's descriptor)."""
    prefix = kernel.encode() + b"."
    out = {}
    for name, value, _size, _info, _other, shndx in hsalink._Input(obj).symbols():
        if shndx == hsalink.SHN_ABS and name.startswith(prefix):
            out[name[len(prefix):].decode()] = value
    return out


def _object_metadata(obj: bytes) -> dict:
    """The ``NT_AMDGPU_METADATA`` map of relocatable object ``obj``'s ``.note``."""
    inp = hsalink._Input(obj)
    for i, name in enumerate(inp.names):
        if name == b".note":
            body = inp.body(i)
            pos = 0
            while pos + 12 <= len(body):
                namesz, descsz, note_type = struct.unpack_from("<III", body, pos)
                pos += 12 + ((namesz + 3) & ~3)
                if note_type == NT_AMDGPU_METADATA:
                    return unpack_msgpack(body[pos:pos + descsz])
                pos += (descsz + 3) & ~3
    raise hsalink.Unsupported("no AMDGPU metadata note")


def _descriptor_offset(obj: bytes, symbol: str) -> int:
    """File offset in ``obj`` of the ``private_segment_fixed_size`` field (bytes 4-7) of
    the kernel descriptor ``symbol`` (64 bytes of ``.rodata``)."""
    inp = hsalink._Input(obj)
    for name, value, size, _info, _other, shndx in inp.symbols():
        if name == symbol.encode():
            if size != 64 or inp.names[shndx] != b".rodata":
                raise hsalink.Unsupported(f"kernel descriptor {symbol!r} is not 64 bytes of .rodata")
            return inp.sections[shndx][4] + value + 4
    raise hsalink.Unsupported(f"no kernel descriptor {symbol!r}")


#: Values put into the entry's metadata where each kernel's own go, found again in the
#: MessagePack bytes (``_note_template``).
_NAME_MARK, _SYMBOL_MARK, _SIZE_MARK = "rk.mark.name\x01", "rk.mark.symbol\x01", 0xFEDCBA97


def _note_template(metadata: dict):
    """The entry's metadata packed once and cut where the kernel's name (0), descriptor
    symbol (1) and private segment size (2) go: ``[bytes, field, bytes, field, bytes,
    field, bytes]``, or None if the marks are not found once each.  Joining the parts is
    far cheaper than packing the whole map per kernel."""
    meta = dict(metadata)
    kernel = dict(meta["amdhsa.kernels"][0])
    kernel[".name"], kernel[".symbol"] = _NAME_MARK, _SYMBOL_MARK
    kernel[".private_segment_fixed_size"] = _SIZE_MARK
    meta["amdhsa.kernels"] = [kernel]
    packed = pack_msgpack(meta)
    marks = [pack_msgpack(m) for m in (_NAME_MARK, _SYMBOL_MARK, _SIZE_MARK)]
    if any(packed.count(m) != 1 for m in marks):
        return None
    cuts = sorted((packed.find(m), k) for k, m in enumerate(marks))
    parts, pos = [], 0
    for at, k in cuts:
        parts += [packed[pos:at], k]
        pos = at + len(marks[k])
    return parts + [packed[pos:]]


# -- the target ------------------------------------------------------------------------------


def amdgpu_facts(arch: str) -> AMDGPUFacts:
    """The facts of AMD GPU ``arch``, which may carry target-id features as the runtime
    reports them ("gfx90a:sramecc+:xnack-")."""
    base, *flags = arch.split(":")
    match = _ARCH.match(base)
    if not match:
        raise ValueError(f"AMDGPUTarget: {arch!r} is not an AMD GPU like 'gfx942' or 'gfx90a:xnack-'")
    features = []
    for flag in flags:
        if flag[:-1] not in _TARGET_ID_FEATURES or flag[-1] not in "+-":
            raise ValueError(f"AMDGPUTarget: unknown target-id feature {flag!r} in {arch!r}")
        features.append(flag[-1] + flag[:-1])
    major, minor, stepping = int(match.group(1)), int(match.group(2), 16), int(match.group(3), 16)
    wave_size = 64 if major < 10 else 32
    return AMDGPUFacts(
        kind="amdgpu", name=arch, triple="amdgcn-amd-amdhsa", cpu=base,
        features=",".join([f"+wavefrontsize{wave_size}", *features]), wave_size=wave_size,
        emits_grid=True, global_address_space=1, shared_address_space=3, alloca_address_space=5,
        shared_bytes_per_unit=64 * 1024,
        # Most work-items per work-group any launch of these kernels uses; written into each
        # kernel as ``"amdgpu-flat-work-group-size"="1,256"`` (LLVM assumes 1024 without it
        # and budgets registers for that).
        max_block_size=256, math_library="ocml", contracts=True, fence_intermediates=True,
        slow_wide_division=True,
        # The quick tier's reduction loops divide indices in 32 bits (AMDGPU has no 64-bit
        # divide; the elementwise quick tier always does).
        narrow_index_division=True,
        isa_version=major * 1000 + minor * 100 + stepping, code_object_version=CODE_OBJECT_VERSION)


class AMDGPUTarget(Target):
    """Code generation for one AMD GPU, ``AMDGPUTarget("gfx942")``.

    ``arch`` may carry target-id features as the runtime reports them
    ("gfx90a:sramecc+:xnack-"); without them the code object runs in either mode.
    """

    binary_kind = "hsaco"
    isa_version = Fact()
    code_object_version = Fact()

    def __init__(self, arch: str = "gfx942", *, opt_level: int = 3):
        facts = amdgpu_facts(arch)
        if opt_level not in (0, 1, 2, 3):
            raise ValueError(f"AMDGPUTarget: opt_level must be 0, 1, 2 or 3, not {opt_level!r}")
        # opt_level 0: the light IR pipeline and codegen O0 (the quick tier); 1-3: LLVM's
        # O<n> pipeline and codegen O3
        self._start(facts, CompileConfig(opt_level=opt_level))

    def _start(self, facts, config) -> None:
        super()._start(facts, config)
        self._tm = None
        self._layout = None

    # -- facts ---------------------------------------------------------------------------

    @property
    def target_machine(self):
        if self._tm is None:
            self._tm = gpu_target_machine(self, reloc="pic")  # (code objects are shared objects)
        return self._tm

    @property
    def data_layout(self) -> str:
        if self._layout is None:
            self._layout = str(self.target_machine.target_data)
        return self._layout

    def cache_key(self) -> tuple:
        folder = find_device_libs()
        stamp = None
        if folder:
            st = os.stat(os.path.join(folder, "ocml.bc"))
            stamp = (folder, st.st_size, int(st.st_mtime))
        return super().cache_key() + (self.opt_level, self.simple_loops, self.code_object_version, stamp,
                                      self.opt_level == 0 and _quick_split_on())

    @property
    def quick_tier(self) -> "AMDGPUTarget | None":
        """The first compile of a kernel: one simple grid-stride loop, the light IR
        pipeline and codegen O0 (~5x cheaper than O3); the full kernel -- vector path, O3 --
        is compiled in the background once the kernel proves hot.  None with
        ``ROCARRAY_TIERED=0`` and for a target that is itself a quick tier."""
        if not _settings.TIERED.get() or self.simple_loops or self.opt_level == 0:
            return None
        q = self.__dict__.get("_quick")
        if q is None:
            q = self._quick = self.configured(CompileConfig(opt_level=0, simple_loops=True), stands_in_for=self)
        return q

    # -- building IR ---------------------------------------------------------------------

    def math_function(self, module: ir.Module, fn: str, ty: ir.Type) -> ir.Function:
        return gpu_math_function(self, module, fn, ty)

    def math_symbol(self, fn: str, width: str) -> str:
        """Name of the function computing ``fn`` on ``width`` ("f32", "f64") here."""
        if fn in _EXACT:
            return f"{_EXACT[fn]}.{width}"
        if width == "f32" and fn in _F32_ONLY:
            return f"{_F32_ONLY[fn]}.f32"
        return f"__ocml_{fn}_{width}"

    def mark_kernel(self, fn: ir.Function) -> None:
        fn.calling_convention = "amdgpu_kernel"
        fn.linkage = ""
        add_string_attribute(fn, "amdgpu-flat-work-group-size", f"1,{self.max_block_size}")

    def _dispatch_field(self, builder: ir.IRBuilder, offset: int, ty: ir.IntType, limit=None) -> ir.Value:
        """Field of the HSA kernel dispatch packet (read through ``llvm.amdgcn.dispatch.ptr``)."""
        module = builder.module
        constant_ptr = ir.PointerType(addrspace=4)
        getter = declare_function(module, "llvm.amdgcn.dispatch.ptr", ir.FunctionType(constant_ptr, []))
        packet = builder.call(getter, [])
        field = builder.gep(packet, [ir.Constant(ir.IntType(64), offset)], inbounds=True, source_etype=ir.IntType(8))
        value = builder.load(field, typ=ty, align=4 if offset % 4 == 0 else 2)
        value.set_metadata("invariant.load", module.add_metadata([]))
        if limit is not None:
            value.set_metadata("range", module.add_metadata([ir.Constant(ty, 1), ir.Constant(ty, limit)]))
        return builder.zext(value, ir.IntType(64))

    def _intrinsic_id(self, builder: ir.IRBuilder, name: str) -> ir.Value:
        i32 = ir.IntType(32)
        reader = declare_function(builder.module, f"llvm.amdgcn.{name}", ir.FunctionType(i32, []))
        return builder.zext(builder.call(reader, []), ir.IntType(64))

    def emit_global_thread_id(self, builder: ir.IRBuilder) -> ir.Value:
        # In 32 bits, exact: the grid has at most 2**32 - 1 work-items (grid_size_x is a
        # u32), and a 64-bit multiply is a dozen instructions to select at codegen O0.
        i32 = ir.IntType(32)
        # workgroup_size_x: u16 at byte 4 of the dispatch packet
        size = builder.trunc(self._dispatch_field(builder, 4, ir.IntType(16), self.max_block_size + 1), i32)
        group = builder.trunc(self._intrinsic_id(builder, "workgroup.id.x"), i32)
        lane = builder.trunc(self._intrinsic_id(builder, "workitem.id.x"), i32)
        first = builder.mul(group, size, flags=["nuw"])
        return builder.zext(builder.add(first, lane, flags=["nuw"]), ir.IntType(64))

    def emit_parameter_buffer(self, builder: ir.IRBuilder) -> ir.Value:
        # the kernarg segment: the explicit arguments at the offsets of the code object's
        # metadata, which are the launcher's (tests/targets/test_launcher_layout.py)
        getter = declare_function(builder.module, "llvm.amdgcn.kernarg.segment.ptr",
                                  ir.FunctionType(ir.PointerType(addrspace=4), []))
        return builder.call(getter, [])

    def emit_global_thread_count(self, builder: ir.IRBuilder) -> ir.Value:
        # grid_size_x: u32 at byte 12 of the dispatch packet, in work-items (not groups)
        return self._dispatch_field(builder, 12, ir.IntType(32))

    def emit_block_id(self, builder: ir.IRBuilder) -> ir.Value:
        return self._intrinsic_id(builder, "workgroup.id.x")

    def emit_block_count(self, builder: ir.IRBuilder) -> ir.Value:
        # grid_size_x counts work-items; launches use whole blocks
        return builder.udiv(self.emit_global_thread_count(builder), self.emit_block_size(builder))

    def emit_thread_in_block(self, builder: ir.IRBuilder) -> ir.Value:
        return self._intrinsic_id(builder, "workitem.id.x")

    def emit_block_size(self, builder: ir.IRBuilder) -> ir.Value:
        return self._dispatch_field(builder, 4, ir.IntType(16), self.max_block_size + 1)

    def limit_registers(self, fn: ir.Function, blocks_per_unit: int) -> None:
        # a compute unit has four SIMDs; waves of the blocks spread over them
        waves = max(1, blocks_per_unit * self.max_block_size // self.wave_size // 4)
        add_string_attribute(fn, "amdgpu-waves-per-eu", str(min(waves, 8)))

    def emit_barrier(self, builder: ir.IRBuilder) -> None:
        # the LDS writes before the barrier must be visible after it: fences around s_barrier
        builder.fence("release", "workgroup")
        barrier = declare_function(builder.module, "llvm.amdgcn.s.barrier", ir.FunctionType(ir.VoidType(), []))
        builder.call(barrier, [])
        builder.fence("acquire", "workgroup")

    def emit_shuffle_down(self, builder: ir.IRBuilder, value: ir.Value, delta: int) -> ir.Value:
        i32 = ir.IntType(32)
        lane = builder.trunc(self._intrinsic_id(builder, "workitem.id.x"), i32)
        return self._permute(builder, value, builder.add(lane, ir.Constant(i32, delta)))

    def emit_shuffle_up(self, builder: ir.IRBuilder, value: ir.Value, delta: int) -> ir.Value:
        # lanes below delta read lane - delta modulo the wave size (the caller ignores them)
        i32 = ir.IntType(32)
        lane = builder.trunc(self._intrinsic_id(builder, "workitem.id.x"), i32)
        return self._permute(builder, value, builder.sub(lane, ir.Constant(i32, delta)))

    def emit_shuffle_index(self, builder: ir.IRBuilder, value: ir.Value, lane: int) -> ir.Value:
        return self._permute(builder, value, ir.Constant(ir.IntType(32), lane))

    def emit_ballot(self, builder: ir.IRBuilder, predicate: ir.Value) -> ir.Value:
        mask = ir.IntType(self.wave_size)
        ballot = declare_function(builder.module, f"llvm.amdgcn.ballot.i{self.wave_size}",
                                  ir.FunctionType(mask, [ir.IntType(1)]))
        return builder.call(ballot, [predicate])

    def emit_wave_sync(self, builder: ir.IRBuilder) -> None:
        # a wave runs in lockstep: only the LDS accesses must not be reordered across it
        builder.fence("acq_rel", "wavefront")

    def emit_atomic_add(self, builder: ir.IRBuilder, pointer: ir.Value, value: ir.Value) -> ir.Value:
        return builder.atomic_rmw("add", pointer, value, "monotonic")

    def _permute(self, builder: ir.IRBuilder, value: ir.Value, lane: ir.Value) -> ir.Value:
        # ds_bpermute reads the lane at byte address / 4 (lane taken modulo the wave size;
        # every lane of the wave is active in the callers, so none reads an inactive 0)
        i32 = ir.IntType(32)
        lane = builder.and_(lane, ir.Constant(i32, self.wave_size - 1))
        permute = declare_function(builder.module, "llvm.amdgcn.ds.bpermute", ir.FunctionType(i32, [i32, i32]))
        return builder.call(permute, [builder.shl(lane, ir.Constant(i32, 2)), value])

    # -- compiling -----------------------------------------------------------------------

    def _control_ir(self) -> str:
        """Target triple, data layout and module flags of every kernel module."""
        return (
            f'target triple = "{self.triple}"\ntarget datalayout = "{self.data_layout}"\n'
            "!llvm.module.flags = !{!0}\n"
            f'!0 = !{{i32 1, !"amdhsa_code_object_version", i32 {self.code_object_version * 100}}}\n'
        )

    def _oclc_ir(self) -> str:
        """The ``__oclc_*`` constants device-libs read, for this target: linked with the
        library, into the kernels that call it (the others would only drop them again)."""
        constants = {
            "__oclc_ISA_version": ("i32", self.isa_version),
            "__oclc_ABI_version": ("i32", self.code_object_version * 100),
            "__oclc_wavefrontsize64": ("i8", int(self.wave_size == 64)),
            "__oclc_finite_only_opt": ("i8", 0),
            "__oclc_unsafe_math_opt": ("i8", 0),
            "__oclc_daz_opt": ("i8", 0),
            "__oclc_correctly_rounded_sqrt32": ("i8", 1),
        }
        lines = [f'target triple = "{self.triple}"', f'target datalayout = "{self.data_layout}"']
        for name, (ty, value) in constants.items():
            lines.append(
                # external, not linkonce_odr: the IR linker skips an unreferenced
                # linkonce_odr definition, and ocml is linked after this module
                f"@{name} = hidden local_unnamed_addr addrspace(4) constant {ty} {value}"
            )
        return "\n".join(lines) + "\n"

    def optimised_module(self, module: ir.Module | str):
        """Parse ``module``, link the ocml/ockl slices it calls, internalize all but its
        kernels, drop dead code and optimise; returns the llvmlite ``ModuleRef``."""
        text = private_allocas(module if isinstance(module, str) else str(module))
        if self.opt_level == 0:
            with LLVM_LOCK:  # (as gpu_optimised_module: also for callers outside the cache)
                mod = self._quick_module(text)
            if mod is not None:
                return mod
        return gpu_optimised_module(self, text, "amdgpu_kernel", self._link_device_libs)

    def _quick_module(self, text: str, callable_body: bool = False):
        """The quick tier's front for a module that defines nothing but its kernels and
        internal functions and declares no global variable (what rocarray's skeletons
        and body builders write), or None for any other module (``gpu_optimised_module``
        takes it).

        The same steps as ``gpu_optimised_module``, each done the cheap way such a module
        allows: the code-object-version flag is put into the text instead of linking a
        second parsed module; the library calls and unresolved functions are read from
        the text's declarations instead of walking the module through the C API; only
        what the libraries bring needs internal linkage, and dead functions go in the
        one pipeline run, which is the always-inliner and SROA only: about half the front's
        cost (benchmarks/results/history/benchmarks.md).  Without instcombine and simplifycfg the IR keeps a few
        more lines (zext/trunc pairs of the entry template, the body's extra branch, loads
        of the ``__oclc_*`` constants) that the O0 backend emits in the same time, within
        the noise."""
        text = redirect_math_intrinsics(text, self.math_symbol)
        found = _quick_globals(text, callable_body)
        if found is None:
            return None
        kernels, declared, bare = found
        if not kernels:
            raise ValueError("AMDGPUTarget.compile: the module defines no amdgpu_kernel function")
        library = sorted(n for n in declared if n.startswith(("__ocml_", "__ockl_")))
        missing = sorted(n for n in declared if not n.startswith(("llvm.", "__ocml_", "__ockl_")))
        if missing:
            raise ToolchainError(f"AMDGPUTarget: unresolved symbols {', '.join(missing)}")
        flag = _METADATA_FLAG_BASE
        version = self.code_object_version * 100
        text += (f"\n!llvm.module.flags = !{{!{flag}}}\n"
                 f'!{flag} = !{{i32 1, !"amdhsa_code_object_version", i32 {version}}}\n')
        tm = self.target_machine
        mod = parse_module(text, self)
        if _settings.VERIFY_IR.get():
            mod.verify()
        if library:
            self._quick_link_libraries(mod, tm, library, set(kernels) | ({_SPLIT_BODY} if callable_body else set()))
        elif bare and " alloca " not in text and not _FORCE_QUICK_PIPELINE:
            # Nothing for the pipeline to do that codegen does not: the backend's
            # always-inliner inlines the body and deletes it (the same object, byte for
            # byte: test_quick_front_without_pipeline_is_byte_identical), and building and running
            # the pass manager is a measurable part of the compile.
            return mod
        binding = llvm_binding()
        pm = binding.create_new_module_pass_manager()
        pm.add_always_inliner_pass()
        pm.add_global_dead_code_eliminate_pass()
        if library or " alloca " in text:
            pm.add_sroa_pass()
        pm.run(mod, binding.create_pass_builder(tm, binding.create_pipeline_tuning_options(speed_level=0)))
        return mod

    def _quick_link_libraries(self, mod, tm, wanted, kernels) -> None:
        """``_link_device_libs`` and ``internalize`` for the quick tier's short front.  The
        slices come from ``_quick_slice``: parsed once per process, marked ``alwaysinline``
        there, cloned for each kernel, with what each leaves unresolved known beforehand;
        so no walk over the module's functions is needed (each C-API step of a walk is
        costly), only one over its few globals (the ``__oclc_*`` constants become
        internal, as internalize() makes them).  The always-inliner then removes the
        library's functions (linkonce_odr and internal, all inlined)."""
        folder = find_device_libs()
        if folder is None:
            raise ToolchainError(
                f"the kernel calls {', '.join(wanted)} but ROCm device-libs (ocml.bc) were not "
                "found; apt-get install rocm-device-libs, or set ROCARRAY_DEVICE_LIBS or ROCM_PATH"
            )
        binding = llvm_binding()
        mod.link_in(binding.parse_assembly(self._oclc_ir()))
        done: set[str] = set()
        missing: list[str] = []
        inlinable = True
        while wanted:
            done.update(wanted)
            blobs = {}
            for library, prefix in ((_ocml, "__ocml_"), (_ockl, "__ockl_")):
                names = [n for n in wanted if n.startswith(prefix)]
                if names:
                    for name, blob in library(folder).slices(names, tm).items():
                        if blob is None:
                            missing.append(name)
                        else:
                            blobs[blob] = None
            asked = set()
            for blob in blobs:
                copy, calls, unresolved, all_inline = _quick_slice(blob)
                mod.link_in(copy)
                asked.update(calls)
                missing += unresolved
                inlinable = inlinable and all_inline
            wanted = sorted(asked - done)
        internal = binding.Linkage.internal
        for value in mod.global_variables:
            if value.is_declaration:
                missing.append(value.name)
            else:
                value.linkage = internal
        if not inlinable:  # a function the inliner keeps: internal, as internalize() does
            for fn in mod.functions:
                if not fn.is_declaration and fn.name not in kernels:
                    fn.linkage = internal
        if missing:
            raise ToolchainError(f"AMDGPUTarget: unresolved symbols {', '.join(sorted(set(missing)))}")

    def _link_device_libs(self, mod, tm) -> None:
        wanted = [n for n in unresolved_functions(mod) if n.startswith(("__ocml_", "__ockl_"))]
        if not wanted:
            return
        folder = find_device_libs()
        if folder is None:
            raise ToolchainError(
                f"the kernel calls {', '.join(wanted)} but ROCm device-libs (ocml.bc) were not "
                "found; apt-get install rocm-device-libs, or set ROCARRAY_DEVICE_LIBS or ROCM_PATH"
            )
        mod.link_in(llvm_binding().parse_assembly(self._oclc_ir()))
        # ocml may call ockl; repeat until nothing new is asked for.
        done: set[str] = set()
        while wanted:
            done.update(wanted)
            ocml = [n for n in wanted if n.startswith("__ocml_")]
            ockl = [n for n in wanted if n.startswith("__ockl_")]
            if ocml:
                _ocml(folder).link_into(mod, ocml, tm)
            if ockl:
                _ockl(folder).link_into(mod, ockl, tm)
            wanted = [
                n for n in unresolved_functions(mod)
                if n.startswith(("__ocml_", "__ockl_")) and n not in done
            ]
        if self.opt_level == 0:
            _inline_library(mod)

    def _emit(self, mod, assembly: bool):
        """Assembly or object of ``mod``, which this consumes: codegen rewrites the module
        in place, and emitting it a second time aborts the process (LLVM 22).  Callers
        hand over a module of their own (``optimised_module`` parses a new one each
        time), so none is cloned first (a clone is a visible part of a quick-tier compile)."""
        tm = self.target_machine
        with llvm_step():
            return tm.emit_assembly(mod) if assembly else tm.emit_object(mod)

    def emit_assembly(self, module: ir.Module | str) -> str:
        """GCN assembly of ``module`` after linking and optimising (``--emit asm``)."""
        return self._emit(self.optimised_module(module), assembly=True)

    def emit_object(self, module: ir.Module | str) -> bytes:
        """The relocatable object, before ``ld.lld`` makes a code object of it."""
        return self._emit(self.optimised_module(module), assembly=False)

    def link(self, obj: bytes) -> bytes:
        """Relocatable object -> shared code object.

        With the in-process linker (``hsalink``: the layout ``ld.lld`` writes, without
        starting a process), and with ``ld.lld -shared`` for an object it does not handle."""
        try:
            return hsalink.link_shared(obj)
        except hsalink.LinkError as exc:
            raise ToolchainError(f"AMDGPUTarget: cannot link the code object: {exc}") from None
        except hsalink.Unsupported:
            return self.link_lld(obj)

    def link_lld(self, obj: bytes) -> bytes:
        """Relocatable object -> shared code object, with ``ld.lld -shared``."""
        command = find_lld()
        if command is None:
            raise ToolchainError(
                f"no ld.lld >= {MIN_LLD} found to link AMDGPU code objects; apt-get install "
                "lld-19, pip install ziglang, or set ROCARRAY_LLD"
            )
        if os.path.exists("/dev/stdin"):
            proc = subprocess.run(
                [*command, "-shared", "--no-undefined", "/dev/stdin", "-o", "-"],
                input=obj,
                capture_output=True,
            )
            out = proc.stdout
        else:
            with tempfile.TemporaryDirectory() as folder:
                src, dst = os.path.join(folder, "k.o"), os.path.join(folder, "k.hsaco")
                with open(src, "wb") as f:
                    f.write(obj)
                proc = subprocess.run(
                    [*command, "-shared", "--no-undefined", src, "-o", dst], capture_output=True
                )
                out = open(dst, "rb").read() if proc.returncode == 0 else b""
        if proc.returncode != 0 or not out:
            raise ToolchainError(f"{' '.join(command)} failed: {proc.stderr.decode(errors='replace')}")
        return out

    def check_binary(self, data: bytes) -> None:
        check_elf(data, machine=EM_AMDGPU, elf_type=hsalink.ET_DYN, what="AMDGPU code object")

    def compile(self, module: ir.Module | str) -> bytes:
        if self.opt_level == 0 and _quick_split_on():
            text = module if isinstance(module, str) else str(module)
            with LLVM_LOCK:
                split = self.quick_split_module(text)
                if split is not None:
                    mod, plan = split
                    hsaco = self.quick_split_link(self._emit(mod, assembly=False), plan)
                    if hsaco is not None:
                        return hsaco
            return self.link(self.emit_object(text))
        return self.link(self.emit_object(module))

    # -- the split quick tier --------------------------------------------------------------

    def quick_split_module(self, text: str):
        """``(module of the scalar body and a probe kernel, plan)`` for quick-tier kernel
        text made by ``skeletons.gpu_simple_kernel_text`` (one kernel, calling the
        internal ``alwaysinline`` function ``body``), or None for other text.

        The kernel entry -- the unravel loop, the checks, the kernarg reads: two thirds of
        the O0 backend's work for a simple signature -- is the same for every signature
        of an operand layout; it is compiled once per process and layout
        (``_split_entry``) with ``body`` left external, and each signature compiles only
        ``body`` (made ``hidden``) with a probe kernel that calls it: LLVM writes the
        probe's resource counts (registers, stack size: the body's, plus a call's) as
        absolute symbols of the object.  ``quick_split_link`` then links the two objects.
        """
        text = private_allocas(text)
        if "addrspace(3)" in text:  # LDS: laid out per kernel by LLVM, the probe's here
            return None
        k0 = text.find("\ndefine amdgpu_kernel ") + 1
        if k0 == 0 or text.find("\ndefine amdgpu_kernel ", k0) >= 0:
            return None  # none, or more than one kernel
        k1 = text.find("\n}\n", k0)
        if k1 < 0:
            return None
        k1 += 3
        block = text[k0:k1]
        head = f'define internal void @"{_SPLIT_BODY}"('
        start = text.find("\n" + head)
        if start < 0 or start > k0 or block.count(f'@"{_SPLIT_BODY}"(') != 1:
            return None
        line_end = text.index("\n", start + 1)
        define = text[start + 1:line_end]
        if not define.endswith(") alwaysinline"):
            return None
        params = define[len(head):-len(") alwaysinline")]
        types = _PARAM_TYPES.findall(params)
        name_match = _FUNCTION_NAME.search(block)
        kernel_name = name_match[1] if name_match[1] is not None else name_match[2]
        entry = self._split_entry(block, kernel_name, text, types)
        if entry is None:
            return None
        # the body, callable: hidden, not inlined; the kernel's block and template go
        body_text = (text[:start + 1] + f'define hidden void @"{_SPLIT_BODY}"({params})'
                     + text[line_end:k0] + text[k1:])
        args = ", ".join(f"{t} poison" for t in types)
        body_text += (f'\ndefine amdgpu_kernel void @"{_SPLIT_PROBE}"() "amdgpu-flat-work-group-size"='
                      f'"1,{self.max_block_size}" {{\n  call void @"{_SPLIT_BODY}"({args})\n  ret void\n}}\n')
        mod = self._quick_module(body_text, callable_body=True)
        if mod is None:
            return None
        return mod, (kernel_name, entry)

    def _split_entry(self, block: str, kernel_name: str, text: str, types):
        """The entry kernel ``block`` compiled alone (as ``rk.quick.entry``, calling an
        external ``body``), once per process and layout, and kept in the disk cache:
        ``(object, its resource counts, its metadata packed and cut for each kernel's
        name and stack size, the file offset of its descriptor's stack size)``, or None
        (kept) when it cannot be."""
        entry_block = block.replace(_ir_ref(kernel_name), f'@"{_SPLIT_ENTRY}"', 1)
        used = [line for line in _DECLARE_LINE.findall(text) if _declared_in(line, entry_block)]
        metadata = _TEMPLATE_METADATA.findall(text)
        key = (self.triple, self.cpu, self.features, self.code_object_version, self.max_block_size,
               entry_block, tuple(used), tuple(metadata))
        got = _split_entries.get(key, False)
        if got is not False:
            return got
        flag = _METADATA_FLAG_BASE
        entry_text = "\n".join([
            f'target triple = "{self.triple}"', f'target datalayout = "{self.data_layout}"',
            entry_block, *used, f'declare hidden void @"{_SPLIT_BODY}"({", ".join(types)})', *metadata,
            f"!llvm.module.flags = !{{!{flag}}}",
            f'!{flag} = !{{i32 1, !"amdhsa_code_object_version", i32 {self.code_object_version * 100}}}', ""])
        got = None
        disk, disk_key = _entry_disk(), None
        obj = None
        if disk is not None:  # compiled by an earlier process
            digest = hashlib.blake2b(entry_text.encode(), digest_size=20).hexdigest()
            disk_key = f"amdgpu-quick-entry|{self.cache_key()!r}|{digest}"
            obj = disk.get(disk_key, check=_check_entry_object)
        try:
            if obj is None:
                mod = parse_module(entry_text, self)
                if " alloca " in entry_block:  # a scalar operand's slot: SROA, as the whole kernel's
                    binding = llvm_binding()
                    pm = binding.create_new_module_pass_manager()
                    pm.add_sroa_pass()
                    pm.run(mod, binding.create_pass_builder(
                        self.target_machine, binding.create_pipeline_tuning_options(speed_level=0)))
                obj = self._emit(mod, assembly=False)
                if disk is not None:
                    disk.put(disk_key, obj)
            counts = _absolute_counts(obj, _SPLIT_ENTRY)
            metadata = _object_metadata(obj)
            kernels = metadata.get("amdhsa.kernels") or []
            if ([k.get(".name") for k in kernels] == [_SPLIT_ENTRY]
                    and counts.get("has_dyn_sized_stack") == 1
                    and kernels[0].get(".private_segment_fixed_size") == counts.get("private_seg_size")):
                got = (obj, counts, _note_template(metadata), _descriptor_offset(obj, _SPLIT_ENTRY + ".kd"))
        except (RuntimeError, ValueError, struct.error, hsalink.Unsupported, hsalink.LinkError):
            got = None
        _split_entries[key] = got
        return got

    def quick_split_link(self, body_obj: bytes, plan) -> bytes | None:
        """The code object of kernel ``plan[0]``: the cached entry object and ``body_obj``
        (``quick_split_module``) merged and linked by ``hsalink``, the entry renamed to the
        kernel, its descriptor's and metadata's private segment size raised by the
        probe's (the body's stack and a call's), or None -- compile the kernel whole --
        when the entry's register counts or flags do not cover the probe's.

        The entry was compiled calling an unknown function: LLVM gave it the register
        budget of a call (41 VGPRs, 43 AGPRs and 36 SGPRs on gfx942 for ``add``'s entry),
        a dynamic stack, and no stack for the callee; the probe's counts are those of
        the body plus a call.  Registers and flags are taken from the entry as they are,
        when they cover the probe's, so the descriptor's register fields, accumulator
        offset and the metadata's counts are LLVM's own; only the stack size is added."""
        kernel_name, (entry_obj, counts, note_parts, private_at) = plan
        probe = _absolute_counts(body_obj, _SPLIT_PROBE)
        if "private_seg_size" not in probe or "private_seg_size" not in counts:
            return None
        for name, value in probe.items():
            if name != "private_seg_size" and (name not in counts or counts[name] < value):
                return None
        stack = counts["private_seg_size"] + probe["private_seg_size"]
        name = kernel_name.encode()
        if note_parts is None:
            return None
        fields = (pack_msgpack(kernel_name), pack_msgpack(kernel_name + ".kd"), pack_msgpack(stack))
        desc = b"".join(fields[p] if isinstance(p, int) else p for p in note_parts)
        note = struct.pack("<III", 7, len(desc), NT_AMDGPU_METADATA) + b"AMDGPU\0\0" + desc
        note += bytes(-len(note) % 4)
        entry_obj = entry_obj[:private_at] + struct.pack("<I", stack) + entry_obj[private_at + 4:]
        try:
            merged = hsalink.merge_objects(
                entry_obj, body_obj, note=note,
                rename={_SPLIT_ENTRY.encode(): name, _SPLIT_ENTRY.encode() + b".kd": name + b".kd"},
                drop=(_SPLIT_PROBE.encode(), _SPLIT_PROBE.encode() + b".kd"))
        except hsalink.Unsupported:
            return None
        return self.link(merged)  # hsalink, or ld.lld for what it does not handle


register_target("gfx", AMDGPUTarget)
