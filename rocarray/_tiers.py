"""The tiers of a kernel's code, in one place: a loaded kernel, the code it runs, and the
policy that moves it from tier to tier.

A new signature starts on cheap code and moves up once it pays: the *interpreted* tier
(its bytecode on the device's interpreter kernel, ``_interpreter``), the *quick* tier
(compiled with simple loops and little optimisation, 32-bit indexing) and the *full*
tier (the whole pipeline).  Each tier's code is a fixed object here (``InterpretedCode``,
``QuickCode``, ``FullCode``) that launches itself and knows its own limits: the work it
may take, whether launch plans made for it must be re-made for the next tier, whether
its calls are counted towards a tier-up.

A ``LoadedKernel`` is the handle the launcher, the reductions and the ops hold: its
fields are fixed but ``code``, which a tier-up replaces whole (``upgrade``,
``leave_interpreter``), so a launch that reads ``code`` once runs one tier's code
consistently.  ``TierPolicy`` holds the thresholds (``POLICY``).
"""

from __future__ import annotations

import threading
import time

from . import _interpreter
from ._images import _load_image
from ._params import pack_format, stride_positions
from .compiler import cache as _cache
from .compiler.cache import default_cache as _default_cache
from .compiler.quick_text import HOST_ROW_DRIVER, host_row_driver, host_row_words
from .compiler.skeletons import SIMPLE_LOOP_MAX_ELEMENTS, VECTOR_UNROLL, simple_loop_offsets_fit, vector_lanes


class TierPolicy:
    """When a kernel moves to its next tier."""

    __slots__ = ("tier_up_calls", "tier_up_elements", "heavy_tier_up_calls", "host_interpreted_most",
                 "host_interpreted_work", "host_compile_work")

    def __init__(self, tier_up_calls: int = 16, tier_up_elements: int = 1 << 15, heavy_tier_up_calls: int = 4,
                 host_interpreted_most: int = 1 << 15, host_interpreted_work: int = 1 << 13,
                 host_compile_work: int = 1 << 23):
        #: quick-tier code is recompiled with the full pipeline once it has run this many
        #: times, or once over this many elements (it then pays for itself)
        self.tier_up_calls = tier_up_calls
        self.tier_up_elements = tier_up_elements
        #: the same count for rocarray's own sorts, gathers and searches (heavy specs),
        #: whose launches are a few items of much work each: an elements count misses
        #: their work, and after a few calls they have proved hot (not at the first or
        #: second, whose background compiles would hold up a program's next first calls)
        self.heavy_tier_up_calls = heavy_tier_up_calls
        #: the host interprets an elementwise call of at most this many elements; a larger
        #: one costs more interpreted than the quick tier's compile, so that code loads at
        #: once (a GPU interprets any size: a thread per element)
        self.host_interpreted_most = host_interpreted_most
        #: the same for a reduction's work (outputs times reduced elements)
        self.host_interpreted_work = host_interpreted_work
        #: once the host's quick-tier code has run this many elements more (tens of ms)
        #: after its full tier was asked for and that tier has not come, the next call
        #: compiles it itself, on the caller's thread: the compile process runs at the
        #: lowest priority, and while a program keeps the cores busy with large
        #: quick-tier calls it gets almost none (docs/architecture.md, "the compile
        #: process"; not heavy specs: their compiles are long and their calls few)
        self.host_compile_work = host_compile_work


POLICY = TierPolicy()

#: Threads of a GPU block for elementwise launches (and the resident grids of every entry).
BLOCK = 256

#: A GPU grid-stride elementwise launch gets at least the blocks the device holds at once
#: and, for more elements, enough blocks that each thread makes about this many trips of
#: its vector loop: few trips per thread measured closest to the copy bandwidth on large
#: arrays, one round of resident blocks as fast on smaller ones (benchmarks/results/history/benchmarks.md).
GPU_GRID_TRIPS = 3


