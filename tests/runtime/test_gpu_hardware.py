"""Tests of the CUDA and HIP runtimes on a real GPU; each skips, naming the hardware it
needs, where there is none."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from rocarray._device import get_runtime
from rocarray.runtime.cuda import CudaHooks
from rocarray.runtime.gpu import GPUError, GPURuntime


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


def _check_mapped_words(runtime, write):
    """A word of mapped host memory that the device writes (``write(runtime, address,
    value)`` queues that on the current stream and returns the int32 it stores) is read
    from host memory after the wait on that stream alone; lent zeroed again after it was
    set."""
    words = runtime.mapped_words(0)
    stream = runtime.stream_create(0)
    with stream:
        for value in (7, 0):
            view, k, address = word = words.acquire()
            assert view[k] == 0
            expected = write(runtime, address, value)
            runtime.synchronize_current(0)
            assert view[k] == expected
            words.release(word)
    assert words.lent == 0
    stream.close()


def _copy_word(runtime, address, value):
    host = np.array([value], dtype=np.int32)
    ptr = runtime.alloc(0, 4)
    runtime.copy_host_to_device(0, ptr, host.ctypes.data, 4)
    runtime.copy_device_to_device(0, address, ptr, 4)  # (on the current stream: a device write)
    runtime.free(0, ptr)  # (the pool keeps it for this stream until the copy is done)
    return value


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
def test_cuda_kernel_writes_a_mapped_word_the_host_reads(cuda_runtime):
    rt = cuda_runtime
    function = rt.get_function(rt.load_module(0, SCALE_PTX), "rocarray_test_scale")
    x = rt.alloc(0, 4)
    one = np.ones(1, dtype=np.float32)
    rt.copy_host_to_device(0, x, one.ctypes.data, 4)

    def write(runtime, address, value):  # y[0] = value * x[0] (1.0), stored by the kernel
        runtime.launch(function, 1, 32, struct.pack("<QQf4xQ", 1, x, float(value), address))
        return int(np.float32(value).view(np.int32))

    try:
        _check_mapped_words(rt, write)
    finally:
        rt.free(0, x)


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

    if native.unavailable_reason() is None:  # (CPython with the host compiler: always here)
        assert cuda_runtime.native_launch_reason is None and cuda_runtime._native
    elif path == "native":
        pytest.skip(f"native calls unavailable: {native.unavailable_reason()}")
    if path == "native":
        rt = cuda_runtime
    else:  # the fallback: a table with no C launch function launches through the bindings
        hooks = CudaHooks()
        hooks.launch_entry = lambda: 0
        rt = GPURuntime(hooks)
        assert not rt._native
    target = target_for(rt.target_name(0))
    image = target.compile(_scale_kernel_ir(target))
    function = rt.get_function(rt.load_module(0, image), "rocarray_test_scale")
    n = 1000
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    dx, dy = rt.alloc(0, x.nbytes), rt.alloc(0, y.nbytes)
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
def test_hip_mapped_word_written_by_the_device_is_read_on_the_host(hip_runtime):
    _check_mapped_words(hip_runtime, _copy_word)


@needs_hip
def test_hip_errors_name_the_call_and_the_error(hip_runtime):
    with pytest.raises(GPUError, match=r"hipModuleLoadData failed: hipError\w+ \(.+\)"):
        hip_runtime.load_module(0, b"this is not a kernel image")
