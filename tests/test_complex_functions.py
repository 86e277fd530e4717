"""Complex elementwise functions on every device: the special values of C99 Annex G (as the
array API standard lists them, with its branch cuts and signed zeros), and accuracy in ulps
against an mpmath reference over the whole range of magnitudes, subnormal to near max.

The accuracy rule tested here is the one docs/elementwise.md states: the error is measured
norm-wise, |w - w_ref| / |w_ref| in units of the component type's eps (2^-23, 2^-52); a part
whose exact value overflows must be the infinity of its sign, and the remaining finite part
is then measured against itself."""

import math
import warnings

import numpy as np
import pytest

# mpmath 1.3 loses the smaller part of arguments whose parts differ by hundreds of orders, so
# its asin/asinh/acosh references are wrong there; [test] asks for 1.4.
mpmath = pytest.importorskip("mpmath", minversion="1.4", reason="the references need mpmath >= 1.4")

import rocarray as ra

CPLX = [np.complex64, np.complex128]
INF, NAN = math.inf, math.nan
PI = math.pi
U0 = "zero of either sign"
UINF = "infinity of either sign"
UPI2 = "pi/2 of either sign"

#: the error bound (ulp) of every unary function and of multiply/divide: the host measures
#: at most 2; the rest is room for the GPU math libraries' own errors (libdevice, ocml)
ULP_BOUND = 8
#: pow's bound is POW_ULP * (1 + |b| (1 + |log a|)): the exact result's own condition
POW_ULP = 4
UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
         "expm1", "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "square", "tan",
         "tanh", "sign", "reciprocal"]


def _call(name, *arrays, device=None):
    args = [ra.asarray(a, device=device) for a in arrays]
    return ra.asnumpy(getattr(ra, name)(*args))


# -- special values ----------------------------------------------------------------------------
#
# Inputs: floats, or a word for a set of values ("pos": positive finite, "fin": any finite,
# "nz": nonzero finite); outputs: floats, U0/UINF/UPI2, or a function of the input for the
# "cis" cases.  Each function's rows are the spec's (first quadrant where it states symmetry);
# every row is also checked at conj(z) -> conj(w), and at -z for odd (-w) and even (w) ones.
# (2^100 is exact in both component types, so the signs of its cos and sin are the same)
POS = [0.5, 2.0, 2.0 ** 100]
FIN = [0.0, -0.0, 0.5, -2.0, 2.0 ** 100]
NZ = [0.5, -2.0, 2.0 ** 100]


def _zcis(mag):
    """mag * cis(y) for an infinite or zero magnitude: the signs follow cos(y), sin(y)."""
    return lambda x, y: (math.copysign(mag, math.cos(y)), math.copysign(mag, math.sin(y)))


EXP = [((0.0, 0.0), (1.0, 0.0)), ((-0.0, 0.0), (1.0, 0.0)),
       (("fin", INF), (NAN, NAN)), (("fin", NAN), (NAN, NAN)), ((INF, 0.0), (INF, 0.0)),
       ((-INF, "fin"), _zcis(0.0)), ((INF, "nz"), _zcis(INF)),
       ((-INF, INF), (U0, U0)), ((INF, INF), (UINF, NAN)), ((-INF, NAN), (U0, U0)),
       ((INF, NAN), (UINF, NAN)), ((NAN, 0.0), (NAN, 0.0)), ((NAN, "nz"), (NAN, NAN)),
       ((NAN, NAN), (NAN, NAN))]
