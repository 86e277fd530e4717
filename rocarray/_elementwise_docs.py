"""The docstrings of the elementwise functions: one entry per row of the op catalogue.

``rocarray._elementwise_functions`` gives each function its docstring from here when it makes
the function: the entry's summary, NumPy difference and example, with the dtypes accepted
and the result dtype said from the row itself (``docstring``), and its signature
(``signature``).
"""

from __future__ import annotations

import inspect

#: name -> (summary, difference from NumPy or the standard, example call, its output)
ENTRIES = {
    "abs": (
        'The absolute value of each element; for complex numbers the modulus (a real dtype).',
        '',
        'ra.abs(ra.asarray([-1.5, 0.0, 2.0]))',
        'array([1.5, 0. , 2. ])',
    ),
    "acos": (
        'The inverse cosine of each element, in radians.',
        '',
        'ra.acos(ra.asarray([1.0, 0.0]))',
        'array([0.        , 1.57079633])',
    ),
    "acosh": (
        'The inverse hyperbolic cosine of each element.',
        '',
        'ra.acosh(ra.asarray([1.0, 2.0]))',
        'array([0.       , 1.3169579])',
    ),
    "add": (
        'The sum of ``x1`` and ``x2``, element by element (``x1 + x2``).',
        'Integers wrap around on overflow, as in NumPy.',
        'ra.add(ra.asarray([1, 2, 3]), 10)',
        'array([11, 12, 13])',
    ),
    "asin": (
        'The inverse sine of each element, in radians.',
        '',
        'ra.asin(ra.asarray([0.0, 1.0]))',
        'array([0.        , 1.57079633])',
    ),
    "asinh": (
        'The inverse hyperbolic sine of each element.',
        '',
        'ra.asinh(ra.asarray([0.0, 1.0]))',
        'array([0.        , 0.88137359])',
    ),
    "atan": (
        'The inverse tangent of each element, in radians.',
        '',
        'ra.atan(ra.asarray([0.0, 1.0]))',
        'array([0.        , 0.78539816])',
    ),
    "atan2": (
        'The angle of the point ``(x2, x1)`` in radians, in ``[-pi, pi]`` (the quadrant from both signs).',
        "NumPy's ``arctan2``.",
        'ra.atan2(ra.asarray([1.0, -1.0]), ra.asarray([0.0, 0.0]))',
        'array([ 1.57079633, -1.57079633])',
    ),
    "atanh": (
        'The inverse hyperbolic tangent of each element.',
        '',
        'ra.atanh(ra.asarray([0.0, 0.5]))',
        'array([0.        , 0.54930614])',
    ),
    "bitwise_and": (
        'The bitwise AND of ``x1`` and ``x2`` (``x1 & x2``); logical AND for bools.',
        '',
        'ra.bitwise_and(ra.asarray([12, 10]), 6)',
        'array([4, 2])',
    ),
    "bitwise_invert": (
        'The bitwise NOT of each element (``~x``); logical NOT for bools.',
        "NumPy's ``invert``.",
        'ra.bitwise_invert(ra.asarray([0, 5], dtype=ra.uint8))',
        'array([255, 250], dtype=uint8)',
    ),
    "bitwise_left_shift": (
        '``x1`` shifted left by ``x2`` bits (``x1 << x2``).',
        "A count at least the bit width, or negative, gives 0 (NumPy's result).",
        'ra.bitwise_left_shift(ra.asarray([1, 3]), 2)',
        'array([ 4, 12])',
    ),
    "bitwise_or": (
        'The bitwise OR of ``x1`` and ``x2`` (``x1 | x2``); logical OR for bools.',
        '',
        'ra.bitwise_or(ra.asarray([12, 10]), 1)',
        'array([13, 11])',
    ),
    "bitwise_right_shift": (
        '``x1`` shifted right by ``x2`` bits (``x1 >> x2``), arithmetic for signed integers.',
        "A count at least the bit width, or negative, gives 0, or -1 for a negative value (NumPy's results).",
        'ra.bitwise_right_shift(ra.asarray([16, -16]), 2)',
        'array([ 4, -4])',
    ),
    "bitwise_xor": (
        'The bitwise exclusive OR of ``x1`` and ``x2`` (``x1 ^ x2``).',
        '',
        'ra.bitwise_xor(ra.asarray([12, 10]), 6)',
        'array([10, 12])',
    ),
    "ceil": (
        'The smallest integer value not less than each element (integers are returned as they are).',
        '',
        'ra.ceil(ra.asarray([-1.5, 0.2, 2.0]))',
        'array([-1.,  1.,  2.])',
    ),
    "conj": (
        'The complex conjugate of each element; real inputs are returned unchanged.',
        '',
        'ra.conj(ra.asarray([1 + 2j, 3 - 1j]))',
        'array([1.-2.j, 3.+1.j])',
    ),
    "copysign": (
        'The magnitude of ``x1`` with the sign of ``x2``.',
        '',
        'ra.copysign(ra.asarray([1.0, 2.0]), -0.0)',
        'array([-1., -2.])',
    ),
    "cbrt": (
        'The real cube root of each element (negative for a negative element).',
        'NumPy and CuPy have it; the standard does not.',
        'ra.cbrt(ra.asarray([-8.0, 27.0]))',
        'array([-2.,  3.])',
    ),
    "deg2rad": (
        'Each element, an angle in degrees, in radians (``x * (pi / 180)``; also ``radians``).',
        'NumPy and CuPy have it; the standard does not.',
        'ra.deg2rad(ra.asarray([180.0, 90.0]))',
        'array([3.14159265, 1.57079633])',
    ),
    "exp2": (
        '``2 ** x`` for each element.',
        'NumPy and CuPy have it; the standard does not.',
        'ra.exp2(ra.asarray([3.0, -1.0]))',
        'array([8. , 0.5])',
    ),
    "fabs": (
        'The absolute value of each element as a floating-point number (integers become floats).',
        'NumPy and CuPy have it; the standard does not. Complex numbers are not accepted: use ``abs``.',
        'ra.fabs(ra.asarray([-2, 3]))',
        'array([2., 3.])',
    ),
    "fmax": (
        'The larger of ``x1`` and ``x2``, element by element, skipping a NaN (NaN only where both are).',
        'NumPy and CuPy have it; the standard does not. ``maximum`` propagates NaNs instead.',
        'ra.fmax(ra.asarray([1.0, float("nan")]), ra.asarray([float("nan"), 2.0]))',
        'array([1., 2.])',
    ),
    "fmin": (
        'The smaller of ``x1`` and ``x2``, element by element, skipping a NaN (NaN only where both are).',
        'NumPy and CuPy have it; the standard does not. ``minimum`` propagates NaNs instead.',
        'ra.fmin(ra.asarray([1.0, float("nan")]), ra.asarray([float("nan"), 2.0]))',
        'array([1., 2.])',
    ),
    "fmod": (
        'The remainder of ``x1 / x2`` with the sign of ``x1`` (C\'s ``fmod``; ``remainder`` takes the sign '
        'of ``x2``).',
        'NumPy and CuPy have it; the standard does not. An integer divided by zero gives 0, as in NumPy.',
        'ra.fmod(ra.asarray([-7, 7]), 3)',
        'array([-1,  1])',
    ),
    "gcd": (
        'The greatest common divisor of ``|x1|`` and ``|x2|``, element by element (0 where both are 0).',
        'NumPy and CuPy have it; the standard does not.',
        'ra.gcd(ra.asarray([12, -20]), 8)',
        'array([4, 4])',
    ),
    "heaviside": (
        'The Heaviside step of ``x1``: 0 where it is negative, 1 where positive, ``x2`` where it is zero '
        '(NaN stays NaN).',
        'NumPy and CuPy have it; the standard does not.',
        'ra.heaviside(ra.asarray([-1.5, 0.0, 2.0]), 0.5)',
        'array([0. , 0.5, 1. ])',
    ),
    "lcm": (
        'The least common multiple of ``|x1|`` and ``|x2|``, element by element (0 where either is 0).',
        'NumPy and CuPy have it; the standard does not. Integers wrap around on overflow, as in NumPy.',
        'ra.lcm(ra.asarray([4, -6]), 10)',
        'array([20, 30])',
    ),
    "logaddexp2": (
        '``log2(2**x1 + 2**x2)`` without overflow or underflow on the way.',
        'NumPy and CuPy have it; the standard does not.',
        'ra.logaddexp2(ra.asarray([0.0, 1000.0]), 0.0)',
        'array([   1., 1000.])',
    ),
    "rad2deg": (
        'Each element, an angle in radians, in degrees (``x * (180 / pi)``; also ``degrees``).',
        'NumPy and CuPy have it; the standard does not.',
        'ra.rad2deg(ra.asarray([3.141592653589793]))',
        'array([180.])',
    ),
    "spacing": (
        'The distance from each element to the next float of its dtype away from zero, with its sign '
        '(``spacing(1.0)`` is the machine epsilon); the smallest subnormal at both zeros, inf at the '
        'largest finite value, NaN for infinities and NaN.',
        'NumPy and CuPy have it; the standard does not. As NumPy\'s float16 spacing, a negative float16 '
        'gives the positive step towards zero (``nextafter(x, inf) - x``).',
        'ra.spacing(ra.asarray([1.0, -1.0, 0.0]))',
        'array([ 2.22044605e-016, -2.22044605e-016,  4.94065646e-324])',
    ),
    "sinc": (
        'The normalized sinc, ``sin(pi x) / (pi x)``, 1 at 0.',
        'NumPy and CuPy have it (NumPy\'s is not a ufunc; integers give float64 as there); the standard '
        'does not. Complex numbers are not accepted; float16 is computed in float32 and rounded once (NumPy\'s '
        'float16 rounds ``pi * x`` first, and gives NaN at 0).',
        'ra.sinc(ra.asarray([0.0, 0.5]))',
        'array([1.        , 0.63661977])',
    ),
    "cos": (
        'The cosine of each element (radians).',
        '',
        'ra.cos(ra.asarray([0.0, ra.pi]))',
        'array([ 1., -1.])',
    ),
    "cosh": (
        'The hyperbolic cosine of each element.',
        '',
        'ra.cosh(ra.asarray([0.0, 1.0]))',
        'array([1.        , 1.54308063])',
    ),
    "divide": (
        'The true quotient ``x1 / x2``.',
        "Integer inputs give float64, as NumPy's true division does.",
        'ra.divide(ra.asarray([1, 3]), 2)',
        'array([0.5, 1.5])',
    ),
    "equal": (
        'Whether ``x1 == x2``, element by element.',
        "Integers of different signedness are compared exactly (``int64`` with ``uint64`` too); a Python int out of the array dtype's range compares as its value, as in NumPy 2.",
        'ra.equal(ra.asarray([1, 2, 3]), 2)',
        'array([False,  True, False])',
    ),
    "exp": (
        '``e`` raised to each element.',
        '',
        'ra.exp(ra.asarray([0.0, 1.0]))',
        'array([1.        , 2.71828183])',
    ),
    "expm1": (
        '``exp(x) - 1``, accurate for small ``x``.',
        '',
        'ra.expm1(ra.asarray([0.0, 1e-10]))',
        'array([0.e+00, 1.e-10])',
    ),
    "floor": (
        'The largest integer value not greater than each element (integers are returned as they are).',
        '',
        'ra.floor(ra.asarray([-1.5, 0.2, 2.0]))',
        'array([-2.,  0.,  2.])',
    ),
    "floor_divide": (
        'The quotient ``x1 // x2`` rounded towards minus infinity.',
        "Integer division by zero gives 0 (NumPy's result, without its warning: a kernel cannot warn).",
        'ra.floor_divide(ra.asarray([7, -7]), 2)',
        'array([ 3, -4])',
    ),
    "greater": (
        'Whether ``x1 > x2``, element by element.',
        'Mixed signedness and out-of-range Python ints are compared exactly.',
        'ra.greater(ra.asarray([1, 2, 3]), 2)',
        'array([False, False,  True])',
    ),
    "greater_equal": (
        'Whether ``x1 >= x2``, element by element.',
        'Mixed signedness and out-of-range Python ints are compared exactly.',
        'ra.greater_equal(ra.asarray([1, 2, 3]), 2)',
        'array([False,  True,  True])',
    ),
    "hypot": (
        '``sqrt(x1**2 + x2**2)`` without overflow or underflow on the way.',
        '',
        'ra.hypot(ra.asarray([3.0, 5.0]), 4.0)',
        'array([5.        , 6.40312424])',
    ),
    "imag": (
        'The imaginary part of each element (zeros for real inputs), in the real dtype.',
        '',
        'ra.imag(ra.asarray([1 + 2j, 3 - 1j]))',
        'array([ 2., -1.])',
    ),
    "isfinite": (
        'Whether each element is finite (neither infinite nor NaN).',
        '',
        'ra.isfinite(ra.asarray([1.0, ra.inf, ra.nan]))',
        'array([ True, False, False])',
    ),
    "isinf": (
        'Whether each element is positive or negative infinity.',
        '',
        'ra.isinf(ra.asarray([1.0, -ra.inf, ra.nan]))',
        'array([False,  True, False])',
    ),
    "isnan": (
        'Whether each element is NaN (for complex numbers: either part).',
        '',
        'ra.isnan(ra.asarray([1.0, ra.inf, ra.nan]))',
        'array([False, False,  True])',
    ),
    "less": (
        'Whether ``x1 < x2``, element by element.',
        'Mixed signedness and out-of-range Python ints are compared exactly.',
        'ra.less(ra.asarray([1, 2, 3]), 2)',
        'array([ True, False, False])',
    ),
    "less_equal": (
        'Whether ``x1 <= x2``, element by element.',
        'Mixed signedness and out-of-range Python ints are compared exactly.',
        'ra.less_equal(ra.asarray([1, 2, 3]), 2)',
        'array([ True,  True, False])',
    ),
    "log": (
        'The natural logarithm of each element.',
        '',
        'ra.log(ra.asarray([1.0, ra.e]))',
        'array([0., 1.])',
    ),
    "log10": (
        'The base-10 logarithm of each element.',
        '',
        'ra.log10(ra.asarray([1.0, 1000.0]))',
        'array([0., 3.])',
    ),
    "log1p": (
        '``log(1 + x)``, accurate for small ``x``.',
        '',
        'ra.log1p(ra.asarray([0.0, 1e-10]))',
        'array([0.e+00, 1.e-10])',
    ),
    "log2": (
        'The base-2 logarithm of each element.',
        '',
        'ra.log2(ra.asarray([1.0, 8.0]))',
        'array([0., 3.])',
    ),
    "logaddexp": (
        '``log(exp(x1) + exp(x2))`` without overflow on the way.',
        '',
        'ra.logaddexp(ra.asarray([0.0, 1000.0]), 0.0)',
        'array([6.93147181e-01, 1.00000000e+03])',
    ),
    "logical_and": (
        'The logical AND of ``x1`` and ``x2``; non-bool inputs are read as ``x != 0``.',
        '',
        'ra.logical_and(ra.asarray([True, True, False]), ra.asarray([True, False, False]))',
        'array([ True, False, False])',
    ),
    "logical_not": (
        'The logical NOT of each element; non-bool inputs are read as ``x != 0``.',
        '',
        'ra.logical_not(ra.asarray([True, False]))',
        'array([False,  True])',
    ),
    "logical_or": (
        'The logical OR of ``x1`` and ``x2``; non-bool inputs are read as ``x != 0``.',
        '',
        'ra.logical_or(ra.asarray([True, False, False]), ra.asarray([True, True, False]))',
        'array([ True,  True, False])',
    ),
    "logical_xor": (
        'The logical exclusive OR of ``x1`` and ``x2``; non-bool inputs are read as ``x != 0``.',
        '',
        'ra.logical_xor(ra.asarray([True, False, False]), ra.asarray([True, True, False]))',
        'array([False,  True, False])',
    ),
    "maximum": (
        'The larger of ``x1`` and ``x2``, element by element; NaN if either is NaN.',
        "For ``-0.0`` against ``+0.0`` the first argument wins the tie (NumPy's scalar rule; the standard leaves it open).",
        'ra.maximum(ra.asarray([1.0, 5.0, ra.nan]), 3.0)',
        'array([ 3.,  5., nan])',
    ),
    "minimum": (
        'The smaller of ``x1`` and ``x2``, element by element; NaN if either is NaN.',
        'For ``-0.0`` against ``+0.0`` the first argument wins the tie.',
        'ra.minimum(ra.asarray([1.0, 5.0, ra.nan]), 3.0)',
        'array([ 1.,  3., nan])',
    ),
    "multiply": (
        'The product ``x1 * x2``, element by element.',
        'Integers wrap around on overflow, as in NumPy.',
        'ra.multiply(ra.asarray([1, 2, 3]), 4)',
        'array([ 4,  8, 12])',
    ),
    "negative": (
        'The negation ``-x`` of each element.',
        '',
        'ra.negative(ra.asarray([1, -2]))',
        'array([-1,  2])',
    ),
    "nextafter": (
        'The next floating-point value after ``x1`` towards ``x2``.',
        '',
        'ra.nextafter(ra.asarray([1.0], dtype=ra.float32), 2.0) - 1.0',
        'array([1.1920929e-07], dtype=float32)',
    ),
    "not_equal": (
        'Whether ``x1 != x2``, element by element.',
        'Mixed signedness and out-of-range Python ints are compared exactly.',
        'ra.not_equal(ra.asarray([1, 2, 3]), 2)',
        'array([ True, False,  True])',
    ),
    "positive": (
        'Each element unchanged (``+x``), as a new array.',
        '',
        'ra.positive(ra.asarray([1, -2]))',
        'array([ 1, -2])',
    ),
    "pow": (
        '``x1`` raised to the power ``x2`` (``x1 ** x2``).',
        'An integer base with a negative integer exponent gives ``1 / base`` truncated (1 for 1, +-1 for -1, else 0), where NumPy raises: a kernel cannot raise.',
        'ra.pow(ra.asarray([2, 3]), 3)',
        'array([ 8, 27])',
    ),
    "real": (
        'The real part of each element, in the real dtype (real inputs are returned as they are).',
        '',
        'ra.real(ra.asarray([1 + 2j, 3 - 1j]))',
        'array([1., 3.])',
    ),
    "reciprocal": (
        '``1 / x`` for each element of a floating-point array.',
        'Integer arrays are refused (NumPy truncates them).',
        'ra.reciprocal(ra.asarray([2.0, 4.0]))',
        'array([0.5 , 0.25])',
    ),
    "remainder": (
        'The remainder of ``x1 // x2``, with the sign of ``x2`` (``x1 % x2``).',
        "Integer remainder by zero gives 0 (NumPy's result, without its warning).",
        'ra.remainder(ra.asarray([7, -7]), 3)',
        'array([1, 2])',
    ),
    "round": (
        'Each element rounded to the nearest integer value, halves to even (each part of a complex number).',
        'No ``decimals`` argument (the standard has none).',
        'ra.round(ra.asarray([0.5, 1.5, 2.5, -0.5]))',
        'array([ 0.,  2.,  2., -0.])',
    ),
    "sign": (
        'The sign of each element: -1, 0 or 1 (NaN for NaN); for complex numbers ``x / |x|``.',
        "The complex rule is NumPy 2's and the standard's.",
        'ra.sign(ra.asarray([-3.0, 0.0, 2.0]))',
        'array([-1.,  0.,  1.])',
    ),
    "signbit": (
        'Whether the sign bit of each element is set (true for ``-0.0`` and negative NaNs).',
        '',
        'ra.signbit(ra.asarray([-1.0, -0.0, 0.0]))',
        'array([ True,  True, False])',
    ),
    "sin": (
        'The sine of each element (radians).',
        '',
        'ra.sin(ra.asarray([0.0, ra.pi / 2]))',
        'array([0., 1.])',
    ),
    "sinh": (
        'The hyperbolic sine of each element.',
        '',
        'ra.sinh(ra.asarray([0.0, 1.0]))',
        'array([0.        , 1.17520119])',
    ),
    "sqrt": (
        'The non-negative square root of each element (the principal root for complex numbers).',
        '',
        'ra.sqrt(ra.asarray([4.0, 2.0]))',
        'array([2.        , 1.41421356])',
    ),
    "square": (
        'The square ``x * x`` of each element.',
        '',
        'ra.square(ra.asarray([-3, 4]))',
        'array([ 9, 16])',
    ),
    "subtract": (
        'The difference ``x1 - x2``, element by element.',
        'Bool inputs are refused (NumPy refuses them too).',
        'ra.subtract(ra.asarray([5, 7]), 2)',
        'array([3, 5])',
    ),
    "tan": (
        'The tangent of each element (radians).',
        '',
        'ra.tan(ra.asarray([0.0, ra.pi / 4]))',
        'array([0., 1.])',
    ),
    "tanh": (
        'The hyperbolic tangent of each element.',
        '',
        'ra.tanh(ra.asarray([0.0, 1.0]))',
        'array([0.        , 0.76159416])',
    ),
    "trunc": (
        'Each element rounded towards zero (integers are returned as they are).',
        '',
        'ra.trunc(ra.asarray([-1.7, 1.7]))',
        'array([-1.,  1.])',
    ),
}

