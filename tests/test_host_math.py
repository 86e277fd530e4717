"""The host's transcendental functions (rocarray/targets/hostmath.py).

float32 ones compute in float64 and round once, so each result is compared with NumPy's
float64 function rounded to float32 (the correctly rounded result but for arguments next to
a rounding boundary): at most one ulp apart, and apart at all for a handful of arguments in
a million.  The arguments: random bit patterns over every float32 exponent, the ranges where
each function loses accuracy most easily (near 1, tiny, near the overflow thresholds,
next to multiples of pi/2 up to 10^38), and
the special values, whose results (NaN, infinities, the sign of zero) must be NumPy's
exactly.  A result must not depend on the element's place (vector body or scalar
remainder), the layout or float16.  float64 ones (``FUNCTIONS64``) are compared with mpmath
at 120 bits: within one ulp of the exact value, specials as NumPy's.  These functions serve
the host only (the tests run on the CPU device wherever they run): GPU targets call their
vendor's device library; the other float64 functions call the C library.
"""

from __future__ import annotations

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray.targets import hostmath
from rocarray.targets.host import HostTarget

NUMPY = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
         "log10": np.log10, "log1p": np.log1p, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
         "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "atan": np.arctan,
         "asin": np.arcsin, "acos": np.arccos, "cbrt": np.cbrt}

BINARY = {"atan2": np.arctan2, "pow": np.power}

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
            1e-45, -1e-45, 1.1754944e-38, 3.4028235e38, -3.4028235e38, 88.72283, 88.72284, 89.4159,
            89.416, -87.33655, -103.97208, -104.0, -150.0, 128.0, -149.0, 2.0 ** -29, -(2.0 ** -29),
            2.0 ** -30, 2.0 ** -12, 9.01, 20.0, -40.0, 1e30, -1e30]


def _arguments() -> np.ndarray:
    rng = np.random.default_rng(20261205)
    n = 1 << 16
    every = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near_one = 1 + rng.standard_normal(n) * 10.0 ** rng.integers(-7, -1, n)
    scaled = rng.standard_normal(n) * 10.0 ** rng.integers(-40, 3, n)
    unit = rng.random(n) * 2 - 1
    above_one = np.float32(1) + np.arange(2000) * np.float32(2.0 ** -23)
    return np.concatenate([np.array(SPECIALS), every, near_one, -near_one, scaled, unit, -unit,
                           above_one, -above_one]).astype(np.float32)


ARGS = _arguments()


def _ordered(a: np.ndarray) -> np.ndarray:
    """float32 bits as integers in the order of the values (ulp distance by subtraction)."""
    i = a.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def _compute(name: str, x):
    if name == "exp2":  # (no array function: the kernel language's exp2)
        k = ra.ElementwiseKernel("T x", "T y", "y = exp2(x)", "host_math_exp2")
        return k(x)
    return getattr(ra, name)(x)


