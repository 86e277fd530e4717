"""What the CUDA and HIP hook tables share: the driver error and the hooks' common bodies.

A hook table is the vendor half of :class:`rocarray.runtime.gpu.GPURuntime`.  Most hooks
are one call of the vendor's bindings that differs between CUDA and HIP only in the
function's name, so their bodies live here once and each table names its functions in
``CALLS``; a table writes a hook itself only where the vendors' calls really differ.
"""

from __future__ import annotations

import ctypes
import importlib

from rocarray.runtime.base import RuntimeError_


class GPUError(RuntimeError_):
    """A failed GPU driver call.

    ``call`` names the driver function ("cuModuleLoadData"), ``code`` is the vendor's error
    code as an int (None when the failure carried no code, as when the driver library could
    not be loaded).
    """

    def __init__(self, message: str, call: str | None = None, code: int | None = None):
        super().__init__(message)
        self.call = call
        self.code = code


class GPUOutOfMemoryError(GPUError, MemoryError):
    """A driver call that ran out of device memory (a launch whose kernel needs more local
    memory than the driver holds, a copy the driver stages): a :class:`MemoryError` too."""


def driver_error(api, call: str, code, detail: str = "") -> GPUError:
    """The :class:`GPUError` for driver call ``call`` that returned error ``code``
    (:class:`GPUOutOfMemoryError` for the vendor's out-of-memory code); ``detail`` is
    added to the message."""
    code = int(code)
    try:
        text = api.error_name(code)
    except Exception:  # the error has no name the driver knows, or the driver is gone
        text = f"error {code}"
    try:
        short = api.is_out_of_memory(code)
    except Exception:
        short = False
    return (GPUOutOfMemoryError if short else GPUError)(f"{call} failed: {text}{detail}", call=call, code=code)


def c_function_address(libraries, name: str) -> int:
    """The address of C function ``name`` in the first of ``libraries`` that opens (the
    one the bindings loaded: opening a loaded library again gives the same copy), 0
    when none has it."""
    for library in libraries:
        try:
            return ctypes.cast(getattr(ctypes.CDLL(library), name), ctypes.c_void_p).value or 0
        except (OSError, AttributeError):
            continue
    return 0


