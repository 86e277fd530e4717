"""The GPU radix sort (rocarray/compiler/radix_gpu.py, rocarray/_radix_gpu.py): its kernels
compile for sm_90, gfx90a, gfx942 and gfx1100 on any machine (PTX and code objects checked
as tests/targets' are), and on a GPU sort/argsort match NumPy for every dtype -- long lines
(tiles, chunks of several tiles), many short rows, NaN and signed zeros, ties (stability),
descending -- and a new size compiles nothing."""

import struct

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray import _radix, _radix_gpu, cache
from rocarray.compiler import radix_gpu
from rocarray.compiler.cache import drain_background
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.targets.base import Target
from rocarray.targets.codeobject import check_code_object, read_code_object
from conftest import ALL_DTYPES, gpu_devices, random_array
from test_radix_sort import _data, _desc_argsort, _same

NEEDS_GPU = "needs an NVIDIA GPU (CUDA)"
requires_gpu = pytest.mark.skipif(not gpu_devices("cuda") and not gpu_devices("hip"), reason=NEEDS_GPU)
WIDTHS = [(32, 0), (32, 32), (32, 64), (64, 0), (64, 64)]


def _module(target, key_bits, payload_bits):
    module = ir.Module("radix")
    module.triple = target.triple
    module.data_layout = target.data_layout
    radix_gpu.build_radix_module(module, target, "rk_radix", key_bits, payload_bits)
    return module


def _shared_bytes(wave: int) -> int:
    """The shared memory of the downsweep: the stage, the waves' counts, starts and bases."""
    waves = radix_gpu.BLOCK // wave
    return 8 * (radix_gpu.TILE + 1) + 4 * (waves + 1) * radix_gpu.BINS + 4 * radix_gpu.BINS + 8 * radix_gpu.BINS


@pytest.mark.parametrize("key_bits,payload_bits", WIDTHS)
def test_nvptx_entries_ballots_and_shared_memory(key_bits, payload_bits):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, key_bits, payload_bits))
    for suffix in radix_gpu.ENTRIES:
        assert f".entry rk_radix{suffix}(" in ptx
    assert "vote.sync.ballot.b32" in ptx
    assert "bar.warp.sync" in ptx
    assert "atom.shared.add" in ptx or "red.shared.add" in ptx
    assert ".shared" in ptx and "popc.b32" in ptx
    assert "ld.local" not in ptx  # the per-thread keys stay in registers
    assert isinstance(target.compile(_module(target, key_bits, payload_bits)), bytes)


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch,wave", [("gfx90a", 64), ("gfx942", 64), ("gfx1100", 32)])
def test_amdgpu_code_objects(arch, wave):
    target = AMDGPUTarget(arch)
    for key_bits, payload_bits in ((32, 32), (64, 64)):
        hsaco = target.compile(_module(target, key_bits, payload_bits))
        entries = ["rk_radix" + s for s in radix_gpu.ENTRIES]
        assert check_code_object(hsaco, arch, entries) == []
        co = read_code_object(hsaco)
        for suffix in radix_gpu.ENTRIES:
            kernel = co.kernel("rk_radix" + suffix)
            assert kernel[".wavefront_size"] == wave
            explicit = [a for a in kernel[".args"] if not a[".value_kind"].startswith("hidden_")]
            assert [(a[".offset"], a[".size"]) for a in explicit] == [
                (8 * k, 8) for k in range(len(radix_gpu.PARAMS[suffix]) + 1)]
            assert kernel[".kernarg_segment_size"] >= radix_gpu.packer(suffix).size
        assert co.kernel("rk_radix_d")[".group_segment_fixed_size"] >= _shared_bytes(wave)
    asm = target.emit_assembly(_module(target, 32, 0))
    assert "v_cmp" in asm and ("ds_add_u32" in asm or "ds_add_rtn_u32" in asm)


def test_packers_and_errors():
    assert radix_gpu.packer("_d").size == 8 * (1 + len(radix_gpu.PARAMS["_d"]))
    assert struct.calcsize(radix_gpu.packer("_b").format) == 8 * 7
    with pytest.raises(ValueError, match="needs a GPU target"):
        _module(target_for("host"), 32, 0)
    with pytest.raises(ValueError, match="keys of 32 or 64 bits"):
        _module(target_for("sm_90"), 16, 0)
    with pytest.raises(NotImplementedError, match="emit_ballot"):
        Target.emit_ballot(target_for("host"), None, None)
    assert not _radix_gpu.gpu_sortable(np.dtype(np.complex64), 10)
    assert _radix_gpu.gpu_sortable(np.dtype(np.float16), 10)


def _gpu(device):
    if device.kind == "cpu":
        pytest.skip(NEEDS_GPU)