EXPM1 = [((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (U0, 0.0)),
         (("fin", INF), (NAN, NAN)), (("fin", NAN), (NAN, NAN)), ((INF, 0.0), (INF, 0.0)),
         ((-INF, "fin"), lambda x, y: (-1.0, math.copysign(0.0, math.sin(y)))),
         ((INF, "nz"), _zcis(INF)), ((-INF, INF), (-1.0, U0)), ((INF, INF), (UINF, NAN)),
         ((-INF, NAN), (-1.0, U0)), ((INF, NAN), (UINF, NAN)), ((NAN, 0.0), (NAN, 0.0)),
         ((NAN, "nz"), (NAN, NAN)), ((NAN, NAN), (NAN, NAN))]
LOG = [((-0.0, 0.0), (-INF, PI)), ((0.0, 0.0), (-INF, 0.0)), (("fin", INF), (INF, PI / 2)),
       (("fin", NAN), (NAN, NAN)), ((-INF, "pos"), (INF, PI)), ((INF, "pos"), (INF, 0.0)),
       ((-INF, INF), (INF, 3 * PI / 4)), ((INF, INF), (INF, PI / 4)), ((INF, NAN), (INF, NAN)),
       ((-INF, NAN), (INF, NAN)), ((NAN, "fin"), (NAN, NAN)), ((NAN, INF), (INF, NAN)),
       ((NAN, NAN), (NAN, NAN)),
       # the cut: the sign of a zero imaginary part picks the side
       ((-2.0, 0.0), (math.log(2), PI)), ((-0.5, 0.0), (math.log(0.5), PI))]
LOG1P = [((-1.0, 0.0), (-INF, 0.0)), ((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (0.0, 0.0)),
         (("fin", INF), (INF, PI / 2)), (("fin", NAN), (NAN, NAN)), ((-INF, "pos"), (INF, PI)),
         ((INF, "pos"), (INF, 0.0)), ((-INF, INF), (INF, 3 * PI / 4)),
         ((INF, INF), (INF, PI / 4)), ((INF, NAN), (INF, NAN)), ((-INF, NAN), (INF, NAN)),
         ((NAN, "fin"), (NAN, NAN)), ((NAN, INF), (INF, NAN)), ((NAN, NAN), (NAN, NAN)),
         ((-1.5, 0.0), (math.log(0.5), PI)), ((-3.0, 0.0), (math.log(2), PI))]
SQRT = [((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (0.0, 0.0)), (("fin", INF), (INF, INF)),
        ((INF, INF), (INF, INF)), ((-INF, INF), (INF, INF)), ((NAN, INF), (INF, INF)),
        (("fin", NAN), (NAN, NAN)), ((-INF, "pos"), (0.0, INF)), ((INF, "pos"), (INF, 0.0)),
        ((-INF, NAN), (NAN, UINF)), ((INF, NAN), (INF, NAN)), ((NAN, "fin"), (NAN, NAN)),
        ((NAN, NAN), (NAN, NAN)),
        ((-4.0, 0.0), (0.0, 2.0)), ((-0.25, 0.0), (0.0, 0.5))]
ACOS = [((0.0, 0.0), (PI / 2, -0.0)), ((-0.0, 0.0), (PI / 2, -0.0)),
        ((0.0, NAN), (PI / 2, NAN)), ((-0.0, NAN), (PI / 2, NAN)),
        (("fin", INF), (PI / 2, -INF)), (("nz", NAN), (NAN, NAN)),
        ((-INF, "pos"), (PI, -INF)), ((INF, "pos"), (0.0, -INF)),
        ((-INF, INF), (3 * PI / 4, -INF)), ((INF, INF), (PI / 4, -INF)),
        ((INF, NAN), (NAN, UINF)), ((-INF, NAN), (NAN, UINF)), ((NAN, "fin"), (NAN, NAN)),
        ((NAN, INF), (NAN, -INF)), ((NAN, NAN), (NAN, NAN)),
        ((2.0, 0.0), (0.0, -math.acosh(2))), ((-2.0, 0.0), (PI, -math.acosh(2)))]
ACOSH = [((0.0, 0.0), (0.0, PI / 2)), ((-0.0, 0.0), (0.0, PI / 2)),
         (("fin", INF), (INF, PI / 2)), (("nz", NAN), (NAN, NAN)), ((0.0, NAN), (NAN, UPI2)),
         ((-INF, "pos"), (INF, PI)), ((INF, "pos"), (INF, 0.0)),
         ((-INF, INF), (INF, 3 * PI / 4)), ((INF, INF), (INF, PI / 4)),
         ((INF, NAN), (INF, NAN)), ((-INF, NAN), (INF, NAN)), ((NAN, "fin"), (NAN, NAN)),
         ((NAN, INF), (INF, NAN)), ((NAN, NAN), (NAN, NAN)),
         ((0.5, 0.0), (0.0, math.acos(0.5))), ((-2.0, 0.0), (math.acosh(2), PI))]
ASINH = [((0.0, 0.0), (0.0, 0.0)), (("pos", INF), (INF, PI / 2)), (("fin", NAN), (NAN, NAN)),
         ((INF, "pos"), (INF, 0.0)), ((INF, INF), (INF, PI / 4)), ((NAN, 0.0), (NAN, 0.0)),
         ((NAN, "nz"), (NAN, NAN)), ((NAN, INF), (UINF, NAN)), ((NAN, NAN), (NAN, NAN)),
         ((0.0, 2.0), (math.acosh(2), PI / 2))]
ATANH = [((0.0, 0.0), (0.0, 0.0)), ((0.0, NAN), (0.0, NAN)), ((1.0, 0.0), (INF, 0.0)),
         (("pos", INF), (0.0, PI / 2)), (("nz", NAN), (NAN, NAN)), ((INF, "pos"), (0.0, PI / 2)),
         ((INF, INF), (0.0, PI / 2)), ((INF, NAN), (0.0, NAN)), ((NAN, "fin"), (NAN, NAN)),
         ((NAN, INF), (U0, PI / 2)), ((NAN, NAN), (NAN, NAN)),
         ((2.0, 0.0), (math.atanh(0.5), PI / 2))]
SINH = [((0.0, 0.0), (0.0, 0.0)), ((0.0, INF), (U0, NAN)), ((0.0, NAN), (U0, NAN)),
        (("pos", INF), (NAN, NAN)), (("pos", NAN), (NAN, NAN)), ((INF, 0.0), (INF, 0.0)),
        ((INF, "pos"), _zcis(INF)), ((INF, INF), (UINF, NAN)), ((INF, NAN), (UINF, NAN)),
        ((NAN, 0.0), (NAN, 0.0)), ((NAN, "nz"), (NAN, NAN)), ((NAN, NAN), (NAN, NAN))]
COSH = [((0.0, 0.0), (1.0, 0.0)), ((0.0, INF), (NAN, U0)), ((0.0, NAN), (NAN, U0)),
        (("nz", INF), (NAN, NAN)), (("nz", NAN), (NAN, NAN)), ((INF, 0.0), (INF, 0.0)),
        ((INF, "nz"), _zcis(INF)), ((INF, INF), (UINF, NAN)), ((INF, NAN), (INF, NAN)),
        ((NAN, 0.0), (NAN, U0)), ((NAN, "nz"), (NAN, NAN)), ((NAN, NAN), (NAN, NAN))]
TANH = [((0.0, 0.0), (0.0, 0.0)), (("nz", INF), (NAN, NAN)), ((0.0, INF), (0.0, NAN)),
        (("nz", NAN), (NAN, NAN)), ((0.0, NAN), (0.0, NAN)),
        ((INF, "pos"), lambda x, y: (1.0, math.copysign(0.0, math.sin(2 * y)))),
        ((INF, INF), (1.0, U0)), ((INF, NAN), (1.0, U0)), ((NAN, 0.0), (NAN, 0.0)),
        ((NAN, "nz"), (NAN, NAN)), ((NAN, NAN), (NAN, NAN))]
ABS = [((INF, "fin"), INF), ((-INF, NAN), INF), ((INF, NAN), INF), (("fin", INF), INF),
       ((NAN, -INF), INF), ((0.0, "fin"), "abs_imag"), ((-0.0, "fin"), "abs_imag"),
       (("fin", 0.0), "abs_real"), ((NAN, "fin"), NAN), (("fin", NAN), NAN), ((NAN, NAN), NAN)]
SIGN = [((0.0, 0.0), (0.0, 0.0)), ((-0.0, -0.0), (0.0, 0.0)), ((NAN, "fin"), (NAN, NAN)),
        (("fin", NAN), (NAN, NAN)), ((NAN, INF), (NAN, NAN)), ((INF, 0.0), (1.0, 0.0)),
        ((-INF, INF), (-math.sqrt(0.5), math.sqrt(0.5))), ((3.0, -4.0), (0.6, -0.8))]

#: function -> (rows, symmetry under z -> -z: "odd", "even" or None)
TABLE = {"exp": (EXP, None), "expm1": (EXPM1, None), "log": (LOG, None),
         "log1p": (LOG1P, None), "sqrt": (SQRT, None), "acos": (ACOS, None),
         "acosh": (ACOSH, None), "asinh": (ASINH, "odd"), "atanh": (ATANH, "odd"),
         "sinh": (SINH, "odd"), "cosh": (COSH, "even"), "tanh": (TANH, "odd")}


def _expand(value):
    return {"pos": POS, "fin": FIN, "nz": NZ}.get(value, [value]) if isinstance(value, str) \
        else [value]


def _neg(v):
    return v if isinstance(v, str) else -v


def _cases(name):
    """(z, expected w) pairs of ``name``: its rows, their mirror images and, for asin/atan/
    sin/cos/tan and log2/log10, the rows of the function they are defined by."""
    if name in ("asin", "atan", "sin", "tan"):
        # f(z) = -i g(iz): z = (x, y) -> iz = (-y, x); -i (u + iv) = (v, -u)
        g = {"asin": "asinh", "atan": "atanh", "sin": "sinh", "tan": "tanh"}[name]
        return [((y, _neg(x)), (v, _neg(u))) for (x, y), (u, v) in _cases(g)]
    if name == "cos":  # cos(z) = cosh(iz)
        return [((y, _neg(x)), w) for (x, y), w in _cases("cosh")]
    if name in ("log2", "log10"):
        k = 1 / math.log(2 if name == "log2" else 10)
        return [(z, tuple(p if isinstance(p, str) else p * k for p in w))
                for z, w in _cases("log")]
    rows, sym = TABLE[name]
    out = []
    for (xs, ys), w in rows:
        for x in _expand(xs):
            for y in _expand(ys):
                ww = w(x, y) if callable(w) else w
                u, v = ww
                out.append(((x, y), (u, v)))
                out.append(((x, _neg(y)), (u, _neg(v))))            # conj symmetry
                if sym == "odd":
                    out.append(((_neg(x), _neg(y)), (_neg(u), _neg(v))))
                    out.append(((_neg(x), y), (_neg(u), v)))
                elif sym == "even":
                    out.append(((_neg(x), _neg(y)), (u, v)))
                    out.append(((_neg(x), y), (u, _neg(v))))
    return out


def _part_ok(got, want, tol):
    if want == U0:
        return got == 0
    if want == UINF:
        return math.isinf(got)
    if want == UPI2:
        return abs(abs(got) - PI / 2) <= tol
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= tol * abs(want)


SPECIAL_FUNCS = sorted(TABLE) + ["asin", "atan", "sin", "cos", "tan", "log2", "log10"]


@pytest.mark.parametrize("dt", CPLX, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", SPECIAL_FUNCS)
def test_special_values(device, name, dt):
    cases = _cases(name)
    z = np.array([complex(*c[0]) for c in cases], dtype=dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _call(name, z, device=device)
    tol = 8 * np.finfo(dt).eps
    bad = [(zz, g, w) for zz, g, (_, w) in zip(z, got, cases)
           if not (_part_ok(float(g.real), w[0], tol) and _part_ok(float(g.imag), w[1], tol))]
    assert not bad, f"{name}: {len(bad)} of {len(cases)} wrong, e.g. {bad[:4]}"


@pytest.mark.parametrize("dt", CPLX, ids=lambda d: np.dtype(d).name)
def test_special_values_abs_and_sign(device, dt):
    for name, rows in (("abs", ABS), ("sign", SIGN)):
        cases = [((x, y), w) for (xs, ys), w in rows for x in _expand(xs) for y in _expand(ys)]
        z = np.array([complex(*c[0]) for c in cases], dtype=dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _call(name, z, device=device)
        tol = 4 * np.finfo(dt).eps
        for zz, g, ((x, y), w) in zip(z, got, cases):
            if name == "abs":
                want = {"abs_imag": abs(float(zz.imag)), "abs_real": abs(float(zz.real))}.get(w, w)
                assert _part_ok(float(g), want, tol), (name, zz, g, want)
            else:
                assert _part_ok(float(g.real), w[0], tol) and _part_ok(float(g.imag), w[1], tol), \
                    (name, zz, g, w)


# -- accuracy against mpmath ---------------------------------------------------------------------

_L2, _L10 = mpmath.log(2), mpmath.log(10)
REFERENCE = {
    "abs": abs, "acos": mpmath.acos, "acosh": mpmath.acosh, "asin": mpmath.asin,
    "asinh": mpmath.asinh, "atan": mpmath.atan, "atanh": mpmath.atanh, "cos": mpmath.cos,
    "cosh": mpmath.cosh, "exp": mpmath.exp, "expm1": mpmath.expm1, "log": mpmath.log,
    "log1p": mpmath.log1p, "log2": lambda z: mpmath.log(z) / mpmath.log(2),
    "log10": lambda z: mpmath.log(z) / mpmath.log(10), "sin": mpmath.sin, "sinh": mpmath.sinh,
    "sqrt": mpmath.sqrt, "square": lambda z: z * z, "tan": mpmath.tan, "tanh": mpmath.tanh,
    "sign": lambda z: z / abs(z), "reciprocal": lambda z: 1 / z,
    "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b, "pow": mpmath.power,
}
#: functions with branch cuts: a zero part stands for an infinitesimal of its sign there
CUT = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "log", "log1p", "log2", "log10",
       "sqrt", "pow"}
_TINY = mpmath.mpf(2) ** -3000


def _mp(z, name):
    def part(v):
        v = float(v)
        if v == 0 and name in CUT:
            return -_TINY if math.copysign(1, v) < 0 else _TINY
        return mpmath.mpf(v)

    return mpmath.mpc(part(z.real), part(z.imag))


def reference(name, *zs):
    """mpmath's value, at a precision raised until two in a row agree (formulas such as
    atanh's cancel for tiny arguments), or None where it is undefined."""
    prev = None
    for prec in (200, 600, 2000, 6000):
        with mpmath.workprec(prec):
            try:
                v = mpmath.mpc(REFERENCE[name](*[_mp(z, name) for z in zs]))
            except (ZeroDivisionError, ValueError):
                return None
        if prev is not None and abs(v - prev) <= abs(v) * mpmath.mpf(2) ** -80:
            return v
        prev = v
    return v


def ulp_error(got, ref, dt, products=False):
    """Norm-wise error in eps units; a part whose exact value overflows must be the
    infinity of its sign (inf otherwise), the finite parts are measured among themselves --
    except for ``products`` (multiply, divide, pow), whose parts are sums of products
    accurate to eps times the products, not to eps of the part: beside an overflowing part,
    the other need only be finite."""
    f = np.finfo(dt)
    eps = mpmath.mpf(float(f.eps))
    big = mpmath.mpf(float(f.max))
    parts = []
    for g, r in ((float(np.real(got)), ref.real), (float(np.imag(got)), ref.imag)):
        if abs(r) > big * (1 + eps):
            if not (math.isinf(g) and (g > 0) == (r > 0)):
                return math.inf
        elif abs(r) > big * (1 - 8 * eps) and math.isinf(g) and (g > 0) == (r > 0):
            pass    # at the edge of the range: rounding up to the infinity is right too
        else:
            parts.append((g, r))
    if not all(math.isfinite(g) for g, _ in parts):
        return math.inf
    if len(parts) < 2 and (products or not parts):
        return 0.0
    err = mpmath.sqrt(sum((mpmath.mpf(g) - r) ** 2 for g, r in parts))
    size = max(mpmath.sqrt(sum(r ** 2 for _, r in parts)), mpmath.mpf(float(f.tiny)))
    return float(err / size / eps)


def _normal_products(a, b, dt):
    """The pairs of ``a`` and ``b`` whose partial products (ac, bd, ad, bc) are zero or
    normal numbers of ``dt``'s component type, in their own precision."""
    f = np.finfo(dt)
    lo, hi = math.log2(float(f.tiny)), math.log2(float(f.max))
    keep = np.ones(a.shape, bool)
    with np.errstate(divide="ignore"):
        for p in (a.real, a.imag):
            for q in (b.real, b.imag):
                zero = (p == 0) | (q == 0)
                e = np.log2(np.abs(p.astype(np.float64))) + np.log2(np.abs(q.astype(np.float64)))
                keep &= zero | ((e >= lo) & (e < hi))
    assert keep.sum() >= 20, "too few pairs with normal partial products"
    return [a[keep], b[keep]]


def log_uniform_complex(rng, n, dt, axis=0.1):
    """Parts log-uniform from the smallest subnormal to max, random signs; a share of the
    values on an axis (one part a signed zero)."""
    rd = np.finfo(dt).dtype
    f = np.finfo(rd)
    lo, hi = math.log2(float(f.smallest_subnormal)), math.log2(float(f.max))

    def parts():
        m = np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n)
        return np.clip(m, -float(f.max), float(f.max)).astype(rd)

    re, im = parts(), parts()
    u = rng.random(n)
    re[u < axis] *= 0
    im[(u >= axis) & (u < 2 * axis)] *= 0
    z = np.empty(n, dt)
    z.real, z.imag = re, im
    return z


N_RANDOM = 160


@pytest.mark.parametrize("dt", CPLX, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY + ["multiply", "divide"])
def test_accuracy_across_magnitudes(device, name, dt):
    rng = np.random.default_rng([UNARY.index(name) if name in UNARY else 90 + len(name),
                                 np.dtype(dt).itemsize])
    args = [log_uniform_complex(rng, N_RANDOM, dt) for _ in range(2 if name in ("multiply", "divide") else 1)]
    if name == "multiply":  # the textbook product: accurate where its partial products are normal
        args = _normal_products(*args, dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _call(name, *args, device=device)
    worst = (0.0, None)
    for k in range(len(args[0])):
        zs = [a[k] for a in args]
        ref = reference(name, *zs)
        if ref is None:
            continue
        e = ulp_error(got[k], ref, dt, products=name in ("multiply", "divide"))
        if e > worst[0]:
            worst = (e, (zs, got[k], mpmath.nstr(ref, 12)))
    assert worst[0] <= ULP_BOUND, f"{name}: {worst[0]:.3g} ulp at {worst[1]}"


@pytest.mark.parametrize("dt", CPLX, ids=lambda d: np.dtype(d).name)
def test_pow_accuracy_across_magnitudes(device, dt):
    """pow over bases of every magnitude, with exponents that keep |b log a| <= 80 (complex64)
    or 700 (complex128), integer and real exponents among them.  Where the exact result
    overflows, pow gives an infinite part (its sign follows a phase b log a that is only
    known to eps |b log a|) and no NaN."""
    rng = np.random.default_rng([7, np.dtype(dt).itemsize])
    a = log_uniform_complex(rng, 2 * N_RANDOM, dt)
    a = a[a != 0][:N_RANDOM]
    n = len(a)
    w = np.exp(rng.uniform(math.log(1e-6), math.log(80 if dt == np.complex64 else 700), n)) \
        * np.exp(1j * rng.uniform(-PI, PI, n))
    b = (w / np.log(a.astype(np.complex128))).astype(dt)
    u = rng.random(n)
    b[u < 0.15] = rng.integers(-99, 100, (u < 0.15).sum())
    b[(u >= 0.15) & (u < 0.3)] = b[(u >= 0.15) & (u < 0.3)].real
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _call("pow", a, b, device=device)
    big = mpmath.mpf(float(np.finfo(dt).max)) * (1 + mpmath.mpf(1e-6))
    for k in range(n):
        ref = reference("pow", a[k], b[k])
        g = got[k]
        if abs(ref) > big:
            assert (math.isinf(g.real) or math.isinf(g.imag)) and not np.isnan(g), (a[k], b[k], g)
            continue
        cond = 1 + abs(complex(b[k])) * (1 + abs(np.log(complex(a[k]))))
        e = ulp_error(g, ref, dt, products=True)
        assert e <= POW_ULP * cond, (a[k], b[k], g, mpmath.nstr(ref, 12), e, cond)


# -- the defects these functions had (each failed before its fix) ---------------------------------

F32_MAX = float(np.finfo(np.float32).max)
F64_MAX = float(np.finfo(np.float64).max)

#: (function, input, dtypes): compared with mpmath, ULP_BOUND
EXTREMES = [
    # |z| above max: log|z| through hypot overflowed
    ("log", 3e38 + 3e38j, CPLX), ("log2", 3e38 + 3e38j, CPLX), ("log10", 3e38 + 3e38j, CPLX),
    ("acos", 3e38 + 3e38j, CPLX), ("asin", 3e38 + 3e38j, CPLX), ("acosh", 3e38 + 3e38j, CPLX),
    ("asinh", 3e38 + 3e38j, CPLX), ("atanh", 3e38 - 3e38j, CPLX),
    ("log", complex(F64_MAX, F64_MAX), [np.complex128]),
    ("acos", complex(-F64_MAX, F64_MAX), [np.complex128]),
    ("asin", complex(F64_MAX, -F64_MAX), [np.complex128]),
    ("atanh", complex(F64_MAX, F64_MAX), [np.complex128]),
    ("sign", complex(F32_MAX, -F32_MAX), [np.complex64]),
    ("sign", complex(F64_MAX, -F64_MAX), [np.complex128]),
    ("abs", 2e38 + 2e38j, [np.complex64]), ("abs", complex(1e308, 1e308), [np.complex128]),
    # subnormal parts
    ("log", 1e-45 - 1e-45j, [np.complex64]), ("log", 5e-324 - 5e-324j, [np.complex128]),
    ("atanh", -1 - 1.4e-45j, [np.complex64]), ("atanh", -1 - 5e-324j, [np.complex128]),
    ("atan", 1.18e-38 - 1j, [np.complex64]), ("atan", 2.2e-308 - 1j, [np.complex128]),
    ("sign", 1.4e-45 + 1.4e-45j, [np.complex64]), ("sign", 5e-324 - 5e-324j, [np.complex128]),
    ("asin", 1.4e-45j, [np.complex64]), ("asinh", 5e-324 + 0j, [np.complex128]),
    ("abs", 3e-45 + 4e-45j, [np.complex64]),
    # exp(x) past overflow times a small cos/sin: the product is finite
    ("exp", 180 + 1e-40j, [np.complex64]), ("exp", 1420 + 1e-310j, [np.complex128]),
    ("expm1", 91 - 1.25e-9j, [np.complex64]), ("sinh", -150 + 1e-30j, [np.complex64]),
    ("cosh", 800 + 1e-300j, [np.complex128]), ("cosh", 1e30 + 0j, CPLX),
    ("cos", 1e30j, CPLX),
    # log1p: the real part of log(1 + z) lost to rounding 1 + z
    ("log1p", 1e-10 + 1e-30j, CPLX), ("log1p", -1e-20 + 1e-12j, [np.complex128]),
    ("log1p", -0.99999 + 1e-8j, CPLX),
    # square and multiply: x^2 - y^2 and ac - bd overflowing give the wrong infinity
    ("square", -1.7e28 + 5.3e23j, [np.complex64]), ("square", 1e200 + 1e100j, [np.complex128]),
    ("reciprocal", 3.657e-42 + 0j, [np.complex64]), ("reciprocal", 7.264e-320 + 0j, [np.complex128]),
    ("reciprocal", complex(F32_MAX, F32_MAX), [np.complex64]),
]
BINARY_EXTREMES = [
    ("divide", 7.19e-17 - 3.3e-35j, -3.1e-41 + 9e-44j, [np.complex64]),
    ("divide", 9.4e-121 + 4e-137j, 7.6e-311 + 0j, [np.complex128]),
    ("divide", 4.45e22 - 2.6e-23j, -2.87e-28j, [np.complex64]),
    ("divide", complex(F32_MAX, F32_MAX), complex(F32_MAX, -F32_MAX), [np.complex64]),
    ("pow", 3e38 + 3e38j, 0.5 + 0j, CPLX),
    ("pow", 1.5e23 + 0j, 5 + 0j, [np.complex64]),
    ("pow", 8.8e-37 + 0j, -4 + 0j, [np.complex64]),
]


def _extreme_ids(case):
    return f"{case[0]}({case[1]})"


@pytest.mark.parametrize("case", EXTREMES, ids=_extreme_ids)
def test_extreme_and_subnormal_arguments(device, case):
    name, z, dts = case
    for dt in dts:
        a = np.array([z], dtype=dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _call(name, a, device=device)[0]
        e = ulp_error(got, reference(name, a[0]), dt)
        assert e <= ULP_BOUND, (name, a[0], got, mpmath.nstr(reference(name, a[0]), 10), e)


@pytest.mark.parametrize("case", BINARY_EXTREMES, ids=lambda c: f"{c[0]}({c[1]}, {c[2]})")
def test_extreme_binary_arguments(device, case):
    name, x, y, dts = case
    for dt in dts:
        a, b = np.array([x], dtype=dt), np.array([y], dtype=dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _call(name, a, b, device=device)[0]
        ref = reference(name, a[0], b[0])
        big = mpmath.mpf(float(np.finfo(dt).max))
        if name == "pow" and abs(ref) > big:
            assert (math.isinf(got.real) or math.isinf(got.imag)) and not np.isnan(got)
            continue
        e = ulp_error(got, ref, dt, products=True)
        bound = ULP_BOUND
        if name == "pow":
            bound = POW_ULP * (1 + abs(complex(b[0])) * (1 + abs(np.log(complex(a[0])))))
        assert e <= bound, (name, a[0], b[0], got, mpmath.nstr(ref, 10), e)


@pytest.mark.parametrize("dt", CPLX, ids=lambda d: np.dtype(d).name)
def test_real_factors_keep_zeros_and_infinities(device, dt):
    """log2/log10 divide each part by a real constant (a complex product turned
    log2(inf + 0j) into inf + nanj); log1p keeps the sign of a zero imaginary part."""
    z = np.array([complex(INF, 0), complex(-0.0, -0.0), complex(INF, -0.0), complex(-INF, 0)],
                 dtype=dt)
    for name, k in (("log2", 1 / math.log(2)), ("log10", 1 / math.log(10))):
        got = _call(name, z, device=device)
        want = [(INF, 0.0), (-INF, -PI * k), (INF, -0.0), (INF, PI * k)]
        for g, w in zip(got, want):
            tol = 4 * np.finfo(dt).eps
            assert _part_ok(float(g.real), w[0], tol) and _part_ok(float(g.imag), w[1], tol), \
                (name, g, w)
    got = _call("log1p", np.array([complex(-1.5, -0.0), complex(-1.5, 0.0)], dtype=dt),
                device=device)
    assert got[0].imag == pytest.approx(-PI) and got[1].imag == pytest.approx(PI)
    assert got[0].real == pytest.approx(math.log(0.5)) == got[1].real


def test_user_kernels_reach_the_same_functions():
    """expm1 and log1p of complex values are kernel-language functions too (they were
    catalogue bodies only), with the catalogue's results."""
    z = log_uniform_complex(np.random.default_rng(3), 64, np.complex128)
    k = ra.ElementwiseKernel("complex128 x", "complex128 y, complex128 w",
                             "y = expm1(x); w = log1p(x);", "cx_user")
    y, w = k(ra.asarray(z))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(ra.asnumpy(y), _call("expm1", z))
        np.testing.assert_array_equal(ra.asnumpy(w), _call("log1p", z))


@pytest.mark.parametrize("dt", CPLX, ids=lambda d: np.dtype(d).name)
def test_pow_of_zero(device, dt):
    """0^b is 0 when real(b) > 0, whatever imag(b) (the limit of |a|^re(b) e^(-im(b) arg a);
    NumPy 2's result and prelude.rk's rule); NaN otherwise; 1 for b = 0 (it gave NaN for
    every b off the real axis; found by tests/property)."""
    b = np.array([0.27 - 0.46j, 2 + 5j, 1e-30 - 1e30j, 3 + 0j, -0.5 + 1j, 1j, -2 + 0j, 0j], dtype=dt)
    got = _call("pow", np.zeros(b.shape, dtype=dt), b, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.zeros(b.shape, dtype=dt) ** b
    np.testing.assert_array_equal(got, want)
    assert list(got[:4]) == [0j] * 4 and np.isnan(got[4:7]).all() and got[7] == 1
    # an integer zero base promotes to the complex dtype: the same rule
    z = ra.asarray(np.zeros(2, dtype=np.uint8), device=device)
    np.testing.assert_array_equal(ra.pow(z, ra.asarray(b[:2], device=device)).get(), [0j, 0j])


@pytest.mark.parametrize("dt", CPLX, ids=lambda d: np.dtype(d).name)
def test_division_by_zero_of_non_finite_numerators(device, dt):
    """x / 0 is x / |0| per part (NumPy's result) for numerators with infinite or NaN parts
    too (inf + inf j over 0 was nan + nan j: 0 * inf in the zero-divisor branch; found by
    tests/property), by a zero array, a zero scalar of each kind, signed zeros alike."""
    x = np.array([complex(INF, INF), complex(1, INF), complex(NAN, 1), complex(-INF, 2),
                  complex(3, -INF), complex(INF, NAN), complex(0, INF), 1 - 1j], dtype=dt)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for zero in (np.zeros(x.shape, dt), np.full(x.shape, complex(-0.0, 0.0), dt)):
            want = x / zero
            got = _call("divide", x, zero, device=device)
            np.testing.assert_array_equal(got, want)
        want = x / np.zeros(x.shape, dt)
    xr = ra.asarray(x, device=device)
    for s in (0, 0.0, 0j, False):
        np.testing.assert_array_equal(ra.divide(xr, s).get(), want)
