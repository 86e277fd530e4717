"""The GPU radix sort (rocarray/compiler/radix_gpu.py, rocarray/_radix_gpu.py): its kernels
compile for sm_90, gfx90a, gfx942 and gfx1100 on any machine (PTX and code objects checked
as tests/targets' are), and on a GPU sort/argsort match NumPy for every dtype -- long lines
(tiles, chunks of several tiles), many short rows, NaN and signed zeros, ties (stability),
descending -- and a new size compiles nothing."""

import ctypes
import re
import struct

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray import _radix, _radix_gpu, _sorting_functions, cache
from rocarray.compiler import extremes_gpu, radix_gpu
from rocarray.compiler.cache import drain_background
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.runtime.llvm import LLVM_LOCK
from rocarray.targets.base import Target, llvm_binding
from rocarray.targets.codeobject import check_code_object, read_code_object
from conftest import ALL_DTYPES, gpu_devices, random_array
from test_radix_sort import _check_line, _compiles, _data, _desc_argsort, _same

NEEDS_GPU = "needs an NVIDIA GPU (CUDA)"
requires_gpu = pytest.mark.skipif(not gpu_devices("cuda") and not gpu_devices("hip"), reason=NEEDS_GPU)
KINDS = [("u32", 0), ("u32", 32), ("u32", 64), ("u64", 0), ("u64", 64), ("f32", 0), ("f32", 64), ("f64", 0),
         ("f64", 64)]


def _module(target, key_kind, payload_bits, suffixes=radix_gpu.ENTRIES):
    module = ir.Module("radix")
    module.triple = target.triple
    module.data_layout = target.data_layout
    radix_gpu.build_radix_module(module, target, "rk_radix", key_kind, payload_bits, suffixes)
    return module


def _shared_bytes(wave: int, stage_bytes: int) -> int:
    """The shared memory of the downsweep: the stage (of the wider of key and payload),
    the waves' counts, starts and bases."""
    waves = radix_gpu.BLOCK // wave
    return (stage_bytes * (radix_gpu.DUMP + 1) + 4 * (waves + 1) * radix_gpu.BINS + 4 * radix_gpu.BINS
            + 8 * radix_gpu.BINS)


@pytest.mark.parametrize("key_kind,payload_bits", KINDS)
def test_nvptx_entries_digit_matches_and_shared_memory(key_kind, payload_bits):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, key_kind, payload_bits))
    for suffix in radix_gpu.ENTRIES:
        assert f".entry rk_radix{suffix}(" in ptx
    if max(radix_gpu.KEY_KINDS[key_kind], payload_bits) <= 32:  # (lanes match digits in shared words)
        assert "atom.shared.or.b32" in ptx and "vote.sync.ballot" not in ptx
    else:
        assert "vote.sync.ballot.b32" in ptx and "atom.shared.or" not in ptx
    assert "bar.warp.sync" in ptx
    assert "atom.shared.add" in ptx or "red.shared.add" in ptx
    assert ".shared" in ptx and "popc.b32" in ptx
    assert "ld.local" not in ptx  # the per-thread keys stay in registers
    # the onesweep pass reads its predecessors' status words past the caches, whole
    assert "ld.relaxed" in ptx and "st.relaxed" in ptx
    assert "atom.global.add" in ptx  # (the histogram's totals, the passes' tile counters)
    assert isinstance(target.compile(_module(target, key_kind, payload_bits)), bytes)


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch,wave", [("gfx90a", 64), ("gfx942", 64), ("gfx1100", 32)])
def test_amdgpu_code_objects(arch, wave):
    target = AMDGPUTarget(arch)
    for key_kind, payload_bits in (("u32", 32), ("f64", 64)):
        hsaco = target.compile(_module(target, key_kind, payload_bits))
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
        stage_bytes = max(radix_gpu.KEY_KINDS[key_kind], payload_bits) // 8
        assert co.kernel("rk_radix_d")[".group_segment_fixed_size"] >= _shared_bytes(wave, stage_bytes)
    asm = target.emit_assembly(_module(target, "f32", 0))
    assert "v_cmp" in asm and ("ds_add_u32" in asm or "ds_add_rtn_u32" in asm)


