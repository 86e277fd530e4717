"""Tests of the GPU runtime (rocarray/runtime/gpu.py) and its CUDA and HIP hook tables.

The memory pool and the runtime's bookkeeping (lazy start, module cache, launch buffer,
current stream) are hardware-independent: they run here against a fake hook table that
lives in this file only.  The tests marked for CUDA or HIP drive a real GPU and skip, naming
the hardware they need, where there is none.
"""

from __future__ import annotations

import ctypes
import inspect
import random
import struct
import threading

import numpy as np
import pytest

from rocarray.runtime import gpu
from rocarray.runtime.base import Runtime, RuntimeError_
from rocarray._device import get_runtime
from rocarray.runtime.cuda import CudaHooks, CUDARuntime
from rocarray.runtime.gpu import GPUError, GPURuntime, MemoryPool, round_size
from rocarray.runtime.pool import _SMALL_CLASSES_BYTES, SMALL_BLOCK, SMALL_BLOCKS_PER_CLASS
from rocarray.runtime.hip import HipHooks, HIPRuntime

OUT_OF_MEMORY = 2
INVALID_VALUE = 1


#: the C launch function's type: ``cuLaunchKernel``'s signature
_C_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_void_p)


def fake_cubin(text: bytes) -> bytes:
    """A well-formed little ELF file for an NVIDIA GPU holding ``text`` in its one
    section: what the runtime's cubin cache takes for a cubin (``_launch._check_cubin``)."""
    import struct

    shoff = 64 + len(text) + (-(64 + len(text)) % 8)
    out = bytearray(shoff + 2 * 64)
    out[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<HHIQQQIHHHHHH", out, 16, 2, 190, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 2, 0)
    out[64:64 + len(text)] = text
    struct.pack_into("<IIQQQQIIQQ", out, shoff + 64, 0, 1, 6, 0, 64, len(text), 0, 0, 1, 0)
    return bytes(out)


class FakeHooks:
    """A hook table with a pretend device of ``capacity`` bytes; it records its calls.

    ``native=True``: ``launch_entry`` gives a C function (a ctypes callback) that records
    the launches the runtime's native built-in makes, as ``launch`` records the bindings'
    path's; function handles are ints, so both paths record the same values."""

    kind = "fake"
    launch_name = "fakeLaunch"
    launch_param_buffer_pointer = 1
    launch_param_buffer_size = 2
    launch_param_end = 3

    def __init__(self, capacity=1 << 40, devices=1, native=False):
        self.native = native
        self._c_launch = _C_LAUNCH(self._launched) if native else None
        self.callback_errors = []
        self.capacity = capacity
        self.devices = devices
        self.live = {}  # ptr -> size
        self.next_ptr = 1 << 32
        self.alloc_calls = 0
        self.free_calls = 0
        self.calls = []
        self.launches = []
        self.current = None
        self.init_calls = 0
        self.fail_launches = 0
        self.fail_alloc_with = None
        self.lock = threading.Lock()

    # devices
    def init(self):
        self.init_calls += 1

    def device_count(self):
        return self.devices

    def device_name(self, index):
        return f"Fake GPU {index}"

    def arch(self, index):
        return "fake_1"

    def compute_unit_count(self, index):
        return 132

    def max_threads_per_compute_unit(self, index):
        return 2048

    def set_device(self, index):
        self.current = index

    # memory
    def mem_alloc(self, nbytes):
        with self.lock:
            self.alloc_calls += 1
            if self.fail_alloc_with is not None:
                raise GPUError("fakeMalloc failed", "fakeMalloc", self.fail_alloc_with)
            if sum(self.live.values()) + nbytes > self.capacity:
                raise gpu.driver_error(self, "fakeMalloc", OUT_OF_MEMORY)
            ptr = self.next_ptr
            self.next_ptr += nbytes + 4096
            self.live[ptr] = nbytes
            return ptr

    def mem_free(self, ptr):
        with self.lock:
            self.free_calls += 1
            del self.live[ptr]

    def mem_info(self):
        used = sum(self.live.values())
        return self.capacity - used, self.capacity

    def host_alloc(self, nbytes):
        return self.mem_alloc(nbytes)

    def host_free(self, ptr):
        self.mem_free(ptr)

    def memcpy_htod(self, dst, src, nbytes, stream):
        self.calls.append(("htod", dst, src, nbytes, stream))

    def memcpy_dtoh(self, dst, src, nbytes, stream):
        self.calls.append(("dtoh", dst, src, nbytes, stream))

    def memcpy_dtod(self, dst, src, nbytes, stream):
        self.calls.append(("dtod", dst, src, nbytes, stream))

    # code
    def module_load_data(self, image, jit_opt=None):
        self.calls.append(("load", self.current, image))
        self.last_jit_opt = jit_opt
        return object()

    #: (a CUDA-like table sets it: the runtime then asks it for cubins of PTX)
    assembles_ptx = False

    def driver_version(self):
        return getattr(self, "version", 12080)

    def link_ptx(self, image, jit_opt):
        self.calls.append(("link", self.current, image, jit_opt))
        return fake_cubin(image.rstrip(b"\0") + b" at O%d" % jit_opt)

    def module_unload(self, module):
        pass

    def resident_blocks(self, function, block):
        return 2048 // block // 2  # as if registers allowed half the threads

    def module_get_function(self, module, name):
        self.calls.append(("get_function", name))
        with self.lock:
            self.next_ptr += 64
            return self.next_ptr  # (an int handle: the native launch passes int(handle))

    def _record(self, function, grid, block, shared, stream, extra) -> int:
        """The launch's error code (0: queued), recorded when it succeeds."""
        words = (ctypes.c_void_p * 5).from_address(extra)
        assert words[0] == self.launch_param_buffer_pointer
        assert words[2] == self.launch_param_buffer_size
        assert words[4] == self.launch_param_end
        size = ctypes.c_size_t.from_address(words[3]).value
        data = ctypes.string_at(words[1], size)
        with self.lock:
            if self.fail_launches:
                self.fail_launches -= 1
                return INVALID_VALUE
            self.launches.append((function, grid, block, shared, stream, data, self.current))
        return 0

    def launch(self, function, grid, block, shared, stream, extra):
        assert not self.native, "the runtime launched through the bindings' path"
        if self._record(function, grid, block, shared, stream, extra):
            raise gpu.driver_error(self, "fakeLaunch", INVALID_VALUE)

    def launch_entry(self):
        return 0 if self._c_launch is None else ctypes.cast(self._c_launch, ctypes.c_void_p).value

    def _launched(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        try:
            assert (gy, gz, by, bz, params) == (1, 1, 1, 1, None)
            return self._record(function, gx, bx, shared, stream, extra)  # (stream None: NULL)
        except BaseException as e:  # (a callback cannot raise: the test looks at the list)
            self.callback_errors.append(e)
            return 999

    # streams and events
    def stream_create(self):
        with self.lock:
            self.next_ptr += 64
            return self.next_ptr

    def stream_destroy(self, stream):
        self.calls.append(("stream_destroy", stream))

    def stream_synchronize(self, stream):
        self.calls.append(("stream_synchronize", stream))

    def stream_wait_event(self, stream, event):
        pass

    def event_create(self, timing=True):
        return self.stream_create()

    def event_destroy(self, event):
        pass

    def event_record(self, event, stream):
        pass

    def event_synchronize(self, event):
        pass

    def event_elapsed_ms(self, start, end):
        return 1.5

    def ctx_synchronize(self):
        self.calls.append(("ctx_synchronize", self.current))

    # errors
    def error_name(self, code):
        return {OUT_OF_MEMORY: "FAKE_ERROR_OUT_OF_MEMORY (out of memory)"}.get(code, f"FAKE_ERROR_{code}")

    def is_out_of_memory(self, code):
        return code == OUT_OF_MEMORY


class HostBackedHooks(FakeHooks):
    """A fake whose "device" memory is host memory, so that copies can be checked."""

    def __init__(self, pinned_memory=True):
        super().__init__()
        self.blocks = {}
        self.pinned_memory = pinned_memory
        self.event_log = []

    def mem_alloc(self, nbytes):
        block = ctypes.create_string_buffer(nbytes)
        self.blocks[ctypes.addressof(block)] = block
        return ctypes.addressof(block)

    def mem_free(self, ptr):
        del self.blocks[ptr]

    def host_alloc(self, nbytes):
        if not self.pinned_memory:
            raise GPUError("fakeHostAlloc failed: FAKE_ERROR_OUT_OF_MEMORY", "fakeHostAlloc", OUT_OF_MEMORY)
        return self.mem_alloc(nbytes)

    def memcpy_htod(self, dst, src, nbytes, stream):
        super().memcpy_htod(dst, src, nbytes, stream)
        ctypes.memmove(dst, src, nbytes)

    def memcpy_dtoh(self, dst, src, nbytes, stream):
        super().memcpy_dtoh(dst, src, nbytes, stream)
        ctypes.memmove(dst, src, nbytes)

    def event_record(self, event, stream):
        self.event_log.append(("record", event))

    def event_synchronize(self, event):
        self.event_log.append(("synchronize", event))


def public_methods(cls):
    return {name for name, value in vars(cls).items() if callable(value) and not name.startswith("_")}


# -- the hook tables --------------------------------------------------------------------------


def test_cuda_and_hip_hook_tables_expose_the_same_methods():
    assert public_methods(CudaHooks) == public_methods(HipHooks)
    for name in public_methods(CudaHooks):
        cuda_params = list(inspect.signature(getattr(CudaHooks, name)).parameters)
        hip_params = list(inspect.signature(getattr(HipHooks, name)).parameters)
        assert cuda_params == hip_params, name


def test_hook_tables_cover_what_the_runtime_calls():
    # Every hook the fake table offers is one the runtime may call; both real tables have them.
    needed = public_methods(FakeHooks)
    assert needed <= public_methods(CudaHooks)
    assert public_methods(CudaHooks) <= needed
    for table in (CudaHooks(), HipHooks()):
        for constant in ("launch_param_buffer_pointer", "launch_param_buffer_size", "launch_param_end"):
            assert isinstance(getattr(table, constant), int)


def test_runtimes_start_without_touching_the_driver():
    # Creating a runtime touches no driver; the bindings load on first use.
    for runtime_class, kind in ((CUDARuntime, "cuda"), (HIPRuntime, "hip")):
        runtime = runtime_class()
        assert isinstance(runtime, GPURuntime)
        assert runtime.kind == kind
        assert not runtime._initialised
        assert "not initialised" in repr(runtime)
    assert isinstance(get_runtime("cuda"), CUDARuntime)
    assert isinstance(get_runtime("hip"), HIPRuntime)


# -- size classes --------------------------------------------------------------------------


def test_round_size_small_sizes_are_multiples_of_512():
    assert round_size(1) == 512
    assert round_size(512) == 512
    assert round_size(513) == 1024
    assert round_size(4000) == 4096
    assert round_size(8191) == 8192


def test_round_size_large_sizes_waste_under_an_eighth():
    rng = random.Random(0)
    for _ in range(2000):
        n = rng.randrange(1, 1 << 36)
        size = round_size(n)
        assert size >= n
        assert size % 512 == 0
        assert size - n < max(512, size / 8)
        assert round_size(size) == size


def test_round_size_is_monotonic():
    sizes = [round_size(n) for n in range(1, 200_000, 97)]
    assert sizes == sorted(sizes)


# -- the memory pool -----------------------------------------------------------------------


def test_pool_reuses_a_freed_block_of_the_same_size_class():
    api = FakeHooks()
    pool = MemoryPool(api)
    a = pool.malloc(1000)
    pool.free(a)
    b = pool.malloc(900)
    assert b == a
    assert api.alloc_calls == 1
    assert pool.driver_allocations() == 1


def _free_inside(inside, victim_size, check):
    """A pool whose driver hook, on its first call inside the pool method ``inside``, frees
    a block of ``victim_size`` bytes as a garbage-collected finalizer would (on this
    thread, mid-method) and runs ``check(pool, victim)`` right after that free: (the pool,
    its hooks, the victim, the interrupted action, the list that notes the firing)."""
    api = FakeHooks()
    pool = MemoryPool(api, max_cached_bytes=None if inside != "free" else 0)
    victim = pool.malloc(victim_size)
    other = pool.malloc(70_000)
    cached = pool.malloc(1000)
    pool.free(cached)
    hook = "mem_alloc" if inside == "malloc" else "mem_free"
    original = getattr(api, hook)
    fired = []

    def finalizer_inside(*args):
        if not fired:
            fired.append(True)
            pool.free(victim)  # re-entered on this thread, in the middle of a pool method
            check(pool, victim)
        return original(*args)

    setattr(api, hook, finalizer_inside)
    action = {"malloc": lambda: pool.malloc(200_000), "free": lambda: pool.free(other),
              "free_all_blocks": pool.free_all_blocks}[inside]
    return pool, api, victim, action, fired


@pytest.mark.parametrize("inside", ["malloc", "free", "free_all_blocks"])
def test_pool_free_reentered_by_a_finalizer_is_deferred_not_deadlocked(inside):
    """The garbage collector can run a buffer's finalizer (which frees its block) in the
    middle of a pool method, on the thread holding the pool's lock.  Here the driver hooks
    the pool calls inside its methods stand for that moment: the re-entered free of a large
    block must not deadlock, and its block is back in the pool when the interrupted method
    returns (a small block's free takes no lock: the next test)."""

    def deferred(pool, victim):
        assert victim in pool._in_use  # deferred: the interrupted method is mid-way

    pool, api, victim, action, fired = _free_inside(inside, SMALL_BLOCK + 3000, deferred)
    done = []
    worker = threading.Thread(target=lambda: done.append(action()), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the pool deadlocked on a re-entered free"
    assert fired and done
    assert victim not in pool._in_use and not pool._deferred
    assert pool.used_bytes() == sum(size for _, size in pool._in_use.values())
    with pytest.raises(ValueError, match="freed already"):
        pool.free(victim)


@pytest.mark.parametrize("inside", ["malloc", "free", "free_all_blocks"])
def test_pool_small_free_reentered_by_a_finalizer_completes_at_once(inside):
    """A small block's free takes no lock: run inside a pool method (a finalizer), it is
    done before the interrupted method goes on, and the books stay right."""

    def at_once(pool, victim):
        assert victim not in pool._in_use

    pool, api, victim, action, fired = _free_inside(inside, 3000, at_once)
    action()
    assert fired
    assert pool.used_bytes() == sum(size for _, size in pool._in_use.values())
    assert pool.total_bytes() == sum(api.live.values())
    with pytest.raises(ValueError, match="freed already"):
        pool.free(victim)


def test_pool_keeps_a_bounded_number_of_small_blocks():
    api = FakeHooks()
    pool = MemoryPool(api)
    blocks = [pool.malloc(4000) for _ in range(SMALL_BLOCKS_PER_CLASS + 5)]
    for p in blocks:
        pool.free(p)
    assert pool.n_free_blocks() == SMALL_BLOCKS_PER_CLASS
    assert api.free_calls == 5
    assert pool.cached_bytes() == 4096 * SMALL_BLOCKS_PER_CLASS
    assert pool.malloc(4000) == blocks[SMALL_BLOCKS_PER_CLASS - 1]  # last in, first out
    # no caching at all under a bound of 0, and small ones never pass a low bound
    for bound, kept in ((0, 0), (_SMALL_CLASSES_BYTES * 3, 3)):
        api = FakeHooks()
        pool = MemoryPool(api, max_cached_bytes=bound)
        blocks = [pool.malloc(60_000) for _ in range(5)]
        for p in blocks:
            pool.free(p)
        assert pool.n_free_blocks() == kept and pool.cached_bytes() <= bound


def _race_on_pool(pool, steps, sizes, streams=(0,), any_order=False, free_all_every=0):
    """Eight threads allocating and freeing at random; fails if a block is ever handed to
    two owners or a thread raises.  Every thread frees what it holds at the end."""
    held = set()
    held_lock = threading.Lock()
    errors = []

    def work(seed):
        rng = random.Random(seed)
        mine = []
        try:
            for step in range(steps):
                if mine and rng.random() < 0.5:
                    ptr = mine.pop(rng.randrange(len(mine)) if any_order else -1)
                    with held_lock:
                        held.remove(ptr)
                    pool.free(ptr)
                else:
                    ptr = pool.malloc(rng.choice(sizes), stream=rng.choice(streams))
                    with held_lock:
                        assert ptr not in held, "one block handed to two owners"
                        held.add(ptr)
                    mine.append(ptr)
                if free_all_every and step % free_all_every == 0:
                    pool.free_all_blocks()
            for ptr in mine:
                with held_lock:
                    held.remove(ptr)
                pool.free(ptr)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert pool.used_bytes() == 0


def test_pool_small_blocks_from_many_threads_keep_the_books():
    """Small blocks go through the lock-free lists: racing threads never share a block,
    and a double free is caught."""
    api = FakeHooks(capacity=64 << 20)
    pool = MemoryPool(api)
    _race_on_pool(pool, 4000, (100, 4000))
    assert pool.cached_bytes() == sum(api.live.values())
    p = pool.malloc(100)
    pool.free(p)
    with pytest.raises(ValueError, match="freed already"):
        pool.free(p)


def test_pool_allocates_anew_for_another_size_class_or_stream():
    api = FakeHooks()
    pool = MemoryPool(api)
    a = pool.malloc(1000)
    pool.free(a)
    b = pool.malloc(5000)
    assert b != a
    c = pool.malloc(1000, stream=77)
    assert c != a  # a block freed by the null stream's work is not handed to another stream
    assert api.alloc_calls == 3
    pool.free(c)
    assert pool.malloc(600, stream=77) == c


def test_pool_statistics():
    api = FakeHooks()
    pool = MemoryPool(api)
    assert (pool.used_bytes(), pool.cached_bytes(), pool.total_bytes()) == (0, 0, 0)
    a = pool.malloc(100)
    b = pool.malloc(3000)
    assert pool.used_bytes() == 512 + 3072
    pool.free(a)
    assert pool.used_bytes() == 3072
    assert pool.cached_bytes() == 512
    assert pool.total_bytes() == 3072 + 512
    assert pool.n_free_blocks() == 1
    pool.free_all_blocks()
    assert api.free_calls == 1
    assert pool.total_bytes() == pool.used_bytes() == 3072
    assert pool.n_free_blocks() == 0
    pool.free(b)
    pool.free_all_blocks()
    assert api.live == {}
    assert "MemoryPool" in repr(pool)


def test_pool_zero_bytes_and_bad_frees():
    pool = MemoryPool(FakeHooks())
    assert pool.malloc(0) == 0
    pool.free(0)
    with pytest.raises(ValueError):
        pool.malloc(-1)
    p = pool.malloc(10)
    pool.free(p)
    with pytest.raises(ValueError, match="not allocated by this memory pool"):
        pool.free(p)
    with pytest.raises(ValueError):
        pool.free(12345)


def test_pool_refuses_requests_beyond_ssize_t_without_calling_the_driver():
    # a hook takes a size_t: a larger count would reach the driver wrapped (or not at all)
    api = FakeHooks(capacity=1 << 80)
    pool = MemoryPool(api, label="fake:0")
    for nbytes in (2**63, 2**64, 2**64 + 4096, 2**70):
        with pytest.raises(MemoryError, match=r"fake:0: cannot allocate \d+ bytes: more than the largest possible allocation"):
            pool.malloc(nbytes)
    assert api.alloc_calls == 0
    p = pool.malloc(2**40)  # the largest sizes below still go to the driver
    assert api.alloc_calls == 1
    pool.free(p)


def test_pool_calls_activate_before_driver_calls():
    api = FakeHooks()
    seen = []
    pool = MemoryPool(api, activate=lambda: seen.append("activate"))
    p = pool.malloc(10)
    assert seen == ["activate"]
    pool.free(p)
    pool.malloc(10)  # from the cache: no driver call, no activation
    assert seen == ["activate"]
    pool.free(p)
    pool.free_all_blocks()
    assert seen == ["activate", "activate"]


def test_pool_out_of_memory_frees_cached_blocks_and_retries():
    api = FakeHooks(capacity=8192)
    pool = MemoryPool(api)
    a = pool.malloc(4096)
    b = pool.malloc(2048)
    pool.free(a)
    pool.free(b)
    assert sum(api.live.values()) == 6144
    c = pool.malloc(8192)  # fails once, frees the 6144 cached bytes, then succeeds
    assert api.alloc_calls == 4
    assert api.free_calls == 2
    assert pool.used_bytes() == 8192
    assert pool.cached_bytes() == 0
    pool.free(c)


def test_pool_out_of_memory_twice_raises_memory_error_with_sizes():
    api = FakeHooks(capacity=8192)
    pool = MemoryPool(api, label="fake:0")
    keep = pool.malloc(4096)
    spare = pool.malloc(1024)
    pool.free(spare)
    with pytest.raises(MemoryError) as info:
        pool.malloc(6000)
    message = str(info.value)
    assert "fake:0" in message
    assert "6000 bytes" in message
    assert "6144-byte block" in message
    assert "4096 bytes in use" in message
    assert "released 1024 cached bytes" in message
    assert "4096 of 8192 bytes free" in message
    assert isinstance(info.value.__cause__, GPUError)
    assert pool.used_bytes() == 4096
    pool.free(keep)


def test_pool_passes_other_driver_errors_through_without_releasing_the_cache():
    api = FakeHooks()
    pool = MemoryPool(api)
    p = pool.malloc(100)
    pool.free(p)
    api.fail_alloc_with = INVALID_VALUE
    with pytest.raises(GPUError) as info:
        pool.malloc(100_000)
    assert info.value.code == INVALID_VALUE
    assert pool.cached_bytes() == 512
    assert api.free_calls == 0


def test_pool_is_thread_safe():
    api = FakeHooks(capacity=64 << 20)
    pool = MemoryPool(api)
    _race_on_pool(pool, 3000, (100, 600, 5000, 70_000), streams=(0, 1), any_order=True, free_all_every=500)
    assert pool.total_bytes() == pool.cached_bytes() == sum(api.live.values())
    assert pool.n_free_blocks() == len(api.live)
    pool.free_all_blocks()
    assert api.live == {}
    assert api.alloc_calls == api.free_calls


# -- the runtime over a fake hook table ----------------------------------------------------


def test_runtime_is_a_runtime_and_starts_lazily():
    api = FakeHooks(devices=2)
    runtime = GPURuntime(api)
    assert isinstance(runtime, Runtime)
    assert api.init_calls == 0
    assert runtime.device_count() == 2
    assert runtime.device_count() == 2
    assert api.init_calls == 1
    assert runtime.device_name(1) == "Fake GPU 1"
    assert runtime.target_name(0) == "fake_1"
    assert runtime.is_available()
    assert runtime.unavailable_reason is None
    with pytest.raises(ValueError, match="fake:2: no such device; 2 FAKE device"):
        runtime.alloc(2, 16)


def test_runtime_without_bindings_reports_the_install_command():
    class MissingBindings(FakeHooks):
        def init(self):
            raise ImportError("install them with: pip install rocarray[fake]")

    runtime = GPURuntime(MissingBindings())
    assert runtime.device_count() == 0
    assert not runtime.is_available()
    assert "pip install rocarray[fake]" in runtime.unavailable_reason
    with pytest.raises(ImportError, match=r"pip install rocarray\[fake\]"):
        runtime.alloc(0, 16)


def test_runtime_without_driver_raises_gpu_error_on_use():
    class NoDriver(FakeHooks):
        def init(self):
            raise GPUError("fakeInit failed: FAKE_ERROR_NO_DEVICE", "fakeInit", 100)

    runtime = GPURuntime(NoDriver())
    assert runtime.device_count() == 0
    with pytest.raises(GPUError, match="fakeInit failed") as info:
        runtime.load_module(0, b"image")
    assert isinstance(info.value, RuntimeError_)
    assert info.value.code == 100


def test_driver_error_names_the_call_and_the_error():
    error = gpu.driver_error(FakeHooks(), "fakeMalloc", OUT_OF_MEMORY)
    assert str(error) == "fakeMalloc failed: FAKE_ERROR_OUT_OF_MEMORY (out of memory)"
    assert (error.call, error.code) == ("fakeMalloc", OUT_OF_MEMORY)

    class Unnamed(FakeHooks):
        def error_name(self, code):
            raise ValueError(code)

    assert str(gpu.driver_error(Unnamed(), "fakeInit", 999)) == "fakeInit failed: error 999"


def test_runtime_alloc_uses_one_pool_per_device():
    api = FakeHooks(devices=2)
    runtime = GPURuntime(api)
    p = runtime.alloc(1, 1000)
    assert api.current == 1
    runtime.free(1, p)
    assert runtime.alloc(1, 1000) == p
    assert runtime.memory_pool(1).used_bytes() == 1024
    assert runtime.memory_pool(0).used_bytes() == 0
    assert runtime.memory_pool(1) is runtime.memory_pool(1)


def test_runtime_loads_each_image_once_per_device():
    api = FakeHooks(devices=2)
    runtime = GPURuntime(api)
    m0 = runtime.load_module(0, b"ptx text")
    assert runtime.load_module(0, bytes(b"ptx text")) is m0
    m1 = runtime.load_module(1, b"ptx text")
    assert m1 is not m0
    loads = [call for call in api.calls if call[0] == "load"]
    assert [(device, image) for _, device, image in loads] == [(0, b"ptx text\0"), (1, b"ptx text\0")]
    elf = b"\x7fELF" + bytes(60)
    runtime.load_module(0, elf)
    assert api.calls[-1] == ("load", 0, elf)  # ELF images go to the driver unchanged
    f = runtime.get_function(m0, "kernel")
    assert runtime.get_function(m0, "kernel") is f
    assert [call for call in api.calls if call[0] == "get_function"] == [("get_function", "kernel")]
    assert (f.device, f.name, f.module) == (0, "kernel", m0)


#: the launch tests run on both paths: the native built-in and the hook's ``launch``
BOTH_LAUNCH_PATHS = pytest.mark.parametrize("native", [False, True], ids=["bindings", "native"])


def test_the_runtime_says_which_launch_path_it_took(monkeypatch):
    runtime = GPURuntime(FakeHooks())
    runtime.device_count()
    assert runtime._native_launch is None
    assert runtime.native_launch_reason == "the FAKE hook table gives no C launch function"
    runtime = GPURuntime(FakeHooks(native=True))
    runtime.device_count()
    assert runtime._native_launch is not None and runtime.native_launch_reason is None
    # ROCARRAY_LAUNCH=bindings: the hook's launch although a C function is offered
    monkeypatch.setenv("ROCARRAY_LAUNCH", "bindings")
    api = FakeHooks(native=True)
    api.native = False  # (its ``launch`` may be called)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(0, b"image"), "k")
    runtime.launch(function, 2, 32, b"args")
    assert runtime.native_launch_reason == "ROCARRAY_LAUNCH=bindings" and function.address == 0
    assert api.launches[-1][1:3] == (2, 32) and api.launches[-1][5] == b"args"


@BOTH_LAUNCH_PATHS
def test_launch_passes_the_packed_arguments_through_extra(native):
    api = FakeHooks(devices=2, native=native)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(1, b"image"), "k")
    args = struct.pack("<qq8q", 10, 1, *range(8))
    runtime.launch(function, 3, 128, bytearray(args))
    runtime.launch(function, 4, 64, b"\x01\x02\x03", shared=256)
    big = bytes(range(256)) * 40  # more than the first launch buffer holds
    runtime.launch(function, 1, 1, memoryview(big))
    first, second, third = api.launches
    assert first == (function.handle, 3, 128, 0, None, args, 1)  # None: the null stream
    assert second == (function.handle, 4, 64, 256, None, b"\x01\x02\x03", 1)
    assert third[5] == big
    assert api.callback_errors == []
    assert (runtime._native_launch is not None) == native


@BOTH_LAUNCH_PATHS
def test_parameter_area_launches_its_own_words_on_the_current_stream(native):
    # the warm elementwise path (ContiguousRunner): a launch from an area of its own whose
    # words are overwritten between launches; the driver reads them through ``extra``
    api = FakeHooks(devices=2, native=native)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(1, b"image"), "k")
    template = struct.pack("<5q", 0, 7, 0, 11, 12)
    words, address = runtime.parameter_area(template)
    assert len(words) == 5 and list(words) == [0, 7, 0, 11, 12]
    words[0] = words[2] = 1000
    words[4] = 2**64 - 1
    runtime.launch_area(function, 4, 256, address)
    stream = runtime.stream_create(1)
    words[0] = 5
    with stream:
        runtime.launch_area(function, 1, 256, address)
    (f1, g1, b1, sh1, st1, data1, dev1), (_, g2, _, _, st2, data2, dev2) = api.launches
    assert (f1, g1, b1, sh1, st1, dev1) == (function.handle, 4, 256, 0, None, 1)
    assert struct.unpack("<5Q", data1) == (1000, 7, 1000, 11, 2**64 - 1)
    assert (g2, st2, dev2) == (1, stream.ptr, 1)
    assert struct.unpack("<5Q", data2)[0] == 5
    # a second area is independent of the first, and of the thread's packed-launch buffer
    other, other_address = runtime.parameter_area(template)
    runtime.launch(function, 1, 1, b"packed")
    runtime.launch_area(function, 2, 64, other_address)
    assert api.launches[-2][5] == b"packed"
    assert struct.unpack("<5q", api.launches[-1][5]) == (0, 7, 0, 11, 12)
    assert words[0] == 5
    assert api.callback_errors == []
    assert (runtime._native_launch is not None) == native


@BOTH_LAUNCH_PATHS
def test_launch_into_new_allocates_on_the_threads_stream_and_launches(native):
    # the warm path's single runtime call: the output block from the pool of the thread's
    # current stream, its pointer written into the area, the launch on that stream
    api = FakeHooks(devices=2, native=native)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(1, b"image"), "k")
    area = runtime.parameter_area(struct.pack("<4q", 0, 7, 0, 0))
    pool = runtime.memory_pool(1)
    ptr = runtime.launch_into_new(function, 3, 128, area, 3, 4000)
    assert ptr and area[0][3] == ptr
    (f, g, b, sh, st, data, dev), = api.launches
    assert (f, g, b, sh, st, dev) == (function.handle, 3, 128, 0, None, 1)
    assert struct.unpack("<4Q", data) == (0, 7, 0, ptr)
    pool.free(ptr)
    assert runtime.launch_into_new(function, 1, 1, area, 3, 4000) == ptr  # reused (stream 0)
    pool.free(ptr)
    stream = runtime.stream_create(1)
    with stream:
        on_stream = runtime.launch_into_new(function, 2, 64, area, 3, 4000)
    assert on_stream != ptr  # a block of the null stream is not handed to another stream
    assert api.launches[-1][4] == stream.ptr and struct.unpack("<4Q", api.launches[-1][5])[3] == on_stream
    pool.free(on_stream)
    with stream:  # ... but one of the same stream is
        assert runtime.launch_into_new(function, 2, 64, area, 3, 4000) == on_stream
    # a launch that fails twice (the retry included) gives the block back to the pool
    in_use = pool.used_bytes()
    api.fail_launches = 2
    with pytest.raises(GPUError, match="fakeLaunch failed"):
        runtime.launch_into_new(function, 1, 1, area, 3, 100)
    assert api.fail_launches == 0 and pool.used_bytes() == in_use
    failed = area[0][3]
    assert runtime.launch_into_new(function, 1, 1, area, 3, 100) == failed  # it was freed
    assert pool.used_bytes() == in_use + 512
    assert api.callback_errors == []
    assert (runtime._native_launch is not None) == native


