"""The GPU runtime shared by CUDA and HIP: devices, memory pool, streams, modules, launches.

Every line of GPU runtime logic lives here.  The two vendors differ only in a *hook table*
(``rocarray/runtime/cuda.py`` over ``cuda.bindings.driver``, ``rocarray/runtime/hip.py``
over hip-python), a small object whose methods wrap one driver call each, turn the vendor's
result tuple into plain values, and raise :class:`GPUError` (built by :func:`driver_error`)
when the call fails.  :class:`GPURuntime` calls nothing but ``self.api``.

The hook table
--------------

Handles (modules, functions, streams, events) are the bindings' own objects: they are passed
back to the bindings unchanged, which is their cheapest path; ``int(handle)`` is the raw
address.  The stream handle ``None`` is the legacy default (null) stream of the current
device: both bindings read None as NULL.  Device pointers and host addresses are plain ints.
"Current device" means the calling thread's current CUDA context / HIP device.

==========================================  ==================================================
``kind``                                    ``"cuda"`` or ``"hip"``
``init()``                                  import the bindings (``ImportError`` naming the pip
                                            extra when absent) and initialise the driver
``launch_param_buffer_pointer``,            the ``extra`` keys (ints), valid after ``init()``
``launch_param_buffer_size``,
``launch_param_end``
``device_count() -> int``
``device_name(i) -> str``                   "NVIDIA H200", "AMD Instinct MI300X"
``arch(i) -> str``                          code-generation target: "sm_90", "gfx942"
``compute_unit_count(i) -> int``            streaming multiprocessors / compute units
``max_threads_per_compute_unit(i) -> int``  resident threads one of them holds
``set_device(i)``                           make device ``i`` current for the calling thread
                                            (CUDA: its retained primary context; HIP:
                                            ``hipSetDevice``)
``mem_alloc(nbytes) -> int``                on the current device
``mem_free(ptr)``
``mem_info() -> (free, total)``             bytes of the current device
``host_alloc(nbytes) -> int``               page-locked (pinned) host memory
``host_free(ptr)``
``memcpy_htod(dst, src, nbytes, stream)``   asynchronous copies ordered on ``stream``
``memcpy_dtoh(dst, src, nbytes, stream)``
``memcpy_dtod(dst, src, nbytes, stream)``
``module_load_data(image) -> module``       into the current device
``module_unload(module)``
``module_get_function(module, name)``       ``name`` is a ``str``
``launch(function, grid, block, shared,     1-D grid of 1-D blocks; ``extra`` is the address
stream, extra)``                            of a ``void*[5]`` array: BUFFER_POINTER, buffer
                                            address, BUFFER_SIZE, address of a ``size_t``, END
``stream_create() -> stream``               a blocking stream (orders with the null stream)
``stream_destroy(stream)``
``stream_synchronize(stream)``
``stream_wait_event(stream, event)``
``event_create(timing) -> event``
``event_destroy(event)``
``event_record(event, stream)``
``event_synchronize(event)``
``event_elapsed_ms(start, end) -> float``
``ctx_synchronize()``                       wait for all work of the current device
``error_name(code) -> str``                 "CUDA_ERROR_INVALID_IMAGE (device kernel image is
                                            invalid)"
``is_out_of_memory(code) -> bool``
``launch_name``                             the launch's C name, for messages
``launch_entry() -> int``                   the address of the driver's C launch function,
                                            with ``cuLaunchKernel``'s signature (HIP's
                                            ``hipModuleLaunchKernel`` has it too); 0 when
                                            unknown
==========================================  ==================================================

Launches
--------

A launch is one C call of the driver, made by a built-in function that rocarray compiles
itself (``rocarray.runtime.native``: ``launch``, bound to ``launch_entry()``) with the raw
addresses of the function and the stream (``Function.address``, ``Stream.ptr``); it
returns the driver's error code.  Where that built-in cannot be made (not CPython, no
host compiler, a table whose ``launch_entry`` gives 0) the
hook ``launch`` does it through the bindings.  Measured on the H200 hosts: a warm ``a + b``
0.4-0.7 us faster than through cuda-bindings (docs/benchmarks.md, stop 17).

Ordering and the current context
--------------------------------

Work goes to the calling thread's current stream of a device: the one entered last with
``with stream:`` on that thread, else the legacy default (null) stream, which orders with
CuPy's and PyTorch's default streams.  CUDA uses each device's *primary* context, the one the
CUDA runtime (CuPy, PyTorch) uses too, so pointers and streams can be shared with them.

Every call that names a device makes its context current, except :meth:`GPURuntime.launch`,
the hot path: it trusts a per-thread note of the device it made current last, and when a
launch fails (for instance because other code switched the thread's context) it makes the
function's context current and tries once more.

Host <-> device copies
----------------------

Both directions return once the copy has finished.  Small copies go straight from pageable
memory.  From ``staging_threshold`` bytes on, they pass through two pinned buffers per
device, in turns, so the CPU copy of one chunk overlaps the DMA of the other; the CPU copies
run on several threads.  Measured on the H200 host: one thread copies into pinned memory at
9 GB/s, eight at 32 GB/s, DMA from pinned memory runs at 55 GB/s; to the device / back,
pageable copies reach 7.4 / 11.3 GB/s at 16 MiB and 6.0 / 11.6 at 1 GiB, staged ones
14.7 / 17.1 and 30 / 26 GB/s (32 MiB chunks; 4 and 8 MiB chunks were slower).  At 8 MiB
and below the two paths are even.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from rocarray.runtime import native
from rocarray.runtime.base import Runtime, RuntimeError_
from rocarray.runtime.hooks import GPUError, driver_error  # noqa: F401 - re-exported
from rocarray.runtime.pool import ALLOCATION_UNIT, MemoryPool, round_size  # noqa: F401 - re-exported

__all__ = [
    "GPUError",
    "GPURuntime",
    "MemoryPool",
    "Module",
    "Function",
    "Stream",
    "Event",
    "driver_error",
    "round_size",
]


# The caching allocator (MemoryPool) lives in rocarray/runtime/pool.py, shared with the host.


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


# -- streams and events --------------------------------------------------------------------


class _DriverObject:
    """A stream or event of one device: destroyed by ``close`` or when collected, once."""

    __slots__ = ("runtime", "device", "handle", "_owned", "__weakref__")

    def _destroy(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Destroy the driver's object now (work queued on or before it still completes)."""
        if self._owned:
            self._owned = False
            self.runtime._use(self.device)
            self._destroy()

    def __del__(self):
        try:
            self.close()
        except Exception:  # the driver may be gone at interpreter exit
            pass