def test_each_part_is_a_module_of_its_own_entries():
    target = target_for("sm_90")
    for part, suffixes in radix_gpu.PARTS.items():
        module = ir.Module(part)
        module.triple, module.data_layout = target.triple, target.data_layout
        radix_gpu.build_radix_module(module, target, "rk_part", "f32", 32, suffixes)
        ptx = target.emit_ptx(module)
        names = ["rk_part"] + ["rk_part" + s for s in suffixes[1:]]
        assert sorted(re.findall(r"\.entry (\w+)\(", ptx)) == sorted(names)
    assert sorted(sum(radix_gpu.PARTS.values(), ())) == sorted(radix_gpu.ENTRIES)


def test_the_histogram_is_one_module_for_every_payload():
    """The histogram counts keys alone: its code is the same for every payload, and a
    sort's module serves the argsort's (one compile, not one per payload)."""
    target = target_for("sm_90")
    for kind in radix_gpu.KEY_KINDS:
        ptx = {pb: target.emit_ptx(_module(target, kind, pb, ("",))) for pb in (0, 32, 64)}
        assert ptx[0] == ptx[32] == ptx[64], kind
        assert _radix_gpu._module(kind, 32, "hist") is _radix_gpu._module(kind, 0, "hist")
        assert _radix_gpu._module(kind, 32, "passes") is not _radix_gpu._module(kind, 0, "passes")


def test_packers_and_errors():
    assert radix_gpu.packer("_d").size == 8 * (1 + len(radix_gpu.PARAMS["_d"]))
    assert struct.calcsize(radix_gpu.packer("_b").format) == 8 * 9
    with pytest.raises(ValueError, match="needs a GPU target"):
        _module(target_for("host"), "u32", 0)
    with pytest.raises(ValueError, match="keys of kind u32, u64, f32, f64"):
        _module(target_for("sm_90"), "u16", 0)
    with pytest.raises(NotImplementedError, match="emit_ballot"):
        Target.emit_ballot(target_for("host"), None, None)
    assert not _radix_gpu.gpu_sortable(np.dtype(np.complex64), 10)
    assert _radix_gpu.gpu_sortable(np.dtype(np.float16), 10)


def _gpu(device):
    if device.kind == "cpu":
        pytest.skip(NEEDS_GPU)


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_dtype_long_line_and_rows(device, dtype, monkeypatch):
    _gpu(device)
    rng = np.random.default_rng(2121)
    # long lines: several tiles a chunk (as if the device held two blocks), partial last
    # tiles and chunks
    monkeypatch.setattr(type(device.runtime), "resident_grid", lambda self, function, block: 2)
    a = _data((5 * radix_gpu.D_TILE + 77,), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)
    monkeypatch.undo()
    a = _data((3, 2 * radix_gpu.TILE + 5), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)
    # short rows: one block sorts a row in shared memory
    a = _data((33, 1000), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)
    a = _data((5, radix_gpu.TILE), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "c"], ids=str)
def test_rank_sort_of_short_lines(device, dtype):
    """The sort by ranks (a GPU's first sorts of short lines; every device runs its kernel):
    each element at its place in the line's stable order, both orders, NaN and zeros
    placed as NumPy places them, lines of one element to the block sort's longest."""
    rng = np.random.default_rng(2126)
    kind = "float" if np.dtype(dtype).kind == "f" else "other"
    for shape in ((1, 1), (3, 700), (2, radix_gpu.TILE), (40, 33)):
        a = _data(shape, dtype, rng)
        x = ra.asarray(a, device=device).reshape((-1,))
        for descending, order in ((False, np.argsort(a, axis=-1, kind="stable")), (True, _desc_argsort(a))):
            out, got = ra.empty(x.shape, dtype=dtype, device=device), ra.empty(x.shape, dtype=ra.int64, device=device)
            _sorting_functions._rank_kernel(kind)(x, shape[1], descending, out, got, size=a.size)
            np.testing.assert_array_equal(got.get().reshape(shape), order)
            _same(out.get().reshape(shape), np.take_along_axis(a, order, axis=-1))


