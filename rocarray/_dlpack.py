"""DLPack and the CUDA Array Interface: zero-copy exchange with CuPy, PyTorch, NumPy, ...

CPU arrays go through NumPy's exporter and importer; GPU memory, which NumPy cannot
describe, through ctypes structs of ``dlpack.h`` (v1.x).  Ownership and the stream rule
are in docs/architecture.md ("DLPack").  Installs ``Array.__dlpack__`` and
``Array.__cuda_array_interface__``.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from ._array_object import Array
from ._buffer import Buffer
from ._copy import device_to_numpy
from ._device import Device

__all__ = [
    "export_dlpack",
    "import_dlpack",
    "cuda_array_interface",
    "DLDevice",
    "DLDataType",
    "DLTensor",
    "DLPackVersion",
    "DLManagedTensor",
    "DLManagedTensorVersioned",
]

# -- dlpack.h ----------------------------------------------------------------------------

#: The DLPack version of the versioned capsules this module makes (and the newest it reads).
DLPACK_VERSION = (1, 0)

# DLDeviceType
kDLCPU = 1
kDLCUDA = 2
kDLCUDAHost = 3
kDLROCM = 10
kDLCUDAManaged = 13

# DLDataTypeCode
kDLInt = 0
kDLUInt = 1
kDLFloat = 2
kDLOpaqueHandle = 3
kDLBfloat = 4
kDLComplex = 5
kDLBool = 6

# DLManagedTensorVersioned.flags
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1

_c_int64_p = ctypes.POINTER(ctypes.c_int64)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", _c_int64_p),
        ("strides", _c_int64_p),  # in elements; NULL means C-contiguous
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


# ``deleter`` is a C function pointer, ``void (*)(DLManagedTensor[Versioned] *self)``; it is
# declared as a plain address so that NULL and foreign functions read back as ints.
class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# -- dtypes --------------------------------------------------------------------------------

_CODE_OF_KIND = {"b": kDLBool, "i": kDLInt, "u": kDLUInt, "f": kDLFloat, "c": kDLComplex}
_KIND_OF_CODE = {v: k for k, v in _CODE_OF_KIND.items()}
_CODE_NAMES = {
    kDLInt: "int", kDLUInt: "uint", kDLFloat: "float", kDLOpaqueHandle: "opaque handle",
    kDLBfloat: "bfloat", kDLComplex: "complex", kDLBool: "bool",
}


def dtype_to_dlpack(dtype) -> tuple[int, int, int]:
    """``(code, bits, lanes)`` of a rocarray dtype."""
    dt = np.dtype(dtype)
    code = _CODE_OF_KIND.get(dt.kind)
    if code is None:
        raise BufferError(f"DLPack: dtype {dt} has no DLPack type code")
    return code, dt.itemsize * 8, 1


def dtype_from_dlpack(code: int, bits: int, lanes: int) -> np.dtype:
    """The dtype of a DLPack ``DLDataType``; TypeError for those rocarray lacks."""
    name = f"{_CODE_NAMES[code]}{bits}" if code in _CODE_NAMES else f"(type code {code}, {bits} bits)"
    if lanes != 1:
        raise TypeError(f"DLPack: vector dtype {name}x{lanes} (lanes={lanes}) is not supported")
    kind = _KIND_OF_CODE.get(code)
    if kind == "b":
        if bits == 8:
            return np.dtype(np.bool_)
    elif kind is not None and bits in (8, 16, 32, 64, 128):
        try:
            dt = np.dtype(f"{kind}{bits // 8}")
        except TypeError:  # e.g. complex32, float128 on platforms without it
            dt = None
        if dt is not None and dt.kind == kind and dt.itemsize * 8 == bits and not (kind == "f" and bits > 64):
            return dt
    raise TypeError(f"DLPack: dtype {name} is not supported by rocarray")


# -- the Python C API, through private prototypes (argtypes of ctypes.pythonapi's shared
#    function objects belong to whoever set them last) ------------------------------------

_api = ctypes.pythonapi
_PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", _api)
)
_PyCapsule_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api)
)
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api)
)
_PyCapsule_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", _api)
)
# In a capsule's destructor the capsule has no references left: it must be passed as a
# raw address, never as a py_object (which would revive it and free it a second time).
_PyCapsule_GetName_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(("PyCapsule_GetName", _api))
_PyCapsule_GetPointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api)
)
_Py_IncRef = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", _api))

# Capsules keep a pointer to their name, and callbacks must outlive every capsule and
# tensor handed out, which may be freed at interpreter exit after this module is gone: give
# each of them one reference that is never dropped.
CAPSULE_NAME = b"dltensor"
CAPSULE_NAME_VERSIONED = b"dltensor_versioned"
USED_CAPSULE_NAME = b"used_dltensor"
USED_CAPSULE_NAME_VERSIONED = b"used_dltensor_versioned"
for _name in (CAPSULE_NAME, CAPSULE_NAME_VERSIONED, USED_CAPSULE_NAME, USED_CAPSULE_NAME_VERSIONED):
    _Py_IncRef(_name)

# The C signature of both deleters and of capsule destructors: void f(void *).
_VoidFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# Calls a producer's deleter with the GIL held: some deleters need it and do not take it.
_call_c = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)


# -- export --------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Export:
    """What one exported tensor keeps alive until its deleter runs."""

    managed: object
    shape: object
    strides: object
    buffer: Buffer


#: Live exports, by the address of their managed tensor (= its ``manager_ctx``).
_exports: dict[int, _Export] = {}


def _make_deleter(exports):
    # ``exports`` is bound here so that the callback works after module teardown.
    def deleter(managed_address):
        try:
            exports.pop(managed_address, None)
        except Exception:  # interpreter shutdown
            pass

    return deleter


def _make_capsule_destructor(exports, unused_names):
    def destructor(capsule_address):
        try:
            name_address = _PyCapsule_GetName_raw(capsule_address)
            name = ctypes.string_at(name_address) if name_address else None
            if name in unused_names:  # nobody consumed the capsule: the tensor is still ours
                managed = _PyCapsule_GetPointer_raw(capsule_address, name)
                if managed:
                    exports.pop(managed, None)
        except Exception:  # interpreter shutdown
            pass

    return destructor


_deleter = _VoidFn(_make_deleter(_exports))
_deleter_address = ctypes.cast(_deleter, ctypes.c_void_p).value
_capsule_destructor = _VoidFn(_make_capsule_destructor(_exports, (CAPSULE_NAME, CAPSULE_NAME_VERSIONED)))
_Py_IncRef(_deleter)
_Py_IncRef(_capsule_destructor)


def _dlpack_device_type(device: Device) -> int:
    if device.kind == "cuda":
        return kDLCUDA
    if device.kind == "hip":
        return kDLROCM
    raise BufferError(f"DLPack export of arrays on {device} goes through NumPy, not rocarray._dlpack")


# Hooks for the device work around an export/import (tests replace them to run without a GPU).
def _current_stream_ptr(device: Device) -> int:
    """Address of the calling thread's current rocarray stream on ``device`` (0: null stream)."""
    return device.runtime.current_stream(device.index).ptr