class DriverHooks:
    """The hooks whose bodies CUDA and HIP share; the contract of every hook is in
    docs/architecture.md ("The hook table").

    Handles (modules, functions, streams, events) are the bindings' own objects, passed
    back to them unchanged: the bindings check their own types first, which is their
    cheapest path.  Device pointers and host addresses are plain ints.
    """

    #: the bindings' module, and what to tell the user who does not have it
    BINDINGS = ""
    INSTALL_HINT = ""
    #: what ``init`` failed to load when the bindings' first call fails
    DRIVER = ""
    #: hook -> the name of the function of the bindings it calls (each table's own)
    CALLS: dict[str, str] = {}
    #: attribute of the table -> the bindings' constant (a dotted path) ``init`` reads into it
    CONSTANTS: dict[str, str] = {}
    #: the C name of the launch, which is also the bindings' function (for messages)
    launch_name = ""

    def __init__(self):
        self._lib = None  # the bindings' module, set by ``init``
        self._launch_kernel = None  # the bindings' launch, set by ``init``
        self._out_of_memory = 2  # the vendor's out-of-memory code, read from the bindings by ``init``
        self._no_timing = 0  # the event flag that turns timing off, read by ``init``
        self._peer_already_enabled = 704  # the vendor's "peer access already enabled", read by ``init``
        self._host_mapped = 2  # the host allocation flag that maps the memory into the device, read by ``init``
        self._not_ready = 600  # the vendor's "not ready" of a stream still at work, read by ``init``

    def init(self) -> None:
        """Import the bindings and start the driver; read the constants the runtime needs."""
        try:
            lib = importlib.import_module(self.BINDINGS)
        except ImportError as e:
            raise ImportError(self.INSTALL_HINT) from e
        self._lib = lib
        name = self.CALLS["init"]
        try:
            (err,) = getattr(lib, name)(0)
        except Exception as e:  # the bindings could not find or load the driver's library
            raise GPUError(f"{name} failed: the {self.DRIVER} could not be loaded ({e})", name) from e
        if err:
            raise driver_error(self, name, err)
        # the fallback launch, where no native built-in can be had (the bindings' call
        # measured faster than ctypes', whose eleven arguments each go through libffi)
        self._launch_kernel = getattr(lib, self.launch_name)
        for attribute, path in self.CONSTANTS.items():
            value = lib
            for part in path.split("."):
                value = getattr(value, part)
            setattr(self, attribute, int(value))

    def _call(self, hook: str, *args):
        """Call the function ``CALLS[hook]`` of the bindings: the values it returns after the
        error code (one: that value); :class:`GPUError` when it fails."""
        result = getattr(self._lib, self.CALLS[hook])(*args)
        if result[0]:
            raise driver_error(self, self.CALLS[hook], result[0])
        return result[1] if len(result) == 2 else result[1:]

    # -- devices -------------------------------------------------------------------------

    def device_count(self) -> int:
        return self._call("device_count")

    # -- memory --------------------------------------------------------------------------

    def mem_alloc(self, nbytes: int) -> int:
        return int(self._call("mem_alloc", nbytes))

    def mem_free(self, ptr: int) -> None:
        self._call("mem_free", ptr)

    def mem_info(self) -> tuple[int, int]:
        free, total = self._call("mem_info")
        return int(free), int(total)

    def host_alloc(self, nbytes: int) -> int:
        return int(self._call("host_alloc", nbytes, 0))

    def host_free(self, ptr: int) -> None:
        self._call("host_free", ptr)

    def host_alloc_mapped(self, nbytes: int) -> tuple[int, int]:
        """``nbytes`` of page-locked host memory that the current device reads and writes
        directly: (its host address, its address on the device)."""
        host = int(self._call("host_alloc", nbytes, self._host_mapped))
        try:
            return host, int(self._call("host_device_pointer", host, 0))
        except BaseException:
            self.host_free(host)
            raise

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream) -> None:
        self._call("memcpy_htod", dst, src, nbytes, stream)

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream) -> None:
        self._call("memcpy_dtoh", dst, src, nbytes, stream)

    def memcpy_dtod(self, dst: int, src: int, nbytes: int, stream) -> None:
        self._call("memcpy_dtod", dst, src, nbytes, stream)

    # -- peer access between two devices ------------------------------------------------

    def _device_handle(self, index: int):
        """Device ``index`` as the vendor's device queries take it."""
        return index

    def _peer_handle(self, index: int):
        """Device ``index`` as the vendor's peer calls take it (a context or an index)."""
        return index

    def can_access_peer(self, index: int, peer: int) -> bool:
        """True when device ``index`` can read and write device ``peer``'s memory directly
        (the hardware allows it; access still has to be enabled)."""
        return bool(self._call("can_access_peer", self._device_handle(index), self._device_handle(peer)))

    def enable_peer_access(self, peer: int) -> None:
        """Give the current device direct access to device ``peer``'s memory, one way.
        Access enabled already (by rocarray or by another library in the same process)
        counts as success; :class:`GPUError` when the driver refuses."""
        try:
            self._call("enable_peer_access", self._peer_handle(peer), 0)
        except GPUError as e:
            if e.code != self._peer_already_enabled:
                raise

    def memcpy_peer(self, dst: int, dst_index: int, src: int, src_index: int, nbytes: int, stream) -> None:
        """Queue a copy of ``nbytes`` from device ``src_index``'s address ``src`` to device
        ``dst_index``'s address ``dst`` on ``stream`` (a stream of the current device)."""
        self._call("memcpy_peer", dst, self._peer_handle(dst_index), src, self._peer_handle(src_index),
                   nbytes, stream)

    # -- code ----------------------------------------------------------------------------

    def driver_version(self) -> int:
        return int(self._call("driver_version"))

    def resident_blocks(self, function, block: int) -> int:
        """Blocks of ``block`` threads of ``function`` one compute unit holds at once (its
        registers and shared memory counted)."""
        return int(self._call("resident_blocks", function, block, 0))

    def module_unload(self, module) -> None:
        self._call("module_unload", module)

    def module_get_function(self, module, name: str):
        return self._call("module_get_function", module, name.encode())

    # -- streams and events --------------------------------------------------------------

    def stream_create(self):
        return self._call("stream_create", 0)

    def stream_destroy(self, stream) -> None:
        self._call("stream_destroy", stream)

    def stream_synchronize(self, stream) -> None:
        self._call("stream_synchronize", stream)

    def stream_query(self, stream) -> bool:
        """True when the work queued on ``stream`` has finished, False while some is still
        to run; :class:`GPUError` when it failed."""
        name = self.CALLS["stream_query"]
        err = getattr(self._lib, name)(stream)[0]
        if not err:
            return True
        if int(err) == self._not_ready:
            return False
        raise driver_error(self, name, err)

    def stream_wait_event(self, stream, event) -> None:
        self._call("stream_wait_event", stream, event, 0)

    def event_create(self, timing: bool = True):
        return self._call("event_create", 0 if timing else self._no_timing)

    def event_destroy(self, event) -> None:
        self._call("event_destroy", event)

    def event_record(self, event, stream) -> None:
        self._call("event_record", event, stream)

    def event_synchronize(self, event) -> None:
        self._call("event_synchronize", event)

    def event_elapsed_ms(self, start, end) -> float:
        return float(self._call("event_elapsed_ms", start, end))

    def ctx_synchronize(self) -> None:
        self._call("ctx_synchronize")

    # -- errors --------------------------------------------------------------------------

    def is_out_of_memory(self, code: int) -> bool:
        return code == self._out_of_memory
