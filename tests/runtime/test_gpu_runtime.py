"""Tests of the GPU runtime (rocarray/runtime/gpu.py) and its CUDA and HIP hook tables,
against a fake hook table (tests/runtime/_fake_hooks.py); test_gpu_hardware.py drives a
real GPU."""

from __future__ import annotations

import ctypes
import inspect
import struct
import threading

import numpy as np
import pytest

from _fake_hooks import OUT_OF_MEMORY, FakeHooks, HostBackedHooks, fake_cubin
from rocarray.runtime import gpu
from rocarray.runtime.base import Runtime, RuntimeError_
from rocarray._device import get_runtime
from rocarray.runtime.cuda import CudaHooks, CUDARuntime
from rocarray.runtime.gpu import GPUError, GPURuntime
from rocarray.runtime.staging import host_copy
from rocarray.runtime.hip import HipHooks, HIPRuntime


def public_methods(cls):  # (inherited ones too: the tables share their common hooks)
    return {name for name in dir(cls) if callable(getattr(cls, name)) and not name.startswith("_")}


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


@pytest.mark.parametrize("table", [CudaHooks, HipHooks])
def test_vendor_stream_query_tells_finished_at_work_and_failed(table):
    """``stream_query``: the bindings' success is True, the vendor's "not ready" False,
    any other code the driver's error naming the call."""
    import types

    hooks = table()
    name = table.CALLS["stream_query"]
    answers = [(0,), (hooks._not_ready,), (700,)]
    seen = []
    hooks._lib = types.SimpleNamespace(**{name: lambda stream: (seen.append(stream), answers.pop(0))[1]})
    hooks.error_name = lambda code: f"error {code}"
    assert hooks.stream_query("s") is True
    assert hooks.stream_query("s") is False
    with pytest.raises(GPUError, match=f"{name} failed: error 700"):
        hooks.stream_query(None)
    assert seen == ["s", "s", None] and hooks._not_ready == 600


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


def test_the_runtime_says_which_launch_path_it_took():
    runtime = GPURuntime(FakeHooks(native=True))
    runtime.device_count()
    assert runtime._native and runtime.native_launch_reason is None
    # a table with no C launch function: the hook's launch is the fallback
    api = FakeHooks()
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(0, b"image"), "k")
    runtime.launch(function, 2, 32, b"args")
    assert not runtime._native
    assert runtime.native_launch_reason == "the FAKE hook table gives no C launch function"
    assert function.launch_handle is function.handle
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
    assert runtime._native == native


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
    assert runtime._native == native


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
    # outputs that are slices of the one block (rocarray.random's): each (word, j) of
    # ``more_words`` gets the pointer plus j * step
    sliced = runtime.parameter_area(struct.pack("<5q", 9, 0, 0, 8, 0))
    base = runtime.launch_into_new(function, 1, 1, sliced, 1, 3000, ((2, 1), (4, 2)), 1000)
    assert struct.unpack("<5Q", api.launches[-1][5]) == (9, base, base + 1000, 8, base + 2000)
    assert api.callback_errors == []
    assert runtime._native == native


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
    assert runtime._native == native


