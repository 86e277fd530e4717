"""The elementwise op catalogue: one row per op, bodies in the kernel language.

Adding an op is adding a row (``OPS``); ``rocarray._elementwise_functions`` makes the
namespace's functions and the Array operators from the rows.
"""

from __future__ import annotations

from typing import NamedTuple


class Op(NamedTuple):
    """One row of the catalogue.

    Row fields:
      name      the array API name
      nin       number of inputs (one output, ``out0``)
      category  the spec's group
      accepts   input dtype kinds allowed: "numeric", "real" (no complex), "integer",
                "integer_or_bool", "floating" (real and complex), "real_floating", "bool", "any"
      compute   how the loop dtype is found: "promote" (the promotion of the inputs),
                "float" (that, made floating like NumPy: int8 -> float16, int32 -> float64),
                "true_divide" (integers and bools give float64, as NumPy's true division),
                "compare" ("promote", except a signed and an unsigned integer whose promotion
                is floating, int64 with uint64: each input then converts to the 64-bit
                integer of its kind and the body under the key "int64,uint64" compares them
                exactly), "bool" (inputs converted to bool)
      out       "same" (the loop dtype), "bool", "real" (complex -> its real dtype)
      body      kernel-language source, or a dict from dtype-kind letters ("b", "i", "u",
                "f", "c"; several letters share a body) or a dtype name ("float16") to sources
      dunder    the Array operator method this op backs ("__add__" implies __radd__/__iadd__)

    In bodies, ``in0``, ``in1``, ... and ``out0`` have the loop dtype (inputs are converted to
    it before the body runs), ``in0_type`` / ``out0_type`` name those types, and ``ctype``
    is the type arithmetic should use (float for float16, else the loop dtype), ``rtype``
    its real component type (float for complex64).
    """

    name: str
    nin: int
    category: str
    accepts: str
    compute: str
    out: str
    body: object
    dunder: str | None = None


def _unary_math(name: str) -> Op:
    # real and complex loops call the kernel language's function of that name (complex
    # ones are written in rocarray/compiler/lang/prelude.rk)
    body = {"f": f"out0 = {name}(in0);", "c": f"out0 = {name}(in0);"}
    return Op(name, 1, "transcendental", "numeric", "float", "same", body)


_FLOOR_DIVIDE_FLOAT = """
ctype a = in0, b = in1;
if (b == 0 || isinf(a) || isinf(b)) {
    // the standard's special cases: a zero or infinite operand gives the IEEE quotient
    // (inf // 2 is inf, 1 // -inf is -0; NumPy gives NaN and -1)
    out0 = a / b;
} else {
    ctype mod = fmod(a, b);
    ctype div = (a - mod) / b;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) div -= 1;
    }
    ctype q;
    if (div != 0) {
        q = floor(div);
        if (div - q > 0.5) q += 1;
    } else {
        q = copysign((ctype)0, a / b);
    }
    out0 = q;
}
"""

_REMAINDER_FLOAT = """
ctype a = in0, b = in1;
ctype mod = fmod(a, b);
if (b != 0) {
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) mod += b;
    } else {
        mod = copysign((ctype)0, b);
    }
}
out0 = mod;
"""

_POW_INT = """
in0_type base = in0;
in1_type e = in1;
out0_type r = 1;
if (e < 0) {
    // NumPy raises for negative integer powers; a kernel cannot, so give the
    // nearest meaningful integer: 1 / base truncated.
    if (base == 1) r = 1;
    else if (base == -1) r = (e & 1) ? -1 : 1;
    else r = 0;
} else {
    while (e > 0) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
    }
}
out0 = r;
"""

_LOGADDEXP = """
ctype x = in0, y = in1;
if (x == y) {
    out0 = x + (ctype)0.6931471805599453;
} else {
    ctype d = x - y;
    if (d > 0) out0 = x + log1p(exp(-d));
    else if (d <= 0) out0 = y + log1p(exp(d));
    else out0 = d;
}
"""

_LOGADDEXP2 = """
ctype x = in0, y = in1;
if (x == y) {
    out0 = x + (ctype)1;
} else {
    // the larger plus log2(1 + 2^-|d|), that is log1p(2^-|d|) / ln 2
    ctype d = x - y;
    if (d > 0) out0 = x + log1p(exp2(-d)) * (ctype)1.4426950408889634;
    else if (d <= 0) out0 = y + log1p(exp2(d)) * (ctype)1.4426950408889634;
    else out0 = d;
}
"""

