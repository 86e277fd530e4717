"""Copies between two GPUs of one runtime: direct by peer access where the hardware allows
it, else staged through pinned host memory; ordered on both devices' streams by events.

Each device keeps its own context, memory pool and streams; a copy from device ``src`` to
device ``dst`` runs on ``dst``'s current stream, after the work queued on ``src``'s current
stream (which wrote the source), and ``src``'s current stream waits for the copy before it
runs anything later (which may reuse the source's memory block: the pool hands blocks out
again per stream).  Nothing here waits on the host.
"""

from __future__ import annotations

import ctypes
import threading

from rocarray.runtime.hooks import GPUError
from rocarray.runtime.streams import Event, Stream


class _Relay:
    """Two pinned host buffers that carry one ordered pair's staged copies, chunk by chunk.

    ``filled[b]`` (an event of the source device) marks the end of the copy into buffer
    ``b``, ``drained[b]`` (of the destination device) the end of the copy out of it; a
    buffer is filled again only after the device-side wait for its last draining.
    """

    __slots__ = ("lock", "chunk", "buffers", "filled", "drained", "used", "api")

    def __init__(self, runtime, dst: int, src: int, chunk: int):
        self.lock = threading.Lock()
        self.api = runtime.api
        self.chunk = chunk
        self.buffers: list[int] = []
        self.used = [False, False]
        runtime._use(src)
        try:
            # (pinned memory is pinned for every device of the unified address space)
            for _ in range(2):
                self.buffers.append(self.api.host_alloc(chunk))
            self.filled = [Event(runtime, src, timing=False) for _ in range(2)]
            self.drained = [Event(runtime, dst, timing=False) for _ in range(2)]
        except BaseException:
            self.close()
            raise

    def copy(self, runtime, dst: int, dst_ptr: int, dst_stream: Stream, src: int, src_ptr: int,
             src_stream: Stream, nbytes: int) -> None:
        """Queue the copy, device to host buffer on ``src_stream`` and host buffer to
        device on ``dst_stream``, the two halves of each chunk ordered by events."""
        api = self.api
        chunk = self.chunk
        with self.lock:
            for k, offset in enumerate(range(0, nbytes, chunk)):
                b = k & 1
                size = min(chunk, nbytes - offset)
                if self.used[b]:
                    src_stream.wait_event(self.drained[b])
                runtime._use(src)
                api.memcpy_dtoh(self.buffers[b], src_ptr + offset, size, src_stream.handle)
                self.filled[b].record(src_stream)
                dst_stream.wait_event(self.filled[b])
                runtime._use(dst)
                api.memcpy_htod(dst_ptr + offset, self.buffers[b], size, dst_stream.handle)
                self.drained[b].record(dst_stream)
                self.used[b] = True

    def close(self) -> None:
        for ptr in self.buffers:
            self.api.host_free(ptr)
        self.buffers = []


class PeerCopies:
    """One runtime's copies between its devices: which pairs copy directly (decided, and
    access enabled, once per ordered pair), the staging relays of the others."""

    def __init__(self, runtime):
        self.runtime = runtime
        self._lock = threading.Lock()
        #: (dst, src) -> True where ``dst`` reads ``src``'s memory directly
        self._direct: dict[tuple[int, int], bool] = {}
        #: (dst, src) -> why the pair copies through the host (None where it does not)
        self.reasons: dict[tuple[int, int], str | None] = {}
        #: (dst, src) -> the pair's relay; None where no pinned memory was to be had
        self._relays: dict[tuple[int, int], _Relay | None] = {}

    def direct(self, dst: int, src: int) -> bool:
        """True when copies from device ``src`` to device ``dst`` go by peer access: the
        hardware allows ``dst`` to reach ``src``'s memory and the driver enabled it (asked
        once per ordered pair; a refusal sends the pair's copies through the host)."""
        pair = (dst, src)
        known = self._direct.get(pair)
        if known is not None:
            return known
        runtime = self.runtime
        with self._lock:
            known = self._direct.get(pair)
            if known is not None:
                return known
            reason = None
            if not runtime.peer_access:
                reason = "peer access turned off (GPURuntime.peer_access)"
            elif not runtime.api.can_access_peer(dst, src):
                reason = f"{runtime.kind}:{dst} cannot access {runtime.kind}:{src}'s memory directly"
            else:
                runtime._use(dst)
                try:
                    runtime.api.enable_peer_access(src)
                except GPUError as e:  # out of peer resources, or refused: stage instead
                    reason = f"peer access refused: {e}"
            self.reasons[pair] = reason
            self._direct[pair] = known = reason is None
        return known

    def _relay(self, dst: int, src: int) -> _Relay | None:
        pair = (dst, src)
        try:
            return self._relays[pair]
        except KeyError:
            pass
        with self._lock:
            if pair not in self._relays:
                try:
                    relay = _Relay(self.runtime, dst, src, self.runtime.staging_chunk)
                except GPUError:  # no pinned memory: copy through pageable memory instead
                    relay = None
                self._relays[pair] = relay
        return self._relays[pair]

    def _through_pageable(self, dst: int, dst_ptr: int, dst_stream: Stream, src: int, src_ptr: int,
                          src_stream: Stream, nbytes: int) -> None:
        """The staged copy without pinned memory: one pageable buffer, the host waiting
        for each half (the driver copies pageable memory synchronously anyway)."""
        runtime, api = self.runtime, self.runtime.api
        buffer = ctypes.create_string_buffer(nbytes)
        address = ctypes.addressof(buffer)
        runtime._use(src)
        api.memcpy_dtoh(address, src_ptr, nbytes, src_stream.handle)
        api.stream_synchronize(src_stream.handle)
        runtime._use(dst)
        api.memcpy_htod(dst_ptr, address, nbytes, dst_stream.handle)
        api.stream_synchronize(dst_stream.handle)

    def copy(self, dst: int, dst_ptr: int, src: int, src_ptr: int, nbytes: int) -> None:
        """Queue the copy of ``nbytes`` from ``src_ptr`` on device ``src`` to ``dst_ptr``
        on device ``dst`` (two different devices), ordered after the work queued on
        ``src``'s current stream and before later work on both devices' current streams."""
        runtime = self.runtime
        src_stream = runtime.current_stream(src)
        dst_stream = runtime.current_stream(dst)
        direct = self.direct(dst, src)
        written = Event(runtime, src, timing=False).record(src_stream)
        dst_stream.wait_event(written)
        if direct:
            runtime._use(dst)
            runtime.api.memcpy_peer(dst_ptr, dst, src_ptr, src, nbytes, dst_stream.handle)
        else:
            relay = self._relay(dst, src)
            if relay is None:
                self._through_pageable(dst, dst_ptr, dst_stream, src, src_ptr, src_stream, nbytes)
            else:
                relay.copy(runtime, dst, dst_ptr, dst_stream, src, src_ptr, src_stream, nbytes)
        read = Event(runtime, dst, timing=False).record(dst_stream)
        src_stream.wait_event(read)
