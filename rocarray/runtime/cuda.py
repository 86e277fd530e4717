"""The CUDA hook table, over ``cuda.bindings.driver``: the vendor half of the CUDA runtime.

The bindings are imported on first use (``init``), so this module imports anywhere.  The
hooks both vendors share are in ``rocarray/runtime/hooks.py``; those below are CUDA's own.
"""

from __future__ import annotations

import ctypes
import os

from rocarray.runtime.gpu import GPURuntime
from rocarray.runtime.hooks import DriverHooks, GPUError, c_function_address, driver_error


class CudaHooks(DriverHooks):
    """The vendor half of the CUDA runtime (the contract: docs/architecture.md)."""

    kind = "cuda"
    launch_name = "cuLaunchKernel"
    BINDINGS = "cuda.bindings.driver"
    INSTALL_HINT = (
        "rocarray's CUDA runtime needs NVIDIA's CUDA driver API bindings (the cuda-bindings "
        "package); install them with: pip install rocarray[cuda]"
    )
    DRIVER = "NVIDIA driver"

    CONSTANTS = {
        "launch_param_buffer_pointer": "CU_LAUNCH_PARAM_BUFFER_POINTER",
        "launch_param_buffer_size": "CU_LAUNCH_PARAM_BUFFER_SIZE",
        "launch_param_end": "CU_LAUNCH_PARAM_END",
        "_out_of_memory": "CUresult.CUDA_ERROR_OUT_OF_MEMORY",
        "_no_timing": "CUevent_flags.CU_EVENT_DISABLE_TIMING",
        "_peer_already_enabled": "CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
        "_host_mapped": "CU_MEMHOSTALLOC_DEVICEMAP",
        "_not_ready": "CUresult.CUDA_ERROR_NOT_READY",
    }
    CALLS = {
        "init": "cuInit",
        "device_count": "cuDeviceGetCount",
        "device": "cuDeviceGet",
        "device_name": "cuDeviceGetName",
        "attribute": "cuDeviceGetAttribute",
        "retain_context": "cuDevicePrimaryCtxRetain",
        "set_context": "cuCtxSetCurrent",
        "mem_alloc": "cuMemAlloc",
        "mem_free": "cuMemFree",
        "mem_info": "cuMemGetInfo",
        "host_alloc": "cuMemHostAlloc",
        "host_free": "cuMemFreeHost",
        "host_device_pointer": "cuMemHostGetDevicePointer",
        "memcpy_htod": "cuMemcpyHtoDAsync",
        "memcpy_dtoh": "cuMemcpyDtoHAsync",
        "memcpy_dtod": "cuMemcpyDtoDAsync",
        "can_access_peer": "cuDeviceCanAccessPeer",
        "enable_peer_access": "cuCtxEnablePeerAccess",
        "memcpy_peer": "cuMemcpyPeerAsync",
        "driver_version": "cuDriverGetVersion",
        "resident_blocks": "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        "module_unload": "cuModuleUnload",
        "module_get_function": "cuModuleGetFunction",
        "stream_create": "cuStreamCreate",
        "stream_destroy": "cuStreamDestroy",
        "stream_synchronize": "cuStreamSynchronize",
        "stream_query": "cuStreamQuery",
        "stream_wait_event": "cuStreamWaitEvent",
        "event_create": "cuEventCreate",
        "event_destroy": "cuEventDestroy",
        "event_record": "cuEventRecord",
        "event_synchronize": "cuEventSynchronize",
        "event_elapsed_ms": "cuEventElapsedTime",
        "ctx_synchronize": "cuCtxSynchronize",
    }

    def __init__(self):
        super().__init__()
        self._contexts: dict[int, object] = {}
        self.launch_param_buffer_pointer = 1
        self.launch_param_buffer_size = 2
        self.launch_param_end = 0

    # -- devices -------------------------------------------------------------------------

    def device_name(self, index: int) -> str:
        name = self._call("device_name", 256, self._call("device", index))
        return name.split(b"\0", 1)[0].decode(errors="replace")

    def _attribute(self, index: int, name: str) -> int:
        return self._call("attribute", getattr(self._lib.CUdevice_attribute, name), self._call("device", index))

    def arch(self, index: int) -> str:
        major = self._attribute(index, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
        minor = self._attribute(index, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
        return f"sm_{major}{minor}"

    def compute_unit_count(self, index: int) -> int:
        return self._attribute(index, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")

    def max_threads_per_compute_unit(self, index: int) -> int:
        return self._attribute(index, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR")

    def _context(self, index: int):
        context = self._contexts.get(index)
        if context is None:
            # The primary context is the one the CUDA runtime (CuPy, PyTorch) uses, so
            # pointers and streams pass freely between them and rocarray.  Retained once,
            # for the life of the process.
            context = self._call("retain_context", self._call("device", index))
            context = self._contexts.setdefault(index, context)
        return context

    def set_device(self, index: int) -> None:
        self._call("set_context", self._context(index))

    def _device_handle(self, index: int):
        return self._call("device", index)

    # peer access and peer copies name the device's (primary) context
    _peer_handle = _context

    # -- code ----------------------------------------------------------------------------

    def module_load_data(self, image: bytes, jit_opt: int | None = None):
        """Load a cubin, fatbin or PTX image; ``jit_opt`` is the optimisation level the
        driver's JIT uses for PTX (0-4; None: the driver's default, 4): the quick tier
        asks for less, to spend less JIT time on a signature's first call."""
        if jit_opt is None or image[:4] == b"\x7fELF":
            err, module = self._lib.cuModuleLoadData(image)
            call = "cuModuleLoadData"
        else:
            option = self._lib.CUjit_option.CU_JIT_OPTIMIZATION_LEVEL
            err, module = self._lib.cuModuleLoadDataEx(image, 1, [option], [int(jit_opt)])
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
        drv = self._lib
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

    # -- errors --------------------------------------------------------------------------

    def error_name(self, code: int) -> str:
        d = self._lib
        result = d.CUresult(code)
        err, name = d.cuGetErrorName(result)
        name = name.decode() if not err and name else result.name
        err, text = d.cuGetErrorString(result)
        return f"{name} ({text.decode()})" if not err and text else name


class CUDARuntime(GPURuntime):
    """The CUDA runtime: :class:`~rocarray.runtime.gpu.GPURuntime` over :class:`CudaHooks`.

    Create one per process (``rocarray._device.get_runtime("cuda")`` does); the driver
    loads on first use.
    """

    def __init__(self):
        super().__init__(CudaHooks())
