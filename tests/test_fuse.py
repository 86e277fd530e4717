"""rocarray.fuse: one kernel per dtype signature, results equal to the unfused calls."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import cache
from rocarray.compiler.cache import drain_background
from rocarray._fusion import FuseError
from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array


def _compiles():
    drain_background()  # (a first call the interpreter ran compiles in the background)
    i = cache.info()
    return i["compiled"] + i["disk_hits"]


@ra.fuse
def fma_like(x, y, z):
    return x * y + z


@ra.fuse(kernel_name="squash")
def squash(x, a):
    return ra.where(x > 0, ra.exp(-x) * a, ra.maximum(x, 1 - a))


def _same(got, want):
    """Bit for bit on the host.  On a GPU an op's own body may contract a multiply with its
    add (``lower.py``: within an expression), as the same op unfused does: within a few ulps
    of the host's NumPy-like rounding."""
    assert got.dtype == want.dtype
    g, w = got.get(), want.get()
    if got.device.kind == "cpu" or got.dtype.kind not in "fc":
        np.testing.assert_array_equal(g, w)
        return
    eps = float(np.finfo(got.dtype).eps)
    scale = np.max(np.abs(w)) if w.size else 0.0
    np.testing.assert_allclose(g, w, rtol=4 * eps, atol=4 * eps * scale)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fused_multiply_add_equals_unfused(device, dtype):
    rng = np.random.default_rng(7)
    a, b, c = (random_array((33, 5), dtype, rng) for _ in range(3))
    x, y, z = (ra.asarray(v, device=device) for v in (a, b, c))
    got = fma_like(x, y, z)
    _same(got, x * y + z)  # every intermediate is rounded as the unfused op does
    if dtype != ra.bool:
        want = a * b + c
        if np.dtype(dtype).kind in "fc":
            np.testing.assert_allclose(got.get(), want, rtol=2e-3 if dtype == ra.float16 else 1e-6)
        else:
            np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtypes", [("int8", "float32", "uint16"), ("float16", "float64", "int32"),
                                    ("complex64", "float32", "bool"), ("uint8", "int8", "int64")])
def test_mixed_dtypes_promote_as_unfused(device, dtypes):
    rng = np.random.default_rng(8)
    x, y, z = (ra.asarray(random_array((17,), d, rng), device=device) for d in dtypes)
    _same(fma_like(x, y, z), x * y + z)


@pytest.mark.parametrize("dtype", [ra.float16, ra.float32, ra.float64], ids=str)
def test_functions_scalars_and_where(device, dtype):
    x = ra.asarray(random_array((4, 50), dtype, np.random.default_rng(9), low=-3, high=3), device=device)
    for a in (0.5, 2, True):
        got = squash(x, a)
        _same(got, ra.where(x > 0, ra.exp(-x) * a, ra.maximum(x, 1 - a)))


def test_scalar_arithmetic_runs_in_python(device):
    @ra.fuse
    def f(x, a, b):
        return x * (a * b - 1) + a ** 2
    x = ra.asarray(np.arange(5, dtype=np.float32), device=device)
    _same(f(x, 3, 0.5), x * (3 * 0.5 - 1) + 3 ** 2)
    _same(f(x, 2, 4), x * (2 * 4 - 1) + 2 ** 2)


def test_broadcasting_views_and_multiple_outputs(device):
    @ra.fuse
    def polar(re, im):
        return ra.sqrt(re * re + im * im), ra.atan2(im, re)
    rng = np.random.default_rng(10)
    a = random_array((6, 1, 4), np.float64, rng)
    b = random_array((5, 4), np.float64, rng)
    re, im = ra.asarray(a, device=device), ra.asarray(b, device=device)[::-1]
    r, t = polar(re, im)
    _same(r, ra.sqrt(re * re + im * im))
    _same(t, ra.atan2(im, re))
    np.testing.assert_allclose(r.get(), np.hypot(a, b[::-1]), rtol=1e-12)


