"""Transposed copies, gathers along one axis, searchsorted and the joins of contiguous arrays
(concat, stack) against NumPy on every device (on a GPU through rocarray/_gather_gpu.py's
kernels): every dtype, sizes that are not multiples of a tile, views with offsets and
negative strides, batched transposes, every index dtype with negative, out-of-range and
empty indices, searches with NaNs and ties, joins of one to eleven pieces in every unit;
on a GPU, a new size compiles nothing and a join, once its module is loaded, is one launch
per ``JOIN_PIECES`` pieces and no driver copy (the join kernel compiled for GPU targets and
run on the host: tests/compiler/test_gather_gpu_ir.py)."""

import contextlib
import ctypes
import re
import struct
import threading

import numpy as np
import pytest

import rocarray as ra
from rocarray import _advanced_indexing, _device, _gather_gpu, _launch, cache
from rocarray.compiler import gather_gpu as G
from rocarray.compiler.cache import drain_background
from rocarray.runtime.gpu import GPURuntime
from conftest import ALL_DTYPES, DEVICES, random_array
from runtime._fake_hooks import HostBackedHooks, mapped_host_address

_INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
_ODD = ((1, 1), (33, 65), (1000, 3), (3, 1000), (4097, 31), (2, 33), (8, 9), (9, 8))
_GPUS = [d for d in DEVICES if d.kind != "cpu"]
_NEEDS_A_GPU = ("needs a GPU: an NVIDIA GPU with the CUDA driver (cuda-bindings) or an AMD GPU with ROCm "
                "(hip-python)")


def _tiles_loaded(device, *dtypes):
    """On a GPU, the transposing copies' modules for ``dtypes`` loaded, so that a test's
    copies take the tiles (a first transposing copy takes the elementwise copy while they
    compile: ``test_first_transposing_copies_while_the_tiles_compile``)."""
    if _gather_gpu.on_gpu(device):
        for dt in dtypes:
            _gather_gpu._kernel(device, "transpose", np.dtype(dt).itemsize)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_transposes_odd_sizes(device, dtype):
    _tiles_loaded(device, dtype)
    rng = np.random.default_rng(21)
    for shape in _ODD:
        a = random_array(shape, dtype, rng)
        x = ra.asarray(a, device=device)
        np.testing.assert_array_equal(x.T.copy().get(), np.ascontiguousarray(a.T), err_msg=str(shape))
    a = random_array((70, 45), dtype, rng)
    x = ra.asarray(a, device=device)
    # offsets and negative strides on both axes; a strided destination
    for v, va in ((x[3:, ::-1].T, a[3:, ::-1].T), (x[::-3, 5:40:2].T, a[::-3, 5:40:2].T)):
        np.testing.assert_array_equal(ra.asarray(v, copy=True).get(), np.ascontiguousarray(va))
    out = ra.zeros((90, 70), dtype=x.dtype, device=device)
    out[::2] = x.T
    expect = np.zeros((90, 70), dtype=a.dtype)
    expect[::2] = a.T
    np.testing.assert_array_equal(out.get(), expect)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.float16, np.float32, np.int64, np.complex128], ids=str)
def test_transposes_batched(device, dtype):
    _tiles_loaded(device, dtype)
    rng = np.random.default_rng(22)
    b = random_array((3, 33, 65), dtype, rng)
    y = ra.asarray(b, device=device)
    for perm in ((0, 2, 1), (2, 0, 1), (1, 2, 0), (2, 1, 0)):
        np.testing.assert_array_equal(ra.permute_dims(y, perm).copy().get(), np.ascontiguousarray(b.transpose(perm)),
                                      err_msg=str(perm))
    np.testing.assert_array_equal(ra.permute_dims(y[::-1, 1:, ::-2], (2, 0, 1)).copy().get(),
                                  np.ascontiguousarray(b[::-1, 1:, ::-2].transpose(2, 0, 1)))
    # more axes than the kernel's batch: the outer ones looped over
    c = random_array((2, 3, 5, 7), dtype, rng)
    z = ra.asarray(c, device=device)
    np.testing.assert_array_equal(ra.permute_dims(z, (3, 1, 0, 2)).copy().get(),
                                  np.ascontiguousarray(c.transpose(3, 1, 0, 2)))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32, np.int64], ids=str)
def test_transposes_whole_tiles_aligned_or_not(device, dtype):
    _tiles_loaded(device, dtype)
    # whole tiles and edges, starts 8-byte aligned or 4 bytes past, odd rows either side
    rng = np.random.default_rng(23)
    a = random_array((300, 200), dtype, rng)
    x = ra.asarray(a, device=device)
    for view in (lambda v: v.T, lambda v: v[2:, 4:].T, lambda v: v[:, 1:].T, lambda v: v[1:, 3:131].T,
                 lambda v: v[:, ::-1].T, lambda v: v[::2, :].T):
        np.testing.assert_array_equal(view(x).copy().get(), np.ascontiguousarray(view(a)))
    out = ra.zeros((200, 301), dtype=x.dtype, device=device)
    out[:, 1:] = x.T
    expect = np.zeros((200, 301), dtype=a.dtype)
    expect[:, 1:] = a.T
    np.testing.assert_array_equal(out.get(), expect)
    b = random_array((3, 128, 130), dtype, rng)
    y = ra.asarray(b, device=device)
    np.testing.assert_array_equal(ra.permute_dims(y[:, :, 2:], (0, 2, 1)).copy().get(),
                                  np.ascontiguousarray(b[:, :, 2:].transpose(0, 2, 1)))


def test_transposed_astype_and_contiguous(device):
    _tiles_loaded(device, np.float32)
    a = random_array((129, 67), np.float32)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(ra.astype(x.T, ra.int32).get(), a.T.astype(np.int32))
    np.testing.assert_array_equal(ra.astype(x.T, ra.float32, copy=True).get(), a.T)


