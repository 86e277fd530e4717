"""The runtime hook interface: what a device runtime (host, CUDA, HIP) must provide.

Everything above this interface -- buffers, the caching memory pool, the launcher, the
array type -- is shared code.  A runtime is a small set of hooks on raw device pointers
(plain Python ints).  The runtime never imports the code generator or the array type.
"""

from __future__ import annotations


class RuntimeError_(RuntimeError):
    """A failed runtime call; the message names the call and the error."""


class Runtime:
    """Hooks of one device kind.  ``index`` arguments select the device of that kind."""

    #: "cpu", "cuda" or "hip".
    kind: str = "abstract"

    # -- devices ----------------------------------------------------------------------
    def device_count(self) -> int:
        raise NotImplementedError

    def device_name(self, index: int) -> str:
        raise NotImplementedError

    def target_name(self, index: int) -> str:
        """Code-generation target of device ``index``: "host", "sm_90", "gfx942"."""
        raise NotImplementedError

    # -- memory -----------------------------------------------------------------------
    def alloc(self, index: int, nbytes: int) -> int:
        """Allocate ``nbytes`` on device ``index``; return the pointer.  May raise MemoryError."""
        raise NotImplementedError

    def free(self, index: int, ptr: int) -> None:
        raise NotImplementedError

    def memory_pool(self, index: int):
        """The memory pool behind ``alloc`` and ``free`` on device ``index``: buffers give
        their blocks back through its ``free(ptr)``."""
        raise NotImplementedError

    def copy_host_to_device(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        """Copy from host address ``src`` to device address ``dst``."""
        raise NotImplementedError

    def copy_device_to_host(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        raise NotImplementedError

    def copy_device_to_device(self, index: int, dst: int, src: int, nbytes: int, stream=None) -> None:
        raise NotImplementedError

    # -- code -------------------------------------------------------------------------
    def prepare_launches(self) -> None:
        """Set up what launching needs, before this runtime's first kernel is looked up
        (called once per device and process; nothing by default)."""

    def load_module(self, index: int, image: bytes):
        """Load compiled bytes (as produced by this device's target); return a module."""
        raise NotImplementedError

    def get_function(self, module, name: str):
        raise NotImplementedError

    def launch(self, function, grid: int, block: int, args: bytearray, stream=None) -> None:
        """Run ``function`` on ``grid`` x ``block`` threads with the packed argument buffer.

        ``args`` holds the kernel parameters laid out with natural alignment, exactly as
        described in docs/architecture.md ("Kernel ABI").
        """
        raise NotImplementedError

    def launch_packed(self, function, grid: int, block: int, packer, n: int, values) -> None:
        """``launch`` with the parameter buffer packed here by ``packer`` (a ``struct.Struct``)
        from ``n, *values``; runtimes pack straight into their own launch buffer."""
        buf = bytearray(packer.size)
        packer.pack_into(buf, 0, n, *values)
        self.launch(function, grid, block, buf)

    # -- ordering ---------------------------------------------------------------------
    def synchronize(self, index: int) -> None:
        raise NotImplementedError

    def stream_create(self, index: int):
        raise NotImplementedError

    def stream_destroy(self, index: int, stream) -> None:
        raise NotImplementedError

    def stream_synchronize(self, stream) -> None:
        raise NotImplementedError

    def event_create(self, index: int):
        raise NotImplementedError

    def event_record(self, event, stream) -> None:
        raise NotImplementedError

    def event_synchronize(self, event) -> None:
        raise NotImplementedError

    def event_elapsed_ms(self, start, end) -> float:
        raise NotImplementedError
