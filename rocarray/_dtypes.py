"""Data types: the array API dtypes, the promotion table, and the dtype inspection functions.

rocarray's dtypes are NumPy ``dtype`` instances (``rocarray.float32 is numpy.dtype("float32")``),
so they compare, hash and convert exactly like NumPy's.  Promotion follows the array API
table, written out literally below, and NumPy's rules for the pairs the standard leaves
open (documented in ``docs/dtypes.md``).
"""

from __future__ import annotations

import builtins
from typing import NamedTuple

import numpy as np

bool = np.dtype("bool")  # noqa: A001 - the array API name
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

signed_integer_dtypes = (int8, int16, int32, int64)
unsigned_integer_dtypes = (uint8, uint16, uint32, uint64)
integer_dtypes = signed_integer_dtypes + unsigned_integer_dtypes
real_floating_dtypes = (float16, float32, float64)
complex_floating_dtypes = (complex64, complex128)
floating_dtypes = real_floating_dtypes + complex_floating_dtypes
numeric_dtypes = integer_dtypes + floating_dtypes
all_dtypes = (bool,) + numeric_dtypes

_by_name = {str(d): d for d in all_dtypes}

default_int = int64
default_uint = uint64
default_float = float64
default_complex = complex128
default_index = int64

# The array API promotion table, written out.  Pairs not listed here are the ones the
# standard leaves to the library (bool with numbers, signed with unsigned beyond the table,
# integers with floats); for those rocarray follows NumPy (see _numpy_rule).
_table = {
    # signed integers
    (int8, int8): int8, (int8, int16): int16, (int8, int32): int32, (int8, int64): int64,
    (int16, int16): int16, (int16, int32): int32, (int16, int64): int64,
    (int32, int32): int32, (int32, int64): int64,
    (int64, int64): int64,
    # unsigned integers
    (uint8, uint8): uint8, (uint8, uint16): uint16, (uint8, uint32): uint32, (uint8, uint64): uint64,
    (uint16, uint16): uint16, (uint16, uint32): uint32, (uint16, uint64): uint64,
    (uint32, uint32): uint32, (uint32, uint64): uint64,
    (uint64, uint64): uint64,
    # mixed signed and unsigned integers
    (int8, uint8): int16, (int8, uint16): int32, (int8, uint32): int64,
    (int16, uint8): int16, (int16, uint16): int32, (int16, uint32): int64,
    (int32, uint8): int32, (int32, uint16): int32, (int32, uint32): int64,
    (int64, uint8): int64, (int64, uint16): int64, (int64, uint32): int64,
    # floating point (real and complex)
    (float16, float16): float16, (float16, float32): float32, (float16, float64): float64,
    (float32, float32): float32, (float32, float64): float64,
    (float64, float64): float64,
    (float16, complex64): complex64, (float16, complex128): complex128,
    (float32, complex64): complex64, (float32, complex128): complex128,
    (float64, complex64): complex128, (float64, complex128): complex128,
    (complex64, complex64): complex64, (complex64, complex128): complex128,
    (complex128, complex128): complex128,
    # booleans
    (bool, bool): bool,
}
_promotion_table = dict(_table)
_promotion_table.update({(b, a): c for (a, b), c in _table.items()})


def _numpy_rule(a: np.dtype, b: np.dtype) -> np.dtype:
    # Note: pairs outside the array API table.  NumPy's promotion: bool promotes to
    # anything, int64 with uint64 gives float64, integers with floats give a float wide
    # enough for both (int8 + float16 -> float16, int32 + float32 -> float64).
    return np.promote_types(a, b)


_pair_cache: dict = {}


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """The result dtype of a binary operation between arrays of dtypes ``a`` and ``b``."""
    key = (a, b)
    r = _pair_cache.get(key)
    if r is None:
        r = _promotion_table.get(key)
        if r is None:
            r = _numpy_rule(a, b)
        _pair_cache[key] = r
    return r


# --- Python ints and the integer dtypes --------------------------------------------------

#: integer dtype -> (lowest, highest) value, as Python ints
int_bounds = {d: (builtins.int(np.iinfo(d).min), builtins.int(np.iinfo(d).max)) for d in integer_dtypes}


def check_int_fits(value: builtins.int, dtype: np.dtype, who: str) -> None:
    """OverflowError, naming ``value`` and ``dtype``, when the integer dtype cannot hold it."""
    lo, hi = int_bounds[dtype]
    if not lo <= value <= hi:
        raise OverflowError(f"{who}: Python int {value} out of bounds for {dtype} ({lo} to {hi})")