def _synchronize(device: Device) -> None:
    device.synchronize()


def _legacy_stream_ids(kind: str) -> tuple:
    # The values of ``stream=`` that name the legacy default stream (array API / DLPack spec).
    return (None, 1) if kind == "cuda" else (None, 0)


def _order_for_consumer(x: Array, stream) -> None:
    """Make data written to ``x`` so far safe to use on the consumer's ``stream``."""
    if stream is not None and (isinstance(stream, bool) or not isinstance(stream, int)):
        raise TypeError(
            f"__dlpack__: stream must be None or an int (a {x.device.kind} stream pointer), "
            f"not {type(stream).__name__}"
        )
    if stream == -1:  # the consumer takes care of ordering
        return
    if stream is not None and stream < -1:
        raise ValueError(f"__dlpack__: stream must be -1, None or a stream pointer, not {stream}")
    dev = x.device
    if stream in _legacy_stream_ids(dev.kind):
        # The legacy default stream waits for it and for every blocking stream, which all of
        # rocarray's streams are.
        return
    ours = _current_stream_ptr(dev)
    if ours != 0 and stream == ours:
        return
    # Another stream (or the per-thread default stream, or the ambiguous 0 on CUDA): wait for
    # everything queued on the device, so any stream may use the data from now on.
    _synchronize(dev)


