"""``rocarray.fft``: the array API standard's FFT extension on every device.

The arguments (``n`` / ``s``, ``axis`` / ``axes``, ``norm``, dtypes) are checked here once,
and the transform runs in the device's backend (``rocarray.vendor``): pocketfft through
``numpy.fft`` on the CPU, cuFFT on CUDA, hipFFT on ROCm, with plans cached by shape.

NumPy's ``fft2``/``ifft2``/``rfft2``/``irfft2`` are the n-d transforms over two axes
(default the last two), with NumPy's positional signature.

Dtypes: float32 and complex64 inputs give complex64 / float32 results (never promoted to
double); integer inputs are computed in float64.  ``fft``/``ifft``/``fftn``/``ifftn``,
``irfft``/``irfftn`` and ``hfft`` also take real input (read as complex with zero
imaginary part, as NumPy does); ``rfft``/``rfftn``/``ihfft`` refuse complex input.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtypes
from .._array_object import Array
from .._creation_functions import asarray
from .._data_type_functions import astype
from .._device import as_device, default_device
from .._manipulation_functions import roll
from .._views import as_int, normalize_axes
from .. import vendor

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_COMPLEX = {4: _dtypes.complex64, 8: _dtypes.complex128}
_REAL = {8: _dtypes.float32, 16: _dtypes.float64}


def _input(x, name: str, wants: str) -> Array:
    """``x`` converted to what transform ``name`` reads: ``wants`` is "c" (complex; real
    input is widened to the complex dtype of its precision) or "r" (real floating)."""
    if not isinstance(x, Array):
        raise TypeError(f"fft.{name}: x must be a rocarray array, not {type(x).__name__}")
    kind = x.dtype.kind
    if kind in "biu":
        x = astype(x, _dtypes.float64)
    elif kind not in "fc":
        raise TypeError(f"fft.{name}: expected a numeric array, got {x.dtype}")
    elif x.dtype == _dtypes.float16:
        raise TypeError(f"fft.{name}: float16 is not supported; use astype(x, float32)")
    if wants == "r" and x.dtype.kind == "c":
        raise TypeError(f"fft.{name}: expected a real floating-point array, got {x.dtype}")
    if wants == "c" and x.dtype.kind == "f":
        x = astype(x, _COMPLEX[x.dtype.itemsize])
    return x


def _norm(norm, name: str) -> str:
    if norm not in _NORMS:
        raise ValueError(f"fft.{name}: norm must be 'backward', 'ortho' or 'forward', not {norm!r}")
    return norm


def _length(v, name: str, what: str) -> int:
    return as_int(v, f"fft.{name}", what)


def _plan(x: Array, name: str, s, axes, half_last: bool):
    """(s, axes) as tuples: every axis once, every length >= 1 (-1: the input's length, or
    ``2 * (m - 1)`` for the last axis of a real-output transform)."""
    if axes is None:
        axes = tuple(range(x.ndim - (len(s) if s is not None else x.ndim), x.ndim))
    else:
        if isinstance(axes, int):
            raise TypeError(f"fft.{name}: axes must be a sequence of ints, not an int")
        axes = tuple(normalize_axes(a, x.ndim, f"fft.{name}")[0] for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"fft.{name}: repeated axes {axes}")
    if s is None:
        s = (-1,) * len(axes)
    else:
        s = tuple(_length(v, name, "each entry of s") for v in s)
        if len(s) != len(axes):
            raise ValueError(f"fft.{name}: s has {len(s)} entries for {len(axes)} axes")
    out = []
    for i, (v, a) in enumerate(zip(s, axes)):
        if v == -1:
            v = 2 * (x.shape[a] - 1) if half_last and i == len(axes) - 1 else x.shape[a]
        if v < 1:
            raise ValueError(f"fft.{name}: invalid number of data points ({v}) along axis {a}; "
                             "it must be at least 1")
        out.append(v)
    if not axes:
        raise ValueError(f"fft.{name}: no axes to transform")
    return tuple(out), axes


def _one(kind: str, x, n, axis, norm, wants: str, half: bool, result: str) -> Array:
    x = _input(x, kind, wants)
    norm = _norm(norm, kind)
    if x.ndim == 0:
        raise ValueError(f"fft.{kind}: x must have at least one dimension")
    if isinstance(axis, builtins.bool) or not isinstance(axis, int):
        raise TypeError(f"fft.{kind}: axis must be an int, not {type(axis).__name__}")
    (ax,) = normalize_axes(axis, x.ndim, f"fft.{kind}")
    if n is not None:
        n = _length(n, kind, "n")
        if n < 1:
            raise ValueError(f"fft.{kind}: invalid number of data points ({n}); it must be at least 1")
    else:
        n = 2 * (x.shape[ax] - 1) if half else x.shape[ax]
        if n < 1:
            raise ValueError(f"fft.{kind}: invalid number of data points ({n}) along axis {ax}; "
                             "it must be at least 1")
    return vendor.backend(x.device).fft(kind, x, (n,), (ax,), norm, _out_dtype(x, result))


def _many(kind: str, x, s, axes, norm, wants: str, half: bool, result: str, transform=None) -> Array:
    """The n-d transforms; ``kind`` names the function in errors, ``transform`` (default
    ``kind``) the backends' transform (``fftn``, ``rfftn`` ...)."""
    x = _input(x, kind, wants)
    norm = _norm(norm, kind)
    if x.ndim == 0:
        raise ValueError(f"fft.{kind}: x must have at least one dimension")
    s, axes = _plan(x, kind, s, axes, half)
    return vendor.backend(x.device).fft(transform or kind, x, s, axes, norm, _out_dtype(x, result))


