"""The array API's elementwise functions and the Array operators, from the op catalogue."""

from __future__ import annotations

import numpy as np

from . import _elementwise_docs as _docs
from ._array_object import Array
from ._elementwise import SCALAR_PATHS, Ufunc, copy_op as _copy
from ._kernels import catalogue
from ._views import broadcast_shapes
from ._warm import warm_call

_rows = {row.name: row for row in catalogue().elementwise.OPS}


def _ufunc(name: str) -> Ufunc:
    uf = Ufunc(_rows[name])
    row = uf.row
    uf.__module__ = __name__  # where the documentation finds it (the class lives in _elementwise)
    uf.__doc__ = _docs.docstring(name, row.nin, row.accepts, row.compute, row.out)
    uf.__signature__ = _docs.signature(row.nin)
    return uf


abs = _ufunc("abs")  # noqa: A001 - the spec's names
acos = _ufunc("acos")
acosh = _ufunc("acosh")
add = _ufunc("add")
asin = _ufunc("asin")
asinh = _ufunc("asinh")
atan = _ufunc("atan")
atan2 = _ufunc("atan2")
atanh = _ufunc("atanh")
bitwise_and = _ufunc("bitwise_and")
bitwise_invert = _ufunc("bitwise_invert")
bitwise_left_shift = _ufunc("bitwise_left_shift")
bitwise_or = _ufunc("bitwise_or")
bitwise_right_shift = _ufunc("bitwise_right_shift")
bitwise_xor = _ufunc("bitwise_xor")
ceil = _ufunc("ceil")
conj = _ufunc("conj")
copysign = _ufunc("copysign")
cos = _ufunc("cos")
cosh = _ufunc("cosh")
divide = _ufunc("divide")
equal = _ufunc("equal")
exp = _ufunc("exp")
expm1 = _ufunc("expm1")
floor = _ufunc("floor")
floor_divide = _ufunc("floor_divide")
greater = _ufunc("greater")
greater_equal = _ufunc("greater_equal")
hypot = _ufunc("hypot")
imag = _ufunc("imag")
isfinite = _ufunc("isfinite")
isinf = _ufunc("isinf")
isnan = _ufunc("isnan")
less = _ufunc("less")
less_equal = _ufunc("less_equal")
log = _ufunc("log")
log1p = _ufunc("log1p")
log2 = _ufunc("log2")
log10 = _ufunc("log10")
logaddexp = _ufunc("logaddexp")
logical_and = _ufunc("logical_and")
logical_not = _ufunc("logical_not")
logical_or = _ufunc("logical_or")
logical_xor = _ufunc("logical_xor")
maximum = _ufunc("maximum")
minimum = _ufunc("minimum")
multiply = _ufunc("multiply")
negative = _ufunc("negative")
nextafter = _ufunc("nextafter")
not_equal = _ufunc("not_equal")
positive = _ufunc("positive")
pow = _ufunc("pow")  # noqa: A001
real = _ufunc("real")
reciprocal = _ufunc("reciprocal")
remainder = _ufunc("remainder")
round = _ufunc("round")  # noqa: A001
sign = _ufunc("sign")
signbit = _ufunc("signbit")
sin = _ufunc("sin")
sinh = _ufunc("sinh")
sqrt = _ufunc("sqrt")
square = _ufunc("square")
subtract = _ufunc("subtract")
tan = _ufunc("tan")
tanh = _ufunc("tanh")
trunc = _ufunc("trunc")
# NumPy's and CuPy's elementwise functions beyond the standard
cbrt = _ufunc("cbrt")
deg2rad = _ufunc("deg2rad")
exp2 = _ufunc("exp2")
fabs = _ufunc("fabs")
fmax = _ufunc("fmax")
fmin = _ufunc("fmin")
fmod = _ufunc("fmod")
gcd = _ufunc("gcd")
heaviside = _ufunc("heaviside")
lcm = _ufunc("lcm")
logaddexp2 = _ufunc("logaddexp2")
rad2deg = _ufunc("rad2deg")
sinc = _ufunc("sinc")
# NumPy's names of the same functions (one line each; rocarray/_numpy_names.py has the rest)
absolute = abs
arccos = acos
arccosh = acosh
arcsin = asin
arcsinh = asinh
arctan = atan
arctan2 = atan2
arctanh = atanh
bitwise_not = bitwise_invert
invert = bitwise_invert
left_shift = bitwise_left_shift
right_shift = bitwise_right_shift
conjugate = conj
power = pow
true_divide = divide
mod = remainder
rint = round
radians = deg2rad
degrees = rad2deg
_where = _ufunc("where")
_clip = _ufunc("clip")


def where(condition, x1, x2, /) -> Array:
    """Elements of ``x1`` where ``condition`` is true, else of ``x2``.

    Args:
        condition: a bool array.
        x1: the values where ``condition`` is true: an array or a Python scalar.
        x2: the values elsewhere: an array or a Python scalar (``x1`` or ``x2`` must be an
            array). The three arguments broadcast together; the result has the promoted
            dtype of ``x1`` and ``x2``.

    Raises:
        OverflowError: a Python int that does not fit the result dtype (NumPy wraps it silently).

    Examples:
        >>> import rocarray as ra
        >>> x = ra.asarray([-2.0, 3.0])
        >>> ra.where(x > 0, x, 0.0)
        array([0., 3.])
    """
    return _where(condition, x1, x2)