_ACCEPTS = {
    "any": "any dtype",
    "numeric": "a numeric dtype (integer, real or complex floating; not bool)",
    "real": "bool, an integer or a real floating dtype (not complex)",
    "integer": "an integer dtype",
    "integer_or_bool": "bool or an integer dtype",
    "floating": "a real or complex floating dtype",
    "real_floating": "a real floating dtype",
    "bool": "bool, an integer or a real floating dtype (numbers are read as ``x != 0``)",
}

_RESULT = {
    ("promote", "same"): "the inputs' promoted dtype (``result_type``; Python scalars are weak: "
                         "``int8_array + 1`` stays ``int8``)",
    ("float", "same"): "the inputs' promoted dtype, made floating as NumPy does (``int8`` -> "
                       "``float16``, ``int16`` -> ``float32``, wider integers -> ``float64``)",
    ("true_divide", "same"): "the inputs' promoted dtype; integer inputs give ``float64``",
    ("promote", "real"): "the real dtype of the input (``complex64`` -> ``float32``), else the input's",
    ("compare", "bool"): "``bool``",
    ("promote", "bool"): "``bool``",
    ("bool", "bool"): "``bool``",
}


def signature(nin: int) -> inspect.Signature:
    """The call signature of an elementwise function of ``nin`` inputs: ``(x, /, *, out=None)``
    or ``(x1, x2, /, *, out=None)`` (what ``help()`` and the reference show)."""
    P = inspect.Parameter
    names = ["x"] if nin == 1 else [f"x{i + 1}" for i in range(nin)]
    return inspect.Signature([P(n, P.POSITIONAL_ONLY) for n in names] + [P("out", P.KEYWORD_ONLY, default=None)])


def docstring(name: str, nin: int, accepts: str, compute: str, out: str) -> str | None:
    """The docstring of catalogue row ``name`` (None for a row without an entry)."""
    entry = ENTRIES.get(name)
    if entry is None:
        return None
    summary, note, call, result = entry
    text = [summary, ""]
    if nin == 1:
        text += ["Args:", f"    x: an array of {_ACCEPTS[accepts]}."]
    else:
        text += ["Args:"] + [f"    x{i + 1}: an array or a Python scalar (at least one argument must be an "
                             f"array) of {_ACCEPTS[accepts]}; the arguments broadcast together."
                             for i in range(nin)]
    text += ["    out: an array of the result's shape and dtype to write into (as NumPy's ``out=``; "
             "an extension of the standard).", "",
             "Returns:", f"    A new array (or ``out``) of {_RESULT[(compute, out)]}.", "",
             "Raises:", "    TypeError: a dtype the function does not accept, only Python scalars,",
             "        or arrays on different devices.", ""]
    if note:
        text += ["Note:", f"    {note}", ""]
    text += ["Examples:", "    >>> import rocarray as ra", f"    >>> {call}"]
    text += [f"    {line}" for line in result.splitlines()]
    return "\n".join(text)

