"""What a target is (``TargetFacts``) and how it compiles (``CompileConfig``), as frozen values.

A target object pairs one ``TargetFacts`` -- the hardware and ABI facts the code generator
reads: triple, CPU, features, wave size, address spaces, block limits, how math functions
are reached -- with one ``CompileConfig`` -- optimisation level, pipeline, assembler,
loop shape.  The tiers of a target (quick, heavy, interpreter) share its facts and differ
only in their configuration (``Target.configured``), so codegen never asks which kind of
target it holds: it asks the facts.

The target's old attribute names (``target.wave_size``, ``target.simple_loops``, ...) stay,
read through ``Fact`` and ``Setting``; assigning one swaps in a new frozen value with that
field changed (tests and tools tweak a target so), never edits a shared one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class TargetFacts:
    """The facts of one target machine that generated code depends on."""

    #: The family: "host", "nvptx", "amdgpu" (what ``math_library`` and the compile
    #: front belong to).
    kind: str
    #: Short name used in cache keys and on the command line: "host", "sm_90", "gfx942".
    name: str
    #: LLVM target triple.
    triple: str = ""
    #: CPU name handed to LLVM ("skylake", "sm_90", "gfx942").
    cpu: str = ""
    #: Target features handed to LLVM ("+avx2,...", "+wavefrontsize64", "").
    features: str = ""
    #: Threads of one SIMD group (warp / wavefront); 1 on the host.
    wave_size: int = 1
    #: Kernels run as a grid of threads that each find their own index (GPUs), rather
    #: than as the host's ``(args, start, stop)`` loop entry.
    emits_grid: bool = False
    #: Address space of device global memory, or None (the host's flat memory).  The GPU
    #: vector paths access memory through it, so loads are global rather than generic ones
    #: whatever the optimisation level.
    global_address_space: "int | None" = None
    #: Address space of memory shared by the threads of one block, or None.
    shared_address_space: "int | None" = None
    #: Bytes of shared memory one multiprocessor / compute unit holds for the blocks on it
    #: (0: none): how many blocks of a kernel that stages data there fit at once.
    shared_bytes_per_unit: int = 0
    #: Address space of stack slots (``alloca``) when a module carries no data layout.
    alloca_address_space: int = 0
    #: Most threads per block any launch uses (written into each kernel), or None.
    max_block_size: "int | None" = None
    #: Where math functions come from: "libm" (intrinsics or the C library by name),
    #: "libdevice" (``__nv_*``), "ocml" (``__ocml_*``, linked with device-libs).
    math_library: str = "libm"
    #: The kernel language contracts a product feeding an add into an FMA.
    contracts: bool = False
    #: ``fuse``'s op boundaries fence every float width (the backend could otherwise
    #: carry an intermediate in more precision); else only float16, which the host promotes.
    fence_intermediates: bool = False
    #: A 64-bit divide is a long instruction sequence: index arithmetic divides in 32 bits
    #: where the operands fit.
    slow_wide_division: bool = False
    #: GPU reductions' simple loops never divide in 64 bits (a shift-and-subtract loop
    #: where 32 bits do not suffice): AMDGPU has no 64-bit divide to select cheaply.
    narrow_index_division: bool = False
    #: GPU quick-tier kernels of a target without ``emit_parameter_buffer``: ``(address
    #: space, attribute)`` of the pointer parameters through which they read shape and
    #: strides where the launcher packed them (NVPTX: ``byval``), or None to pass them by
    #: value.  Same bytes and offsets either way; by value, indexing a dimension at run
    #: time needs a private copy, which costs compile time on both GPU backends.
    dims_by_reference: "tuple[int, str] | None" = None

    @property
    def has_waves(self) -> bool:
        """Whether lanes of a wave exchange values (shuffles) and reductions use them."""
        return self.wave_size > 1


@dataclass(frozen=True)
class AMDGPUFacts(TargetFacts):
    """AMDGPU's facts beside the common ones: what device-libs and the code object read."""

    #: ``__oclc_ISA_version``: gfx90a -> 9010, gfx942 -> 9402, gfx1100 -> 11000.
    isa_version: int = 0
    #: Code object version written into every module (``amdhsa_code_object_version``).
    code_object_version: int = 5


@dataclass(frozen=True)
class CompileConfig:
    """How a target compiles: one target's tiers are its facts under several of these.

    Fields a target family does not use keep their defaults (``pipeline`` and
    ``codegen_level`` are the host's, ``assembler`` and ``assembler_opt`` NVPTX's)."""

    #: LLVM optimisation level of the IR pipeline.
    opt_level: int = 0
    #: Host: the IR pipeline's name (``host.PIPELINES``; "inline" for the quick tier).
    pipeline: str = ""
    #: Host: the codegen level of the target machine.
    codegen_level: int = 0
    #: One flat loop instead of row loops with a vector path (the quick tiers' kernels).
    simple_loops: bool = False
    #: Run LLVM's IR verifier before optimising (else only with ``ROCARRAY_VERIFY_IR=1``).
    verify_ir: bool = True
    #: NVPTX: the assembler asked for ("nvjitlink", "ptxas", "ptx"), or None: the first
    #: that works.
    assembler: "str | None" = None
    #: NVPTX: the optimisation level handed to the PTX assembler or the driver's JIT.
    assembler_opt: int = 3
    #: Whether first calls run a quick tier (``ROCARRAY_TIERED`` when the target was made).
    tiered: bool = True


class Fact:
    """A target attribute that reads a field of the target's ``facts`` (``name`` names
    another field than the attribute's own); assigning it replaces the facts."""

    def __init__(self, name: "str | None" = None):
        self.field = name

    def __set_name__(self, owner, name: str) -> None:
        if self.field is None:
            self.field = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(obj.facts, self.field)

    def __set__(self, obj, value) -> None:
        obj.facts = replace(obj.facts, **{self.field: value})


class Setting(Fact):
    """A target attribute that reads a field of the target's ``config``; assigning it
    replaces the configuration."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(obj.config, self.field)

    def __set__(self, obj, value) -> None:
        obj.config = replace(obj.config, **{self.field: value})