def _fill_tensor(t: DLTensor, x: Array, device_type: int, shape, strides) -> None:
    itemsize = x.itemsize
    for i, (n, s) in enumerate(zip(x.shape, x.strides)):
        if s % itemsize:
            raise BufferError(
                f"DLPack: stride {s} bytes of axis {i} is not a multiple of the item size "
                f"{itemsize}; DLPack counts strides in elements (copy the array first)"
            )
        shape[i] = n
        strides[i] = s // itemsize
    # DLPack asks for a 256-byte aligned ``data`` and the rest in ``byte_offset``, but notes
    # that CuPy, PyTorch and NumPy all put the element's address in ``data`` with offset 0
    # and do not rely on alignment; consumers that ignore byte_offset exist, so do the same.
    t.data = x.data_ptr
    t.device.device_type = device_type
    t.device.device_id = x.device.index
    t.ndim = x.ndim
    code, bits, lanes = dtype_to_dlpack(x.dtype)
    t.dtype.code = code
    t.dtype.bits = bits
    t.dtype.lanes = lanes
    t.shape = ctypes.cast(shape, _c_int64_p)
    t.strides = ctypes.cast(strides, _c_int64_p)
    t.byte_offset = 0


def _capsule(x: Array, versioned: bool, copied: bool):
    device_type = _dlpack_device_type(x.device)
    ndim = x.ndim
    # Never NULL, even for 0-d arrays: some consumers read strides without checking ndim.
    shape = (ctypes.c_int64 * max(ndim, 1))()
    strides = (ctypes.c_int64 * max(ndim, 1))()
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version.major, managed.version.minor = DLPACK_VERSION
        flags = 0
        if x._buf.readonly:
            flags |= DLPACK_FLAG_BITMASK_READ_ONLY
        if copied:
            flags |= DLPACK_FLAG_BITMASK_IS_COPIED
        managed.flags = flags
        name = CAPSULE_NAME_VERSIONED
    else:
        managed = DLManagedTensor()
        name = CAPSULE_NAME
    _fill_tensor(managed.dl_tensor, x, device_type, shape, strides)
    address = ctypes.addressof(managed)
    managed.manager_ctx = address
    managed.deleter = _deleter_address
    _exports[address] = _Export(managed, shape, strides, x._buf)
    try:
        return _PyCapsule_New(address, name, ctypes.cast(_capsule_destructor, ctypes.c_void_p).value)
    except BaseException:
        del _exports[address]
        raise


def _as_device_pair(dl_device) -> tuple[int, int]:
    try:
        kind, index = dl_device
        return int(kind), int(index)
    except (TypeError, ValueError):
        raise TypeError(
            f"__dlpack__: dl_device must be a (device type, device id) pair, not {dl_device!r}"
        ) from None