def python_int_dtype(lo: builtins.int, hi: builtins.int, who: str) -> np.dtype:
    """The dtype of Python ints from ``lo`` to ``hi`` when none is asked for: the default
    integer dtype (int64) when they fit it, else uint64 when they all fit that (NumPy's
    choice for a non-negative int past int64); else no integer dtype holds them all:
    OverflowError naming the values."""
    i_lo, i_hi = int_bounds[int64]
    if i_lo <= lo and hi <= i_hi:
        return int64
    u_lo, u_hi = int_bounds[uint64]
    if u_lo <= lo and hi <= u_hi:
        return uint64
    if hi > u_hi or lo < i_lo:
        what = f"Python int {hi if hi > u_hi else lo} is out of bounds for every integer dtype"
    else:  # a negative value with one past int64
        what = f"Python ints {lo} and {hi}: no integer dtype holds both"
    raise OverflowError(f"{who}: {what} (int64 holds {i_lo} to {i_hi}, uint64 {u_lo} to {u_hi})")


#: dtype objects seen by ``as_dtype`` -> rocarray's dtype (a warm call's dtype checks: the
#: name lookup below formats the dtype, several microseconds each time)
_known: dict = {}


def as_dtype(dtype, *, argname: str = "dtype") -> np.dtype:
    """Normalise a user-given dtype to one of rocarray's dtypes, or raise TypeError."""
    if isinstance(dtype, np.dtype):
        r = _known.get(dtype)
        if r is not None:
            return r
        d = dtype
    elif dtype is None:  # (np.dtype(None) is float64: never a silent default here)
        raise TypeError(f"{argname}=None is not a data type; use one of " + ", ".join(_by_name))
    elif dtype is builtins.bool:
        return bool
    elif dtype is builtins.int:
        return default_int
    elif dtype is builtins.float:
        return default_float
    elif dtype is builtins.complex:
        return default_complex
    else:
        try:
            d = np.dtype(dtype)
        except TypeError:
            d = None
        if d is None or isinstance(dtype, (builtins.int, builtins.float)):
            raise TypeError(
                f"{argname}={dtype!r} is not a data type; use one of "
                + ", ".join(_by_name) + " (or the matching NumPy dtype)"
            )
    if d.byteorder == ">" or (d.byteorder == "|" and d.itemsize > 1):
        d = d.newbyteorder("=")
    r = _by_name.get(str(d))
    if r is None:
        raise TypeError(
            f"{argname}={dtype!r} ({d}) is not supported by rocarray; supported dtypes are "
            + ", ".join(_by_name)
        )
    if d is dtype and len(_known) < 256:
        _known[dtype] = r
    return r


# --- the spec's dtype inspection functions -------------------------------------------

_kinds = {
    "bool": (bool,),
    "signed integer": signed_integer_dtypes,
    "unsigned integer": unsigned_integer_dtypes,
    "integral": integer_dtypes,
    "real floating": real_floating_dtypes,
    "complex floating": complex_floating_dtypes,
    "numeric": numeric_dtypes,
}


