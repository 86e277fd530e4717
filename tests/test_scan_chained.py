"""The single-pass GPU scan (compiler/reduction_chain.py): compile-only checks for sm_90,
gfx90a, gfx942 and gfx1100 on any machine; against NumPy on a GPU (every real and integer
dtype, sums, products, maxima, minima and logical scans, whole and partial tiles, many
tiles, the identity in front, views off the 16-byte grid, NaN)."""

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray import _dtypes, _reduction
from rocarray import _statistical_functions as stats
from rocarray.compiler.cache import drain_background
from rocarray.compiler.reduction_chain import CHAIN_PARAMS, chain_tile
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.targets.codeobject import check_code_object
from conftest import ALL_DTYPES, gpu_devices, random_array

NEEDS_GPU = "needs a GPU (NVIDIA CUDA or AMD HIP)"
requires_gpu = pytest.mark.skipif(not gpu_devices("cuda") and not gpu_devices("hip"), reason=NEEDS_GPU)
REAL = [d for d in ALL_DTYPES if np.dtype(d).kind != "c"]


def _module(target, dtype, out=None, op=stats.sum):
    acc, out_dt = op.dtypes(dtype, out)
    key, make = op.definition(dtype, acc, out_dt).chain_module()
    _, build, packer, entries = make()
    assert packer.size == 8 * (1 + len(CHAIN_PARAMS)) and entries == ("_z",)
    module = ir.Module("chain")
    module.triple = target.triple
    module.data_layout = target.data_layout
    build(module, target, "rk_chain")
    return module


@pytest.mark.parametrize("dtype, out", [(_dtypes.float32, None), (_dtypes.float64, None), (_dtypes.int32, None),
                                        (_dtypes.bool, None), (_dtypes.float16, None), (_dtypes.uint8, None),
                                        (_dtypes.int64, _dtypes.int8)], ids=str)
def test_nvptx_single_pass(dtype, out):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, dtype, out))
    assert ".entry rk_chain(" in ptx and ".entry rk_chain_z(" in ptx and "ld.local" not in ptx
    # the status: relaxed 64-bit words, no fences; the stage: 16-byte shared accesses
    assert "st.relaxed" in ptx and "ld.relaxed" in ptx and "fence" not in ptx and "membar" not in ptx
    assert "ld.shared.v4" in ptx and "st.shared.v4" in ptx and "vote.sync.ballot.b32" in ptx
    assert isinstance(target.compile(_module(target, dtype, out)), bytes)


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_amdgpu_code_objects(arch):
    target = AMDGPUTarget(arch)
    for dtype, out, op in ((_dtypes.float32, None, stats.sum), (_dtypes.float64, None, stats.prod),
                           (_dtypes.int8, None, stats.sum), (_dtypes.float16, None, stats.sum)):
        hsaco = target.compile(_module(target, dtype, out, op))
        assert check_code_object(hsaco, arch, ["rk_chain", "rk_chain_z"]) == []


def test_errors():
    with pytest.raises(ValueError, match="needs a GPU target"):
        _module(target_for("host"), _dtypes.float32)
    with pytest.raises(ValueError, match="needs a GPU target and a vector path"):
        _module(target_for("sm_90"), _dtypes.complex64)
    # a tile is 32 KiB of the wider of input and output, 16 KiB of float16
    assert chain_tile(4) * 4 == 32768 and chain_tile(2) * 8 == 32768 and chain_tile(4) * 2 == 16384


def _gpu(device):
    if device.kind == "cpu":
        pytest.skip(NEEDS_GPU)


def _single_pass(run):
    """``run()`` once its single pass is loaded, checked to have taken it."""
    _reduction._scan_plans.clear()
    run()
    device_sync()
    drain_background()
    got = run()
    assert any(plan.chained is not None for plan in _reduction._scan_plans.values()), "the single pass did not run"
    return got


def device_sync():
    for d in gpu_devices("cuda") + gpu_devices("hip"):
        d.synchronize()