@requires_gpu
@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "c"], ids=str)
def test_first_short_sorts_rank_while_the_block_module_compiles(device, dtype, monkeypatch):
    """With no sort module loaded, a short sort ranks (and then starts the block module's
    compile in the background); once that compile is done, the same sort takes the module."""
    _gpu(device)
    from rocarray import _launch

    monkeypatch.setattr(_launch, "_full_modules", {})
    monkeypatch.setattr(_launch, "_full_modules_asked", set())
    monkeypatch.setattr(_radix_gpu, "_elementwise", {})
    monkeypatch.setattr(_radix_gpu, "_prepared", set())
    monkeypatch.setattr(_radix_gpu, "_plans", {})
    rng = np.random.default_rng(2127)
    a = _data((4, 900), dtype, rng)
    x = ra.asarray(a, device=device)
    payload = 32 if np.dtype(dtype) == np.float16 else 0
    assert not _radix_gpu.short_rows_ready(np.dtype(dtype), 900, payload, device)
    calls = []
    real = _sorting_functions._rank_sort
    monkeypatch.setattr(_sorting_functions, "_rank_sort", lambda *k: calls.append(k[1:]) or real(*k))
    # (the first argsort ranks; later calls rank or take the module, whichever is loaded)
    _check_line(x, a)
    assert calls[0] == (900, False, "float" if np.dtype(dtype).kind == "f" else "other", payload + 32)
    drain_background()
    assert _radix_gpu.short_rows_ready(np.dtype(dtype), 900, payload, device)
    if np.dtype(dtype).kind in "biu":
        # the integer keys' kernels were made beside the module, not at its first sort
        for what in ("ikey", "ivalue"):
            k = _radix_gpu._elementwise[what, np.dtype(dtype), np.dtype(np.uint32)]
            assert any(key[-1] == device for key in k._plans)
    ranked = len(calls)
    _check_line(x, a)
    assert len(calls) == ranked
    assert _radix_gpu.short_rows_ready(np.dtype(dtype), radix_gpu.TILE + 1, 0, device)  # (other modules)


@requires_gpu
@pytest.mark.parametrize("dtype", [ra.float32, ra.int64, ra.float64], ids=str)
def test_onesweep_many_tiles_at_once(device, dtype):
    """Lines of thousands of tiles, many in flight together (their look-backs wait on and
    walk over tiles still being ranked), and rows of several tiles (a look-back stops at
    its row's first tile), sorted and argsorted again and again."""
    _gpu(device)
    rng = np.random.default_rng(2125)
    for shape in ((1 << 22) + 12345,), (6, 3 * radix_gpu.D_TILE + 17):
        a = _data(shape, dtype, rng)
        if dtype == ra.int64:  # (every digit: eight passes)
            a = rng.integers(-(1 << 63), (1 << 63) - 1, size=shape, dtype=np.int64)
        x = ra.asarray(a, device=device)
        want, order = np.sort(a, axis=-1), np.argsort(a, axis=-1, kind="stable")
        for _ in range(3):
            np.testing.assert_array_equal(ra.sort(x).get(), want)
            np.testing.assert_array_equal(ra.argsort(x).get(), order)


@requires_gpu
@pytest.mark.parametrize("shape", [(5 * radix_gpu.D_TILE + 3,), (7, 1000)], ids=str)
def test_argsort_of_equal_keys_is_in_order(device, shape):
    _gpu(device)
    # (the sort reads the range back and leaves the keys as they are: no pass makes indices)
    a = np.full(shape, -7, dtype=np.int64)
    got = ra.argsort(ra.asarray(a, device=device))
    assert got.dtype == ra.int64
    np.testing.assert_array_equal(got.get(), np.argsort(a, axis=-1, kind="stable"))
    np.testing.assert_array_equal(ra.sort(ra.asarray(a, device=device)).get(), a)


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
    narrow = rng.integers(0, 1 << 20, size=n).astype(dtype) + np.dtype(dtype).type(info.max - (1 << 21))
    same = np.full(n, info.max - 3, dtype=dtype)
    for a in (wide, narrow, same, wide[:900]):
        _check_line(ra.asarray(a, device=device), a)


def _extremes_module(target, size):
    module = ir.Module("extremes")
    module.triple = target.triple
    module.data_layout = target.data_layout
    extremes_gpu.build_extremes_module(module, target, "rk_ex", size)
    return module


