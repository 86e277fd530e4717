"""The generic launcher: load a kernel for a device, pack its parameters, launch.

A ``KernelSpec`` (device independent) names what to compile; ``load`` makes it a
``LoadedKernel`` through the compile cache and the runtime's loader, starting a new
signature on the interpreter or the quick tier; ``ContiguousRunner`` is the warm path.
"""

from __future__ import annotations

import struct
import threading
import time

from llvmlite import ir

from . import _interpreter
from ._array_object import Array, _c_strides
from ._buffer import Buffer
from ._images import _load_image
from ._params import SCALAR_CONVERTERS, _scalar_code, contiguous_template, pack_format
from ._params import stride_positions  # noqa: F401 - the tests' name for it
from .compiler import cache as _cache
from .compiler.cache import default_cache as _default_cache, key_digest
from .compiler.quick_text import (HOST_ROW_DRIVER, gpu_simple_kernel_text, host_row_driver_text, host_row_words,
                                  host_simple_kernel_module)
from .compiler.skeletons import (SIMPLE_LOOP_MAX_ELEMENTS, SIMPLE_LOOP_MAX_OFFSET, VECTOR_UNROLL, build_elementwise,
                                 simple_loop_offsets_fit, vector_lanes)
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
    (docs/benchmarks.md).
    """

    __slots__ = ("kernel", "template", "in_positions", "out_position", "dtype", "itemsize",
                 "device", "runtime", "alloc", "index", "pool", "direct_below", "areas", "in_words",
                 "out_word", "pair", "strides1", "launch_new", "scalars", "name", "quick_most")

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
            kernel = self.kernel
            # read before ``function`` (as ``LoadedKernel.launch`` does): False only once the
            # grid-stride code is in place
            per_element = kernel.thread_per_element
            if per_element and n > self.quick_most:
                # offsets past the quick kernel's 32 bits: the full tier now
                kernel.upgrade_now()
                per_element = False
            elif kernel.calls >= 0:  # quick-tier code: count the call (tier-up)
                if kernel.interp is not None:  # interpreted: through ``launch``
                    return self.packed(arrays, shape, n)
                kernel.count_call(n)
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
                    kernel.function.call_small(area[1], 0, n)
                except BaseException:
                    pool.free(ptr)
                    raise
            else:
                block = kernel.block
                grid = (n + block - 1) // block
                if grid > kernel.max_grid and not per_element:  # (as in ``LoadedKernel.launch``)
                    grid = max(kernel.max_grid, -(-n // kernel.round_elements))
                # the output from the pool of the thread's stream, its pointer written into
                # the area, the launch: one runtime call (it frees the block if the launch fails)
                ptr = launch_new(kernel.function, grid, block, area, self.out_word, nbytes)
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
                 "heavy", "build_items")

    def __init__(self, key: tuple, name: str, operands, build_body, build_kernel=None, packer=None,
                 extra_entries=(), heavy=False, build_items=None):
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
        build_elementwise(target, self.entry, self.operands, body, module)
        return module


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


#: A quick-tier kernel is recompiled with the full pipeline once it has run this many
#: times, or once over this many elements (it then pays for itself).
TIER_UP_CALLS = 16
TIER_UP_ELEMENTS = 1 << 15

#: A GPU grid-stride elementwise launch gets at least the blocks the device holds at once
#: and, for more elements, enough blocks that each thread makes about this many trips of
#: its vector loop: few trips per thread measured closest to the copy bandwidth on large
#: arrays, one round of resident blocks as fast on smaller ones (docs/benchmarks.md).
GPU_GRID_TRIPS = 3

#: The host interprets a first call of at most this many elements; a larger one costs more
#: interpreted than the quick tier's compile, so it loads that code at once.  A GPU
#: interprets any size (a thread per element).
HOST_INTERPRETED_MOST = TIER_UP_ELEMENTS


class LoadedKernel:
    """A kernel ready to launch on one device."""

    __slots__ = ("spec", "device", "runtime", "index", "function", "functions", "packer", "is_gpu",
                 "block", "max_grid", "calls", "target", "simple", "thread_per_element",
                 "round_elements", "flat_entry", "_rows", "strides_at", "interp")

    def __init__(self, spec: KernelSpec, device, runtime, module, target, quick: bool, interp=None):
        self.spec = spec
        #: while the compiled code is being made: the body's bytecode on the device's
        #: interpreter (``_interpreter.Interpreted``), which launches run instead; None after
        self.interp = interp
        self.device = device
        self.runtime = runtime
        self.index = device.index
        self.is_gpu = target.is_gpu
        self.block = 256
        if module is not None:
            self._set_module(module)
        else:  # interpreted until ``_upgrade`` sets the compiled code: no entry of its own
            # (the interpreter's takes other parameters; launches go through ``interp``)
            self.functions = ()
            self.function = None
            self.max_grid = 0
        #: True while the loaded code is the quick tier's (simple loops: reductions then
        #: use only their per-thread strategy)
        self.simple = quick
        self.packer = spec.packer or pack_format(spec.operands)
        #: launches so far while running quick-tier code; -1 once on the final tier
        self.calls = 0 if quick else -1
        self.target = target
        #: True while the loaded code is a GPU quick-tier elementwise kernel: one thread
        #: per element (no grid-stride loop), at most ``SIMPLE_LOOP_MAX_ELEMENTS``
        self.thread_per_element = quick and self.is_gpu and spec.build_kernel is None and interp is None
        #: elements per ``GPU_GRID_TRIPS`` trips of every thread of a block (GPU elementwise)
        self.round_elements = (self.block * vector_lanes(spec.operands) * VECTOR_UNROLL * GPU_GRID_TRIPS
                               if self.is_gpu else 0)
        #: the host quick tier's elementwise entry, which runs 1-D spaces only (an N-d
        #: launch goes through the row driver: ``_row_function``); None otherwise
        self.flat_entry = (self.function if quick and not self.is_gpu and spec.build_kernel is None
                           and interp is None else None)
        self._rows = None
        #: where the array operands' strides lie in the packed values (the quick kernel's
        #: 32-bit offsets are checked against them: ``simple_loop_offsets_fit``)
        self.strides_at = stride_positions(spec.operands) if self.thread_per_element else ()

    def _set_module(self, module) -> None:
        get = self.runtime.get_function
        fns = tuple([get(module, e) for e in self.spec.entries])
        # grid-stride kernels: the blocks the device holds at once (one round, as this
        # code's registers allow), more only for launches of many elements (``launch``)
        if self.is_gpu:
            self.max_grid = self.runtime.resident_grid(fns[0], self.block)
        else:
            self.max_grid = 0
        self.functions = fns
        self.function = fns[0]

    def count_call(self, n: int) -> None:
        """Count a launch over ``n`` elements: once the kernel is hot (``TIER_UP_CALLS``
        calls, or one over ``TIER_UP_ELEMENTS``), recompile it with the full tier."""
        if self.calls >= 0:
            self.calls += 1
            if self.calls >= TIER_UP_CALLS or n >= TIER_UP_ELEMENTS:
                self._tier_up()

    def _tier_up(self) -> None:
        """Recompile with the full pipeline in the background, then swap the function."""
        self.calls = -1
        _cache.compile_in_background(self._upgrade)

    def upgrade_now(self) -> None:
        """Compile (or find in the cache) and swap in the full tier's code now, in this
        thread: for a launch larger than the quick tier's code takes."""
        self.calls = -1
        self._upgrade()

    def _upgrade(self) -> None:
        """Compile (or find in the cache), load and swap in the full tier's code (counted
        as "compiled" when it is the signature's first compiled code, after the
        interpreter, else as "upgraded")."""
        if not self.simple:
            return  # (already done: a call that could not wait, or a second request)
        counter = "compiled" if self.interp is not None else "upgraded"
        data = _cache.default_cache().get_or_compile(self.spec.key, lambda: self.spec.build_module(self.target),
                                              self.target, counter=counter)
        module = _load_image(self.runtime, self.index, data, self.target)
        with _load_lock:
            self._set_module(module)
            # after the functions: whoever sees False (None) sees the new code
            self.thread_per_element = False
            self.flat_entry = None
            self.simple = False
            self.interp = None
            self.calls = -1

    def _leave_interpreter(self) -> None:
        """The quick tier's code now, in this thread, in place of the interpreter (on the
        host, for a call too large to interpret; the full tier follows in the background)."""
        quick = self.target.quick_tier or self.target
        data = _cache.default_cache().get_or_compile(self.spec.key, lambda: self.spec.build_module(quick), quick)
        module = _load_image(self.runtime, self.index, data, quick)
        with _load_lock:
            if self.interp is None:
                return  # (the compiled code came meanwhile)
            self._set_module(module)
            self.flat_entry = self.function if quick.simple_loops else None
            self.calls = 0
            self.interp = None

    def launch(self, n: int, values) -> None:
        """Run over ``n`` elements; ``values`` are the packed fields after ``n``."""
        # read before ``function``: it turns False only once the full tier's code (a
        # grid-stride loop, which takes any grid) is in place
        per_element = self.thread_per_element
        if per_element and (n > SIMPLE_LOOP_MAX_ELEMENTS
                            or not simple_loop_offsets_fit(values, self.strides_at)):
            # more elements, or wider offsets, than the quick kernel takes: the full tier
            # now, not in the background
            self.upgrade_now()
            per_element = False
        elif self.calls >= 0:  # still quick-tier code (one comparison once upgraded)
            interp = self.interp
            if interp is not None:  # the compiled code is still being made
                if self.is_gpu or n <= HOST_INTERPRETED_MOST:
                    interp.launch(self.runtime, n, values)
                    return
                self._leave_interpreter()
            self.count_call(n)
        if self.is_gpu:
            grid = (n + self.block - 1) // self.block
            if grid > self.max_grid and not per_element:
                # a grid-stride loop: one round of resident blocks, more for many elements
                # (``GPU_GRID_TRIPS``; ``ContiguousRunner`` computes the same inline)
                grid = max(self.max_grid, -(-n // self.round_elements))
            self.runtime.launch_packed(self.function, grid, self.block, self.packer, n, values)
        else:
            # read before ``function``: None only once the full tier's code (any ndim) is in place
            flat = self.flat_entry
            if flat is not None and values[0] != 1:  # N-d space, 1-D quick-tier entry
                self.runtime.launch_packed(self._row_function(flat), n, 1, self.packer, n, values)
            else:
                self.runtime.launch_packed(self.function, n, 1, self.packer, n, values)

    def _row_function(self, flat):
        """The quick-tier entry ``flat`` run row by row over an N-d space (the row driver,
        compiled at the first N-d launch of the process)."""
        rows = self._rows
        if rows is None or rows.entry is not flat:
            nbytes, words = host_row_words(self.spec.operands)
            rows = self._rows = self.runtime.row_function(_host_row_driver(self), flat, nbytes, words)
        return rows


_loaded: dict = {}
_load_lock = threading.Lock()


def _interpreted(spec: KernelSpec, device, rt, target, quick) -> "LoadedKernel | None":
    """``spec`` run by the device's interpreter until its compiled code is ready (made on
    the background worker now), or None: there is no interpreter (yet), or it cannot run
    this body."""
    interp = _interpreter.for_device(device, rt, target)
    if interp is None:
        return None
    code = interp.prepare(spec, quick)
    if code is None:
        return None
    k = LoadedKernel(spec, device, rt, None, target, quick=True, interp=code)
    # the worker starts after a quiet moment, as after a compile here: not while this call
    # still packs and launches (the lowering it starts with would take the GIL from it)
    _cache.last_foreground_compile[0] = time.perf_counter()
    _cache.compile_in_background(k._upgrade)
    return k


#: the host quick tier's row driver (a ``HostFunction``), once loaded in this process
_row_driver: list = []


def _host_row_driver(kernel: LoadedKernel):
    """The row driver (``skeletons.host_row_driver_text``) for the host quick tier,
    compiled (or read from the disk cache) and loaded once per process."""
    if not _row_driver:
        quick = kernel.target.quick_tier or kernel.target
        image = _default_cache().get_or_compile(("host-row-driver",), host_row_driver_text, quick)
        fn = kernel.runtime.get_function(_load_image(kernel.runtime, kernel.index, image, quick),
                                         HOST_ROW_DRIVER)
        with _load_lock:
            if not _row_driver:
                _row_driver.append(fn)
    return _row_driver[0]


#: (device, heavy) -> (its runtime, the target ``load`` compiles kernels for there -- the
#: ``heavy_tier`` for heavy ones --, that target's quick tier or None)
_device_targets: dict = {}


def _targets(device, heavy: bool) -> tuple:
    rt = device.runtime
    target = target_for(rt.target_name(device.index))
    if heavy:
        target = target.heavy_tier
    rt.prepare_launches()
    targets = _device_targets[(device, heavy)] = (rt, target, target.quick_tier)
    return targets


def load(spec: KernelSpec, device) -> LoadedKernel:
    """The kernel ``spec`` compiled and loaded for ``device`` (memoized)."""
    key = (spec.key, device)
    k = _loaded.get(key)
    if k is not None:
        return k
    rt, target, quick = _device_targets.get((device, spec.heavy)) or _targets(device, spec.heavy)
    cache = _default_cache()
    if quick is None:
        image = cache.get_or_compile(spec.key, lambda: spec.build_module(target), target)
        tier = target
    else:
        # the full tier's code if it was compiled, else the quick tier's: one disk read
        found = cache.lookup(spec.key, target, quick)
        if found is None:
            # tiered: run quick-tier code now, recompile in the background once hot -- or,
            # on a GPU, the interpreter now and the compiled code as soon as it is made
            if (spec.build_kernel is None or spec.build_items is not None) and (target.is_gpu or _interpreter.ON_HOST):
                k = _interpreted(spec, device, rt, target, quick)
                if k is not None:
                    with _load_lock:
                        return _loaded.setdefault(key, k)
            image = cache.get_or_compile(spec.key, lambda: spec.build_module(quick), quick)
            tier = quick
        else:
            image, tier = found
    module = _load_image(rt, device.index, image, tier)
    k = LoadedKernel(spec, device, rt, module, target, quick=tier is not target)
    with _load_lock:
        return _loaded.setdefault(key, k)