@BOTH_LAUNCH_PATHS
def test_launch_retries_once_after_making_the_context_current(native):
    api = FakeHooks(devices=2, native=native)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(0, b"image"), "k")
    runtime.launch(function, 1, 1, b"x")
    api.current = 1  # other code switched this thread's device behind the runtime's back
    api.fail_launches = 1
    runtime.launch(function, 1, 1, b"y")
    assert api.launches[-1][5:] == (b"y", 0)
    api.fail_launches = 2
    with pytest.raises(GPUError, match="fakeLaunch failed"):
        runtime.launch(function, 1, 1, b"z")
    assert api.callback_errors == []
    assert (runtime._native_launch is not None) == native


@BOTH_LAUNCH_PATHS
def test_launch_from_several_threads_keeps_each_threads_arguments(native):
    api = FakeHooks(native=native)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(0, b"image"), "k")

    def work(t):
        for i in range(200):
            runtime.launch(function, 1, 1, struct.pack("<qq", t, i))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seen = sorted(struct.unpack("<qq", launch[5]) for launch in api.launches)
    assert seen == [(t, i) for t in range(4) for i in range(200)]
    assert api.callback_errors == []
    assert (runtime._native_launch is not None) == native


@BOTH_LAUNCH_PATHS
def test_with_stream_makes_it_current_for_the_thread(native):
    api = FakeHooks(devices=2, native=native)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(0, b"image"), "k")
    null = runtime.null_stream(0)
    assert runtime.current_stream(0) is null and null.ptr == 0
    outer = runtime.stream_create(0)
    inner = gpu.Stream(runtime, 0)
    with outer:
        assert runtime.current_stream(0) is outer
        assert runtime.current_stream(1).ptr == 0
        with inner:
            runtime.launch(function, 1, 1, b"a")
            p = runtime.alloc(0, 100)
        runtime.launch(function, 1, 1, b"b")
        seen_elsewhere = []
        other = threading.Thread(target=lambda: seen_elsewhere.append(runtime.current_stream(0)))
        other.start()
        other.join()
        assert seen_elsewhere == [null]
    runtime.launch(function, 1, 1, b"c")
    assert [launch[4] for launch in api.launches] == [inner.handle, outer.handle, None]
    runtime.free(0, p)
    assert runtime.alloc(0, 100) != p  # the block belongs to `inner`'s queue
    with pytest.raises(RuntimeError_, match="out of order"):
        with outer:
            inner.__exit__(None, None, None)
    runtime._thread().streams.clear()
    explicit = runtime.stream_create(0)
    runtime.launch(function, 1, 1, b"d", stream=explicit)
    assert api.launches[-1][4] == explicit.handle
    runtime.stream_destroy(0, explicit)
    assert ("stream_destroy", explicit.handle) in api.calls
    assert api.callback_errors == []
    assert (runtime._native_launch is not None) == native


