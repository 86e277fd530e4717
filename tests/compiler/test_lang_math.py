"""Real math functions of the kernel language against NumPy, per argument type."""

import math
import warnings

import numpy as np
import pytest

try:  # tests/compiler may or may not be a package
    from ._lang_target import elementwise
except ImportError:
    from _lang_target import elementwise

N = 64
rng = np.random.default_rng(1234)

DOMAIN = {
    "sqrt": (0, 100), "log": (1e-3, 100), "log2": (1e-3, 100), "log10": (1e-3, 100),
    "log1p": (-0.9, 100), "asin": (-1, 1), "acos": (-1, 1), "atanh": (-0.99, 0.99),
    "acosh": (1, 50), "exp": (-20, 20), "exp2": (-20, 20), "expm1": (-5, 5),
    "sinh": (-10, 10), "cosh": (-10, 10), "lgamma": (0.1, 20), "tgamma": (0.1, 10),
}
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
         "acosh": np.arccosh, "atanh": np.arctanh, "fabs": np.fabs,
         "erf": np.vectorize(math.erf), "erfc": np.vectorize(math.erfc),
         "lgamma": np.vectorize(math.lgamma), "tgamma": np.vectorize(math.gamma),
         "nearbyint": np.rint}
UNARY = ["sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt",
         "floor", "ceil", "trunc", "rint", "nearbyint", "fabs", "erf", "erfc", "lgamma",
         "tgamma"]
RTOL = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}


def sample(name, dtype, n=N):
    lo, hi = DOMAIN.get(name, (-6, 6))
    x = rng.uniform(lo, hi, n)
    if np.dtype(dtype).kind in "iu":
        x = np.round(x)
        if name in ("log", "log2", "log10", "acosh", "lgamma", "tgamma"):
            x = np.maximum(x, 1)
        if name in ("asin", "acos", "atanh"):
            x = np.clip(x, 0, 0)
    return x.astype(dtype)


def reference(name, x, compute):
    f = NUMPY.get(name) or getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(f(x.astype(compute))).astype(compute)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int32])
def test_unary(name, dt):
    x = sample(name, dt)
    out_dt = np.float64 if np.dtype(dt).kind in "iu" else dt
    compute = np.float32 if dt == np.float16 else out_dt
    got = elementwise(f"out0 = {name}(in0)", [x], [out_dt])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = reference(name, x, compute).astype(out_dt)
    # lgamma has zeros at 1 and 2, where only an absolute bound makes sense
    atol = RTOL[out_dt] * (1 if name == "lgamma" else 1e-3)
    np.testing.assert_allclose(got, want, rtol=RTOL[out_dt], atol=atol)
    if out_dt == np.float16:
        # computed in float, rounded once to half
        assert got.dtype == np.float16


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sin", "atan", "tanh", "floor", "fabs",
                                  "cbrt", "erf"])
def test_f_suffix_computes_in_float(name):
    x = sample(name, np.float64)
    got = elementwise(f"out0 = {name}f(in0)", [x], [np.float64])
    want = reference(name, x.astype(np.float32), np.float32)
    np.testing.assert_allclose(got, want.astype(np.float64), rtol=2e-6, atol=1e-9)
    assert np.all(got == got.astype(np.float32))   # a float result


def test_round_is_half_away_from_zero():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 2.4, -2.6, 1e300,
                  np.inf, np.nan, -0.0], np.float64)
    got = elementwise("out0 = round(in0); out1 = rint(in0)", [x], [np.float64, np.float64])
    np.testing.assert_array_equal(got[0], [1, 2, 3, -1, -2, -3, 0, 2, -3, 1e300, np.inf,
                                           np.nan, -0.0])
    np.testing.assert_array_equal(got[1], np.rint(x))
    assert np.signbit(got[0][-1])
    x32 = x[:9].astype(np.float32)
    got = elementwise("out0 = round(in0)", [x32], [np.float32])
    assert got[1] == 2 and got[2] == 3 and got[4] == -2


