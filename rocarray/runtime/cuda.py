"""The CUDA hook table: one small method per driver call, over ``cuda.bindings.driver``.

The table is described in ``rocarray/runtime/gpu.py``, where all runtime logic lives.  The
bindings are imported on first use (``init``), so this module imports anywhere.  Each method
passes the bindings' own handle objects (``CUfunction``, ``CUstream``, ...) straight back to
them: the bindings check ``isinstance`` first, which is their cheapest path.
"""

from __future__ import annotations

import ctypes
import os

from rocarray.runtime.gpu import GPUError, GPURuntime, c_function_address, driver_error

_INSTALL_HINT = (
    "rocarray's CUDA runtime needs NVIDIA's CUDA driver API bindings (the cuda-bindings "
    "package); install them with: pip install rocarray[cuda]"
)


class CudaHooks:
    """The vendor half of the CUDA runtime; see ``rocarray.runtime.gpu`` for the contract."""

    kind = "cuda"
    launch_name = "cuLaunchKernel"

    def __init__(self):
        self._driver = None
        self._contexts: dict[int, object] = {}
        self._launch_kernel = None
        self.launch_param_buffer_pointer = 1
        self.launch_param_buffer_size = 2
        self.launch_param_end = 0
        self._out_of_memory = 2  # CUDA_ERROR_OUT_OF_MEMORY; read from the bindings in init()

    def init(self) -> None:
        try:
            from cuda.bindings import driver
        except ImportError as e:
            raise ImportError(_INSTALL_HINT) from e
        self._driver = driver
        try:
            (err,) = driver.cuInit(0)
        except Exception as e:  # the bindings could not find or load libcuda
            raise GPUError(f"cuInit failed: the NVIDIA driver could not be loaded ({e})", "cuInit") from e
        if err:
            raise driver_error(self, "cuInit", err)
        # (the runtime launches through ``launch_entry`` where it can, else through this:
        # the bindings' cuLaunchKernel measured 5.8 us per call on the H200 host against
        # 7.6 through ctypes, whose eleven arguments each go through libffi)
        self._launch_kernel = driver.cuLaunchKernel
        self.launch_param_buffer_pointer = int(driver.CU_LAUNCH_PARAM_BUFFER_POINTER)
        self.launch_param_buffer_size = int(driver.CU_LAUNCH_PARAM_BUFFER_SIZE)
        self.launch_param_end = int(driver.CU_LAUNCH_PARAM_END)
        self._out_of_memory = int(driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY)

    # -- devices -------------------------------------------------------------------------

    def device_count(self) -> int:
        err, count = self._driver.cuDeviceGetCount()
        if err:
            raise driver_error(self, "cuDeviceGetCount", err)
        return count

    def _device(self, index: int):
        err, device = self._driver.cuDeviceGet(index)
        if err:
            raise driver_error(self, "cuDeviceGet", err)
        return device

    def device_name(self, index: int) -> str:
        err, name = self._driver.cuDeviceGetName(256, self._device(index))
        if err:
            raise driver_error(self, "cuDeviceGetName", err)
        return name.split(b"\0", 1)[0].decode(errors="replace")

    def _attribute(self, index: int, name: str) -> int:
        d = self._driver
        err, value = d.cuDeviceGetAttribute(getattr(d.CUdevice_attribute, name), self._device(index))
        if err:
            raise driver_error(self, "cuDeviceGetAttribute", err)
        return value

    def arch(self, index: int) -> str:
        major = self._attribute(index, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
        minor = self._attribute(index, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
        return f"sm_{major}{minor}"

    def compute_unit_count(self, index: int) -> int:
        return self._attribute(index, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")

    def max_threads_per_compute_unit(self, index: int) -> int:
        return self._attribute(index, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR")

    def set_device(self, index: int) -> None:
        context = self._contexts.get(index)
        if context is None:
            # The primary context is the one the CUDA runtime (CuPy, PyTorch) uses, so
            # pointers and streams pass freely between them and rocarray.  Retained once,
            # for the life of the process.
            err, context = self._driver.cuDevicePrimaryCtxRetain(self._device(index))
            if err:
                raise driver_error(self, "cuDevicePrimaryCtxRetain", err)
            context = self._contexts.setdefault(index, context)
        (err,) = self._driver.cuCtxSetCurrent(context)
        if err:
            raise driver_error(self, "cuCtxSetCurrent", err)

    # -- memory --------------------------------------------------------------------------

    def mem_alloc(self, nbytes: int) -> int:
        err, ptr = self._driver.cuMemAlloc(nbytes)
        if err:
            raise driver_error(self, "cuMemAlloc", err)
        return int(ptr)

    def mem_free(self, ptr: int) -> None:
        (err,) = self._driver.cuMemFree(ptr)
        if err:
            raise driver_error(self, "cuMemFree", err)

    def mem_info(self) -> tuple[int, int]:
        err, free, total = self._driver.cuMemGetInfo()
        if err:
            raise driver_error(self, "cuMemGetInfo", err)
        return int(free), int(total)

    def host_alloc(self, nbytes: int) -> int:
        err, ptr = self._driver.cuMemHostAlloc(nbytes, 0)
        if err:
            raise driver_error(self, "cuMemHostAlloc", err)
        return int(ptr)

    def host_free(self, ptr: int) -> None:
        (err,) = self._driver.cuMemFreeHost(ptr)
        if err:
            raise driver_error(self, "cuMemFreeHost", err)

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream) -> None:
        (err,) = self._driver.cuMemcpyHtoDAsync(dst, src, nbytes, stream)
        if err:
            raise driver_error(self, "cuMemcpyHtoDAsync", err)

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream) -> None:
        (err,) = self._driver.cuMemcpyDtoHAsync(dst, src, nbytes, stream)
        if err:
            raise driver_error(self, "cuMemcpyDtoHAsync", err)

    def memcpy_dtod(self, dst: int, src: int, nbytes: int, stream) -> None:
        (err,) = self._driver.cuMemcpyDtoDAsync(dst, src, nbytes, stream)
        if err:
            raise driver_error(self, "cuMemcpyDtoDAsync", err)

    # -- code ----------------------------------------------------------------------------

    def module_load_data(self, image: bytes, jit_opt: int | None = None):
        """Load a cubin, fatbin or PTX image; ``jit_opt`` is the optimisation level the
        driver's JIT uses for PTX (0-4; None: the driver's default, 4).  The quick tier's
        PTX is assembled at 0: ~20 % less JIT time on the first call of a signature."""
        if jit_opt is None or image[:4] == b"\x7fELF":
            err, module = self._driver.cuModuleLoadData(image)
            call = "cuModuleLoadData"
        else:
            option = self._driver.CUjit_option.CU_JIT_OPTIMIZATION_LEVEL
            err, module = self._driver.cuModuleLoadDataEx(image, 1, [option], [int(jit_opt)])
            call = "cuModuleLoadDataEx"
        if err:
            raise driver_error(self, call, err)
        return module

    #: ``link_ptx`` turns PTX into a cubin (the runtime keeps those on disk)
    assembles_ptx = True

    def link_ptx(self, image: bytes, jit_opt: int) -> bytes:
        """The cubin the driver's JIT makes of PTX ``image`` at level ``jit_opt``, through
        its linker (``cuLink*``: the same JIT as ``cuModuleLoadDataEx``, but the machine
        code comes back)."""
        drv = self._driver
        option = drv.CUjit_option.CU_JIT_OPTIMIZATION_LEVEL
        err, state = drv.cuLinkCreate(1, [option], [int(jit_opt)])
        if err:
            raise driver_error(self, "cuLinkCreate", err)
        try:
            (err,) = drv.cuLinkAddData(state, drv.CUjitInputType.CU_JIT_INPUT_PTX, image, len(image),
                                       b"rocarray", 0, [], [])
            if err:
                raise driver_error(self, "cuLinkAddData", err)
            err, cubin, size = drv.cuLinkComplete(state)
            if err:
                raise driver_error(self, "cuLinkComplete", err)
            return ctypes.string_at(int(cubin), int(size))  # (it lives until cuLinkDestroy)
        finally:
            drv.cuLinkDestroy(state)

    def driver_version(self) -> int:
        err, version = self._driver.cuDriverGetVersion()
        if err:
            raise driver_error(self, "cuDriverGetVersion", err)
        return int(version)

    def resident_blocks(self, function, block: int) -> int:
        """Blocks of ``block`` threads of ``function`` one multiprocessor holds at once
        (its registers and shared memory counted)."""
        err, blocks = self._driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, block, 0)
        if err:
            raise driver_error(self, "cuOccupancyMaxActiveBlocksPerMultiprocessor", err)
        return int(blocks)

    def module_unload(self, module) -> None:
        (err,) = self._driver.cuModuleUnload(module)
        if err:
            raise driver_error(self, "cuModuleUnload", err)

    def module_get_function(self, module, name: str):
        err, function = self._driver.cuModuleGetFunction(module, name.encode())
        if err:
            raise driver_error(self, "cuModuleGetFunction", err)
        return function

    def launch(self, function, grid: int, block: int, shared: int, stream, extra: int) -> None:
        (err,) = self._launch_kernel(function, grid, 1, 1, block, 1, 1, shared,
                                     0 if stream is None else stream, 0, extra)
        if err:
            raise driver_error(self, "cuLaunchKernel", err)

    @staticmethod
    def launch_entry() -> int:
        """The driver's ``cuLaunchKernel`` (``cuLaunchKernel_ptsz`` when cuda-bindings
        were told to use per-thread default streams, so a launch on stream 0 means what
        the bindings' does)."""
        per_thread = os.environ.get("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "0") not in ("", "0")
        name = "cuLaunchKernel_ptsz" if per_thread else "cuLaunchKernel"
        return c_function_address(("libcuda.so.1", "libcuda.so", "nvcuda.dll"), name)

    # -- streams and events --------------------------------------------------------------

    def stream_create(self):
        err, stream = self._driver.cuStreamCreate(0)
        if err:
            raise driver_error(self, "cuStreamCreate", err)
        return stream

    def stream_destroy(self, stream) -> None:
        (err,) = self._driver.cuStreamDestroy(stream)
        if err:
            raise driver_error(self, "cuStreamDestroy", err)

    def stream_synchronize(self, stream) -> None:
        (err,) = self._driver.cuStreamSynchronize(stream)
        if err:
            raise driver_error(self, "cuStreamSynchronize", err)

    def stream_wait_event(self, stream, event) -> None:
        (err,) = self._driver.cuStreamWaitEvent(stream, event, 0)
        if err:
            raise driver_error(self, "cuStreamWaitEvent", err)

    def event_create(self, timing: bool = True):
        d = self._driver
        flags = 0 if timing else int(d.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        err, event = d.cuEventCreate(flags)
        if err:
            raise driver_error(self, "cuEventCreate", err)
        return event

    def event_destroy(self, event) -> None:
        (err,) = self._driver.cuEventDestroy(event)
        if err:
            raise driver_error(self, "cuEventDestroy", err)

    def event_record(self, event, stream) -> None:
        (err,) = self._driver.cuEventRecord(event, stream)
        if err:
            raise driver_error(self, "cuEventRecord", err)

    def event_synchronize(self, event) -> None:
        (err,) = self._driver.cuEventSynchronize(event)
        if err:
            raise driver_error(self, "cuEventSynchronize", err)

    def event_elapsed_ms(self, start, end) -> float:
        err, ms = self._driver.cuEventElapsedTime(start, end)
        if err:
            raise driver_error(self, "cuEventElapsedTime", err)
        return float(ms)

    def ctx_synchronize(self) -> None:
        (err,) = self._driver.cuCtxSynchronize()
        if err:
            raise driver_error(self, "cuCtxSynchronize", err)

    # -- errors --------------------------------------------------------------------------

    def error_name(self, code: int) -> str:
        d = self._driver
        result = d.CUresult(code)
        err, name = d.cuGetErrorName(result)
        name = name.decode() if not err and name else result.name
        err, text = d.cuGetErrorString(result)
        return f"{name} ({text.decode()})" if not err and text else name

    def is_out_of_memory(self, code: int) -> bool:
        return code == self._out_of_memory


class CUDARuntime(GPURuntime):
    """The CUDA runtime: :class:`~rocarray.runtime.gpu.GPURuntime` over :class:`CudaHooks`.

    Create one per process (``rocarray._device.get_runtime("cuda")`` does); the driver
    loads on first use.
    """

    def __init__(self):
        super().__init__(CudaHooks())