def test_copies_wait_for_host_transfers_but_not_device_ones():
    api = FakeHooks()
    runtime = GPURuntime(api)
    stream = runtime.stream_create(0)
    runtime.copy_host_to_device(0, 0x1000, 0x2000, 64, stream)
    runtime.copy_device_to_host(0, 0x2000, 0x1000, 64)
    runtime.copy_device_to_device(0, 0x3000, 0x1000, 64)
    runtime.copy_device_to_device(0, 0x3000, 0x1000, 0)
    assert api.calls == [
        ("htod", 0x1000, 0x2000, 64, stream.handle),
        ("stream_synchronize", stream.handle),
        ("dtoh", 0x2000, 0x1000, 64, None),
        ("stream_synchronize", None),
        ("dtod", 0x3000, 0x1000, 64, None),
    ]
    with pytest.raises(ValueError, match="belongs to device 0"):
        GPURuntime(FakeHooks(devices=2)).copy_device_to_device(1, 0, 0, 8, stream)


def test_host_copy_in_parallel_pieces():
    for nbytes in (0, 1, 1000, (1 << 20) - 1, 5 * (1 << 20) + 7, 17 * (1 << 20) + 3):
        src = np.random.default_rng(nbytes).integers(0, 256, nbytes, dtype=np.uint8)
        dst = np.zeros(nbytes + 16, dtype=np.uint8)
        gpu._host_copy(dst.ctypes.data, src.ctypes.data, nbytes)
        np.testing.assert_array_equal(dst[:nbytes], src)
        assert not dst[nbytes:].any()