BINARY = {"atan2": np.arctan2, "hypot": np.hypot, "pow": np.power, "fmod": np.fmod,
          "copysign": np.copysign, "nextafter": np.nextafter, "fmin": np.fmin,
          "fmax": np.fmax}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_binary(name, dt):
    x = rng.uniform(0.1, 4, N).astype(dt) * np.where(rng.random(N) < 0.5, -1, 1).astype(dt)
    y = rng.uniform(-3, 3, N).astype(dt)
    if name == "pow":
        x = np.abs(x)
    x[::9] = np.nan
    compute = np.float32 if dt == np.float16 else dt
    got = elementwise(f"out0 = {name}(in0, in1)", [x, y], [dt])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = BINARY[name](x.astype(compute), y.astype(compute)).astype(dt)
    np.testing.assert_allclose(got, want, rtol=RTOL[dt], atol=0)


def test_binary_argument_types():
    x = np.array([2.0, 3.0], np.float32)
    k = np.array([3, 2], np.int32)
    # pow(float, int) stays float (as CUDA's overload); pow(int, int) is double
    got = elementwise("out0 = pow(in0, in1); out1 = pow(in1, in1); out2 = pow(in0, 0.5)",
                      [x, k], [np.float64] * 3)
    np.testing.assert_array_equal(got[0], [8.0, 9.0])
    np.testing.assert_array_equal(got[1], [27.0, 4.0])
    np.testing.assert_allclose(got[2], np.sqrt(x.astype(np.float64)), rtol=1e-15)
    got = elementwise("out0 = fma(in0, in1, 1); out1 = fmaf(in0, in0, in0);"
                      " out2 = fdim(in0, in1); out3 = rsqrt(in0 * 2)",
                      [x, k], [np.float64] * 4)
    np.testing.assert_array_equal(got[0], [7.0, 7.0])
    np.testing.assert_array_equal(got[1], [6.0, 12.0])
    np.testing.assert_array_equal(got[2], [0.0, 1.0])
    np.testing.assert_allclose(got[3], [0.5, 1 / np.sqrt(6)], rtol=1e-7)


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.float16,
                                np.float32, np.float64])
def test_min_max_abs(dt):
    info = np.iinfo(dt) if np.dtype(dt).kind in "iu" else None
    if info is not None:
        a = rng.integers(info.min, info.max, N, dtype=dt, endpoint=True)
        b = rng.integers(info.min, info.max, N, dtype=dt, endpoint=True)
        if np.dtype(dt).kind == "i":
            a[0] = info.min
    else:
        a = rng.normal(size=N).astype(dt)
        b = rng.normal(size=N).astype(dt)
    ct = np.int32 if np.dtype(dt).itemsize < 4 and np.dtype(dt).kind in "iu" else \
        (np.float32 if dt == np.float16 else dt)
    got = elementwise("out0 = min(in0, in1); out1 = max(in0, in1); out2 = abs(in0)",
                      [a, b], [ct, ct, ct if dt != np.float16 else np.float16])
    np.testing.assert_array_equal(got[0], np.minimum(a, b).astype(ct))
    np.testing.assert_array_equal(got[1], np.maximum(a, b).astype(ct))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(got[2], np.abs(a.astype(ct)).astype(got[2].dtype))


def test_min_max_nan_follow_std():
    a = np.array([np.nan, 1.0, np.nan, -0.0], np.float64)
    b = np.array([1.0, np.nan, np.nan, 0.0], np.float64)
    got = elementwise("out0 = min(in0, in1); out1 = max(in0, in1); out2 = fmin(in0, in1);"
                      " out3 = fmax(in0, in1)", [a, b], [np.float64] * 4)
    # std::min(a, b) = b < a ? b : a
    np.testing.assert_array_equal(got[0], [np.nan, 1.0, np.nan, -0.0])
    np.testing.assert_array_equal(got[1], [np.nan, 1.0, np.nan, -0.0])
    np.testing.assert_array_equal(got[2], [1.0, 1.0, np.nan, got[2][3]])
    np.testing.assert_array_equal(got[3], [1.0, 1.0, np.nan, got[3][3]])


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int32, np.uint8,
                                np.complex64, np.complex128])