class Stream(_DriverObject):
    """An in-order queue of work on one device.

    ``with stream:`` makes it the calling thread's current stream of its device, where
    launches and copies that name no stream go.  ``Stream(runtime, index)`` creates a new
    stream; :meth:`GPURuntime.null_stream` gives the device's default one.
    """

    __slots__ = ("ptr", "launch_handle")

    def __init__(self, runtime: GPURuntime, device: int = 0, *, _null: bool = False):
        runtime._check_index(device)
        self.runtime = runtime
        self.device = device
        self._owned = False
        if _null:
            self.handle = None
            self.ptr = 0
        else:
            runtime._use(device)
            self.handle = runtime.api.stream_create()
            self.ptr = int(self.handle)
            self._owned = True
        #: the stream as the runtime's launch callable takes it (as ``Function.launch_handle``)
        self.launch_handle = self.ptr if runtime._native else self.handle

    def synchronize(self) -> None:
        """Wait until all work queued on this stream has finished."""
        self.runtime._use(self.device)
        self.runtime.api.stream_synchronize(self.handle)

    def wait_event(self, event: Event) -> None:
        """Make later work on this stream wait for ``event``."""
        self.runtime._use(self.device)
        self.runtime.api.stream_wait_event(self.handle, event.handle)

    def record(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one if None) on this stream; return it."""
        if event is None:
            event = Event(self.runtime, self.device)
        event.record(self)
        return event

    def __enter__(self) -> Stream:
        state = self.runtime._thread()
        state.streams.setdefault(self.device, []).append(self)
        state.current[self.device] = self
        return self

    def __exit__(self, *exc) -> None:
        state = self.runtime._thread()
        stack = state.streams.get(self.device)
        if not stack or stack[-1] is not self:
            raise RuntimeError_(f"{self!r} left out of order: `with` blocks of streams must nest")
        stack.pop()
        if stack:
            state.current[self.device] = stack[-1]
        else:
            del state.current[self.device]

    def _destroy(self) -> None:
        self.runtime.api.stream_destroy(self.handle)

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.ptr == self.ptr and other.device == self.device

    def __hash__(self) -> int:
        return hash((self.device, self.ptr))

    def __repr__(self) -> str:
        which = "null stream" if self.ptr == 0 else f"stream {self.ptr:#x}"
        return f"<{self.runtime.kind}:{self.device} {which}>"


class Event(_DriverObject):
    """A marker in a stream: record it, wait for it, time the work between two of them."""

    __slots__ = ()

    def __init__(self, runtime: GPURuntime, device: int = 0, timing: bool = True):
        runtime._check_index(device)
        self.runtime = runtime
        self.device = device
        self._owned = False
        runtime._use(device)
        self.handle = runtime.api.event_create(timing)
        self._owned = True

    def record(self, stream: Stream | None = None) -> Event:
        """Record the event on ``stream`` (default: the thread's current stream)."""
        if stream is None:
            stream = self.runtime.current_stream(self.device)
        self.runtime._use(self.device)
        self.runtime.api.event_record(self.handle, stream.handle)
        return self

    def synchronize(self) -> None:
        """Wait until the work before the event's last recording has finished."""
        self.runtime._use(self.device)
        self.runtime.api.event_synchronize(self.handle)

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds between this event and ``end`` (both recorded and completed)."""
        self.runtime._use(self.device)
        return self.runtime.api.event_elapsed_ms(self.handle, end.handle)

    def _destroy(self) -> None:
        self.runtime.api.event_destroy(self.handle)

    def __repr__(self) -> str:
        return f"<{self.runtime.kind}:{self.device} event {int(self.handle):#x}>"


# -- staged host copies --------------------------------------------------------------------

#: Threads that copy between pageable and pinned host memory.
_COPY_THREADS = max(1, min(8, os.cpu_count() or 1))
_copier: ThreadPoolExecutor | None = None
_copier_lock = threading.Lock()


def _host_copy(dst: int, src: int, nbytes: int) -> None:
    """``memmove`` in pieces of at least 1 MiB spread over threads (ctypes drops the GIL)."""
    global _copier
    parts = min(_COPY_THREADS, nbytes >> 20)
    if parts <= 1:
        ctypes.memmove(dst, src, nbytes)
        return
    if _copier is None:
        with _copier_lock:
            if _copier is None:
                _copier = ThreadPoolExecutor(_COPY_THREADS - 1, thread_name_prefix="rocarray-copy")
    piece = (nbytes // parts + 63) & ~63
    futures = [
        _copier.submit(ctypes.memmove, dst + offset, src + offset, min(piece, nbytes - offset))
        for offset in range(piece, nbytes, piece)
    ]
    ctypes.memmove(dst, src, piece)
    for future in futures:
        future.result()


class _Staging:
    """Two pinned host buffers of one device, used in turns by large copies.

    ``pending[b]`` says a DMA that reads or writes buffer ``b`` may still run; its event
    marks its end.  Copies hold ``lock`` throughout, so one copy at a time uses them.
    """

    __slots__ = ("lock", "chunk", "buffers", "events", "pending")

    def __init__(self, api, chunk: int):
        self.lock = threading.Lock()
        self.chunk = chunk
        self.buffers: list[int] = []
        self.events: list = []
        self.pending = [False, False]
        try:
            for _ in range(2):
                self.buffers.append(api.host_alloc(chunk))
                self.events.append(api.event_create(False))
        except BaseException:
            for ptr in self.buffers:
                api.host_free(ptr)
            for event in self.events:
                api.event_destroy(event)
            raise

    def claim(self, api, b: int) -> int:
        """Wait until no DMA uses buffer ``b``; return its address."""
        if self.pending[b]:
            api.event_synchronize(self.events[b])
            self.pending[b] = False
        return self.buffers[b]

    def issued(self, api, b: int, stream) -> None:
        """Note that a DMA on ``stream`` now uses buffer ``b``."""
        api.event_record(self.events[b], stream)
        self.pending[b] = True


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
        self._staging: dict[int, _Staging | None] = {}
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

    def null_stream(self, index: int) -> Stream:
        """The legacy default stream of device ``index``."""
        stream = self._null_streams.get(index)
        if stream is None:
            self._check_index(index)
            with self._lock:
                stream = self._null_streams.get(index)
                if stream is None:
                    stream = self._null_streams[index] = Stream(self, index, _null=True)
        return stream

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
        pool = self._pools.get(index)
        if pool is None:
            self._check_index(index)
            with self._lock:
                pool = self._pools.get(index)
                if pool is None:
                    pool = MemoryPool(
                        self.api, lambda: self._use(index), label=f"{self.kind}:{index}"
                    )
                    self._pools[index] = pool
        return pool

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

    def copy_host_to_device(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        """Copy ``nbytes`` from host address ``src`` to device address ``dst``.

        Ordered on ``stream`` (default: the thread's current stream); returns once the copy
        has finished, so the host buffer may be reused or freed at once.
        """
        if nbytes <= 0:
            return
        self._check_index(index)
        handle = self._stream_handle(index, stream)
        self._use(index)
        api = self.api
        staging = self._staging_for(index) if nbytes >= self.staging_threshold else None
        if staging is None:
            api.memcpy_htod(dst, src, nbytes, handle)
        else:
            chunk = staging.chunk
            with staging.lock:
                for k, offset in enumerate(range(0, nbytes, chunk)):
                    size = min(chunk, nbytes - offset)
                    buffer = staging.claim(api, k & 1)
                    _host_copy(buffer, src + offset, size)
                    api.memcpy_htod(dst + offset, buffer, size, handle)
                    staging.issued(api, k & 1, handle)
        api.stream_synchronize(handle)

    def copy_device_to_host(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        """Copy ``nbytes`` from device address ``src`` to host address ``dst``.

        Ordered on ``stream`` after the work queued there; returns once the data is in ``dst``.
        """
        if nbytes <= 0:
            return
        self._check_index(index)
        handle = self._stream_handle(index, stream)
        self._use(index)
        api = self.api
        staging = self._staging_for(index) if nbytes >= self.staging_threshold else None
        if staging is None:
            api.memcpy_dtoh(dst, src, nbytes, handle)
            api.stream_synchronize(handle)
            return
        chunk = staging.chunk
        count = (nbytes + chunk - 1) // chunk

        def fetch(k):  # queue the DMA of chunk k into buffer k & 1
            offset = k * chunk
            buffer = staging.claim(api, k & 1)
            api.memcpy_dtoh(buffer, src + offset, min(chunk, nbytes - offset), handle)
            staging.issued(api, k & 1, handle)

        with staging.lock:
            fetch(0)
            for k in range(count):
                if k + 1 < count:
                    fetch(k + 1)
                offset = k * chunk
                _host_copy(dst + offset, staging.claim(api, k & 1), min(chunk, nbytes - offset))

    def _staging_for(self, index: int) -> _Staging | None:
        """Device ``index``'s staging buffers; None when pinned memory is not to be had."""
        try:
            return self._staging[index]
        except KeyError:
            pass
        with self._lock:
            if index not in self._staging:
                try:
                    self._staging[index] = _Staging(self.api, self.staging_chunk)
                except GPUError:  # no pinned memory: copy from pageable memory instead
                    self._staging[index] = None
        return self._staging[index]

    def copy_device_to_device(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        """Queue a copy of ``nbytes`` between device addresses on ``stream``; does not wait."""
        if nbytes <= 0:
            return
        self._check_index(index)
        handle = self._stream_handle(index, stream)
        self._use(index)
        self.api.memcpy_dtod(dst, src, nbytes, handle)

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
                        nbytes: int) -> int:
        """The warm contiguous path's allocation and launch in one call: ``nbytes`` from the
        function's device's pool for the thread's current stream, its pointer written to word
        ``out_word`` of the parameter ``area`` (``parameter_area``'s pair), the launch queued
        on that stream; returns the pointer (the block goes back to the pool if the launch
        fails).  One look-up of the thread's state instead of ``alloc``'s and
        ``launch_area``'s two."""
        try:
            state = self._local.state
        except AttributeError:
            state = self._thread()
        device = function.device
        pool = self._pools.get(device) or self.memory_pool(device)
        stream = state.current.get(device)
        ptr = pool.malloc(nbytes, 0 if stream is None else stream.ptr)
        area[0][out_word] = ptr
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
        context since our last call, so the function's device is made current first.
        A second failure raises the driver's error."""
        self._use(function.device)
        code = self._launch(function.launch_handle, grid, block, shared,
                            0 if stream is None else stream.launch_handle, address)
        if code:
            raise driver_error(self.api, self.api.launch_name, code)

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