@pytest.mark.parametrize("nbytes", [4096, 4097, 6 * 1024, 10_000])
def test_large_copies_go_through_pinned_staging_buffers(nbytes):
    api = HostBackedHooks()
    runtime = GPURuntime(api)
    runtime.staging_threshold = 4096
    runtime.staging_chunk = 1024
    data = np.random.default_rng(nbytes).integers(0, 256, nbytes, dtype=np.uint8)
    back = np.zeros_like(data)
    ptr = runtime.alloc(0, nbytes)
    runtime.copy_host_to_device(0, ptr, data.ctypes.data, nbytes)
    assert ctypes.string_at(ptr, nbytes) == data.tobytes()
    runtime.copy_device_to_host(0, back.ctypes.data, ptr, nbytes)
    np.testing.assert_array_equal(back, data)
    staging = runtime._staging[0]
    chunks = -(-nbytes // 1024)
    up = [call for call in api.calls if call[0] == "htod"]
    down = [call for call in api.calls if call[0] == "dtoh"]
    assert len(up) == len(down) == chunks
    # Chunks alternate between the two buffers, and each buffer is waited for before reuse.
    assert [call[2] for call in up] == [staging.buffers[k & 1] for k in range(chunks)]
    assert [call[1] for call in down] == [staging.buffers[k & 1] for k in range(chunks)]
    assert [call[3] for call in up] == [min(1024, nbytes - k * 1024) for k in range(chunks)]
    records = [e for e in api.event_log if e[0] == "record"]
    assert len(records) == 2 * chunks
    for k, event in enumerate(api.event_log):
        if event[0] == "record":
            earlier = [e for e in api.event_log[:k] if e[1] == event[1]]
            assert not earlier or earlier[-1][0] == "synchronize", "buffer reused before its DMA ended"


def test_small_copies_and_missing_pinned_memory_use_pageable_copies():
    api = HostBackedHooks(pinned_memory=False)
    runtime = GPURuntime(api)
    runtime.staging_threshold = 4096
    data = np.arange(2000, dtype=np.int32)
    back = np.zeros_like(data)
    ptr = runtime.alloc(0, data.nbytes)
    runtime.copy_host_to_device(0, ptr, data.ctypes.data, data.nbytes)
    runtime.copy_device_to_host(0, back.ctypes.data, ptr, data.nbytes)
    np.testing.assert_array_equal(back, data)
    assert runtime._staging == {0: None}
    assert [call[0] for call in api.calls] == ["htod", "stream_synchronize", "dtoh", "stream_synchronize"]
    assert api.calls[0][2] == data.ctypes.data


def test_events_and_synchronize():
    api = FakeHooks()
    runtime = GPURuntime(api)
    start = runtime.event_create(0)
    end = runtime.null_stream(0).record()
    runtime.event_record(start, None)
    runtime.event_synchronize(end)
    assert runtime.event_elapsed_ms(start, end) == 1.5
    runtime.synchronize(0)
    assert api.calls[-1] == ("ctx_synchronize", 0)


def test_max_grid_is_one_wave_of_resident_blocks():
    runtime = GPURuntime(FakeHooks())
    assert runtime.max_grid(0, 256) == 132 * 8
    assert runtime.max_grid(0, 1024) == 132 * 2
    assert runtime.max_grid(0, 4096) == 132


def test_resident_grid_counts_what_the_function_allows():
    # the fake's occupancy: half the blocks the thread limit allows (as registers would)
    runtime = GPURuntime(FakeHooks())
    function = runtime.get_function(runtime.load_module(0, b"image"), "k")
    assert runtime.resident_grid(function, 256) == 132 * 4
    assert runtime.resident_grid(function, 1024) == 132 * 1
    assert function.resident == {256: 132 * 4, 1024: 132}  # asked of the driver once each


def test_load_module_passes_the_jit_level_for_ptx():
    api = FakeHooks()
    runtime = GPURuntime(api)
    runtime.load_module(0, b"ptx text one")
    assert api.last_jit_opt is None
    runtime.load_module(0, b"ptx text two", 0)
    assert api.last_jit_opt == 0


def test_nvptx_quick_tier_asks_the_driver_jit_for_level_0():
    from rocarray.targets.nvptx import NVPTXTarget

    quick = NVPTXTarget("sm_90").quick_tier
    assert quick.binary_kind == "ptx" and quick.jit_opt == 0
    assert NVPTXTarget("sm_90", assembler="ptx").jit_opt == 3  # the full tier as PTX: -O3
    assert quick.cache_key() != NVPTXTarget("sm_90", assembler="ptx", opt_level=0).cache_key()


class _AssemblingHooks(FakeHooks):
    """A CUDA-like table whose driver turns PTX into a pretend cubin."""

    assembles_ptx = True

    def __init__(self, version=12080):
        super().__init__()
        self.version = version

    def arch(self, index):
        return "sm_90"

    @property
    def links(self):
        return [c[1:] for c in self.calls if c[0] == "link"]


def test_ptx_loads_keep_the_drivers_cubin_on_disk_for_the_next_process(tmp_path, monkeypatch):
    """The quick tier's PTX goes to the driver's JIT; the cubin the driver makes of it is
    kept on disk (made on the background worker) and a later process -- a new runtime,
    the same disk cache -- loads that cubin instead of JIT-compiling the PTX again.  Another
    driver version or architecture does not take it."""
    import types

    import rocarray._images as launch
    import rocarray.compiler.cache as cache_module
    from rocarray.compiler.cache import CompileCache
    from rocarray.compiler.diskcache import DiskCache

    disk = DiskCache(tmp_path)
    monkeypatch.setattr(launch, "_default_cache", lambda: CompileCache(disk))
    jobs = []
    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: jobs.append(job))
    quick = types.SimpleNamespace(jit_opt=0)
    ptx = b".version 8.0 // kernel one\0"

    first = _AssemblingHooks()
    launch._load_image(GPURuntime(first), 0, ptx, quick)
    assert [c for c in first.calls if c[0] == "load"] == [("load", 0, ptx)] and first.last_jit_opt == 0
    assert first.links == [] and len(jobs) == 1  # the cubin is made off the calling thread
    jobs.pop()()
    assert first.links == [(0, ptx, 0)]

    second = _AssemblingHooks()  # a later process
    launch._load_image(GPURuntime(second), 0, ptx, quick)
    loads = [c for c in second.calls if c[0] == "load"]
    assert loads == [("load", 0, fake_cubin(b".version 8.0 // kernel one at O0"))]
    assert second.last_jit_opt is None and second.links == [] and jobs == []

    other = b".version 8.0 // kernel two\0"  # other PTX: a miss
    launch._load_image(GPURuntime(_AssemblingHooks()), 0, other, quick)
    assert len(jobs) == 1
    jobs.clear()
    newer = _AssemblingHooks(version=13000)  # another driver: its JIT may make other code
    launch._load_image(GPURuntime(newer), 0, ptx, quick)
    assert [c[2] for c in newer.calls if c[0] == "load"] == [ptx] and len(jobs) == 1
    jobs.clear()
    plain = FakeHooks()  # a runtime that assembles no PTX (ROCm's): plain loads, nothing kept
    plain.arch = lambda index: "sm_90"
    launch._load_image(GPURuntime(plain), 0, ptx, quick)
    assert [c[2] for c in plain.calls if c[0] == "load"] == [ptx] and jobs == []


