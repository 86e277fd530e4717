"""The GPU single-pass scan (decoupled look-back, compiler/reduction_lookback.py) and the GPU
compaction kernels (compiler/compact_gpu.py): compile-only checks for sm_90, gfx90a, gfx942
and gfx1100 on any machine; against NumPy on a GPU (every op and dtype, lines of many
tiles, strided and many-line layouts, multi-word records, masks of every density)."""

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray import _reduction
from rocarray.compiler import compact_gpu
from rocarray.compiler.reduction_lookback import LOOKBACK_PARAMS, tile_elements
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.targets.base import Target
from rocarray.targets.codeobject import check_code_object
from conftest import ALL_DTYPES, gpu_devices, random_array
from test_primitives import _NP, _close, _expected, _identity

NEEDS_GPU = "needs a GPU (NVIDIA CUDA or AMD HIP)"
requires_gpu = pytest.mark.skipif(not gpu_devices("cuda") and not gpu_devices("hip"), reason=NEEDS_GPU)
F32_TILE = tile_elements(1)


def _sum_def(dtype):
    op = _reduction.ReductionOp(_reduction._rows["sum"])
    acc, out = op.dtypes(np.dtype(dtype))
    return op.definition(np.dtype(dtype), acc, out)


def _lookback_module(target, dtype):
    module = ir.Module("lookback")
    module.triple = target.triple
    module.data_layout = target.data_layout
    _sum_def(dtype)._build_lookback(module, target, "rk_lb")
    return module


def _compact_module(target, size):
    module = ir.Module("compact")
    module.triple = target.triple
    module.data_layout = target.data_layout
    compact_gpu.build_compact_module(module, target, "rk_cg", size)
    return module


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128])
def test_nvptx_lookback_scan(dtype):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_lookback_module(target, dtype))
    assert ".entry rk_lb(" in ptx
    assert "fence.acq_rel.gpu" in ptx
    assert "ld.relaxed.gpu.global.b32" in ptx and "st.relaxed.gpu.global.b32" in ptx
    assert "atom.global.add" in ptx and "vote.sync.ballot.b32" in ptx and "shfl.sync.down" in ptx
    assert "ld.local" not in ptx  # the thread's records stay in registers
    assert isinstance(target.compile(_lookback_module(target, dtype)), bytes)


@pytest.mark.parametrize("size", compact_gpu.SIZES)
def test_nvptx_compaction(size):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_compact_module(target, size))
    for suffix in compact_gpu.ENTRIES:
        assert f".entry rk_cg{suffix}(" in ptx
    assert "vote.sync.ballot.b32" in ptx and "popc.b32" in ptx and "ld.local" not in ptx
    assert isinstance(target.compile(_compact_module(target, size)), bytes)


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_amdgpu_code_objects(arch):
    target = AMDGPUTarget(arch)
    assert check_code_object(target.compile(_lookback_module(target, np.float64)), arch, ["rk_lb"]) == []
    for size in (0, 4, 16):
        hsaco = target.compile(_compact_module(target, size))
        assert check_code_object(hsaco, arch, ["rk_cg" + s for s in compact_gpu.ENTRIES]) == []
    asm = target.emit_assembly(_lookback_module(target, np.float32))
    assert any(i in asm for i in ("buffer_inv", "buffer_wbinvl1", "buffer_gl1_inv"))  # the device-scope acquire


def test_hooks_and_errors():
    host = target_for("host")
    for hook, args in (("emit_device_fence", (None,)), ("emit_device_load", (None, None, None)),
                       ("emit_device_store", (None, None, None))):
        with pytest.raises(NotImplementedError, match=hook):
            getattr(Target, hook)(host, *args)
    with pytest.raises(ValueError, match="needs a GPU target"):
        _lookback_module(host, np.float32)
    with pytest.raises(ValueError, match="needs a GPU target"):
        _compact_module(host, 4)
    with pytest.raises(ValueError, match="bytes, not 3"):
        _compact_module(target_for("sm_90"), 3)
    assert _reduction._LOOKBACK_PACKER.size == 8 * (1 + len(LOOKBACK_PARAMS))
    assert compact_gpu.packer("_w").size == 8 * (1 + len(compact_gpu.PARAMS["_w"]))


def _gpu(device):
    if device.kind == "cpu":
        pytest.skip(NEEDS_GPU)


SIZES = [0, 1, F32_TILE - 1, F32_TILE, 3 * F32_TILE + 5, 2 ** 20 + 3]


@requires_gpu
@pytest.mark.parametrize("op", sorted(_NP))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_scan_every_op_and_dtype(device, op, dtype):
    _gpu(device)
    if op in ("max", "min") and np.dtype(dtype).kind == "c":
        return
    rng = np.random.default_rng(5)
    for n in (3 * F32_TILE + 5, 2 ** 20 + 3):
        if op == "prod":
            h = rng.choice(np.array([1, 1, 1, 1, -1, 2], dtype=dtype), size=n) if np.dtype(dtype).kind != "b" \
                else rng.random(n) < 0.9999
        else:
            h = random_array((n,), dtype, rng, low=-3 if np.dtype(dtype).kind == "f" else -100,
                             high=3 if np.dtype(dtype).kind == "f" else 100)
        x = ra.asarray(h, device=device)
        want = _expected(h, op, 0)
        _close(ra.scan(x, op).get(), want)
        first = np.full_like(want[:1], _identity(op, want.dtype))
        _close(ra.scan(x, op, exclusive=True).get(), np.concatenate([first, want[:-1]]))
        _close(ra.scan(x, op, include_initial=True).get(), np.concatenate([first, want]))


