"""Zero-copy exchange of GPU arrays: DLPack (rocarray/_dlpack.py) and the CUDA Array Interface.

The struct layouts, the dtype codes, the capsule protocol (names, consumption, deleters,
lifetimes), stride conversion and the stream rules run on any machine: they use "device"
arrays that are really host memory labelled ``cuda:0`` / ``hip:0`` (only pointers move, no
kernel runs) and NumPy as an independent producer of capsules.  The round trips with CuPy
and PyTorch need an NVIDIA GPU and skip, naming it, elsewhere.
"""

from __future__ import annotations

import ctypes
import gc
import weakref

import numpy as np
import pytest

import rocarray as ra
from rocarray import _dlpack
from rocarray._array_object import Array
from rocarray._buffer import Buffer, host_ndarray
from conftest import ALL_DTYPES, gpu_devices, random_array, requires_cuda

# ==========================================================================================
# Any machine
# ==========================================================================================

pointer_64 = pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="needs a 64-bit platform")


@pointer_64
def test_struct_layout_matches_dlpack_h():
    D = _dlpack
    assert ctypes.sizeof(D.DLDevice) == 8
    assert ctypes.sizeof(D.DLDataType) == 4
    assert ctypes.sizeof(D.DLPackVersion) == 8
    assert ctypes.sizeof(D.DLTensor) == 48
    offsets = {name: getattr(D.DLTensor, name).offset for name, _ in D.DLTensor._fields_}
    assert offsets == {
        "data": 0, "device": 8, "ndim": 16, "dtype": 20, "shape": 24, "strides": 32, "byte_offset": 40,
    }
    assert ctypes.sizeof(D.DLManagedTensor) == 64
    assert D.DLManagedTensor.manager_ctx.offset == 48
    assert D.DLManagedTensor.deleter.offset == 56
    assert ctypes.sizeof(D.DLManagedTensorVersioned) == 80
    offsets = {name: getattr(D.DLManagedTensorVersioned, name).offset for name, _ in D.DLManagedTensorVersioned._fields_}
    assert offsets == {"version": 0, "manager_ctx": 8, "deleter": 16, "flags": 24, "dl_tensor": 32}
    assert D.DLDataType.bits.offset == 1 and D.DLDataType.lanes.offset == 2


EXPECTED_CODES = {
    "bool": (6, 8), "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64),
    "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64),
    "float16": (2, 16), "float32": (2, 32), "float64": (2, 64),
    "complex64": (5, 64), "complex128": (5, 128),
}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtype_codes(dtype):
    code, bits = EXPECTED_CODES[str(dtype)]
    assert _dlpack.dtype_to_dlpack(dtype) == (code, bits, 1)
    assert _dlpack.dtype_from_dlpack(code, bits, 1) == dtype


@pytest.mark.parametrize(
    "code, bits, lanes, words",
    [
        (4, 16, 1, "bfloat16"),
        (2, 32, 4, "lanes"),
        (2, 128, 1, "float128"),
        (2, 8, 1, "float8"),
        (5, 32, 1, "complex32"),
        (6, 1, 1, "bool1"),
        (0, 4, 1, "int4"),
        (3, 64, 1, "opaque"),
        (9, 8, 1, "type code 9"),
    ],
)
def test_unsupported_dtypes_raise_type_error_naming_them(code, bits, lanes, words):
    with pytest.raises(TypeError, match=words):
        _dlpack.dtype_from_dlpack(code, bits, lanes)


# -- fake device arrays: host memory labelled as a GPU device --------------------------------


class StreamLog:
    """Replaces the module's runtime hooks: a current stream, and a log of synchronizations."""

    def __init__(self, current=0):
        self.current = current
        self.synced = []

    def stream(self, device):
        return self.current

    def sync(self, device):
        self.synced.append(device)


@pytest.fixture
def streams(monkeypatch):
    log = StreamLog()
    monkeypatch.setattr(_dlpack, "_current_stream_ptr", log.stream)
    monkeypatch.setattr(_dlpack, "_synchronize", log.sync)
    return log


def fake_device_array(a: np.ndarray, device="cuda:0", readonly=False) -> Array:
    """An Array on ``device`` whose memory is NumPy array ``a``'s (C-contiguous)."""
    a = np.ascontiguousarray(a)
    buf = Buffer(a.ctypes.data, a.nbytes, ra.Device(device), a, readonly=readonly)
    return Array._new(buf, a.shape, a.strides, 0, a.dtype)


def host_view(x: Array) -> np.ndarray:
    """NumPy view of a (fake) device array's memory, through its own strides and offset."""
    return host_ndarray(x._buf, x._offset, x.shape, x.strides, x.dtype)