def test_hip_hooks_assemble_no_ptx():
    from rocarray.runtime.hip import HipHooks

    assert HipHooks.assembles_ptx is False
    with pytest.raises(GPUError, match="no PTX to assemble"):
        HipHooks().link_ptx(b"ptx", 0)


# -- real hardware -------------------------------------------------------------------------


def _available(kind):
    try:
        return get_runtime(kind).is_available()
    except Exception:
        return False


HAVE_CUDA = _available("cuda")
HAVE_HIP = _available("hip")
needs_cuda = pytest.mark.skipif(not HAVE_CUDA, reason="needs an NVIDIA GPU with the CUDA driver (cuda-bindings)")
needs_hip = pytest.mark.skipif(not HAVE_HIP, reason="needs an AMD GPU with ROCm (hip-python)")

# y[i] = a * x[i] for i < n, with parameters (u64 n, ptr x, f32 a, ptr y): packed with natural
# alignment that is n@0, x@8, a@16, 4 bytes of padding, y@24.  PTX 7.0 for sm_52 loads on any
# GPU of the last decade; the driver compiles it for the device at hand.
SCALE_PTX = b"""
.version 7.0
.target sm_52
.address_size 64

.visible .entry rocarray_test_scale(
    .param .u64 p_n,
    .param .u64 p_x,
    .param .f32 p_a,
    .param .u64 p_y
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<10>;
    .reg .f32 %f<4>;

    ld.param.u64 %rd1, [p_n];
    ld.param.u64 %rd2, [p_x];
    ld.param.f32 %f1, [p_a];
    ld.param.u64 %rd3, [p_y];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.s64 %rd4, %rd4, %rd5;
    setp.ge.u64 %p1, %rd4, %rd1;
    @%p1 bra $L_done;
    cvta.to.global.u64 %rd6, %rd2;
    cvta.to.global.u64 %rd7, %rd3;
    shl.b64 %rd8, %rd4, 2;
    add.s64 %rd9, %rd6, %rd8;
    ld.global.f32 %f2, [%rd9];
    mul.f32 %f3, %f2, %f1;
    add.s64 %rd9, %rd7, %rd8;
    st.global.f32 [%rd9], %f3;
$L_done:
    ret;
}
"""