def isdtype(dtype, kind) -> builtins.bool:
    """Whether ``dtype`` is of ``kind``.

    Args:
        dtype: a rocarray dtype.
        kind: a dtype, a kind name (``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
            ``"integral"``, ``"real floating"``, ``"complex floating"``, ``"numeric"``) or a
            tuple of those (true if any matches).

    Raises:
        TypeError: ``dtype`` is not a rocarray dtype.
        ValueError: an unknown kind name.

    Examples:
        >>> import rocarray as ra
        >>> ra.isdtype(ra.float32, ("integral", "real floating"))
        True
    """
    if not isinstance(dtype, np.dtype) or dtype not in all_dtypes:
        raise TypeError(f"isdtype: expected a rocarray dtype, got {dtype!r}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _kinds:
            raise ValueError(
                f"isdtype: unknown kind {kind!r}; expected one of {', '.join(map(repr, _kinds))}"
            )
        return dtype in _kinds[kind]
    if isinstance(kind, np.dtype):
        return dtype == kind
    raise TypeError(f"isdtype: kind must be a dtype, a kind name or a tuple, not {kind!r}")


def _dtype_of(x) -> np.dtype:
    d = getattr(x, "dtype", None)
    if d is not None and not isinstance(x, (np.dtype, type)):
        return as_dtype(d)
    return as_dtype(x)


def _scalar_kind(x) -> str | None:
    if isinstance(x, builtins.bool):
        return "bool"
    if isinstance(x, builtins.int):
        return "int"
    if isinstance(x, builtins.float):
        return "float"
    if isinstance(x, builtins.complex):
        return "complex"
    return None


def result_with_scalar(dtype: np.dtype, kind: str) -> np.dtype:
    """Result dtype of an array of ``dtype`` combined with a Python scalar of ``kind``.

    Python scalars are weak (the array API and NumPy 2): they take the array's dtype when
    their kind fits it; otherwise they promote to the default dtype of their kind.
    """
    if kind == "bool":
        return dtype
    if kind == "int":
        return dtype if dtype != bool else default_int
    if kind == "float":
        if dtype.kind in "fc":
            return dtype
        return default_float
    # complex
    if dtype.kind == "c":
        return dtype
    if dtype == float32 or dtype == float16:
        return complex64
    return default_complex


def result_type(*arrays_and_dtypes) -> np.dtype:
    """The dtype that type promotion gives for the arguments (arrays, dtypes and Python scalars).

    The standard's table, written out; pairs it leaves open follow NumPy (``int64`` with
    ``uint64`` gives ``float64``; integers with floats a float wide enough for both). Python
    scalars are weak: they take the array's dtype when their kind allows.

    Raises:
        TypeError: no array or dtype among the arguments, or ``None``.

    Examples:
        >>> import rocarray as ra
        >>> ra.result_type(ra.int8, ra.uint8), ra.result_type(ra.float32, 1.5)
        (dtype('int16'), dtype('float32'))
    """
    dtypes = []
    scalars = []
    for x in arrays_and_dtypes:
        d = getattr(x, "_dtype", None)  # (a rocarray array: its dtype as is, the common case)
        if isinstance(d, np.dtype):
            dtypes.append(d)
            continue
        k = _scalar_kind(x)
        if k is not None:
            scalars.append(k)
        else:
            dtypes.append(_dtype_of(x))
    if not dtypes:
        if not scalars:
            raise ValueError("result_type: at least one array or dtype is required")
        # a TypeError (the arguments' kind, not their values, is wrong): xarray asks each
        # scalar's type alone and expects one
        raise TypeError(
            "result_type: at least one array or dtype is required; Python scalars alone "
            "do not determine a dtype"
        )
    r = dtypes[0]
    for d in dtypes[1:]:
        if d is not r:
            r = promote_types(r, d)
    for k in scalars:
        r = result_with_scalar(r, k)
    return r


def can_cast(from_, to) -> builtins.bool:
    """Whether ``from_`` (a dtype or an array) can be cast to ``to`` without changing kind the
    wrong way under the promotion rules (``int8`` -> ``int16`` yes, ``int16`` -> ``int8`` no).

    Examples:
        >>> import rocarray as ra
        >>> ra.can_cast(ra.int8, ra.float32), ra.can_cast(ra.float64, ra.float32)
        (True, False)
    """
    f = _dtype_of(from_)
    t = as_dtype(to, argname="to")
    if f == t:
        return True
    if f == bool:
        return True
    if t == bool:
        return False
    return np.can_cast(f, t, casting="safe")


class finfo_object(NamedTuple):
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


class iinfo_object(NamedTuple):
    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type) -> finfo_object:  # noqa: A002 - the spec's name
    """Machine limits of a floating-point dtype (or of an array's dtype): ``bits``, ``eps``,
    ``max``, ``min``, ``smallest_normal``, ``dtype`` (for complex dtypes, those of the real part).

    Examples:
        >>> import rocarray as ra
        >>> ra.finfo(ra.float16).max
        65504.0
    """
    d = _dtype_of(type)
    if d.kind not in "fc":
        raise TypeError(f"finfo: {d} is not a floating-point dtype")
    fi = np.finfo(d)
    return finfo_object(
        int(fi.bits), float(fi.eps), float(fi.max), float(fi.min),
        float(fi.smallest_normal), as_dtype(fi.dtype),
    )


def iinfo(type) -> iinfo_object:  # noqa: A002
    """Machine limits of an integer dtype (or of an array's dtype): ``bits``, ``max``, ``min``, ``dtype``.

    Examples:
        >>> import rocarray as ra
        >>> ra.iinfo(ra.int8).min
        -128
    """
    d = _dtype_of(type)
    if d.kind not in "iu":
        raise TypeError(f"iinfo: {d} is not an integer dtype")
    ii = np.iinfo(d)
    return iinfo_object(int(ii.bits), int(ii.max), int(ii.min), d)
