"""The GPU kernels of rocarray/compiler/gather_gpu.py compile for sm_90, gfx90a, gfx942 and
gfx1100 on any machine (PTX and code objects checked as tests/targets' are): transposes
through shared memory with barriers, gathers and searches through read-only loads; the
magic numbers that divide 32-bit positions are exact; joins load a round before they store
it; and the kernels' IR, built for a
stand-in target whose thread ids and barrier are host calls, runs on the host through
MCJIT and matches NumPy (every block's threads as OS threads, so barriers hold)."""

import ctypes
import re
import threading
from types import SimpleNamespace

import numpy as np
import pytest
from llvmlite import ir

from rocarray.compiler import gather_gpu as G
from rocarray.compiler.cache import drain_background
from rocarray.runtime.llvm import LLVM_LOCK
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.targets.base import llvm_binding
from rocarray.targets.codeobject import EM_CUDA, ElfFile, check_code_object, read_code_object

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
    side = G.tile_side(itemsize)
    shared = itemsize * side * (side + 1)
    assert f".shared .align 16 .b8 rk_g_tile[{shared}]" in ptx
    assert shared <= 48 * 1024  # (a block's static shared memory)
    assert side == (64 if itemsize <= 8 else 32)
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


@pytest.mark.parametrize("itemsize,bits,signed", [(1, 8, False), (4, 64, True), (8, 32, True), (16, 64, False)])
def test_nvptx_scatter_entries(itemsize, bits, signed):
    """Each mode's two entries; the scatters divide by multiplying, read indices and values
    through the read-only path and store; the checks store nothing but the flag."""
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, G.build_scatter, itemsize, bits, signed))
    assert [s for s, *_ in G.SCATTER_ENTRIES] == ["", "_n", "_one", "_one_n", "_check", "_check_n"]
    starts = [ptx.index(f".entry rk_g{s}(") for s, *_ in G.SCATTER_ENTRIES] + [len(ptx)]
    for (suffix, mode, _), a, z in zip(G.SCATTER_ENTRIES, starts, starts[1:]):
        body = ptx[a:z]
        assert "div.u64" not in body and "rem.u64" not in body and "div.u32" not in body
        assert "ld.global.nc" in body and "ld.local" not in body
        stores = body.count("st.global")
        if mode == "check":
            assert stores == 1 and re.search(r"st\.global\.[bu]32", body)  # (the flag)
        else:
            assert stores >= G.ITEMS  # (a round's values; no flag)
    assert isinstance(target.compile(_module(target, G.build_scatter, itemsize, bits, signed)), bytes)


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
              (G.build_gather, (4, 64, True), ["rk_g", "rk_g" + G.GATHER_NARROW], "gather"),
              (G.build_gather, (8, 32, False), ["rk_g", "rk_g" + G.GATHER_NARROW], "gather"),
              (G.build_scatter, (4, 64, True), ["rk_g" + e[0] for e in G.SCATTER_ENTRIES], "scatter"),
              (G.build_scatter, (16, 16, False), ["rk_g" + e[0] for e in G.SCATTER_ENTRIES], "scatter"),
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
            side = G.tile_side(args[0])
            assert args[0] * side * (side + 1) <= co.kernel("rk_g")[".group_segment_fixed_size"] <= 48 * 1024
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


# -- the kernels run on the host: a stand-in GPU target whose ids and barrier are calls back
# into Python, each block's threads as OS threads (so a barrier waits for all of them)

class _HostGrid:
    """A GPU target's hooks for host code: flat address spaces, ids from Python."""

    name = "host-grid"
    facts = SimpleNamespace(emits_grid=True, global_address_space=0, shared_address_space=0, wave_size=32)

    def mark_kernel(self, fn):
        pass

    def emit_parameter_buffer(self, b):
        return None

    def _call(self, b, name, ty):
        fn = b.module.globals.get(name) or ir.Function(b.module, ir.FunctionType(ty, []), name)
        return b.call(fn, [])

    def emit_thread_in_block(self, b):
        return self._call(b, "grid_thread", ir.IntType(64))

    def emit_block_id(self, b):
        return self._call(b, "grid_block", ir.IntType(64))

    def emit_block_count(self, b):
        return self._call(b, "grid_blocks", ir.IntType(64))

    def emit_barrier(self, b):
        self._call(b, "grid_barrier", ir.VoidType())