# Euclid's algorithm on the magnitudes, as NumPy's gcd and lcm: a signed value's
# magnitude as an unsigned number (so |-128| of an int8 is 128, not -128), the result cast
# back; the lcm divides before it multiplies, wrapping as NumPy's where it overflows
_EUCLID = """
while (b != 0) {
    uint64 t = a % b;
    a = b;
    b = t;
}
"""
_MAGNITUDES = """
uint64 x = in0 < 0 ? (uint64)0 - (uint64)in0 : (uint64)in0;
uint64 y = in1 < 0 ? (uint64)0 - (uint64)in1 : (uint64)in1;
uint64 a = x, b = y;
"""
_GCD = {"i": _MAGNITUDES + _EUCLID + "out0 = (out0_type)a;",
        "u": "in0_type a = in0, b = in1;" + _EUCLID.replace("uint64", "in0_type") + "out0 = a;"}
_LCM = {"i": _MAGNITUDES + _EUCLID + "out0 = (out0_type)(a == 0 ? 0 : (x / a) * y);",
        "u": "in0_type a = in0, b = in1;" + _EUCLID.replace("uint64", "in0_type")
             + "out0 = a == 0 ? 0 : (in0 / a) * in1;"}

_SIGN_COMPLEX = """
rtype x = real(in0), y = imag(in0);
rtype ax = fabs(x), ay = fabs(y);
rtype hi = fmax(ax, ay), lo = fmin(ax, ay);
if (isnan(x) || isnan(y)) out0 = out0_type(NAN, NAN);
else if (hi == 0) out0 = out0_type(0, 0);
else if (isinf(hi)) {
    // an infinite component dominates: the direction of the infinite parts
    rtype re = isinf(x) ? copysign((rtype)1, x) : (rtype)0;
    rtype im = isinf(y) ? copysign((rtype)1, y) : (rtype)0;
    rtype m = sqrt(re * re + im * im);
    out0 = out0_type(re / m, im / m);
} else {
    // z / |z| as (z / hi) / sqrt(1 + (lo/hi)^2): |z| itself may overflow, or be a
    // subnormal that has lost digits
    rtype r = lo / hi;
    rtype m = sqrt(r * r + 1);
    out0 = out0_type((x / hi) / m, (y / hi) / m);
}
"""

_SQUARE_COMPLEX = """
rtype x = real(in0), y = imag(in0);
if (isfinite(x) && isfinite(y)) {
    // (x - y)(x + y): the right sign and no NaN where x^2 or y^2 overflows, and
    // accurate for |x| near |y| (x^2 - y^2 cancels)
    rtype d = x - y, s = x + y;
    out0 = out0_type((d == 0 || s == 0) ? (rtype)0 : d * s, (x * y) * 2);
} else {
    out0 = in0 * in0;  // infinities and NaNs as the product (NumPy's)
}
"""

_NEXTAFTER_HALF = """
// float16 has no libm nextafter: step by one half-precision ulp (exact in float)
float x = in0, y = in1;
if (isnan(x) || isnan(y)) out0 = x + y;
else if (x == y) out0 = in0;  // NumPy's float16 rule (C's nextafter returns y)
else if (x == 0) out0 = copysign(5.960464477539063e-08f, y);
else if (isinf(x)) out0 = copysign(65504.0f, x);
else {
    float ax = fabs(x);
    float e = floor(log2(ax));
    float ulp = exp2(fmax(e, -14.0f) - 10.0f);
    bool away = (y > x) == (x > 0);
    if (!away && ax == exp2(e) && e > -14.0f) ulp = ulp * 0.5f;
    float r = away ? x + copysign(ulp, x) : x - copysign(ulp, x);
    out0 = r == 0 ? copysign(0.0f, x) : r;  // stepping onto zero keeps x's sign (C's rule)
}
"""

# int64 with uint64 (either order): a negative value is below every unsigned one; two
# non-negative values compare as uint64 (exact, where float64 would round them)
_MIXED_COMPARE = """
int s = in0 < 0 ? -1 : (in1 < 0 ? 1 : 0);
out0 = s != 0 ? (s {op} 0) : ((uint64)in0 {op} (uint64)in1);
"""


