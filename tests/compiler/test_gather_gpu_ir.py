"""The GPU kernels of rocarray/compiler/gather_gpu.py compile for sm_90, gfx90a, gfx942 and
gfx1100 on any machine (PTX and code objects checked as tests/targets' are): transposes
through shared memory with barriers, gathers and searches through read-only loads; and the
magic numbers that divide 32-bit positions are exact."""

import numpy as np
import pytest
from llvmlite import ir

from rocarray.compiler import gather_gpu as G
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.targets.codeobject import check_code_object, read_code_object

_SEARCH_DTYPES = [("b", 1), ("i", 1), ("i", 2), ("i", 4), ("i", 8), ("u", 1), ("u", 2), ("u", 4), ("u", 8),
                  ("f", 2), ("f", 4), ("f", 8), ("c", 8), ("c", 16)]


def _module(target, build, *args):
    module = ir.Module("gather")
    module.triple = target.triple
    module.data_layout = target.data_layout
    build(module, target, "rk_g", *args)
    return module


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8, 16])
def test_nvptx_transpose_tiles_in_shared_memory(itemsize):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, G.build_transpose, itemsize))
    assert ".entry rk_g(" in ptx
    assert f".shared .align 16 .b8 rk_g_tile[{itemsize * G.TILE * (G.TILE + 1)}]" in ptx
    assert "bar.sync" in ptx and "ld.global.nc" in ptx and "st.shared" in ptx and "ld.shared" in ptx
    assert "ld.local" not in ptx
    assert isinstance(target.compile(_module(target, G.build_transpose, itemsize)), bytes)


@pytest.mark.parametrize("itemsize,bits,signed", [(1, 8, True), (2, 16, False), (4, 64, True), (8, 32, True),
                                                  (16, 64, False), (4, 8, False)])
def test_nvptx_gather_divides_by_multiplying(itemsize, bits, signed):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, G.build_gather, itemsize, bits, signed))
    assert ".entry rk_g(" in ptx and "ld.global.nc" in ptx
    body = ptx[ptx.index(".entry rk_g("):]
    # the positions are divided by magic numbers: no division but the rounds' count (a shift)
    assert "div.u64" not in body and "rem.u64" not in body and "div.u32" not in body
    assert isinstance(target.compile(_module(target, G.build_gather, itemsize, bits, signed)), bytes)


@pytest.mark.parametrize("kind,itemsize", _SEARCH_DTYPES)
def test_nvptx_search_entries(kind, itemsize):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, G.build_search, kind, itemsize))
    for suffix, *_ in G.SEARCH_ENTRIES:
        assert f".entry rk_g{suffix}(" in ptx
    assert "ld.global.nc" in ptx and "ld.local" not in ptx


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch,wave", [("gfx90a", 64), ("gfx942", 64), ("gfx1100", 32)])
def test_amdgpu_code_objects(arch, wave):
    target = AMDGPUTarget(arch)
    builds = [(G.build_transpose, (16,), ["rk_g"], "transpose"), (G.build_transpose, (4,), ["rk_g"], "transpose"),
              (G.build_gather, (4, 64, True), ["rk_g"], "gather"), (G.build_gather, (8, 32, False), ["rk_g"], "gather"),
              (G.build_search, ("f", 2), ["rk_g" + e[0] for e in G.SEARCH_ENTRIES], "search"),
              (G.build_search, ("c", 16), ["rk_g" + e[0] for e in G.SEARCH_ENTRIES], "search")]
    for build, args, entries, kind in builds:
        hsaco = target.compile(_module(target, build, *args))
        assert check_code_object(hsaco, arch, entries) == []
        co = read_code_object(hsaco)
        for name in entries:
            kernel = co.kernel(name)
            assert kernel[".wavefront_size"] == wave
            explicit = [a for a in kernel[".args"] if not a[".value_kind"].startswith("hidden_")]
            assert [(a[".offset"], a[".size"]) for a in explicit] == [(8 * k, 8) for k in range(len(G.PARAMS[kind]) + 1)]
        if build is G.build_transpose:
            assert co.kernel("rk_g")[".group_segment_fixed_size"] >= args[0] * G.TILE * (G.TILE + 1)
    asm = target.emit_assembly(_module(target, G.build_transpose, 4))
    assert "s_barrier" in asm and ("ds_write" in asm or "ds_store" in asm)


def test_magic_division_is_exact():
    rng = np.random.default_rng(7)
    divisors = [1, 2, 3, 7, 32, 33, 1000, 4097, 65535, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1]
    divisors += [int(d) for d in rng.integers(1, 2**32, size=200)]
    for d in divisors:
        m, l = G.magic(d)
        assert 0 <= m < 2**32
        xs = np.concatenate([rng.integers(0, 2**32, size=300, dtype=np.uint64),
                             np.array([0, 1, d - 1, d, min(d + 1, 2**32 - 1), 2**32 - 1], dtype=np.uint64)])
        for x in xs.tolist():
            assert (((x * m) >> 32) + x) >> l == x // d, (d, x)
    with pytest.raises(ValueError, match="magic divisor"):
        G.magic(0)
    assert G.packer("gather").size == 8 * (1 + len(G.PARAMS["gather"]))


def test_errors():
    with pytest.raises(ValueError, match="need a GPU target"):
        _module(target_for("host"), G.build_transpose, 4)
    with pytest.raises(ValueError, match="elements of 1, 2, 4, 8 or 16 bytes"):
        _module(target_for("sm_90"), G.build_gather, 3, 64, True)
    with pytest.raises(ValueError, match="no search for dtype kind"):
        _module(target_for("sm_90"), G.build_search, "c", 4)
