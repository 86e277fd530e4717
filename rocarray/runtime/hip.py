"""The HIP hook table: one small method per HIP call, over hip-python (``from hip import hip``).

The table is described in ``rocarray/runtime/gpu.py``, where all runtime logic lives; the
method names and meanings match ``rocarray/runtime/cuda.py`` one for one.  hip-python is
imported on first use (``init``), and loads ``libamdhip64.so`` on its first call, so this
module imports anywhere.  Handles are hip-python's own objects (``ihipStream_t``, ...);
``int(handle)`` is the raw address.
"""

from __future__ import annotations

from rocarray.runtime.gpu import GPUError, GPURuntime, c_function_address, driver_error

_INSTALL_HINT = (
    "rocarray's HIP runtime needs AMD's HIP Python bindings (the hip-python package, "
    "matching your ROCm release); install them with: pip install rocarray[rocm]"
)


def _text(value) -> str:
    # hip-python returns C strings as CStr objects (str() gives the buffer, NULs included),
    # struct fields as str, and some versions bytes.
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode(errors="replace")
    else:
        value = str(value)
    return value.split("\0", 1)[0]


class HipHooks:
    """The vendor half of the HIP runtime; see ``rocarray.runtime.gpu`` for the contract."""

    kind = "hip"
    launch_name = "hipModuleLaunchKernel"

    def __init__(self):
        self._hip = None
        self._launch_kernel = None
        self.launch_param_buffer_pointer = 1
        self.launch_param_buffer_size = 2
        self.launch_param_end = 3
        self._out_of_memory = 2  # hipErrorOutOfMemory; read from the bindings in init()

    def init(self) -> None:
        try:
            from hip import hip
        except ImportError as e:
            raise ImportError(_INSTALL_HINT) from e
        self._hip = hip
        try:
            (err,) = hip.hipInit(0)
        except Exception as e:  # hip-python could not dlopen libamdhip64.so
            raise GPUError(f"hipInit failed: the HIP runtime could not be loaded ({e})", "hipInit") from e
        if err:
            raise driver_error(self, "hipInit", err)
        self._launch_kernel = hip.hipModuleLaunchKernel
        self.launch_param_buffer_pointer = int(hip.HIP_LAUNCH_PARAM_BUFFER_POINTER)
        self.launch_param_buffer_size = int(hip.HIP_LAUNCH_PARAM_BUFFER_SIZE)
        self.launch_param_end = int(hip.HIP_LAUNCH_PARAM_END)
        self._out_of_memory = int(hip.hipError_t.hipErrorOutOfMemory)

    # -- devices -------------------------------------------------------------------------

    def device_count(self) -> int:
        err, count = self._hip.hipGetDeviceCount()
        if err:
            raise driver_error(self, "hipGetDeviceCount", err)
        return count

    def device_name(self, index: int) -> str:
        err, name = self._hip.hipDeviceGetName(256, index)
        if err:
            raise driver_error(self, "hipDeviceGetName", err)
        return _text(name)

    def arch(self, index: int) -> str:
        err, properties = self._hip.hipGetDeviceProperties(index)
        if err:
            raise driver_error(self, "hipGetDeviceProperties", err)
        # "gfx942:sramecc+:xnack-": the target features after the name are not part of it.
        return _text(properties.gcnArchName).split(":", 1)[0]

    def _attribute(self, index: int, name: str) -> int:
        hip = self._hip
        err, value = hip.hipDeviceGetAttribute(getattr(hip.hipDeviceAttribute_t, name), index)
        if err:
            raise driver_error(self, "hipDeviceGetAttribute", err)
        return value

    def compute_unit_count(self, index: int) -> int:
        return self._attribute(index, "hipDeviceAttributeMultiprocessorCount")

    def max_threads_per_compute_unit(self, index: int) -> int:
        return self._attribute(index, "hipDeviceAttributeMaxThreadsPerMultiProcessor")

    def set_device(self, index: int) -> None:
        (err,) = self._hip.hipSetDevice(index)
        if err:
            raise driver_error(self, "hipSetDevice", err)

    # -- memory --------------------------------------------------------------------------

    def mem_alloc(self, nbytes: int) -> int:
        err, ptr = self._hip.hipMalloc(nbytes)
        if err:
            raise driver_error(self, "hipMalloc", err)
        return int(ptr)

    def mem_free(self, ptr: int) -> None:
        (err,) = self._hip.hipFree(ptr)
        if err:
            raise driver_error(self, "hipFree", err)

    def mem_info(self) -> tuple[int, int]:
        err, free, total = self._hip.hipMemGetInfo()
        if err:
            raise driver_error(self, "hipMemGetInfo", err)
        return int(free), int(total)

    def host_alloc(self, nbytes: int) -> int:
        err, ptr = self._hip.hipHostMalloc(nbytes, 0)
        if err:
            raise driver_error(self, "hipHostMalloc", err)
        return int(ptr)

    def host_free(self, ptr: int) -> None:
        (err,) = self._hip.hipHostFree(ptr)
        if err:
            raise driver_error(self, "hipHostFree", err)

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream) -> None:
        (err,) = self._hip.hipMemcpyHtoDAsync(dst, src, nbytes, stream)
        if err:
            raise driver_error(self, "hipMemcpyHtoDAsync", err)

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream) -> None:
        (err,) = self._hip.hipMemcpyDtoHAsync(dst, src, nbytes, stream)
        if err:
            raise driver_error(self, "hipMemcpyDtoHAsync", err)

    def memcpy_dtod(self, dst: int, src: int, nbytes: int, stream) -> None:
        (err,) = self._hip.hipMemcpyDtoDAsync(dst, src, nbytes, stream)
        if err:
            raise driver_error(self, "hipMemcpyDtoDAsync", err)

    # -- code ----------------------------------------------------------------------------

    def module_load_data(self, image: bytes, jit_opt: int | None = None):
        # code objects are machine code already: nothing for a JIT to optimise
        err, module = self._hip.hipModuleLoadData(image)
        if err:
            raise driver_error(self, "hipModuleLoadData", err)
        return module

    #: ROCm loads AMDGPU code objects, which are machine code already: no PTX here
    assembles_ptx = False

    def link_ptx(self, image: bytes, jit_opt: int) -> bytes:
        raise GPUError("the HIP runtime loads AMDGPU code objects; it has no PTX to assemble",
                       "link_ptx")

    def driver_version(self) -> int:
        err, version = self._hip.hipDriverGetVersion()
        if err:
            raise driver_error(self, "hipDriverGetVersion", err)
        return int(version)

    def resident_blocks(self, function, block: int) -> int:
        """Blocks of ``block`` threads of ``function`` one compute unit holds at once."""
        err, blocks = self._hip.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(function, block, 0)
        if err:
            raise driver_error(self, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", err)
        return int(blocks)

    def module_unload(self, module) -> None:
        (err,) = self._hip.hipModuleUnload(module)
        if err:
            raise driver_error(self, "hipModuleUnload", err)

    def module_get_function(self, module, name: str):
        err, function = self._hip.hipModuleGetFunction(module, name.encode())
        if err:
            raise driver_error(self, "hipModuleGetFunction", err)
        return function

    def launch(self, function, grid: int, block: int, shared: int, stream, extra: int) -> None:
        (err,) = self._launch_kernel(function, grid, 1, 1, block, 1, 1, shared, stream, None, extra)
        if err:
            raise driver_error(self, "hipModuleLaunchKernel", err)

    @staticmethod
    def launch_entry() -> int:
        """The HIP runtime's ``hipModuleLaunchKernel`` (``cuLaunchKernel``'s signature)."""
        return c_function_address(("libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"),
                                   "hipModuleLaunchKernel")

    # -- streams and events --------------------------------------------------------------

    def stream_create(self):
        err, stream = self._hip.hipStreamCreateWithFlags(0)
        if err:
            raise driver_error(self, "hipStreamCreateWithFlags", err)
        return stream

    def stream_destroy(self, stream) -> None:
        (err,) = self._hip.hipStreamDestroy(stream)
        if err:
            raise driver_error(self, "hipStreamDestroy", err)

    def stream_synchronize(self, stream) -> None:
        (err,) = self._hip.hipStreamSynchronize(stream)
        if err:
            raise driver_error(self, "hipStreamSynchronize", err)

    def stream_wait_event(self, stream, event) -> None:
        (err,) = self._hip.hipStreamWaitEvent(stream, event, 0)
        if err:
            raise driver_error(self, "hipStreamWaitEvent", err)

    def event_create(self, timing: bool = True):
        hip = self._hip
        flags = 0 if timing else int(hip.hipEventDisableTiming)
        err, event = hip.hipEventCreateWithFlags(flags)
        if err:
            raise driver_error(self, "hipEventCreateWithFlags", err)
        return event

    def event_destroy(self, event) -> None:
        (err,) = self._hip.hipEventDestroy(event)
        if err:
            raise driver_error(self, "hipEventDestroy", err)

    def event_record(self, event, stream) -> None:
        (err,) = self._hip.hipEventRecord(event, stream)
        if err:
            raise driver_error(self, "hipEventRecord", err)

    def event_synchronize(self, event) -> None:
        (err,) = self._hip.hipEventSynchronize(event)
        if err:
            raise driver_error(self, "hipEventSynchronize", err)

    def event_elapsed_ms(self, start, end) -> float:
        err, ms = self._hip.hipEventElapsedTime(start, end)
        if err:
            raise driver_error(self, "hipEventElapsedTime", err)
        return float(ms)

    def ctx_synchronize(self) -> None:
        (err,) = self._hip.hipDeviceSynchronize()
        if err:
            raise driver_error(self, "hipDeviceSynchronize", err)

    # -- errors --------------------------------------------------------------------------

    def error_name(self, code: int) -> str:
        hip = self._hip
        result = hip.hipError_t(code)
        _, name = hip.hipGetErrorName(result)
        name = _text(name) if name is not None else result.name
        _, text = hip.hipGetErrorString(result)
        return f"{name} ({_text(text)})" if text is not None else name

    def is_out_of_memory(self, code: int) -> bool:
        return code == self._out_of_memory


class HIPRuntime(GPURuntime):
    """The HIP runtime: :class:`~rocarray.runtime.gpu.GPURuntime` over :class:`HipHooks`.

    Create one per process (``rocarray._device.get_runtime("hip")`` does); HIP loads on
    first use.
    """

    def __init__(self):
        super().__init__(HipHooks())