def stride_grid(max_grid: int, n: int, round_elements: int) -> int:
    """Blocks of a grid-stride launch over ``n`` elements (more than one block each would
    cover): about ``GPU_GRID_TRIPS`` trips a thread, rounded up to whole rounds of the
    ``max_grid`` blocks resident at once -- a last round partly filled leaves compute units
    idle while it runs (a tenth of a compute-bound kernel's time)."""
    return max_grid * -(-n // (max_grid * round_elements))


class LoadedKernel:
    """A kernel ready to launch on one device: fixed facts, and ``code``, the tier's code
    it runs now (the only field that changes)."""

    __slots__ = ("spec", "device", "runtime", "index", "packer", "is_gpu", "block", "target", "round_elements",
                 "code")

    def __init__(self, spec, device, runtime, target, code):
        self.spec = spec
        self.device = device
        self.runtime = runtime
        self.index = device.index
        self.is_gpu = target.is_gpu
        self.block = BLOCK
        self.packer = spec.packer or pack_format(spec.operands)
        self.target = target
        #: elements per ``GPU_GRID_TRIPS`` trips of every thread of a block (GPU elementwise)
        self.round_elements = (BLOCK * vector_lanes(spec.operands) * VECTOR_UNROLL * GPU_GRID_TRIPS
                               if self.is_gpu else 0)
        self.code = code

    def launch(self, n: int, values, work: int = 0) -> None:
        """Run over ``n`` elements; ``values`` are the packed fields after ``n``; ``work``:
        elements of work behind them where an item does many (0: ``n``), which decides on
        the host whether it interprets them and splits them over threads."""
        self.code.launch(self, n, values, work)

    def fit(self, work: int) -> None:
        """Make sure the code in place takes a reduction or scan of ``work`` (outputs times
        reduced elements): the next tier's now where this one's cannot."""
        self.code.fit(self, work)


class Code:
    """What every tier's code answers; these defaults are the full tier's: no limits,
    nothing counted, plans made for it stay."""

    __slots__ = ()
    tier = "full"
    #: quick-tier loops (reductions then plan their per-thread mode only, and re-plan
    #: once this code is replaced by code without them)
    simple_loops = False
    #: a GPU elementwise kernel of one thread per element (no grid-stride loop)
    per_element = False
    #: the warm path must ask ``admit`` first (limits, or calls counted)
    first_calls = False
    #: calls counted so far towards the tier-up; -1 where none are (any more)
    calls = -1

    def fit(self, kernel, work: int) -> None:
        pass

    def count(self, kernel, n: int) -> bool:
        return False


class CompiledCode(Code):
    """Code compiled and loaded on the device: its entry points, in ``spec.entries`` order."""

    __slots__ = ("functions", "function", "max_grid")

    def __init__(self, functions: tuple, max_grid: int):
        self.functions = functions
        self.function = functions[0]
        #: GPU grid-stride kernels: the blocks the device holds at once (one round, as this
        #: code's registers allow), more only for launches of many elements
        self.max_grid = max_grid

    def launch(self, kernel, n: int, values, work: int = 0) -> None:
        if kernel.is_gpu:
            block = kernel.block
            grid = (n + block - 1) // block
            if grid > self.max_grid and not self.per_element:
                grid = stride_grid(self.max_grid, n, kernel.round_elements)
            kernel.runtime.launch_packed(self.function, grid, block, kernel.packer, n, values)
        else:
            kernel.runtime.launch_packed(self.function, n, 1, kernel.packer, n, values, work=work or n)

    def launch_entry(self, kernel, entry: int, packer, items: int, values, grid: int, block: int,
                     work: int) -> None:
        """Launch entry ``entry`` (a reduction's or scan's) over ``items``; ``grid`` and
        ``block`` on a GPU, ``work`` (elements) on the host."""
        if kernel.is_gpu:
            kernel.runtime.launch_packed(self.functions[entry], grid, block, packer, items, values)
        else:
            kernel.runtime.launch_packed(self.functions[entry], items, 1, packer, items, values, work=work)


class FullCode(CompiledCode):
    """The full tier's code: any size, any layout, the end of the road."""

    __slots__ = ()


class QuickCode(CompiledCode):
    """The quick tier's code: simple loops over 32-bit indices (at most
    ``SIMPLE_LOOP_MAX_ELEMENTS``), its calls counted towards the full tier's."""

    __slots__ = ("per_element", "flat_entry", "strides_at", "calls", "rows", "since")
    tier = "quick"
    simple_loops = True
    first_calls = True

    def __init__(self, functions: tuple, max_grid: int, per_element: bool = False, flat_entry=None,
                 strides_at: tuple = ()):
        super().__init__(functions, max_grid)
        self.per_element = per_element
        #: the host's elementwise entry, which runs 1-D spaces only (an N-d launch goes
        #: through the row driver: ``row_function``); None otherwise
        self.flat_entry = flat_entry
        #: where the array operands' strides lie in the packed values (a per-element
        #: kernel's 32-bit offsets are checked against them: ``simple_loop_offsets_fit``)
        self.strides_at = strides_at
        self.calls = 0
        self.rows = None
        #: elements launched since the full tier was asked for (``POLICY.host_compile_work``)
        self.since = 0

    def count(self, kernel, n: int) -> bool:
        """Count a launch over ``n`` elements: once the kernel is hot, the full tier is
        compiled in the background (once: then ``calls`` is -1).  True where the launch
        is to run the full tier's code instead, compiled now in this thread: on the host,
        once this code has run ``POLICY.host_compile_work`` elements since that compile was
        asked for (once: then ``calls`` is -2)."""
        calls = self.calls
        if calls >= 0:
            self.calls = calls = calls + 1
            if (calls >= (POLICY.heavy_tier_up_calls if kernel.spec.heavy else POLICY.tier_up_calls)
                    or n >= POLICY.tier_up_elements):
                self.calls = -1
                _cache.compile_in_background(lambda: upgrade(kernel))
            return False
        if calls == -1 and not kernel.is_gpu and not kernel.spec.heavy:
            if self.since < POLICY.host_compile_work:
                self.since += n
                return False
            self.calls = -2
            try:
                upgrade(kernel, here=True)
            except Exception:  # (the background's tier-up, and its warning, go on)
                return False
            return True
        return False

    def admit(self, kernel, n: int, most: int):
        """The code a direct launch of ``n`` contiguous elements runs (``most``: the
        elements this code's offsets reach for that launch's dtypes)."""
        if self.per_element and n > most:
            upgrade(kernel)  # offsets past the quick kernel's 32 bits: the full tier now
            return kernel.code
        return kernel.code if self.count(kernel, n) else self

    def launch(self, kernel, n: int, values, work: int = 0) -> None:
        if self.per_element and (n > SIMPLE_LOOP_MAX_ELEMENTS
                                 or not simple_loop_offsets_fit(values, self.strides_at)):
            # more elements, or wider offsets, than this code takes: the full tier now,
            # not in the background
            upgrade(kernel)
            kernel.code.launch(kernel, n, values, work)
            return
        if self.count(kernel, work or n):
            kernel.code.launch(kernel, n, values, work)
            return
        if self.flat_entry is not None and values[0] != 1:  # N-d space, 1-D entry
            kernel.runtime.launch_packed(self.row_function(kernel), n, 1, kernel.packer, n, values)
        else:
            CompiledCode.launch(self, kernel, n, values, work)

    def fit(self, kernel, work: int) -> None:
        if work > SIMPLE_LOOP_MAX_ELEMENTS:  # every item count, chunk and index is at most ``work``
            upgrade(kernel)

    def row_function(self, kernel):
        """``flat_entry`` run row by row over an N-d space (the row driver, compiled at the
        first N-d launch of the process)."""
        rows = self.rows
        if rows is None:
            nbytes, words = host_row_words(kernel.spec.operands)
            rows = self.rows = kernel.runtime.row_function(_host_row_driver(kernel), self.flat_entry, nbytes, words)
        return rows


class InterpretedCode(Code):
    """The body's bytecode on the device's interpreter kernel (``_interpreter``), run while
    the compiled code is made in the background; no entry points of its own."""

    __slots__ = ("interp",)
    tier = "interpreted"
    simple_loops = True  # (plans for the quick tier's code, which the host may load first)
    first_calls = True
    calls = 0

    def __init__(self, interp):
        #: ``_interpreter.Interpreted`` (elementwise) or ``InterpretedItems`` (reductions)
        self.interp = interp

    def admit(self, kernel, n: int, most: int):
        return None  # (through the packed launch: the interpreter takes other parameters)

    def launch(self, kernel, n: int, values, work: int = 0) -> None:
        if kernel.is_gpu or (work or n) <= POLICY.host_interpreted_most:
            self.interp.launch(kernel.runtime, n, values)
        else:
            leave_interpreter(kernel).launch(kernel, n, values, work)

    def launch_entry(self, kernel, entry: int, packer, items: int, values, grid: int, block: int,
                     work: int) -> None:
        self.interp.launch(kernel.runtime, entry, packer, items, values, grid, work)

    def fit(self, kernel, work: int) -> None:
        if work > SIMPLE_LOOP_MAX_ELEMENTS:
            upgrade(kernel)
        elif not kernel.is_gpu and work > POLICY.host_interpreted_work:
            leave_interpreter(kernel)  # (the host's compiled quick tier costs less here)


def compiled_code(spec, runtime, target, module, quick: bool) -> CompiledCode:
    """The code of ``module`` (loaded with ``runtime``): the quick tier's if ``quick``."""
    get = runtime.get_function
    fns = tuple([get(module, e) for e in spec.entries])
    max_grid = runtime.resident_grid(fns[0], BLOCK) if target.is_gpu else 0
    if not quick:
        return FullCode(fns, max_grid)
    elementwise = spec.build_kernel is None
    per_element = elementwise and target.is_gpu
    return QuickCode(fns, max_grid, per_element, fns[0] if elementwise and not target.is_gpu else None,
                     stride_positions(spec.operands) if per_element else ())


# Swaps of ``code`` that must not go backwards (the interpreter's code leaving for the
# quick tier's while the full tier's arrives) are made under it.
_swap_lock = threading.Lock()


def upgrade(kernel, here: bool = False) -> None:
    """Compile (or find in the cache), load and swap in the full tier's code (counted as
    "compiled" when it is the signature's first compiled code, after the interpreter,
    else as "upgraded").  ``here``: compiled in this thread even where a background
    tier-up is making it (``get_or_compile``'s ``here``)."""
    code = kernel.code
    if code.__class__ is FullCode:
        return  # (already done: a call that could not wait, or a second request)
    counter = "compiled" if code.__class__ is InterpretedCode else "upgraded"
    spec, target = kernel.spec, kernel.target
    data = _cache.default_cache().get_or_compile(spec.key, lambda: spec.build_module(target), target,
                                                 counter=counter, recipe=spec.recipe, here=here)
    full = compiled_code(spec, kernel.runtime, target, _load_image(kernel.runtime, kernel.index, data, target),
                         False)
    with _swap_lock:
        kernel.code = full


def leave_interpreter(kernel) -> Code:
    """The quick tier's code now, in this thread, in place of the interpreter (on the host,
    for a call too large to interpret; the full tier follows in the background); the
    code then in place."""
    quick = kernel.target.quick_tier or kernel.target
    spec = kernel.spec
    data = _cache.default_cache().get_or_compile(spec.key, lambda: spec.build_module(quick), quick)
    code = compiled_code(spec, kernel.runtime, kernel.target, _load_image(kernel.runtime, kernel.index, data, quick),
                         quick.simple_loops)
    with _swap_lock:
        if kernel.code.__class__ is InterpretedCode:
            kernel.code = code
        return kernel.code  # (the full tier's, where it came meanwhile)


def start(spec, device, runtime, target, quick) -> LoadedKernel:
    """``spec`` loaded on ``device`` on its first tier: the code the cache holds (the
    full tier's if it was compiled, else the quick tier's: one disk read), else -- where
    ``target`` has a quick tier ``quick`` -- the interpreter while the compiled code is
    made in the background, or the quick tier's code compiled now."""
    cache = _default_cache()
    if quick is None:
        # (the full tier at once -- a hand-built module, which a call waits for: compiled
        # on the background worker, it is not sent to a compile process still starting)
        image = cache.get_or_compile(spec.key, lambda: spec.build_module(target), target, recipe=spec.recipe,
                                     wait_for_child=False)
        tier = target
    else:
        found = cache.lookup(spec.key, target, quick)
        if found is None:
            if spec.interpret and (spec.build_kernel is None or spec.build_items is not None) and (
                    target.is_gpu or _interpreter.ON_HOST):
                k = _interpreted(spec, device, runtime, target, quick)
                if k is not None:
                    return k
            # (on the background worker, a kernel made ready ahead of its first call: the
            # quick tier's small compile is not sent to a compile process still starting)
            image = cache.get_or_compile(spec.key, lambda: spec.build_module(quick), quick, wait_for_child=False)
            tier = quick
        else:
            image, tier = found
    module = _load_image(runtime, device.index, image, tier)
    return LoadedKernel(spec, device, runtime, target, compiled_code(spec, runtime, target, module, tier is not target))


def _interpreted(spec, device, runtime, target, quick) -> "LoadedKernel | None":
    """``spec`` run by the device's interpreter until its compiled code is ready (made on
    the background worker now), or None: there is no interpreter (yet), or it cannot run
    this body."""
    interp = _interpreter.for_device(device, runtime, target)
    if interp is None:
        return None
    code = interp.prepare(spec, quick)
    if code is None:
        return None
    k = LoadedKernel(spec, device, runtime, target, InterpretedCode(code))
    # the worker starts after a quiet moment, as after a compile here: not while this call
    # still packs and launches (the lowering it starts with would take the GIL from it)
    _cache.last_foreground_compile[0] = time.perf_counter()
    _cache.compile_in_background(lambda: upgrade(k))
    return k


#: the host quick tier's row driver (a ``HostFunction``), once loaded in this process
_row_driver: list = []


def _host_row_driver(kernel: LoadedKernel):
    """The row driver (``quick_text.host_row_driver``) for the host quick tier,
    compiled (or read from the disk cache) and loaded once per process."""
    if not _row_driver:
        quick = kernel.target.quick_tier or kernel.target
        image = _default_cache().get_or_compile(("host-row-driver",), lambda: host_row_driver(quick), quick)
        fn = kernel.runtime.get_function(_load_image(kernel.runtime, kernel.index, image, quick), HOST_ROW_DRIVER)
        with _swap_lock:
            if not _row_driver:
                _row_driver.append(fn)
    return _row_driver[0]