class _Grid:
    """Runs an entry of a module built for ``_HostGrid`` over a grid of ``G.BLOCK`` threads."""

    def __init__(self, build, *args):
        self.local = threading.local()
        self.block, self.blocks = 0, 1
        self.barrier = threading.Barrier(G.BLOCK)
        u64 = ctypes.c_uint64
        self.hooks = {"grid_thread": ctypes.CFUNCTYPE(u64)(lambda: self.local.thread),
                      "grid_block": ctypes.CFUNCTYPE(u64)(lambda: self.block),
                      "grid_blocks": ctypes.CFUNCTYPE(u64)(lambda: self.blocks),
                      "grid_barrier": ctypes.CFUNCTYPE(None)(self._wait)}
        binding = llvm_binding()
        module = ir.Module("grid")
        module.triple = binding.get_default_triple()
        build(module, _HostGrid(), "k", *args)
        with LLVM_LOCK:
            for name, hook in self.hooks.items():
                binding.add_symbol(name, ctypes.cast(hook, ctypes.c_void_p).value)
            mod = binding.parse_assembly(str(module))
            mod.verify()
            self.engine = binding.create_mcjit_compiler(mod, binding.Target.from_default_triple().create_target_machine())
            self.engine.finalize_object()

    def _wait(self):
        self.barrier.wait()

    def run(self, name, kind, n, grid, *values, threads=False):
        fn = ctypes.CFUNCTYPE(None, *[ctypes.c_uint64] * (1 + len(G.PARAMS[kind])))(
            self.engine.get_function_address(name))
        args = [n] + [v & (2**64 - 1) for v in values]
        self.blocks = grid

        def thread(t):
            self.local.thread = t
            fn(*args)
        for self.block in range(grid):
            if threads:
                ts = [threading.Thread(target=thread, args=(t,)) for t in range(G.BLOCK)]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
            else:  # (no barriers: one thread after another)
                for t in range(G.BLOCK):
                    thread(t)


def _ptr(a):
    return a.ctypes.data