def _reference(name: str, a: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return NUMPY[name](a.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_float32_within_one_ulp_of_the_rounded_float64(name):
    want = _reference(name, ARGS)
    got = _compute(name, ra.asarray(ARGS, device="cpu")).get()
    assert got.dtype == np.float32
    nan = np.isnan(want)
    bad = np.flatnonzero(nan != np.isnan(got))
    assert not bad.size, f"{name}: NaN where NumPy has none or none where it has one, at {ARGS[bad[:5]]}: " \
                         f"{got[bad[:5]]} want {want[bad[:5]]}"
    g, w = got[~nan], want[~nan]
    assert np.array_equal(np.isinf(g), np.isinf(w)) and np.array_equal(g[np.isinf(w)], w[np.isinf(w)])
    zero = w == 0
    assert np.array_equal(np.signbit(g[zero]), np.signbit(w[zero])), f"{name}: the sign of a zero"
    ulps = np.abs(_ordered(g) - _ordered(w))
    worst = np.argsort(-ulps)[:5]
    assert ulps.max() <= 1, f"{name}: {ulps.max()} ulps at {ARGS[~nan][worst]}: {g[worst]} want {w[worst]}"
    assert np.count_nonzero(ulps) <= 4, f"{name}: {np.count_nonzero(ulps)} results off by one ulp"


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_float32_bits_do_not_depend_on_place_layout_or_dtype(name):
    """The vector body and the scalar remainder, a strided and a reversed view, and
    float16 (computed through float32, as NumPy does) give one result per argument."""
    a = ARGS[:4099]
    whole = _compute(name, ra.asarray(a, device="cpu")).get()
    for part, got in ((slice(None, None, 3), _compute(name, ra.asarray(a, device="cpu")[::3]).get()),
                      (slice(None, None, -1), _compute(name, ra.asarray(a, device="cpu")[::-1]).get()),
                      (slice(5, 12), _compute(name, ra.asarray(a[5:12], device="cpu")).get())):
        assert np.array_equal(got.view(np.uint32)[~np.isnan(got)],
                              whole[part].view(np.uint32)[~np.isnan(got)]), name
        assert np.array_equal(np.isnan(got), np.isnan(whole[part]))
    with np.errstate(over="ignore"):
        h = a.astype(np.float16)
        got = _compute(name, ra.asarray(h, device="cpu")).get()
        want = _compute(name, ra.asarray(h.astype(np.float32), device="cpu")).get().astype(np.float16)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)


def _binary(name, a, b):
    if name == "atan2":
        return ra.atan2(ra.asarray(a, device="cpu"), ra.asarray(b, device="cpu")).get()
    return ra.pow(ra.asarray(a, device="cpu"), ra.asarray(b, device="cpu")).get()


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float32_special_values_and_accuracy(name):
    """Every pair of special values (C99 Annex F's cases: zeros of both signs, infinities,
    NaN, +-1, odd and even integers, huge and subnormal) gives NumPy's float64 result
    rounded, bit for bit; random pairs (bit patterns, normals, powers of numbers near 1)
    are within one ulp of it."""
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 2, -2, 0.5, -0.5, 3, -3, 2.5, -2.5,
                   1e-45, 3e38, -3e38, 2.0 ** 24, 2.0 ** 24 + 2, 2.0 ** 23 + 1, -(2.0 ** 23 + 1)], np.float32)
    a, b = (g.ravel() for g in np.meshgrid(sp, sp))
    with np.errstate(all="ignore"):
        want = BINARY[name](a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    got = _binary(name, a, b)
    same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert not bad.size, f"{name}{tuple(zip(a[bad[:4]], b[bad[:4]]))}: {got[bad[:4]]} want {want[bad[:4]]}"
    rng = np.random.default_rng(8)
    n = 1 << 16
    every = rng.integers(0, 1 << 32, (2, n), dtype=np.uint64).astype(np.uint32).view(np.float32)
    near_one = (1 + rng.standard_normal(n) * 1e-4).astype(np.float32)
    pairs = [every, rng.standard_normal((2, n)).astype(np.float32),
             (near_one, (rng.standard_normal(n) * 1e4).astype(np.float32)),
             (-(rng.random(n) * 3).astype(np.float32), rng.integers(-40, 40, n).astype(np.float32))]
    for a, b in pairs:
        with np.errstate(all="ignore"):
            want = BINARY[name](a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
        got = _binary(name, a, b)
        nan = np.isnan(want)
        assert np.array_equal(nan, np.isnan(got)), name
        ulps = np.abs(_ordered(got[~nan]) - _ordered(want[~nan]))
        assert ulps.max() <= 1 and np.count_nonzero(ulps) <= 4, (name, ulps.max(), np.count_nonzero(ulps))


def _loop_module(name: str, f32=ir.FloatType()) -> str:
    """``y[i] = name(x[i])`` (``name(x[i], x[i])`` for a binary one) for i < n, as a plain
    counted loop over float32 (or the float type given)."""
    module = ir.Module()
    i64 = ir.IntType(64)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.PointerType(), ir.PointerType(), i64]), "k")
    entry, loop, done = (fn.append_basic_block(s) for s in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed(">", fn.args[2], ir.Constant(i64, 0)), loop, done)
    b.position_at_end(loop)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    v = b.load(b.gep(fn.args[0], [i], source_etype=f32), typ=f32)
    args = [v, v] if name in hostmath.BINARY else [v]
    b.store(b.call(hostmath.float_function(module, name, f32), args), b.gep(fn.args[1], [i], source_etype=f32))
    nxt = b.add(i, ir.Constant(i64, 1))
    i.add_incoming(nxt, loop)
    b.cbranch(b.icmp_signed("<", nxt, fn.args[2]), loop, done)
    b.position_at_end(done)
    b.ret_void()
    return str(module)


