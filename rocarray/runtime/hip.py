"""The HIP hook table, over hip-python (``from hip import hip``): the vendor half of the HIP runtime.

hip-python is imported on first use (``init``), and loads ``libamdhip64.so`` on its first
call, so this module imports anywhere.  The hooks both vendors share are in
``rocarray/runtime/hooks.py``; those below are HIP's own, named and meant as CUDA's are.
"""

from __future__ import annotations

from rocarray.runtime.gpu import GPURuntime
from rocarray.runtime.hooks import DriverHooks, GPUError, c_function_address, driver_error


def _text(value) -> str:
    # hip-python returns C strings as CStr objects (str() gives the buffer, NULs included),
    # struct fields as str, and some versions bytes.
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode(errors="replace")
    else:
        value = str(value)
    return value.split("\0", 1)[0]


class HipHooks(DriverHooks):
    """The vendor half of the HIP runtime (the contract: docs/architecture.md)."""

    kind = "hip"
    launch_name = "hipModuleLaunchKernel"
    BINDINGS = "hip.hip"
    INSTALL_HINT = (
        "rocarray's HIP runtime needs AMD's HIP Python bindings (the hip-python package, "
        "matching your ROCm release); install them with: pip install rocarray[rocm]"
    )
    DRIVER = "HIP runtime"

    CONSTANTS = {
        "launch_param_buffer_pointer": "HIP_LAUNCH_PARAM_BUFFER_POINTER",
        "launch_param_buffer_size": "HIP_LAUNCH_PARAM_BUFFER_SIZE",
        "launch_param_end": "HIP_LAUNCH_PARAM_END",
        "_out_of_memory": "hipError_t.hipErrorOutOfMemory",
        "_no_timing": "hipEventDisableTiming",
        "_peer_already_enabled": "hipError_t.hipErrorPeerAccessAlreadyEnabled",
        "_host_mapped": "hipHostMallocMapped",
        "_not_ready": "hipError_t.hipErrorNotReady",
    }
    CALLS = {
        "init": "hipInit",
        "device_count": "hipGetDeviceCount",
        "device_name": "hipDeviceGetName",
        "properties": "hipGetDeviceProperties",
        "attribute": "hipDeviceGetAttribute",
        "set_device": "hipSetDevice",
        "mem_alloc": "hipMalloc",
        "mem_free": "hipFree",
        "mem_info": "hipMemGetInfo",
        "host_alloc": "hipHostMalloc",
        "host_free": "hipHostFree",
        "host_device_pointer": "hipHostGetDevicePointer",
        "memcpy_htod": "hipMemcpyHtoDAsync",
        "memcpy_dtoh": "hipMemcpyDtoHAsync",
        "memcpy_dtod": "hipMemcpyDtoDAsync",
        "can_access_peer": "hipDeviceCanAccessPeer",
        "enable_peer_access": "hipDeviceEnablePeerAccess",
        "memcpy_peer": "hipMemcpyPeerAsync",
        "module_load_data": "hipModuleLoadData",
        "driver_version": "hipDriverGetVersion",
        "resident_blocks": "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
        "module_unload": "hipModuleUnload",
        "module_get_function": "hipModuleGetFunction",
        "stream_create": "hipStreamCreateWithFlags",
        "stream_destroy": "hipStreamDestroy",
        "stream_synchronize": "hipStreamSynchronize",
        "stream_query": "hipStreamQuery",
        "stream_wait_event": "hipStreamWaitEvent",
        "event_create": "hipEventCreateWithFlags",
        "event_destroy": "hipEventDestroy",
        "event_record": "hipEventRecord",
        "event_synchronize": "hipEventSynchronize",
        "event_elapsed_ms": "hipEventElapsedTime",
        "ctx_synchronize": "hipDeviceSynchronize",
    }

    def __init__(self):
        super().__init__()
        self.launch_param_buffer_pointer = 1
        self.launch_param_buffer_size = 2
        self.launch_param_end = 3

    # -- devices -------------------------------------------------------------------------

    def device_name(self, index: int) -> str:
        return _text(self._call("device_name", 256, index))

    def arch(self, index: int) -> str:
        properties = self._call("properties", index)
        # "gfx942:sramecc+:xnack-": the target features after the name are not part of it.
        return _text(properties.gcnArchName).split(":", 1)[0]

    def _attribute(self, index: int, name: str) -> int:
        return self._call("attribute", getattr(self._lib.hipDeviceAttribute_t, name), index)

    def compute_unit_count(self, index: int) -> int:
        return self._attribute(index, "hipDeviceAttributeMultiprocessorCount")

    def max_threads_per_compute_unit(self, index: int) -> int:
        return self._attribute(index, "hipDeviceAttributeMaxThreadsPerMultiProcessor")

    def set_device(self, index: int) -> None:
        self._call("set_device", index)

    # -- code ----------------------------------------------------------------------------

    def module_load_data(self, image: bytes, jit_opt: int | None = None):
        # code objects are machine code already: nothing for a JIT to optimise
        return self._call("module_load_data", image)

    #: ROCm loads AMDGPU code objects, which are machine code already: no PTX here
    assembles_ptx = False

    def link_ptx(self, image: bytes, jit_opt: int) -> bytes:
        raise GPUError("the HIP runtime loads AMDGPU code objects; it has no PTX to assemble",
                       "link_ptx")

    def launch(self, function, grid: int, block: int, shared: int, stream, extra: int) -> None:
        (err,) = self._launch_kernel(function, grid, 1, 1, block, 1, 1, shared, stream, None, extra)
        if err:
            raise driver_error(self, "hipModuleLaunchKernel", err)

    @staticmethod
    def launch_entry() -> int:
        """The HIP runtime's ``hipModuleLaunchKernel`` (``cuLaunchKernel``'s signature)."""
        return c_function_address(("libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"),
                                   "hipModuleLaunchKernel")

    # -- errors --------------------------------------------------------------------------

    def error_name(self, code: int) -> str:
        hip = self._lib
        result = hip.hipError_t(code)
        _, name = hip.hipGetErrorName(result)
        name = _text(name) if name is not None else result.name
        _, text = hip.hipGetErrorString(result)
        return f"{name} ({_text(text)})" if text is not None else name


class HIPRuntime(GPURuntime):
    """The HIP runtime: :class:`~rocarray.runtime.gpu.GPURuntime` over :class:`HipHooks`.

    Create one per process (``rocarray._device.get_runtime("hip")`` does); HIP loads on
    first use.
    """

    def __init__(self):
        super().__init__(HipHooks())