@pytest.mark.parametrize("size", extremes_gpu.SIZES)
def test_nvptx_extremes(size):
    """Both entries; the final one fences at system scope between the two keys and the
    word the host waits on; the fold's loads stay in registers."""
    target = target_for("sm_90")
    ptx = target.emit_ptx(_extremes_module(target, size))
    assert sorted(re.findall(r"\.entry (\w+)\(", ptx)) == ["rk_ex", "rk_ex_f"]
    final = ptx.split(".entry rk_ex_f(")[1]
    stores = [k for k, line in enumerate(final.splitlines()) if "st.global" in line]
    fence = next(k for k, line in enumerate(final.splitlines()) if "fence.sc.sys" in line)
    assert len(stores) == 3 and stores[1] < fence < stores[2]
    assert "ld.local" not in ptx and "shfl.sync.down" in ptx
    assert isinstance(target.compile(_extremes_module(target, size)), bytes)


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_amdgpu_extremes_code_objects(arch):
    target = AMDGPUTarget(arch)
    for size in extremes_gpu.SIZES:
        hsaco = target.compile(_extremes_module(target, size))
        assert check_code_object(hsaco, arch, ["rk_ex", "rk_ex_f"]) == []


def test_extremes_errors():
    assert extremes_gpu.packer("_f").size == 8 * (1 + len(extremes_gpu.PARAMS["_f"]))
    with pytest.raises(ValueError, match="need a GPU target with waves; host has none"):
        _extremes_module(target_for("host"), 8)
    with pytest.raises(ValueError, match=r"elements of \(1, 2, 4, 8\) bytes, not 3"):
        _extremes_module(target_for("sm_90"), 3)


def _extremes_kernel(device, size):
    """The extremes module for elements of ``size`` bytes, loaded on ``device`` now."""
    key, make = _radix_gpu._extremes_module(size)
    return _radix_gpu.load_full_module(key, device, make)


@pytest.mark.parametrize("dtype", [ra.int8, ra.int16, ra.int32, ra.int64, ra.uint8, ra.uint16, ra.uint32,
                                   ra.uint64], ids=str)
@pytest.mark.parametrize("path", ["module", "first call"])
def test_key_extremes(device, dtype, path, monkeypatch):
    """The smallest and largest key (the value offset by half a signed type's range), as
    NumPy's min and max say, on every device: on a GPU by the extremes module and, at a
    first call, while it compiles, by one reduction of two rows (as on the host); the
    type's own extremes give the whole key range; strided and reversed lines."""
    if path == "module" and device.kind != "cpu":
        _extremes_kernel(device, np.dtype(dtype).itemsize)
    elif path == "first call":
        monkeypatch.setattr(_radix_gpu, "full_module_when_ready", lambda key, device, make: None)
    rng = np.random.default_rng(2124)
    info = np.iinfo(dtype)
    offset = -int(info.min)
    for n in (1, 7, 3 * radix_gpu.TILE + 5, 200_003):
        a = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
        x = ra.asarray(a, device=device)
        assert _radix_gpu.key_extremes(x) == (int(a.min()) + offset, int(a.max()) + offset)
        assert _radix_gpu.key_extremes(x[::-3]) == (int(a[::-3].min()) + offset, int(a[::-3].max()) + offset)
    narrow = rng.integers(-5, 90, size=50_001).astype(dtype)
    assert _radix_gpu.key_extremes(ra.asarray(narrow, device=device)) == (int(narrow.min()) + offset,
                                                                           int(narrow.max()) + offset)
    ends = np.array([info.max, 3, info.min], dtype=dtype)
    assert _radix_gpu.key_extremes(ra.asarray(ends, device=device)) == (0, int(info.max) + offset)
    same = np.full(1000, info.max, dtype=dtype)
    assert _radix_gpu.key_extremes(ra.asarray(same, device=device)) == (int(info.max) + offset,) * 2
    grid = rng.integers(info.min, info.max, size=(5, 3, 7), endpoint=True, dtype=dtype)
    view = ra.asarray(grid, device=device)[:, ::2]  # (not contiguous: read flattened)
    assert _radix_gpu.value_extremes(view) == (int(grid[:, ::2].min()), int(grid[:, ::2].max()))