# the larger / smaller of two integers or bools (maximum and fmax, minimum and fmin)
_GREATER = "out0 = in0 > in1 ? in0 : in1;"
_LESS = "out0 = in0 < in1 ? in0 : in1;"


def _comparison(name: str, op: str, accepts: str, dunder: str) -> Op:
    return Op(name, 2, "comparison", accepts, "compare", "bool",
              {"biufc": f"out0 = in0 {op} in1;", "int64,uint64": _MIXED_COMPARE.format(op=op)}, dunder)


OPS = (
    # -- arithmetic ----------------------------------------------------------------------
    Op("add", 2, "arithmetic", "any", "promote", "same",
       {"b": "out0 = in0 || in1;", "iufc": "out0 = in0 + in1;"}, "__add__"),
    Op("subtract", 2, "arithmetic", "numeric", "promote", "same", "out0 = in0 - in1;", "__sub__"),
    Op("multiply", 2, "arithmetic", "any", "promote", "same",
       {"b": "out0 = in0 && in1;", "iufc": "out0 = in0 * in1;"}, "__mul__"),
    Op("divide", 2, "arithmetic", "numeric", "true_divide", "same", "out0 = in0 / in1;", "__truediv__"),
    Op("floor_divide", 2, "arithmetic", "real", "promote", "same", {
        "i": """
            if (in1 == 0) out0 = 0;
            else if (in1 == -1) out0 = -in0;
            else {
                in0_type q = in0 / in1;
                if ((in0 % in1 != 0) && ((in0 < 0) != (in1 < 0))) q = q - 1;
                out0 = q;
            }""",
        "u": "out0 = in1 == 0 ? 0 : in0 / in1;",
        "f": _FLOOR_DIVIDE_FLOAT,
    }, "__floordiv__"),
    Op("remainder", 2, "arithmetic", "real", "promote", "same", {
        "i": """
            if (in1 == 0 || in1 == -1) out0 = 0;
            else {
                in0_type r = in0 % in1;
                if (r != 0 && ((r < 0) != (in1 < 0))) r += in1;
                out0 = r;
            }""",
        "u": "out0 = in1 == 0 ? 0 : in0 % in1;",
        "f": _REMAINDER_FLOAT,
    }, "__mod__"),
    Op("pow", 2, "arithmetic", "numeric", "promote", "same",
       {"iu": _POW_INT, "fc": "out0 = pow((ctype)in0, (ctype)in1);"}, "__pow__"),
    Op("negative", 1, "arithmetic", "numeric", "promote", "same", "out0 = -in0;", "__neg__"),
    Op("positive", 1, "arithmetic", "numeric", "promote", "same", "out0 = in0;", "__pos__"),
    Op("square", 1, "arithmetic", "numeric", "promote", "same",
       {"iuf": "out0 = in0 * in0;", "c": _SQUARE_COMPLEX}),
    Op("reciprocal", 1, "arithmetic", "floating", "float", "same", "out0 = (ctype)1 / in0;"),
    Op("abs", 1, "arithmetic", "numeric", "promote", "real", {
        "i": "out0 = in0 < 0 ? -in0 : in0;", "u": "out0 = in0;",
        "f": "out0 = fabs(in0);", "c": "out0 = abs(in0);",
    }, "__abs__"),
    Op("sign", 1, "arithmetic", "numeric", "promote", "same", {
        "i": "out0 = (in0 > 0) - (in0 < 0);", "u": "out0 = in0 > 0;",
        "f": "out0 = isnan(in0) ? in0 : (in0 > 0 ? 1 : (in0 < 0 ? -1 : 0));",
        "c": _SIGN_COMPLEX,
    }),
    Op("maximum", 2, "arithmetic", "real", "promote", "same", {
        "biu": _GREATER,
        "f": "out0 = (isnan(in0) || in0 >= in1) ? in0 : in1;",
    }),
    Op("minimum", 2, "arithmetic", "real", "promote", "same", {
        "biu": _LESS,
        "f": "out0 = (isnan(in0) || in0 <= in1) ? in0 : in1;",
    }),
    # NumPy's and CuPy's beyond the standard: the maximum and minimum that skip a NaN,
    # C's remainder (the sign of the dividend), the absolute value as a float, gcd / lcm
    Op("fmax", 2, "arithmetic", "real", "promote", "same", {
        "biu": _GREATER,
        "f": "out0 = (isnan(in1) || in0 >= in1) ? in0 : in1;",
    }),
    Op("fmin", 2, "arithmetic", "real", "promote", "same", {
        "biu": _LESS,
        "f": "out0 = (isnan(in1) || in0 <= in1) ? in0 : in1;",
    }),
    Op("fmod", 2, "arithmetic", "real", "promote", "same", {
        "i": "out0 = (in1 == 0 || in1 == -1) ? 0 : in0 % in1;",  # (NumPy's 0 for a zero divisor)
        "u": "out0 = in1 == 0 ? 0 : in0 % in1;",
        "f": "out0 = fmod(in0, in1);",
    }),
    Op("fabs", 1, "arithmetic", "real", "float", "same", "out0 = fabs(in0);"),
    Op("gcd", 2, "arithmetic", "integer", "promote", "same", _GCD),
    Op("lcm", 2, "arithmetic", "integer", "promote", "same", _LCM),
    Op("heaviside", 2, "arithmetic", "real", "float", "same",
       "out0 = isnan(in0) ? in0 : (in0 < 0 ? (ctype)0 : (in0 > 0 ? (ctype)1 : (ctype)in1));"),
    # -- exponential, logarithmic, trigonometric, hyperbolic -------------------------------
    _unary_math("sqrt"),
    _unary_math("exp"),
    _unary_math("expm1"),
    _unary_math("log"),
    _unary_math("log1p"),
    _unary_math("log2"),
    _unary_math("log10"),
    Op("exp2", 1, "transcendental", "numeric", "float", "same",
       {"f": "out0 = exp2(in0);", "c": "out0 = exp(in0 * (rtype)0.6931471805599453);"}),
    Op("cbrt", 1, "transcendental", "real", "float", "same", "out0 = cbrt(in0);"),
    _unary_math("sin"), _unary_math("cos"), _unary_math("tan"),
    _unary_math("asin"), _unary_math("acos"), _unary_math("atan"),
    _unary_math("sinh"), _unary_math("cosh"), _unary_math("tanh"),
    _unary_math("asinh"), _unary_math("acosh"), _unary_math("atanh"),
    Op("atan2", 2, "transcendental", "real", "float", "same", "out0 = atan2(in0, in1);"),
    Op("hypot", 2, "transcendental", "real", "float", "same", "out0 = hypot(in0, in1);"),
    Op("logaddexp", 2, "transcendental", "real", "float", "same", _LOGADDEXP),
    Op("logaddexp2", 2, "transcendental", "real", "float", "same", _LOGADDEXP2),
    # (NumPy's constants: pi / 180 and 180 / pi, each rounded in the loop's type)
    Op("deg2rad", 1, "transcendental", "real", "float", "same",
       "out0 = in0 * ((ctype)3.141592653589793 / (ctype)180);"),
    Op("rad2deg", 1, "transcendental", "real", "float", "same",
       "out0 = in0 * ((ctype)180 / (ctype)3.141592653589793);"),
    # NumPy's sin(pi x) / (pi x), x = 0 standing in as 1e-20 (float16 in float, rounded
    # once: 1 at 0, where NumPy's float16 rounds pi x to float16 and gives NaN at 0)
    Op("sinc", 1, "transcendental", "real", "true_divide", "same",
       "ctype y = (ctype)3.141592653589793 * (in0 == 0 ? (ctype)1e-20 : (ctype)in0); out0 = sin(y) / y;"),
    Op("copysign", 2, "floating-point", "real", "float", "same", "out0 = copysign(in0, in1);"),
    Op("nextafter", 2, "floating-point", "real", "float", "same",
       {"float16": _NEXTAFTER_HALF, "f": "out0 = nextafter(in0, in1);"}),
    # -- rounding ----------------------------------------------------------------------------
    Op("floor", 1, "rounding", "real", "promote", "same", {"biu": "out0 = in0;", "f": "out0 = floor(in0);"}),
    Op("ceil", 1, "rounding", "real", "promote", "same", {"biu": "out0 = in0;", "f": "out0 = ceil(in0);"}),
    Op("trunc", 1, "rounding", "real", "promote", "same", {"biu": "out0 = in0;", "f": "out0 = trunc(in0);"}),
    Op("round", 1, "rounding", "numeric", "promote", "same", {
        "iu": "out0 = in0;", "f": "out0 = rint(in0);",
        "c": "out0 = out0_type(rint(real(in0)), rint(imag(in0)));",
    }),
    # -- classification ------------------------------------------------------------------------
    Op("isnan", 1, "classification", "numeric", "promote", "bool", {
        "iu": "out0 = false;", "f": "out0 = isnan(in0);",
        "c": "out0 = isnan(real(in0)) || isnan(imag(in0));",
    }),
    Op("isinf", 1, "classification", "numeric", "promote", "bool", {
        "iu": "out0 = false;", "f": "out0 = isinf(in0);",
        "c": "out0 = isinf(real(in0)) || isinf(imag(in0));",
    }),
    Op("isfinite", 1, "classification", "numeric", "promote", "bool", {
        "iu": "out0 = true;", "f": "out0 = isfinite(in0);",
        "c": "out0 = isfinite(real(in0)) && isfinite(imag(in0));",
    }),
    Op("signbit", 1, "classification", "real_floating", "promote", "bool", "out0 = signbit(in0);"),
    # -- complex -------------------------------------------------------------------------------
    Op("real", 1, "complex", "numeric", "promote", "real", {"iuf": "out0 = in0;", "c": "out0 = real(in0);"}),
    Op("imag", 1, "complex", "numeric", "promote", "real", {"iuf": "out0 = 0;", "c": "out0 = imag(in0);"}),
    Op("conj", 1, "complex", "numeric", "promote", "same", {"iuf": "out0 = in0;", "c": "out0 = conj(in0);"}),
    # -- comparison ------------------------------------------------------------------------------
    _comparison("equal", "==", "any", "__eq__"),
    _comparison("not_equal", "!=", "any", "__ne__"),
    _comparison("less", "<", "real", "__lt__"),
    _comparison("less_equal", "<=", "real", "__le__"),
    _comparison("greater", ">", "real", "__gt__"),
    _comparison("greater_equal", ">=", "real", "__ge__"),
    # -- logical ---------------------------------------------------------------------------------
    Op("logical_and", 2, "logical", "bool", "bool", "bool", "out0 = in0 && in1;"),
    Op("logical_or", 2, "logical", "bool", "bool", "bool", "out0 = in0 || in1;"),
    Op("logical_xor", 2, "logical", "bool", "bool", "bool", "out0 = in0 != in1;"),
    Op("logical_not", 1, "logical", "bool", "bool", "bool", "out0 = !in0;"),
    # -- bitwise ---------------------------------------------------------------------------------
    Op("bitwise_and", 2, "bitwise", "integer_or_bool", "promote", "same", "out0 = in0 & in1;", "__and__"),
    Op("bitwise_or", 2, "bitwise", "integer_or_bool", "promote", "same", "out0 = in0 | in1;", "__or__"),
    Op("bitwise_xor", 2, "bitwise", "integer_or_bool", "promote", "same", "out0 = in0 ^ in1;", "__xor__"),
    Op("bitwise_invert", 1, "bitwise", "integer_or_bool", "promote", "same",
       {"b": "out0 = !in0;", "iu": "out0 = ~in0;"}, "__invert__"),
    Op("bitwise_left_shift", 2, "bitwise", "integer", "promote", "same", "out0 = in0 << in1;", "__lshift__"),
    Op("bitwise_right_shift", 2, "bitwise", "integer", "promote", "same", "out0 = in0 >> in1;", "__rshift__"),
    # -- selection and copies ------------------------------------------------------------------------
    Op("where", 3, "searching", "any", "where", "same", "out0 = in0 ? in1 : in2;"),
    # min(max(x, lo), hi), as NumPy: with lo > hi the result is hi
    Op("clip", 3, "arithmetic", "real", "clip", "same", {
        "biu": "in0_type t = in0 < in1 ? in1 : in0; out0 = t > in2 ? in2 : t;",
        "f": """
            if (isnan(in0) || isnan(in1) || isnan(in2)) out0 = NAN;
            else {
                in0_type t = in0 < in1 ? in1 : in0;
                out0 = t > in2 ? in2 : t;
            }""",
    }),
    Op("copy", 1, "copy", "any", "copy", "same", "out0 = in0;"),
)
