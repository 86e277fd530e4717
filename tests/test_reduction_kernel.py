"""rocarray.ReductionKernel and fused reductions, compared with NumPy on every device."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import _reduction, cache
from rocarray.compiler.cache import drain_background
from rocarray.compiler.lang import KernelNameError, KernelSyntaxError
from conftest import random_array

pytestmark = pytest.mark.skipif(
    not hasattr(_reduction, "ReductionDef"),
    reason="needs the generic reduction engine (rocarray._reduction.ReductionDef / reduce)")

FLOATS = [ra.float32, ra.float64]
REAL = [ra.int8, ra.int16, ra.int32, ra.int64, ra.uint8, ra.uint16, ra.uint32, ra.uint64,
        ra.float16, ra.float32, ra.float64]


def _compiles():
    drain_background()  # (a first call the interpreter ran compiles in the background)
    i = cache.info()
    return i["compiled"] + i["disk_hits"]


def _l2norm():
    return ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")


def test_l2norm_doc_example(device):
    x = ra.reshape(ra.arange(10, dtype=ra.float32, device=device), (2, 5))
    got = _l2norm()(x, axis=1)
    np.testing.assert_allclose(got.get(), [5.477226, 15.9687195], rtol=1e-6)
    assert got.dtype == ra.float32


@pytest.mark.parametrize("dtype", FLOATS + [ra.complex64, ra.complex128], ids=str)
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ((0, 2), False),
                                            (-1, True)])
def test_l2norm_axes(device, dtype, axis, keepdims):
    k = ra.ReductionKernel("T x", "R y", "norm(x)", "a + b", "y = sqrt(a)", "0", "l2norm_c") \
        if np.dtype(dtype).kind == "c" else _l2norm()
    a = random_array((6, 7, 5), dtype, np.random.default_rng(1), low=-3, high=3)
    x = ra.asarray(a, device=device)
    if np.dtype(dtype).kind == "c":
        rdt = np.finfo(dtype).dtype
        out_shape = np.sqrt((np.abs(a) ** 2).sum(axis=axis, keepdims=keepdims)).shape
        y = ra.empty(out_shape, dtype=rdt, device=device)
        got = k(x, y, axis=axis, keepdims=keepdims)
        want = np.sqrt((np.abs(a) ** 2).sum(axis=axis, keepdims=keepdims))
    else:
        got = k(x, axis=axis, keepdims=keepdims)
        want = np.sqrt((a.astype(np.float64) ** 2).sum(axis=axis, keepdims=keepdims))
    rtol = 1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(got.get(), want, rtol=rtol)


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_sum_of_products_over_dtypes(device, dtype):
    # two inputs broadcast together, a fixed wide reduce type, a scalar parameter
    k = ra.ReductionKernel("T x, T y, float64 w", "float64 s", "(double)x * (double)y * w", "a + b",
                           "s = a", "0", "dot_w", reduce_type="float64")
    rng = np.random.default_rng(2)
    a = random_array((4, 30), dtype, rng, low=-10, high=10)
    b = random_array((30,), dtype, rng, low=-10, high=10)
    got = k(ra.asarray(a, device=device), ra.asarray(b, device=device), 0.5, axis=1)
    want = (a.astype(np.float64) * b.astype(np.float64) * 0.5).sum(axis=1)
    np.testing.assert_allclose(got.get(), want, rtol=1e-12)


@pytest.mark.parametrize("dtype", [ra.int32, ra.uint8, ra.float32, ra.float64], ids=str)
def test_max_abs_with_identity_and_reduce_type(device, dtype):
    k = ra.ReductionKernel("T x", "T m", "x < 0 ? -x : x", "a > b ? a : b", "m = a", "0", "max_abs")
    a = random_array((9, 11), dtype, np.random.default_rng(3), low=-50, high=50)
    got = k(ra.asarray(a, device=device), axis=0)
    want = np.abs(a.astype(np.float64)).max(axis=0).astype(dtype)
    np.testing.assert_array_equal(got.get(), want)


def test_out_and_placeholder_from_output(device):
    k = ra.ReductionKernel("T x", "U y", "x", "a + b", "y = a", "0", "sum_into", reduce_type="U")
    x = ra.asarray(np.arange(12, dtype=np.int8).reshape(3, 4) * 20, device=device)
    y = ra.empty(3, dtype=ra.int64, device=device)
    r = k(x, out=y, axis=1)
    assert r is y
    np.testing.assert_array_equal(y.get(), (np.arange(12).reshape(3, 4) * 20).astype(np.int8).astype(np.int64).sum(axis=1))
    with pytest.raises(TypeError, match="placeholder 'U' of output 'y' cannot be determined"):
        k(x, axis=1)


def test_new_shape_and_axis_compile_nothing_new_dtype_one(device):
    k = ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm_thin")
    rng = np.random.default_rng(4)
    x = ra.asarray(random_array((8, 9), np.float32, rng), device=device)
    k(x, axis=1)
    x64 = x.astype(ra.float64)
    before = _compiles()
    k(x, axis=0)
    k(x.T, axis=None)
    k(ra.asarray(random_array((3, 4, 5), np.float32, rng), device=device), axis=(0, 2), keepdims=True)
    assert _compiles() == before
    k(x64, axis=1)
    assert _compiles() == before + 1


def test_reduction_kernel_errors(device):
    x = ra.ones((2, 3), dtype=ra.float32, device=device)
    with pytest.raises(TypeError, match=r"reduction kernel 'l2norm' takes 1 input argument\(s\) or 2"):
        _l2norm()(x, x, x)
    with pytest.raises(KernelSyntaxError) as ei:
        ra.ReductionKernel("T x", "T y", "x *+* x", "a + b", "y = a", "0", "bad")
    assert ei.value.where == "map_expr" and (ei.value.line, ei.value.column) == (1, 5)
    assert "map_expr line 1, column 5" in str(ei.value) and "x *+* x" in str(ei.value)
    with pytest.raises(TypeError, match="raw parameter 'x' is not supported"):
        ra.ReductionKernel("raw T x", "T y", "x[i]", "a + b", "y = a", "0", "raw_red")
    k = ra.ReductionKernel("T x", "T y", "x * nope", "a + b", "y = a", "0", "unknown")
    with pytest.raises(KernelNameError, match="unknown identifier 'nope'") as ei:
        k(x)
    assert ei.value.where == "map_expr" and ei.value.column == 5
    with pytest.raises(TypeError, match="placeholder 'T' is bound to both"):
        ra.ReductionKernel("T x, T z", "T y", "x * z", "a + b", "y = a", "0", "two")(x, x.astype(ra.float64))


# -- fused reductions ------------------------------------------------------------------------------

@ra.fuse
def _sumsq(x, y):
    return ((x - y) * (x - y)).sum()


@pytest.mark.parametrize("dtype", REAL + [ra.complex64], ids=str)
def test_fused_sum_equals_unfused(device, dtype):
    rng = np.random.default_rng(5)
    a, b = (random_array((13, 21), dtype, rng, low=-5, high=5) for _ in range(2))
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    got = _sumsq(x, y)
    want = ra.sum((x - y) * (x - y))
    assert got.dtype == want.dtype
    # the unfused reduction's own definition with a fused map: exact for integers; float sums
    # agree to rounding (the engine's summation order follows its strategy, which depends on
    # the layout and on each kernel's compile tier)
    if np.dtype(dtype).kind in "biu":
        np.testing.assert_array_equal(got.get(), want.get())
    else:
        rtol = {ra.float16: 1e-3, ra.float32: 1e-6, ra.complex64: 1e-6}.get(dtype, 1e-13)
        np.testing.assert_allclose(got.get(), want.get(), rtol=rtol)
    if np.dtype(dtype).kind != "c":
        w = (a - b) * (a - b)  # NumPy's own wrapping / rounding per dtype, then its sum
        np.testing.assert_allclose(got.get().astype(np.float64), w.astype(np.float64).sum(),
                                   rtol=2e-3 if dtype == ra.float16 else 1e-5)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", [ra.int16, ra.uint32, ra.float32, ra.float64], ids=str)
def test_fused_reductions_with_axis(device, op, dtype):
    @ra.fuse(kernel_name=f"fused_{op}")
    def f(x, s):
        return getattr(ra.exp(x * s) if np.dtype(dtype).kind == "f" else x * 2 + s, op)(axis=1, keepdims=True)
    a = random_array((5, 6, 4), dtype, np.random.default_rng(6), low=-3, high=3)
    x = ra.asarray(a, device=device)
    got = f(x, 1 if np.dtype(dtype).kind != "f" else 0.5)
    inner = ra.exp(x * 0.5) if np.dtype(dtype).kind == "f" else x * 2 + 1
    want = getattr(ra, op)(inner, axis=1, keepdims=True)
    assert got.dtype == want.dtype and got.shape == want.shape
    if op in ("max", "min") or np.dtype(dtype).kind != "f":
        np.testing.assert_array_equal(got.get(), want.get())
    else:
        np.testing.assert_allclose(got.get(), want.get(), rtol=1e-6 if dtype == ra.float32 else 1e-13)


def test_namespace_reduction_and_nan(device):
    @ra.fuse
    def f(x):
        return ra.max(x * 2)
    a = np.array([1.0, np.nan, 3.0])
    assert np.isnan(f(ra.asarray(a, device=device)).get())

    @ra.fuse
    def g(x):
        return ra.min(x + 1, axis=0)
    with pytest.raises(ValueError, match="zero-size reduction"):
        g(ra.empty((0, 3), dtype=ra.float32, device=device))


def test_fused_reduction_one_kernel_and_only_last(device):
    x = ra.asarray(random_array((20, 30), np.float32, np.random.default_rng(7)), device=device)
    _sumsq(x, x[::-1])
    before = _compiles()
    _sumsq(x.T, x.T)
    _sumsq(x[:5], x[0])
    assert _compiles() == before

    @ra.fuse
    def after(x):
        return x.sum() * 2
    with pytest.raises(TypeError, match="only a final reduction is fused"):
        after(x)