@pytest.mark.parametrize("name", sorted(hostmath.FUNCTIONS))
def test_loops_of_them_are_vectorised(name):
    """The host's default pipeline widens a loop of each function: no C library call is
    left, and the float64 work is done on vectors."""
    target = HostTarget()
    mod, _, _ = target._optimised_module(_loop_module(name))
    text = str(mod)
    assert "x double>" in text, f"{name}: the loop was not vectorised"
    assert f"@{name}f(" not in text and "@llvm.exp.f32" not in text and "@llvm.log.f32" not in text


@pytest.mark.parametrize("name", sorted(hostmath.FUNCTIONS64))
def test_float64_loops_of_them_are_vectorised(name):
    target = HostTarget()
    mod, _, _ = target._optimised_module(_loop_module(name, ir.DoubleType()))
    text = str(mod)
    assert "x double>" in text, f"{name}: the loop was not vectorised"
    assert f"@{name}(" not in text and "@llvm.exp.f64" not in text and "@llvm.log.f64" not in text


def test_every_function_is_served_and_the_rest_stay_with_the_c_library():
    target = HostTarget()
    module = ir.Module()
    assert hostmath.FUNCTIONS == set(NUMPY) | set(BINARY) and hostmath.BINARY == set(BINARY)
    assert hostmath.FUNCTIONS64 == set(NUMPY64) | {"atan2"}
    for name in hostmath.FUNCTIONS:
        fn = target.math_function(module, name, ir.FloatType())
        assert fn.name == f"rocarray.host.{name}.f32" and not fn.is_declaration
        assert target.math_function(module, name, ir.FloatType()) is fn  # one definition per module
        assert len(fn.args) == (2 if name in BINARY else 1)
        wide = target.math_function(module, name, ir.DoubleType())
        if name in hostmath.FUNCTIONS64:
            assert wide.name == f"rocarray.host.{name}.f64" and not wide.is_declaration
        else:
            assert wide.is_declaration  # (the C library's, or an LLVM intrinsic lowered to it)
    for name in ("erf", "lgamma"):
        assert target.math_function(module, name, ir.FloatType()).is_declaration