def _out_dtype(x: Array, result: str):
    size = x.dtype.itemsize if x.dtype.kind == "f" else x.dtype.itemsize // 2
    return _COMPLEX[size] if result == "c" else _REAL[2 * size]


def fft(x: Array, /, *, n=None, axis: int = -1, norm: str = "backward") -> Array:
    """The 1-d discrete Fourier transform of ``x`` along ``axis``, cropped or zero-padded to
    ``n`` points; ``norm`` scales the forward transform by 1 ("backward"), 1/sqrt(n)
    ("ortho") or 1/n ("forward").

    >>> import rocarray as ra
    >>> ra.fft.fft(ra.asarray([1.0, 0.0, 0.0, 0.0]))
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    return _one("fft", x, n, axis, norm, "c", False, "c")


def ifft(x: Array, /, *, n=None, axis: int = -1, norm: str = "backward") -> Array:
    """The inverse of ``fft`` (``norm="backward"`` divides by n).

    >>> ra.fft.ifft(ra.fft.fft(ra.asarray([1.0, 2.0])))
    array([1.+0.j, 2.+0.j])
    """
    return _one("ifft", x, n, axis, norm, "c", False, "c")


def rfft(x: Array, /, *, n=None, axis: int = -1, norm: str = "backward") -> Array:
    """The FFT of real ``x`` along ``axis``: the n//2 + 1 non-negative frequencies.

    >>> ra.fft.rfft(ra.asarray([1.0, 1.0, 1.0, 1.0]))
    array([4.+0.j, 0.+0.j, 0.+0.j])
    """
    return _one("rfft", x, n, axis, norm, "r", False, "c")


def irfft(x: Array, /, *, n=None, axis: int = -1, norm: str = "backward") -> Array:
    """The inverse of ``rfft``: ``n`` real points (default ``2 * (m - 1)``) from the m
    non-negative frequencies along ``axis``.

    >>> ra.fft.irfft(ra.asarray([4 + 0j, 0j, 0j]))
    array([1., 1., 1., 1.])
    """
    return _one("irfft", x, n, axis, norm, "c", True, "r")


def hfft(x: Array, /, *, n=None, axis: int = -1, norm: str = "backward") -> Array:
    """The FFT of a signal with Hermitian symmetry given by its first half: ``n`` real
    points (default ``2 * (m - 1)``).

    >>> ra.fft.hfft(ra.asarray([1 + 0j, 0j, 0j]))
    array([1., 1., 1., 1.])
    """
    return _one("hfft", x, n, axis, norm, "c", True, "r")


def ihfft(x: Array, /, *, n=None, axis: int = -1, norm: str = "backward") -> Array:
    """The inverse of ``hfft``: the n//2 + 1 first points of the inverse FFT of real ``x``.

    >>> ra.fft.ihfft(ra.asarray([1.0, 1.0, 1.0, 1.0]))
    array([1.-0.j, 0.-0.j, 0.-0.j])
    """
    return _one("ihfft", x, n, axis, norm, "r", False, "c")


def fftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The n-d FFT over ``axes`` (default: the last ``len(s)`` axes, or all), each cropped or
    zero-padded to the matching entry of ``s`` (-1: keep the length).

    >>> ra.fft.fftn(ra.ones((2, 2)))
    array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]])
    """
    return _many("fftn", x, s, axes, norm, "c", False, "c")


def ifftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The inverse of ``fftn``.

    >>> ra.fft.ifftn(ra.fft.fftn(ra.ones((2, 2))))
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]])
    """
    return _many("ifftn", x, s, axes, norm, "c", False, "c")


def rfftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The n-d FFT of real ``x``: the last axis keeps its n//2 + 1 non-negative frequencies.

    >>> ra.fft.rfftn(ra.ones((2, 4)))
    array([[8.+0.j, 0.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j, 0.+0.j]])
    """
    return _many("rfftn", x, s, axes, norm, "r", False, "c")


def irfftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The inverse of ``rfftn`` (the last axis gives ``s[-1]`` real points, default
    ``2 * (m - 1)``).

    >>> ra.fft.irfftn(ra.fft.rfftn(ra.ones((2, 4))))
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]])
    """
    return _many("irfftn", x, s, axes, norm, "c", True, "r")


def _two(kind: str, x, s, axes, norm, wants: str, half: bool, result: str) -> Array:
    """NumPy's ``fft2`` family: ``_many`` over ``axes`` (NumPy's default: the last two);
    ``norm=None`` is "backward", as NumPy's."""
    if axes is None:
        raise TypeError(f"fft.{kind}: axes must be a sequence of ints, not None")
    return _many(kind, x, s, axes, "backward" if norm is None else norm, wants, half, result,
                 transform=kind[:-1] + "n")