@pytest.fixture(scope="module")
def cuda_runtime():
    return get_runtime("cuda")


@pytest.fixture(scope="module")
def hip_runtime():
    return get_runtime("hip")


def _round_trip(runtime, n):
    host = np.arange(n, dtype=np.float32)
    back = np.empty_like(host)
    copy = np.empty_like(host)
    a = runtime.alloc(0, host.nbytes)
    b = runtime.alloc(0, host.nbytes)
    try:
        runtime.copy_host_to_device(0, a, host.ctypes.data, host.nbytes)
        runtime.copy_device_to_host(0, back.ctypes.data, a, host.nbytes)
        np.testing.assert_array_equal(back, host)
        runtime.copy_device_to_device(0, b, a, host.nbytes)
        runtime.copy_device_to_host(0, copy.ctypes.data, b, host.nbytes)
        np.testing.assert_array_equal(copy, host)
    finally:
        runtime.free(0, a)
        runtime.free(0, b)


def _check_devices(runtime, prefix):
    count = runtime.device_count()
    assert count >= 1
    for index in range(count):
        assert runtime.device_name(index).strip()
        assert runtime.target_name(index).startswith(prefix)
    free, total = runtime.mem_info(0)
    assert 0 < free <= total
    assert runtime.max_grid(0, 256) >= runtime.max_grid(0, 1024) >= 1