def test_the_constants_of_pi():
    """pi/2's three parts and 2/pi's 256 bits (from Machin's formula in integers) against
    mpmath."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workprec(600):
        assert abs(mpmath.mpf(hostmath.PIO2_1) + hostmath.PIO2_2 + hostmath.PIO2_3 - mpmath.pi / 2) < 2.0 ** -105
        assert int(hostmath.PIO2_1 * 2 ** 26) == hostmath.PIO2_1 * 2 ** 26  # (27 bits: k * PIO2_1 exact)
        assert int(hostmath.PIO2_2 * 2 ** 53) == hostmath.PIO2_2 * 2 ** 53
        words = int(mpmath.floor(2 / mpmath.pi * mpmath.mpf(2) ** 256))
    assert sum(w << (192 - 64 * k) for k, w in enumerate(hostmath.TWO_OVER_PI_WORDS)) == words


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_next_to_multiples_of_pi_over_2(name):
    """The float32 arguments nearest to k pi/2 (and their neighbours), k up to 10^38, where
    the reduction cancels most: the correctly rounded result (mpmath at 400 bits), to one
    ulp."""
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(7)
    args = []
    with mpmath.workprec(400):
        for k in np.unique(np.floor(10.0 ** rng.uniform(0, 38, 700))):
            f = np.float32(float(mpmath.mpf(int(k)) * mpmath.pi / 2))
            if np.isfinite(f):
                args += [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
        x = np.array(args, np.float32)
        fn = getattr(mpmath, name)
        want = np.array([float(fn(mpmath.mpf(float(v)))) for v in x]).astype(np.float32)
    got = _compute(name, ra.asarray(x, device="cpu")).get()
    ulps = np.abs(_ordered(got) - _ordered(want))
    assert ulps.max() <= 1, f"{name}: {ulps.max()} ulps at {x[np.argmax(ulps)]}"
    assert np.abs(want).min() < 1e-7  # (the set reaches results near zero)


# -- float64 -------------------------------------------------------------------------------------

NUMPY64 = {"exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10, "expm1": np.expm1, "log1p": np.log1p, "sinh": np.sinh,
           "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
           "atanh": np.arctanh, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "cbrt": np.cbrt}

SPECIALS64 = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 5e-324, -5e-324,
              2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 709.782712893384,
              709.7827128933841, -708.3964185322641, -745.1332191019411, -745.1332191019412, 710.4758600739439,
              710.475860073944, 2.0 ** -54, -(2.0 ** -55), 2.0 ** -26, 0.55, -0.55, 20.0, -40.0, 1.0 - 2.0 ** -53,
              -1.0 + 2.0 ** -53, 1.0 + 2.0 ** -52, 2.0 ** 28, 1e300, -1e300, 7 / 16, 11 / 16, 19 / 16, 39 / 16]


def _arguments64(name: str) -> np.ndarray:
    """Random bit patterns over every exponent, the function's own domain densely (near its
    ends and where its formula changes), and the specials."""
    rng = np.random.default_rng(sorted(NUMPY64).index(name))
    n = 1500
    bits = rng.integers(0, 1 << 63, n, dtype=np.int64).view(np.float64) * rng.choice([-1, 1], n)
    spread = rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)
    tiny = 10.0 ** rng.uniform(-20, 0, n) * rng.choice([-1, 1], n)
    near_one = 1 - 10.0 ** rng.uniform(-16, 0, n)
    domain = {"exp": rng.uniform(-746, 710, n), "expm1": rng.uniform(-45, 710, n),
              "sinh": rng.uniform(-711, 711, n), "cosh": rng.uniform(-711, 711, n), "tanh": rng.uniform(-22, 22, n),
              "log": 10.0 ** rng.uniform(-323, 308, n), "log2": 10.0 ** rng.uniform(-323, 308, n),
              "log10": 10.0 ** rng.uniform(-323, 308, n), "log1p": -near_one, "acosh": 2 - near_one,
              "atanh": near_one, "asin": near_one, "acos": -near_one}.get(name, rng.uniform(-3, 3, n))
    x = np.concatenate([SPECIALS64, bits, spread, tiny, near_one, -near_one, domain, rng.uniform(-3, 3, n)])
    return x[~np.isnan(x) | (np.arange(x.size) < len(SPECIALS64))]


def _ordered64(a: np.ndarray) -> np.ndarray:
    i = a.view(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFFFFFFFFFF), i)


def _exact64(name: str, x: np.ndarray) -> np.ndarray:
    """The correctly rounded results (mpmath at 120 bits); NaN outside the real domain."""
    mpmath = pytest.importorskip("mpmath")
    fn = {"cbrt": lambda v: mpmath.sign(v) * mpmath.cbrt(abs(v)),
          "log2": lambda v: mpmath.log(v, 2)}.get(name) or getattr(mpmath, name)
    out = np.empty(x.size)
    with mpmath.workprec(120):
        for k, v in enumerate(x):
            try:
                w = fn(mpmath.mpf(float(v)))
            except (ValueError, ZeroDivisionError):
                w = mpmath.nan
            out[k] = np.nan if isinstance(w, mpmath.mpc) and w.imag else float(mpmath.re(w))
    return out


@pytest.mark.parametrize("name", sorted(NUMPY64))
def test_float64_within_one_ulp_of_the_exact_result(name):
    x = _arguments64(name)
    with np.errstate(all="ignore"):
        numpy = NUMPY64[name](x)
    got = getattr(ra, name)(ra.asarray(x, device="cpu")).get()
    assert got.dtype == np.float64
    # NaN, infinities and zeros (their signs too) as NumPy's
    assert np.array_equal(np.isnan(got), np.isnan(numpy)), f"{name}: NaN at {x[np.isnan(got) != np.isnan(numpy)][:5]}"
    edge = ~np.isfinite(numpy) | (numpy == 0)
    assert np.array_equal(got[edge & ~np.isnan(numpy)], numpy[edge & ~np.isnan(numpy)]), name
    assert np.array_equal(np.signbit(got[numpy == 0]), np.signbit(numpy[numpy == 0])), f"{name}: the sign of a zero"
    finite = np.isfinite(numpy) & (np.abs(numpy) < 1.7e308)
    want = _exact64(name, x[finite])
    ulps = np.abs(_ordered64(got[finite]) - _ordered64(want))
    worst = np.argmax(ulps)
    assert ulps.max() <= 1, f"{name}: {ulps.max()} ulps at {x[finite][worst]!r}: {got[finite][worst]!r} want {want[worst]!r}"


def test_float64_logarithms_of_powers_are_exact():
    """log2 of every power of two and log10 of every power of ten that is a double's
    nearest are the exact integers (a faithful rounding alone would allow an ulp off)."""
    twos = 2.0 ** np.arange(-1074, 1024)
    assert np.array_equal(ra.log2(ra.asarray(twos, device="cpu")).get(), np.arange(-1074, 1024.0))
    k = np.arange(-307, 309)
    tens = np.array([float(f"1e{j}") for j in k])
    assert np.array_equal(ra.log10(ra.asarray(tens, device="cpu")).get(), k.astype(np.float64))


def test_float64_atan2_special_values_and_accuracy():
    """atan2's C99 cases bit for bit as NumPy's; random pairs within one ulp of mpmath's."""
    mpmath = pytest.importorskip("mpmath")
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 2.5, -2.5, 5e-324, -5e-324, 1e308, -1e308])
    a, b = (g.ravel() for g in np.meshgrid(sp, sp))
    got = ra.atan2(ra.asarray(a, device="cpu"), ra.asarray(b, device="cpu")).get()
    want = np.arctan2(a, b)
    same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
    assert same.all(), f"atan2{tuple(zip(a[~same][:4], b[~same][:4]))}: {got[~same][:4]} want {want[~same][:4]}"
    rng = np.random.default_rng(11)
    y = np.concatenate([rng.standard_normal(3000) * 10.0 ** rng.integers(-30, 30, 3000), rng.uniform(-1, 1, 2000)])
    x = np.concatenate([rng.standard_normal(3000) * 10.0 ** rng.integers(-30, 30, 3000), rng.uniform(-1, 1, 2000)])
    got = ra.atan2(ra.asarray(y, device="cpu"), ra.asarray(x, device="cpu")).get()
    with mpmath.workprec(120):
        exact = np.array([float(mpmath.atan2(mpmath.mpf(float(p)), mpmath.mpf(float(q)))) for p, q in zip(y, x)])
    ulps = np.abs(_ordered64(got) - _ordered64(exact))
    assert ulps.max() <= 1, (ulps.max(), y[np.argmax(ulps)], x[np.argmax(ulps)])