def fft2(x: Array, /, s=None, axes=(-2, -1), norm: str = "backward") -> Array:
    """The 2-d FFT of ``x`` over ``axes`` (default the last two), each cropped or zero-padded
    to the matching entry of ``s`` (-1: keep the length); ``fftn`` with NumPy's ``fft2``
    signature (``norm=None`` is "backward").

    Raises:
        ValueError: ``s`` and ``axes`` of different lengths, a length below 1, repeated
            axes (NumPy transforms a repeated axis twice), a bad ``norm``.
        IndexError: an axis out of range (a 1-d ``x`` with the default axes).

    >>> ra.fft.fft2(ra.ones((2, 2)))
    array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]])
    """
    return _two("fft2", x, s, axes, norm, "c", False, "c")


def ifft2(x: Array, /, s=None, axes=(-2, -1), norm: str = "backward") -> Array:
    """The inverse of ``fft2`` (``ifftn`` over two axes, default the last two).

    >>> ra.fft.ifft2(ra.fft.fft2(ra.ones((2, 2))))
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]])
    """
    return _two("ifft2", x, s, axes, norm, "c", False, "c")


def rfft2(x: Array, /, s=None, axes=(-2, -1), norm: str = "backward") -> Array:
    """The 2-d FFT of real ``x`` (``rfftn`` over two axes, default the last two): the last
    axis keeps its n//2 + 1 non-negative frequencies; complex input is a TypeError.

    >>> ra.fft.rfft2(ra.ones((2, 4)))
    array([[8.+0.j, 0.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j, 0.+0.j]])
    """
    return _two("rfft2", x, s, axes, norm, "r", False, "c")


def irfft2(x: Array, /, s=None, axes=(-2, -1), norm: str = "backward") -> Array:
    """The inverse of ``rfft2`` (``irfftn`` over two axes, default the last two): the last
    axis gives ``s[-1]`` real points, default ``2 * (m - 1)``.

    >>> ra.fft.irfft2(ra.fft.rfft2(ra.ones((2, 4))))
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]])
    """
    return _two("irfft2", x, s, axes, norm, "c", True, "r")


def _freq_dtype(dtype, name: str):
    if dtype is None:
        return _dtypes.default_float
    dtype = _dtypes.as_dtype(dtype)
    if dtype.kind != "f" or dtype == _dtypes.float16:
        raise TypeError(f"fft.{name}: dtype must be float32 or float64, not {dtype}")
    return dtype


def fftfreq(n: int, /, *, d: float = 1.0, dtype=None, device=None) -> Array:
    """The sample frequencies of an ``n``-point FFT with sample spacing ``d``:
    ``[0, 1, ..., n//2 - 1 (or (n-1)//2), -n//2, ..., -1] / (d * n)``.

    >>> ra.fft.fftfreq(4)
    array([ 0.  ,  0.25, -0.5 , -0.25])
    """
    return _frequencies("fftfreq", np.fft.fftfreq, n, d, dtype, device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype=None, device=None) -> Array:
    """The n//2 + 1 non-negative sample frequencies of ``rfft`` of ``n`` points.

    >>> ra.fft.rfftfreq(4)
    array([0.  , 0.25, 0.5 ])
    """
    return _frequencies("rfftfreq", np.fft.rfftfreq, n, d, dtype, device)


def _frequencies(name: str, numpy_fn, n, d, dtype, device) -> Array:
    """``fftfreq`` / ``rfftfreq``: NumPy's few values (exact, no device work worth a kernel)
    made on the host and moved to ``device``."""
    n = _length(n, name, "n")
    if n < 1:
        raise ValueError(f"fft.{name}: n must be at least 1, got {n}")
    dtype = _freq_dtype(dtype, name)
    dev = default_device() if device is None else as_device(device)
    return asarray(numpy_fn(n, d).astype(dtype), device=dev)


def _shift(x, axes, name: str, sign: int) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"fft.{name}: x must be a rocarray array, not {type(x).__name__}")
    if axes is None:
        axes = tuple(range(x.ndim))
    else:
        axes = normalize_axes(axes, x.ndim, f"fft.{name}")
    if not axes:
        return x.copy()
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return roll(x, shifts, axis=axes)


def fftshift(x: Array, /, *, axes=None) -> Array:
    """``x`` with the zero frequency moved to the middle of each axis in ``axes`` (default all).

    >>> ra.fft.fftshift(ra.fft.fftfreq(4))
    array([-0.5 , -0.25,  0.  ,  0.25])
    """
    return _shift(x, axes, "fftshift", 1)


def ifftshift(x: Array, /, *, axes=None) -> Array:
    """The inverse of ``fftshift``.

    >>> ra.fft.ifftshift(ra.fft.fftshift(ra.fft.fftfreq(5)))
    array([ 0. ,  0.2,  0.4, -0.4, -0.2])
    """
    return _shift(x, axes, "ifftshift", -1)