def _check_streams_and_events(runtime):
    host = np.arange(1 << 20, dtype=np.uint8)
    back = np.zeros_like(host)
    stream = runtime.stream_create(0)
    with stream:
        ptr = runtime.alloc(0, host.nbytes)
        start = runtime.event_create(0)
        start.record()
        runtime.copy_host_to_device(0, ptr, host.ctypes.data, host.nbytes)
        end = stream.record()
        end.synchronize()
        runtime.copy_device_to_host(0, back.ctypes.data, ptr, host.nbytes)
        runtime.free(0, ptr)
    stream.synchronize()
    assert runtime.event_elapsed_ms(start, end) >= 0.0
    np.testing.assert_array_equal(back, host)
    runtime.synchronize(0)
    stream.close()


def _check_out_of_memory(runtime, kind):
    with pytest.raises(MemoryError, match=f"{kind}:0: out of memory allocating {1 << 52} bytes"):
        runtime.alloc(0, 1 << 52)


@needs_cuda
def test_cuda_devices(cuda_runtime):
    _check_devices(cuda_runtime, "sm_")


# The first size is copied from pageable memory, the second through pinned staging buffers.
COPY_SIZES = [100_000, 20_000_003]  # 400 KB, 80 MB


@needs_cuda
@pytest.mark.parametrize("n", COPY_SIZES)
def test_cuda_alloc_and_copy_round_trip(cuda_runtime, n):
    _round_trip(cuda_runtime, n)


@needs_cuda
def test_cuda_streams_and_events(cuda_runtime):
    _check_streams_and_events(cuda_runtime)


@needs_cuda
def test_cuda_out_of_memory_is_a_memory_error(cuda_runtime):
    _check_out_of_memory(cuda_runtime, "cuda")