def _expected(h, op, dtype):
    if op == "sum":
        return np.cumsum(h, dtype=dtype)
    if op == "prod":
        return np.cumprod(h, dtype=dtype)
    if op == "logical_or":
        return np.logical_or.accumulate(h.astype(bool))
    return (np.maximum if op == "max" else np.minimum).accumulate(h)


def _check(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@requires_gpu
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_cumulative_sum_every_dtype(device, dtype):
    """Sums against NumPy bit for bit: floats hold small whole numbers, whose running sums
    every float type holds exactly, so the order of the combines cannot hide an error."""
    _gpu(device)
    rng = np.random.default_rng(11)
    tile = 8192
    for n in ((1 << 17) + 1, (1 << 17) + 4099, 40 * tile + 5):  # (the view: 2**17 and more)
        if np.dtype(dtype).kind == "f":
            h = rng.integers(-1 if dtype == ra.float16 else -3, 2 if dtype == ra.float16 else 4, n).astype(dtype)
            assert np.abs(np.cumsum(h, dtype=np.float64)).max() < 2048  # (exact in float16)
        else:
            h = random_array((n,), dtype, rng)
        x = ra.asarray(h, device=device)
        got = _single_pass(lambda: ra.cumulative_sum(x)).get()
        want = np.cumsum(h, dtype=got.dtype)
        assert got.dtype == ra.cumulative_sum(ra.asarray(h[:2], device="cpu")).dtype
        _check(got, want)
        # the identity in front (the output off the 16-byte grid: element by element)
        got = _single_pass(lambda: ra.cumulative_sum(x, include_initial=True)).get()
        _check(got, np.concatenate([np.zeros(1, want.dtype), want]))
        # a view one element in (the input off the 16-byte grid)
        got = _single_pass(lambda: ra.cumulative_sum(x[1:])).get()
        _check(got, np.cumsum(h[1:], dtype=got.dtype))


@requires_gpu
@pytest.mark.parametrize("op", ["prod", "max", "min", "logical_or"])
@pytest.mark.parametrize("dtype", [ra.float32, ra.float64, ra.int64, ra.int8, ra.uint16, ra.bool], ids=str)
def test_other_operations(device, op, dtype):
    _gpu(device)
    rng = np.random.default_rng(12)
    n = (1 << 20) + 77
    kind = np.dtype(dtype).kind
    if op == "prod" and kind == "f":
        # signed powers of two: every product exact, so the order of the products hides nothing
        steps = rng.choice([-1, 0, 1], n, p=[0.002, 0.996, 0.002])
        assert np.abs(np.cumsum(steps)).max() < 120  # (inside float32's exponents)
        h = (rng.choice([-1.0, 1.0], n) * np.exp2(steps)).astype(dtype)
    elif op == "logical_or":
        h = np.zeros(n, dtype)
        h[rng.integers(n // 2, n)] = 1  # (false up to one element past the middle)
    else:
        h = random_array((n,), dtype, rng)
    if op in ("max", "min") and kind == "f":
        h[n // 3] = np.nan  # (NaN from there on, as NumPy)
    x = ra.asarray(h, device=device)
    got = _single_pass(lambda: ra.scan(x, op)).get()
    want_dt = None if op in ("max", "min", "logical_or") else got.dtype
    _check(got, _expected(h, op, want_dt).astype(got.dtype))


@requires_gpu
def test_repeated_long_integer_lines(device):
    """Integer sums are exact whatever the order: twenty calls of 2**24 + 5 elements agree
    with NumPy bit for bit (a look-back reading a half-written status would not)."""
    _gpu(device)
    rng = np.random.default_rng(13)
    h = rng.integers(-1000, 1000, (1 << 24) + 5)
    x = ra.asarray(h, device=device)
    want = np.cumsum(h)
    _single_pass(lambda: ra.cumulative_sum(x))
    for _ in range(20):
        np.testing.assert_array_equal(ra.cumulative_sum(x).get(), want)
