"""A fake GPU hook table for the runtime's tests: a pretend device that records its calls.

The memory pool and the GPU runtime's bookkeeping (lazy start, module cache, launch buffer,
current stream) are hardware-independent: their tests run against these tables.
"""

from __future__ import annotations

import ctypes
import struct
import threading

from rocarray.runtime import gpu
from rocarray.runtime.gpu import GPUError

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


def mapped_host_address(hooks, device_address: int) -> int:
    """The host address of ``hooks``' mapped host memory at ``device_address`` (where a
    kernel writing there would change it)."""
    for device, (host, nbytes, _) in hooks.mapped.items():
        if device <= device_address < device + nbytes:
            return host + device_address - device
    raise KeyError(f"{device_address:#x} is not mapped host memory")


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
        self.mapped = {}  # device address of mapped host memory -> (host address, size, the block)
        self.next_ptr = 1 << 32
        self.alloc_calls = 0
        self.free_calls = 0
        self.out_of_memory_calls = 0  # (counted in ``alloc_calls`` too)
        self.calls = []
        self.launches = []
        self.current = None
        self.init_calls = 0
        self.fail_launches = 0
        self.fail_launch_code = INVALID_VALUE  # (the code those failing launches return)
        self.fail_copies = 0  # device-to-device copies to fail, out of memory
        self.fail_alloc_with = None
        self.lock = threading.Lock()
        #: ordered pairs (index, peer) the hardware links directly; None: every pair
        self.peer_links = None
        #: the error code ``enable_peer_access`` fails with (None: it succeeds)
        self.refuse_peer_with = None

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
                self.out_of_memory_calls += 1
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

    def host_alloc_mapped(self, nbytes):
        # real host memory (the runtime reads and writes it); its device address differs
        # from the host's, so a test sees which of the two a kernel was given
        with self.lock:
            block = ctypes.create_string_buffer(nbytes)
            host = ctypes.addressof(block)
            device = self.next_ptr
            self.next_ptr += nbytes + 4096
            self.mapped[device] = (host, nbytes, block)
        self.calls.append(("host_alloc_mapped", self.current, nbytes))
        return host, device

    def memcpy_htod(self, dst, src, nbytes, stream):
        self.calls.append(("htod", dst, src, nbytes, stream))

    def memcpy_dtoh(self, dst, src, nbytes, stream):
        self.calls.append(("dtoh", dst, src, nbytes, stream))

    def memcpy_dtod(self, dst, src, nbytes, stream):
        with self.lock:
            if self.fail_copies:
                self.fail_copies -= 1
                raise gpu.driver_error(self, "fakeMemcpyDtoD", OUT_OF_MEMORY)
        self.calls.append(("dtod", dst, src, nbytes, stream))

    # peer access
    def can_access_peer(self, index, peer):
        self.calls.append(("can_access_peer", index, peer))
        return index != peer and (self.peer_links is None or (index, peer) in self.peer_links)

    def enable_peer_access(self, peer):
        self.calls.append(("enable_peer_access", self.current, peer))
        if self.refuse_peer_with is not None:
            raise gpu.driver_error(self, "fakeEnablePeerAccess", self.refuse_peer_with)

    def memcpy_peer(self, dst, dst_index, src, src_index, nbytes, stream):
        self.calls.append(("peer", dst, dst_index, src, src_index, nbytes, stream, self.current))

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
                return self.fail_launch_code
            self.launches.append((function, grid, block, shared, stream, data, self.current))
        return 0

    def launch(self, function, grid, block, shared, stream, extra):
        assert not self.native, "the runtime launched through the bindings' path"
        code = self._record(function, grid, block, shared, stream, extra)
        if code:
            raise gpu.driver_error(self, "fakeLaunch", code)

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

    def stream_query(self, stream):  # (tests that need other answers replace it)
        self.calls.append(("stream_query", stream))
        return True

    def stream_wait_event(self, stream, event):
        pass

    def event_create(self, timing=True):
        return self.stream_create()

    def event_destroy(self, event):
        pass

    def event_record(self, event, stream):
        self.calls.append(("event_record", event, stream))

    def event_synchronize(self, event):
        self.calls.append(("event_synchronize", event))

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
