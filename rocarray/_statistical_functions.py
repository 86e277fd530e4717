"""The spec's statistical and utility reductions, from the reduction catalogue (the
``Array`` methods of the same names, with NumPy's signatures, are rocarray/_numpy_methods.py's)."""

from __future__ import annotations

from . import _dtypes
from ._array_object import Array
from ._elementwise_functions import abs as _abs, divide, not_equal, sqrt, square, subtract
from ._reduction import _reduction, scan
from ._views import normalize_axes

sum = _reduction("sum")  # noqa: A001 - the spec's names
prod = _reduction("prod")
max = _reduction("max")  # noqa: A001
min = _reduction("min")  # noqa: A001
all = _reduction("all")  # noqa: A001
any = _reduction("any")  # noqa: A001
argmax = _reduction("argmax")
argmin = _reduction("argmin")


# the Array methods (sum, mean, std, ...) take NumPy's signatures: rocarray/_numpy_methods.py


def _floating(x, name: str, axis) -> int:
    """How many elements each result of ``name`` (mean, var, std) reduces; a bad array or
    axis is an error in ``name``'s own words (before the sums they are made of run)."""
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
    if x.dtype.kind not in "fc":
        raise TypeError(f"{name}: expected a floating-point array, got {x.dtype}")
    n = 1
    for a in normalize_axes(axis, x.ndim, name):
        n *= x.shape[a]
    return n


# float16 statistics compute in float32 and round once at the end (NumPy's mean does so):
# a float16 sum of 73 x 951.5 is already inf, and so would be its mean; a float16 square of
# a deviation past 256 too.


def mean(x, /, *, axis=None, keepdims=False):
    """The arithmetic mean over ``axis`` (NaN for an empty reduction, as NumPy)."""
    n = _floating(x, "mean", axis)
    if x.dtype == _dtypes.float16:
        return _mean(x, axis, keepdims, _dtypes.float32, n).astype(_dtypes.float16)
    return _mean(x, axis, keepdims, None, n)


def _mean(x, axis, keepdims, dtype, n: int):
    s = sum(x, axis=axis, keepdims=keepdims, dtype=dtype)
    return divide(s, float(n)) if n else divide(s, float("nan"))


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """The variance over ``axis`` with ``correction`` degrees of freedom removed (two passes:
    the mean, then the mean square deviation)."""
    n = _floating(x, "var", axis)
    if x.dtype == _dtypes.float16:
        return _var(x.astype(_dtypes.float32), axis, correction, keepdims, n).astype(_dtypes.float16)
    return _var(x, axis, correction, keepdims, n)


def _var(x, axis, correction, keepdims, n: int):
    m = _mean(x, axis, True, None, n)
    d = subtract(x, m)
    d2 = square(_abs(d)) if x.dtype.kind == "c" else square(d)
    s = sum(d2, axis=axis, keepdims=keepdims)
    dof = n - correction
    return divide(s, float(dof) if dof > 0 else float("nan"))


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """The standard deviation: the square root of ``var``."""
    n = _floating(x, "std", axis)
    if x.dtype == _dtypes.float16:
        return sqrt(_var(x.astype(_dtypes.float32), axis, correction, keepdims, n)).astype(_dtypes.float16)
    return sqrt(_var(x, axis, correction, keepdims, n))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """How many elements of ``x`` are non-zero (True, or NaN, count) over ``axis``; int64."""
    if not isinstance(x, Array):
        raise TypeError(f"count_nonzero: expected a rocarray array, got {type(x).__name__}")
    normalize_axes(axis, x.ndim, "count_nonzero")  # (a bad axis in its own name, not sum's)

    return sum(not_equal(x, 0 if x.dtype.kind != "b" else False), axis=axis, keepdims=keepdims)


def _cumulative(op, name: str):
    def cumulative(x, /, *, axis=None, dtype=None, include_initial=False):
        if not isinstance(x, Array):
            raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
        if x.ndim == 0:
            raise ValueError(f"{name}: expected an array of at least one dimension, got a 0-d array")
        if axis is None:
            if x.ndim != 1:
                raise ValueError(f"{name}: axis must be given for a {x.ndim}-d array (None is "
                                 "allowed only for 1-d arrays)")
            axis = 0
        if not isinstance(axis, int):
            raise TypeError(f"{name}: axis must be an int or None, not {type(axis).__name__}")
        (axis,) = normalize_axes(axis, x.ndim, name)
        acc_dt, out_dt = op.dtypes(x.dtype, dtype)
        return scan(op.definition(x.dtype, acc_dt, out_dt), x, axis, bool(include_initial))

    cumulative.__name__ = name
    cumulative.__doc__ = (f"The running ``{op.__name__}`` along ``axis`` (required unless ``x`` is 1-d); "
                          "``include_initial`` starts with the identity. Dtypes as ``"
                          f"{op.__name__}``.")
    return cumulative


cumulative_sum = _cumulative(sum, "cumulative_sum")
cumulative_prod = _cumulative(prod, "cumulative_prod")
