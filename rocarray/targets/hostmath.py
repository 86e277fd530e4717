"""Float32 transcendental functions of the host target: branch-free IR computed in float64.

The C library's ``expf``, ``tanhf`` ... are calls the loop vectoriser cannot widen, so a
float32 ``exp`` of a large array ran an element at a time, several to twenty times slower
than NumPy's SIMD loops.  The functions here are written once in IR: the argument is widened
to float64, reduced and evaluated by a short polynomial to a relative error near 1e-13, and
rounded back to float32 once, which makes the result the correctly rounded float32 but for
arguments within about 1e-13 of a rounding boundary (then one ulp off).

They contain no branch and no call but LLVM intrinsics with a vector form (``fma``,
``sqrt``, ``fabs``, ``copysign``), so the vectoriser widens a contiguous loop of them, and
the same instructions run everywhere a float32 value meets them: the scalar remainder of a
vector loop, strided loops, the quick tier and the interpreter (whose bytecode compiler
inlines a defined function).  So an element's result never depends on where it lies in
the array, on its layout, or on which tier computed it.

Specials follow C99 Annex F (NaN in, NaN out; ``exp(-inf) == 0``; ``log(0) == -inf``;
``log`` of a negative number NaN; ``sin(inf)`` NaN; signed zeros kept by the odd
functions).  ``sin``, ``cos`` and ``tan`` reduce any float32 argument exactly enough: up to
2^26 by three parts of pi/2, beyond by the bits of 2/pi the argument's exponent selects
(both computed for every element, the first kept where it holds: a branch would stop the
vectoriser).  ``atan2`` and ``pow`` take two arguments (``pow`` as exp(y log|x|), its
sign and C99's special cases by selects).  float64 and the other functions call the C
library.
"""

from __future__ import annotations

import math

from llvmlite import ir

F32, F64, I64 = ir.FloatType(), ir.DoubleType(), ir.IntType(64)

LN2 = math.log(2.0)
LOG2E = 1.0 / LN2
LOG10E = 1.0 / math.log(10.0)
LOG10_2 = math.log10(2.0)
#: 1.5 * 2^52: ``(t + ROUNDER) - ROUNDER`` is ``t`` rounded to an integer (ties to even) for
#: |t| < 2^51, and the low bits of ``t + ROUNDER`` hold that integer
ROUNDER = 6755399441055744.0
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


def _pi_bits(bits: int) -> int:
    """floor(pi * 2^bits) (exact but for an error far below the last bit kept: Machin's
    formula in integers, with 64 guard bits)."""
    guard = 64
    one = 1 << (bits + guard)

    def atan_inv(n: int) -> int:  # atan(1/n) * one
        total, power, k = 0, one // n, 0
        while power:
            term = power // (2 * k + 1)
            total += -term if k % 2 else term
            power //= n * n
            k += 1
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> guard


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


#: name -> body (``_Math``, the float64 argument or two) -> the float64 result
_BODIES = {
    "sin": _sin, "cos": _cos, "tan": _tan,
    "exp": _exp, "exp2": _exp2, "expm1": _expm1,
    "sinh": _sinh, "cosh": _cosh, "tanh": _tanh,
    "log": _log, "log2": _log2, "log10": _log10, "log1p": _log1p,
    "asinh": _asinh, "acosh": _acosh, "atanh": _atanh,
    "atan": _atan, "asin": _asin, "acos": _acos,
    "atan2": _atan2, "pow": _pow,
}
FUNCTIONS = frozenset(_BODIES)
#: the functions of two arguments (the rest take one)
BINARY = frozenset({"atan2", "pow"})


def float32_function(module: ir.Module, name: str) -> ir.Function:
    """The float32 function ``name`` (one of ``FUNCTIONS``) defined in ``module``: internal
    and always inlined, of one float (two for ``BINARY``) to a float."""
    full = f"rocarray.host.{name}.f32"
    existing = module.globals.get(full)
    if existing is not None:
        return existing
    fn = ir.Function(module, ir.FunctionType(F32, [F32] * (2 if name in BINARY else 1)), full)
    fn.linkage = "internal"
    for attr in ("alwaysinline", "nounwind", "readnone"):
        fn.attributes.add(attr)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    m = _Math(b, module)
    b.ret(b.fptrunc(_BODIES[name](m, *(b.fpext(a, F64) for a in fn.args)), F32))
    return fn