class Producer:
    """A DLPack producer that hands out a given capsule and records how it was asked."""

    def __init__(self, capsule, device=(2, 0), accepts_max_version=True):
        self.capsule = capsule
        self.device = device
        self.accepts_max_version = accepts_max_version
        self.calls = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *, stream=None, **kwargs):
        if kwargs and not self.accepts_max_version:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.calls.append(dict(stream=stream, **kwargs))
        return self.capsule


def capsule_name(capsule) -> bytes:
    get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
    return get_name(capsule)


def capsule_struct(capsule):
    name = capsule_name(capsule)
    get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", ctypes.pythonapi))
    address = get(capsule, name)
    kind = _dlpack.DLManagedTensorVersioned if name.endswith(b"versioned") else _dlpack.DLManagedTensor
    return kind.from_address(address)


def base_array():
    return np.arange(60, dtype=np.float32).reshape(5, 12) * 1.5


VIEWS = {
    "whole": lambda x: x,
    "strided": lambda x: x[::2, 1::3],
    "transposed": lambda x: x.T,
    "reversed": lambda x: x[::-1, ::-2],
    "offset row": lambda x: x[3],
    "0-d": lambda x: x[2, 5, ...],
    "empty": lambda x: x[2:2],
    "empty column": lambda x: x[:, 4:4],
}


@pytest.mark.parametrize("max_version, name", [
    (None, b"dltensor"), ((0, 8), b"dltensor"), ((1, 0), b"dltensor_versioned"),
    ((1, 3), b"dltensor_versioned"), ((2, 0), b"dltensor_versioned"),
])
def test_capsule_name_follows_max_version(streams, max_version, name):
    x = fake_device_array(base_array())
    cap = x.__dlpack__(max_version=max_version)
    assert capsule_name(cap) == name
    if name.endswith(b"versioned"):
        m = capsule_struct(cap)
        assert (m.version.major, m.version.minor) == (1, 0)