def test_classification(dt):
    special = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan]
    if np.dtype(dt).kind == "c":
        x = np.array([complex(a, b) for a in special for b in special], dtype=dt)
    elif np.dtype(dt).kind == "f":
        x = np.array(special, dtype=dt)
    else:
        x = np.array([0, 1, 7, 100], dtype=dt)
    body = "out0 = isnan(in0); out1 = isinf(in0); out2 = isfinite(in0)"
    if np.dtype(dt).kind != "c":
        body += "; out3 = signbit(in0)"
    outs = elementwise(body, [x], [bool] * (3 if np.dtype(dt).kind == "c" else 4))
    np.testing.assert_array_equal(outs[0], np.isnan(x))
    np.testing.assert_array_equal(outs[1], np.isinf(x))
    np.testing.assert_array_equal(outs[2], np.isfinite(x))
    if np.dtype(dt).kind != "c":
        np.testing.assert_array_equal(outs[3], np.signbit(x))


def test_std_and_thrust_prefixes():
    x = np.array([4.0, 9.0])
    got = elementwise("out0 = std::sqrt(in0) + ::sqrt(in0) + thrust::abs(-in0)", [x],
                      [np.float64])
    np.testing.assert_array_equal(got, [8.0, 15.0])


def test_cuda_intrinsics():
    x = np.array([2.5, -1.5, 0.7, 3.49], np.float32)
    outs = elementwise("out0 = __float2int_rn(in0); out1 = __float2int_rz(in0);"
                       " out2 = __float2int_rd(in0); out3 = __float2int_ru(in0);"
                       " out4 = __fdividef(in0, 2) + __fmul_rn(in0, in0) - __fadd_rn(in0, 1);"
                       " out5 = __saturatef(in0); out6 = __float_as_int(in0);"
                       " out7 = __int_as_float(__float_as_int(in0)); out8 = __half2float("
                       "__float2half(in0)); out9 = __expf(in0) + __frcp_rn(in0)",
                       [x], [np.int32] * 4 + [np.float32, np.float32, np.int32] +
                       [np.float32] * 3)
    np.testing.assert_array_equal(outs[0], np.rint(x))
    np.testing.assert_array_equal(outs[1], np.trunc(x))
    np.testing.assert_array_equal(outs[2], np.floor(x))
    np.testing.assert_array_equal(outs[3], np.ceil(x))
    np.testing.assert_allclose(outs[4], x / 2 + x * x - (x + 1), rtol=1e-6)
    np.testing.assert_array_equal(outs[5], np.clip(x, 0, 1))
    np.testing.assert_array_equal(outs[6], x.view(np.int32))
    np.testing.assert_array_equal(outs[7], x)
    np.testing.assert_array_equal(outs[8], x.astype(np.float16).astype(np.float32))
    np.testing.assert_allclose(outs[9], np.exp(x) + 1 / x, rtol=1e-6)


def test_mulhi_intrinsics():
    """The high half of the full product, against Python's unbounded integers."""
    rng = np.random.default_rng(7)
    u32 = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    v32 = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    u64 = rng.integers(0, 2**64, 64, dtype=np.uint64)
    v64 = rng.integers(0, 2**64, 64, dtype=np.uint64)
    u32[:2], u64[:2] = 2**32 - 1, 2**64 - 1
    v32[:2], v64[:2] = 2**32 - 1, 2**64 - 1
    outs = elementwise("out0 = __umulhi(in0, in1); out1 = __mulhi((int)in0, (int)in1);"
                       " out2 = __umul64hi(in2, in3); out3 = __mul64hi((long long)in2, (long long)in3)",
                       [u32, v32, u64, v64], [np.uint32, np.int32, np.uint64, np.int64])
    s32, t32 = u32.view(np.int32), v32.view(np.int32)
    s64, t64 = u64.view(np.int64), v64.view(np.int64)
    np.testing.assert_array_equal(outs[0], [(int(a) * int(b)) >> 32 for a, b in zip(u32, v32)])
    np.testing.assert_array_equal(outs[1], [(int(a) * int(b)) >> 32 for a, b in zip(s32, t32)])
    np.testing.assert_array_equal(outs[2], [(int(a) * int(b)) >> 64 for a, b in zip(u64, v64)])
    np.testing.assert_array_equal(outs[3], [(int(a) * int(b)) >> 64 for a, b in zip(s64, t64)])