@requires_gpu
@pytest.mark.parametrize("n", SIZES)
def test_scan_sizes_strided_and_many_lines(device, n):
    _gpu(device)
    rng = np.random.default_rng(n)
    h = rng.integers(-1000, 1000, size=(3, n)).astype(np.int64)
    x = ra.asarray(h, device=device)
    _close(ra.cumulative_sum(x[1]).get(), np.cumsum(h[1]))
    _close(ra.cumulative_sum(x, axis=1).get(), np.cumsum(h, axis=1))
    _close(ra.cumulative_sum(x[:, ::-3], axis=1).get(), np.cumsum(h[:, ::-3], axis=1))
    _close(ra.cumulative_sum(x.T, axis=0).get(), np.cumsum(h.T, axis=0))
    _close(ra.scan(x[::2, ::2], "max", axis=1).get(), np.maximum.accumulate(h[::2, ::2], axis=1))
    f = rng.standard_normal(n).astype(np.float32)
    got = ra.cumulative_sum(ra.asarray(f, device=device)).get()
    np.testing.assert_allclose(got, np.cumsum(f.astype(np.float64)), rtol=1e-4, atol=1e-2 * max(1, n ** 0.5))


@requires_gpu
def test_scan_multi_word_records(device):
    """Records of two and four words: (value, index) pairs of a running argmax, complex128."""
    _gpu(device)
    rng = np.random.default_rng(9)
    n = 5 * F32_TILE + 17
    c = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex128)
    got = ra.cumulative_sum(ra.asarray(c, device=device)).get()
    np.testing.assert_allclose(got, np.cumsum(c), rtol=1e-9, atol=1e-9 * n)
    # the running argmax (the catalogue's record of a value and an index: four words)
    op = _reduction.ReductionOp(_reduction._rows["argmax"])
    rdef = op.definition(np.dtype(np.float64), *op.dtypes(np.dtype(np.float64)))
    h = rng.integers(0, 5000, size=n).astype(np.float64)
    got = _reduction.scan(rdef, ra.asarray(h, device=device), 0).get()
    new_max = h > np.concatenate([[-np.inf], np.maximum.accumulate(h)[:-1]])
    np.testing.assert_array_equal(got, np.maximum.accumulate(np.where(new_max, np.arange(n), 0)))
    l2 = ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "rk_scan_l2_long")
    f = random_array((n,), np.float64, rng)
    np.testing.assert_allclose(ra.scan(ra.asarray(f, device=device), l2).get(), np.sqrt(np.cumsum(f * f)),
                               rtol=1e-10)


@requires_gpu
def test_lookback_new_sizes_compile_nothing(device):
    _gpu(device)
    from rocarray import cache
    from rocarray.compiler.cache import drain_background

    def compiles():
        drain_background()
        i = cache.info()
        return i["compiled"] + i["disk_hits"]

    rng = np.random.default_rng(2)
    for n in (2 * F32_TILE + 1, 7 * F32_TILE):
        f = rng.standard_normal(n).astype(np.float32)
        ra.cumulative_sum(ra.asarray(f, device=device))
        ra.asarray(f, device=device)[ra.asarray(f > 0, device=device)]
        ra.nonzero(ra.asarray(f > 0, device=device))
    before = compiles()
    for n in (3 * F32_TILE + 7, 11 * F32_TILE + 1, 2 ** 20 + 9):
        f = rng.standard_normal(n).astype(np.float32)
        x = ra.asarray(f, device=device)
        np.testing.assert_allclose(ra.cumulative_sum(x).get(), np.cumsum(f.astype(np.float64)), rtol=1e-3,
                                   atol=1e-2 * n ** 0.5)
        np.testing.assert_array_equal(x[x > 0].get(), f[f > 0])
        np.testing.assert_array_equal(ra.nonzero(x > 0)[0].get(), np.nonzero(f > 0)[0])
    assert compiles() == before


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_compaction_every_dtype(device, dtype):
    _gpu(device)
    rng = np.random.default_rng(4)
    tile = compact_gpu.TILE
    for n in (1, 5, tile - 1, tile, 3 * tile + 5, 2 ** 20 + 3):
        a = random_array((n,), dtype, rng)
        x = ra.asarray(a, device=device)
        for p in (0.0, 0.3, 1.0):
            m = rng.random(n) < p
            mm = ra.asarray(m, device=device)
            np.testing.assert_array_equal(x[mm].get(), a[m])
            np.testing.assert_array_equal(ra.nonzero(mm)[0].get(), np.nonzero(m)[0])
    a = random_array((37, 1001), dtype, rng)
    a[rng.random(a.shape) < 0.4] = 0
    x = ra.asarray(a, device=device)
    v = x[::-1, 3::2]
    np.testing.assert_array_equal(v[v != 0].get(), a[::-1, 3::2][a[::-1, 3::2] != 0])
    for got, want in zip(ra.nonzero(v), np.nonzero(a[::-1, 3::2])):
        np.testing.assert_array_equal(got.get(), want)
    for lo in (1, 2, 3):  # masks whose first byte is not on a 4-byte word
        m = ra.asarray(rng.random(3 * tile + 9) < 0.5, device=device)[lo:]
        np.testing.assert_array_equal(ra.nonzero(m)[0].get(), np.nonzero(m.get())[0])