@pytest.mark.parametrize("view", VIEWS, ids=str)
@pytest.mark.parametrize("versioned", [False, True], ids=["legacy", "versioned"])
def test_exported_struct_fields(streams, view, versioned):
    a = base_array()
    x = VIEWS[view](fake_device_array(a))
    expected = VIEWS[view](a)
    cap = x.__dlpack__(max_version=(1, 0) if versioned else None)
    m = capsule_struct(cap)
    t = m.dl_tensor
    assert (t.device.device_type, t.device.device_id) == (2, 0)
    assert t.ndim == expected.ndim
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 32, 1)
    assert t.byte_offset == 0
    assert (t.data or 0) == x.data_ptr
    if expected.size:
        assert t.data == expected.ctypes.data
    assert [t.shape[i] for i in range(t.ndim)] == list(expected.shape)
    assert bool(t.strides)  # never NULL
    assert [t.strides[i] for i in range(t.ndim)] == [s // 4 for s in expected.strides]
    assert m.manager_ctx == ctypes.addressof(m)
    assert m.deleter
    if versioned:
        assert m.flags == 0


def test_versioned_flags(streams):
    x = fake_device_array(base_array(), readonly=True)
    m = capsule_struct(x.__dlpack__(max_version=(1, 0)))
    assert m.flags & _dlpack.DLPACK_FLAG_BITMASK_READ_ONLY
    assert not m.flags & _dlpack.DLPACK_FLAG_BITMASK_IS_COPIED


def test_hip_arrays_export_as_rocm(streams):
    x = fake_device_array(base_array(), device="hip:0")
    t = capsule_struct(x.__dlpack__()).dl_tensor
    assert (t.device.device_type, t.device.device_id) == (10, 0)


@pytest.mark.parametrize("view", VIEWS, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_export_import_round_trip_views_the_same_memory(streams, view, dtype):
    a = random_array((5, 12), dtype)
    x = VIEWS[view](fake_device_array(a))
    producer = Producer(x.__dlpack__(max_version=(1, 0), stream=-1))
    y = _dlpack.import_dlpack(producer)
    assert producer.calls == [{"stream": 1, "max_version": (1, 0)}]
    assert capsule_name(producer.capsule) == b"used_dltensor_versioned"
    assert y.device == ra.Device("cuda:0")
    assert y.dtype == dtype and y.shape == x.shape
    assert y.data_ptr == x.data_ptr or x.size == 0
    assert y.size == 0 or y.strides == x.strides
    np.testing.assert_array_equal(host_view(y), VIEWS[view](a))
    # the memory is shared: a write through one shows through the other
    if x.size:
        host_view(x).reshape(-1)[0] = host_view(x).reshape(-1)[-1]
        np.testing.assert_array_equal(host_view(y), host_view(x))


def test_import_reads_null_strides_as_c_contiguous_and_byte_offset(streams):
    a = base_array()
    x = fake_device_array(a)
    cap = x.__dlpack__()
    t = capsule_struct(cap).dl_tensor
    t.strides = None
    t.data = a.ctypes.data - 64
    t.byte_offset = 64
    y = _dlpack.import_dlpack(Producer(cap))
    assert y.strides == a.strides and y.data_ptr == a.ctypes.data
    np.testing.assert_array_equal(host_view(y), a)


def test_import_reads_strides_the_way_cupy_writes_negative_ones(streams):
    # CuPy divides a negative byte stride by the item size as an unsigned number; C
    # consumers multiply back with int64 wrap-around, so the round trip works there.
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    x = fake_device_array(a)[::-1]
    cap = x.__dlpack__()
    t = capsule_struct(cap).dl_tensor
    assert t.strides[0] == -6
    t.strides[0] = ((-24) % (1 << 64)) // 4  # 2**62 - 6, as CuPy writes it
    y = _dlpack.import_dlpack(Producer(cap))
    assert y.strides == (-24, 4)
    np.testing.assert_array_equal(host_view(y), a[::-1])


def test_import_falls_back_for_producers_without_max_version(streams):
    x = fake_device_array(base_array())
    producer = Producer(x.__dlpack__(), accepts_max_version=False)
    y = _dlpack.import_dlpack(producer)
    assert producer.calls == [{"stream": 1}]
    assert capsule_name(producer.capsule) == b"used_dltensor"
    np.testing.assert_array_equal(host_view(y), base_array())


def test_import_from_hip_producer_passes_hip_default_stream(streams):
    x = fake_device_array(base_array(), device="hip:0")
    producer = Producer(x.__dlpack__(max_version=(1, 0)), device=(10, 0))
    y = _dlpack.import_dlpack(producer)
    assert producer.calls[0]["stream"] == 0
    assert y.device == ra.Device("hip:0")


def test_import_passes_our_current_stream(streams):
    streams.current = 0xABC0
    x = fake_device_array(base_array())
    producer = Producer(x.__dlpack__(max_version=(1, 0), stream=-1))
    _dlpack.import_dlpack(producer)
    assert producer.calls[0]["stream"] == 0xABC0


def test_import_keeps_readonly_flag(streams):
    x = fake_device_array(base_array(), readonly=True)
    y = _dlpack.import_dlpack(Producer(x.__dlpack__(max_version=(1, 0))))
    assert y._buf.readonly and not y.flags["WRITEABLE"]


def test_a_capsule_is_consumed_once(streams):
    x = fake_device_array(base_array())
    producer = Producer(x.__dlpack__())
    y = _dlpack.import_dlpack(producer)
    with pytest.raises(ValueError, match="consumed only once"):
        _dlpack.import_dlpack(producer)
    del y


# -- lifetimes ------------------------------------------------------------------------------


def live_exports():
    gc.collect()
    return len(_dlpack._exports)


def test_unconsumed_capsule_releases_the_buffer(streams):
    before = live_exports()
    x = fake_device_array(base_array())
    buf = weakref.ref(x._buf)
    cap = x[1:].__dlpack__(max_version=(1, 0))
    del x
    gc.collect()
    assert buf() is not None and live_exports() == before + 1
    del cap
    gc.collect()
    assert buf() is None and live_exports() == before


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_consumer_keeps_buffer_until_it_deletes(streams, max_version):
    before = live_exports()
    a = base_array()
    x = fake_device_array(a)
    buf = weakref.ref(x._buf)
    producer = Producer(x.__dlpack__(max_version=max_version))
    y = _dlpack.import_dlpack(producer)
    del x, producer
    gc.collect()
    assert buf() is not None and live_exports() == before + 1
    np.testing.assert_array_equal(host_view(y), a)
    del y  # the importer calls the exporter's deleter exactly once
    gc.collect()
    assert buf() is None and live_exports() == before


def test_importer_calls_a_foreign_deleter_once():
    # NumPy is an independent producer: its deleter drops its reference to the array.
    a = np.arange(12.0).reshape(3, 4)
    alive = weakref.ref(a)
    for max_version in (None, (1, 0)):
        taken = _dlpack.take_capsule(a.__dlpack__(max_version=max_version) if max_version else a.__dlpack__())
        y = _dlpack.array_from_taken(taken, ra.Device("cpu"))
        np.testing.assert_array_equal(y._host(), np.arange(12.0).reshape(3, 4))
        del taken, y
    del a
    gc.collect()
    assert alive() is None


@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_reads_numpy_capsules(view):
    a = VIEWS[view](base_array())
    taken = _dlpack.take_capsule(a.__dlpack__(max_version=(1, 0)))
    assert taken.version == (1, 0)
    y = _dlpack.array_from_taken(taken, ra.Device("cpu"))
    assert y.shape == a.shape and y.dtype == a.dtype
    np.testing.assert_array_equal(y._host(), a)


def test_reads_numpy_readonly_flag():
    a = base_array()
    a.flags.writeable = False
    taken = _dlpack.take_capsule(a.__dlpack__(max_version=(1, 0)))
    assert taken.flags & _dlpack.DLPACK_FLAG_BITMASK_READ_ONLY
    assert _dlpack.array_from_taken(taken, ra.Device("cpu"))._buf.readonly


def test_import_rejects_a_tensor_on_another_device_and_still_frees_it(streams):
    a = base_array()
    alive = weakref.ref(a)
    producer = Producer(a.__dlpack__(max_version=(1, 0)), device=(2, 0))  # lies: it is CPU memory
    with pytest.raises(BufferError, match="tensor says"):
        _dlpack.import_dlpack(producer)
    del a, producer
    gc.collect()
    assert alive() is None


def test_import_rejects_a_newer_major_version_and_still_frees_it(streams):
    before = live_exports()
    x = fake_device_array(base_array())
    cap = x.__dlpack__(max_version=(1, 0))
    capsule_struct(cap).version.major = 2
    with pytest.raises(BufferError, match="version 2"):
        _dlpack.import_dlpack(Producer(cap))
    del cap, x
    assert live_exports() == before


def test_import_of_unsupported_dtype_raises_type_error_and_frees(streams):
    before = live_exports()
    x = fake_device_array(np.zeros(8, np.uint16))
    cap = x.__dlpack__(max_version=(1, 0))
    capsule_struct(cap).dl_tensor.dtype.code = 4  # now bfloat16
    with pytest.raises(TypeError, match="bfloat16"):
        _dlpack.import_dlpack(Producer(cap))
    del cap, x
    assert live_exports() == before


def test_import_rejects_cpu_producers_here():
    with pytest.raises(BufferError, match="device type 1"):
        _dlpack.import_dlpack(Producer(None, device=(1, 0)))


# -- __dlpack__ arguments ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, stream, current, synced",
    [
        ("cuda", None, 0, False),
        ("cuda", 1, 0, False),  # the legacy default stream: ordered after ours
        ("cuda", 1, 0x5000, False),  # ... also after rocarray's (blocking) streams
        ("cuda", -1, 0, False),  # the consumer orders itself
        ("cuda", 2, 0, True),  # per-thread default stream
        ("cuda", 0, 0, True),  # ambiguous on CUDA: be safe
        ("cuda", 0x7000, 0, True),  # another stream
        ("cuda", 0x7000, 0x7000, False),  # our current stream
        ("hip", None, 0, False),
        ("hip", 0, 0, False),
        ("hip", 1, 0, True),
        ("hip", 0x7000, 0x7000, False),
        ("hip", 0x7000, 0x6000, True),
    ],
)
def test_stream_argument_orders_the_consumer(streams, kind, stream, current, synced):
    streams.current = current
    x = fake_device_array(base_array(), device=f"{kind}:0")
    x.__dlpack__(stream=stream)
    assert streams.synced == ([x.device] if synced else [])


def test_stream_argument_is_checked(streams):
    x = fake_device_array(base_array())
    with pytest.raises(TypeError, match="stream"):
        x.__dlpack__(stream=1.5)
    with pytest.raises(ValueError, match="stream"):
        x.__dlpack__(stream=-2)


def test_dl_device(streams):
    x = fake_device_array(base_array())
    assert capsule_name(x.__dlpack__(dl_device=(2, 0))) == b"dltensor"
    with pytest.raises(BufferError, match="cannot export"):
        x.__dlpack__(dl_device=(2, 1))
    with pytest.raises(BufferError, match="cannot export"):
        x.__dlpack__(dl_device=(10, 0))
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    assert x.__dlpack_device__() == (2, 0)


# -- __cuda_array_interface__ -------------------------------------------------------------------


def test_cuda_array_interface_fields(streams):
    a = base_array()
    x = fake_device_array(a)
    cai = x.__cuda_array_interface__
    assert cai == {
        "shape": (5, 12), "typestr": "<f4", "data": (a.ctypes.data, False), "version": 3,
        "strides": None, "stream": 1,
    }
    v = x[1:, ::-3]
    cai = v.__cuda_array_interface__
    assert cai["data"] == (a[1:, ::-3].ctypes.data, False)
    assert cai["strides"] == a[1:, ::-3].strides and cai["shape"] == (4, 4)
    assert x[2:2].__cuda_array_interface__["data"] == (0, False)
    assert x[2, 3].__cuda_array_interface__["shape"] == ()
    assert fake_device_array(a, readonly=True).__cuda_array_interface__["data"][1] is True
    assert fake_device_array(a.astype(np.complex64)).__cuda_array_interface__["typestr"] == "<c8"
    assert fake_device_array(a > 3).__cuda_array_interface__["typestr"] == "|b1"
    streams.current = 0x9000
    assert x.__cuda_array_interface__["stream"] == 0x9000


def test_cuda_array_interface_absent_off_cuda():
    assert not hasattr(ra.asarray([1.0, 2.0], device="cpu"), "__cuda_array_interface__")
    assert not hasattr(fake_device_array(base_array(), device="hip:0"), "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="CUDA"):
        ra.asarray([1.0], device="cpu").__cuda_array_interface__


# ==========================================================================================
# NVIDIA GPU: CuPy and PyTorch
# ==========================================================================================

CUDA_DEVICES = gpu_devices("cuda")
NEEDS_CUPY = "needs CuPy with an NVIDIA GPU"
NEEDS_TORCH = "needs PyTorch built with CUDA and an NVIDIA GPU"


@pytest.fixture
def dev():
    if not CUDA_DEVICES:
        pytest.skip("needs an NVIDIA GPU with the CUDA driver (cuda-bindings)")
    return CUDA_DEVICES[0]


@pytest.fixture
def cp(dev):
    cupy = pytest.importorskip("cupy", reason=f"{NEEDS_CUPY} (cupy is not installed)")
    try:
        if cupy.cuda.runtime.getDeviceCount() <= dev.index:
            pytest.skip(f"{NEEDS_CUPY} (CuPy sees no device {dev.index})")
    except Exception as e:  # CuPy without a working CUDA installation
        pytest.skip(f"{NEEDS_CUPY} ({e})")
    with cupy.cuda.Device(dev.index):
        yield cupy


@pytest.fixture
def torch(dev):
    torch = pytest.importorskip("torch", reason=f"{NEEDS_TORCH} (torch is not installed)")
    if not torch.cuda.is_available() or torch.version.cuda is None:
        pytest.skip(f"{NEEDS_TORCH} (torch.cuda is not available)")
    return torch


def rand(shape, dtype, seed=0):
    return random_array(shape, dtype, np.random.default_rng(seed))


def churn_rocarray(dev, like: np.ndarray, avoid: int, n=8):
    """Allocate and fill arrays of ``like``'s size, which would reuse freed memory."""
    junk = [ra.full(like.shape, 1, dtype=like.dtype, device=dev) for _ in range(n)]
    assert all(j.data_ptr != avoid for j in junk if j.size)
    return junk


# A few layouts, made the same way from rocarray, CuPy and PyTorch arrays.
GPU_VIEWS = {
    "contiguous": lambda a: a,
    "strided": lambda a: a[::2, 1::3],
    "transposed": lambda a: a.T,
    "inner offset": lambda a: a[1:, 2:],
    "row": lambda a: a[3],
}
NEGATIVE_VIEW = lambda a: a[::-1, ::-2]  # noqa: E731 - not for PyTorch, which has none


# -- rocarray -> CuPy -----------------------------------------------------------------------


@requires_cuda
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_rocarray_to_cupy_dlpack(cp, dev, dtype):
    a = rand((6, 10), dtype)
    x = ra.asarray(a, device=dev)
    c = cp.from_dlpack(x)
    assert c.dtype == dtype and c.shape == x.shape
    assert c.data.ptr == x.data_ptr
    np.testing.assert_array_equal(c.get(), a)


@requires_cuda
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_rocarray_to_cupy_via_cuda_array_interface(cp, dev, dtype):
    a = rand((6, 10), dtype)
    x = ra.asarray(a, device=dev)
    c = cp.asarray(x)
    assert c.data.ptr == x.data_ptr and c.dtype == dtype
    np.testing.assert_array_equal(c.get(), a)


@requires_cuda
@pytest.mark.parametrize("view", list(GPU_VIEWS) + ["reversed"])
@pytest.mark.parametrize("how", ["dlpack", "cai"])
def test_rocarray_views_to_cupy(cp, dev, view, how):
    make = GPU_VIEWS.get(view, NEGATIVE_VIEW)
    a = rand((6, 10), ra.complex64)
    x = make(ra.asarray(a, device=dev))
    c = cp.from_dlpack(x) if how == "dlpack" else cp.asarray(x)
    assert c.shape == x.shape and c.strides == x.strides
    assert c.data.ptr == x.data_ptr
    np.testing.assert_array_equal(c.get(), make(a))


@requires_cuda
@pytest.mark.parametrize("how", ["dlpack", "cai"])
@pytest.mark.parametrize("dtype", [ra.float32, ra.bool, ra.complex64, ra.int16])
def test_rocarray_0d_and_empty_to_cupy(cp, dev, how, dtype):
    convert = cp.from_dlpack if how == "dlpack" else cp.asarray
    for a in (rand((), dtype), np.zeros((0,), dtype), np.zeros((3, 0, 2), dtype)):
        x = ra.asarray(a, device=dev)
        c = convert(x)
        assert c.shape == a.shape and c.dtype == dtype
        np.testing.assert_array_equal(c.get(), a)


@requires_cuda
@pytest.mark.parametrize("how", ["dlpack", "cai"])
def test_rocarray_and_cupy_share_memory(cp, dev, how):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = ra.asarray(a, device=dev)
    c = cp.from_dlpack(x) if how == "dlpack" else cp.asarray(x)
    c[0, 1] = 100  # CuPy writes (on its current stream, the legacy default one)
    assert x.get()[0, 1] == 100
    x[2, 3] = -7  # rocarray writes
    assert float(c[2, 3]) == -7
    c.T[1:3] *= 2  # through a CuPy view
    expected = a.copy()
    expected[0, 1], expected[2, 3] = 100, -7
    expected.T[1:3] *= 2
    np.testing.assert_array_equal(x.get(), expected)


@requires_cuda
@pytest.mark.parametrize("how", ["dlpack", "cai"])
def test_cupy_keeps_rocarray_memory_alive(cp, dev, how):
    before = live_exports()
    a = rand((256, 256), ra.float32)
    x = ra.asarray(a, device=dev)
    ptr = x.data_ptr
    c = cp.from_dlpack(x[1:]) if how == "dlpack" else cp.asarray(x[1:])
    del x
    gc.collect()
    junk = churn_rocarray(dev, a, ptr)
    np.testing.assert_array_equal(c.get(), a[1:])
    del c, junk
    assert live_exports() == before  # CuPy called the deleter


@requires_cuda
def test_cupy_copy_true(cp, dev):
    a = rand((4, 5), ra.float64)
    x = ra.asarray(a, device=dev)
    c = cp.from_dlpack(x, copy=True)
    assert c.data.ptr != x.data_ptr
    c[...] = 0
    np.testing.assert_array_equal(x.get(), a)


def busy_rocarray(dev, n=1 << 26, steps=30):
    """An array of ``steps`` written by a chain of kernels still running when this returns
    (enough work queued on rocarray's stream to outlast the return)."""
    y = ra.zeros(n, dtype=ra.float32, device=dev)
    for _ in range(steps):
        y = y + 1
    return y


@requires_cuda
def test_cupy_on_its_own_stream_sees_rocarray_writes(cp, dev):
    # Without the export's synchronization, CuPy's non-blocking stream reads the array
    # before rocarray's kernels finish (most runs, on a fast GPU).
    busy_rocarray(dev, 1024)  # compile the kernels first
    for _ in range(3):
        y = busy_rocarray(dev)
        with cp.cuda.Stream(non_blocking=True):
            c = cp.from_dlpack(y)  # CuPy passes its stream: the export waits for ours
            total = float(c[::1024].sum())
        assert total == 30.0 * (y.size // 1024)


# -- CuPy -> rocarray -----------------------------------------------------------------------


@requires_cuda
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_cupy_to_rocarray(cp, dev, dtype):
    a = rand((6, 10), dtype)
    c = cp.asarray(a)
    y = ra.from_dlpack(c)
    assert y.device == dev and y.dtype == dtype and y.shape == c.shape
    assert y.data_ptr == c.data.ptr
    np.testing.assert_array_equal(y.get(), a)


@requires_cuda
@pytest.mark.parametrize("view", list(GPU_VIEWS) + ["reversed"])
def test_cupy_views_to_rocarray(cp, dev, view):
    make = GPU_VIEWS.get(view, NEGATIVE_VIEW)
    a = rand((6, 10), ra.int32)
    c = make(cp.asarray(a))
    y = ra.from_dlpack(c)
    assert y.shape == c.shape and y.strides == c.strides and y.data_ptr == c.data.ptr
    np.testing.assert_array_equal(y.get(), make(a))
    # rocarray kernels run on the view
    np.testing.assert_array_equal((y + 1).get(), make(a) + 1)


@requires_cuda
@pytest.mark.parametrize("dtype", [ra.float32, ra.bool, ra.complex64, ra.uint8])
def test_cupy_0d_and_empty_to_rocarray(cp, dev, dtype):
    for a in (rand((), dtype), np.zeros((0,), dtype), np.zeros((2, 0), dtype)):
        y = ra.from_dlpack(cp.asarray(a))
        assert y.shape == a.shape and y.dtype == dtype
        np.testing.assert_array_equal(y.get(), a)


@requires_cuda
def test_cupy_and_rocarray_share_memory_from_cupy(cp, dev):
    c = cp.arange(12, dtype=cp.complex64).reshape(3, 4)
    y = ra.from_dlpack(c)
    y[1] = 5 + 1j
    assert complex(c[1, 2]) == 5 + 1j
    c[2, 0] = -3j
    assert complex(y[2, 0]) == -3j


@requires_cuda
def test_rocarray_keeps_cupy_memory_alive_then_frees_it(cp, dev):
    pool = cp.get_default_memory_pool()
    a = rand((512, 512), ra.float32)
    c = cp.asarray(a)
    ptr = c.data.ptr
    y = ra.from_dlpack(c[2:])
    del c
    gc.collect()
    junk = [cp.full(a.shape, 3, dtype=a.dtype) for _ in range(8)]
    assert all(j.data.ptr != ptr for j in junk)
    np.testing.assert_array_equal(y.get(), a[2:])
    del junk
    gc.collect()
    used = pool.used_bytes()
    del y
    gc.collect()
    assert pool.used_bytes() == used - a.nbytes  # rocarray called CuPy's deleter


@requires_cuda
def test_cupy_round_trip_returns_the_same_memory(cp, dev):
    x = ra.asarray(rand((3, 7), ra.float16), device=dev)[:, 1:]
    y = ra.from_dlpack(cp.from_dlpack(x))
    assert y.data_ptr == x.data_ptr and y.strides == x.strides
    np.testing.assert_array_equal(y.get(), x.get())


@requires_cuda
def test_rocarray_from_cupy_on_another_stream(cp, dev):
    n = 1 << 26
    for _ in range(3):
        with cp.cuda.Stream(non_blocking=True):
            c = cp.zeros(n, dtype=cp.float32)
            for _ in range(30):
                c = c + 1  # queued on CuPy's stream
            y = ra.from_dlpack(c)  # we pass our stream (legacy default): CuPy makes it wait
        np.testing.assert_array_equal(y[::4096].get(), np.full(n // 4096, 30, np.float32))


@requires_cuda
def test_rocarray_from_dlpack_copy(cp, dev):
    c = cp.arange(10, dtype=cp.int64)
    y = ra.from_dlpack(c, copy=True)
    assert y.data_ptr != c.data.ptr
    c[...] = 0
    np.testing.assert_array_equal(y.get(), np.arange(10))


@requires_cuda
def test_capsules_on_gpu(dev):
    before = live_exports()
    x = ra.asarray(np.arange(4.0), device=dev)
    assert capsule_name(x.__dlpack__()) == b"dltensor"
    assert capsule_name(x.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert live_exports() == before  # unconsumed capsules released their tensors


@requires_cuda
def test_numpy_from_dlpack_to_host(dev):
    a = rand((3, 4), ra.complex128)
    x = ra.asarray(a, device=dev)
    np.testing.assert_array_equal(np.from_dlpack(x.T, device="cpu"), a.T)
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(1, 0), copy=False)


# -- PyTorch ----------------------------------------------------------------------------------

TORCH_DTYPES = [d for d in ALL_DTYPES if d not in (ra.uint16, ra.uint32, ra.uint64)]


def to_numpy(t):
    return t.detach().cpu().numpy()


@requires_cuda
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_rocarray_to_torch(torch, dev, dtype):
    a = rand((6, 10), dtype)
    x = ra.asarray(a, device=dev)
    t = torch.from_dlpack(x)
    assert t.device == torch.device("cuda", dev.index)
    assert t.data_ptr() == x.data_ptr and tuple(t.shape) == x.shape
    np.testing.assert_array_equal(to_numpy(t), a)


@requires_cuda
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_torch_to_rocarray(torch, dev, dtype):
    a = rand((6, 10), dtype)
    t = torch.from_numpy(a).to(f"cuda:{dev.index}")
    y = ra.from_dlpack(t)
    assert y.device == dev and y.dtype == dtype
    assert y.data_ptr == t.data_ptr()
    np.testing.assert_array_equal(y.get(), a)


@requires_cuda
@pytest.mark.parametrize("view", GPU_VIEWS)
def test_views_between_rocarray_and_torch(torch, dev, view):
    make = GPU_VIEWS[view]
    a = rand((6, 10), ra.float64)
    x = make(ra.asarray(a, device=dev))
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.data_ptr
    assert tuple(s * 8 for s in t.stride()) == x.strides or x.size <= 1
    np.testing.assert_array_equal(to_numpy(t), make(a))
    t2 = make(torch.from_numpy(a).cuda(dev.index))
    y = ra.from_dlpack(t2)
    assert y.data_ptr == t2.data_ptr()
    np.testing.assert_array_equal(y.get(), make(a))


@requires_cuda
@pytest.mark.parametrize("dtype", [ra.float32, ra.bool, ra.complex64, ra.int64])
def test_torch_0d_and_empty(torch, dev, dtype):
    for a in (np.asarray(rand((), dtype)), np.zeros((0,), dtype), np.zeros((4, 0, 3), dtype)):
        t = torch.from_dlpack(ra.asarray(a, device=dev))
        assert tuple(t.shape) == a.shape
        np.testing.assert_array_equal(to_numpy(t), a)
        y = ra.from_dlpack(torch.from_numpy(a).cuda(dev.index))
        assert y.shape == a.shape and y.dtype == dtype
        np.testing.assert_array_equal(y.get(), a)


@requires_cuda
def test_rocarray_and_torch_share_memory(torch, dev):
    x = ra.asarray(np.zeros((4, 4), np.float32), device=dev)
    t = torch.from_dlpack(x)
    t[1, :] = 3  # PyTorch's default stream is the legacy default stream, like ours
    assert x.get()[1].tolist() == [3, 3, 3, 3]
    x[:, 2] = 9
    assert to_numpy(t)[:, 2].tolist() == [9, 9, 9, 9]
    y = ra.from_dlpack(t)  # and back: the same memory
    assert y.data_ptr == x.data_ptr


@requires_cuda
def test_torch_keeps_rocarray_memory_alive(torch, dev):
    before = live_exports()
    a = rand((256, 256), ra.float32)
    x = ra.asarray(a, device=dev)
    ptr = x.data_ptr
    t = torch.from_dlpack(x.T)
    del x
    gc.collect()
    junk = churn_rocarray(dev, a, ptr)
    np.testing.assert_array_equal(to_numpy(t), a.T)
    del t, junk
    assert live_exports() == before  # PyTorch called the deleter


@requires_cuda
def test_rocarray_keeps_torch_memory_alive_then_frees_it(torch, dev):
    a = rand((512, 512), ra.float32)
    torch.cuda.synchronize()
    t = torch.from_numpy(a).cuda(dev.index)
    allocated = torch.cuda.memory_allocated(dev.index)
    ptr = t.data_ptr()
    y = ra.from_dlpack(t[:, 1:])
    del t
    gc.collect()
    junk = [torch.full(a.shape, 2.0, device=f"cuda:{dev.index}") for _ in range(8)]
    assert all(j.data_ptr() != ptr for j in junk)
    np.testing.assert_array_equal(y.get(), a[:, 1:])
    del junk
    gc.collect()
    assert torch.cuda.memory_allocated(dev.index) == allocated
    del y
    gc.collect()
    assert torch.cuda.memory_allocated(dev.index) == allocated - a.nbytes


@requires_cuda
def test_torch_on_its_own_stream_sees_rocarray_writes(torch, dev):
    busy_rocarray(dev, 1024)
    s = torch.cuda.Stream(dev.index)
    for _ in range(3):
        y = busy_rocarray(dev)
        with torch.cuda.stream(s):
            t = torch.from_dlpack(y)  # PyTorch passes its stream: the export waits for ours
            total = float(t[::1024].double().sum())
        assert total == 30.0 * (y.size // 1024)


@requires_cuda
def test_rocarray_from_torch_on_another_stream(torch, dev):
    s = torch.cuda.Stream(dev.index)
    n = 1 << 26
    for _ in range(3):
        with torch.cuda.stream(s):
            t = torch.zeros(n, device=f"cuda:{dev.index}")
            for _ in range(30):
                t = t + 1
            y = ra.from_dlpack(t)  # PyTorch makes our (legacy default) stream wait for s
        np.testing.assert_array_equal(y[::4096].get(), np.full(n // 4096, 30, np.float32))


@requires_cuda
def test_torch_as_tensor_via_cuda_array_interface(torch, dev):
    a = rand((5, 6), ra.float32)
    x = ra.asarray(a, device=dev)[1:, ::2]
    t = torch.as_tensor(x, device=f"cuda:{dev.index}")
    assert t.data_ptr() == x.data_ptr
    np.testing.assert_array_equal(to_numpy(t), a[1:, ::2])