def clip(x, /, min=None, max=None) -> Array:  # noqa: A002 - the spec's names
    """``x`` limited to ``[min, max]``: each element below ``min`` becomes ``min``, above ``max`` ``max``.

    Args:
        x: a real array (not complex).
        min: the lower bound, a Python scalar or an array broadcasting with ``x``, or None.
        max: the upper bound, likewise, or None.

    Returns:
        An array of ``x``'s dtype (the standard) and of the broadcast shape of ``x`` and the
        bounds. A bound past the dtype's range saturates to it.

    Raises:
        TypeError: a complex array, a float bound for an integer array, or bounds on
            another device.

    Examples:
        >>> import rocarray as ra
        >>> ra.clip(ra.asarray([1, 5, 9]), 2, 6)
        array([2, 5, 6])
    """
    if not isinstance(x, Array):
        raise TypeError(f"clip: x must be a rocarray array, not {type(x).__name__}")
    dt = x.dtype
    if dt.kind == "c":
        raise TypeError("clip: complex dtypes are not supported")
    if min is None and max is None:
        return _copy(x, out=Array._empty(x.shape, dt, x.device))
    lo = _bound(min, dt, low=True)
    hi = _bound(max, dt, low=False)
    # the result has the broadcast shape of x, min and max (NumPy and the standard), x's dtype
    shape = broadcast_shapes(x.shape, *(b.shape for b in (lo, hi) if isinstance(b, Array)))
    out = Array._empty(shape, dt, x.device)
    return _clip(x, _as_dtype_operand(lo, dt, x), _as_dtype_operand(hi, dt, x), out=out)


def _bound(b, dt, low: bool):
    """A missing bound as the dtype's extreme; Python ints saturated to the dtype's range."""
    if b is None:
        if dt.kind == "f":
            return -float("inf") if low else float("inf")
        if dt.kind == "b":
            return not low
        info = np.iinfo(dt)
        return int(info.min if low else info.max)
    if isinstance(b, float) and dt.kind in "biu":
        raise TypeError(f"clip: a float bound {b!r} needs a floating-point array, not {dt}")
    if isinstance(b, int) and not isinstance(b, bool) and dt.kind in "iu":
        info = np.iinfo(dt)
        return min(max(b, int(info.min)), int(info.max))
    return b


def _as_dtype_operand(b, dt, x):
    if isinstance(b, Array):
        if b.device is not x.device:
            raise TypeError(f"clip: cannot mix devices {x.device} and {b.device}")
        return b if b.dtype == dt else b.astype(dt)
    return b


# -- Array operators, generated from the rows that name one ----------------------------------

_OPERANDS = (Array, bool, int, float, complex, np.generic)


def _binary(fn):
    def general(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return fn(self, other)
    return warm_call(fn._plans, general, 2, operator=True)


def _reflected(fn):
    def op(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return fn(other, self)
    return op


def _inplace(fn):
    def op(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        fn(self, other, out=self)
        return self
    return op


def _unary(fn):
    return warm_call(fn._plans, fn, 1, operator=True)


_COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}


def _install_operators():
    for row in _rows.values():
        if row.dunder is None:
            continue
        fn = globals()[row.name]
        if row.nin == 1:
            setattr(Array, row.dunder, _unary(fn))
            continue
        setattr(Array, row.dunder, _binary(fn))
        if row.dunder not in _COMPARISONS:
            stem = row.dunder[2:-2]
            setattr(Array, f"__r{stem}__", _reflected(fn))
            setattr(Array, f"__i{stem}__", _inplace(fn))


_install_operators()
Array.__hash__ = None  # __eq__ is elementwise: arrays are unhashable, like NumPy's


# -- x ** 2, x ** -1 and x ** 0.5: NumPy's fast paths of a scalar exponent ---------------------

_sqrt_power = _ufunc("_sqrt_power")  # (pow(x, 0.5) of a real float: the catalogue's row)


def _scalar_power(x, y):
    """``square`` for ``x ** 2`` (a Python int exponent, or a float one of a real floating
    ``x``), ``reciprocal`` for ``x ** -1`` and the root for ``x ** 0.5`` of a real floating
    ``x``, else None: one multiply, divide or square root where ``pow`` takes a logarithm
    and an exponential (NumPy takes the same paths).  ``square`` and ``reciprocal`` give
    ``pow``'s results bit for bit; the root is correctly rounded (``pow`` within an ulp of
    it) with ``pow``'s special values (the standard's ``pow(-0, 0.5)`` is +0 and
    ``pow(-inf, 0.5)`` +inf, where NumPy's ``sqrt`` gives -0 and NaN).  Complex ``x`` keeps
    ``pow`` (complex ``pow`` rounds otherwise than a product)."""
    t = type(y)
    if (t is int or t is float) and isinstance(x, Array):
        kind = x.dtype.kind
        if y == 2 and (kind == "f" or (t is int and kind in "iu")):
            return square
        if kind == "f":
            if y == -1:
                return reciprocal
            if y == 0.5:
                return _sqrt_power
    return None


SCALAR_PATHS["pow"] = _scalar_power  # (pow's plans and general path consult it)
