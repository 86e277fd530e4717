"""NumPy's numerical helpers beside the standard's: ``identity``, ``tri``, ``logspace``,
``geomspace``, ``float_power``, ``divmod``, ``modf``, ``trapezoid``, ``gradient``,
``unwrap``, ``vander``, ``polyval``, the window functions (``bartlett``, ``blackman``,
``hamming``, ``hanning``, ``kaiser``) and NumPy's float bit functions and others of its
ufuncs that need more than one catalogue row (``ldexp``, ``frexp``, ``spacing``,
``bitwise_count``, ``fix``, ``i0``), with NumPy's signatures and result dtypes, composed of
the standard's functions and the catalogue's rows (so on the device)."""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from . import _dtypes
from ._array_object import Array
from ._creation_functions import arange, asarray, copy_into, eye, linspace, ones, zeros
from ._data_type_functions import astype
from ._elementwise_functions import (_ufunc, abs as abs_, add, copysign, cos, divide, equal, floor_divide, greater,
                                     isinf, less, less_equal, logical_and, multiply, pow, remainder, sqrt, subtract,
                                     trunc, where)
from ._manipulation_functions import concat, diff, reshape
from ._numpy_names import _as_array, _axis
from ._statistical_functions import cumulative_prod, cumulative_sum, sum as _sum
from ._views import _axis_slice, broadcast_shapes, broadcast_to, normalize_axes


