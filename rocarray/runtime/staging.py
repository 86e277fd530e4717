"""Large host <-> device copies through pinned staging buffers, chunk by chunk.

Copies from pageable memory are slower than the DMA engine: from ``staging_threshold``
bytes on, a GPU runtime passes them through two pinned buffers of the device, used in
turns, so the CPU copy of one chunk overlaps the DMA of the other, and the CPU copies run
on several threads (measured faster than pageable copies past a few MiB; figures in
docs/architecture.md, "Host <-> device copies").
"""

from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from .._settings import cpu_count
from .threads import finish_all

#: Threads that copy between pageable and pinned host memory.
_COPY_THREADS = min(8, cpu_count())
_copier: ThreadPoolExecutor | None = None
_copier_lock = threading.Lock()


def _forget_copier() -> None:
    # (a forked process has none of its parent's threads: it makes a pool of its own)
    global _copier, _copier_lock
    _copier, _copier_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_copier)


def host_copy(dst: int, src: int, nbytes: int) -> None:
    """``memmove`` in pieces of at least 1 MiB spread over threads (ctypes drops the GIL)."""
    global _copier
    parts = min(_COPY_THREADS, nbytes >> 20)
    if parts <= 1:
        ctypes.memmove(dst, src, nbytes)
        return
    if _copier is None:
        with _copier_lock:
            if _copier is None:
                _copier = ThreadPoolExecutor(_COPY_THREADS - 1, thread_name_prefix="rocarray-copy")
    piece = (nbytes // parts + 63) & ~63
    futures = [
        _copier.submit(ctypes.memmove, dst + offset, src + offset, min(piece, nbytes - offset))
        for offset in range(piece, nbytes, piece)
    ]
    try:
        ctypes.memmove(dst, src, piece)
    finally:  # (also when interrupted: the pieces write into memory the caller frees)
        finish_all(futures, stop=lambda: [f.cancel() for f in futures])


class Staging:
    """Two pinned host buffers of one device, used in turns by large copies.

    ``pending[b]`` says a DMA that reads or writes buffer ``b`` may still run; its event
    marks its end.  Copies hold ``lock`` throughout, so one copy at a time uses them.
    """

    __slots__ = ("lock", "chunk", "buffers", "events", "pending")

    def __init__(self, api, chunk: int):
        self.lock = threading.Lock()
        self.chunk = chunk
        self.buffers: list[int] = []
        self.events: list = []
        self.pending = [False, False]
        try:
            for _ in range(2):
                self.buffers.append(api.host_alloc(chunk))
                self.events.append(api.event_create(False))
        except BaseException:
            for ptr in self.buffers:
                api.host_free(ptr)
            for event in self.events:
                api.event_destroy(event)
            raise

    def claim(self, api, b: int) -> int:
        """Wait until no DMA uses buffer ``b``; return its address."""
        if self.pending[b]:
            api.event_synchronize(self.events[b])
            self.pending[b] = False
        return self.buffers[b]

    def issued(self, api, b: int, stream) -> None:
        """Note that a DMA on ``stream`` now uses buffer ``b``."""
        api.event_record(self.events[b], stream)
        self.pending[b] = True

    def to_device(self, api, dst: int, src: int, nbytes: int, stream) -> None:
        """Queue the copy of ``nbytes`` from host ``src`` to device ``dst`` on ``stream``,
        chunk by chunk (the caller waits for the stream)."""
        chunk = self.chunk
        with self.lock:
            for k, offset in enumerate(range(0, nbytes, chunk)):
                size = min(chunk, nbytes - offset)
                buffer = self.claim(api, k & 1)
                host_copy(buffer, src + offset, size)
                api.memcpy_htod(dst + offset, buffer, size, stream)
                self.issued(api, k & 1, stream)

    def to_host(self, api, dst: int, src: int, nbytes: int, stream) -> None:
        """Copy ``nbytes`` from device ``src`` to host ``dst`` after the work queued on
        ``stream``; returns once the data is in ``dst``."""
        chunk = self.chunk
        count = (nbytes + chunk - 1) // chunk

        def fetch(k):  # queue the DMA of chunk k into buffer k & 1
            offset = k * chunk
            buffer = self.claim(api, k & 1)
            api.memcpy_dtoh(buffer, src + offset, min(chunk, nbytes - offset), stream)
            self.issued(api, k & 1, stream)

        with self.lock:
            fetch(0)
            for k in range(count):
                if k + 1 < count:
                    fetch(k + 1)
                offset = k * chunk
                host_copy(dst + offset, self.claim(api, k & 1), min(chunk, nbytes - offset))