@requires_gpu
def test_key_extremes_gives_its_words_back_and_names_a_failure(device, monkeypatch):
    """Three mapped words lent for each call and given back; a final entry that fails to
    launch, or a wait that is interrupted, raises and leaves no word lent."""
    _gpu(device)
    kernel = _extremes_kernel(device, 8)
    x = ra.asarray(np.arange(-40, 1000, dtype=np.int64), device=device)
    words = device.runtime.mapped_words(device.index)
    lent = words.lent
    assert _radix_gpu.key_extremes(x) == (-40 + (1 << 63), 999 + (1 << 63))
    assert words.lent == lent
    real = kernel.code

    class FailingFinal:
        functions = real.functions

        def launch_entry(self, k, entry, *args):
            if entry == 1:
                raise RuntimeError("the final entry's launch failed")
            return real.launch_entry(k, entry, *args)

    monkeypatch.setattr(kernel, "code", FailingFinal())
    with pytest.raises(RuntimeError, match="final entry's launch failed"):
        _radix_gpu.key_extremes(x)
    assert words.lent == lent
    monkeypatch.setattr(kernel, "code", real)

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(kernel.runtime, "await_word", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _radix_gpu.key_extremes(x)
    assert words.lent == lent


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


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "biu" or d == ra.float16], ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_key_transforms_order_as_numpy(device, dtype, descending):
    """The GPU path's keys made by elementwise kernels (integers, float16; every device
    runs them): a stable sort of the keys is NumPy's stable order of the values; integer
    keys make the values back."""
    rng = np.random.default_rng(2125)
    dtype = np.dtype(dtype)
    a = _data((2000,), dtype, rng)
    x = ra.asarray(a, device=device)
    order = _desc_argsort(a) if descending else np.argsort(a, kind="stable")
    if dtype.kind == "f":
        kdt = np.dtype(np.uint32)
        k = ra.empty((a.size,), dtype=kdt, device=device)
        _radix_gpu._float_key_kernel(dtype, kdt, _radix._FLOAT32_KEY)(x, descending, k)
        keys = k.get()
        assert keys.max() < 1 << _radix_gpu._float_key_bits(dtype)
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


@pytest.mark.parametrize("dtype", [ra.bool, ra.int8, ra.uint16, ra.int32, ra.int64], ids=str)
def test_prepared_integer_kernels_are_the_ones_a_sort_calls(device, dtype):
    """``_prepare_int_kernels`` (started beside a first short sort's block module) loads the
    very kernels the radix path then calls: those calls compile nothing (every device runs
    the two elementwise kernels)."""
    dtype = np.dtype(dtype)
    _radix_gpu._prepare_int_kernels(dtype, device)
    before = _compiles()
    a = random_array((500,), dtype, np.random.default_rng(2131), low=-40, high=40)  # (32-bit keys)
    k = ra.empty((a.size,), dtype=ra.uint32, device=device)
    _, _, offset = _radix_gpu._int_parts(dtype)
    kmin = (int(a.min()) + offset) & ((1 << (8 * dtype.itemsize)) - 1)
    # (as ``gpu_radix_sort`` calls them: a Python int for the smallest key, a bool)
    _radix_gpu._int_key_kernel(dtype, np.dtype(np.uint32))(ra.asarray(a, device=device), kmin, False, k)
    back = _radix_gpu._int_value_kernel(dtype, np.dtype(np.uint32))(k, kmin, False)
    np.testing.assert_array_equal(back.get(), a)
    assert _compiles() == before


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_float_order_keys_as_numpy(dtype, descending):
    """The kernels' float order key (``order_key``, IR), run on the host through MCJIT:
    a stable sort of the keys is NumPy's stable order, NaN and signed zeros included."""
    drain_background()  # (LLVM's context is shared with the tier-up worker)
    binding = llvm_binding()
    dtype = np.dtype(dtype)
    a = _data((3000,), dtype, np.random.default_rng(2126))
    bits = 8 * dtype.itemsize
    utype = np.uint32 if bits == 32 else np.uint64
    i64 = ir.IntType(64)
    module = ir.Module(name="order_key")
    module.triple = binding.get_default_triple()
    fn = ir.Function(module, ir.FunctionType(i64, [i64, i64]), "order_key")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    gen = radix_gpu._Kernel(module, target_for("sm_90"), "k", "", f"f{bits}", 0, None)
    gen.desc = b.icmp_unsigned("!=", fn.args[1], ir.Constant(i64, 0))
    key = gen.order_key(b, b.trunc(fn.args[0], gen.K) if bits == 32 else fn.args[0])
    b.ret(b.zext(key, i64) if bits == 32 else key)
    with LLVM_LOCK:
        mod = binding.parse_assembly(str(module))
        engine = binding.create_mcjit_compiler(mod, binding.Target.from_default_triple().create_target_machine())
        engine.finalize_object()
        cfunc = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64)(
            engine.get_function_address("order_key"))
        keys = np.array([cfunc(int(v), int(descending)) for v in a.view(utype)], dtype=np.uint64)
    order = _desc_argsort(a) if descending else np.argsort(a, kind="stable")
    np.testing.assert_array_equal(np.argsort(keys, kind="stable"), order)
