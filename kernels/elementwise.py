"""The elementwise op catalogue: one row per op, bodies in the kernel language.

Adding an op is adding a row (``OPS``); ``rocarray._elementwise_functions`` makes the
namespace's functions and the Array operators from the rows.
"""

from __future__ import annotations

from typing import NamedTuple


class Op(NamedTuple):
    """One row of the catalogue.

    Row fields:
      name      the array API name (a leading "_": a part of a composed function, such as
                frexp's mantissa and exponent, with no namespace function of its own)
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

# -- NumPy's float bit functions: frexp, ldexp, spacing ---------------------------------------
# Bit operations on the IEEE encoding (no libm, the same code on every target, vectorisable).
# float16 loops compute in float (``ctype``), where every half is a normal float: the float32
# bodies serve them, the half rounding done once by the store.

# frexp's mantissa: the exponent field set to that of [0.5, 1); a subnormal's significand,
# converted to a float (exact), stands in for it (no product of a subnormal, which a target
# flushing denormals would zero); zeros, infinities and NaN are their own mantissa
_FREXP_MANTISSA = """
{U} b = ({U}){AS_INT}(in0);
{U} sign = b & {SIGN};
{U} field = (b >> {M}) & {EMAX};
{U} sig = b & {FRAC};
{U} y = field == 0 ? ({U}){AS_INT}(({F})sig) : b;
{F} m = {AS_FLOAT}(({I})((y & {FRAC}) | {HALF} | sign));
out0 = (in0 == 0 || !isfinite(in0)) ? ({F})in0 : m;
"""
# frexp's exponent, from the float's bits (an integer view of it: int16/int32/int64 for
# float16/32/64): the field less the bias less 1; a subnormal's from its significand made a
# float; 0 for zeros, infinities and NaN (NumPy's, C's)
_FREXP_EXPONENT = """
{U} b = ({U})in0;
int field = (int)((b >> {M}) & {EMAX});
{U} sig = b & {FRAC};
int sub = (int)((({U}){AS_INT}(({F})sig) >> {FM}) & {FEMAX}) - {FBIAS1} + {SUBEXP};
int e = field == 0 ? sub : field - {BIAS1};
out0 = (field == {EMAX} || (field == 0 && sig == 0)) ? 0 : e;
"""
_BITS = {
    64: dict(U="unsigned long long", I="long long", F="double", AS_INT="__double_as_longlong",
             AS_FLOAT="__longlong_as_double", SIGN="0x8000000000000000ULL", M=52, EMAX=2047,
             FRAC="0xfffffffffffffULL", HALF="0x3fe0000000000000ULL", FM=52, FEMAX=2047, FBIAS1=1022,
             BIAS1=1022, SUBEXP=-1074),
    32: dict(U="unsigned int", I="int", F="float", AS_INT="__float_as_int", AS_FLOAT="__int_as_float",
             SIGN="0x80000000u", M=23, EMAX=255, FRAC="0x7fffffu", HALF="0x3f000000u", FM=23, FEMAX=255,
             FBIAS1=126, BIAS1=126, SUBEXP=-149),
    # float16's bits, their significand made a float32 (exact)
    16: dict(U="unsigned int", I="int", F="float", AS_INT="__float_as_int", AS_FLOAT="__int_as_float",
             M=10, EMAX=31, FRAC="0x3ffu", FM=23, FEMAX=255, FBIAS1=126, BIAS1=14, SUBEXP=-24),
}


def _bits(template: str, width: int) -> str:
    src = template
    for key, value in _BITS[width].items():
        src = src.replace("{" + key + "}", str(value))
    return src


# ldexp: x * 2**n by products with powers of two made from their bits.  n (an integer, in
# the loop's float type) is clamped past the widest span of the format (a clamped n gives
# the same 0 or inf); up to two steps of the largest power bring n into the normal range,
# going down by 2**(min_exp + mantissa bits) so that a subnormal result comes from the last
# product alone (one rounding, as C's ldexp); NaN, infinities and zeros pass through
_LDEXP = """
{F} y = ({F})in0;
int n = (int)fmin(fmax(({F})in1, -{CLAMP}), {CLAMP});
{F} up = {AS_FLOAT}(({I}){UP} << {M});
{F} down = {AS_FLOAT}(({I}){DOWN} << {M});
if (n > {EHI}) {{ y = y * up; n = n - {EHI}; }}
else if (n < {ELO}) {{ y = y * down; n = n + {DSTEP}; }}
if (n > {EHI}) {{ y = y * up; n = n - {EHI}; }}
else if (n < {ELO}) {{ y = y * down; n = n + {DSTEP}; }}
n = n > {EHI} ? {EHI} : (n < {ELO} ? {ELO} : n);
out0 = y * {AS_FLOAT}(({I})(n + {BIAS}) << {M});
"""
_LDEXP_FORMATS = {
    64: dict(F="double", I="long long", AS_FLOAT="__longlong_as_double", M=52, CLAMP="2200.0",
             UP=2046, DOWN=54, EHI=1023, ELO=-1022, DSTEP=969, BIAS=1023),
    32: dict(F="float", I="int", AS_FLOAT="__int_as_float", M=23, CLAMP="300.0f",
             UP=254, DOWN=25, EHI=127, ELO=-126, DSTEP=102, BIAS=127),
}


def _ldexp(width: int) -> str:
    return _LDEXP.format(**_LDEXP_FORMATS[width])


# spacing: the next float above |x| less |x| (exact: adjacent floats), with x's sign; inf
# past the largest finite value, NaN for infinities and NaN; +0 and -0 both give the
# smallest subnormal (NumPy's)
_SPACING = """
{F} a = fabs(({F})in0);
{F} up = {AS_FLOAT}({AS_INT}(a) + 1) - a;
out0 = in0 < 0 ? -up : up;
"""
# NumPy's float16 spacing is ``nextafter(x, +inf) - x`` for every x: a negative x gives the
# positive step towards zero (half the step away at a power of two), 65504 gives inf.
# Computed on the float's bits: the half's step is 2**(max(e, -14) - 10)
_SPACING_HALF = """
float a = fabs((float)in0);
int bits = __float_as_int(a);
int e = ((bits >> 23) & 255) - 127;
float step = __int_as_float((max(e, -14) - 10 + 127) << 23);
bool towards_zero = in0 < 0 && (bits & 0x7fffff) == 0 && e > -14;
float r = towards_zero ? step * 0.5f : step;
out0 = !isfinite(a) ? (float)NAN : ((a == 65504.0f && !(in0 < 0)) ? (float)INFINITY : r);
"""

# bitwise_count: the number of one bits of |x| (NumPy 2's), the magnitude as a uint64 (so
# |-128| of an int8 is 128); the pairwise sums below are the form LLVM recognises as ctpop
_BITWISE_COUNT = """
unsigned long long v = in0 < 0 ? (unsigned long long)0 - (unsigned long long)in0 : (unsigned long long)in0;
v = v - ((v >> 1) & 0x5555555555555555ULL);
v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
out0 = (out0_type)((v * 0x0101010101010101ULL) >> 56);
"""

# i0: the modified Bessel function of order 0, in double for every loop dtype.  Chebyshev
# expansions of e**-a I0(a) on [0, 8] (t = a/4 - 1) and of sqrt(a) e**-a I0(a) on [8, inf)
# (t = 16/a - 1), the exponential factored out (I0 grows like it: the factor keeps its
# relative accuracy, and the expansions are smooth).  The coefficients were computed for
# rocarray with mpmath (50 digits, 90 Chebyshev nodes; tests/test_numpy_elementwise_more.py
# recomputes them) and cut where they fall below 1e-18 of the first.  Past 700, exp(a) is
# taken as exp(a/2) squared around the quotient: finite up to I0's own overflow (a ~ 713.99).
_I0_SMALL = (0.33839763720473803, -0.3046826723431984, 0.17162090152220877, -0.09490109704804764,
             0.04930528423967071, -0.02373741480589947, 0.010546460394594998, -0.004324309995050576,
             0.0016394756169413357, -0.0005763755745385824, 0.00018850288509584165, -5.754195010082104e-05,
             1.6448448070728896e-05, -4.4167383584587505e-06, 1.1173875391201037e-06, -2.670793853940612e-07,
             6.046995022541919e-08, -1.300025009986248e-08, 2.6598237246823866e-09, -5.189795601635263e-10,
             9.675809035373237e-11, -1.726826291441556e-11, 2.95505266312964e-12, -4.856446783111929e-13,
             7.676185498604936e-14, -1.1685332877993451e-14, 1.715391285555133e-15, -2.431279846547955e-16,
             3.3307945188222384e-17, -4.4153416464793395e-18)
_I0_LARGE = (0.4022452055070544, 0.0033691164782556943, 6.889758346916825e-05, 2.8913705208347567e-06,
             2.0489185894690638e-07, 2.266668990498178e-08, 3.3962320257083865e-09, 4.94060238822497e-10,
             1.1889147107846439e-11, -3.1499165279632416e-11, -1.3215811840447713e-11, -1.7941785315068062e-12,
             7.180124451383666e-13, 3.8527783827421426e-13, 1.54008621752141e-14, -4.150569347287222e-14,
             -9.554846698828307e-15, 3.8116806693526224e-15, 1.7725601330565263e-15, -3.425485619677219e-16,
             -2.8276239805165836e-16, 3.461222867697461e-17, 4.46562142029676e-17, -4.830504485944182e-18,
             -7.233180487874754e-18, 9.921475412173699e-19, 1.193650890845982e-18)


def _clenshaw(coefs, t: str, result: str) -> str:
    """Straight-line source summing ``sum(c_k T_k(t))`` into the double ``result``."""
    p = result
    lines = [f"double {p}_2t = 2.0 * {t}, {p}_b1 = {coefs[-1]!r}, {p}_b2 = 0.0, {p}_b0;"]
    for c in reversed(coefs[1:-1]):
        lines.append(f"{p}_b0 = {p}_2t * {p}_b1 - {p}_b2 + {c!r}; {p}_b2 = {p}_b1; {p}_b1 = {p}_b0;")
    lines.append(f"double {result} = {t} * {p}_b1 - {p}_b2 + {coefs[0]!r};")
    return "\n".join(lines)


_I0 = "\n".join([
    "double a = fabs((double)in0);",
    "bool near = a <= 8.0;",
    "double ts = a * 0.25 - 1.0;",
    "double tl = near ? -1.0 : 16.0 / a - 1.0;",
    _clenshaw(_I0_SMALL, "ts", "s"),
    _clenshaw(_I0_LARGE, "tl", "l"),
    "bool whole = a <= 700.0;",
    "double h = exp(whole ? a : 0.5 * a);",
    "double r = near ? h * s : (whole ? h * (l / sqrt(a)) : (h * (l / sqrt(a))) * h);",
    "out0 = isinf(a) ? a : r;",
])


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
    # x ** 0.5 of a real float (``_elementwise_functions._scalar_power``): the root with
    # pow's special values (+0 for -0, +inf for -inf; sqrt gives -0 and NaN there)
    Op("_sqrt_power", 1, "arithmetic", "real_floating", "promote", "same",
       "out0 = in0 == -INFINITY ? (ctype)INFINITY : (in0 == 0 ? (ctype)0 : sqrt(in0));"),
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
    # NumPy's bit functions of floats (``_numpy_numerics`` makes ldexp's result dtype and
    # frexp's pair from these rows; frexp's exponent row reads the float's bits as integers)
    Op("ldexp", 2, "floating-point", "real", "float", "same", {"float64": _ldexp(64), "f": _ldexp(32)}),
    Op("_frexp_mantissa", 1, "floating-point", "real_floating", "promote", "same",
       {"float64": _bits(_FREXP_MANTISSA, 64), "f": _bits(_FREXP_MANTISSA, 32)}),
    Op("_frexp_exponent", 1, "floating-point", "integer", "promote", "same",
       {"int64": _bits(_FREXP_EXPONENT, 64), "int32": _bits(_FREXP_EXPONENT, 32),
        "int16": _bits(_FREXP_EXPONENT, 16)}),
    Op("spacing", 1, "floating-point", "real", "float", "same",
       {"float16": _SPACING_HALF,
        "float32": _SPACING.format(F="float", AS_INT="__float_as_int", AS_FLOAT="__int_as_float"),
        "float64": _SPACING.format(F="double", AS_INT="__double_as_longlong", AS_FLOAT="__longlong_as_double")}),
    Op("i0", 1, "special", "real", "true_divide", "same", _I0),
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
    # (NumPy 2's; its uint8 result is ``_numpy_numerics.bitwise_count``'s output array)
    Op("bitwise_count", 1, "bitwise", "integer_or_bool", "promote", "same",
       {"b": "out0 = in0;", "iu": _BITWISE_COUNT}),
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
