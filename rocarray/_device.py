"""Devices: ``Device("cpu")``, ``Device("cuda:0")``, ``Device("hip:1")``; the default device.

The default device is the first GPU found (CUDA, then HIP), else the CPU; the environment
variable ``ROCARRAY_DEVICE`` overrides it, and ``with Device(...):`` changes it for the
current thread.  Runtimes are loaded lazily, so importing rocarray never touches a driver.
"""

from __future__ import annotations

import threading

from . import _settings
from .runtime.base import Runtime
from .runtime.cuda import CUDARuntime
from .runtime.hip import HIPRuntime
from .runtime.host import HostRuntime

_KINDS = ("cpu", "cuda", "hip")


class Device:
    """A device arrays live on: the CPU, a CUDA GPU or a HIP (ROCm) GPU.

    ``Device("cpu")``, ``Device("cuda:1")``, ``Device("hip", 0)``; ``Device("cuda")`` is
    ``cuda:0``. Devices are singletons (``Device("cuda:0") is Device("cuda", 0)``) and compare
    with strings (``x.device == "cpu"``). As a context manager it is the default device of a
    block (CuPy's ``with cupy.cuda.Device(1):``). Making a ``Device`` does not check that it
    exists; ``check()`` does, and so does its first use.

    Args:
        spec: ``"cpu"``, ``"cuda[:N]"``, ``"hip[:N]"`` or a ``Device``.
        index: the device number, when ``spec`` names only the kind.

    Raises:
        ValueError: an unknown kind, a bad index, or an index given twice.
        TypeError: ``spec`` is neither a string nor a Device.

    Examples:
        >>> import rocarray as ra
        >>> with ra.Device("cpu"):
        ...     x = ra.zeros(3)
        >>> x.device
        Device('cpu')
    """

    __slots__ = ("kind", "index", "_runtime")

    def __new__(cls, spec="cpu", index: int | None = None):
        if isinstance(spec, Device):
            if index is not None and index != spec.index:
                raise ValueError(f"Device({spec!r}, {index}): index given twice")
            return spec
        if not isinstance(spec, str):
            raise TypeError(
                f"device must be a Device or a string like 'cpu', 'cuda:0', 'hip:0', not {spec!r}"
            )
        kind, sep, num = spec.strip().lower().partition(":")
        if kind not in _KINDS:
            raise ValueError(
                f"unknown device {spec!r}; expected 'cpu', 'cuda[:N]' or 'hip[:N]'"
            )
        if sep:
            if index is not None:
                raise ValueError(f"Device({spec!r}, {index}): index given twice")
            try:
                index = int(num)
            except ValueError:
                raise ValueError(f"unknown device {spec!r}: {num!r} is not a device number") from None
        if index is None:
            index = 0
        if not isinstance(index, int) or index < 0:
            raise ValueError(f"device index must be a non-negative integer, not {index!r}")
        if kind == "cpu" and index != 0:
            raise ValueError(f"there is one CPU device, 'cpu' (index 0); got index {index}")
        key = (kind, index)
        dev = _interned.get(key)
        if dev is None:
            dev = object.__new__(cls)
            dev.kind = kind
            dev.index = index
            dev._runtime = None
            dev = _interned.setdefault(key, dev)
        return dev

    def __init__(self, spec="cpu", index: int | None = None):
        # the work is __new__'s (devices are singletons); this is the signature help() and
        # the API reference show
        pass

    # -- identity ------------------------------------------------------------------------

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = Device(other)
            except (TypeError, ValueError):
                return False
        return self is other

    # Devices are interned (one object per kind and index), so equal devices are the same
    # object and the identity hash serves: no Python call when a dict key holds a device
    # (the warm paths' plan keys).
    __hash__ = object.__hash__

    def __reduce__(self):
        return (Device, (str(self),))

    def __str__(self):
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    def __repr__(self):
        return f"Device('{self}')"

    # -- the runtime behind it -------------------------------------------------------------
    @property
    def runtime(self) -> Runtime:
        rt = self._runtime
        if rt is None:
            rt = self._runtime = get_runtime(self.kind)
        return rt

    def check(self) -> "Device":
        """This device, after checking that it exists on this machine (ValueError saying why not)."""
        if self.kind == "cpu":
            return self
        try:
            rt = get_runtime(self.kind)
            count = rt.device_count()
        except Exception as e:  # the driver or bindings are missing
            raise ValueError(f"device {self} is not available: {e}") from None
        if self.index >= count:
            raise ValueError(
                f"device {self} is not available: {count} {self.kind} device(s) found"
            )
        return self

    def synchronize(self) -> None:
        """Wait until all work queued on this device is done (before stopping a timer, say)."""
        if self.kind != "cpu":
            self.runtime.synchronize(self.index)

    # -- with Device(...): -----------------------------------------------------------------
    def __enter__(self):
        self.check()
        stack = _state.__dict__.setdefault("stack", [])
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _state.stack.pop()
        return False


_interned: dict = {}
_state = threading.local()
_runtimes: dict = {}
_runtime_lock = threading.Lock()
_default: Device | None = None


def mixed_devices(who: str, first, second) -> TypeError:
    """The error for a call ``who`` given arrays on two devices."""
    return TypeError(f"{who}: cannot mix devices {first} and {second}; move arrays with .to_device() first")


def get_runtime(kind: str) -> Runtime:
    """The runtime of a device kind, created on first use."""
    rt = _runtimes.get(kind)
    if rt is not None:
        return rt
    with _runtime_lock:
        rt = _runtimes.get(kind)
        if rt is None:
            if kind == "cpu":
                rt = HostRuntime()
            elif kind == "cuda":
                rt = CUDARuntime()
            elif kind == "hip":
                rt = HIPRuntime()
            else:
                raise ValueError(f"unknown device kind {kind!r}")
            _runtimes[kind] = rt
    return rt


def gpu_count(kind: str) -> int:
    """Number of devices of a GPU kind on this machine; 0 when its driver is missing."""
    try:
        return get_runtime(kind).device_count()
    except Exception:
        return 0


def _find_default() -> Device:
    env = _settings.DEVICE.get()
    if env:
        return Device(env).check()
    for kind in ("cuda", "hip"):
        if gpu_count(kind) > 0:
            return Device(kind, 0)
    return Device("cpu")


def default_device() -> Device:
    """The device new arrays go to when none is given: the innermost ``with Device(...)``
    block's, else ``ROCARRAY_DEVICE``, else the first GPU found (CUDA, then HIP), else the CPU.

    Examples:
        >>> import rocarray as ra
        >>> with ra.Device("cpu"):
        ...     ra.default_device()
        Device('cpu')
    """
    stack = getattr(_state, "stack", None)
    if stack:
        return stack[-1]
    global _default
    if _default is None:
        _default = _find_default()
    return _default


def as_device(device) -> Device:
    """Normalise ``device=`` arguments (None means the default device)."""
    if device is None:
        return default_device()
    if isinstance(device, Device):
        return device
    return Device(device).check()


def available_devices() -> list:
    """Every device of this machine, the CPU first, then CUDA and HIP GPUs.

    Examples:
        >>> import rocarray as ra
        >>> ra.available_devices()[0]
        Device('cpu')
    """
    devs = [Device("cpu")]
    for kind in ("cuda", "hip"):
        devs.extend(Device(kind, i) for i in range(gpu_count(kind)))
    return devs
