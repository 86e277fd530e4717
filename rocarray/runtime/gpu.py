"""The GPU runtime shared by CUDA and HIP: devices, contexts, modules, launches, copies.

Every line of GPU runtime logic lives here and in the modules it imports; the two vendors
differ only in a *hook table* (``cuda.py``, ``hip.py``), and :class:`GPURuntime` calls
nothing but ``self.api``.  The hook table's contract, the launch paths, ordering and copies
are described in docs/architecture.md ("Runtimes").
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
import time

from rocarray.runtime import native
from rocarray.runtime.base import Runtime, RuntimeError_
from rocarray.runtime.hooks import GPUError, GPUOutOfMemoryError, driver_error  # noqa: F401 - re-exported
from rocarray.runtime.mapped import MappedWords
from rocarray.runtime.peer import PeerCopies
from rocarray.runtime.pool import MemoryPool
from rocarray.runtime.staging import Staging
from rocarray.runtime.streams import Event, Stream

__all__ = [
    "GPUError",
    "GPURuntime",
    "MemoryPool",
    "Module",
    "Function",
    "Stream",
    "Event",
    "driver_error",
]


class Module:
    """A code image loaded into one device; its functions are looked up once each."""

    __slots__ = ("device", "handle", "digest", "functions")

    def __init__(self, device: int, handle, digest: bytes):
        self.device = device
        self.handle = handle
        self.digest = digest
        self.functions: dict[str, Function] = {}

    def __repr__(self) -> str:
        return f"<Module {self.digest.hex()[:12]} on device {self.device}>"


class Function:
    """A kernel entry point of a loaded :class:`Module`."""

    __slots__ = ("device", "handle", "launch_handle", "name", "module", "resident")

    def __init__(self, module: Module, handle, name: str, launch_handle):
        self.device = module.device
        self.handle = handle
        #: the function as the runtime's launch callable takes it (the raw address for
        #: the native launch, the bindings' handle for the hooks')
        self.launch_handle = launch_handle
        self.name = name
        self.module = module
        #: block size -> blocks of this function resident on the whole device at once
        self.resident: dict[int, int] = {}

    def __repr__(self) -> str:
        return f"<Function {self.name} on device {self.device}>"


def _loadable(image: bytes) -> bytes:
    # PTX is text the driver reads up to a NUL; ELF objects (cubin, AMDGPU code objects)
    # carry their size.  An extra NUL after a fatbin or PTX is harmless.
    image = bytes(image)
    if image[:4] != b"\x7fELF" and not image.endswith(b"\0"):
        image += b"\0"
    return image


# -- per-thread state ----------------------------------------------------------------------


class _LaunchArea:
    """One thread's packed-argument buffer and the ``extra`` array that points at it.

    The driver copies the parameters before ``launch`` returns, so a thread can reuse the
    same buffer for every launch; nothing is allocated per call.
    """

    __slots__ = ("api", "buffer", "view", "size", "extra", "extra_address", "nbytes")

    def __init__(self, api, capacity: int = 4096):
        self.api = api
        self.size = ctypes.c_size_t(0)
        self.nbytes = -1
        self._make_buffer(capacity)

    def _make_buffer(self, capacity: int) -> None:
        api = self.api
        self.buffer = (ctypes.c_char * capacity)()
        self.view = memoryview(self.buffer).cast("B")
        self.extra = (ctypes.c_void_p * 5)(
            api.launch_param_buffer_pointer,
            ctypes.addressof(self.buffer),
            api.launch_param_buffer_size,
            ctypes.addressof(self.size),
            api.launch_param_end,
        )
        self.extra_address = ctypes.addressof(self.extra)

    def resize(self, nbytes: int) -> None:
        if nbytes > len(self.view):
            self._make_buffer(max(nbytes, 2 * len(self.view)))
        self.size.value = nbytes
        self.nbytes = nbytes


class _ThreadState:
    __slots__ = ("device", "streams", "current", "area")

    def __init__(self):
        #: The device whose context this thread made current through this runtime last.
        self.device = -1
        #: Device index -> streams entered with ``with`` on this thread, innermost last.
        self.streams: dict[int, list[Stream]] = {}
        #: Device index -> the innermost of those streams (absent: the null stream).
        self.current: dict[int, Stream] = {}
        self.area: _LaunchArea | None = None


# -- the runtime ---------------------------------------------------------------------------


class GPURuntime(Runtime):
    """The :class:`~rocarray.runtime.base.Runtime` of one GPU kind, over a hook table.

    Nothing touches the driver before the first call that needs it, so creating the runtime
    (and importing rocarray) works on machines without the driver or its Python bindings.
    """

    #: Host copies of at least this many bytes go through pinned staging buffers.
    staging_threshold = 16 << 20
    #: Size of each of a device's two pinned staging buffers.
    staging_chunk = 32 << 20
    #: False: copies between two devices never use peer access, always the staged copy.
    peer_access = True

    def __init__(self, api):
        self.api = api
        self.kind = api.kind
        self._lock = threading.RLock()
        self._initialised = False
        self._failure: BaseException | None = None
        self._count = 0
        self._names: dict[int, str] = {}
        self._targets: dict[int, str] = {}
        self._max_grids: dict[tuple[int, int], int] = {}
        self._pools: dict[int, MemoryPool] = {}
        self._null_streams: dict[int, Stream] = {}
        self._modules: dict[tuple[int, bytes], Module] = {}
        self._assemblers: dict[int, tuple] = {}
        self._staging: dict[int, Staging | None] = {}
        self._mapped: dict[int, MappedWords] = {}
        self._peers = PeerCopies(self)
        self._local = threading.local()
        #: The launch callable, chosen once: ``(function.launch_handle, grid, block, shared,
        #: stream.launch_handle or 0, extra address) -> error code`` (0: queued).
        self._launch = self._launch_through_hooks
        self._native = False
        #: why launches go through the hooks' ``launch``, or None when they are native
        self.native_launch_reason: str | None = "not initialised"

    # -- initialisation ------------------------------------------------------------------

    def _initialise(self) -> None:
        with self._lock:
            if self._initialised:
                return
            try:
                self.api.init()
                self._count = self.api.device_count()
            except (ImportError, GPUError) as e:
                self._failure = e
                self._count = 0
            if self._count:
                launch, self.native_launch_reason = self._native_launch()
                if launch is not None:
                    self._launch, self._native = launch, True
            self._initialised = True

    def _native_launch(self):
        """(the native launch built-in, None), or (None, why the hooks' ``launch`` is the
        fallback) where the built-in cannot be had."""
        entry = getattr(self.api, "launch_entry", None)
        address = entry() if entry is not None else 0
        if not address:
            return None, f"the {self.kind.upper()} hook table gives no C launch function"
        launch = native.builtin("launch", address)
        return launch, None if launch is not None else native.unavailable_reason()

    def _launch_through_hooks(self, handle, grid: int, block: int, shared: int, stream, extra: int) -> int:
        """The fallback launch in the native built-in's convention: the hook table's
        ``launch``, its failure returned as the driver's error code."""
        if isinstance(stream, int) and stream == 0:  # the null stream, which hooks take as None
            stream = None
        try:
            self.api.launch(handle, grid, block, shared, stream, extra)
        except GPUError as e:
            return e.code or -1
        return 0

    def is_available(self) -> bool:
        """True when the bindings and the driver load and at least one device is present."""
        return self.device_count() > 0

    @property
    def unavailable_reason(self) -> str | None:
        """Why no device of this kind can be used, or None when one can."""
        if self.device_count() > 0:
            return None
        if self._failure is not None:
            return str(self._failure)
        return f"no {self.kind.upper()} device found"

    def _check_index(self, index: int) -> None:
        if not self._initialised:
            self._initialise()
        if 0 <= index < self._count:
            return
        failure = self._failure
        if isinstance(failure, ImportError):
            raise ImportError(str(failure)) from failure
        if failure is not None:
            raise GPUError(str(failure), getattr(failure, "call", None), getattr(failure, "code", None))
        raise ValueError(
            f"{self.kind}:{index}: no such device; {self._count} {self.kind.upper()} device(s) found"
        )

    # -- the thread's current context and stream -----------------------------------------

    def _thread(self) -> _ThreadState:
        try:
            return self._local.state
        except AttributeError:
            state = self._local.state = _ThreadState()
            return state

    def _use(self, index: int) -> None:
        """Make device ``index`` current for the calling thread."""
        self.api.set_device(index)
        self._thread().device = index

    def set_device(self, index: int) -> None:
        """Make device ``index`` current for the calling thread (for code that shares it)."""
        self._check_index(index)
        self._use(index)

    def _per_device(self, made: dict, index: int, make):
        """``made[index]``, made by ``make()`` the first time, once whichever threads ask."""
        try:
            return made[index]
        except KeyError:
            pass
        self._check_index(index)
        with self._lock:
            if index not in made:
                made[index] = make()
        return made[index]

    def null_stream(self, index: int) -> Stream:
        """The legacy default stream of device ``index``."""
        return self._per_device(self._null_streams, index, lambda: Stream(self, index, _null=True))

    def current_stream(self, index: int) -> Stream:
        """The calling thread's current stream of device ``index``."""
        stack = self._thread().streams.get(index)
        if stack:
            return stack[-1]
        return self.null_stream(index)

    def _stream_handle(self, index: int, stream):
        if stream is None:
            stream = self.current_stream(index)
        elif stream.device != index:
            raise ValueError(f"{stream!r} belongs to device {stream.device}, not {index}")
        return stream.handle

    # -- devices -------------------------------------------------------------------------

    def device_count(self) -> int:
        if not self._initialised:
            self._initialise()
        return self._count

    def device_name(self, index: int) -> str:
        name = self._names.get(index)
        if name is None:
            self._check_index(index)
            name = self._names[index] = self.api.device_name(index)
        return name

    def target_name(self, index: int) -> str:
        target = self._targets.get(index)
        if target is None:
            self._check_index(index)
            target = self._targets[index] = self.api.arch(index)
        return target

    def max_grid(self, index: int, block: int) -> int:
        """Blocks of ``block`` threads that device ``index`` holds resident at once.

        One full wave: the grid a grid-stride kernel needs to keep every compute unit busy
        (occupancy limited by threads alone; registers and shared memory may allow fewer).
        """
        grid = self._max_grids.get((index, block))
        if grid is None:
            self._check_index(index)
            units = self.api.compute_unit_count(index)
            per_unit = max(1, self.api.max_threads_per_compute_unit(index) // block)
            grid = self._max_grids[(index, block)] = units * per_unit
        return grid

    def resident_grid(self, function: Function, block: int) -> int:
        """Blocks of ``block`` threads of ``function`` the whole device holds at once, as
        its registers and shared memory allow: a grid of exactly this size keeps every
        compute unit busy in one round (no second, partly empty round of blocks)."""
        grid = function.resident.get(block)
        if grid is None:
            self._use(function.device)
            per_unit = max(1, self.api.resident_blocks(function.handle, block))
            grid = function.resident[block] = self.api.compute_unit_count(function.device) * per_unit
        return grid

    def mem_info(self, index: int) -> tuple[int, int]:
        """(free, total) bytes of device ``index``, as the driver sees them."""
        self._check_index(index)
        self._use(index)
        return self.api.mem_info()

    # -- memory --------------------------------------------------------------------------

    def memory_pool(self, index: int) -> MemoryPool:
        """The caching memory pool of device ``index``."""
        return self._per_device(self._pools, index, lambda: MemoryPool(
            self.api, lambda: self._use(index), label=f"{self.kind}:{index}"))

    def alloc(self, index: int, nbytes: int) -> int:
        """Allocate ``nbytes`` on device ``index`` for the thread's current stream."""
        pool = self._pools.get(index) or self.memory_pool(index)
        try:
            streams = self._local.state.streams
        except AttributeError:
            streams = self._thread().streams
        if streams:
            stack = streams.get(index)
            return pool.malloc(nbytes, stack[-1].ptr if stack else 0)
        return pool.malloc(nbytes, 0)

    def free(self, index: int, ptr: int) -> None:
        pool = self._pools.get(index) or self.memory_pool(index)
        pool.free(ptr)

    def _copy_stream(self, index: int, nbytes: int, stream):
        """A host copy's set-up: (the stream's handle, the device's staging buffers or None
        where the copy goes straight from pageable memory), with the device made current."""
        self._check_index(index)
        handle = self._stream_handle(index, stream)
        self._use(index)
        return handle, self._staging_for(index) if nbytes >= self.staging_threshold else None

    def copy_host_to_device(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        """Copy ``nbytes`` from host address ``src`` to device address ``dst``.

        Ordered on ``stream`` (default: the thread's current stream); returns once the copy
        has finished, so the host buffer may be reused or freed at once.
        """
        if nbytes <= 0:
            return
        handle, staging = self._copy_stream(index, nbytes, stream)
        if staging is None:
            self.api.memcpy_htod(dst, src, nbytes, handle)
        else:
            staging.to_device(self.api, dst, src, nbytes, handle)
        self.api.stream_synchronize(handle)

    def copy_device_to_host(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        """Copy ``nbytes`` from device address ``src`` to host address ``dst``.

        Ordered on ``stream`` after the work queued there; returns once the data is in ``dst``.
        """
        if nbytes <= 0:
            return
        handle, staging = self._copy_stream(index, nbytes, stream)
        if staging is None:
            self.api.memcpy_dtoh(dst, src, nbytes, handle)
            self.api.stream_synchronize(handle)
        else:
            staging.to_host(self.api, dst, src, nbytes, handle)

    def _staging_for(self, index: int) -> Staging | None:
        """Device ``index``'s staging buffers; None when pinned memory is not to be had."""

        def make():
            try:
                return Staging(self.api, self.staging_chunk)
            except GPUError:  # no pinned memory: copy from pageable memory instead
                return None

        return self._per_device(self._staging, index, make)

    def mapped_words(self, index: int) -> MappedWords:
        """Device ``index``'s flag words in mapped host memory (``runtime/mapped.py``): a
        kernel sets one, the host reads it after ``synchronize_current``."""

        def alloc(nbytes):
            self._use(index)
            return self.api.host_alloc_mapped(nbytes)

        return self._per_device(self._mapped, index, lambda: MappedWords(alloc))

    def copy_device_to_device(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        """Queue a copy of ``nbytes`` between device addresses on ``stream``; does not wait."""
        if nbytes <= 0:
            return
        self._check_index(index)
        handle = self._stream_handle(index, stream)
        self._use(index)
        try:
            self.api.memcpy_dtod(dst, src, nbytes, handle)
        except GPUError as e:  # (out of memory: the driver stages some copies)
            self._with_memory(index, e, lambda: self.api.memcpy_dtod(dst, src, nbytes, handle))

    def copy_peer(self, dst_index: int, dst: int, src_index: int, src: int, nbytes: int) -> None:
        """Queue a copy of ``nbytes`` from address ``src`` of device ``src_index`` to
        address ``dst`` of device ``dst_index``; does not wait.

        Between two devices the copy goes by peer access where the hardware allows it
        (enabled once per ordered pair), else through pinned host buffers.  It runs after
        the work queued on the source's current stream and before later work on either
        device's current stream (docs/architecture.md, "Several GPUs").

        Example (what ``x.to_device("cuda:1")`` does with the bytes of ``x``)::

            rt = rocarray.Device("cuda:0").runtime
            rt.copy_peer(1, y.data_ptr, 0, x.data_ptr, x.nbytes)
        """
        if nbytes <= 0:
            return
        self._check_index(dst_index)
        self._check_index(src_index)
        if dst_index == src_index:
            self.copy_device_to_device(dst_index, dst, src, nbytes)
        else:
            self._peers.copy(dst_index, dst, src_index, src, nbytes)

    def peer_route(self, dst_index: int, src_index: int) -> str:
        """How copies from device ``src_index`` to device ``dst_index`` go: "same device",
        "peer" (direct) or "staged: <why>" (through the host); decided on first use.

        Example::

            >>> rocarray.Device("cuda:0").runtime.peer_route(1, 0)   # two GPUs with a direct link
            'peer'
        """
        self._check_index(dst_index)
        self._check_index(src_index)
        if dst_index == src_index:
            return "same device"
        if self._peers.direct(dst_index, src_index):
            return "peer"
        return f"staged: {self._peers.reasons[(dst_index, src_index)]}"

    # -- code ----------------------------------------------------------------------------

    def load_module(self, index: int, image: bytes, jit_opt: int | None = None) -> Module:
        """Load ``image`` into device ``index``, once per device and distinct image;
        ``jit_opt``: the driver JIT's optimisation level for a PTX image (None: default)."""
        digest = hashlib.sha256(image).digest()
        key = (index, digest)
        module = self._modules.get(key)
        if module is not None:
            return module
        self._check_index(index)
        with self._lock:
            module = self._modules.get(key)
            if module is None:
                self._use(index)
                handle = self.api.module_load_data(_loadable(image), jit_opt)
                module = self._modules[key] = Module(index, handle, digest)
        return module

    def ptx_assembler(self, index: int) -> tuple | None:
        """What identifies the machine code the driver makes of PTX for device ``index``
        -- (kind, architecture, driver version) -- or None where this runtime assembles
        no PTX (ROCm loads code objects)."""
        if not getattr(self.api, "assembles_ptx", False):
            return None
        ident = self._assemblers.get(index)
        if ident is None:
            self._check_index(index)
            ident = self._assemblers[index] = (self.kind, self.target_name(index), self.api.driver_version())
        return ident

    def assemble_ptx(self, index: int, image: bytes, jit_opt: int) -> bytes:
        """The machine code (cubin) the driver's JIT makes of PTX ``image`` at level
        ``jit_opt`` for device ``index``: what ``load_module`` of the PTX would load."""
        self._check_index(index)
        self._use(index)
        return self.api.link_ptx(_loadable(image), jit_opt)

    def get_function(self, module: Module, name: str) -> Function:
        function = module.functions.get(name)
        if function is None:
            with self._lock:
                function = module.functions.get(name)
                if function is None:
                    self._use(module.device)
                    handle = self.api.module_get_function(module.handle, name)
                    launch_handle = int(handle) if self._native else handle
                    function = module.functions[name] = Function(module, handle, name, launch_handle)
        return function

    def launch(self, function: Function, grid: int, block: int, args, stream=None, shared: int = 0) -> None:
        """Run ``function`` on ``grid`` blocks of ``block`` threads with packed ``args``.

        ``args`` (bytes-like) is copied into the thread's launch buffer and handed to the
        driver through the ``extra`` mechanism; ``shared`` is the dynamic shared memory per
        block in bytes.  Queued on ``stream`` (default: the thread's current stream of the
        function's device); does not wait.
        """
        area = self._thread_area()
        nbytes = len(args)
        if nbytes != area.nbytes:
            area.resize(nbytes)
        area.view[:nbytes] = args
        self.launch_area(function, grid, block, area.extra_address, stream, shared)

    #: ``rocarray._launch.ContiguousRunner`` launches contiguous elementwise calls below
    #: this many elements (the quick tier's limit) from a ``parameter_area`` of their own
    direct_launch_below = 2**31  # (skeletons.SIMPLE_LOOP_MAX_ELEMENTS + 1)

    def parameter_area(self, packed: bytes):
        """A parameter buffer that stays put, initialised to ``packed`` (whole 64-bit
        fields), behind an ``extra`` array of its own: (a writable view of its words, the
        address to pass to ``launch_area``).  One allocation holds the ``extra`` array
        (words 0-4), the size (word 5) and the parameters; the view keeps it alive."""
        self._initialise()
        api = self.api
        n = len(packed) // 8
        area = (ctypes.c_uint64 * (6 + n))()
        base = ctypes.addressof(area)
        area[0:6] = [api.launch_param_buffer_pointer, base + 48, api.launch_param_buffer_size, base + 40,
                     api.launch_param_end, len(packed)]
        words = memoryview(area).cast("B").cast("Q")[6:]
        words[:] = memoryview(packed).cast("Q")
        return words, base

    def launch_area(self, function: Function, grid: int, block: int, address: int, stream=None,
                    shared: int = 0) -> None:
        """Launch ``function`` with the parameters behind the ``extra`` array at ``address``
        (``parameter_area``, or the thread's launch buffer) on ``stream`` (default: the
        thread's current stream of the function's device): every launch but the warm
        path's (``launch_into_new``) ends here."""
        try:
            state = self._local.state
        except AttributeError:
            state = self._thread()
        device = function.device
        if state.device != device:
            self._use(device)
        if stream is None:
            stream = state.current.get(device)
        if self._launch(function.launch_handle, grid, block, shared, 0 if stream is None else stream.launch_handle,
                        address):
            self._relaunch(function, grid, block, shared, stream, address)

    def launch_into_new(self, function: Function, grid: int, block: int, area, out_word: int,
                        nbytes: int, more_words: tuple = (), step: int = 0) -> int:
        """The warm contiguous path's allocation and launch in one call: ``nbytes`` from the
        function's device's pool for the thread's current stream, its pointer written to word
        ``out_word`` of the parameter ``area`` (``parameter_area``'s pair), the launch queued
        on that stream; returns the pointer (the block goes back to the pool if the launch
        fails).  One look-up of the thread's state instead of ``alloc``'s and
        ``launch_area``'s two.  Outputs that are slices of the block (``rocarray.random``'s)
        have their words in ``more_words``: pairs ``(word, j)``, the word getting the pointer
        plus ``j * step``."""
        try:
            state = self._local.state
        except AttributeError:
            state = self._thread()
        device = function.device
        pool = self._pools.get(device) or self.memory_pool(device)
        stream = state.current.get(device)
        ptr = pool.malloc(nbytes, 0 if stream is None else stream.ptr)
        words = area[0]
        words[out_word] = ptr
        if more_words:
            for w, j in more_words:
                words[w] = ptr + j * step
        if state.device != device:
            self._use(device)
        if not self._launch(function.launch_handle, grid, block, 0, 0 if stream is None else stream.launch_handle,
                            area[1]):
            return ptr
        try:
            self._relaunch(function, grid, block, 0, stream, area[1])
        except BaseException:
            pool.free(ptr)
            raise
        return ptr

    def _relaunch(self, function: Function, grid: int, block: int, shared: int, stream, address: int):
        """A launch again after one failed: other code may have switched this thread's
        context since our last call, so the function's device is made current first.  Out
        of device memory (a kernel needing more local memory than the driver holds), once
        more after the device's pool gives its cached blocks back (``_with_memory``).
        A failure after those raises the driver's error."""
        self._use(function.device)
        handle = 0 if stream is None else stream.launch_handle

        def launch():
            code = self._launch(function.launch_handle, grid, block, shared, handle, address)
            if code:
                raise driver_error(self.api, self.api.launch_name, code)

        try:
            launch()
        except GPUError as e:
            self._with_memory(function.device, e, launch)

    def _with_memory(self, index: int, error: GPUError, retry) -> None:
        """After a driver call on device ``index`` failed with ``error``: where it ran out
        of device memory, the device's pool gives its cached blocks back to the driver and
        ``retry()`` runs once more (out of memory again: :class:`GPUOutOfMemoryError`, a
        ``MemoryError``, with the pool's sizes); any other error is raised as it is."""
        if not isinstance(error, GPUOutOfMemoryError):
            raise error
        pool = self._pools.get(index)
        released = 0
        if pool is not None:
            released = pool.cached_bytes()
            pool.free_all_blocks()
        try:
            retry()
        except GPUOutOfMemoryError as e:
            in_use = pool.used_bytes() if pool is not None else 0
            raise driver_error(self.api, e.call, e.code,
                               f" on {self.kind}:{index}, again after the memory pool gave back {released} "
                               f"cached bytes ({in_use} bytes in use)") from error

    def _thread_area(self) -> "_LaunchArea":
        """The calling thread's launch buffer (made on its first launch)."""
        try:
            state = self._local.state
        except AttributeError:
            state = self._thread()
        area = state.area
        if area is None:
            area = state.area = _LaunchArea(self.api)
        return area

    def launch_packed(self, function: Function, grid: int, block: int, packer, n: int, values) -> None:
        """``launch`` with the parameters packed by ``packer`` (a ``struct.Struct``) from
        ``n, *values`` straight into the thread's launch buffer (reductions, strided and
        broadcast elementwise calls), with no intermediate buffer."""
        area = self._thread_area()
        nbytes = packer.size
        if nbytes != area.nbytes:
            area.resize(nbytes)
        packer.pack_into(area.view, 0, n, *values)
        self.launch_area(function, grid, block, area.extra_address)

    # -- ordering ------------------------------------------------------------------------

    def synchronize(self, index: int) -> None:
        """Wait until all work queued on device ``index`` has finished."""
        self._check_index(index)
        self._use(index)
        self.api.ctx_synchronize()

    def synchronize_current(self, index: int) -> None:
        """Wait until the work queued on the calling thread's current stream of device
        ``index`` (where launches that name no stream go) has finished: that stream alone,
        not the whole device."""
        self.api.stream_synchronize(self._current_handle(index))

    def _current_handle(self, index: int):
        """The driver's handle of the calling thread's current stream of device ``index``
        (None: the null stream), its context made current."""
        try:
            state = self._local.state
        except AttributeError:
            state = self._thread()
        if state.device != index:
            self._use(index)
        stream = state.current.get(index)
        return None if stream is None else stream.handle

    #: ``await_word``: reads of the word between two questions to the driver; seconds of
    #: such spinning before the host sleeps ``WORD_SLEEP`` between questions (long waits
    #: only: a sleep overshoots by tens of microseconds, as much as a whole wait for a
    #: count queued behind other work)
    WORD_READS = 64
    WORD_SPIN = 0.01
    WORD_SLEEP = 50e-6

    def await_word(self, index: int, word: tuple, unset: int) -> int:
        """The value that work queued on the calling thread's current stream of device
        ``index`` writes into the mapped ``word`` (``mapped_words(index).acquire()``'s, set
        to ``unset`` before that work was queued), read as soon as it lands rather than at
        the stream's end: work queued after the writer is not waited for.  The host reads
        the word itself, asking the driver every ``WORD_READS`` reads whether the stream
        has finished (the error of failed work raised), and sleeps between questions after
        ``WORD_SPIN`` seconds; a stream that finished without writing the word raises."""
        words, k = word[0], word[1]
        until = None
        while True:
            for _ in range(self.WORD_READS):
                value = words[k]
                if value != unset:
                    return value
            if until is None:
                handle = self._current_handle(index)
                until = time.perf_counter() + self.WORD_SPIN
            if self.api.stream_query(handle):
                value = words[k]
                if value == unset:
                    raise RuntimeError_(f"the work queued on {self.kind}:{index} finished without writing "
                                        "the word the host waited for")
                return value
            if time.perf_counter() > until:
                time.sleep(self.WORD_SLEEP)

    def stream_create(self, index: int) -> Stream:
        return Stream(self, index)

    def stream_destroy(self, index: int, stream: Stream) -> None:
        stream.close()

    def stream_synchronize(self, stream: Stream) -> None:
        stream.synchronize()

    def event_create(self, index: int) -> Event:
        return Event(self, index)

    def event_record(self, event: Event, stream: Stream | None) -> None:
        event.record(stream)

    def event_synchronize(self, event: Event) -> None:
        event.synchronize()

    def event_elapsed_ms(self, start: Event, end: Event) -> float:
        return start.elapsed_time(end)

    def __repr__(self) -> str:
        state = f"{self._count} device(s)" if self._initialised else "not initialised"
        return f"<GPURuntime {self.kind}: {state}>"