def test_casts_comparisons_and_integer_ops(device):
    @ra.fuse
    def f(x, y):
        m = (x & 7) << 1
        return ((m - y) // 3).astype(ra.float32) / 2, (x >= y) | (x == 3), -abs(y) % 5
    rng = np.random.default_rng(11)
    a, b = random_array((40,), np.int16, rng), random_array((40,), np.int32, rng)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    got = f(x, y)
    m = (x & 7) << 1
    want = (((m - y) // 3).astype(ra.float32) / 2, (x >= y) | (x == 3), -abs(y) % 5)
    for g, w in zip(got, want):
        _same(g, w)


@pytest.mark.parametrize("dtype", [ra.float32, ra.int16, ra.complex64], ids=str)
def test_warm_calls_take_the_direct_path_only_where_it_applies(device, dtype):
    """After the first call, contiguous arrays of one shape go straight to the kernel's
    runner; views, broadcasting, scalars and new dtypes still take the general path --
    every call gives NumPy's result."""
    @ra.fuse
    def f(x, y, z):
        return x * y + z

    rng = np.random.default_rng(13)
    a, b, c = (random_array((6, 50), dtype, rng, low=-9, high=9) for _ in range(3))
    x, y, z = (ra.asarray(v, device=device) for v in (a, b, c))
    for _ in range(3):
        _same(f(x, y, z), x * y + z)
    assert (x.dtype, y.dtype, z.dtype, device) in f._direct
    _same(f(x, y, z), ra.asarray(a * b + c, device=device))
    # a transposed view, a strided view, a broadcast row, a scalar, another dtype, empty
    _same(f(x.T, y.T, z.T), x.T * y.T + z.T)
    _same(f(x[:, ::2], y[:, ::2], z[:, ::2]), x[:, ::2] * y[:, ::2] + z[:, ::2])
    _same(f(x, y[0], z), x * y[0] + z)
    _same(f(x, y, 2), x * y + 2)
    w = x.astype(ra.complex128 if x.dtype == ra.complex64 else ra.float64)
    _same(f(w, y, z), w * y + z)
    e = ra.asarray(np.zeros((0, 3), dtype), device=device)
    assert f(e, e, e).shape == (0, 3)
    with pytest.raises(TypeError, match="keyword"):
        f(x, y, z=z)


def test_one_kernel_per_signature(device):
    @ra.fuse
    def f(x, y, s):
        return ra.exp(x * y + s) - ra.sin(y) * x
    rng = np.random.default_rng(12)
    x = ra.asarray(random_array((8, 8), np.float32, rng), device=device)
    before = _compiles()
    f(x, x, 1.0)
    assert _compiles() == before + 1  # five ops, one kernel
    y = ra.asarray(random_array((3, 7, 2), np.float32, rng), device=device)
    f(y, y[0], 2.0)
    f(x.T, x[::-1], -1.5)
    f(x, x, 3)  # an int scalar: a new scalar type, the same dtypes after promotion
    x64 = x.astype(ra.float64)
    n = _compiles()
    assert n <= before + 3  # + the int-scalar signature, + the astype copy kernel
    f(x64, x64, 1.0)
    assert _compiles() == n + 1


def test_numpy_arguments_run_unfused():
    # CuPy's rule: without a rocarray array the function runs as plain Python / NumPy
    a = np.arange(4.0)
    got = fma_like(a, a, 1.0)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, a * a + 1)
    with pytest.raises(TypeError, match="NumPy arrays cannot be mixed with rocarray arrays"):
        fma_like(ra.asarray(a, device="cpu"), a, 1.0)


def test_unsupported_constructs_are_named(device):
    x = ra.ones(4, dtype=ra.float32, device=device)

    @ra.fuse
    def branch(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(FuseError, match="truth value of a traced value is not known.*use rocarray.where"):
        branch(x)

    @ra.fuse
    def index(x):
        return x[1:] + 1
    with pytest.raises(TypeError, match=r"indexing \(x\[...\]\) is not supported in a fused function"):
        index(x)

    @ra.fuse
    def method(x):
        return x.reshape(2, 2)
    with pytest.raises(TypeError, match="the attribute or method 'reshape' is not supported"):
        method(x)

    @ra.fuse
    def returns_scalar(x, a):
        return a * 2
    with pytest.raises(TypeError, match="returned a Python scalar"):
        returns_scalar(x, 1.0)

    g = ra.ones(4, dtype=ra.float32, device=device)

    @ra.fuse
    def closure(x):
        return x + g
    with pytest.raises(TypeError, match="not an argument of the fused function"):
        closure(x)

    with pytest.raises(TypeError, match="keyword arguments are not supported"):
        fma_like(x, y=x, z=x)


def test_dtype_errors_are_the_unfused_ones(device):
    @ra.fuse
    def f(x):
        return x & 1
    with pytest.raises(TypeError, match="bitwise_and"):
        f(ra.ones(3, dtype=ra.float32, device=device))


def _gpu_targets():
    from rocarray.targets.amdgpu import find_device_libs, find_lld
    from rocarray.targets.nvptx import find_libdevice

    return [
        pytest.param("sm_90", marks=pytest.mark.skipif(
            find_libdevice() is None, reason="libdevice.10.bc not found: install the CUDA toolkit "
            "(set CUDA_HOME) or pip install nvidia-nvvm")),
        pytest.param("gfx942", marks=pytest.mark.skipif(
            find_lld() is None or find_device_libs() is None,
            reason="ld.lld >= 17 and ROCm device-libs are needed to build AMDGPU code objects")),
    ]


@pytest.mark.parametrize("target_name", _gpu_targets())
def test_fused_kernel_compiles_for_gpu_targets(target_name):
    """Compile-only (no GPU needed): the op boundaries become llvm.arithmetic.fence on GPUs."""
    from rocarray.targets import target_for

    @ra.fuse
    def f(x, y, z):
        return ra.exp(x * y + z), x.astype(ra.complex64) * 2j
    f(*(ra.ones(4, dtype=ra.float16, device="cpu") for _ in range(3)))
    plan = next(iter(f._plans.values()))
    spec = next(iter(plan.kernel._plans.values())).kernel.spec
    t = target_for(target_name)
    module = spec.build_module(t)
    assert "llvm.arithmetic.fence" in str(module)
    assert len(t.compile(module)) > 0
