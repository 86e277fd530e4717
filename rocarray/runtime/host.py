"""The host (CPU) runtime: aligned host buffers and host kernels called in-process.

Host memory comes from the shared caching pool (aligned C-library blocks), and NumPy views
it without copying, so arrays on the CPU convert to and from NumPy without a copy wherever
the layout allows.  Kernels are host object files produced by the ``host`` target and
loaded in-process; a launch is a direct call of the entry ``void f(ptr args, i64 start,
i64 stop)``, split across threads for large iteration spaces.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import sys
import threading
import time
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from .. import _settings
from .base import Runtime, RuntimeError_
from .hostload import load_host_object
from .native import builtin as _native_builtin, unavailable_reason as _native_unavailable_reason
from .pool import MemoryPool
from .threads import finish_all

#: Host buffers are aligned to this many bytes (a cache line; enough for any vector load).
ALIGNMENT = 64
#: Blocks of at least this many bytes are aligned to ``HUGE_PAGE`` and advised to use
#: transparent huge pages (Linux, ``MADV_HUGEPAGE``), as NumPy's large arrays are.
HUGE_PAGE_MIN_BYTES = 4 << 20
HUGE_PAGE = 2 << 20
_MADV_HUGEPAGE = 14

_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
#: The same entry called without releasing the GIL: for small launches (microseconds),
#: where giving the GIL up and taking it back costs more than it lets other threads do.
_ENTRY_GIL = ctypes.PYFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
#: The host quick tier's row driver:
#: ``void rows(ptr kernel, ptr desc, ptr args, i64 start, i64 stop)``.
_ROWS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                         ctypes.c_int64)
_ROWS_GIL = ctypes.PYFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                              ctypes.c_int64)
_BUFFER_TYPES: dict = {}  # parameter buffer size -> ctypes array type (made once per 512 bytes)


class _HostMemory:
    """Allocation hooks for the shared memory pool: aligned blocks from the C library."""

    def __init__(self):
        libc = ctypes.CDLL(None)
        self._memalign = libc.posix_memalign
        self._memalign.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_size_t]
        self._memalign.restype = ctypes.c_int
        self._free = libc.free
        self._free.argtypes = [ctypes.c_void_p]
        self._free.restype = None
        self._madvise = getattr(libc, "madvise", None) if sys.platform.startswith("linux") else None
        if self._madvise is not None:
            self._madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            self._madvise.restype = ctypes.c_int

    def mem_alloc(self, nbytes: int) -> int:
        out = ctypes.c_void_p()
        large = nbytes >= HUGE_PAGE_MIN_BYTES and self._madvise is not None
        err = self._memalign(ctypes.byref(out), HUGE_PAGE if large else ALIGNMENT, nbytes)
        if err:
            e = RuntimeError_(f"posix_memalign failed: {os.strerror(err)}")
            e.code = err
            raise e
        if large:
            # ask for transparent huge pages where the kernel gives them only on request
            # (``madvise`` mode; NumPy asks too): streaming a large array through 4 KiB
            # pages measured slower than NumPy.  Advice only: a refusal changes nothing.
            self._madvise(out.value, nbytes & ~(HUGE_PAGE - 1), _MADV_HUGEPAGE)  # whole huge pages
        return out.value

    def mem_free(self, ptr: int) -> None:
        self._free(ptr)

    def is_out_of_memory(self, code: int) -> bool:
        return code == errno.ENOMEM


class HostFunction:
    """A loaded host kernel: its address and callables for it, ``f(args, start, stop)``
    with ``args`` an address or ``bytes`` (``call_small`` keeps the GIL, ``call`` releases
    it): rocarray's native built-ins (``rocarray.runtime.native``, cheaper per call than
    ctypes), else ctypes functions."""

    __slots__ = ("name", "address", "call", "call_small", "module")

    def __init__(self, module, name: str, address: int):
        self.module = module  # keeps the loaded code alive
        self.name = name
        self.address = address
        self.call_small = _native_builtin("call", address) or _ENTRY_GIL(address)

    def __getattr__(self, name: str):
        # ``call`` is made at the first launch long enough to release the GIL (many kernels
        # never see one; a disk hit's first call need not make it); from then on the slot
        # answers and this is not called again
        if name != "call":
            raise AttributeError(f"'HostFunction' object has no attribute {name!r}")
        call = self.call = _native_builtin("call_nogil", self.address) or _ENTRY(self.address)
        return call


class HostRowFunction:
    """A 1-D kernel entry run over an N-d space row by row by the row driver (the host
    quick tier's, ``rocarray.compiler.quick_text.host_row_driver``): called like a
    ``HostFunction`` (``call`` / ``call_small`` on the parameter buffer and a range of
    flat indices)."""

    __slots__ = ("name", "address", "call", "call_small", "module", "entry", "desc")

    def __init__(self, driver: HostFunction, entry: HostFunction, nbytes: int, words):
        self.module = (driver.module, entry.module)  # keeps both codes alive
        self.entry = entry
        self.name = entry.name
        self.address = entry.address
        #: {buffer bytes, array operands, word index of each array operand's pointer}
        self.desc = (ctypes.c_int64 * (2 + len(words)))(nbytes, len(words), *words)
        desc = ctypes.addressof(self.desc)
        self.call = functools.partial(_ROWS(driver.address), entry.address, desc)
        self.call_small = functools.partial(_ROWS_GIL(driver.address), entry.address, desc)


#: Pieces per thread a parallel host launch is cut into (handed out as threads ask).
PIECES_PER_THREAD = 4

#: The host runtimes made (weakly: a fork hook must not keep one, and its pool, alive).
_runtimes: "weakref.WeakSet[HostRuntime]" = weakref.WeakSet()


def _forget_threads_after_fork() -> None:
    for runtime in list(_runtimes):
        runtime._forget_workers()


os.register_at_fork(after_in_child=_forget_threads_after_fork)


class HostRuntime(Runtime):
    """The runtime of the one host device: buffers from the host pool, kernels called on
    the calling thread, or over a pool of threads for large iteration spaces."""

    kind = "cpu"

    #: Iteration spaces smaller than this run on the calling thread.
    parallel_threshold = 1 << 18
    #: ... and smaller than this without releasing the GIL (a few microseconds of work).
    small_launch = 1 << 12
    #: Launches this small may be made by calling ``HostFunction.call_small`` on a
    #: ``parameter_area`` directly (``rocarray._launch.ContiguousRunner``).
    direct_launch_below = small_launch

    #: Freed host blocks are kept for reuse up to this many bytes in all (fresh memory costs
    #: page faults on first touch: reusing a block makes a large op several times faster).
    max_cached_bytes = _settings.HOST_POOL_BYTES.get()

    def __init__(self):
        self._pool = MemoryPool(_HostMemory(), label="host", max_cached_bytes=self.max_cached_bytes)
        self._lock = threading.Lock()
        self._threads = min(_settings.NUM_THREADS.get(), 64)
        self._workers = None
        _runtimes.add(self)

    def _forget_workers(self) -> None:
        # A forked process has none of its parent's threads: work handed to the parent's
        # pool would wait for ever.  It makes a pool of its own at its first large launch.
        self._workers = None
        self._lock = threading.Lock()

    def device_count(self) -> int:
        return 1

    def device_name(self, index: int) -> str:
        return platform.processor() or platform.machine()

    def target_name(self, index: int) -> str:
        return "host"

    def alloc(self, index: int, nbytes: int) -> int:
        return self._pool.malloc(nbytes)

    def free(self, index: int, ptr: int) -> None:
        self._pool.free(ptr)

    def memory_pool(self, index: int = 0) -> MemoryPool:
        return self._pool

    def copy_host_to_device(self, index, dst, src, nbytes, stream=None):
        ctypes.memmove(dst, src, nbytes)

    copy_device_to_host = copy_host_to_device
    copy_device_to_device = copy_host_to_device

    @staticmethod
    def prepare_launches() -> None:
        # the native built-ins' module, loaded before the first kernel is read from disk:
        # the C allocator's clean-up after the load falls on this first call, not on a
        # later kernel's
        _native_unavailable_reason()

    def load_module(self, index: int, image: bytes):
        # (imported at the first load, not with the runtime; a relative import in a
        # function runs importlib's Python code at every call.  ``load_host_object``
        # loads the same bytes once, whichever thread asks.)
        return load_host_object(image)

    def get_function(self, module, name: str) -> HostFunction:
        return HostFunction(module, name, module.address(name))

    @staticmethod
    def row_function(driver: HostFunction, entry: HostFunction, nbytes: int, words) -> HostRowFunction:
        """``entry`` (a 1-D kernel) run over N-d spaces by the row ``driver``; ``nbytes``: the
        parameter buffer's size, ``words``: the word index of each array operand's pointer."""
        return HostRowFunction(driver, entry, nbytes, words)

    @staticmethod
    def parameter_area(packed: bytes):
        """A parameter buffer that stays put, initialised to ``packed`` (whole 64-bit
        fields): (a writable view of its words, its address)."""
        area = (ctypes.c_uint64 * (len(packed) // 8)).from_buffer_copy(packed)
        return memoryview(area).cast("B").cast("Q"), ctypes.addressof(area)

    def launch(self, function: HostFunction, grid: int, block: int, args, stream=None) -> None:
        """Run the host entry over ``grid`` elements (``block`` is ignored on the host)."""
        n = grid
        ptr = ctypes.addressof(args)
        if n < self.parallel_threshold or self._threads == 1:
            function.call(ptr, 0, n)
            return
        self._parallel(function, ptr, n)

    def launch_packed(self, function: HostFunction, grid: int, block: int, packer, n: int, values,
                      work: int | None = None) -> None:
        """``launch`` with the parameters packed by ``packer`` from ``n, *values``.

        ``work``: elements of work behind the ``grid`` items (default ``grid``), which decides
        whether the items are split over threads (a reduction item folds many elements)."""
        work = grid if work is None else work
        if work < self.small_launch:
            # The packed bytes are the parameter buffer: ctypes hands the kernel a pointer
            # to their data, which it only reads (no ctypes buffer to make and fill).
            function.call_small(packer.pack(n, *values), 0, grid)
            return
        if work < self.parallel_threshold or self._threads == 1 or grid < 2:
            function.call(packer.pack(n, *values), 0, grid)
            return
        buf_type = _BUFFER_TYPES.get(packer.size)
        if buf_type is None:
            # one buffer type per 512 bytes of parameters (making a ctypes type is slow;
            # a larger buffer costs nothing per launch)
            rounded = -(-packer.size // 512) * 512
            buf_type = _BUFFER_TYPES.get(rounded)
            if buf_type is None:
                buf_type = _BUFFER_TYPES[rounded] = ctypes.c_char * rounded
            _BUFFER_TYPES[packer.size] = buf_type
        buf = buf_type()
        packer.pack_into(buf, 0, n, *values)
        self._parallel(function, ctypes.addressof(buf), grid)

    def _parallel(self, function: HostFunction, ptr: int, n: int) -> None:
        threads = self._threads
        parts = min(n, PIECES_PER_THREAD * threads)
        step = -(-n // parts)
        if step >= 1024:  # elements: keep the pieces on cache-line-friendly boundaries
            step = (step + 63) & ~63
        call = function.call
        # (ctypes releases the GIL during the call)
        self.map_threads(lambda lo: call(ptr, lo, min(lo + step, n)), range(0, n, step))

    def map_threads(self, fn, items) -> None:
        """``fn(item)`` for every one of ``items`` on this runtime's threads, the calling
        one among them; returns when all have ended (an exception of one is raised here,
        and no more items are begun)."""
        if self._workers is None:
            with self._lock:
                if self._workers is None:
                    self._workers = ThreadPoolExecutor(self._threads, thread_name_prefix="rocarray-host")
        # items handed out as threads come for them, not one fixed share each: a thread
        # whose core is busy with other work (a shared machine) takes fewer instead of
        # holding the whole call up
        pieces = deque(items)

        def work():
            take = pieces.popleft  # atomic: each item goes to one thread
            while True:
                try:
                    item = take()
                except IndexError:
                    return
                fn(item)

        futures = [self._workers.submit(work) for _ in range(min(self._threads, len(pieces)) - 1)]
        try:
            work()
        except BaseException:  # (interrupted: no more items are begun)
            pieces.clear()
            raise
        finally:  # (the begun items end before anything leaves: they use the caller's memory)
            finish_all(futures, stop=pieces.clear)

    def synchronize(self, index: int) -> None:
        pass

    # Streams and events: the host runs work synchronously, in order.
    def stream_create(self, index: int):
        return None

    def stream_destroy(self, index: int, stream) -> None:
        pass

    def stream_synchronize(self, stream) -> None:
        pass

    def event_create(self, index: int):
        return [0.0]

    def event_record(self, event, stream) -> None:
        event[0] = time.perf_counter()

    def event_synchronize(self, event) -> None:
        pass

    def event_elapsed_ms(self, start, end) -> float:
        return (end[0] - start[0]) * 1e3

