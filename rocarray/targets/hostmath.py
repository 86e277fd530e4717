"""Transcendental functions of the host target: branch-free IR, float32 computed in float64.

The C library's ``expf``, ``tanh`` ... are calls the loop vectoriser cannot widen, so a
``exp`` of a large array ran an element at a time, several to twenty times slower than
NumPy's SIMD loops.  The functions here are written once in IR.

* float32 (``FUNCTIONS``): the argument is widened to float64, reduced and evaluated by a
  short polynomial to a relative error near 1e-13, and rounded back to float32 once, which
  makes the result the correctly rounded float32 but for arguments within about 1e-13 of a
  rounding boundary (then one ulp off).
* float64 (``FUNCTIONS64``): computed in float64 itself, the reductions exact or carried in
  two doubles (hi + lo) where a rounding would show, to within one ulp of the exact result
  (faithful rounding: the tests compare with mpmath).  The other float64 functions (``sin``,
  ``cos``, ``tan``, ``pow``, ``exp2``) call the C library.

They contain no branch and no call but LLVM intrinsics with a vector form (``fma``,
``sqrt``, ``fabs``, ``copysign``, ``floor``), so the vectoriser widens a contiguous loop of
them, and the same instructions run everywhere a value meets them: the scalar remainder of
a vector loop, strided loops, the quick tier and the interpreter (whose bytecode compiler
inlines a defined function).  So an element's result never depends on where it lies in
the array, on its layout, or on which tier computed it.

Specials follow C99 Annex F (NaN in, NaN out; ``exp(-inf) == 0``; ``log(0) == -inf``;
``log`` of a negative number NaN; ``sin(inf)`` NaN; signed zeros kept by the odd
functions).  float32 ``sin``, ``cos`` and ``tan`` reduce any argument exactly enough: up
to 2^26 by three parts of pi/2, beyond by the bits of 2/pi the argument's exponent selects
(both computed for every element, the first kept where it holds: a branch would stop the
vectoriser).  ``atan2`` and ``pow`` take two arguments (float32 ``pow`` as exp(y log|x|),
its sign and C99's special cases by selects).  GPU targets call their vendor's device
library instead.
"""

from __future__ import annotations

import math
from fractions import Fraction

from llvmlite import ir

F32, F64, I32, I64 = ir.FloatType(), ir.DoubleType(), ir.IntType(32), ir.IntType(64)

LN2 = math.log(2.0)
LOG2E = 1.0 / LN2
LOG10E = 1.0 / math.log(10.0)
LOG10_2 = math.log10(2.0)
#: 1.5 * 2^52: ``(t + ROUNDER) - ROUNDER`` is ``t`` rounded to an integer (ties to even) for
#: |t| < 2^51, and the low bits of ``t + ROUNDER`` hold that integer
ROUNDER = 6755399441055744.0
#: the bits of ROUNDER: those of ``t + ROUNDER`` less these are the integer (``int_of``)
ROUNDER_BITS = 0x4338000000000000
#: the bits of sqrt(1/2): a double's exponent taken against them leaves a mantissa in
#: [sqrt(1/2), sqrt(2)), where log's series converges fastest
SQRT_HALF_BITS = 0x3FE6A09E667F3BCD
#: (e^r - 1) / r = sum r^k / (k+1)!, k = 0..10: |r| <= ln(2)/2 leaves under 1e-13
EXPM1_COEFFS = [1.0 / math.factorial(k + 1) for k in range(11)]
#: log(m) = s * sum 2 z^k / (2k+1), z = s^2 <= 0.0295 (m in [sqrt(1/2), sqrt(2)))
LOG_COEFFS = [2.0 / (2 * k + 1) for k in range(8)]
#: atan(u) / u = sum (-1)^k z^k / (2k+1), z = u^2 <= tan(pi/8)^2 < 0.1716
ATAN_COEFFS = [(-1.0) ** k / (2 * k + 1) for k in range(18)]
TAN_PI_8 = math.sqrt(2.0) - 1.0
TAN_3PI_8 = math.sqrt(2.0) + 1.0


def _atan_inv(n: int, bits: int, hyperbolic: bool = False) -> int:
    """floor(atan(1/n) * 2^bits) (atanh with ``hyperbolic``), exact but for an error far
    below the last bit: the series in integers with 64 guard bits."""
    guard = 64
    one = 1 << (bits + guard)
    total, power, k = 0, one // n, 0
    while power:
        term = power // (2 * k + 1)
        total += -term if k % 2 and not hyperbolic else term
        power //= n * n
        k += 1
    return total >> guard


def _pi_bits(bits: int) -> int:
    """floor(pi * 2^bits) (Machin's formula)."""
    return (16 * _atan_inv(5, bits + 8) - 4 * _atan_inv(239, bits + 8)) >> 8


def _split(value: int, bits: int, head: int = 53) -> tuple[float, float]:
    """value / 2^bits as (hi, lo): hi the value rounded to ``head`` significant bits, lo the
    rest rounded to a double."""
    exact = Fraction(value, 1 << bits)
    top = value.bit_length() - bits  # (exact lies in [2^(top-1), 2^top))
    hi = float(Fraction(round(exact * 2 ** (head - top)), 2 ** (head - top)))
    return hi, float(exact - Fraction(hi))


_PI_200 = _pi_bits(200)
#: pi/2 = PIO2_1 + PIO2_2 + PIO2_3: 27 bits, the next 27, the rest rounded (k * PIO2_1 and k *
#: PIO2_2 are exact for |k| < 2^26)
PIO2_1 = (_PI_200 >> 175) / 2.0 ** 26
PIO2_2 = ((_PI_200 >> 148) & ((1 << 27) - 1)) / 2.0 ** 53
PIO2_3 = (_PI_200 - ((_PI_200 >> 148) << 148)) / 2.0 ** 201
#: the first 256 bits of 2/pi's binary expansion (2/pi = 0.b1 b2 ..., b1 the top bit of
#: the first word), four 64-bit words, for the reduction of arguments beyond 2^26
_TWO_OVER_PI_256 = (1 << 587) // _pi_bits(330)  # (pi to 330 bits: the quotient's 256 exact)
TWO_OVER_PI_WORDS = [(_TWO_OVER_PI_256 >> (192 - 64 * k)) & ((1 << 64) - 1) for k in range(4)]
#: sin(r) = r + r z S(z), cos(r) = 1 + z C(z), z = r^2 <= (pi/4)^2 (Taylor to 1e-14)
SIN_COEFFS = [(-1.0) ** (k + 1) / math.factorial(2 * k + 3) for k in range(6)]
COS_COEFFS = [(-1.0) ** (k + 1) / math.factorial(2 * k + 2) for k in range(7)]

# -- float64 ------------------------------------------------------------------------------