def _check_line(x, a):
    order = np.argsort(a, axis=-1, kind="stable")
    np.testing.assert_array_equal(ra.argsort(x).get(), order)
    _same(ra.sort(x).get(), np.take_along_axis(a, order, axis=-1))
    d = _desc_argsort(a)
    np.testing.assert_array_equal(ra.argsort(x, descending=True).get(), d)
    _same(ra.sort(x, descending=True).get(), np.take_along_axis(a, d, axis=-1))


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_dtype_long_line_and_rows(device, dtype, monkeypatch):
    _gpu(device)
    rng = np.random.default_rng(2121)
    # long lines: several tiles a chunk, partial last tiles and chunks
    monkeypatch.setattr(_radix_gpu, "TARGET_BLOCKS", 2)
    a = _data((5 * radix_gpu.TILE + 77,), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)
    monkeypatch.undo()
    a = _data((3, 2 * radix_gpu.TILE + 5), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)
    # short rows: one block sorts a row in shared memory
    a = _data((33, 1000), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)
    a = _data((5, radix_gpu.TILE), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)


@requires_gpu
@pytest.mark.parametrize("dtype", [ra.int32, ra.int64, ra.uint64, ra.uint32], ids=str)
def test_integer_ranges(device, dtype):
    """Full ranges (64-bit keys, every digit), narrow ranges far from zero (32-bit keys
    less the smallest), all equal."""
    _gpu(device)
    rng = np.random.default_rng(2122)
    info = np.iinfo(dtype)
    n = 3 * radix_gpu.TILE + 11
    wide = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
    narrow = (rng.integers(0, 1 << 20, size=n) + (info.max - (1 << 21))).astype(dtype)
    same = np.full(n, info.max - 3, dtype=dtype)
    for a in (wide, narrow, same, wide[:900]):
        _check_line(ra.asarray(a, device=device), a)


@requires_gpu
def test_set_functions_and_searchsorted_use_it(device):
    _gpu(device)
    rng = np.random.default_rng(2123)
    a = random_array((3 * radix_gpu.TILE,), np.float32, rng, low=-50, high=50).round()
    x = ra.asarray(a, device=device)
    values, counts = ra.unique_counts(x)
    want_v, want_c = np.unique(a, return_counts=True)
    np.testing.assert_array_equal(values.get(), want_v)
    np.testing.assert_array_equal(counts.get(), want_c)


@requires_gpu
def test_new_sizes_compile_nothing(device):
    _gpu(device)
    rng = np.random.default_rng(2124)

    def compiles():
        drain_background()
        i = cache.info()
        return i["compiled"] + i["disk_hits"]

    for shape in ((3 * radix_gpu.TILE + 1,), (8, 300)):
        ra.sort(ra.asarray(random_array(shape, np.float32, rng), device=device))
    before = compiles()
    for shape in ((5 * radix_gpu.TILE + 999,), (2, 2 * radix_gpu.TILE + 3), (100, 77), (3, radix_gpu.TILE)):
        a = random_array(shape, np.float32, rng)
        np.testing.assert_array_equal(ra.sort(ra.asarray(a, device=device)).get(), np.sort(a, axis=-1))
    assert compiles() == before


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "c"], ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_key_transforms_order_as_numpy(device, dtype, descending):
    """The GPU path's keys (elementwise kernels, so every device runs them): a stable
    sort of the keys is NumPy's stable order of the values; integer keys make the values
    back."""
    rng = np.random.default_rng(2125)
    dtype = np.dtype(dtype)
    a = _data((2000,), dtype, rng)
    x = ra.asarray(a, device=device)
    order = _desc_argsort(a) if descending else np.argsort(a, kind="stable")
    if dtype.kind == "f":
        kdt = np.dtype(np.uint64 if dtype.itemsize == 8 else np.uint32)
        k = ra.empty((a.size,), dtype=kdt, device=device)
        _radix_gpu._float_key_kernel(dtype, kdt, _radix._FLOAT64_KEY if dtype.itemsize == 8 else _radix._FLOAT32_KEY)(
            x, descending, k)
        keys = k.get()
        assert keys.max() < 1 << _radix_gpu._float_key_bits(dtype) if dtype.itemsize < 8 else True
    else:
        _, _, offset = _radix_gpu._int_parts(dtype)
        width = (1 << (8 * dtype.itemsize)) - 1
        klo, khi = (int(a.min()) + offset) & width, (int(a.max()) + offset) & width
        kmin = width - khi if descending else klo
        kdt = np.dtype(np.uint32 if (khi - klo).bit_length() <= 32 else np.uint64)
        k = ra.empty((a.size,), dtype=kdt, device=device)
        _radix_gpu._int_key_kernel(dtype, kdt)(x, kmin, descending, k)
        keys = k.get()
        assert int(keys.max()) <= khi - klo
        back = _radix_gpu._int_value_kernel(dtype, kdt)(k, kmin, descending)
        np.testing.assert_array_equal(back.get(), a)
    np.testing.assert_array_equal(np.argsort(keys, kind="stable"), order)
