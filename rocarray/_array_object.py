"""The array type: a buffer, a shape, byte strides, a byte offset, a dtype and a device.

Part of the array core, which imports no op module.  The methods that run kernels
(operators, indexing, ``get``, ``astype``, ``reshape``, ``sum``, ``__dlpack__``, ...) are
installed on the class, by name, by the ops modules that define them; importing
``rocarray`` imports them all.
"""

from __future__ import annotations

import builtins
import ctypes
import sys

import numpy as np

from ._buffer import Buffer, allocate, host_ndarray
from ._device import Device, mixed_devices


def _c_strides(shape, itemsize: int) -> tuple:
    strides = []
    s = itemsize
    for n in reversed(shape):
        strides.append(s)
        s *= max(n, 1)
    return tuple(reversed(strides))


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _dense(shape, strides, itemsize: int) -> bool:
    """Whether the axes, innermost first, lay the elements out one after the other."""
    expected = itemsize
    for n, s in zip(shape, strides):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


#: The most bytes an array may span: the largest ``ssize_t`` (NumPy's limit too).  Byte
#: strides and offsets are signed 64-bit words in every kernel and every runtime call.
MAX_NBYTES = (1 << 63) - 1


def check_size(shape: tuple, dtype: np.dtype) -> None:
    """ValueError when no array of ``shape`` and ``dtype`` can exist (its bytes, zero
    dimensions left out as NumPy does so that every stride fits, pass ``MAX_NBYTES``)."""
    nbytes = dtype.itemsize
    for n in shape:
        if n:
            nbytes *= n
    if nbytes > MAX_NBYTES:
        raise ValueError(
            f"array is too big: shape {shape} of {dtype} would take {nbytes} bytes, more than "
            f"the largest possible array ({MAX_NBYTES} bytes)"
        )