_LN2_200 = 2 * _atan_inv(3, 200, hyperbolic=True)  # (ln 2 = 2 atanh(1/3))
_LN10_200 = 3 * _LN2_200 + 2 * _atan_inv(9, 200, hyperbolic=True)  # (ln 10 = 3 ln 2 + ln(5/4))
#: ln 2 = LN2_HI + LN2_LO, LN2_HI of 40 bits (k * LN2_HI exact for |k| < 2^13)
LN2_HI, LN2_LO = _split(_LN2_200, 200, head=40)
#: pi and the bases of atan's reduction (atan(1/2), pi/4, atan(3/2), pi/2) as (hi, lo)
PI_HL = _split(_PI_200, 200)
ATAN_BASES = [(0.0, 0.0), _split(_atan_inv(2, 200), 200), _split(_PI_200 >> 2, 200),
              _split((_PI_200 >> 2) + _atan_inv(5, 200), 200), _split(_PI_200 >> 1, 200)]
#: 1 / ln 2 and 1 / ln 10 as (hi, lo): log2 and log10 from a natural logarithm
LOG_SCALE = {2: _split((1 << 400) // _LN2_200, 200), 10: _split((1 << 400) // _LN10_200, 200)}
#: log10(2) as (hi, lo), hi of 40 bits (e times it exact)
LOG10_2_HL = _split((_LN2_200 << 200) // _LN10_200, 200, head=40)
#: e^r - 1 = r + r^2 P(r), P(r) = sum r^k / (k+2)!, |r| <= ln(2)/2 (Taylor to 2^-60)
EXPM1_COEFFS64 = [1.0 / math.factorial(k + 2) for k in range(14)]
#: log(1 + f) = f - (f^2/2 - s (f^2/2 + z P(z))), s = f / (2 + f), z = s^2 <= 0.0295,
#: P(z) = sum 2 z^k / (2k + 3)
LOG_COEFFS64 = [2.0 / (2 * k + 3) for k in range(12)]
#: atan(u) = u + u z P(z), z = u^2 <= (7/16)^2, P(z) = sum (-1)^(k+1) z^k / (2k + 3)
ATAN_COEFFS64 = [(-1.0) ** (k + 1) / (2 * k + 3) for k in range(21)]
#: asin(x) = x + x z P(z), z = x^2 <= 1/4, P(z) = sum c_(k+1) z^k, c_j = (2j)! / (4^j j!^2 (2j+1))
#: (Taylor to 2^-58)
ASIN_COEFFS64 = [float(Fraction(math.factorial(2 * j), 4 ** j * math.factorial(j) ** 2 * (2 * j + 1)))
                 for j in range(1, 25)]
#: pi/2 as (hi, lo)
PIO2_HL = _split(_PI_200 >> 1, 200)
#: sinh(x) = x + x z P(z), |x| < 1, P(z) = sum z^k / (2k + 3)!
SINH_COEFFS64 = [1.0 / math.factorial(2 * k + 3) for k in range(9)]


def _tanh_coefficients(n: int) -> list[float]:
    """tanh(x) = x + x z P(z) (z = x^2): P's first n coefficients, from the Bernoulli numbers
    (tanh's Taylor coefficient of x^(2j-1) is 2^(2j) (2^(2j) - 1) B_2j / (2j)!)."""
    bern = [Fraction(1)]
    for m in range(1, 2 * n + 3):
        bern.append(-sum(math.comb(m + 1, k) * bern[k] for k in range(m)) / (m + 1))
    return [float(4 ** j * (4 ** j - 1) * bern[2 * j] / math.factorial(2 * j)) for j in range(2, n + 2)]


#: tanh below TANH_SERIES by its series (the ratio of its terms is at most 0.12 there)
TANH_SERIES = 0.55
TANH_COEFFS64 = _tanh_coefficients(19)
#: added to a positive normal float32's bits divided by three, the bits of a float32 within
#: 3.2% of its cube root (the constant that makes that bound least, found by a scan of
#: three binades)
CBRT_SEED = 709953152
#: arguments of exp are clamped to +-EXP_BOUND: far beyond float32's range either way, and
#: 2^k stays a normal double
EXP_BOUND = 200.0


class _Math:
    """The float64 arithmetic of one function's body."""

    def __init__(self, b: ir.IRBuilder, module: ir.Module):
        self.b = b
        self.module = module

    def c(self, v: float):
        return ir.Constant(F64, v)

    def i(self, v: int):
        return ir.Constant(I64, v)

    def _intrinsic(self, name: str, n: int):
        full = f"llvm.{name}.f64"
        fn = self.module.globals.get(full)
        return fn if fn is not None else ir.Function(self.module, ir.FunctionType(F64, [F64] * n), full)

    def fma(self, a, b, c):
        return self.b.call(self._intrinsic("fma", 3), [a, b, c])

    def sqrt(self, a):
        return self.b.call(self._intrinsic("sqrt", 1), [a])

    def fabs(self, a):
        return self.b.call(self._intrinsic("fabs", 1), [a])

    def copysign(self, a, sign):
        return self.b.call(self._intrinsic("copysign", 2), [a, sign])

    def add(self, a, b):
        return self.b.fadd(a, b)

    def sub(self, a, b):
        return self.b.fsub(a, b)

    def mul(self, a, b):
        return self.b.fmul(a, b)

    def div(self, a, b):
        return self.b.fdiv(a, b)

    def where(self, op: str, a, b, then, other):
        """``then`` where ``a op b`` (an ordered comparison: false with a NaN), else ``other``."""
        return self.b.select(self.b.fcmp_ordered(op, a, b), then, other)

    def at_most(self, a, bound: float):
        """``min(a, bound)`` that keeps a NaN (LLVM's minnum would drop it)."""
        return self.where(">", a, self.c(bound), self.c(bound), a)

    def at_least(self, a, bound: float):
        return self.where("<", a, self.c(bound), self.c(bound), a)

    def poly(self, z, coeffs):
        """sum coeffs[k] z^k by Horner's rule in fused steps."""
        acc = self.c(coeffs[-1])
        for k in reversed(coeffs[:-1]):
            acc = self.fma(acc, z, self.c(k))
        return acc

    def rint(self, v):
        """(v rounded to an integer as a double, the integer's low bits as an i64) for
        |v| < 2^51."""
        shifted = self.add(v, self.c(ROUNDER))
        return self.sub(shifted, self.c(ROUNDER)), self.b.bitcast(shifted, I64)

    # -- exp ----------------------------------------------------------------------------

    def exp_parts(self, t, base2=False):
        """(k, e^r - 1, 2^k) with t = k ln2 + r, |r| <= ln2/2, for |t| <= EXP_BOUND (with
        ``base2``, t = k + r / ln2: 2^t's parts)."""
        b = self.b
        k, kbits = self.rint(t if base2 else self.mul(t, self.c(LOG2E)))
        if base2:
            r = self.mul(self.sub(t, k), self.c(LN2))
        else:
            # (-0.0 - k: a zero k negates to -0.0, so t = -0.0 leaves r = -0.0)
            r = self.fma(self.sub(self.c(-0.0), k), self.c(LN2), t)
        em1 = self.mul(r, self.poly(r, EXPM1_COEFFS))
        # 2^k: the integer's low bits shifted into the exponent
        bits = b.add(b.shl(kbits, self.i(52)), self.i(1023 << 52))
        return k, em1, b.bitcast(bits, F64)

    def exp(self, t, base2=False):
        _, em1, scale = self.exp_parts(t, base2)
        return self.fma(scale, em1, scale)

    def expm1(self, t):
        k, em1, scale = self.exp_parts(t)
        # k == 0: e^r - 1 itself (exact for tiny t, and -0.0 stays -0.0)
        return self.where("==", k, self.c(0.0), em1, self.fma(scale, em1, self.sub(scale, self.c(1.0))))

    # -- log ----------------------------------------------------------------------------

    def log_parts(self, d):
        """(e, log(m)) with d = 2^e m, m in [sqrt(1/2), sqrt(2)), for a positive finite
        ``d`` (anything else gives values the callers replace)."""
        b = self.b
        bits = b.bitcast(d, I64)
        e = b.ashr(b.sub(bits, self.i(SQRT_HALF_BITS)), self.i(52))
        m = b.bitcast(b.sub(bits, b.shl(e, self.i(52))), F64)
        f = self.sub(m, self.c(1.0))  # (exact: m is within a factor 2 of 1)
        s = self.div(f, self.add(f, self.c(2.0)))
        return b.sitofp(e, F64), self.mul(s, self.poly(self.mul(s, s), LOG_COEFFS))

    def log_specials(self, d, r):
        """``r`` where ``d`` is positive and finite; -inf at 0, inf at inf, NaN below 0 and
        for NaN."""
        inf = self.c(math.inf)
        r = self.where("==", d, inf, inf, r)
        return self.where(">", d, self.c(0.0), r,
                          self.where("==", d, self.c(0.0), self.c(-math.inf), self.c(math.nan)))

    def log(self, d):
        e, lm = self.log_parts(d)
        return self.log_specials(d, self.fma(e, self.c(LN2), lm))

    # -- atan ---------------------------------------------------------------------------

    def atan(self, a, d=None):
        """atan of ``a`` >= 0 (or NaN), or of ``a / d`` (both >= 0) without dividing first,
        by one division: u = a, (a - d) / (a + d) or -d/a (|u| <= tan(pi/8)) and atan =
        atan(u) + 0, pi/4 or pi/2."""
        one = self.c(1.0)
        d = one if d is None else d
        mid = self.b.fcmp_ordered(">", a, self.mul(d, self.c(TAN_PI_8)))
        big = self.b.fcmp_ordered(">", a, self.mul(d, self.c(TAN_3PI_8)))
        sel = self.b.select
        num = sel(big, self.sub(self.c(-0.0), d), sel(mid, self.sub(a, d), a))
        den = sel(big, a, sel(mid, self.add(a, d), d))
        base = sel(big, self.c(math.pi / 2), sel(mid, self.c(math.pi / 4), self.c(0.0)))
        u = self.div(num, den)
        return self.fma(u, self.poly(self.mul(u, u), ATAN_COEFFS), base)

    # -- cbrt ---------------------------------------------------------------------------

    def cbrt_unit(self, a):
        """a^(1/3) to a relative 1e-14 for a double ``a`` in a float32's normal range:
        a seed from the float32 bits (within 3.2%), then two steps of Halley's iteration
        (each cubes the error)."""
        b = self.b
        bits = b.bitcast(b.fptrunc(a, F32), I32)
        y = b.fpext(b.bitcast(b.add(b.udiv(bits, ir.Constant(I32, 3)), ir.Constant(I32, CBRT_SEED)), F32), F64)
        two_a = self.add(a, a)
        for _ in range(2):
            y3 = self.mul(self.mul(y, y), y)
            y = self.div(self.mul(y, self.add(y3, two_a)), self.add(self.add(y3, y3), a))
        return y

    # -- float64 -------------------------------------------------------------------------

    def int_of(self, kbits):
        """The integer of ``rint``'s bits, as an i64."""
        return self.b.sub(kbits, self.i(ROUNDER_BITS))

    def pow2(self, k):
        """2^k (a double) for an i64 k in [-1022, 1023]."""
        return self.b.bitcast(self.b.shl(self.b.add(k, self.i(1023)), self.i(52)), F64)

    def scale(self, v, k):
        """v 2^k for an i64 k in [-2000, 2000], by two factors that are each a normal double
        (so one rounding at most, where the result is subnormal)."""
        half = self.b.ashr(k, self.i(1))
        return self.mul(self.mul(v, self.pow2(half)), self.pow2(self.b.sub(k, half)))

    def exp64_parts(self, x):
        """(k, e_hi, e_lo): e^x = 2^k (1 + e_hi + e_lo) with |e_hi| <= 0.42 and e_lo below
        e_hi's last bit, for |x| <= 1420 (NaN in, NaN out)."""
        k, kbits = self.rint(self.mul(x, self.c(LOG2E)))
        nk = self.sub(self.c(-0.0), k)
        hi = self.fma(nk, self.c(LN2_HI), x)  # (exact: k LN2_HI has at most 52 bits)
        lo = self.mul(nk, self.c(LN2_LO))
        r = self.add(hi, lo)
        err = self.add(self.sub(hi, r), lo)  # (r's rounding error)
        s = self.mul(self.mul(r, r), self.poly(r, EXPM1_COEFFS64))
        e_hi = self.add(r, s)
        # (|s| < |r|: the sum's error exactly; r's error grows by e^r's slope, 1 + r)
        e_lo = self.add(self.add(self.sub(r, e_hi), s), self.fma(err, r, err))
        return self.int_of(kbits), e_hi, e_lo

    def expm1_64(self, x):
        """e^x - 1 for x in [-40, 710] (or NaN): 2^k (e + 1 - 2^-k), where 1 - 2^-k is exact."""
        b = self.b
        k, e_hi, e_lo = self.exp64_parts(x)
        capped = b.select(b.icmp_signed(">", k, self.i(60)), self.i(60), k)  # (1 - 2^-60 rounds to 1)
        g = self.sub(self.c(1.0), self.pow2(b.sub(self.i(0), capped)))
        return self.scale(self.add(self.add(g, e_hi), e_lo), k)

    def log64_parts(self, u):
        """(e, f, hfsq, s, w) of a positive normal double u: u = 2^e m, m in [sqrt(1/2),
        sqrt(2)), f = m - 1 (exact), hfsq = f^2 / 2 rounded, s = f / (2 + f), and
        log(m) = f - hfsq + s w (w = hfsq + z P(z), z = s^2)."""
        b = self.b
        bits = b.bitcast(u, I64)
        e = b.ashr(b.sub(bits, self.i(SQRT_HALF_BITS)), self.i(52))
        f = self.sub(b.bitcast(b.sub(bits, b.shl(e, self.i(52))), F64), self.c(1.0))
        s = self.div(f, self.add(f, self.c(2.0)))
        z = self.mul(s, s)
        hfsq = self.mul(self.c(0.5), self.mul(f, f))
        return b.sitofp(e, F64), f, hfsq, s, self.fma(z, self.poly(z, LOG_COEFFS64), hfsq)

    def log64(self, u, c=None):
        """log(u + c) for a positive normal double u and a correction |c| far below u's
        last bit (``log64_parts``; c / u added with the small terms)."""
        ef, f, hfsq, s, w = self.log64_parts(u)
        tail = self.mul(ef, self.c(LN2_LO)) if c is None else self.fma(ef, self.c(LN2_LO), self.div(c, u))
        small = self.fma(s, w, tail)
        return self.fma(ef, self.c(LN2_HI), self.sub(f, self.sub(hfsq, small)))

    def log_base64(self, u, base: int, shift=None):
        """log2 or log10 of a positive normal double u (times 2^shift, an integer double):
        log(m) carried as hi + lo (hfsq's rounding error and f - hfsq's kept), scaled by
        1 / ln(base) in double-double, e log_base(2) added last."""
        ef, f, hfsq, s, w = self.log64_parts(u)
        if shift is not None:
            ef = self.add(ef, shift)
        neg = self.c(-0.0)
        hi = self.sub(f, hfsq)
        hfsq_err = self.fma(self.mul(self.c(0.5), f), f, self.sub(neg, hfsq))
        # (f - hi exact: hfsq <= |f| / 2; so the subtraction's rounding error is exact too)
        lo = self.fma(s, w, self.sub(self.sub(self.sub(f, hi), hfsq), hfsq_err))
        k_hi, k_lo = LOG_SCALE[base]
        p = self.mul(hi, self.c(k_hi))
        p_err = self.fma(hi, self.c(k_hi), self.sub(neg, p))
        rest = self.fma(lo, self.c(k_hi), self.fma(hi, self.c(k_lo), p_err))
        if base == 2:
            t0, t0_lo = ef, None
        else:
            t0, t0_lo = self.mul(ef, self.c(LOG10_2_HL[0])), self.mul(ef, self.c(LOG10_2_HL[1]))
        t = self.add(t0, p)
        t_err = self.add(self.sub(t0, t), p)  # (|t0| >= |p| where e is not 0)
        rest = self.add(t_err, rest if t0_lo is None else self.add(rest, t0_lo))
        return self.add(t, rest)

    def log1p_64(self, x):
        """log(1 + x) for x > -1 finite: u = 1 + x rounded and its rounding error c (exact)."""
        u = self.add(self.c(1.0), x)
        return self.log64(u, self.sub(x, self.sub(u, self.c(1.0))))

    def atan64(self, a, d, from_pi=None):
        """atan(a / d) for a, d >= 0 (not both 0, not both infinite; NaN in, NaN out) without
        dividing first: atan(a/d) = base + atan(u), base one of 0, atan(1/2), pi/4,
        atan(3/2), pi/2 by a/d's interval, u = (a - t d) / (d + t a) for t = tan(base)
        (each numerator exact or rounded once), |u| <= 7/16.  Where ``from_pi`` (an i1)
        holds, pi - atan(a / d), the base taken from pi in double-double."""
        b = self.b
        # both scaled (exactly) away from the subnormal and the overflowing range, where the
        # reduction's products would round or overflow
        top = b.select(b.fcmp_ordered(">", a, d), a, d)
        by = b.select(b.fcmp_ordered("<", top, self.c(2.0 ** -900)), self.c(2.0 ** 1000),
                      b.select(b.fcmp_ordered(">", top, self.c(2.0 ** 900)), self.c(2.0 ** -200), self.c(1.0)))
        a, d = self.mul(a, by), self.mul(d, by)

        def below(ratio):  # (a <= d ratio, the side scaled down that cannot overflow)
            if ratio < 1:
                return b.fcmp_ordered("<=", a, self.mul(d, self.c(ratio)))
            return b.fcmp_ordered("<=", self.mul(a, self.c(1 / ratio)), d)

        cases = [(below(7 / 16), a, d), (below(11 / 16), self.fma(self.c(2.0), a, self.sub(self.c(-0.0), d)),
                                         self.fma(self.c(2.0), d, a)),
                 (below(19 / 16), self.sub(a, d), self.add(a, d)),
                 (below(39 / 16), self.fma(self.c(-1.5), d, a), self.fma(self.c(1.5), a, d))]
        num, den = self.sub(self.c(-0.0), d), a
        hi, lo = self.c(ATAN_BASES[4][0]), self.c(ATAN_BASES[4][1])
        for (cond, n_, d_), (h_, l_) in zip(reversed(cases), reversed(ATAN_BASES[:4])):
            num, den = b.select(cond, n_, num), b.select(cond, d_, den)
            hi, lo = b.select(cond, self.c(h_), hi), b.select(cond, self.c(l_), lo)
        u = self.div(num, den)
        z = self.mul(u, u)
        tail = self.mul(self.mul(u, z), self.poly(z, ATAN_COEFFS64))
        if from_pi is not None:
            pi_hi, pi_lo = self.c(PI_HL[0]), self.c(PI_HL[1])
            rest = self.sub(pi_hi, hi)
            err = self.sub(self.sub(pi_hi, rest), hi)  # (rest's rounding error, exactly)
            lo = b.select(from_pi, self.add(self.sub(pi_lo, lo), err), lo)
            hi = b.select(from_pi, rest, hi)
            u = b.select(from_pi, self.sub(self.c(-0.0), u), u)
            tail = b.select(from_pi, self.sub(self.c(-0.0), tail), tail)
        return self.add(hi, self.add(u, self.add(tail, lo)))

    def asin_parts64(self, x):
        """(a, big, t, tail) for ``asin`` and ``acos``: a = |x|; for a <= 1/2 (``big``
        false) asin(a) = a + tail; beyond, asin(a) = pi/2 - 2 asin(t), t = sqrt((1 - a) / 2)
        (1 - a and the halving exact) and asin(t) = t + tail, the root's rounding error in
        the tail.  One series serves both: its argument is a or t."""
        b, a = self.b, self.fabs(x)
        big = b.fcmp_unordered("ugt", a, self.c(0.5))  # (NaN: the root's branch, NaN)
        w = self.mul(self.sub(self.c(1.0), a), self.c(0.5))
        t = self.sqrt(w)
        t_lo = self.where(">", t, self.c(0.0), self.div(self.fma(self.sub(self.c(-0.0), t), t, w), self.add(t, t)),
                          self.c(0.0))
        arg = b.select(big, t, a)
        z = b.select(big, w, self.mul(a, a))  # (w is t^2 exactly, where t^2 would be rounded)
        tail = self.fma(self.mul(arg, z), self.poly(z, ASIN_COEFFS64), b.select(big, t_lo, self.c(0.0)))
        return a, big, t, tail

    def from_constant(self, hi: float, lo: float, v, v_tail):
        """(hi + lo) - (v + v_tail) for |v| <= |hi|: hi - v's rounding error kept."""
        h = self.sub(self.c(hi), v)
        h_err = self.sub(self.sub(self.c(hi), h), v)
        return self.add(h, self.sub(self.add(h_err, self.c(lo)), v_tail))

    def cbrt64(self, a):
        """a^(1/3) for a positive normal double: a = 2^(3q) m, m in [1, 8); m's root by
        ``cbrt_unit``, then one Newton step whose residual y^3 - m is computed exactly."""
        b = self.b
        bits = b.bitcast(a, I64)
        e = b.sub(b.lshr(bits, self.i(52)), self.i(1023))
        # q = floor(e / 3) in doubles: (e + 1/2) / 3 lies 1/6 or more from an integer
        q, qbits = self.rint(self.b.call(self._intrinsic("floor", 1),
                                         [self.mul(self.add(b.sitofp(e, F64), self.c(0.5)), self.c(1 / 3))]))
        qi = self.int_of(qbits)
        rest = b.sub(e, b.mul(qi, self.i(3)))
        m = b.bitcast(b.or_(b.and_(bits, self.i((1 << 52) - 1)), b.shl(b.add(rest, self.i(1023)), self.i(52))), F64)
        y = self.cbrt_unit(m)
        y2 = self.mul(y, y)
        y2_lo = self.fma(y, y, self.sub(self.c(-0.0), y2))
        y3 = self.mul(y2, y)
        y3_lo = self.fma(y2_lo, y, self.fma(y2, y, self.sub(self.c(-0.0), y3)))
        residual = self.add(self.sub(y3, m), y3_lo)  # (y3 - m exact: they are within 1e-14)
        y = self.sub(y, self.div(residual, self.mul(self.c(3.0), y2)))
        return y, qi

    # -- sin, cos, tan ------------------------------------------------------------------

    def quadrant(self, a):
        """(q, r): a = q pi/2 + r, |r| <= pi/4 (to a relative 1e-15), q's low bits as an i64,
        for a float32 ``a`` >= 0 widened (or NaN: r NaN).  Up to 2^26 by Cody and Waite's
        three parts of pi/2; beyond, a = M 2^E (M the 24-bit significand, E >= 3) and
        (a 2/pi) mod 4 = (M w) mod 4 with w the bits of 2/pi from 2^(1-E) on, taken in
        three pieces of 24, 29 and 53 bits so that each product with M is exact (or, the
        last, all but 2^-81)."""
        b, i = self.b, self.i
        k, kbits = self.rint(self.mul(a, self.c(2.0 / math.pi)))
        nk = self.sub(self.c(-0.0), k)
        r_small = self.fma(nk, self.c(PIO2_3), self.fma(nk, self.c(PIO2_2), self.fma(nk, self.c(PIO2_1), a)))
        # beyond 2^26: the significand and exponent from the double's bits (a float32 in them)
        bits = b.bitcast(a, I64)
        sig = b.or_(b.and_(b.lshr(bits, i(29)), i((1 << 23) - 1)), i(1 << 23))
        e = b.sub(b.lshr(bits, i(52)), i(1023 + 23))
        e = b.select(b.icmp_signed("<", e, i(3)), i(3), b.select(b.icmp_signed(">", e, i(104)), i(104), e))
        start = b.sub(e, i(2))  # (0-based index of the bit of 2/pi worth 2 after the scaling)
        second = b.icmp_signed(">=", start, i(64))
        off = b.and_(start, i(63))
        words = [i(w - (1 << 64) if w >= 1 << 63 else w) for w in TWO_OVER_PI_WORDS]
        wa, wb, wc = (b.select(second, words[k + 1], words[k]) for k in range(3))

        def window(hi, lo):  # (hi:lo) << off, its top 64 bits (a shift by 64 would be poison)
            return b.or_(b.shl(hi, off), b.lshr(b.lshr(lo, i(1)), b.sub(i(63), off)))

        top, below = window(wa, wb), window(wb, wc)
        piece1 = b.lshr(top, i(40))
        piece2 = b.and_(b.lshr(top, i(11)), i((1 << 29) - 1))
        piece3 = b.or_(b.shl(b.and_(top, i((1 << 11) - 1)), i(42)), b.lshr(below, i(22)))
        m = b.sitofp(sig, F64)

        def part(piece, scale):
            return self.mul(self.mul(m, b.sitofp(piece, F64)), self.c(scale))

        x1, x2 = part(piece1, 2.0 ** -22), part(piece2, 2.0 ** -51)
        n1, _ = self.rint(x1)
        n2, _ = self.rint(x2)
        frac = self.add(self.sub(x1, n1), self.sub(x2, n2))  # (exact: multiples of 2^-51 in [-1, 1])
        n3, _ = self.rint(frac)
        f = self.add(self.sub(frac, n3), part(piece3, 2.0 ** -104))
        _, qbits = self.rint(self.add(self.add(n1, n2), n3))
        big = b.fcmp_ordered(">", a, self.c(2.0 ** 26))
        r = b.select(big, self.mul(f, self.c(math.pi / 2)), r_small)
        return b.select(big, qbits, kbits), r

    def sin_cos(self, r):
        """(sin r, cos r) for |r| <= pi/4 (a little beyond)."""
        z = self.mul(r, r)
        return (self.fma(self.mul(r, z), self.poly(z, SIN_COEFFS), r),
                self.fma(z, self.poly(z, COS_COEFFS), self.c(1.0)))

    def trig(self, x, name):
        b, i = self.b, self.i
        a = self.fabs(x)
        q, r = self.quadrant(a)
        s, c = self.sin_cos(r)
        odd = b.icmp_signed("!=", b.and_(q, i(1)), i(0))
        if name == "tan":
            # q even: sin r / cos r; odd: -cos r / sin r
            v = self.div(b.select(odd, self.sub(self.c(-0.0), c), s), b.select(odd, s, c))
        else:
            flip = b.and_(b.add(q, i(1 if name == "cos" else 0)), i(2))
            v = b.select(odd, c, s) if name == "sin" else b.select(odd, s, c)
            v = b.select(b.icmp_signed("!=", flip, i(0)), self.sub(self.c(-0.0), v), v)
        if name != "cos":  # (odd functions: the sign of x, -0.0 included)
            v = self.mul(v, self.copysign(self.c(1.0), x))
        return self.where("<", a, self.c(math.inf), v, self.c(math.nan))  # (inf and NaN: NaN)


def _exp(m, x):
    return m.exp(m.at_most(m.at_least(x, -EXP_BOUND), EXP_BOUND))


def _exp2(m, x):
    return m.exp(m.at_most(m.at_least(x, -EXP_BOUND), EXP_BOUND), base2=True)


def _expm1(m, x):
    return m.expm1(m.at_most(m.at_least(x, -40.0), EXP_BOUND))


def _sinh(m, x):
    e = m.expm1(m.at_most(m.fabs(x), EXP_BOUND))
    # (e^a - e^-a) / 2 with E = e^a - 1: (E + E / (E + 1)) / 2, no cancellation
    return m.copysign(m.mul(m.c(0.5), m.add(e, m.div(e, m.add(e, m.c(1.0))))), x)


def _cosh(m, x):
    e = m.exp(m.at_most(m.fabs(x), EXP_BOUND))
    return m.mul(m.c(0.5), m.add(e, m.div(m.c(1.0), e)))


def _tanh(m, x):
    e = m.expm1(m.mul(m.c(2.0), m.at_most(m.fabs(x), 20.0)))  # (tanh(20) rounds to 1)
    return m.copysign(m.div(e, m.add(e, m.c(2.0))), x)


def _log(m, x):
    return m.log(x)


def _log2(m, x):
    e, lm = m.log_parts(x)
    return m.log_specials(x, m.fma(lm, m.c(LOG2E), e))


def _log10(m, x):
    e, lm = m.log_parts(x)
    return m.log_specials(x, m.fma(e, m.c(LOG10_2), m.mul(lm, m.c(LOG10E))))


def _tiny_or(m, x, value):
    """``x`` where |x| < 2^-29, else ``value``: there the functions below equal x to far
    under half a float32 ulp, and 1 + x would no longer be exact in float64."""
    return m.where("<", m.fabs(x), m.c(2.0 ** -29), x, value)


def _log1p(m, x):
    return _tiny_or(m, x, m.log(m.add(m.c(1.0), x)))  # (1 + x exact for float32 x)


def _atanh(m, x):
    # (log(1 + x) - log(1 - x)) / 2: the two logs have opposite signs (no cancellation),
    # and x = +-1 and |x| > 1 give +-inf and NaN through log
    one = m.c(1.0)
    return _tiny_or(m, x, m.mul(m.c(0.5), m.sub(m.log(m.add(one, x)), m.log(m.sub(one, x)))))


def _asinh(m, x):
    a = m.fabs(x)
    big = m.log(m.add(a, m.sqrt(m.fma(a, a, m.c(1.0)))))
    # under 2^-12, log(1 + ...) would lose the low bits: the series a - a^3/6 + 3a^5/40
    z = m.mul(a, a)
    small = m.mul(a, m.poly(z, [1.0, -1.0 / 6.0, 3.0 / 40.0]))
    return m.copysign(m.where("<", a, m.c(2.0 ** -12), small, big), x)


def _acosh(m, x):
    one = m.c(1.0)
    # (float32 x > 1 is at least 1 + 2^-23, so the root keeps log's argument clear of 1;
    # below -1 the sum can cancel to 0, so x < 1 is NaN by a select, not by log)
    r = m.log(m.add(x, m.sqrt(m.mul(m.sub(x, one), m.add(x, one)))))
    return m.where(">=", x, one, r, m.c(math.nan))


def _atan(m, x):
    return m.copysign(m.atan(m.fabs(x)), x)


def _asin(m, x):
    one = m.c(1.0)
    # asin(x) = atan(x / sqrt(1 - x^2)): x = +-1 divides by zero (atan(inf) = pi/2); |x| > 1
    # takes the root of a negative: NaN
    t = m.div(x, m.sqrt(m.mul(m.sub(one, x), m.add(one, x))))
    return m.copysign(m.atan(m.fabs(t)), x)


def _acos(m, x):
    one = m.c(1.0)
    # acos(x) = 2 atan(sqrt((1 - x) / (1 + x))): x = -1 divides by zero, atan(inf) = pi/2
    return m.mul(m.c(2.0), m.atan(m.sqrt(m.div(m.sub(one, x), m.add(one, x)))))


def _sin(m, x):
    return m.trig(x, "sin")


def _cos(m, x):
    return m.trig(x, "cos")


def _tan(m, x):
    return m.trig(x, "tan")


def _cbrt(m, x):
    b, a = m.b, m.fabs(x)
    # a subnormal float32 scaled by 2^24 (exact in a double) into the seed's range, its root
    # by 2^-8 back
    tiny = b.fcmp_ordered("<", a, m.c(2.0 ** -126))
    y = m.cbrt_unit(b.select(tiny, m.mul(a, m.c(2.0 ** 24)), a))
    y = m.copysign(b.select(tiny, m.mul(y, m.c(2.0 ** -8)), y), x)
    # zeros, infinities and NaN are their own roots
    regular = b.and_(b.fcmp_ordered(">", a, m.c(0.0)), b.fcmp_ordered("<", a, m.c(math.inf)))
    return b.select(regular, y, x)


def _atan2(m, y, x):
    b = m.b
    ay, ax = m.fabs(y), m.fabs(x)
    # both infinite: pi/4 (an angle of 1 / 1); else |y| / |x| as atan's one division
    both_inf = b.and_(b.fcmp_ordered("==", ay, m.c(math.inf)), b.fcmp_ordered("==", ax, m.c(math.inf)))
    t = m.atan(b.select(both_inf, m.c(1.0), ay), b.select(both_inf, m.c(1.0), ax))
    t = m.where("==", ay, m.c(0.0), m.c(0.0), t)  # (y = 0: 0 or pi, even for x = 0)
    # x negative, -0.0 included: the angle from the negative axis
    t = m.where("<", m.copysign(m.c(1.0), x), m.c(0.0), m.sub(m.c(math.pi), t), t)
    return b.select(b.fcmp_unordered("uno", x, y), m.c(math.nan), m.copysign(t, y))


def _pow(m, x, y):
    b, one = m.b, m.c(1.0)
    r = m.exp(m.at_most(m.at_least(m.mul(y, m.log(m.fabs(x))), -EXP_BOUND), EXP_BOUND))
    # y an integer (float32 y beyond 2^24 always is, and even); odd only below 2^24
    k, kbits = m.rint(m.where("<", m.fabs(y), m.c(2.0 ** 24), y, m.c(0.0)))
    whole = b.or_(b.fcmp_ordered("==", k, y), b.fcmp_ordered(">=", m.fabs(y), m.c(2.0 ** 24)))
    odd = b.and_(b.fcmp_ordered("==", k, y), b.icmp_signed("!=", b.and_(kbits, m.i(1)), m.i(0)))
    negative = b.fcmp_ordered("<", m.copysign(one, x), m.c(0.0))
    r = b.select(b.and_(odd, negative), m.sub(m.c(-0.0), r), r)
    # a finite negative x to a finite non-integer power: NaN
    finite_neg = b.and_(b.fcmp_ordered("<", x, m.c(0.0)), b.fcmp_ordered(">", x, m.c(-math.inf)))
    r = b.select(b.and_(finite_neg, b.not_(whole)), m.c(math.nan), r)
    # (+-1) ** +-inf, 1 ** y and x ** 0 are 1, NaN or not (C99 Annex F)
    unit = b.and_(b.fcmp_ordered("==", m.fabs(x), one), b.fcmp_ordered("==", m.fabs(y), m.c(math.inf)))
    ones = b.or_(unit, b.or_(b.fcmp_ordered("==", x, one), b.fcmp_ordered("==", y, m.c(0.0))))
    return b.select(ones, one, r)


# -- float64 bodies: the same specials, computed in float64 itself to about one ulp ---------


def _signed_tiny(m, x, value):
    """``x`` where |x| < 2^-54 (the functions below round to x there; -0.0 kept)."""
    return m.where("<", m.fabs(x), m.c(2.0 ** -54), x, value)


def _exp_f64(m, x):
    k, e_hi, e_lo = m.exp64_parts(m.at_most(m.at_least(x, -1400.0), 1400.0))
    return m.scale(m.add(m.c(1.0), m.add(e_hi, e_lo)), k)


def _log_f64(m, x):
    b = m.b
    # a subnormal x scaled by 2^54 into the normal range, 54 ln 2 taken off
    tiny = b.fcmp_ordered("<", x, m.c(2.0 ** -1022))
    r = m.log64(b.select(tiny, m.mul(x, m.c(2.0 ** 54)), x))
    r = b.select(tiny, m.sub(m.add(r, m.c(-54 * LN2_HI)), m.c(54 * LN2_LO)), r)
    return m.log_specials(x, r)


def _log_base_f64(m, x, base):
    b = m.b
    tiny = b.fcmp_ordered("<", x, m.c(2.0 ** -1022))
    r = m.log_base64(b.select(tiny, m.mul(x, m.c(2.0 ** 54)), x), base, b.select(tiny, m.c(-54.0), m.c(0.0)))
    return m.log_specials(x, r)


def _log2_f64(m, x):
    return _log_base_f64(m, x, 2)


def _log10_f64(m, x):
    return _log_base_f64(m, x, 10)


def _expm1_f64(m, x):
    return _signed_tiny(m, x, m.expm1_64(m.at_most(m.at_least(x, -40.0), 710.0)))


def _hyperbolic_f64(m, x, name):
    """sinh and cosh beyond the series: e^a = 2^k p, p = 1 + e_hi + e_lo, and
    (e^a -+ e^-a) / 2 = 2^(k-1) (p -+ 2^-2k / p), the small part added first."""
    b = m.b
    k, e_hi, e_lo = m.exp64_parts(m.at_most(m.fabs(x), 711.0))
    # (2^-2k is 0 to double precision long before k reaches 1000)
    down = b.select(b.icmp_signed(">", k, m.i(1000)), m.i(-2000), b.mul(k, m.i(-2)))
    q = m.scale(m.div(m.c(1.0), m.add(m.c(1.0), e_hi)), down)
    w = m.sub(e_hi, q) if name == "sinh" else m.add(e_hi, q)
    return m.scale(m.add(m.c(1.0), m.add(w, e_lo)), b.sub(k, m.i(1)))


def _sinh_f64(m, x):
    z = m.mul(x, x)
    small = m.fma(m.mul(x, z), m.poly(z, SINH_COEFFS64), x)
    return m.where("<", m.fabs(x), m.c(1.0), small, m.copysign(_hyperbolic_f64(m, x, "sinh"), x))


def _cosh_f64(m, x):
    return _hyperbolic_f64(m, x, "cosh")


def _tanh_f64(m, x):
    a = m.at_most(m.fabs(x), 20.0)  # (tanh(20) rounds to 1)
    z = m.mul(x, x)
    small = m.fma(m.mul(x, z), m.poly(z, TANH_COEFFS64), x)
    # 1 - 2 / (e^2a + 1) = 1 - 2 / (expm1(2a) + 2)
    big = m.sub(m.c(1.0), m.div(m.c(2.0), m.add(m.expm1_64(m.add(a, a)), m.c(2.0))))
    return _signed_tiny(m, x, m.where("<", m.fabs(x), m.c(TANH_SERIES), small, m.copysign(big, x)))


def _log1p_f64(m, x):
    r = m.log1p_64(x)
    r = m.where("==", x, m.c(math.inf), m.c(math.inf), r)
    r = m.where("==", x, m.c(-1.0), m.c(-math.inf), m.where("<", x, m.c(-1.0), m.c(math.nan), r))
    return _signed_tiny(m, x, r)


def _atanh_f64(m, x):
    # (log1p(a) - log1p(-a)) / 2: the two terms have opposite signs (no cancellation); a = 1
    # gives inf through log1p(-1), a > 1 NaN
    a = m.fabs(x)
    t = m.mul(m.c(0.5), m.sub(_log1p_f64(m, a), _log1p_f64(m, m.sub(m.c(-0.0), a))))
    return _signed_tiny(m, x, m.copysign(t, x))


def _log_of(m, bounds, cases, a, x):
    """log(u + c) + add for the (u, c, add) of the first case whose ``a < bound`` holds (the
    last case otherwise): one logarithm for a function's several argument ranges."""
    u, c, add = cases[-1]
    for bound, (u_, c_, add_) in zip(reversed(bounds), reversed(cases[:-1])):
        cond = m.b.fcmp_ordered("<", a, m.c(bound))
        u, c, add = (m.b.select(cond, p, q) for p, q in ((u_, u), (c_, c), (add_, add)))
    return m.add(m.log64(u, c), add)


def _one_plus(m, y, y_lo=None):
    """(u, c): 1 + y + y_lo = u + c, u rounded, c exact (y_lo added)."""
    u = m.add(m.c(1.0), y)
    c = m.sub(y, m.sub(u, m.c(1.0)))
    return u, (c if y_lo is None else m.add(c, y_lo))


def _asinh_f64(m, x):
    one, zero, ln2, a = m.c(1.0), m.c(0.0), m.c(LN2_HI + LN2_LO), m.fabs(x)
    root = m.sqrt(m.fma(a, a, one))
    # below 2: log1p(a + a^2 / (1 + sqrt(1 + a^2))) (no cancellation); up to 2^28:
    # log(2a + 1 / (a + sqrt(a^2 + 1))); beyond, log(a) + ln 2 (a^2 + 1 rounds to a^2)
    q = m.div(m.mul(a, a), m.add(one, root))
    y = m.add(a, q)
    small = _one_plus(m, y, m.add(m.sub(a, y), q))  # (y's rounding error kept: q <= a)
    mid = m.add(m.add(a, a), m.div(one, m.add(a, root)))
    r = _log_of(m, [2.0, 2.0 ** 28], [(*small, zero), (mid, zero, zero), (a, zero, ln2)], a, x)
    r = m.where("<", a, m.c(math.inf), r, a)  # (inf, and NaN, themselves)
    return _signed_tiny(m, x, m.copysign(r, x))


def _acosh_f64(m, x):
    one, zero, ln2 = m.c(1.0), m.c(0.0), m.c(LN2_HI + LN2_LO)
    # below 2: log1p(t + sqrt(2t + t^2)), t = x - 1 exact, the root's argument and the root
    # carried with their rounding errors (acosh near 1 is about the root itself)
    t = m.sub(x, one)
    two_t = m.add(t, t)
    q = m.fma(t, t, two_t)
    q_lo = m.fma(t, t, m.sub(two_t, q))  # (2t - q exact: q is within t^2 of 2t)
    root = m.sqrt(q)
    root_lo = m.where(">", root, zero, m.div(m.add(m.fma(m.sub(m.c(-0.0), root), root, q), q_lo),
                                               m.add(root, root)), zero)
    y = m.add(t, root)
    small = _one_plus(m, y, m.add(m.sub(root, m.sub(y, t)), root_lo))
    mid = m.sub(m.add(x, x), m.div(one, m.add(x, m.sqrt(m.fma(x, x, m.c(-1.0))))))
    r = _log_of(m, [2.0, 2.0 ** 28], [(*small, zero), (mid, zero, zero), (x, zero, ln2)], x, x)
    r = m.where("==", x, m.c(math.inf), m.c(math.inf), r)
    return m.where(">=", x, one, r, m.c(math.nan))


def _atan_f64(m, x):
    return m.copysign(m.atan64(m.fabs(x), m.c(1.0)), x)


def _asin_f64(m, x):
    a, big, t, tail = m.asin_parts64(x)
    two = m.c(2.0)
    r = m.b.select(big, m.from_constant(*PIO2_HL, m.mul(two, t), m.mul(two, tail)), m.add(a, tail))
    return m.copysign(r, x)


def _acos_f64(m, x):
    # |x| <= 1/2: pi/2 - asin(x); x > 1/2: 2 asin(t); x < -1/2: pi - 2 asin(t)
    b, two = m.b, m.c(2.0)
    a, big, t, tail = m.asin_parts64(x)
    negative = b.fcmp_ordered("<", x, m.c(0.0))
    small = m.from_constant(*PIO2_HL, x, m.copysign(tail, x))
    above = m.mul(two, m.add(t, tail))
    below = m.from_constant(*PI_HL, m.mul(two, t), m.mul(two, tail))
    return b.select(big, b.select(negative, below, above), small)


def _atan2_f64(m, y, x):
    b = m.b
    ay, ax = m.fabs(y), m.fabs(x)
    both_inf = b.and_(b.fcmp_ordered("==", ay, m.c(math.inf)), b.fcmp_ordered("==", ax, m.c(math.inf)))
    # x negative, -0.0 included: the angle from the negative axis
    negative = b.fcmp_ordered("<", m.copysign(m.c(1.0), x), m.c(0.0))
    t = m.atan64(b.select(both_inf, m.c(1.0), ay), b.select(both_inf, m.c(1.0), ax), from_pi=negative)
    t = m.where("==", ay, m.c(0.0), b.select(negative, m.c(math.pi), m.c(0.0)), t)  # (y = 0, x = 0 too)
    return b.select(b.fcmp_unordered("uno", x, y), m.c(math.nan), m.copysign(t, y))


def _cbrt_f64(m, x):
    b, a = m.b, m.fabs(x)
    # a subnormal double scaled by 2^54 into the normal range, its root by 2^-18 back
    tiny = b.fcmp_ordered("<", a, m.c(2.0 ** -1022))
    y, q = m.cbrt64(b.select(tiny, m.mul(a, m.c(2.0 ** 54)), a))
    y = m.copysign(m.scale(y, b.select(tiny, b.sub(q, m.i(18)), q)), x)
    regular = b.and_(b.fcmp_ordered(">", a, m.c(0.0)), b.fcmp_ordered("<", a, m.c(math.inf)))
    return b.select(regular, y, x)


#: name -> body (``_Math``, the float64 argument or two) -> the float64 result
_BODIES = {
    "sin": _sin, "cos": _cos, "tan": _tan,
    "exp": _exp, "exp2": _exp2, "expm1": _expm1,
    "sinh": _sinh, "cosh": _cosh, "tanh": _tanh,
    "log": _log, "log2": _log2, "log10": _log10, "log1p": _log1p,
    "asinh": _asinh, "acosh": _acosh, "atanh": _atanh,
    "atan": _atan, "asin": _asin, "acos": _acos, "cbrt": _cbrt,
    "atan2": _atan2, "pow": _pow,
}
FUNCTIONS = frozenset(_BODIES)
#: the float64 functions defined here (the others call the C library)
_BODIES64 = {
    "exp": _exp_f64, "log": _log_f64, "log2": _log2_f64, "log10": _log10_f64,
    "expm1": _expm1_f64, "log1p": _log1p_f64,
    "sinh": _sinh_f64, "cosh": _cosh_f64, "tanh": _tanh_f64,
    "asinh": _asinh_f64, "acosh": _acosh_f64, "atanh": _atanh_f64,
    "atan": _atan_f64, "asin": _asin_f64, "acos": _acos_f64, "atan2": _atan2_f64, "cbrt": _cbrt_f64,
}
FUNCTIONS64 = frozenset(_BODIES64)
#: the functions of two arguments (the rest take one)
BINARY = frozenset({"atan2", "pow"})


def float_function(module: ir.Module, name: str, ty: ir.Type) -> ir.Function:
    """The float32 (``ty`` a FloatType: one of ``FUNCTIONS``) or float64 (one of
    ``FUNCTIONS64``) function ``name`` defined in ``module``: internal and always inlined,
    of one value (two for ``BINARY``) to one of the same type."""
    wide = isinstance(ty, ir.DoubleType)
    full = f"rocarray.host.{name}.{'f64' if wide else 'f32'}"
    existing = module.globals.get(full)
    if existing is not None:
        return existing
    fn = ir.Function(module, ir.FunctionType(ty, [ty] * (2 if name in BINARY else 1)), full)
    fn.linkage = "internal"
    for attr in ("alwaysinline", "nounwind", "readnone"):
        fn.attributes.add(attr)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    m = _Math(b, module)
    if wide:
        b.ret(_BODIES64[name](m, *fn.args))
    else:
        b.ret(b.fptrunc(_BODIES[name](m, *(b.fpext(a, F64) for a in fn.args)), F32))
    return fn
