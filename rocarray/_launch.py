"""The generic launcher: load a kernel for a device, pack its parameters, launch.

A ``KernelSpec`` (device independent) names what to compile; ``load`` makes it a
``LoadedKernel`` through the compile cache and the runtime's loader (on whichever tier
``_tiers`` starts it); ``ContiguousRunner`` is the warm path.
"""

from __future__ import annotations

import functools
import struct
import threading

from llvmlite import ir

from . import _tiers
from ._array_object import Array, _c_strides
from ._buffer import Buffer
from ._params import SCALAR_CONVERTERS, _scalar_code, contiguous_template, pack_format  # noqa: F401
from ._params import stride_positions  # noqa: F401 - the tests' name for it
from ._tiers import BLOCK, LoadedKernel, stride_grid
from .compiler import cache as _cache, compile_process
from .compiler.cache import key_digest
from .compiler.quick_text import gpu_simple_kernel_text, host_simple_kernel_module
from .compiler.skeletons import SIMPLE_LOOP_MAX_ELEMENTS, SIMPLE_LOOP_MAX_OFFSET, build_elementwise
from .targets import target_for
from .targets.host import default_host, load_support_module
from .runtime import native as _native

# The runtime compiles nothing itself: the module of its native built-ins (the C end of every
# launch) is compiled here, beside the rest of the code generator, and lent to it.
_native.provide_loader(lambda name, text: load_support_module(default_host(), name, text))

_new = object.__new__