def _count(n, name: str) -> int:
    if isinstance(n, builtins.bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer, not {type(n).__name__}")
    return operator.index(n)


def _real_scalar(v, name: str, what: str) -> float:
    if isinstance(v, builtins.bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: {what} must be a real Python or NumPy scalar, not {type(v).__name__}")
    return float(v)


# -- creation -------------------------------------------------------------------------------------

def identity(n, dtype=None, *, device=None) -> Array:
    """``identity(n, dtype=None, *, device=None)``: the ``n`` x ``n`` identity matrix (float64
    unless ``dtype`` says otherwise).

    Examples:
        >>> import rocarray as ra
        >>> ra.identity(2, dtype=ra.int32)
        array([[1, 0],
               [0, 1]], dtype=int32)
    """
    n = _count(n, "identity")
    return eye(n, dtype=dtype if dtype is not None else _dtypes.float64, device=device)


def tri(N, M=None, k=0, dtype=float, *, device=None) -> Array:
    """``tri(N, M=None, k=0, dtype=float, *, device=None)``: an ``N`` x ``M`` array with ones
    at and below the ``k``-th diagonal, zeros elsewhere.

    Examples:
        >>> import rocarray as ra
        >>> ra.tri(2, 3, k=1, dtype=ra.int8)
        array([[1, 1, 0],
               [1, 1, 1]], dtype=int8)
    """
    N = _count(N, "tri")
    M = N if M is None else _count(M, "tri")
    k = _count(k, "tri")
    rows = reshape(arange(N, dtype=_dtypes.int64, device=device), (N, 1))
    cols = arange(M, dtype=_dtypes.int64, device=device)
    return astype(less_equal(subtract(cols, k), rows), _dtypes.as_dtype(dtype))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, *, device=None) -> Array:
    """``logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0)``:
    ``base ** linspace(start, stop, num)``, as NumPy's (float64 unless ``dtype`` says
    otherwise).  ``start``, ``stop`` and ``base`` are real scalars here (NumPy also takes
    arrays of them).

    Examples:
        >>> import rocarray as ra
        >>> ra.logspace(0, 3, 4)
        array([   1.,   10.,  100., 1000.])
    """
    start, stop = _real_scalar(start, "logspace", "start"), _real_scalar(stop, "logspace", "stop")
    base = _real_scalar(base, "logspace", "base")
    num = _count(num, "logspace")
    if num < 0:
        raise ValueError(f"logspace: num must be >= 0, not {num}")
    if axis not in (0, -1):
        raise ValueError(f"logspace: axis must be 0 or -1 for scalar start and stop, not {axis}")
    y = pow(base, linspace(start, stop, num, dtype=_dtypes.float64, device=device, endpoint=endpoint))
    return y if dtype is None else astype(y, _dtypes.as_dtype(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0, *, device=None) -> Array:
    """``geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0)``: numbers spaced
    evenly on a log scale from ``start`` to ``stop``, each end exactly the given value, as
    NumPy's (both negative: the sequence of their magnitudes, negated).  ``start`` and
    ``stop`` are real scalars here.

    Raises:
        ValueError: ``start`` or ``stop`` is zero.

    Examples:
        >>> import rocarray as ra
        >>> ra.geomspace(1, 1000, 4)
        array([   1.,   10.,  100., 1000.])
    """
    start, stop = _real_scalar(start, "geomspace", "start"), _real_scalar(stop, "geomspace", "stop")
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    num = _count(num, "geomspace")
    sgn = -1.0 if start < 0 else 1.0
    start, stop = start * sgn, stop * sgn
    # (NumPy's way: powers of 10 between the logarithms, the ends then set exactly; a
    # negative end of the other sign gives NaN between them, as there)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = float(np.log10(start)), float(np.log10(stop))
    y = logspace(lo, hi, num, endpoint=endpoint, axis=axis, device=device)
    if num > 0:
        y[0] = start
        if num > 1 and endpoint:
            y[-1] = stop
    y = multiply(y, sgn)
    return y if dtype is None else astype(y, _dtypes.as_dtype(dtype))


# -- arithmetic -----------------------------------------------------------------------------------

def float_power(x1, x2, /, out=None) -> Array:
    """``float_power(x1, x2)``: ``x1 ** x2`` computed in float64 (complex128 where either
    is complex), whatever the inputs' dtypes, as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.float_power(ra.asarray([2, 3], dtype=ra.int8), -1)
        array([0.5       , 0.33333333])
    """
    for x in (x1, x2):
        if not isinstance(x, (Array, builtins.bool, int, float, complex, np.generic)):
            raise TypeError(f"float_power: expected rocarray arrays or Python scalars, not {type(x).__name__}")
    arrays = [x for x in (x1, x2) if isinstance(x, Array)]
    if not arrays:
        raise TypeError("float_power: at least one argument must be a rocarray array")
    device = arrays[0].device
    complex_ = any((x.dtype.kind == "c") if isinstance(x, Array) else isinstance(x, complex) for x in (x1, x2))
    dt = _dtypes.complex128 if complex_ else _dtypes.float64
    ops = [astype(x, dt) if isinstance(x, Array) else asarray(x, dtype=dt, device=device) for x in (x1, x2)]
    return pow(*ops) if out is None else pow(*ops, out=out)


def _pair_out(out, name: str) -> tuple:
    """NumPy's ``out=`` of a function of two results: None or a pair (each None or an array)."""
    if out is None:
        return None, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError(f"{name}: out must be a tuple of two arrays (or None), not {out!r}")
    return out


def divmod(x1, x2, /, out=None) -> tuple:  # noqa: A001 - NumPy's name
    """``divmod(x1, x2)``: ``(floor_divide(x1, x2), remainder(x1, x2))`` in one call, as
    NumPy's ufunc (``np.divmod(x, y)`` reaches it), ``out`` a pair of arrays.

    The quotient follows rocarray's ``floor_divide``: the standard's special cases for an
    infinite operand (``inf // 2`` is inf; NumPy's ``divmod`` gives NaN).

    Examples:
        >>> import rocarray as ra
        >>> ra.divmod(ra.asarray([7, -7]), 2)
        (array([ 3, -4]), array([1, 1]))
    """
    q_out, r_out = _pair_out(out, "divmod")
    q = floor_divide(x1, x2) if q_out is None else floor_divide(x1, x2, out=q_out)
    r = remainder(x1, x2) if r_out is None else remainder(x1, x2, out=r_out)
    return q, r


def modf(x, /, out=None) -> tuple:
    """``modf(x)``: the fractional and the integral parts of each element, both with its
    sign, as floats (integers as NumPy makes them: int8 to float16, int32 to float64), as
    NumPy's ufunc (``np.modf(x)`` reaches it); an infinity's fraction is a zero of its sign.

    Examples:
        >>> import rocarray as ra
        >>> ra.modf(ra.asarray([2.5, -0.75]))
        (array([ 0.5 , -0.75]), array([ 2., -0.]))
    """
    x = _as_array(x, "modf")
    if x.dtype.kind == "c":
        raise TypeError(f"modf: complex dtype {x.dtype} is not supported; modf accepts real dtypes")
    f_out, i_out = _pair_out(out, "modf")
    xf = x if x.dtype.kind == "f" else astype(x, np.promote_types(x.dtype, np.float16))
    whole = trunc(xf)
    frac = copysign(where(isinf(xf), 0.0, subtract(xf, whole)), xf)  # (the sign of x: -2.0 gives -0.0)
    for got, given in ((frac, f_out), (whole, i_out)):
        if given is not None:
            copy_into(given, got)
    return (frac if f_out is None else f_out), (whole if i_out is None else i_out)


# -- NumPy's float bit functions and other ufuncs beyond one catalogue row -------------------------

spacing = _ufunc("spacing")
spacing.__module__ = __name__
_ldexp = _ufunc("ldexp")
_frexp_mantissa = _ufunc("_frexp_mantissa")
_frexp_exponent = _ufunc("_frexp_exponent")
_bitwise_count = _ufunc("bitwise_count")
_i0 = _ufunc("i0")
#: the integer dtype of each float's bits (frexp's exponent row reads them)
_BITS_OF = {2: _dtypes.int16, 4: _dtypes.int32, 8: _dtypes.int64}
#: a Python int exponent past this is clamped to it (every result is then 0, inf, NaN or x)
_LDEXP_SCALAR_LIMIT = 1 << 20


def _operand_dtype(v, name: str, what: str):
    """The dtype of an operand (an array's, or NumPy's default for a Python scalar: weak)."""
    if isinstance(v, Array):
        return v.dtype
    if isinstance(v, np.generic):
        return v.dtype
    if isinstance(v, (builtins.bool, int, float, complex)):
        return None
    raise TypeError(f"{name}: {what} must be a rocarray array or a Python scalar, not {type(v).__name__}"
                    + ("; convert NumPy arrays with rocarray.asarray()" if isinstance(v, np.ndarray) else ""))


def ldexp(x1, x2, /, out=None) -> Array:
    """``ldexp(x1, x2)``: ``x1 * 2**x2`` element by element, as NumPy's ufunc (``np.ldexp(x,
    e)`` reaches it), rounded once (a subnormal result as C's ``ldexp``); NaN, infinities
    and zeros are kept, a result past the largest finite value is an infinity.

    Args:
        x1: the mantissas: an array (bool, integer or real floating) or a Python scalar.
        x2: the exponents: an array of an integer dtype or bool (not uint64, as NumPy), or a
            Python int. The arguments broadcast together; at least one is an array.
        out: an array of the result's shape to write into (a float dtype).

    Returns:
        An array of NumPy's dtype: ``x1``'s float dtype, integers and bools made floating as
        NumPy's ldexp does (int8, uint8, bool -> float16, int16 -> float32, wider -> float64;
        a Python float ``x1`` -> float64, a Python int or bool -> float16 as NumPy's),
        whatever the exponents' dtype.

    Raises:
        TypeError: a complex ``x1``; float, complex or uint64 exponents; only Python scalars.

    Note:
        NumPy refuses a Python int exponent past int32's range; here it is accepted (every
        such result is 0, an infinity, NaN or ``x1`` itself).

    Examples:
        >>> import rocarray as ra
        >>> ra.ldexp(ra.asarray([1.5, -3.0], dtype=ra.float32), ra.asarray([2, -1]))
        array([ 6. , -1.5], dtype=float32)
    """
    t1 = _operand_dtype(x1, "ldexp", "x1")
    t2 = _operand_dtype(x2, "ldexp", "x2")
    if isinstance(x1, np.generic):
        x1 = x1.item()
    if isinstance(x2, np.generic):
        x2 = x2.item()
    arrays = [v for v in (x1, x2) if isinstance(v, Array)]
    if not arrays:
        raise TypeError("ldexp: at least one argument must be an array, got only Python scalars")
    if (t1 is not None and t1.kind == "c") or isinstance(x1, complex):
        raise TypeError(f"ldexp: x1 must be real (bool, integer or real floating), not {t1 or 'complex'}")
    if t2 is not None:
        if t2.kind not in "biu" or t2 == _dtypes.uint64:
            raise TypeError(f"ldexp: the exponents x2 must be of an integer dtype or bool (not uint64), not {t2}")
    elif not isinstance(x2, int):
        raise TypeError(f"ldexp: the exponent x2 must be an integer, not {type(x2).__name__}")
    else:
        x2 = builtins.max(-_LDEXP_SCALAR_LIMIT, builtins.min(_LDEXP_SCALAR_LIMIT, int(x2)))
    if t1 is None:
        # NumPy's choice for a Python scalar x1: its first loop that takes it (float16) for a
        # bool or an int, except an int beside bool exponents (no longer weak there: int64,
        # so float64); a float is float64
        weak = isinstance(x1, builtins.bool) or (isinstance(x1, int) and t2 != _dtypes.bool)
        result = _dtypes.float16 if weak else _dtypes.float64
        if isinstance(x1, int):
            x1 = float(x1)  # (the loop's float: an int x1 stands for its value)
    else:
        result = np.promote_types(t1, _dtypes.float16)
    if out is None:
        shape = broadcast_shapes(*(a.shape for a in arrays))
        out = Array._empty(shape, result, arrays[0].device)
    # (the loop runs in the promotion of both operands, at least as wide as the result: each
    # product is exact there or lies past the result's range, so the store rounds once)
    return _ldexp(x1, x2, out=out)


def frexp(x, /, out=None) -> tuple:
    """``frexp(x)``: the mantissa and the exponent of each element, ``x == m * 2**e`` with
    ``0.5 <= |m| < 1``, as NumPy's ufunc (``np.frexp(x)`` reaches it), ``out`` a pair of
    arrays. Zeros, infinities and NaN are their own mantissa, with exponent 0.

    Returns:
        ``(m, e)``: ``m`` of ``x``'s float dtype (integers and bools made floating as NumPy
        does: int8 -> float16, int16 -> float32, wider -> float64), ``e`` int32.

    Raises:
        TypeError: a complex array.

    Examples:
        >>> import rocarray as ra
        >>> ra.frexp(ra.asarray([8.0, -0.375, 0.0]))
        (array([ 0.5 , -0.75,  0.  ]), array([ 4, -1,  0], dtype=int32))
    """
    x = _as_array(x, "frexp")
    if x.dtype.kind == "c":
        raise TypeError(f"frexp: complex dtype {x.dtype} is not supported; frexp accepts bool, integer "
                        "or real floating dtypes")
    m_out, e_out = _pair_out(out, "frexp")
    xf = x if x.dtype.kind == "f" else astype(x, np.promote_types(x.dtype, _dtypes.float16))
    m = _frexp_mantissa(xf) if m_out is None else _frexp_mantissa(xf, out=m_out)
    # the exponent from the float's bits: the same memory read as integers of its width
    bits = Array._new(xf._buf, xf._shape, xf._strides, xf._offset, _BITS_OF[xf.dtype.itemsize])
    if e_out is None:
        e_out = Array._empty(x.shape, _dtypes.int32, x.device)
    return m, _frexp_exponent(bits, out=e_out)


def bitwise_count(x, /, out=None) -> Array:
    """``bitwise_count(x)``: the number of one bits of ``|x|`` (NumPy 2's ufunc; ``-1``
    gives 1, the int8 -128 gives 1), as uint8.

    Args:
        x: an array of an integer dtype or bool.
        out: an array of ``x``'s shape to write into (an integer dtype).

    Raises:
        TypeError: a float or complex dtype.

    Examples:
        >>> import rocarray as ra
        >>> ra.bitwise_count(ra.asarray([0, 7, -8, 255]))
        array([0, 3, 1, 8], dtype=uint8)
    """
    if not isinstance(x, Array):
        raise TypeError(f"bitwise_count: x must be a rocarray array, not {type(x).__name__}")
    if out is None:
        out = Array._empty(x.shape, _dtypes.uint8, x.device)
    target = out
    if x.dtype.kind == "i" and out.dtype.kind == "u":
        # a count (at most 64) has the same bits signed: the loop's signed integers go into
        # the output's memory read as the signed dtype of its width (a cast the engine
        # refuses across kinds)
        target = Array._new(out._buf, out._shape, out._strides, out._offset,
                            np.dtype(f"i{out.dtype.itemsize}"))
    _bitwise_count(x, out=target)
    return out


def fix(x, /, out=None) -> Array:
    """``fix(x)``: each element rounded towards zero, the dtype kept (integers and bools as
    they are): NumPy's name for the standard's ``trunc``, which computes it.

    Raises:
        TypeError: a complex array (as NumPy).

    Examples:
        >>> import rocarray as ra
        >>> ra.fix(ra.asarray([2.7, -2.7, -0.5]))
        array([ 2., -2., -0.])
    """
    x = _as_array(x, "fix")
    if x.dtype.kind == "c":
        raise TypeError(f"fix: complex floating dtype {x.dtype} is not supported; fix accepts bool, integer "
                        "or real floating dtypes")
    return trunc(x) if out is None else trunc(x, out=out)


def i0(x) -> Array:
    """``i0(x)``: the modified Bessel function of the first kind of order 0 of each element,
    as NumPy's ``i0`` (float64 for integers and bools, else the float dtype), computed in
    float64 to within a few units in the last place over the whole range, rounded once to
    float32 or float16.

    Raises:
        TypeError: a complex array (as NumPy).

    Note:
        ``i0(±inf)`` is inf here (NumPy's gives NaN there); NumPy computes float16 in
        float16 (to about 1e-2), rocarray in float64, rounded once.

    Examples:
        >>> import rocarray as ra
        >>> ra.i0(ra.asarray([0.0, 1.0, -2.0]))
        array([1.        , 1.26606588, 2.2795853 ])
    """
    x = _as_array(x, "i0")
    if x.dtype.kind == "c":
        raise TypeError(f"i0: complex dtype {x.dtype} is not supported (as NumPy's i0)")
    return _i0(x)


# -- calculus -------------------------------------------------------------------------------------

def _float_of(x: Array) -> Array:
    """``x`` as a floating dtype (integers and bools as float64), as NumPy's differences
    and integrals make them."""
    return x if x.dtype.kind in "fc" else astype(x, _dtypes.float64)


def _slice_along(x: Array, axis: int, start, stop) -> Array:
    """``x[..., start:stop, ...]`` on ``axis`` with Python's slice bounds (None, negative),
    the view ``_views._axis_slice`` makes."""
    lo, hi, _ = slice(start, stop).indices(x.shape[axis])
    return _axis_slice(x, axis, lo, max(lo, hi))


def trapezoid(y, x=None, dx=1.0, axis=-1) -> Array:
    """``trapezoid(y, x=None, dx=1.0, axis=-1)``: the integral of ``y`` along ``axis`` by
    the trapezoidal rule, at the sample points ``x`` (1-D along ``axis``, or of ``y``'s
    shape) or spaced ``dx`` apart.

    Examples:
        >>> import rocarray as ra
        >>> float(ra.trapezoid(ra.asarray([1.0, 2.0, 3.0]), dx=0.5))
        2.0
    """
    y = _as_array(y, "trapezoid")
    ax = _axis(axis, y.ndim, "trapezoid")
    if x is None:
        d = dx
    else:
        x = _as_array(x, "trapezoid", y.device)
        if x.ndim == 1:
            d = subtract(x[1:], x[:-1])
            if y.ndim > 1:
                d = reshape(d, tuple(d.shape[0] if i == ax else 1 for i in range(y.ndim)))
        else:
            d = subtract(_slice_along(x, ax, 1, None), _slice_along(x, ax, None, -1))
    # (NumPy's order of operations; the samples made floating first, where NumPy adds
    # integers in their own dtype and may wrap)
    pairs = add(_float_of(_slice_along(y, ax, 1, None)), _slice_along(y, ax, None, -1))
    return _sum(divide(multiply(d, pairs), 2.0), axis=ax)


def _is_scalar(v) -> bool:
    """A step rather than coordinates: a real Python or NumPy scalar, or a 0-d array."""
    return isinstance(v, (int, float, np.integer, np.floating)) or (isinstance(v, Array) and v.ndim == 0)


def _spacings(f: Array, axes: list, varargs: tuple) -> list:
    """Per axis, a Python float step or a 1-D float coordinates array (NumPy's rules for
    ``varargs``: none, one scalar for every axis, or one scalar or coordinates per axis)."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and _is_scalar(varargs[0]):
        return [float(varargs[0])] * len(axes)
    if n != len(axes):
        raise TypeError("gradient: invalid number of arguments")
    out = []
    for v, ax in zip(varargs, axes):
        if _is_scalar(v):
            out.append(float(v))
            continue
        c = _as_array(v, "gradient", f.device)
        if c.ndim != 1:
            raise ValueError("gradient: distances must be either scalars or 1d")
        if c.shape[0] != f.shape[ax]:
            raise ValueError("gradient: when 1d, distances must match the length of the corresponding dimension")
        out.append(_float_of(c))
    return out


def gradient(f, *varargs, axis=None, edge_order=1):
    """``gradient(f, *varargs, axis=None, edge_order=1)``: the gradient of ``f`` by second
    order central differences inside and first or second order (``edge_order``) one-sided
    differences at the ends, as NumPy's: one array per axis (a tuple for several, the array
    for one); ``varargs`` are scalar steps or 1-D coordinates, one for all axes or one per
    axis.

    Raises:
        ValueError: an axis shorter than ``edge_order + 1``, or an ``edge_order`` other than
            1 or 2.

    Examples:
        >>> import rocarray as ra
        >>> ra.gradient(ra.asarray([1.0, 2.0, 4.0, 7.0]))
        array([1. , 1.5, 2.5, 3. ])
    """
    f = _as_array(f, "gradient")
    if axis is None:
        axes = list(range(f.ndim))
    else:  # (in the order given: one result per axis, in that order, as NumPy's)
        axes = [normalize_axes(int(a), f.ndim, "gradient")[0]
                for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
        if len(set(axes)) != len(axes):
            raise ValueError("gradient: repeated axis")
    if edge_order not in (1, 2):
        raise ValueError("gradient: edge_order must be 1 or 2")
    steps = _spacings(f, axes, varargs)
    g = _float_of(f)
    outs = []
    for ax, h in zip(axes, steps):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                             "(edge_order + 1) elements are required.")
        s = lambda a, b, x=g: _slice_along(x, ax, a, b)  # noqa: E731
        shape = tuple(-1 if i == ax else 1 for i in range(f.ndim))
        if isinstance(h, Array):
            dx = subtract(h[1:], h[:-1])
            dx1, dx2 = dx[:-1], dx[1:]
            a = divide(-dx2, multiply(dx1, add(dx1, dx2)))
            b = divide(subtract(dx2, dx1), multiply(dx1, dx2))
            c = divide(dx1, multiply(dx2, add(dx1, dx2)))
            a, b, c = (reshape(t, shape) for t in (a, b, c))
            inner = add(add(multiply(a, s(None, -2)), multiply(b, s(1, -1))), multiply(c, s(2, None)))
            if edge_order == 1:
                first = divide(subtract(s(1, 2), s(0, 1)), reshape(dx[0:1], shape))
                last = divide(subtract(s(-1, None), s(-2, -1)), reshape(dx[-1:], shape))
            else:
                d1, d2 = dx[0:1], dx[1:2]
                a0 = divide(-(add(multiply(d1, 2.0), d2)), multiply(d1, add(d1, d2)))
                b0 = divide(add(d1, d2), multiply(d1, d2))
                c0 = divide(-d1, multiply(d2, add(d1, d2)))
                first = add(add(multiply(reshape(a0, shape), s(0, 1)), multiply(reshape(b0, shape), s(1, 2))),
                            multiply(reshape(c0, shape), s(2, 3)))
                d1, d2 = dx[-2:-1], dx[-1:]
                a0 = divide(d2, multiply(d1, add(d1, d2)))
                b0 = divide(-(add(d2, d1)), multiply(d1, d2))
                c0 = divide(add(multiply(d2, 2.0), d1), multiply(d2, add(d1, d2)))
                last = add(add(multiply(reshape(a0, shape), s(-3, -2)), multiply(reshape(b0, shape), s(-2, -1))),
                           multiply(reshape(c0, shape), s(-1, None)))
        else:
            inner = divide(subtract(s(2, None), s(None, -2)), 2.0 * h)
            if edge_order == 1:
                first = divide(subtract(s(1, 2), s(0, 1)), h)
                last = divide(subtract(s(-1, None), s(-2, -1)), h)
            else:  # (NumPy's coefficients and order: float16 rounds as NumPy's does)
                first = add(add(multiply(-1.5 / h, s(0, 1)), multiply(2.0 / h, s(1, 2))), multiply(-0.5 / h, s(2, 3)))
                last = add(add(multiply(0.5 / h, s(-3, -2)), multiply(-2.0 / h, s(-2, -1))), multiply(1.5 / h, s(-1, None)))
        r = concat([first, inner, last], axis=ax) if n > 2 else concat([first, last], axis=ax)
        outs.append(astype(r, g.dtype, copy=False))  # (f's dtype, whatever the coordinates', as NumPy's)
    return outs[0] if len(outs) == 1 else tuple(outs)


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi) -> Array:
    """``unwrap(p, discont=None, axis=-1, *, period=2*pi)``: ``p`` with every jump between
    neighbours along ``axis`` larger than ``discont`` (default ``period / 2``) taken back
    by whole periods, as NumPy's (its dtype: ``p``'s differences promoted with ``period``).

    Examples:
        >>> import rocarray as ra
        >>> ra.unwrap(ra.asarray([0.0, 1.0, 2.0, 3.5, 0.5]), period=4.0)
        array([0. , 1. , 2. , 3.5, 4.5])
    """
    p = _as_array(p, "unwrap")
    ax = _axis(axis, p.ndim, "unwrap")
    if isinstance(period, builtins.bool) or not isinstance(period, (int, float, np.integer, np.floating)):
        raise TypeError(f"unwrap: period must be a real Python or NumPy scalar, not {type(period).__name__}")
    dd = diff(p, axis=ax)
    if discont is None:
        discont = period / 2
    dtype = _dtypes.result_type(dd.dtype, period)
    # (NumPy's interval: for an integer dtype and an even period both ends are reachable)
    if dtype.kind in "iu":
        high, rem = builtins.divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = add(remainder(subtract(dd, low), period), low)
    if ambiguous:  # (a jump of exactly half a period keeps its sign)
        ddmod = where(logical_and(equal(ddmod, low), greater(dd, 0)), high, ddmod)
    correct = where(less(abs_(dd), discont), 0, subtract(ddmod, dd))
    up = astype(p, dtype, copy=True)
    rest = _slice_along(up, ax, 1, None)
    copy_into(rest, add(_slice_along(p, ax, 1, None), cumulative_sum(correct, axis=ax)))
    return up


# -- polynomials ----------------------------------------------------------------------------------

def vander(x, N=None, increasing=False) -> Array:
    """``vander(x, N=None, increasing=False)``: the Vandermonde matrix of the 1-D ``x``, its
    columns the powers ``x**(N-1)``, ..., ``x**0`` (or increasing), built by running
    products as NumPy's; the dtype is ``x``'s promoted with int64, as there.

    Examples:
        >>> import rocarray as ra
        >>> ra.vander(ra.asarray([1, 2, 3]), 3)
        array([[1, 1, 1],
               [4, 2, 1],
               [9, 3, 1]])
    """
    x = _as_array(x, "vander")
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    N = x.shape[0] if N is None else _count(N, "vander")
    if N < 0:
        raise ValueError(f"vander: N must be >= 0, not {N}")
    dt = np.promote_types(x.dtype, np.int64)
    n = x.shape[0]
    if N == 0 or n == 0:
        return zeros((n, N), dtype=dt, device=x.device)
    cols = concat([ones((n, 1), dtype=dt, device=x.device),
                   broadcast_to(reshape(astype(x, dt), (n, 1)), (n, N - 1))], axis=1)
    v = cumulative_prod(cols, axis=1)
    return v if increasing else v[:, ::-1]


def polyval(p, x) -> Array:
    """``polyval(p, x)``: the polynomial with coefficients ``p`` (highest power first) at
    ``x``, by Horner's scheme as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.polyval(ra.asarray([3.0, 0.0, 1.0]), ra.asarray([1.0, 2.0]))
        array([ 4., 13.])
    """
    p = _as_array(p, "polyval")
    x = _as_array(x, "polyval", p.device)
    if p.ndim != 1:
        raise ValueError(f"polyval: p must be 1-D, not {p.ndim}-D")
    y = zeros(x.shape, dtype=_dtypes.result_type(x.dtype, p.dtype), device=x.device)
    for k in range(p.shape[0]):
        y = add(multiply(y, x), p[k])
    return y


# -- windows --------------------------------------------------------------------------------------

def _window(M, name: str, shape, device):
    M = _count(M, name)
    if M < 1:
        return None, zeros((0,), dtype=_dtypes.float64, device=device)
    if M == 1:
        return None, ones((1,), dtype=_dtypes.float64, device=device)
    n = arange(1 - M, M, 2, dtype=_dtypes.float64, device=device)
    return shape(n, M - 1), None


def bartlett(M, *, device=None) -> Array:
    """``bartlett(M)``: the triangular window of ``M`` points (float64), as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.bartlett(5)
        array([0. , 0.5, 1. , 0.5, 0. ])
    """
    w, done = _window(M, "bartlett", lambda n, m: where(less_equal(n, 0), add(1.0, divide(n, m)),
                                                        subtract(1.0, divide(n, m))), device)
    return done if w is None else w


def _cosines(name: str, M, terms, device) -> Array:
    def shape(n, m):
        w = None
        for k, coef in enumerate(terms):
            t = coef if k == 0 else multiply(coef, cos(multiply(n, k * math.pi / m)))
            w = t if w is None else add(w, t)
        return w
    w, done = _window(M, name, shape, device)
    return done if w is None else w


def blackman(M, *, device=None) -> Array:
    """``blackman(M)``: the Blackman window of ``M`` points (float64), as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.blackman(3)
        array([-1.38777878e-17,  1.00000000e+00, -1.38777878e-17])
    """
    return _cosines("blackman", M, (0.42, 0.5, 0.08), device)


def hamming(M, *, device=None) -> Array:
    """``hamming(M)``: the Hamming window of ``M`` points (float64), as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.hamming(3)
        array([0.08, 1.  , 0.08])
    """
    return _cosines("hamming", M, (0.54, 0.46), device)


def hanning(M, *, device=None) -> Array:
    """``hanning(M)``: the Hann window of ``M`` points (float64), as NumPy's.

    Examples:
        >>> import rocarray as ra
        >>> ra.hanning(3)
        array([0., 1., 0.])
    """
    return _cosines("hanning", M, (0.5, 0.5), device)


def kaiser(M, beta, *, device=None) -> Array:
    """``kaiser(M, beta)``: the Kaiser window of ``M`` points and shape ``beta`` (float64), as
    NumPy's: ``i0(beta * sqrt(1 - (2n/(M-1) - 1)**2)) / i0(beta)``, on rocarray's ``i0``.

    Examples:
        >>> import rocarray as ra
        >>> ra.kaiser(3, 5.0)
        array([0.03671089, 1.        , 0.03671089])
    """
    beta = _real_scalar(beta, "kaiser", "beta")

    def shape(n, m):
        r = divide(n, m)
        return divide(i0(multiply(beta, sqrt(subtract(1.0, multiply(r, r))))),
                      i0(asarray(beta, dtype=_dtypes.float64, device=n.device)))
    w, done = _window(M, "kaiser", shape, device)
    return done if w is None else w