@needs_cuda
def test_cuda_load_ptx_and_launch_with_packed_arguments(cuda_runtime):
    rt = cuda_runtime
    module = rt.load_module(0, SCALE_PTX)
    assert rt.load_module(0, SCALE_PTX) is module
    function = rt.get_function(module, "rocarray_test_scale")
    assert rt.get_function(module, "rocarray_test_scale") is function
    n = 10_000
    x = np.linspace(-3, 3, n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    dx = rt.alloc(0, x.nbytes)
    dy = rt.alloc(0, y.nbytes)
    try:
        rt.copy_host_to_device(0, dx, x.ctypes.data, x.nbytes)
        args = bytearray(struct.pack("<QQf4xQ", n, dx, 2.5, dy))
        assert len(args) == 32
        block = 128
        rt.launch(function, (n + block - 1) // block, block, args)
        rt.copy_device_to_host(0, y.ctypes.data, dy, y.nbytes)
        np.testing.assert_array_equal(y, x * np.float32(2.5))
        # On a stream of its own, timed by events.
        stream = rt.stream_create(0)
        start = stream.record()
        rt.launch(function, (n + block - 1) // block, block, struct.pack("<QQf4xQ", n, dy, -1.0, dx), stream=stream)
        end = stream.record()
        rt.copy_device_to_host(0, y.ctypes.data, dx, y.nbytes, stream=stream)
        np.testing.assert_array_equal(y, x * np.float32(-2.5))
        assert start.elapsed_time(end) >= 0.0
    finally:
        rt.free(0, dx)
        rt.free(0, dy)


@needs_cuda
def test_cuda_assembles_ptx_into_a_cubin_that_runs(cuda_runtime):
    # the cubin the driver makes of PTX (kept on disk for the quick tier's next process)
    rt = cuda_runtime
    ident = rt.ptx_assembler(0)
    assert ident[0] == "cuda" and ident[1] == rt.target_name(0) and ident[2] >= 11000
    cubin = rt.assemble_ptx(0, SCALE_PTX, 0)
    assert cubin[:4] == b"\x7fELF"
    function = rt.get_function(rt.load_module(0, cubin), "rocarray_test_scale")
    n = 1000
    x = np.linspace(-3, 3, n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    dx, dy = rt.alloc(0, x.nbytes), rt.alloc(0, y.nbytes)
    try:
        rt.copy_host_to_device(0, dx, x.ctypes.data, x.nbytes)
        rt.launch(function, 8, 128, struct.pack("<QQf4xQ", n, dx, 0.5, dy))
        rt.copy_device_to_host(0, y.ctypes.data, dy, y.nbytes)
        np.testing.assert_array_equal(y, x * np.float32(0.5))
    finally:
        rt.free(0, dx)
        rt.free(0, dy)
    with pytest.raises(GPUError, match="cuLink"):
        rt.assemble_ptx(0, b".version 8.0\n.target sm_90\nthis is not PTX\n", 0)


def _scale_kernel_ir(target):
    """The SCALE_PTX kernel as LLVM IR, built through ``target``'s interface."""
    from llvmlite import ir

    i64, f32, ptr = ir.IntType(64), ir.FloatType(), ir.PointerType()
    module = ir.Module(name="rocarray_test_scale")
    module.triple = target.triple
    module.data_layout = target.data_layout
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i64, ptr, f32, ptr]), "rocarray_test_scale")
    target.mark_kernel(fn)
    n, x, a, y = fn.args
    entry, body, done = fn.append_basic_block("entry"), fn.append_basic_block("body"), fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    i = target.emit_global_thread_id(b)
    b.cbranch(b.icmp_unsigned("<", i, n), body, done)
    b.position_at_end(body)
    value = b.load(b.gep(x, [i], source_etype=f32), typ=f32)
    b.store(b.fmul(value, a), b.gep(y, [i], source_etype=f32))
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return module


@needs_cuda
@pytest.mark.parametrize("path", ["native", "bindings"])
def test_cuda_launch_a_kernel_from_the_nvptx_target(cuda_runtime, path):
    pytest.importorskip("llvmlite")
    from rocarray.runtime import native
    from rocarray.targets import target_for

    rt = cuda_runtime
    if native.unavailable_reason() is None:  # (CPython with the host compiler: always here)
        assert rt.native_launch_reason is None and rt._native_launch is not None
    elif path == "native":
        pytest.skip(f"native calls unavailable: {native.unavailable_reason()}")
    target = target_for(rt.target_name(0))
    image = target.compile(_scale_kernel_ir(target))
    function = rt.get_function(rt.load_module(0, image), "rocarray_test_scale")
    n = 1000
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    dx, dy = rt.alloc(0, x.nbytes), rt.alloc(0, y.nbytes)
    kept = rt._native_launch
    if path == "bindings":
        rt._native_launch = None  # (what ROCARRAY_LAUNCH=bindings gives)
    try:
        rt.copy_host_to_device(0, dx, x.ctypes.data, x.nbytes)
        rt.launch(function, (n + 127) // 128, 128, struct.pack("<QQf4xQ", n, dx, 0.5, dy))
        rt.copy_device_to_host(0, y.ctypes.data, dy, y.nbytes)
        np.testing.assert_array_equal(y, x * np.float32(0.5))
        # a launch the driver refuses (a grid of no blocks) names the call and the error
        with pytest.raises(GPUError, match=r"cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE") as info:
            rt.launch(function, 0, 128, struct.pack("<QQf4xQ", n, dx, 0.5, dy))
        assert info.value.call == "cuLaunchKernel"
    finally:
        rt._native_launch = kept
        rt.free(0, dx)
        rt.free(0, dy)


@needs_cuda
def test_cuda_errors_name_the_call_and_the_error(cuda_runtime):
    with pytest.raises(GPUError, match=r"cuModuleLoadData failed: CUDA_ERROR_\w+ \(.+\)") as info:
        cuda_runtime.load_module(0, b"this is not a kernel image")
    assert info.value.call == "cuModuleLoadData"
    module = cuda_runtime.load_module(0, SCALE_PTX)
    with pytest.raises(GPUError, match=r"cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"):
        cuda_runtime.get_function(module, "no_such_kernel")


@needs_cuda
def test_cuda_shares_the_primary_context(cuda_runtime):
    from cuda.bindings import driver

    cuda_runtime.set_device(0)
    err, current = driver.cuCtxGetCurrent()
    assert not err
    err, device = driver.cuDeviceGet(0)
    assert not err
    err, primary = driver.cuDevicePrimaryCtxRetain(device)
    assert not err
    try:
        assert int(current) == int(primary)
    finally:
        driver.cuDevicePrimaryCtxRelease(device)


@needs_hip
def test_hip_devices(hip_runtime):
    _check_devices(hip_runtime, "gfx")


@needs_hip
@pytest.mark.parametrize("n", COPY_SIZES)
def test_hip_alloc_and_copy_round_trip(hip_runtime, n):
    _round_trip(hip_runtime, n)


@needs_hip
def test_hip_streams_and_events(hip_runtime):
    _check_streams_and_events(hip_runtime)


@needs_hip
def test_hip_out_of_memory_is_a_memory_error(hip_runtime):
    _check_out_of_memory(hip_runtime, "hip")


@needs_hip
def test_hip_errors_name_the_call_and_the_error(hip_runtime):
    with pytest.raises(GPUError, match=r"hipModuleLoadData failed: hipError\w+ \(.+\)"):
        hip_runtime.load_module(0, b"this is not a kernel image")