class ContiguousRunner:
    """The warm path of an elementwise kernel whose operands are arrays, inputs then one
    output, over one C-contiguous shape: allocate the output from the pool, fill the
    pointers into a copy of the launch template, launch.  Built-in ops and user kernels
    share it; callers check the layout first.

    A launch of fewer elements than the runtime's ``direct_launch_below`` skips the
    packing: the parameter buffer is an *area* -- the template packed once, in memory that
    stays put (``runtime.parameter_area``) -- whose size, shape and pointer words are
    overwritten; the host calls the kernel's entry on its address, a GPU runtime launches
    with it (``launch_into_new``, which also allocates the output: the driver copies the
    parameters before the launch returns).
    Areas are taken from and put back on a list (``pop`` / ``append`` are atomic), so
    threads never share one.  A few word stores cost much less than packing every field
    (benchmarks/results/history/benchmarks.md).
    """

    __slots__ = ("kernel", "template", "in_positions", "out_position", "dtype", "itemsize",
                 "device", "runtime", "alloc", "index", "pool", "direct_below", "areas", "in_words",
                 "out_word", "pair", "strides1", "launch_new", "scalars", "name", "quick_most", "round_elements")

    def __init__(self, kernel, operands, dtype, scalar_types=(), name=None):
        """``scalar_types``: the NumPy scalar type each input of kind "scalar" (a Python
        scalar in the call) is converted to, by input position (entries of array inputs
        are ignored); ``name`` goes into the messages of those conversions."""
        self.kernel = kernel
        self.name = name or kernel.spec.name
        template, positions = contiguous_template(operands)
        self.template = template
        self.in_positions = tuple(positions[:-1])
        self.out_position = positions[-1]
        self.dtype = dtype
        self.itemsize = dtype.itemsize
        self.strides1 = (dtype.itemsize,)
        self.device = kernel.device
        self.runtime = runtime = kernel.runtime
        self.alloc = runtime.alloc
        self.index = kernel.index
        self.round_elements = kernel.round_elements
        self.pool = runtime.memory_pool(kernel.index)
        # the packed word of each value (the area's layout): every field a 64-bit word
        self.in_words = tuple([p + 1 for p in positions[:-1]])
        self.out_word = self.out_position + 1
        #: per input: None for an array, else (the converter of its NumPy scalar type, the
        #: ``struct`` that writes it into its word(s)); None when every input is an array
        self.scalars = None
        kinds = [op.kind for op in operands]
        if "scalar" in kinds:
            self.scalars = tuple(
                (SCALAR_CONVERTERS[scalar_types[k]], struct.Struct("<" + _scalar_code(op.dtype)))
                if op.kind == "scalar" else None
                for k, op in enumerate(operands[:-1]))
        #: the words of a binary op's two array inputs (the common case, unrolled), else None
        self.pair = self.in_words if len(self.in_words) == 2 and self.scalars is None else None
        self.areas: list = []
        self.direct_below = getattr(self.runtime, "direct_launch_below", 0)
        if self.direct_below and kernel.packer.size != 8 * (len(template) + 1):
            self.direct_below = 0  # fields narrower than a word: packed launches only
        #: a GPU runtime's allocation and launch from an area (None: the host calls the
        #: entry itself)
        self.launch_new = getattr(self.runtime, "launch_into_new", None) if kernel.is_gpu else None
        #: most elements a GPU quick-tier kernel takes in one contiguous run: its 32-bit
        #: byte offsets reach ``(n - 1) * itemsize`` (``SIMPLE_LOOP_MAX_OFFSET``)
        widest = max([op.dtype.itemsize for op in operands if op.kind == "in" or op.kind == "out"])
        self.quick_most = min(SIMPLE_LOOP_MAX_ELEMENTS, SIMPLE_LOOP_MAX_OFFSET // widest + 1)

    def _area(self):
        """A new parameter area: (its 64-bit words, their address, its bytes)."""
        words, address = self.runtime.parameter_area(self.kernel.packer.pack(0, *self.template))
        return words, address, words.cast("B")

    def _fill_scalars(self, area, arrays) -> None:
        """The pointer words of the array inputs and the values of the scalar ones (each
        scalar starts a word of its own: ``direct_below`` is 0 where it would not)."""
        words, raw = area[0], area[2]
        for w, scalar, a in zip(self.in_words, self.scalars, arrays):
            if scalar is None:
                words[w] = a._buf.ptr + a._offset
            else:
                scalar[1].pack_into(raw, 8 * w, *scalar[0](a, self.name))

    def check_scalars(self, arrays) -> None:
        """Convert the Python scalars without launching (an empty result): an int out of
        range is an OverflowError whatever the size, as in NumPy."""
        if self.scalars is not None:
            for scalar, a in zip(self.scalars, arrays):
                if scalar is not None:
                    scalar[0](a, self.name)

    def __call__(self, arrays, shape: tuple, n: int):
        if n < self.direct_below:
            if not n:
                self.check_scalars(arrays)
                return Array._empty(shape, self.dtype, self.device)
            nbytes = n * self.itemsize
            pool = self.pool
            launch_new = self.launch_new
            # the code read once: a tier-up swaps it whole (``_tiers``)
            code = self.kernel.code
            if code.first_calls:  # (one test once on the full tier)
                code = code.admit(self.kernel, n, self.quick_most)
                if code is None:
                    return self.packed(arrays, shape, n)
            areas = self.areas
            try:
                area = areas.pop()
            except IndexError:
                area = self._area()
            words = area[0]
            words[0] = words[2] = n  # n and shape[0]
            pair = self.pair
            if pair is not None:
                a, b = arrays
                words[pair[0]] = a._buf.ptr + a._offset
                words[pair[1]] = b._buf.ptr + b._offset
            elif self.scalars is None:
                for w, a in zip(self.in_words, arrays):
                    words[w] = a._buf.ptr + a._offset
            else:
                self._fill_scalars(area, arrays)
            if launch_new is None:
                # (the host has no streams: the pool's own malloc)
                words[self.out_word] = ptr = pool.malloc(nbytes)
                try:
                    code.function.call_small(area[1], 0, n)
                except BaseException:
                    pool.free(ptr)
                    raise
            else:
                block = BLOCK
                grid = (n + block - 1) // block
                if grid > code.max_grid and not code.per_element:  # (as in ``CompiledCode.launch``)
                    grid = stride_grid(code.max_grid, n, self.round_elements)
                # the output from the pool of the thread's stream, its pointer written into
                # the area, the launch: one runtime call (it frees the block if the launch fails)
                ptr = launch_new(code.function, grid, block, area, self.out_word, nbytes)
            areas.append(area)
            # Buffer(ptr, nbytes, device, None, False, pool) and Array._on_buffer, written
            # out: two Python calls fewer on the warm path; a slot added to either class
            # must be set here too
            buf = _new(Buffer)
            buf.ptr = ptr
            buf.nbytes = nbytes
            buf.device = self.device
            buf.owner = None
            buf.readonly = False
            buf.pool = pool
            out = _new(Array)
            out._buf = buf
            out._shape = shape
            out._strides = self.strides1 if len(shape) == 1 else _c_strides(shape, self.itemsize)
            out._offset = 0
            out._dtype = self.dtype
            out._size = n
            out._contig = True
            return out
        return self.packed(arrays, shape, n)

    def packed(self, arrays, shape: tuple, n: int):
        """``__call__`` through the packed launch (``LoadedKernel.launch``), with no
        parameter area: for launches too large for the area, and for a plan's first call
        (making an area costs more than a first call should pay)."""
        if not n:
            self.check_scalars(arrays)
            return Array._empty(shape, self.dtype, self.device)
        nbytes = n * self.itemsize
        buf = Buffer(self.alloc(self.index, nbytes), nbytes, self.device, None, False, self.pool)
        values = self.template.copy()
        values[1] = n
        if self.scalars is None:
            for pos, a in zip(self.in_positions, arrays):
                values[pos] = a._buf.ptr + a._offset
        else:
            for pos, scalar, a in zip(self.in_positions, self.scalars, arrays):
                if scalar is None:
                    values[pos] = a._buf.ptr + a._offset
                else:
                    fields = scalar[0](a, self.name)
                    values[pos:pos + len(fields)] = fields
        values[self.out_position] = buf.ptr
        self.kernel.launch(n, values)
        return Array._on_buffer(buf, shape, n, self.dtype)


class KernelSpec:
    """A kernel to compile: its operands and how to build its scalar body.

    ``key`` identifies everything that affects the generated code except the target;
    ``build_body(module, target) -> ir.Function`` adds the scalar body to the module.
    """

    __slots__ = ("key", "name", "operands", "build_body", "entry", "build_kernel", "packer", "entries",
                 "heavy", "build_items", "recipe", "interpret", "reads_out")

    def __init__(self, key: tuple, name: str, operands, build_body, build_kernel=None, packer=None,
                 extra_entries=(), heavy=False, build_items=None, interpret=True):
        self.key = key
        self.name = name
        self.operands = tuple(operands)
        self.build_body = build_body
        #: for kernels other than elementwise (reductions): builds the whole kernel,
        #: ``build_kernel(module, target, entry)``, with its own parameter ``packer``
        self.build_kernel = build_kernel
        self.packer = packer
        # (the digest the disk keys of ``key`` use too: made once)
        self.entry = f"rk_{_symbol(name)}_{key_digest(key)[:12]}"
        #: every entry point the module holds: ``entry`` and ``entry + suffix`` for each of
        #: ``extra_entries`` (loaded together; ``LoadedKernel.functions`` in this order)
        self.entries = (self.entry, *[self.entry + s for s in extra_entries])
        #: the full tier uses ``target.heavy_tier`` (reductions: loops worth optimising)
        self.heavy = heavy
        #: for the interpreter tier of kernels built by ``build_kernel``:
        #: ``build_items(module, target, entry)`` -> per entry (its item function, the
        #: substitutions of its calls, its parameters' packer) (``interp.compile_items``)
        self.build_items = build_items
        #: whether its first calls may run on the interpreter (False: an item loops over
        #: many elements, which the interpreter runs too slowly to stand in for a compile)
        self.interpret = interpret
        #: a picklable call that makes this spec again in another process (the compile
        #: process builds the background worker's modules from it), or None
        self.recipe = None
        #: an elementwise kernel's pairs (input, output) of operand positions whose input
        #: is always passed as that output, which its host loop reads through the
        #: output's address (``build_elementwise``; ``reading_out``)
        self.reads_out = ()

    def reading_out(self, pairs: tuple) -> "KernelSpec":
        """This elementwise kernel for calls in place: beside its own ``reads_out``, the
        pairs (input, output) of operand positions ``pairs`` are passed with the output's
        address and strides, and its host loop reads those inputs through the output's --
        vectorised, where two equal pointers run LLVM's scalar loop (``in_place``)."""
        spec = KernelSpec(self.key + (f"reads out {pairs}",), self.name, self.operands, self.build_body,
                          heavy=self.heavy, interpret=self.interpret)
        spec.reads_out = self.reads_out + pairs
        if self.recipe is not None:
            spec.recipe = functools.partial(_reading_out, self.recipe, pairs)
        return spec

    def build_module(self, target) -> "ir.Module | str":
        """The kernel for ``target``: an ``ir.Module``, or IR text for a quick tier (its
        entry is a text template per operand layout; only the body is built)."""
        module = ir.Module(name=self.entry)
        module.triple = target.triple
        module.data_layout = target.data_layout
        if self.build_kernel is not None:  # (it may return the module's text instead)
            text = self.build_kernel(module, target, self.entry)
            return module if text is None else text
        body = self.build_body(module, target)
        if target.simple_loops:  # quick tiers: the entry is a text template per layout
            if target.is_gpu:
                return gpu_simple_kernel_text(target, self.entry, self.operands, module, body.name)
            return host_simple_kernel_module(self.entry, self.operands, module, body)
        build_elementwise(target, self.entry, self.operands, body, module, self.reads_out)
        return module


def _reading_out(recipe, pairs: tuple) -> KernelSpec:
    """``KernelSpec.reading_out``'s spec made again from its kernel's ``recipe``."""
    return recipe().reading_out(pairs)


#: (kernel, pairs) -> the kernel ``in_place`` loaded for them
_in_place: dict = {}


def in_place(kernel: LoadedKernel, pairs: tuple) -> LoadedKernel:
    """The host elementwise ``kernel`` for calls whose inputs are outputs -- ``pairs``
    (input, output) of operand positions, each input passed with its output's address and
    strides (``KernelSpec.reading_out``): a kernel of its own, loaded at the first such
    call, so that the calls not in place keep theirs and compile nothing more."""
    k = _in_place.get((kernel, pairs))
    if k is None:
        k = _in_place.setdefault((kernel, pairs), load(kernel.spec.reading_out(pairs), kernel.device))
    return k


def _symbol(name: str) -> str:
    sym = _symbols.get(name)
    if sym is None:
        if name.isascii() and name.isidentifier():  # (every op of the catalogue)
            sym = name[:40]
        else:
            sym = "".join(c if c.isalnum() or c == "_" else "_" for c in name)[:40]
        _symbols[name] = sym
    return sym


_symbols: dict = {}

_loaded: dict = {}
_load_lock = threading.Lock()


#: (device, heavy) -> (its runtime, the target ``load`` compiles kernels for there -- the
#: ``heavy_tier`` for heavy ones --, that target's quick tier or None)
_device_targets: dict = {}


def _targets(device, heavy: bool) -> tuple:
    rt = device.runtime
    target = target_for(rt.target_name(device.index))
    if heavy:
        target = target.heavy_tier
    rt.prepare_launches()
    if target.is_gpu:
        # the compile process starts now, so that it is ready when the first hand-built
        # module (a sort's, a compaction's) compiles in the background
        compile_process.start()
    targets = _device_targets[(device, heavy)] = (rt, target, target.quick_tier)
    return targets


#: hand-built modules at their full tier: (key, device) -> LoadedKernel
_full_modules: dict = {}


def load_full_module(key: tuple, device, make) -> LoadedKernel:
    """A hand-built GPU module (the radix sort, compaction, gathers) loaded on ``device`` at
    its full tier at once: its loops are the whole op, never run unoptimised, and a compile
    at the first call keeps a later, larger call from compiling (no quick tier is compiled
    first: for these modules it took about as long as the full one).  ``make()`` gives
    ``(name, build_kernel, packer, entries)`` -- ``build_kernel(module, target, entry)`` adds
    ``entry`` and ``entry + s`` for ``s`` in ``entries`` -- and is called on a miss only, so
    a warm call is one lookup and builds nothing."""
    k = _full_modules.get((key, device))
    if k is None:
        k = _full_modules.setdefault((key, device), load(_full_spec(key, make), device, full=True))
    return k


def loaded_full_module(key: tuple, device) -> "LoadedKernel | None":
    """``load_full_module``'s module ``key`` if it is loaded on ``device`` (never starts
    its compile)."""
    return _full_modules.get((key, device))


def module_builder(fn, *args):
    """``build_kernel(module, target, entry)`` for ``load_full_module``'s ``make()`` that
    calls ``fn(module, target, entry, *args)``: picklable where ``fn`` is a module's
    function and ``args`` pickle, so that the compile process can build the module."""
    return functools.partial(_call_builder, fn, args)


def _call_builder(fn, args: tuple, module, target, entry: str) -> None:
    fn(module, target, entry, *args)


def _full_spec(key: tuple, make) -> KernelSpec:
    """The spec of ``load_full_module``'s module ``key``; its recipe (``KernelSpec.recipe``)
    is this call, which pickles where ``make`` does (a ``functools.partial`` of a module's
    function, as the host's sorting network's; not a lambda)."""
    name, build_kernel, packer, entries = make()
    spec = KernelSpec(key, name, (), None, build_kernel=build_kernel, packer=packer, extra_entries=entries,
                      heavy=True)
    spec.recipe = functools.partial(_full_spec, key, make)
    return spec


#: (key, device) of the hand-built modules ``full_module_when_ready`` has started compiling
_full_modules_asked: set = set()


def full_module_when_ready(key: tuple, device, make) -> "LoadedKernel | None":
    """The hand-built module ``key`` (as ``load_full_module``) if it is loaded on ``device``;
    else None, its compile and load started on the background worker at the first ask --
    for a module that a caller can do without (it serves the call another way), so that a
    first call does not wait for its compile, or needs only after other work (its compile
    then runs beside that work's; ``load_full_module`` waits for it)."""
    k = loaded_full_module(key, device)
    if k is None and (key, device) not in _full_modules_asked:
        _full_modules_asked.add((key, device))
        _cache.compile_in_background(lambda: load_full_module(key, device, make))
    return k


def load(spec: KernelSpec, device, full: bool = False) -> LoadedKernel:
    """The kernel ``spec`` compiled and loaded for ``device`` (memoized), on the first
    tier its code is found or made for (``_tiers.start``); ``full``: the full tier's code
    at once, none of the tiers before it."""
    key = (spec.key, device)
    k = _loaded.get(key)
    if k is not None:
        return k
    rt, target, quick = _device_targets.get((device, spec.heavy)) or _targets(device, spec.heavy)
    k = _tiers.start(spec, device, rt, target, None if full else quick)
    with _load_lock:
        return _loaded.setdefault(key, k)