def export_dlpack(x: Array, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``x.__dlpack__(...)`` for an array on a CUDA or HIP device: a DLPack capsule."""
    device_type = _dlpack_device_type(x.device)
    if dl_device is not None:
        want = _as_device_pair(dl_device)
        if want != (device_type, x.device.index):
            if want == (kDLCPU, 0):
                return _export_to_host(x, max_version=max_version, copy=copy)
            raise BufferError(
                f"__dlpack__: cannot export an array on {x.device} to DLPack device {want}; "
                f"only its own device {(device_type, x.device.index)} or the CPU (1, 0)"
            )
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    copied = bool(copy)
    if copied:
        x = x.copy()
    _order_for_consumer(x, stream)
    return _capsule(x, versioned, copied)


def _export_to_host(x: Array, *, max_version, copy):
    if copy is False:
        raise BufferError(f"__dlpack__: moving an array on {x.device} to the CPU needs a copy, but copy=False")
    a = device_to_numpy(x)  # returns when the copy has finished
    kwargs = {} if max_version is None else {"max_version": tuple(max_version)}
    return a.__dlpack__(**kwargs)


# -- import --------------------------------------------------------------------------------


class _Imported:
    """Owner of a producer's managed tensor: calls its deleter when collected.

    Holds the tensor's address and the deleter's, nothing else of the producer's.
    """

    __slots__ = ("managed", "deleter", "__weakref__")

    def __init__(self, managed: int, deleter: int | None):
        self.managed = managed
        self.deleter = deleter

    def release(self) -> None:
        deleter, self.deleter = self.deleter, None
        if deleter:
            _call_c(deleter)(self.managed)

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown
            pass


class _Taken:
    """A consumed capsule: the owner of the tensor, and its fields."""

    __slots__ = ("owner", "tensor", "flags", "version")

    def __init__(self, owner: _Imported, tensor: DLTensor, flags: int, version):
        self.owner = owner
        self.tensor = tensor
        self.flags = flags
        self.version = version


def take_capsule(capsule) -> _Taken:
    """Consume a DLPack capsule (legacy or versioned): rename it ``used_...`` and own it.

    The tensor's deleter runs when the returned record's ``owner`` is collected.
    """
    if _PyCapsule_IsValid(capsule, CAPSULE_NAME_VERSIONED):
        address = _PyCapsule_GetPointer(capsule, CAPSULE_NAME_VERSIONED)
        _PyCapsule_SetName(capsule, USED_CAPSULE_NAME_VERSIONED)
        managed = DLManagedTensorVersioned.from_address(address)
        taken = _Taken(_Imported(address, managed.deleter), managed.dl_tensor, managed.flags,
                       (managed.version.major, managed.version.minor))
        if managed.version.major > DLPACK_VERSION[0]:
            raise BufferError(
                f"DLPack: the producer exported version {taken.version[0]}.{taken.version[1]}; "
                f"rocarray reads major version {DLPACK_VERSION[0]}"
            )
        return taken
    if _PyCapsule_IsValid(capsule, CAPSULE_NAME):
        address = _PyCapsule_GetPointer(capsule, CAPSULE_NAME)
        _PyCapsule_SetName(capsule, USED_CAPSULE_NAME)
        managed = DLManagedTensor.from_address(address)
        return _Taken(_Imported(address, managed.deleter), managed.dl_tensor, 0, None)
    raise ValueError(
        f"DLPack: expected an unused 'dltensor' or 'dltensor_versioned' capsule, got {capsule!r} "
        "(a capsule can be consumed only once)"
    )


def _wrap_int64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def array_from_taken(taken: _Taken, device: Device) -> Array:
    """A rocarray view of a consumed tensor's memory on ``device`` (no copy)."""
    t = taken.tensor
    dt = t.dtype
    dtype = dtype_from_dlpack(dt.code, dt.bits, dt.lanes)
    ndim = t.ndim
    if ndim < 0:
        raise BufferError(f"DLPack: negative ndim {ndim}")
    shape = tuple(t.shape[i] for i in range(ndim))
    itemsize = dtype.itemsize
    if t.strides and ndim:
        # int64 arithmetic as in C consumers: CuPy exports a negative stride divided by the
        # item size as an unsigned number (-40 bytes of int32 as 2**62 - 10), which only
        # comes out right when the product wraps around.
        strides = tuple(_wrap_int64(t.strides[i] * itemsize) for i in range(ndim))
    else:  # NULL strides: C-contiguous
        strides, s = [], itemsize
        for n in reversed(shape):
            strides.append(s)
            s *= max(n, 1)
        strides = tuple(reversed(strides))
    first = (t.data or 0) + t.byte_offset
    if any(n == 0 for n in shape):
        lo = hi = 0
    else:
        lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
        hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + itemsize
    readonly = bool(taken.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
    buf = Buffer(first + lo, hi - lo, device, taken.owner, readonly=readonly)
    return Array._new(buf, shape, strides, -lo, dtype)


# DLPack device types whose memory rocarray's GPU runtimes can use, by rocarray device kind.
_KIND_OF_DEVICE_TYPE = {kDLCUDA: "cuda", kDLCUDAManaged: "cuda", kDLROCM: "hip"}


def _device_of_tensor(device_type: int, device_id: int) -> Device:
    kind = _KIND_OF_DEVICE_TYPE.get(device_type)
    if kind is None:
        raise BufferError(f"DLPack: rocarray cannot import memory of DLPack device type {device_type} here")
    return Device(kind, device_id)


def _stream_for_producer(device: Device) -> int:
    ours = _current_stream_ptr(device)
    if ours == 0:  # the legacy default stream
        return 1 if device.kind == "cuda" else 0
    return ours


def import_dlpack(obj, *, copy=None) -> Array:
    """``rocarray.from_dlpack(obj)`` for a producer on a CUDA or ROCm device (no copy unless
    ``copy=True``)."""
    device_type, device_id = _as_device_pair(obj.__dlpack_device__())
    device = _device_of_tensor(device_type, device_id)
    stream = _stream_for_producer(device)
    try:
        capsule = obj.__dlpack__(stream=stream, max_version=DLPACK_VERSION)
    except TypeError:  # a producer older than DLPack 1.0 / array API 2023.12
        capsule = obj.__dlpack__(stream=stream)
    taken = take_capsule(capsule)
    t = taken.tensor
    got = (t.device.device_type, t.device.device_id)
    if _KIND_OF_DEVICE_TYPE.get(got[0]) != device.kind or got[1] != device.index:
        raise BufferError(
            f"DLPack: the producer said its data is on device {(device_type, device_id)}, "
            f"but its tensor says {got}"
        )
    x = array_from_taken(taken, device)
    if copy:
        out = x.copy()
        # The producer may reuse the memory once its deleter runs, on a stream that does not
        # wait for ours: let the copy finish first.
        _synchronize(device)
        return out
    return x


# -- the CUDA Array Interface ----------------------------------------------------------------


def cuda_array_interface(x: Array) -> dict:
    """``__cuda_array_interface__`` (version 3) of an array on a CUDA device.

    Numba, CuPy and PyTorch read it: ``cupy.asarray(x)`` shares ``x``'s memory. ``stream``
    is rocarray's current stream (1, the legacy default stream, when none is set). Arrays on
    other devices have no such attribute (``AttributeError``).
    """
    ours = _current_stream_ptr(x.device)
    return {
        "shape": x.shape,
        "typestr": x.dtype.str,
        "data": (x.data_ptr if x.size else 0, bool(x._buf.readonly)),
        "version": 3,
        "strides": None if x.is_c_contiguous() else x.strides,
        # 1 is the legacy default stream (0 is not allowed here); with `with stream:` ours.
        "stream": ours if ours else 1,
    }


def to_dlpack(x: Array, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``x.__dlpack__``: CPU arrays through NumPy's exporter, GPU arrays through ours."""
    if x.device.kind == "cpu":
        h = x._host()
        if copy:
            h = h.copy()
        kwargs = {}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        return h.__dlpack__(**kwargs)
    return export_dlpack(x, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def _dlpack_method(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Export this array as a DLPack capsule (the array API's ``__dlpack__``).

    Consumers call it for you: ``numpy.from_dlpack(x)`` (CPU arrays), ``cupy.from_dlpack(x)``,
    ``torch.from_dlpack(x)``. The capsule shares the array's memory.

    Args:
        stream: the consumer's stream on a GPU (an integer, as the standard defines): unless it
            already waits for rocarray's current stream, the device is synchronized before the
            capsule is returned.
        max_version: the highest DLPack version the consumer reads; ``(1, 0)`` or later gives
            a versioned capsule.
        dl_device: the device the consumer wants the data on (only the array's own device).
        copy: True exports a copy; None and False share the memory.

    Examples:
        >>> import numpy as np, rocarray as ra
        >>> np.from_dlpack(ra.asarray([1.0, 2.0], device="cpu"))
        array([1., 2.])
    """
    return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def _cuda_array_interface_property(self) -> dict:
    """The CUDA Array Interface (version 3), for arrays on CUDA devices only.

    Other arrays raise AttributeError, so ``hasattr(x, "__cuda_array_interface__")``
    tells consumers (CuPy, Numba, PyTorch) whether they can use it.
    """
    if self._buf.device.kind != "cuda":
        raise AttributeError(
            f"__cuda_array_interface__ is only defined for arrays on CUDA devices; "
            f"this array is on {self._buf.device}"
        )
    return cuda_array_interface(self)


Array.__dlpack__ = _dlpack_method
Array.__cuda_array_interface__ = property(_cuda_array_interface_property)