class Array:
    """An n-dimensional array on a device (the CPU, a CUDA or a HIP GPU): ``rocarray.ndarray``.

    An array is a view of device memory: a buffer, a shape, byte strides, an offset and a dtype.
    Arrays are made by the creation functions (``asarray``, ``zeros``, ``arange``...), never
    by calling ``Array(...)`` (a ``TypeError``). Operators (``+``, ``<``, ``@``, ``[...]``...)
    and methods (``sum``, ``reshape``, ``astype``, ``get``, ``to_device``...) run on the
    array's device; mixing devices in one operation is a ``TypeError`` saying to use
    ``to_device``.

    Differences from NumPy: no implicit conversion of a GPU array to NumPy (``np.asarray(x)``
    of a GPU array is a ``TypeError``; use ``x.get()`` or ``rocarray.asnumpy``), as in CuPy.

    Examples:
        >>> import rocarray as ra
        >>> x = ra.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> (x.shape, x.dtype, x.T[0, 1], float(x.sum()))
        ((2, 2), dtype('float64'), array(3.), 10.0)
    """

    __slots__ = ("_buf", "_shape", "_strides", "_offset", "_dtype", "_size", "_contig", "__weakref__")
    __array_priority__ = 100  # NumPy defers binary operators to us

    # -- construction (the one private constructor) -------------------------------------
    @classmethod
    def _new(cls, buf: Buffer, shape: tuple, strides: tuple, offset: int, dtype: np.dtype) -> "Array":
        self = object.__new__(cls)
        self._buf = buf
        self._shape = shape
        self._strides = strides
        self._offset = offset
        self._dtype = dtype
        self._size = _prod(shape)
        self._contig = None  # C-contiguity, found when first asked
        return self

    @classmethod
    def _empty(cls, shape: tuple, dtype: np.dtype, device: Device, strides: "tuple | None" = None) -> "Array":
        """A new C-contiguous array (uninitialised), or one of ``strides``, a dense layout
        of ``shape`` in some order of its axes; ValueError for a shape no array can have,
        MemoryError when the device cannot give the memory."""
        size = _prod(shape)
        nbytes = size * dtype.itemsize
        if nbytes > MAX_NBYTES or not size:  # (one test on the common path)
            check_size(shape, dtype)
        out = cls._on_buffer(allocate(device, nbytes), shape, size, dtype)
        if strides is not None and strides != out._strides:
            out._strides, out._contig = strides, None
        return out

    @classmethod
    def _on_buffer(cls, buf: Buffer, shape: tuple, size: int, dtype: np.dtype) -> "Array":
        """A C-contiguous array of ``size`` elements filling the new buffer ``buf``.
        (``_launch.ContiguousRunner`` writes the same fields out on its warm path.)"""
        self = object.__new__(cls)
        self._buf = buf
        self._shape = shape
        self._strides = (dtype.itemsize,) if len(shape) == 1 else _c_strides(shape, dtype.itemsize)
        self._offset = 0
        self._dtype = dtype
        self._size = size
        self._contig = True
        return self

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "rocarray.Array cannot be constructed directly; use rocarray.asarray, "
            "rocarray.empty, rocarray.zeros, ..."
        )

    # -- attributes ----------------------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        """The data type of the elements, a NumPy ``dtype`` (``x.dtype == rocarray.float32``)."""
        return self._dtype

    @property
    def device(self) -> Device:
        """The ``Device`` the array's memory lives on."""
        return self._buf.device

    @property
    def shape(self) -> tuple:
        """The length of each axis, a tuple of ints."""
        return self._shape

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self._shape)

    @property
    def size(self) -> int:
        """The number of elements (the product of the shape)."""
        return self._size

    @property
    def strides(self) -> tuple:
        """The step in bytes between neighbours along each axis, like NumPy's (an extension of the standard)."""
        return self._strides

    @property
    def itemsize(self) -> int:
        """The size of one element in bytes."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """The size of the elements in bytes (``size * itemsize``)."""
        return self._size * self._dtype.itemsize

    @property
    def data_ptr(self) -> int:
        """The address of the first element in its device's memory (CuPy's ``x.data.ptr``)."""
        return self._buf.ptr + self._offset

    @property
    def T(self) -> "Array":
        # Note: the standard defines x.T for 2-D arrays only; like NumPy and CuPy, rocarray
        # reverses the axes of an array of any dimension.
        """The array with its axes reversed, a view.

        Note: the standard defines ``x.T`` for 2-D arrays only; like NumPy and CuPy, rocarray
        reverses the axes of an array of any dimension.
        """
        return self._view(self._shape[::-1], self._strides[::-1], self._offset)

    @property
    def mT(self) -> "Array":
        """The array with its last two axes swapped, a view (``ValueError`` for fewer than 2 axes)."""
        if self.ndim < 2:
            raise ValueError(f"x.mT requires at least 2 dimensions, got {self.ndim}")
        shape = self._shape[:-2] + (self._shape[-1], self._shape[-2])
        strides = self._strides[:-2] + (self._strides[-1], self._strides[-2])
        return self._view(shape, strides, self._offset)

    @property
    def flags(self) -> dict:
        """NumPy-style flags: ``C_CONTIGUOUS``, ``F_CONTIGUOUS``, ``OWNDATA`` (always False) and ``WRITEABLE``."""
        return {
            "C_CONTIGUOUS": self.is_c_contiguous(),
            "F_CONTIGUOUS": self._is_f_contiguous(),
            "OWNDATA": False,
            "WRITEABLE": not self._buf.readonly,
        }

    def is_c_contiguous(self) -> bool:
        """Whether the elements lie in C order without gaps."""
        c = self._contig
        if c is None:
            c = self._contig = self._find_c_contiguous()
        return c

    def _find_c_contiguous(self) -> bool:
        return self._size <= 1 or _dense(reversed(self._shape), reversed(self._strides), self._dtype.itemsize)

    def _is_f_contiguous(self) -> bool:
        return self._size <= 1 or _dense(self._shape, self._strides, self._dtype.itemsize)

    def _check_writable(self, what: str) -> None:
        """ValueError unless this array can be written into: its memory is not read-only,
        and no element is reached twice (an axis of stride 0 and length > 1, as a
        broadcast leaves: NumPy marks those read-only; writes would collide)."""
        if self._buf.readonly:
            raise ValueError(f"{what} is read-only")
        if not self._size or self.is_c_contiguous():  # (nothing reached twice)
            return
        for n, s in zip(self._shape, self._strides):
            if s == 0 and n > 1:
                raise ValueError(f"{what} is a broadcast view (its elements share memory); "
                                 "write into a copy of it")
        # no element reached twice if, the axes taken by growing step, each step passes the
        # extent of the axes below it (sliding windows and as_strided views may fail this)
        reach = self._dtype.itemsize
        for s, n in sorted((abs(s), n) for n, s in zip(self._shape, self._strides) if n > 1):
            if s < reach:
                raise ValueError(f"{what} is a view whose elements may share memory (overlapping windows or "
                                 "strides); write into a copy of it")
            reach = s * (n - 1) + reach

    def _view(self, shape, strides, offset) -> "Array":
        return Array._new(self._buf, tuple(shape), tuple(strides), offset, self._dtype)

    def __array_namespace__(self, api_version=None):
        """The ``rocarray`` module (the array API's namespace of this array).

        Raises ValueError for an ``api_version`` rocarray does not implement (2021.12 to 2025.12
        are accepted: every earlier version is a subset of 2025.12 for the names rocarray has, so
        one namespace serves them all).
        """
        if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12", "2024.12",
                                                           "2025.12"):
            raise ValueError(f"rocarray does not implement array API version {api_version!r}")
        return sys.modules[__package__]  # (the package is imported before any of its modules)

    # -- moving data -----------------------------------------------------------------------
    def _host(self) -> np.ndarray:
        """NumPy view of a CPU array (no copy)."""
        return host_ndarray(self._buf, self._offset, self._shape, self._strides, self._dtype)

    def __array__(self, dtype=None, copy=None):
        """A NumPy view of a CPU array (``np.asarray(x)``); a copy for ``copy=True`` or another dtype.

        Raises:
            TypeError: for an array on a GPU (use ``x.get()``: no implicit transfer, as in CuPy).
            ValueError: a dtype change with ``copy=False``.
        """
        if self._buf.device.kind != "cpu":
            raise TypeError(
                f"Implicit conversion of an array on {self.device} to a NumPy array is not "
                "allowed; use x.get() or rocarray.asnumpy(x) to copy it to the host"
            )
        a = self._host()
        if copy is True:
            a = a.copy()
        if dtype is not None and np.dtype(dtype) != a.dtype:
            if copy is False:
                raise ValueError("__array__: a dtype change needs a copy, but copy=False")
            a = a.astype(dtype)
        return a

    def __dlpack_device__(self):
        """The DLPack device of the array: ``(1, 0)`` on the CPU, ``(2, n)`` on ``cuda:n``, ``(10, n)`` on ``hip:n``."""
        kind = self.device.kind
        code = {"cpu": 1, "cuda": 2, "hip": 10}[kind]
        return (code, self.device.index)

    # -- Python protocol ---------------------------------------------------------------------
    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def _scalar(self, what: str):
        if self._size != 1:
            raise TypeError(
                f"only arrays with one element can be converted to a Python {what}; "
                f"this array has shape {self._shape}"
            )
        buf = self._buf
        device = buf.device
        size = self._dtype.itemsize
        if device.kind != "cpu":
            # one element of a GPU array (a branch's or a result size's read-back): its
            # bytes straight into host memory, with no host array or layout work around it
            raw = ctypes.create_string_buffer(size)
            device.runtime.copy_device_to_host(device.index, ctypes.addressof(raw), buf.ptr + self._offset, size)
        else:  # (host memory, written by launches that have returned: read where it is)
            raw = (ctypes.c_char * size).from_address(buf.ptr + self._offset)
        return np.frombuffer(raw, self._dtype, 1)[0].item()

    def __bool__(self) -> bool:
        return builtins.bool(self._scalar("bool"))

    def __int__(self) -> int:
        v = self._scalar("int")
        if isinstance(v, complex):
            raise TypeError("int() of a complex array; use real() first")
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            raise ValueError(f"cannot convert {v} to an int")
        return int(v)

    def __float__(self) -> float:
        v = self._scalar("float")
        if isinstance(v, complex):
            raise TypeError("float() of a complex array; use real() or abs() first")
        return float(v)

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self._dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, not {self._dtype}")
        if self._shape != ():
            raise TypeError(f"only 0-d integer arrays can be used as an index; shape is {self._shape}")
        return int(self._scalar("int"))

    def __repr__(self) -> str:
        a = self.get()
        r = np.array_repr(a)
        if self.device.kind != "cpu":
            r = r[:-1] + f", device='{self.device}')"
        return r

    def __str__(self) -> str:
        return str(self.get())

    def __format__(self, spec: str) -> str:
        # a 0-d array formats as its value (``f"{loss:.4f}"``), as NumPy's and CuPy's do
        if not self._shape:
            return format(self._scalar("value to format"), spec)
        if spec:
            raise TypeError(f"format spec {spec!r} given for an array of shape {self._shape}: only 0-d arrays "
                            "take one (format its elements, or the array with an empty spec)")
        return str(self)

    def __contains__(self, value) -> bool:
        # NumPy's ``value in x``: whether any element equals ``value`` (``any``: the method
        # ``_numpy_methods`` gives the class, so this module imports no reduction)
        return builtins.bool((self == value).any())

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

    def __hash__(self):
        raise TypeError("rocarray arrays are unhashable")

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __getstate__(self):
        return {"data": self.get(), "device": str(self.device)}

    def item(self):
        """The single element of a one-element array as a Python scalar (``TypeError`` otherwise)."""
        return self._scalar("scalar")

    def tolist(self):
        """The elements as nested Python lists (copied to the host)."""
        return self.get().tolist()


def _check_same_device(fname: str, *arrays) -> Device:
    dev = None
    for a in arrays:
        if isinstance(a, Array):
            if dev is None:
                dev = a._buf.device
            elif a._buf.device is not dev:
                raise mixed_devices(fname, dev, a._buf.device)
    return dev

