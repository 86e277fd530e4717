"""The host's float32 transcendental functions (rocarray/targets/hostmath.py).

They compute in float64 and round once, so each result is compared with NumPy's float64
function rounded to float32 (the correctly rounded result but for arguments next to a
rounding boundary): at most one ulp apart, and apart at all for a handful of arguments in a
million.  The arguments: random bit patterns over every float32 exponent, the ranges where
each function loses accuracy most easily (near 1, tiny, near the overflow thresholds,
next to multiples of pi/2 up to 10^38), and
the special values, whose results (NaN, infinities, the sign of zero) must be NumPy's
exactly.  A result must not depend on the element's place (vector body or scalar
remainder), the layout or float16.  These functions serve the host only (the tests run
on the CPU device wherever they run): GPU targets call their vendor's device library;
float64 calls the C library.
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
         "asin": np.arcsin, "acos": np.arccos}

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


def _loop_module(name: str) -> str:
    """``y[i] = name(x[i])`` (``name(x[i], x[i])`` for a binary one) for i < n, as a plain
    counted loop over float32."""
    module = ir.Module()
    f32, i64 = ir.FloatType(), ir.IntType(64)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.PointerType(), ir.PointerType(), i64]), "k")
    entry, loop, done = (fn.append_basic_block(s) for s in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed(">", fn.args[2], ir.Constant(i64, 0)), loop, done)
    b.position_at_end(loop)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    v = b.load(b.gep(fn.args[0], [i], source_etype=f32), typ=f32)
    args = [v, v] if name in hostmath.BINARY else [v]
    b.store(b.call(hostmath.float32_function(module, name), args), b.gep(fn.args[1], [i], source_etype=f32))
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


def test_every_function_is_served_and_float64_stays_with_the_c_library():
    target = HostTarget()
    module = ir.Module()
    assert hostmath.FUNCTIONS == set(NUMPY) | set(BINARY) and hostmath.BINARY == set(BINARY)
    for name in hostmath.FUNCTIONS:
        fn = target.math_function(module, name, ir.FloatType())
        assert fn.name == f"rocarray.host.{name}.f32" and not fn.is_declaration
        assert target.math_function(module, name, ir.FloatType()) is fn  # one definition per module
        assert target.math_function(module, name, ir.DoubleType()).is_declaration  # float64: libm
        assert len(fn.args) == (2 if name in BINARY else 1)
    for name in ("cbrt", "erf", "lgamma"):
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