@BOTH_LAUNCH_PATHS
def test_out_of_memory_launches_and_copies_free_cached_blocks_and_retry(native):
    """A launch or device copy that runs out of device memory (a kernel needing more local
    memory than the driver holds, a copy the driver stages) runs once more after the
    pool gives its cached blocks back; out of memory again is a MemoryError naming the
    call, with the pool's sizes; other errors are raised as they were."""
    api = FakeHooks(native=native)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(0, b"image"), "k")
    pool = runtime.memory_pool(0)

    def cache(nbytes):
        runtime.free(0, runtime.alloc(0, nbytes))
        assert pool.cached_bytes() >= nbytes

    kept = runtime.alloc(0, 1 << 20)
    cache(1 << 24)
    api.fail_launch_code, api.fail_launches = OUT_OF_MEMORY, 2  # (the retry after ``_use`` too)
    frees = api.free_calls
    runtime.launch(function, 1, 1, b"a")
    assert api.launches[-1][5] == b"a" and api.fail_launches == 0
    assert pool.cached_bytes() == 0 and api.free_calls > frees
    cache(1 << 24)
    api.fail_launches = 3
    with pytest.raises(MemoryError, match=r"fakeLaunch failed: FAKE_ERROR_OUT_OF_MEMORY.* on fake:0, again after "
                                          r"the memory pool gave back 16777216 cached bytes \(1048576 bytes in use\)"
                       ) as info:
        runtime.launch(function, 1, 1, b"b")
    assert isinstance(info.value, GPUError) and info.value.call == "fakeLaunch"
    # the warm path's launch gives its new block back when the launch fails for good
    area = runtime.parameter_area(struct.pack("<4q", 1, 2, 3, 0))
    api.fail_launches = 3
    with pytest.raises(MemoryError):
        runtime.launch_into_new(function, 1, 1, area, 3, 4000)
    assert pool.used_bytes() == 1 << 20
    # another error is not retried after the pool's blocks go back
    cache(1 << 22)
    api.fail_launch_code, api.fail_launches = 1, 2
    with pytest.raises(GPUError, match="fakeLaunch failed: FAKE_ERROR_1") as info:
        runtime.launch(function, 1, 1, b"c")
    assert not isinstance(info.value, MemoryError) and pool.cached_bytes() >= 1 << 22
    # device-to-device copies
    api.fail_copies = 1
    runtime.copy_device_to_device(0, kept, kept + 64, 64)
    assert api.calls[-1][0] == "dtod" and pool.cached_bytes() == 0
    api.fail_copies = 2
    with pytest.raises(MemoryError, match="fakeMemcpyDtoD failed: .*again after the memory pool gave back 0 cached"):
        runtime.copy_device_to_device(0, kept, kept + 64, 64)
    assert api.callback_errors == []


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
    assert runtime._native == native


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
    assert runtime._native == native


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
        host_copy(dst.ctypes.data, src.ctypes.data, nbytes)
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


@pytest.mark.parametrize("kind,dtype,extra", [
    ("uniform", "float32", (0.5, 2.0)), ("uniform", "float64", (-1.0, 3.0)), ("normal", "float32", (0.0, 1.0)),
    ("exponential", "float64", (2.5,)), ("integers_one", "int8", (3, 250, 6)),
    ("integers_wide_one", "uint64", (2**63, 2**63 + 3, 2**63 - 9))])
def test_random_blocked_launcher_writes_what_the_packed_launch_packs(kind, dtype, extra):
    # rocarray.random's GPU warm path (BlockedLauncher: a parameter area, one struct write of
    # the scalars, the output slices' and read-back inputs' words by launch_into_new) gives
    # the driver the bytes that the plan's packed launch (_Plan.launch_flat) would
    from types import SimpleNamespace
    import rocarray as ra
    from rocarray._params import SCALAR_CONVERTERS
    from rocarray.random import _kernels as RK

    api = FakeHooks(devices=2)
    runtime = GPURuntime(api)
    function = runtime.get_function(runtime.load_module(1, b"image"), "k")
    dt = np.dtype(dtype)
    extra_types = (float,) * len(extra) if dt.kind == "f" else (int,) * len(extra)
    launcher = RK.BlockedLauncher(kind, dt, extra_types, ra.Device("cpu"))
    plan = launcher.plan
    assert launcher.gpu is False  # (the host takes the packed launch)
    launcher.kernel = SimpleNamespace(
        code=SimpleNamespace(first_calls=False, max_grid=1000, per_element=False, function=function),
        block=256, round_elements=6144, runtime=runtime, packer=plan.kernel.packer)
    launcher.gpu, launcher.pool, launcher.launch_new = True, runtime.memory_pool(1), runtime.launch_into_new
    for m in (5, 3 * 10**7):
        stream = (0x1234_5678_9ABC_DEF0, 2**64 - 3, 17)
        out = launcher(m, stream, extra)
        ptr = out._buf.ptr
        assert out.shape == (launcher.per_block * m,) and out.dtype == dt
        values = plan._template.copy()
        values[1] = m
        fields = [f for t, v in zip(plan.scalar_types, stream + extra) for f in SCALAR_CONVERTERS[t](v, "k")]
        for pos, f in zip(plan.positions, fields):
            values[pos] = f
        step = m * dt.itemsize
        for j, pos in enumerate(plan.out_positions):
            values[pos] = ptr + j * step
        for j, pos in plan.read_back:
            values[pos] = ptr + j * step
        (_, grid, block, _, _, data, dev) = api.launches[-1]
        assert data == plan.kernel.packer.pack(m, *values)
        assert (block, dev) == (256, 1)
        assert grid == (-(-m // 256) if m < 1000 * 256 else 1000 * -(-m // (1000 * 6144)))