def _gather(src, src_strides, nax, idx, idx_strides, shape, grid=None):
    """The gather run by both entries, 64-bit and 32-bit offsets (which must agree)."""
    P, M, Q = shape
    n = P * M * Q
    k = _Grid(G.build_gather, src.itemsize, 8 * idx.itemsize, idx.dtype.kind == "i")
    grid = grid or -(-n // (G.BLOCK * G.ITEMS))
    results = []
    for entry in ("k", "k" + G.GATHER_NARROW):
        out = np.zeros(n, src.dtype)
        flag = np.zeros(1, np.int32)
        k.run(entry, "gather", n, grid, _ptr(src), _ptr(idx), _ptr(out), _ptr(flag), nax, M * Q, *G.magic(M * Q),
              Q, *G.magic(Q), *idx_strides, *src_strides)
        results.append((out.reshape(shape), int(flag[0])))
    (wide, wide_flag), (narrow, narrow_flag) = results
    assert wide_flag == narrow_flag
    if not wide_flag:
        np.testing.assert_array_equal(narrow, wide)
    return wide, wide_flag


@pytest.mark.parametrize("idt", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_gather_runs_on_a_host_grid(idt):
    drain_background()
    rng = np.random.default_rng(31)
    info = np.iinfo(idt)
    x = rng.standard_normal(300).astype(np.float32)
    idx = rng.integers(max(info.min, -300), min(info.max, 299), 1500, endpoint=True).astype(idt)
    out, flag = _gather(x, (0, 1, 0), 300, idx, (0, 1, 0), (1, 1500, 1))
    assert flag == 0
    np.testing.assert_array_equal(out.ravel(), x[idx.astype(np.int64)])
    if info.max >= 300:
        bad = idx.copy()
        bad[777] = 300
        assert _gather(x, (0, 1, 0), 300, bad, (0, 1, 0), (1, 1500, 1))[1] == 1
    if info.min <= -301:
        bad = idx.copy()
        bad[0] = -301
        assert _gather(x, (0, 1, 0), 300, bad, (0, 1, 0), (1, 1500, 1))[1] == 1


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.complex128], ids=str)
def test_gather_rows_on_a_host_grid(dtype):
    drain_background()
    rng = np.random.default_rng(32)
    x = (rng.standard_normal((5, 7, 6, 2)) * 100).astype(dtype)[:, ::-1, :, 0]  # strided, flipped
    first = np.lib.stride_tricks.as_strided(x, (1,), (x.itemsize,))  # (its first element's address)
    st = tuple(s // x.itemsize for s in x.strides)
    k = rng.integers(-7, 7, (5, 4, 6))
    out, flag = _gather(first, st, 7, k, tuple(s // 8 for s in k.strides), (5, 4, 6))
    assert flag == 0
    np.testing.assert_array_equal(out, np.take_along_axis(x, k % 7, axis=1))
    k1 = rng.integers(-7, 7, 9).astype(np.int32)
    out, flag = _gather(first, st, 7, k1, (0, 1, 0), (5, 9, 6))
    np.testing.assert_array_equal(out, np.take(x, k1, axis=1))
    # a grid smaller than the rounds: each block strides over several
    out, flag = _gather(first, st, 7, k1, (0, 1, 0), (5, 9, 6), grid=1)
    np.testing.assert_array_equal(out, np.take(x, k1, axis=1))


def _scatter(dst, dst_strides, nax, idx, idx_strides, shape, vals, mode, grid=None, first=0):
    """Run the scatter entry of ``mode`` ('values', 'one', 'check') with 64-bit and with
    32-bit offsets, each on its own copy of the 1-D ``dst`` (whose element ``first`` is the
    base the strides step from), and return both copies and their flags."""
    P, M, Q = shape
    n = P * M * Q
    k = _Grid(G.build_scatter, dst.itemsize, 8 * idx.itemsize, idx.dtype.kind == "i")
    grid = grid or -(-n // (G.BLOCK * G.ITEMS))
    results = []
    for suffix, m, _ in G.SCATTER_ENTRIES:
        if m != mode:
            continue
        out = dst.copy()
        base = out[first:first + 1]
        flag = np.zeros(1, np.int32)
        k.run("k" + suffix, "scatter", n, grid, _ptr(vals), _ptr(idx), _ptr(base), _ptr(flag), nax, M * Q,
              *G.magic(M * Q), Q, *G.magic(Q), *idx_strides, *dst_strides)
        results.append((out, int(flag[0])))
    return results


@pytest.mark.parametrize("idt", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_scatter_runs_on_a_host_grid(idt):
    """The scatter's entries (values, one value, the check; 64- and 32-bit offsets) against
    NumPy: distinct indices, negative ones wrapped, an index out of range flagged by the
    check and skipped by the scatters (nothing written outside the array)."""
    drain_background()
    rng = np.random.default_rng(34)
    info = np.iinfo(idt)
    n = 300 if info.max >= 300 else info.max + 1
    dst = rng.standard_normal(n + 8).astype(np.float32)  # (8 guard elements past the array)
    m = min(n, 250)
    idx = rng.permutation(n)[:m]
    if info.min < 0:
        idx = idx - n * (rng.random(m) < 0.5)  # (negative indices count from the end)
    idx = idx.astype(idt)
    vals = rng.standard_normal(m).astype(np.float32)
    for mode, expect in (("values", vals), ("one", vals[:1])):
        want = dst.copy()
        want[:n][idx.astype(np.int64)] = expect
        for out, flag in _scatter(dst, (0, 1, 0), n, idx, (0, 1, 0), (1, m, 1), vals, mode):
            assert flag == 0
            np.testing.assert_array_equal(out, want)
    for out, flag in _scatter(dst, (0, 1, 0), n, idx, (0, 1, 0), (1, m, 1), vals, "check"):
        assert flag == 0
        np.testing.assert_array_equal(out, dst)  # (the check writes nothing)
    bad_values = [v for v in (n, info.max, -n - 1, info.min) if info.min <= v <= info.max and not -n <= v < n]
    for v in bad_values:
        bad = idx.copy()
        bad[m // 2] = v
        for out, flag in _scatter(dst, (0, 1, 0), n, bad, (0, 1, 0), (1, m, 1), vals, "check"):
            assert flag == 1
        want = dst.copy()
        keep = np.arange(m) != m // 2
        want[:n][bad[keep].astype(np.int64)] = vals[keep]
        for out, flag in _scatter(dst, (0, 1, 0), n, bad, (0, 1, 0), (1, m, 1), vals, "values"):
            assert flag == 0  # (the scatters set no flag: the check ran before them)
            np.testing.assert_array_equal(out, want)  # (the bad one skipped, the guard intact)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.complex128], ids=str)
def test_scatter_rows_on_a_host_grid(dtype):
    """Along the middle axis of a strided, flipped destination (P, n, Q), the indices laid
    out as the result's (P, M, Q) or shared by every row; with a grid smaller than the
    rounds."""
    drain_background()
    rng = np.random.default_rng(35)
    whole = (rng.standard_normal((5, 7, 6, 2)) * 100).astype(dtype)
    st = tuple(s // whole.itemsize for s in whole[:, ::-1, :, 0].strides)
    first = 6 * 6 * 2  # (the flipped view's first element: row 6 of the middle axis)
    k = np.stack([rng.permutation(7)[:4] - 7 * (rng.random(4) < 0.5) for _ in range(5 * 6)]).reshape(5, 6, 4)
    k = np.ascontiguousarray(k.transpose(0, 2, 1))  # (distinct along the axis in each (p, q))
    vals = (rng.standard_normal((5, 4, 6)) * 100).astype(dtype)
    want = whole.copy()
    np.put_along_axis(want[:, ::-1, :, 0], k, vals, axis=1)
    for grid in (None, 1):
        results = _scatter(whole.reshape(-1), st, 7, k, tuple(s // 8 for s in k.strides), (5, 4, 6),
                           vals, "values", grid, first)
        for out, flag in results:
            assert flag == 0
            np.testing.assert_array_equal(out.reshape(whole.shape), want)
    k1 = rng.permutation(7)[:3].astype(np.int32)
    want = whole.copy()
    want[:, ::-1, :, 0][:, k1, :] = vals[:, :3, :]
    for out, flag in _scatter(whole.reshape(-1), st, 7, k1, (0, 1, 0), (5, 3, 6),
                              np.ascontiguousarray(vals[:, :3, :]), "values", first=first):
        np.testing.assert_array_equal(out.reshape(whole.shape), want)


def _sorted_data(dtype, rng, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.sort(rng.integers(0, 2, n).astype(bool))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.sort(rng.integers(max(info.min, -50), min(info.max, 50), n).astype(dtype))
    a = rng.integers(-5, 5, n).astype(dtype)
    if dtype.kind == "c":
        a = a + 1j * rng.integers(-2, 2, n)
        a[rng.random(n) < 0.05] = complex(np.nan, 1)
        a[rng.random(n) < 0.05] = complex(1, np.nan)
    a[rng.random(n) < 0.1] = np.nan
    return np.sort(a.astype(dtype))


# (float16 is left out: the host's half conversions are library calls MCJIT does not resolve)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int64, np.uint64, np.float32, np.float64,
                                   np.complex64, np.complex128], ids=str)
def test_search_runs_on_a_host_grid(dtype):
    drain_background()
    rng = np.random.default_rng(33)
    dt = np.dtype(dtype)
    k = _Grid(G.build_search, dt.kind, dt.itemsize)
    v = _sorted_data(dtype, rng, 700)
    rng.shuffle(v)
    for n in (0, 1, 2, 3, 17, 1000):
        a = _sorted_data(dtype, rng, n)
        for suffix, right, wide, found in G.SEARCH_ENTRIES:
            out = np.zeros(v.size, np.bool_ if found else np.int64)
            k.run("k" + suffix, "search", v.size, 1, _ptr(a), _ptr(v), _ptr(out), n, int(found and n % 2 == 1))
            if found:
                expect = np.isin(v, a, invert=n % 2 == 1)
            else:
                expect = np.searchsorted(a, v, side="right" if right else "left")
            np.testing.assert_array_equal(out, expect, err_msg=f"n={n} {suffix}")


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.int32, np.complex128], ids=str)
def test_transpose_runs_on_a_host_grid(dtype):
    drain_background()
    rng = np.random.default_rng(34)
    isz = np.dtype(dtype).itemsize
    k = _Grid(G.build_transpose, isz)

    def copy(src, dst, R, C, ss, ds, B=1, sb=0, db=0, grid=None, pairs=0):
        side = G.tile_side(isz)
        tr, tc = -(-R // side), -(-C // side)
        tiles = B * tr * tc
        first = np.lib.stride_tricks.as_strided(src, (1,), (src.itemsize,))
        k.run("k", "transpose", tiles, grid or tiles, _ptr(first), _ptr(dst), R, C, *ss, *ds, sb, db, tr, tc, pairs,
              threads=True)

    # (whole tiles and tiles cut at either edge: (130, 70); whole tiles alone: (64, 128));
    # 4-byte elements of whole tiles in pairs too (the word is ignored for other sizes)
    for R, C in ((1, 1), (33, 65), (3, 40), (40, 3), (130, 70), (64, 128)):
        for pairs in (0, 1) if R % 2 == 0 and C % 2 == 0 else (0,):
            x = (rng.standard_normal((C, R)) * 50).astype(dtype)
            dst = np.zeros((R, C), dtype)
            copy(x, dst, R, C, (1, R), (C, 1), pairs=pairs)
            np.testing.assert_array_equal(dst, x.T, err_msg=f"{(R, C)} pairs={pairs}")
    # batched, a flipped source, fewer blocks than tiles
    x = (rng.standard_normal((3, 40, 50)) * 50).astype(dtype)
    src = x[:, ::-1, :].transpose(0, 2, 1)
    st = [s // x.itemsize for s in src.strides]
    dst = np.zeros((3, 50, 40), dtype)
    copy(src, dst, 50, 40, (st[1], st[2]), (40, 1), B=3, sb=st[0], db=2000, grid=2)
    np.testing.assert_array_equal(dst, src)
    # batched whole tiles in pairs: a source whose rows are every other row of a larger one
    x = (rng.standard_normal((2, 256, 130)) * 50).astype(dtype)
    src = x[:, ::2, :128].transpose(0, 2, 1)  # (2, 128, 128): r contiguous, c stride 260
    st = [s // x.itemsize for s in src.strides]
    dst = np.zeros((2, 128, 128), dtype)
    copy(src, dst, 128, 128, (st[1], st[2]), (128, 1), B=2, sb=st[0], db=128 * 128, grid=3, pairs=int(isz == 4))
    np.testing.assert_array_equal(dst, src)


# -- the join kernel compiled for GPU targets, and run on the host's stand-in grid -------------

def _join_module(target, unit):
    module = ir.Module("join")
    module.triple = target.triple
    module.data_layout = target.data_layout
    G.build_join(module, target, "rk_j", unit)
    return module


@pytest.mark.parametrize("unit", G.JOIN_UNITS)
def test_nvptx_join_loads_a_round_before_storing_it(unit):
    drain_background()  # (LLVM is driven here directly)
    target = target_for("sm_90")
    ptx = target.emit_ptx(_join_module(target, unit))
    assert ".entry rk_j(" in ptx and "ld.local" not in ptx
    body = ptx[ptx.index(".entry rk_j("):]
    assert "div.u64" not in body and "rem.u64" not in body and "div.u32" not in body
    suffix = "v2.b64" if unit == 16 else f"b{8 * unit}"
    loads = [m.start() for m in re.finditer(rf"ld\.global\.nc\.{suffix}\b", body)]
    stores = [m.start() for m in re.finditer(rf"st\.global\.{suffix}\b", body)]
    # a whole round: ``ITEMS`` loads, then its stores
    assert len([at for at in loads if at < stores[0]]) >= G.ITEMS
    assert all(at < stores[G.ITEMS - 1] for at in loads[:G.ITEMS])
    binary = target.compile(_join_module(target, unit))
    if target.binary_kind == "cubin":
        assert ElfFile(binary).machine == EM_CUDA


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch,wave", [("gfx90a", 64), ("gfx942", 64), ("gfx1100", 32)])
def test_amdgpu_join_code_objects(arch, wave):
    drain_background()
    target = AMDGPUTarget(arch)
    for unit in G.JOIN_UNITS:
        hsaco = target.compile(_join_module(target, unit))
        assert check_code_object(hsaco, arch, ["rk_j"]) == []
        kernel = read_code_object(hsaco).kernel("rk_j")
        assert kernel[".wavefront_size"] == wave
        explicit = [a for a in kernel[".args"] if not a[".value_kind"].startswith("hidden_")]
        assert [(a[".offset"], a[".size"]) for a in explicit] == [(8 * k, 8) for k in range(len(G.PARAMS["join"]) + 1)]
    asm = target.emit_assembly(_join_module(target, 16))
    assert ("global_load_dwordx4" in asm and "global_store_dwordx4" in asm) or (
        "global_load_b128" in asm and "global_store_b128" in asm)


def _aligned(nbytes, rng):
    """``nbytes`` random bytes at an address that is a multiple of 16 (for unit 16's
    aligned vector loads on the host)."""
    raw = np.empty(nbytes + 16, np.uint8)
    at = -raw.ctypes.data % 16
    out = raw[at:at + nbytes]
    out[:] = rng.integers(0, 256, nbytes, dtype=np.uint8)
    return out


@pytest.mark.parametrize("unit", G.JOIN_UNITS)
def test_join_runs_on_a_host_grid(unit):
    drain_background()
    rng = np.random.default_rng(37)
    k = _Grid(G.build_join, unit)
    # eight pieces with empty ones; one piece (seven unused); whole rounds only; a grid
    # smaller than the rounds
    for sizes, grid in (((3, 0, 1000, 1, 5, 0, 7, 2), None), ((1,), None), ((1024, 1024), None),
                        ((700, 0, 2000), 1)):
        pieces = [_aligned(s * unit, rng) for s in sizes]
        n = sum(sizes)
        dst = _aligned(n * unit + 64, rng)
        tail = dst[n * unit:].copy()
        words, end = [], 0
        for piece, size in zip(pieces, sizes):
            end += size
            words += (piece.ctypes.data, end)
        words += (0, n) * (G.JOIN_PIECES - len(sizes))
        k.run("k", "join", n, grid or -(-n // (G.BLOCK * G.ITEMS)), dst.ctypes.data, *words)
        np.testing.assert_array_equal(dst[:n * unit], np.concatenate(pieces), err_msg=str(sizes))
        np.testing.assert_array_equal(dst[n * unit:], tail)  # (nothing written past the end)