@pytest.mark.skipif(not _GPUS, reason=_NEEDS_A_GPU)
@pytest.mark.parametrize("device", _GPUS, ids=str)
def test_first_transposing_copies_while_the_tiles_compile(device, monkeypatch):
    """On a GPU, with no transposing copy's module loaded: the first copies take the
    elementwise copy and start the tiles' compile, later ones take the tiles; both as NumPy."""
    drain_background()
    monkeypatch.setattr(_launch, "_full_modules", {})
    monkeypatch.setattr(_launch, "_full_modules_asked", set())
    monkeypatch.setattr(_gather_gpu, "_transpose_plans", {})
    rng = np.random.default_rng(24)
    for dtype in (np.int8, np.float16, np.float32, np.int64, np.complex128):
        a = random_array((67, 129), dtype, rng)
        x = ra.asarray(a, device=device)
        np.testing.assert_array_equal(x.T.copy().get(), np.ascontiguousarray(a.T))
        assert not _gather_gpu._transpose_plans  # (the elementwise copy served)
        drain_background()
        np.testing.assert_array_equal(x[1:, ::-1].T.copy().get(), np.ascontiguousarray(a[1:, ::-1].T))
        assert _gather_gpu._transpose_plans
        _gather_gpu._transpose_plans.clear()
    drain_background()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_take_and_take_along_every_dtype(device, dtype):
    rng = np.random.default_rng(23)
    a = random_array((9, 33, 7), dtype, rng)
    x = ra.asarray(a, device=device)
    for axis in range(3):
        n = a.shape[axis]
        k = rng.integers(-n, n, size=(5, 4))
        np.testing.assert_array_equal(ra.take(x, ra.asarray(k, device=device), axis=axis).get(),
                                      np.take(a, k, axis=axis))
        shape = list(a.shape)
        shape[axis] = 6
        k = rng.integers(-n, n, size=shape)
        np.testing.assert_array_equal(ra.take_along_axis(x, ra.asarray(k, device=device), axis=axis).get(),
                                      np.take_along_axis(a, k, axis=axis))
        shape[(axis + 1) % 3] = 1  # broadcast indices
        k = rng.integers(-n, n, size=shape)
        np.testing.assert_array_equal(ra.take_along_axis(x, ra.asarray(k, device=device), axis=axis).get(),
                                      np.take_along_axis(a, k, axis=axis))
    # a flipped view with an offset; x[idx] and x[:, idx]
    v, va = x[1::2, ::-1], a[1::2, ::-1]
    k = rng.integers(-33, 33, size=50)
    kx = ra.asarray(k, device=device)
    np.testing.assert_array_equal(ra.take(v, kx, axis=1).get(), np.take(va, k, axis=1))
    np.testing.assert_array_equal(x[:, kx].get(), a[:, k])
    np.testing.assert_array_equal(x[kx % 9].get(), a[k % 9])
    k2 = rng.integers(-33, 33, size=(4, 12, 7))
    np.testing.assert_array_equal(ra.take_along_axis(v, ra.asarray(k2, device=device), axis=1).get(),
                                  np.take_along_axis(va, k2, axis=1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_puts_along_an_axis_every_dtype(device, dtype):
    """``x[..., idx, ...] = v`` (on a GPU the scatter module loaded first): 1-D past the
    host's threads' size, along each axis, into flipped and strided views, one value, int16
    and int32 indices; an index out of range writes nothing.  Indices are distinct: which
    of equal ones lands is unspecified on a GPU."""
    rng = np.random.default_rng(27)
    _scatter_loaded(device, dtype)
    n = (1 << 18) + 9
    a = random_array((n,), dtype, rng)
    x = ra.asarray(a.copy(), device=device)
    k = rng.permutation(n)[:n // 3] - n * (rng.random(n // 3) < 0.5)
    v = random_array((k.size,), dtype, rng)
    x[ra.asarray(k, device=device)] = ra.asarray(v, device=device)
    a[k] = v
    np.testing.assert_array_equal(x.get(), a)
    b = random_array((9, 33, 7), dtype, rng)
    y = ra.asarray(b.copy(), device=device)
    for axis in range(3):
        m = b.shape[axis]
        k = (rng.permutation(m)[:5] - m * (rng.random(5) < 0.5)).astype(np.int32 if axis else np.int16)
        key = (slice(None),) * axis + (k,)
        val = random_array(b[key].shape, dtype, rng)
        y[(slice(None),) * axis + (ra.asarray(k, device=device),)] = ra.asarray(val, device=device)
        b[key] = val
        np.testing.assert_array_equal(y.get(), b, err_msg=f"axis {axis}")
    k = rng.permutation(33)[:6] - 33
    for view in (lambda t: t[1::2, ::-1], lambda t: t[:, 3:, ::-2]):
        kv = rng.permutation(view(b).shape[1])[:6]
        val = random_array(view(b)[:, kv].shape, dtype, rng)
        view(y)[:, ra.asarray(kv, device=device)] = ra.asarray(val, device=device)
        view(b)[:, kv] = val
        np.testing.assert_array_equal(y.get(), b)
    one = random_array((1,), dtype, rng)
    y[:, ra.asarray(k, device=device)] = ra.asarray(one[0], device=device)
    b[:, k] = one[0]
    np.testing.assert_array_equal(y.get(), b)
    bad = k.copy()
    bad[2] = 33
    with pytest.raises(IndexError, match="index 33 is out of bounds for axis 1 with size 33"):
        y[:, ra.asarray(bad, device=device)] = ra.asarray(one[0], device=device)
    np.testing.assert_array_equal(y.get(), b)


def _one_writers_value(got, idx, vals):
    """Each element of ``got`` (rows along axis 0) that ``idx`` names holds, whole, the
    value of one of the writes to it: ``vals[k]`` for some ``k`` with ``idx[k]`` there."""
    n = got.shape[0]
    ii = idx.astype(np.int64) % n
    ok = np.zeros(got.shape, bool)
    same = (got[ii].real.view(f"u{got.real.itemsize}") == vals.real.view(f"u{got.real.itemsize}")) & \
        (got[ii].imag.view(f"u{got.imag.itemsize}") == vals.imag.view(f"u{got.imag.itemsize}"))
    np.logical_or.at(ok, ii, same)
    return ok[np.unique(ii)].all()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_puts_of_repeated_indices_write_complex_elements_whole(device, dtype):
    """``x[idx] = v`` with each index repeated many times: which write lands is
    unspecified, but an element holds one writer's value whole, never the real part of one
    and the imaginary of another (a GPU's two 8-byte stores of a complex128 could; each
    part is stored with its own register, so the parts differ between writers).  The
    scatter module's path, the kernels' path (a first put while it compiles, here called
    directly), rows of several elements, two index arrays (flat positions)."""
    rng = np.random.default_rng(41)
    n, m = 64, 1 << 18
    idx = rng.integers(-n, n, m)
    vals = (rng.standard_normal(m) + 1j * rng.standard_normal(m)).astype(dtype)
    _scatter_loaded(device, dtype)
    for shape in ((n,), (n, 3)):
        x = ra.zeros(shape, dtype=dtype, device=device)
        v = np.broadcast_to(vals[:, None], (m,) + shape[1:]) if len(shape) > 1 else vals
        x[ra.asarray(idx, device=device)] = ra.asarray(np.ascontiguousarray(v), device=device)
        assert _one_writers_value(x.get(), idx, v), shape
    # the elementwise kernels' put and scatter (what a put takes while the module compiles,
    # or where the axes do not merge), called as put_axis would
    x = ra.zeros((n,), dtype=dtype, device=device)
    k = ra.asarray(idx, device=device)
    _advanced_indexing._put1(k, ra.asarray(vals, device=device), n, x)
    assert _one_writers_value(x.get(), idx, vals)
    y = ra.zeros((n, 2), dtype=dtype, device=device)
    col = rng.integers(0, 2, m)
    y[k, ra.asarray(col, device=device)] = ra.asarray(vals, device=device)
    flat = (idx % n) * 2 + col
    assert _one_writers_value(y.get().reshape(-1), flat, vals)


def test_complex_elements_stored_whole():
    """Compile-only: a 16-byte element of the GPU scatter module (sm_90), and a complex
    element of a raw array in the kernel language on a GPU (sm_90), is one vector store
    (where aligned); on the host the puts' kernels store it whole too (one instruction:
    threads may write one element at once), other kernels part by part."""
    from llvmlite import ir

    from rocarray._user_kernels import _user_spec
    from rocarray.targets import target_for
    from rocarray.targets.host import HostTarget

    target = target_for("sm_90")
    module = ir.Module("scatter")
    module.triple, module.data_layout = target.triple, target.data_layout
    G.build_scatter(module, target, "rk_sc", 16, 64, True)
    assert "st.global.v2.b64" in target.emit_ptx(module)
    for dt, store, part in (("complex64", "st.v2.b32", "float"), ("complex128", "st.v2.b64", "double")):
        d, i64 = np.dtype(dt), np.dtype(np.int64)
        spec = _user_spec("rk_put_whole", "dst[idx] = v;", "", ("idx", "v", "dst"), ("in", "in", "raw"),
                          (i64, d, d), {}, (), False, False)
        assert store in target.emit_ptx(spec.build_module(target)), dt
        assert f"store <2 x {part}>" not in str(spec.build_module(HostTarget())), dt
        whole = _user_spec("rk_put_whole", "dst[idx] = v;", "", ("idx", "v", "dst"), ("in", "in", "raw"),
                           (i64, d, d), {}, (), False, False, True)
        assert f"store <2 x {part}>" in str(whole.build_module(HostTarget())), dt
    assert all(k._whole_stores for k in (_advanced_indexing._put, _advanced_indexing._put1,
                                         _advanced_indexing._scatter))


@pytest.mark.parametrize("idt", _INDEX_DTYPES, ids=lambda d: np.dtype(d).name)
def test_gather_index_dtypes_errors_and_empty(device, idt):
    rng = np.random.default_rng(24)
    a = random_array((2000,), np.float64, rng)
    x = ra.asarray(a, device=device)
    info = np.iinfo(idt)
    lo, hi = max(info.min, -2000), min(info.max, 1999)
    k = rng.integers(lo, hi, size=3001, endpoint=True).astype(idt)
    np.testing.assert_array_equal(ra.take(x, ra.asarray(k, device=device)).get(), np.take(a, k))
    m = a.reshape(40, 50)
    km = rng.integers(max(lo, -50), min(hi, 49), size=(40, 7), endpoint=True).astype(idt)
    np.testing.assert_array_equal(ra.take_along_axis(ra.asarray(m, device=device), ra.asarray(km, device=device),
                                                     axis=1).get(), np.take_along_axis(m, km, axis=1))
    # out of range: the last element, past the end, and (signed) before the start
    for bad in [2000] + ([-2001] if info.min < 0 else []):
        if not info.min <= bad <= info.max:
            bad = info.max if bad > 0 else info.min
            if -2000 <= bad < 2000:
                continue
        kb = k.copy()
        kb[-1] = bad
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for axis 0 with size 2000"):
            ra.take(x, ra.asarray(kb, device=device))
    # a gather that succeeds after a failed one (the flag is fresh)
    np.testing.assert_array_equal(ra.take(x, ra.asarray(k[:10], device=device)).get(), np.take(a, k[:10]))
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 50"):
        kmb = km.copy()
        kmb[3, 2] = min(info.max, 50)
        ra.take_along_axis(ra.asarray(m, device=device), ra.asarray(kmb, device=device), axis=1)
    empty = ra.asarray(np.zeros((0,), dtype=idt), device=device)
    assert ra.take(x, empty).shape == (0,)
    assert ra.take(ra.asarray(m, device=device), empty, axis=1).shape == (40, 0)


def _search_data(dtype, rng, n):
    a = random_array((n,), dtype, rng, low=-20, high=20)
    if np.dtype(dtype).kind in "fc":
        a = a.round()  # ties
        nan = np.array(np.nan, dtype=dtype)
        a[rng.random(n) < 0.1] = nan
        if np.dtype(dtype).kind == "c":
            a[rng.random(n) < 0.05] = np.array(complex(3, np.nan), dtype=dtype)
    return np.sort(a)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_searchsorted_nans_ties_sides_sorter(device, dtype):
    rng = np.random.default_rng(25)
    for n in (0, 1, 2, 5, 1000, 4099):
        table = _search_data(dtype, rng, n)
        queries = _search_data(dtype, rng, 3000)
        rng.shuffle(queries)
        q = queries.reshape(30, 100)
        x1, x2 = ra.asarray(table, device=device), ra.asarray(q, device=device)
        for side in ("left", "right"):
            np.testing.assert_array_equal(ra.searchsorted(x1, x2, side=side).get(),
                                          np.searchsorted(table, q, side=side), err_msg=f"n={n} {side}")
            # strided queries and table, a sorter
            np.testing.assert_array_equal(ra.searchsorted(x1, x2[::-2, 1::3], side=side).get(),
                                          np.searchsorted(table, q[::-2, 1::3], side=side))
        perm = rng.permutation(n)
        sorter = np.argsort(perm, kind="stable")
        shuffled = table[perm]
        np.testing.assert_array_equal(
            ra.searchsorted(ra.asarray(shuffled, device=device), x2, side="right",
                            sorter=ra.asarray(sorter, device=device)).get(),
            np.searchsorted(shuffled, q, side="right", sorter=sorter))


def _compiles():
    drain_background()  # (a first call the interpreter ran compiles in the background)
    i = cache.info()
    return i["compiled"] + i["disk_hits"]


def test_new_sizes_compile_nothing(device):
    if not _gather_gpu.on_gpu(device):
        pytest.skip("the GPU kernels need a GPU (CUDA or HIP)")
    rng = np.random.default_rng(26)

    def run(n, m):
        a = random_array((n, m), np.float32, rng)
        x = ra.asarray(a, device=device)
        x.T.copy()
        k = ra.asarray(rng.integers(0, m, size=(n, 3)), device=device)
        ra.take_along_axis(x, k, axis=1)
        ra.take(x, k[:, 0], axis=1)
        ra.searchsorted(ra.sort(x[0]), x[1])

    run(40, 50)
    run(96, 1000)  # (past the elementwise ops' tier-up size: their full tier is in place)
    run(5, 3)  # (sides too short for tiles: the elementwise copy)
    before = _compiles()
    run(77, 1031)
    run(7, 2)
    assert _compiles() == before


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_isin_nans_zeros_invert(device, dtype):
    rng = np.random.default_rng(27)
    a = _search_data(dtype, rng, 2000).reshape(40, 50)
    b = _search_data(dtype, rng, 300)
    if np.dtype(dtype).kind in "fc":
        a[0, :3] = np.array([-0.0, 0.0, np.nan]).astype(dtype)
        b[:2] = np.array([0.0, np.nan]).astype(dtype)
    rng.shuffle(b)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    for invert in (False, True):
        np.testing.assert_array_equal(ra.isin(x, y, invert=invert).get(), np.isin(a, b, invert=invert))
        np.testing.assert_array_equal(ra.isin(x[::-2, 1::3], y, invert=invert).get(),
                                      np.isin(a[::-2, 1::3], b, invert=invert))


def test_broadcast_sources_copied(device):
    a = random_array((1, 100), np.float32)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(ra.asarray(ra.broadcast_to(x, (50, 100)), copy=True).get(),
                                  np.broadcast_to(a, (50, 100)))
    np.testing.assert_array_equal(ra.asarray(ra.broadcast_to(x.T, (100, 50)), copy=True).get(),
                                  np.broadcast_to(a.T, (100, 50)))
    out = ra.zeros((100, 50), dtype=ra.float32, device=device)
    out.T[...] = ra.broadcast_to(x, (50, 100))
    np.testing.assert_array_equal(out.get(), np.broadcast_to(a, (50, 100)).T)


# -- the GPU path's host side on a fake device ------------------------------------------------
#
# A fake CUDA runtime whose memory is host memory (tests/runtime/_fake_hooks.py) and whose
# launches of the gather kernel are carried out here with NumPy from the packed words, as
# the kernel reads them: the layouts, launch words, flag words and stream waits of
# ``_gather_gpu.gather_axis`` and its callers run on any machine.


class _GatherHooks(HostBackedHooks):
    """Host-backed fake hooks that run the gather and join kernels' launches and the
    driver's device copies."""

    def __init__(self):
        super().__init__()
        self.names = {}
        self.gathers = []  # (stream, the flag word's device address) of each gather launched
        self.joins = []  # (unit, grid, block, the words after ``n``) of each join launched
        self.transposes = []  # (element size, the words) of each transposing copy launched
        self.gather_entries = []  # whether each gather launched took 32-bit offsets
        self.scatters = []  # (mode, 32-bit offsets) of each scatter-module launch

    def arch(self, index):
        return "sm_90"  # (a real target: the module is compiled, only its load is pretend)

    def module_get_function(self, module, name):
        handle = super().module_get_function(module, name)
        self.names[handle] = name
        return handle

    def _record(self, function, grid, block, shared, stream, extra):
        code = super()._record(function, grid, block, shared, stream, extra)
        match = re.match(r"rk_gather_(\d+)_(\d+)_(True|False)_", self.names.get(function, ""))
        if match and not code:
            data = self.launches[-1][5]
            self._gather(int(match[1]), int(match[2]), match[3] == "True", data)
            self.gathers.append((stream, struct.unpack_from("<Q", data, 32)[0]))
            self.gather_entries.append(self.names[function].endswith(G.GATHER_NARROW))
        name = self.names.get(function, "")
        match = re.match(r"rk_scatter_(\d+)_(\d+)_(True|False)_", name)
        if match and not code:
            mode = re.search(r"_(one|check)(_n)?$", name)
            mode = mode[1] if mode else "values"
            self.scatters.append((mode, name.endswith(G.GATHER_NARROW)))
            self._scatter(int(match[1]), int(match[2]), match[3] == "True", mode, self.launches[-1][5])
        match = re.match(r"rk_transpose_(\d+)_", name)
        if match and not code:
            words = struct.unpack("<" + "Q" * (1 + len(G.PARAMS["transpose"])), self.launches[-1][5])
            self.transposes.append((int(match[1]), words))
            self._transpose(int(match[1]), words)
        if name.startswith("rk_join_") and not code:
            match = re.search(r"_u(\d+)$", name)  # (the first entry moves the widest unit)
            unit = int(match[1]) if match else G.JOIN_UNITS[0]
            words = struct.unpack("<" + "Q" * (1 + len(G.PARAMS["join"])), self.launches[-1][5])
            self.joins.append((unit, grid, block, words))
            start = 0
            for source, end in zip(words[2::2], words[3::2]):
                ctypes.memmove(words[1] + start * unit, source, (end - start) * unit)
                start = end
        return code

    def memcpy_dtod(self, dst, src, nbytes, stream):
        super().memcpy_dtod(dst, src, nbytes, stream)
        ctypes.memmove(dst, src, nbytes)

    def _bytes(self, address):
        """(the bytes of the block holding ``address``, its offset there)."""
        for base, block in self.blocks.items():
            if base <= address < base + len(block):
                return np.frombuffer(block, np.uint8), address - base
        raise KeyError(f"{address:#x} is not device memory")

    def _transpose(self, isz, words):
        """The transposing copy the words describe, done with NumPy."""
        n, src, dst, R, C = words[:5]
        ss0, ss1, ds0, ds1, sb, db = (w - (1 << 64) if w >> 63 else w for w in words[5:11])
        tr, tc = words[11:13]
        b, r, c = np.meshgrid(np.arange(n // (tr * tc)), np.arange(R), np.arange(C), indexing="ij")
        smem, s_at = self._bytes(src)
        dmem, d_at = self._bytes(dst)
        frm = s_at + (b * sb + r * ss0 + c * ss1).reshape(-1, 1) * isz + np.arange(isz)
        to = d_at + (b * db + r * ds0 + c * ds1).reshape(-1, 1) * isz + np.arange(isz)
        dmem[to] = smem[frm]

    def _positions(self, words, bits, signed):
        """(flat positions i, their rows, their q, the wrapped indices, which are out of
        range) of a gather's or scatter's launch words."""
        n, _, idx, _, _, nax, MQ, _, _, Q, _, _ = words[:12]
        ip, ij, iq = (w - (1 << 64) if w >> 63 else w for w in words[12:15])
        i = np.arange(n, dtype=np.int64)
        row, r = i // MQ, i % MQ
        j, q = r // Q, r % Q
        mem, at = self._bytes(idx)
        xsz = bits // 8
        raw = mem[at + (row * ip + j * ij + q * iq)[:, None] * xsz + np.arange(xsz)]
        v = raw.view(f"{'i' if signed else 'u'}{xsz}").reshape(-1).astype(np.int64)
        v = np.where(v < 0, v + nax, v)
        return i, row, q, v, (v < 0) | (v >= nax)

    def _scatter(self, isz, bits, signed, mode, data):
        """The scatter's check or write the words describe, done with NumPy."""
        words = struct.unpack("<" + "Q" * 18, data)
        vals, dst, flag = words[1], words[3], words[4]
        dp, da, dq = (w - (1 << 64) if w >> 63 else w for w in words[15:])
        i, row, q, v, bad = self._positions(words, bits, signed)
        if mode == "check":
            if bad.any():
                ctypes.c_int32.from_address(mapped_host_address(self, flag)).value = 1
            return
        i, row, q, v = i[~bad], row[~bad], q[~bad], v[~bad]
        mem, at = self._bytes(vals)
        values = mem[at + (np.zeros_like(i) if mode == "one" else i)[:, None] * isz + np.arange(isz)]
        mem, at = self._bytes(dst)
        mem[at + (row * dp + v * da + q * dq)[:, None] * isz + np.arange(isz)] = values

    def _gather(self, isz, bits, signed, data):
        words = struct.unpack("<" + "Q" * 18, data)
        n, src, out, flag = words[0], words[1], words[3], words[4]
        sp, sa, sq = (w - (1 << 64) if w >> 63 else w for w in words[15:])
        i, row, q, v, bad = self._positions(words, bits, signed)
        if bad.any():
            ctypes.c_int32.from_address(mapped_host_address(self, flag)).value = 1
        v[bad] = 0
        mem, at = self._bytes(src)
        values = mem[at + (row * sp + v * sa + q * sq)[:, None] * isz + np.arange(isz)]
        mem, at = self._bytes(out)
        mem[at:at + n * isz] = values.reshape(-1)


@pytest.fixture
def fake_gpu(monkeypatch):
    """``cuda:0`` on the fake runtime, with the tables that hold what was loaded for it
    emptied for the test (a real ``cuda:0``'s are back after it).  Compiles in the
    background finish before the tables are swapped and again before they are put back,
    so that none lands in the other's tables."""
    drain_background()
    api = _GatherHooks()
    rt = GPURuntime(api)
    rt.kind = "cuda"
    device = ra.Device("cuda:0")
    monkeypatch.setitem(_device._runtimes, "cuda", rt)
    monkeypatch.setattr(device, "_runtime", rt)
    for table in ("_loaded", "_device_targets", "_full_modules"):
        monkeypatch.setattr(_launch, table, {})
    monkeypatch.setattr(_launch, "_full_modules_asked", set())
    monkeypatch.setattr(_gather_gpu, "_plans", {})
    monkeypatch.setattr(_gather_gpu, "_scatter_plans", {})
    monkeypatch.setattr(_gather_gpu, "_transpose_plans", {})

    def host_check(idx, n, axis):  # (the reductions of ``check_bounds`` do not run here)
        k = idx.get()
        bad = k[(k < -n) | (k >= n)]
        if bad.size:
            raise IndexError(f"index {bad.flat[0]} is out of bounds for axis {axis} with size {n}")

    monkeypatch.setattr(_advanced_indexing, "check_bounds", host_check)
    yield api, device
    drain_background()


def test_a_first_transposing_copy_on_a_fake_gpu_starts_the_tiles_compile(fake_gpu):
    api, device = fake_gpu
    a = random_array((64, 48), np.float32)
    x = ra.asarray(a, device=device)
    dst = ra.empty((48, 64), dtype=ra.float32, device=device)
    assert _gather_gpu.transpose_copy(x.T, dst) is False and not api.transposes  # (nothing done)
    assert (_gather_gpu._KEY + ("transpose", 4), device) in _launch._full_modules_asked
    drain_background()
    assert _gather_gpu.transpose_copy(x.T, dst) is True and len(api.transposes) == 1
    np.testing.assert_array_equal(dst.get(), np.ascontiguousarray(a.T))


def test_transposes_on_a_fake_gpu_move_4_byte_elements_in_pairs_where_aligned(fake_gpu):
    api, device = fake_gpu
    rng = np.random.default_rng(29)
    _tiles_loaded(device, np.float32, np.int64, np.int16)

    def check(a, view, pairs, out=None, out_view=None):
        x = ra.asarray(a, device=device)
        api.transposes.clear()
        if out is None:
            got, expect = view(x).copy().get(), np.ascontiguousarray(view(a))
        else:
            o, e = ra.asarray(out, device=device), out.copy()
            o[out_view] = view(x)
            e[out_view] = view(a)
            got, expect = o.get(), e
        np.testing.assert_array_equal(got, expect)
        assert [w[-1] for _, w in api.transposes] == [pairs], (a.shape, pairs)
        assert all(isz == a.itemsize for isz, _ in api.transposes)

    for dtype in (np.float32, np.int32, np.uint32):
        a = random_array((256, 192), dtype, rng)
        check(a, lambda v: v.T, 1)
        check(a, lambda v: v[2:, 4:].T, 1)  # (starts 8-byte aligned)
        check(a, lambda v: v[:, 1:].T, 0)  # (starts 4 bytes past)
        check(a, lambda v: v[:, ::-1].T, 0)  # (the source's inner axis runs backwards)
        check(random_array((256, 193), dtype, rng), lambda v: v.T, 0)  # (odd rows)
        # one layout (one plan) at two alignments: the word follows each call's addresses
        c = random_array((256, 194), dtype, rng)
        check(c, lambda v: v[:, :192].T, 1)
        check(c, lambda v: v[:, 1:193].T, 0)
        check(c, lambda v: v[:, 2:194].T, 1)
        check(a, lambda v: v.T, 0, out=np.zeros((192, 257), dtype), out_view=(slice(None), slice(0, 256)))
        check(random_array((3, 128, 96), dtype, rng), lambda v: ra.permute_dims(v, (0, 2, 1))
              if isinstance(v, ra.Array) else v.transpose(0, 2, 1), 1)
    # other sizes: never
    check(random_array((256, 192), np.int64, rng), lambda v: v.T, 0)
    check(random_array((256, 192), np.int16, rng), lambda v: v.T, 0)
    assert not api.callback_errors


def test_gathers_on_a_fake_gpu_launch_words_numpy_agrees_with(fake_gpu):
    api, device = fake_gpu
    rng = np.random.default_rng(28)
    a = random_array((6, 50, 7), np.float32, rng)
    x = ra.asarray(a, device=device)
    for dt in (np.int8, np.uint16, np.int32, np.int64):
        k = rng.integers(0, 6, size=40).astype(dt)
        kx = ra.asarray(k, device=device)
        np.testing.assert_array_equal(x[kx].get(), a[k])
        for axis in range(3):
            kk = (k % a.shape[axis]).astype(dt) - (np.int8(1) if dt != np.uint16 else 0)
            np.testing.assert_array_equal(ra.take(x, ra.asarray(kk, device=device), axis=axis).get(),
                                          np.take(a, kk, axis=axis))
            shape = list(a.shape)
            shape[axis] = 9
            kt = rng.integers(-a.shape[axis], a.shape[axis], size=shape)
            np.testing.assert_array_equal(
                ra.take_along_axis(x, ra.asarray(kt, device=device), axis=axis).get(),
                np.take_along_axis(a, kt, axis=axis), err_msg=f"axis {axis}")
    # a flipped view with an offset (its axes merge), a 1-D source, a broadcast source
    v, va = x[1:, ::-1], a[1:, ::-1]
    kt = rng.integers(-50, 50, size=(5, 11, 7))
    np.testing.assert_array_equal(ra.take_along_axis(v, ra.asarray(kt, device=device), axis=1).get(),
                                  np.take_along_axis(va, kt, axis=1))
    b = random_array((1000,), np.int64, rng)
    k = rng.integers(-1000, 1000, size=(30, 20))
    np.testing.assert_array_equal(ra.take(ra.asarray(b, device=device), ra.asarray(k, device=device)).get(),
                                  np.take(b, k))
    c = random_array((1, 30), np.complex128, rng)
    kt = rng.integers(0, 30, size=(8, 5))
    np.testing.assert_array_equal(
        ra.take_along_axis(ra.asarray(c, device=device), ra.asarray(kt, device=device), axis=1).get(),
        np.take_along_axis(c, kt, axis=1))
    assert not api.callback_errors
    words = device.runtime.mapped_words(0)
    assert words.lent == 0 and len({w for _, w in api.gathers}) == 1  # (one word, lent and taken back)


def test_gathers_on_a_fake_gpu_take_32_bit_offsets_where_every_offset_fits(fake_gpu, monkeypatch):
    api, device = fake_gpu
    rng = np.random.default_rng(30)
    a = random_array((40, 50), np.float32, rng)
    x = ra.asarray(a, device=device)
    k = rng.integers(-50, 50, size=(40, 30))
    kx = ra.asarray(k, device=device)

    def gathers(limit):
        monkeypatch.setattr(_gather_gpu, "_NARROW_MAX", limit)
        monkeypatch.setattr(_gather_gpu, "_plans", {})
        api.gather_entries.clear()
        np.testing.assert_array_equal(ra.take_along_axis(x, kx, axis=1).get(), np.take_along_axis(a, k, axis=1))
        np.testing.assert_array_equal(ra.take(x[:, ::-1], kx[0], axis=1).get(), np.take(a[:, ::-1], k[0], axis=1))
        return list(api.gather_entries)

    assert gathers(1 << 31) == [True, True]
    # (positions: 1,200 and 1,200; the source read up to offsets 1,999 and 1,999 from its
    # start; the indices up to 1,199 and 29)
    assert gathers(2000) == [True, True]
    assert gathers(1999) == [False, False]
    assert gathers(1201) == [False, False]
    assert not api.callback_errors


def test_an_out_of_range_index_on_a_fake_gpu_raises_through_the_flag(fake_gpu):
    api, device = fake_gpu
    a = np.arange(2000, dtype=np.float64)
    x = ra.asarray(a, device=device)
    k = np.arange(-2000, 2000, 7)
    k[-1] = 2000
    with pytest.raises(IndexError, match="index 2000 is out of bounds for axis 0 with size 2000"):
        ra.take(x, ra.asarray(k, device=device))
    stream, word = api.gathers[-1]
    assert ctypes.c_int32.from_address(mapped_host_address(api, word)).value == 1
    assert device.runtime.mapped_words(0).lent == 0
    # the same word again, zeroed before the launch: the next gather succeeds
    np.testing.assert_array_equal(ra.take(x, ra.asarray(k[:-1], device=device)).get(), a[k[:-1]])
    assert api.gathers[-1][1] == word
    m = a.reshape(40, 50)
    km = np.zeros((40, 3), dtype=np.int16)
    km[7, 1] = -51
    with pytest.raises(IndexError, match="index -51 is out of bounds for axis 1 with size 50"):
        ra.take_along_axis(ra.asarray(m, device=device), ra.asarray(km, device=device), axis=1)
    with pytest.raises(IndexError, match="index 2000 is out of bounds for axis 0 with size 2000"):
        x[ra.asarray(k, device=device)]


def _scatter_loaded(device, *dtypes):
    """On a GPU, the scatter modules for elements of ``dtypes`` by int64, int32 and int16
    indices loaded, so that a test's puts take them (a first put takes the elementwise
    kernels while they compile)."""
    if _gather_gpu.on_gpu(device):
        for dt in dtypes:
            for idt in (np.int64, np.int32, np.int16):
                _gather_gpu._kernel(device, "scatter", np.dtype(dt).itemsize, 8 * np.dtype(idt).itemsize, True)


def test_puts_on_a_fake_gpu_check_then_scatter(fake_gpu):
    """``x[idx] = v`` on a GPU once the scatter module is loaded: one check launch, one
    wait, one scatter launch; values in the result's order or one value; along an axis of a
    strided view; an index out of range raises before anything is written."""
    api, device = fake_gpu
    rng = np.random.default_rng(36)
    _scatter_loaded(device, np.float32, np.complex128)
    a = random_array((1000,), np.float32, rng)
    x = ra.asarray(a.copy(), device=device)
    k = rng.permutation(1000)[:300] - 1000 * (rng.random(300) < 0.5)
    v = random_array((300,), np.float32, rng)
    kx, vx = ra.asarray(k, device=device), ra.asarray(v, device=device)
    waits = len([c for c in api.calls if c[0] in ("stream_synchronize", "ctx_synchronize")])
    x[kx] = vx
    a[k] = v
    assert api.scatters == [("check", True), ("values", True)]
    assert len([c for c in api.calls if c[0] in ("stream_synchronize", "ctx_synchronize")]) == waits + 1
    np.testing.assert_array_equal(x.get(), a)
    x[ra.asarray(k[:7].astype(np.int32), device=device)] = 2.5  # (one value)
    a[k[:7]] = 2.5
    assert api.scatters[-2:] == [("check", True), ("one", True)]
    np.testing.assert_array_equal(x.get(), a)
    c = random_array((6, 50, 7), np.complex128, rng)
    xc = ra.asarray(c.copy(), device=device)
    for view, key in ((lambda t: t, (slice(None), rng.permutation(50)[:9])),
                      (lambda t: t[1:, ::-1], (slice(None), rng.permutation(50)[:9] - 50)),
                      (lambda t: t[::2], (rng.permutation(3)[:2].astype(np.int16),)),
                      (lambda t: t[:, :, ::-1], (Ellipsis, np.array([6, 0, -3])))):
        val = random_array(view(c)[key].shape, np.complex128, rng)
        view(xc)[_ra_key(key, device)] = ra.asarray(val, device=device)
        view(c)[key] = val
        assert api.scatters[-1][0] == "values"
        np.testing.assert_array_equal(xc.get(), c)
    count = len(api.scatters)
    bad = k.copy()
    bad[150] = 1000
    with pytest.raises(IndexError, match="index 1000 is out of bounds for axis 0 with size 1000"):
        x[ra.asarray(bad, device=device)] = ra.asarray(v, device=device)
    assert api.scatters[count:] == [("check", True)]  # (nothing written)
    np.testing.assert_array_equal(x.get(), a)
    assert device.runtime.mapped_words(0).lent == 0
    # (a destination whose axes after the indexed one do not merge: the elementwise kernels)
    y = ra.asarray(random_array((4, 5, 6, 8), np.float32, rng), device=device)[:, :, :, ::3]
    count = len(api.scatters)
    y[:, ra.asarray(np.array([1, 3]), device=device)] = 1.0
    assert len(api.scatters) == count
    assert not api.callback_errors


def _ra_key(key, device):
    return tuple(ra.asarray(k, device=device) if isinstance(k, np.ndarray) else k for k in key)


def test_a_first_put_on_a_fake_gpu_starts_the_scatter_compile(fake_gpu):
    api, device = fake_gpu
    x = ra.asarray(np.zeros(100, np.int16), device=device)
    x[ra.asarray(np.array([3, 1]), device=device)] = 1  # (the elementwise kernels: no scatter)
    assert api.scatters == []
    drain_background()
    x[ra.asarray(np.array([3, 1]), device=device)] = 2
    assert api.scatters == [("check", True), ("one", True)]
    np.testing.assert_array_equal(x.get()[[1, 3]], [2, 2])
    assert not api.callback_errors


def test_a_gather_waits_for_the_stream_it_was_launched_on(fake_gpu):
    api, device = fake_gpu
    x = ra.asarray(np.arange(100, dtype=np.int32), device=device)
    k = ra.asarray(np.arange(10), device=device)
    stream = device.runtime.stream_create(0)
    with stream:
        ra.take(x, k)
    assert api.gathers[-1][0] == stream.handle
    waits = [c for c in api.calls if c[0] in ("stream_synchronize", "ctx_synchronize")]
    assert waits[-1] == ("stream_synchronize", stream.handle)


def _gather_in_threads(device, threads=4, rounds=30):
    """Threads taking with and without an index out of range at once, some of them on a
    stream of their own: each gets its own result or its own ``IndexError``."""
    a = np.arange(500, dtype=np.int64)
    x = ra.asarray(a, device=device)
    good = np.arange(-500, 500, 3)
    bad = good.copy()
    bad[5] = 500
    kg, kb = ra.asarray(good, device=device), ra.asarray(bad, device=device)
    errors = []

    def work(t):
        try:
            stream = device.runtime.stream_create(device.index) if t % 2 else None
            with stream if stream is not None else contextlib.nullcontext():
                for r in range(rounds):
                    if (t + r) % 2:
                        with pytest.raises(IndexError, match="index 500 is out of bounds for axis 0 with size 500"):
                            ra.take(x, kb)
                    else:
                        np.testing.assert_array_equal(ra.take(x, kg).get(), a[good])
        except BaseException as e:  # (reported by the test, not lost in the thread)
            errors.append(e)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert not errors
    assert device.runtime.mapped_words(device.index).lent == 0


def test_threads_gathering_at_once_on_a_fake_gpu_each_read_their_own_flag(fake_gpu):
    _gather_in_threads(fake_gpu[1])


@pytest.mark.skipif(not _GPUS, reason=_NEEDS_A_GPU)
@pytest.mark.parametrize("gpu", _GPUS, ids=str)
def test_threads_gathering_at_once_on_a_gpu_each_read_their_own_flag(gpu):
    _gather_in_threads(gpu)


# -- joins of contiguous arrays (concat, stack) -----------------------------------------------

def _join_cases(device, dtype, rng):
    """(what, NumPy's result, rocarray's join of the same arrays, its non-empty pieces) for
    concat along axis 0 and flattened and stack along a new axis 0 of C-contiguous arrays:
    one, two and eleven pieces, empty ones among them, sizes whose bytes are multiples of
    1, 2, 4, 8 and 16 only, views at odd offsets (unaligned addresses), 2-D pieces."""
    def new(*shapes):
        host = [random_array(s, dtype, rng) for s in shapes]
        return host, [ra.asarray(h, device=device) for h in host]

    big = random_array((5000,), dtype, rng)
    xbig = ra.asarray(big, device=device)
    rows = random_array((40, 7), dtype, rng)
    xrows = ra.asarray(rows, device=device)
    joins = [("two", *new((4096,), (8192,))), ("one", *new((777,))),
             ("eleven", *new((5,), (0,), (300,), (1,), (64,), (0,), (129,), (1000,), (3,), (0,), (2049,))),
             ("empty", *new((0,), (0,))),
             ("views", [big[3:], big[1:778], big[16:2064], big[4999:]], [xbig[3:], xbig[1:778], xbig[16:2064],
                                                                        xbig[4999:]]),
             ("2-D", *new((30, 7), (5, 7), (0, 7))), ("2-D views", [rows[3:], rows, rows[39:]],
                                                      [xrows[3:], xrows, xrows[39:]])]
    joins += [(f"{k} and {3 * k} elements", *new((k,), (3 * k,))) for k in (1, 2, 4, 8, 16)]
    stacks = [("two", *new((4096,), (4096,))), ("one", *new((777,))),
              ("eleven views", [big[k:k + 129] for k in range(11)], [xbig[k:k + 129] for k in range(11)]),
              ("eleven empty", *new(*[(0,)] * 11)), ("odd", *new((3,), (3,), (3,))),
              ("2-D views", [rows[3:7], rows[:4], rows[36:]], [xrows[3:7], xrows[:4], xrows[36:]])]
    cases = []
    for what, host, arrays in joins:
        pieces = sum(h.size > 0 for h in host)
        cases.append((f"concat {what}", np.concatenate(host, axis=0), lambda a=arrays: ra.concat(a, axis=0), pieces))
        cases.append((f"concat {what} flat", np.concatenate([h.ravel() for h in host]),
                      lambda a=arrays: ra.concat(a, axis=None), pieces))
    for what, host, arrays in stacks:
        cases.append((f"stack {what}", np.stack(host), lambda a=arrays: ra.stack(a), sum(h.size > 0 for h in host)))
    return cases


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_concat_and_stack_of_contiguous_pieces(device, dtype):
    for what, expect, join, _ in _join_cases(device, dtype, np.random.default_rng(35)):
        np.testing.assert_array_equal(join().get(), expect, err_msg=what)


def _first_joins(device):
    """A join in each unit, the first perhaps the first join here (then the driver's copies
    serve it while the join module compiles in the background); then the module, one for
    every unit, is loaded."""
    base = ra.asarray(np.arange(64, dtype=np.uint8), device=device)
    for unit in G.JOIN_UNITS:
        piece = base[unit:2 * unit]  # (address and size multiples of ``unit``, not of twice it)
        np.testing.assert_array_equal(ra.concat([piece, piece]).get(), np.tile(np.arange(unit, 2 * unit), 2))
    drain_background()
    assert (_gather_gpu._KEY + ("join",), device) in _launch._full_modules


def _joins_take_one_launch(device, dtype, monkeypatch, loaded=lambda: None):
    """Every case of ``_join_cases`` against NumPy with the join module loaded (then
    ``loaded()`` is called): one launch per ``JOIN_PIECES`` non-empty pieces (none for an
    empty result) and no driver copy."""
    _first_joins(device)
    loaded()
    cases = _join_cases(device, dtype, np.random.default_rng(36))
    launches = []
    launch = device.runtime.launch_packed

    def counted(*args, **kwargs):
        launches.append(args)
        launch(*args, **kwargs)

    def no_driver_copy(*args, **kwargs):
        raise AssertionError("a join took the driver's copies with its kernel loaded")

    monkeypatch.setattr(device.runtime, "launch_packed", counted)
    monkeypatch.setattr(device.runtime, "copy_device_to_device", no_driver_copy)
    for what, expect, join, pieces in cases:
        del launches[:]
        np.testing.assert_array_equal(join().get(), expect, err_msg=what)
        assert len(launches) == -(-pieces // G.JOIN_PIECES), what


@pytest.mark.skipif(not _GPUS, reason=_NEEDS_A_GPU)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("gpu", _GPUS, ids=str)
def test_gpu_joins_are_one_kernel_launch(gpu, dtype, monkeypatch):
    _joins_take_one_launch(gpu, dtype, monkeypatch)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.int64, np.complex128], ids=str)
def test_joins_on_a_fake_gpu_launch_words_numpy_agrees_with(fake_gpu, dtype, monkeypatch):
    api, device = fake_gpu
    # the first join of a unit: its module compiles in the background, the driver copies
    x = ra.asarray(np.arange(100, dtype=np.float32), device=device)
    np.testing.assert_array_equal(ra.concat([x, x]).get(), np.tile(np.arange(100, dtype=np.float32), 2))
    assert not api.joins and sum(c[0] == "dtod" for c in api.calls) == 2
    _joins_take_one_launch(device, dtype, monkeypatch, loaded=api.joins.clear)
    assert not api.callback_errors
    for unit, grid, block, words in api.joins:
        n, dst, sources, ends = words[0], words[1], words[2::2], words[3::2]
        assert block == G.BLOCK and grid == min(-(-n // (G.BLOCK * G.ITEMS)), 1 << 20)
        assert list(ends) == sorted(ends) and ends[-1] == n and 0 < ends[0]
        used = [s for s, e, before in zip(sources, ends, (0,) + ends) if e > before]
        assert all(a % unit == 0 for a in [dst, *used])
        assert len(used) == G.JOIN_PIECES or ends[len(used) - 1] == n  # (the unused pieces last)
    # every unit an element's size allows, each in some case
    assert {j[0] for j in api.joins} == {u for u in G.JOIN_UNITS if u >= np.dtype(dtype).itemsize}


def test_joins_on_a_fake_gpu_check_their_input_as_elsewhere(fake_gpu):
    """The GPU's quick path of ``concat`` / ``stack`` (contiguous arrays of one dtype) leaves
    every other input to the general path, which says what is wrong as on any device.
    (Promotion and views need the elementwise kernels, which the fake device does not run:
    the suite's device tests cover them on a real GPU.)"""
    api, device = fake_gpu
    rng = np.random.default_rng(37)
    a, b = random_array((3, 4), np.float32, rng), random_array((2, 4), np.float32, rng)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    np.testing.assert_array_equal(ra.concat((x, y, x)).get(), np.concatenate([a, b, a]))
    np.testing.assert_array_equal(ra.stack([x, x]).get(), np.stack([a, a]))
    with pytest.raises(ValueError, match="same number of dimensions"):
        ra.concat([x, ra.reshape(x, (12,))])
    with pytest.raises(ValueError, match="differ outside axis 0"):
        ra.concat([x, ra.reshape(x, (4, 3))])
    with pytest.raises(ValueError, match="same shape"):
        ra.stack([x, x[1:]])
    with pytest.raises(ValueError, match="0-d arrays cannot be concatenated"):
        ra.concat([x[0, 0], x[0, 1]])
    with pytest.raises(TypeError, match=r"arrays\[1\]"):
        ra.concat([x, a])
    with pytest.raises(TypeError, match="tuple or list"):
        ra.stack(x)
    with pytest.raises(ValueError, match="at least one array"):
        ra.concat([])