@pytest.mark.parametrize("name", sorted(NUMPY64))
def test_float64_bits_do_not_depend_on_place_or_layout(name):
    x = _arguments64(name)[:4099]
    whole = getattr(ra, name)(ra.asarray(x, device="cpu")).get()
    for part, view in ((slice(None, None, 3), ra.asarray(x, device="cpu")[::3]),
                       (slice(None, None, -1), ra.asarray(x, device="cpu")[::-1]),
                       (slice(5, 12), ra.asarray(x[5:12], device="cpu"))):
        got = getattr(ra, name)(view).get()
        assert np.array_equal(got, whole[part], equal_nan=True), name


def test_float64_constants():
    """ln 2, 1/ln 2, 1/ln 10, log10(2), pi and atan's bases as (hi, lo) pairs against
    mpmath; the heads multiplied by the exponents the reductions meet are exact."""
    mpmath = pytest.importorskip("mpmath")
    pairs = [(hostmath.LN2_HI, hostmath.LN2_LO, lambda: mpmath.log(2), -100),
             (*hostmath.LOG_SCALE[2], lambda: 1 / mpmath.log(2), -104),
             (*hostmath.LOG_SCALE[10], lambda: 1 / mpmath.log(10), -104),
             (*hostmath.LOG10_2_HL, lambda: mpmath.log10(2), -100),
             (*hostmath.PI_HL, lambda: mpmath.pi, -104)]
    bases = [lambda: 0, lambda: mpmath.atan(0.5), lambda: mpmath.pi / 4, lambda: mpmath.atan(1.5), lambda: mpmath.pi / 2]
    pairs += [(hi, lo, exact, -104) for (hi, lo), exact in zip(hostmath.ATAN_BASES, bases)]
    with mpmath.workprec(300):
        for hi, lo, exact, bits in pairs:
            assert abs(mpmath.mpf(hi) + lo - exact()) < 2.0 ** bits, (hi, lo)
        for (hi, _), exact in zip(hostmath.ATAN_BASES, bases):
            assert hi == float(exact())
    for head in (hostmath.LN2_HI, hostmath.LOG10_2_HL[0]):
        assert (head * 2 ** 42).is_integer()  # (at most 42 bits: k * head exact for |k| < 2^11)
        for k in (1, 3, 1023, 1100, 2100):
            assert mpmath.mpf(k) * head == k * head
