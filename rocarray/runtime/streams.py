"""Streams and events of a GPU runtime: in-order queues of work and markers in them."""

from __future__ import annotations

from rocarray.runtime.base import RuntimeError_


class _DriverObject:
    """A stream or event of one device: destroyed by ``close`` or when collected, once."""

    __slots__ = ("runtime", "device", "handle", "_owned", "__weakref__")

    def _destroy(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Destroy the driver's object now (work queued on or before it still completes)."""
        if self._owned:
            self._owned = False
            self.runtime._use(self.device)
            self._destroy()

    def __del__(self):
        try:
            self.close()
        except Exception:  # the driver may be gone at interpreter exit
            pass


class Stream(_DriverObject):
    """An in-order queue of work on one device.

    ``with stream:`` makes it the calling thread's current stream of its device, where
    launches and copies that name no stream go.  ``Stream(runtime, index)`` creates a new
    stream; :meth:`GPURuntime.null_stream` gives the device's default one.
    """

    __slots__ = ("ptr", "launch_handle")

    def __init__(self, runtime, device: int = 0, *, _null: bool = False):
        runtime._check_index(device)
        self.runtime = runtime
        self.device = device
        self._owned = False
        if _null:
            self.handle = None
            self.ptr = 0
        else:
            runtime._use(device)
            self.handle = runtime.api.stream_create()
            self.ptr = int(self.handle)
            self._owned = True
        #: the stream as the runtime's launch callable takes it (as ``Function.launch_handle``)
        self.launch_handle = self.ptr if runtime._native else self.handle

    def synchronize(self) -> None:
        """Wait until all work queued on this stream has finished."""
        self.runtime._use(self.device)
        self.runtime.api.stream_synchronize(self.handle)

    def wait_event(self, event: Event) -> None:
        """Make later work on this stream wait for ``event``."""
        self.runtime._use(self.device)
        self.runtime.api.stream_wait_event(self.handle, event.handle)

    def record(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one if None) on this stream; return it."""
        if event is None:
            event = Event(self.runtime, self.device)
        event.record(self)
        return event

    def __enter__(self) -> Stream:
        state = self.runtime._thread()
        state.streams.setdefault(self.device, []).append(self)
        state.current[self.device] = self
        return self

    def __exit__(self, *exc) -> None:
        state = self.runtime._thread()
        stack = state.streams.get(self.device)
        if not stack or stack[-1] is not self:
            raise RuntimeError_(f"{self!r} left out of order: `with` blocks of streams must nest")
        stack.pop()
        if stack:
            state.current[self.device] = stack[-1]
        else:
            del state.current[self.device]

    def _destroy(self) -> None:
        self.runtime.api.stream_destroy(self.handle)

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.ptr == self.ptr and other.device == self.device

    def __hash__(self) -> int:
        return hash((self.device, self.ptr))

    def __repr__(self) -> str:
        which = "null stream" if self.ptr == 0 else f"stream {self.ptr:#x}"
        return f"<{self.runtime.kind}:{self.device} {which}>"


class Event(_DriverObject):
    """A marker in a stream: record it, wait for it, time the work between two of them."""

    __slots__ = ()

    def __init__(self, runtime, device: int = 0, timing: bool = True):
        runtime._check_index(device)
        self.runtime = runtime
        self.device = device
        self._owned = False
        runtime._use(device)
        self.handle = runtime.api.event_create(timing)
        self._owned = True

    def record(self, stream: Stream | None = None) -> Event:
        """Record the event on ``stream`` (default: the thread's current stream)."""
        if stream is None:
            stream = self.runtime.current_stream(self.device)
        self.runtime._use(self.device)
        self.runtime.api.event_record(self.handle, stream.handle)
        return self

    def synchronize(self) -> None:
        """Wait until the work before the event's last recording has finished."""
        self.runtime._use(self.device)
        self.runtime.api.event_synchronize(self.handle)

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds between this event and ``end`` (both recorded and completed)."""
        self.runtime._use(self.device)
        return self.runtime.api.event_elapsed_ms(self.handle, end.handle)

    def _destroy(self) -> None:
        self.runtime.api.event_destroy(self.handle)

    def __repr__(self) -> str:
        return f"<{self.runtime.kind}:{self.device} event {int(self.handle):#x}>"


