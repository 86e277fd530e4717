"""The radix sort behind sort/argsort (rocarray/_radix.py) against NumPy on every device:
every dtype, long lines and many rows, NaN and signed zeros, ties, descending, views; and
thin specialization (a new size compiles nothing)."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import _radix, _sorting_functions, cache
from rocarray._sorting_functions import RADIX_MIN_LINE
from rocarray.compiler.cache import drain_background
from conftest import ALL_DTYPES, random_array


def _desc_argsort(a, axis=-1):
    # the standard's stable descending order: equal elements keep their input order
    e = np.flip(np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable"), axis=axis)
    return a.shape[axis] - 1 - e


def _data(shape, dtype, rng):
    """Random values with many ties, and NaN, infinities and both zeros where they exist."""
    dtype = np.dtype(dtype)
    a = random_array(shape, dtype, rng, low=-40, high=40)
    flat = a.reshape(-1)
    pick = rng.choice(flat.size, size=min(flat.size, 60), replace=False)
    if dtype.kind == "f":
        flat[pick[:12]] = np.nan
        flat[pick[12:20]] = -0.0
        flat[pick[20:28]] = 0.0
        flat[pick[28:32]] = np.inf
        flat[pick[32:36]] = -np.inf
        flat[pick[36:38]] = -np.float32(np.nan)  # a NaN with the sign bit set
    elif dtype.kind == "c":
        flat.real = np.round(flat.real)  # equal real parts: the imaginary part decides
        part = np.finfo(dtype).dtype.type
        flat[pick[:6]] = complex(np.nan, 1)
        flat[pick[6:12]] = complex(2, np.nan)
        flat[pick[12:16]] = complex(np.nan, np.nan)
        flat[pick[16:20]] = complex(-0.0, 3)
        flat[pick[20:24]] = complex(0.0, 3)
        flat.imag[pick[24:30]] = part(-0.0)
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        flat[pick[:3]] = info.min
        flat[pick[3:6]] = info.max
    elif dtype.kind == "u":
        flat[pick[:3]] = np.iinfo(dtype).max
    return a


def _same(got, want):
    """Equal values, NaN where NaN, and the same sign of every zero (bit-level placement)."""
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind in "fc":
        for g, w in ((got.real, want.real), (got.imag, want.imag)) if want.dtype.kind == "c" else ((got, want),):
            z = w == 0
            np.testing.assert_array_equal(np.signbit(g[z]), np.signbit(w[z]))


def _check_line(x, a):
    """Stable argsort and sort of ``x`` along its last axis against NumPy's on ``a``, both
    orders (bit-level placement of NaN and zeros)."""
    order = np.argsort(a, axis=-1, kind="stable")
    got = ra.argsort(x)
    assert got.dtype == ra.int64
    np.testing.assert_array_equal(got.get(), order)
    _same(ra.sort(x).get(), np.take_along_axis(a, order, axis=-1))
    d = _desc_argsort(a)
    np.testing.assert_array_equal(ra.argsort(x, descending=True).get(), d)
    _same(ra.sort(x, descending=True).get(), np.take_along_axis(a, d, axis=-1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_long_line_every_dtype(device, dtype):
    rng = np.random.default_rng(2100)
    a = _data((3000,), dtype, rng)
    _check_line(ra.asarray(a, device=device), a)


@pytest.mark.parametrize("dtype", [ra.int16, ra.uint64, ra.float32, ra.complex128], ids=str)
def test_rows_axes_and_views(device, dtype):
    rng = np.random.default_rng(2101)
    a = _data((5, RADIX_MIN_LINE + 37, 3), dtype, rng)
    x = ra.asarray(a.copy(), device=device)  # (its own memory: on the CPU asarray wraps a)
    order = np.argsort(a, axis=1, kind="stable")
    np.testing.assert_array_equal(ra.argsort(x, axis=1).get(), order)
    _same(ra.sort(x, axis=-2).get(), np.take_along_axis(a, order, axis=1))
    d = _desc_argsort(a, axis=1)
    np.testing.assert_array_equal(ra.argsort(x, axis=1, descending=True).get(), d)
    v = x[:, ::-2, 1]  # a non-contiguous view, reversed
    w = a[:, ::-2, 1]
    np.testing.assert_array_equal(ra.argsort(v).get(), np.argsort(w, kind="stable"))
    _same(ra.sort(v.T, axis=0).get(), np.sort(w.T, axis=0))
    np.testing.assert_array_equal(x.get(), a)  # the input is left alone


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("network", [True, False], ids=["network", "radix"])
def test_rows_every_length_class(device, dtype, network, monkeypatch):
    """Rows on either side of the host's local-array lengths (``ROW_LOCAL_MIN`` to
    ``RCAP``: the elements and their keys sorted on the item's stack), longer rows and one
    line of ``HOST_TILE`` (one item through memory), each order; the values of the rows
    the host's sorting network takes also through the radix sort's row kernel."""
    if not network:
        monkeypatch.setattr(_radix, "_network", lambda *args: None)
    rng = np.random.default_rng(2105)
    for shape in [(3, L) for L in (_radix.ROW_LOCAL_MIN - 1, _radix.ROW_LOCAL_MIN, 700, _radix.RCAP,
                                   _radix.RCAP + 1, 3001)] + [(_radix.HOST_TILE,)]:
        a = _data(shape, dtype, rng)
        _check_line(ra.asarray(a, device=device), a)
    c = ra.full((2, 300), 7, dtype=dtype, device=device)  # every digit skipped: nothing moves
    np.testing.assert_array_equal(ra.argsort(c, descending=True).get(), np.tile(np.arange(300), (2, 1)))


def test_many_rows_and_multi_tile_lines(device):
    rng = np.random.default_rng(2102)
    a = _data((300, 512), np.float64, rng)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(ra.argsort(x).get(), np.argsort(a, kind="stable"))
    # lines of several tiles (tiles smaller than a line: offsets across tiles of one row)
    b = _data((2, 3 * _radix.GPU_TILE + 5), np.int32, rng)
    y = ra.asarray(b, device=device)
    np.testing.assert_array_equal(ra.argsort(y, axis=1).get(), np.argsort(b, axis=1, kind="stable"))
    np.testing.assert_array_equal(ra.argsort(y, axis=1, descending=True).get(), _desc_argsort(b, 1))


def test_constant_and_presorted_lines(device):
    """Digit positions where every key agrees are skipped; all of them: nothing moves."""
    n = RADIX_MIN_LINE * 2
    x = ra.full((n,), 7, dtype=ra.int64, device=device)
    np.testing.assert_array_equal(ra.argsort(x).get(), np.arange(n))
    np.testing.assert_array_equal(ra.argsort(x, descending=True).get(), np.arange(n))
    y = ra.asarray(np.arange(n, dtype=np.uint16)[::-1].copy(), device=device)
    np.testing.assert_array_equal(ra.sort(y).get(), np.arange(n, dtype=np.uint16))


def _compiles():
    drain_background()
    i = cache.info()
    return i["compiled"] + i["disk_hits"]


def test_new_sizes_compile_nothing(device):
    rng = np.random.default_rng(2103)
    # (a short line and a long one: a GPU sorts them with different modules)
    for shape in ((700,), (3 * _radix.GPU_TILE + 5,)):
        ra.argsort(ra.asarray(_data(shape, np.float32, rng), device=device))
        ra.sort(ra.asarray(_data(shape, np.float32, rng), device=device))
    before = _compiles()
    for shape in ((1000,), (4, 333), (3 * _radix.GPU_TILE + 1,)):
        x = ra.asarray(_data(shape, np.float32, rng), device=device)
        ra.argsort(x, descending=True)
        ra.sort(x)
    assert _compiles() == before


def test_radix_kernels_compile_for_gpu_targets():
    """The radix kernels build for NVPTX (PTX with its entry) without a GPU."""
    from rocarray._user_kernels import _user_spec
    from rocarray.targets import target_for

    drain_background()  # (LLVM is driven directly here: no tier-up may be compiling)
    t = target_for("sm_90")
    i64, b, u64 = np.dtype(np.int64), np.dtype(np.bool_), np.dtype(np.uint64)
    for dtype in (np.dtype(np.float32), np.dtype(np.complex128), np.dtype(np.int8)):
        geometry = [i64] * 4 + [b, u64]
        for what, payload in (("hist", False), ("scatter", False), ("scatter", True)):
            k = _radix._kernel(what, dtype, payload)
            if what == "hist":
                kinds = ["raw"] + ["scalar"] * 8 + ["raw"]
                dtypes = [dtype, *geometry, i64, i64, i64]
            elif payload:
                kinds = ["raw"] * 4 + ["scalar"] * 9 + ["raw"] * 3
                dtypes = [dtype, i64, i64, i64, *geometry, i64, i64, i64, dtype, i64, i64]
            else:
                kinds = ["raw"] * 3 + ["scalar"] * 9 + ["raw"] * 2
                dtypes = [dtype, i64, i64, *geometry, i64, i64, i64, dtype, i64]
            spec = _user_spec(k.name, k.operation, k.preamble, k._names, kinds, dtypes,
                              {"T": dtype}, (), True)
            ptx = t.emit_ptx(spec.build_module(t.heavy_tier))
            assert f".entry {spec.entry}(" in ptx
        for payload in (False, True):
            k = _radix._kernel("rows", dtype, payload)
            kinds = ["scalar"] * 4 + ["raw"] * (4 if payload else 2)
            dtypes = [i64, i64, b, u64] + ([dtype, i64, dtype, i64] if payload else [dtype, dtype])
            spec = _user_spec(k.name, k.operation, k.preamble, k._names, kinds, dtypes,
                              {"T": dtype}, (), True)
            assert f".entry {spec.entry}(" in t.emit_ptx(spec.build_module(t.heavy_tier))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("fused", [False, True], ids=["counted", "fused"])
def test_tiled_path_every_dtype(device, dtype, fused, monkeypatch):
    """Rows cut into several tiles (counters through memory, a scan, passes skipped or not;
    on the host, with each pass counting the next pass's digits or not): small tiles here
    so that short test data takes that path on every device."""
    monkeypatch.setattr(_radix, "FUSED_COUNTERS_RATIO", 0 if fused else 10**9)
    monkeypatch.setattr(_radix, "HOST_TILE", 300)
    monkeypatch.setattr(_radix, "GPU_TILE", 300)
    monkeypatch.setattr(_radix, "ROWS_MIN_HOST", 10**9)
    monkeypatch.setattr(_radix, "ROWS_MIN_GPU", 10**9)
    rng = np.random.default_rng(2104)
    a = _data((3, 1000), dtype, rng)
    x = ra.asarray(a, device=device)
    _check_line(x, a)
    np.testing.assert_array_equal(x.get(), a)


def _tiled(monkeypatch, fused):
    """Short lines cut into several tiles on every device (host: with each pass counting
    the next pass's digits, or not)."""
    monkeypatch.setattr(_radix, "FUSED_COUNTERS_RATIO", 0 if fused else 10**9)
    monkeypatch.setattr(_radix, "HOST_TILE", 300)
    monkeypatch.setattr(_radix, "GPU_TILE", 300)
    monkeypatch.setattr(_radix, "ROWS_MIN_HOST", 10**9)
    monkeypatch.setattr(_radix, "ROWS_MIN_GPU", 10**9)


def _bits(a):
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" else a


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("fused", [False, True], ids=["counted", "fused"])
def test_tiled_path_values_from_keys(device, dtype, fused, monkeypatch):
    """Real elements without -0.0 and with no NaN but NumPy's ``nan``: the host sorts their
    keys alone and makes the values back from them (bit for bit, NaN's too); many ties."""
    _tiled(monkeypatch, fused)
    rng = np.random.default_rng(2107)
    a = random_array((3, 1000), dtype, rng, low=-40, high=40)
    if a.dtype.kind == "f":
        _keyed_specials(a, rng)
    x = ra.asarray(a, device=device)
    _check_line(x, a)
    if a.dtype.kind == "f":
        up = np.take_along_axis(a, np.argsort(a, axis=-1, kind="stable"), axis=-1)
        np.testing.assert_array_equal(_bits(ra.sort(x).get()), _bits(up))
        down = np.take_along_axis(a, _desc_argsort(a), axis=-1)
        np.testing.assert_array_equal(_bits(ra.sort(x, descending=True).get()), _bits(down))
    np.testing.assert_array_equal(x.get(), a)


@pytest.mark.parametrize("dtype", [ra.int16, ra.int32, ra.int64, ra.uint16, ra.uint32, ra.uint64], ids=str)
@pytest.mark.parametrize("tiled", [False, True], ids=["line", "tiled"])
def test_integer_key_ranges(device, dtype, tiled, monkeypatch):
    """Integer keys less the smallest one: only the digits of the keys' range are counted
    and moved (one, two, all), at either end of the type's range; equal keys move nothing."""
    if tiled:
        _tiled(monkeypatch, True)
    rng = np.random.default_rng(2108)
    info = np.iinfo(np.dtype(dtype))
    for lo, span in ((info.min, 200), (info.max - 3000, 3000), (0, 2), (info.min, None)):
        hi = info.max if span is None else min(lo + span, info.max)
        a = rng.integers(lo, hi, size=(2, 1500), endpoint=True, dtype=np.dtype(dtype))
        _check_line(ra.asarray(a, device=device), a)
    c = ra.full((2, 1500), info.max, dtype=dtype, device=device)
    np.testing.assert_array_equal(ra.argsort(c, descending=True).get(), np.tile(np.arange(1500), (2, 1)))
    np.testing.assert_array_equal(ra.sort(c).get(), np.full((2, 1500), info.max))


@pytest.mark.parametrize("fused", [False, True], ids=["counted", "fused"])
def test_tiled_path_shared_low_digits(device, fused, monkeypatch):
    """Keys whose lowest digits every key shares (float16's keys, integers in steps of
    2**16, one NaN among them): the first pass is a higher digit, counted on its own; the
    input is left as it was."""
    _tiled(monkeypatch, fused)
    rng = np.random.default_rng(2109)
    for a in (rng.standard_normal((2, 1500)).astype(np.float16),
              rng.integers(-300, 300, size=(2, 1500)).astype(np.int64) << 16):
        if a.dtype.kind == "f":
            a[1, 7] = np.nan
        x = ra.asarray(a, device=device)
        _check_line(x, a)
        np.testing.assert_array_equal(x.get(), a)


def _buckets(monkeypatch, wide: bool) -> list:
    """The host's MSD-first path (``_buckets_sort``) for short test lines: its thresholds
    lowered, every in-cache bucket sorted by wide digits (``wide``) or none; returns the list
    the path appends to at each line sort it is asked for (True: it sorted the line)."""
    monkeypatch.setattr(_radix, "MSD_MIN_HOST", 500)
    monkeypatch.setattr(_radix, "HOST_TILE", 300)
    monkeypatch.setattr(_radix, "ROWS_MIN_HOST", 10**9)
    monkeypatch.setattr(_radix, "BUCKET_SMALL", 10**9 if wide else 0)
    monkeypatch.setattr(_radix, "BUCKET_WIDE_MIN", 16)
    monkeypatch.setattr(_radix, "_kernels", {})  # (the thresholds are in the kernels' text)
    monkeypatch.setattr(_radix, "_network", lambda *args: None)  # (its rows: the radix sort's here)
    # (nor the merge sort's while a network compiles: whether one had, in this process, before
    # the test, would decide the path)
    monkeypatch.setattr(_sorting_functions, "network_pending", lambda *args: False)
    # two threads, as on the CI machine: with more, a bucket holding a larger share of a test
    # line sends it to the LSD passes (the threads could not share it), as it should
    monkeypatch.setattr(ra.Device("cpu").runtime, "_threads", 2)
    calls = []
    real = _radix._buckets_sort

    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(_radix, "_buckets_sort", spy)
    return calls


def _keyed_data(shape, dtype, rng):
    """Values whose keys give them back (no -0.0, no NaN but NumPy's): integers over their
    whole range, floats spread over many exponents with NaN, infinities and zeros."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    a = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, size=shape))).astype(dtype)
    return _keyed_specials(a, rng)


def _keyed_specials(a, rng):
    """``a`` (floats) with NumPy's NaN, +0.0 and both infinities put at random places:
    special values whose keys give them back."""
    flat = a.reshape(-1)
    pick = rng.choice(flat.size, size=40, replace=False)
    flat[pick[:10]] = np.nan
    flat[pick[10:20]] = 0.0
    flat[pick[20:25]] = np.inf
    flat[pick[25:30]] = -np.inf
    return a


def _check_bits(x, a):
    """``sort`` of ``x`` both ways, bit for bit against NumPy's stable sort of ``a``."""
    up = np.take_along_axis(a, np.argsort(a, axis=-1, kind="stable"), axis=-1)
    np.testing.assert_array_equal(_bits(ra.sort(x).get()), _bits(up))
    down = np.take_along_axis(a, _desc_argsort(a), axis=-1)
    np.testing.assert_array_equal(_bits(ra.sort(x, descending=True).get()), _bits(down))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if np.dtype(d).kind in "iuf"], ids=str)
@pytest.mark.parametrize("wide", [False, True], ids=["narrow", "wide"])
def test_buckets_path_every_dtype(device, dtype, wide, monkeypatch):
    """The host's long lines by their top digit first, then each bucket whole: rows of
    integers over their whole range and floats with NaN, infinities and zeros, both orders,
    bit for bit; keys of at least ``MSD_PASSES_MIN`` digits take that path, others the LSD
    passes; the input is left as it was."""
    calls = _buckets(monkeypatch, wide)
    rng = np.random.default_rng(2111)
    a = _keyed_data((3, 5000), dtype, rng)
    x = ra.asarray(a, device=device)
    _check_bits(x, a)
    np.testing.assert_array_equal(x.get(), a)
    if ra.asarray(a, device=device).device.kind == "cpu":
        digits = _radix.key_digits(np.dtype(dtype))
        assert calls == ([True, True] if digits >= _radix.MSD_PASSES_MIN else [])


def test_buckets_path_falls_back(monkeypatch):
    """Lines the MSD-first path leaves to the LSD passes, sorted all the same: one bucket
    holding most of the line (the threads could not share it), -0.0 and a NaN with other
    bits (no key gives them back: the indices move), a short line."""
    calls = _buckets(monkeypatch, False)
    rng = np.random.default_rng(2112)
    skewed = rng.integers(2**31, 2**32, size=4000, dtype=np.uint32)
    skewed[:3800] = (skewed[:3800] & 0xFFFF) | 0x5A800000  # (the smallest keys: one top digit either way)
    skewed[0] = 0x5A800000
    _check_bits(ra.asarray(skewed, device="cpu"), skewed)
    assert calls == [False, False]
    calls.clear()
    special = rng.standard_normal(4000).astype(np.float32)
    special[[5, 900]] = -0.0
    special[77] = -np.float32(np.nan)
    _check_line(ra.asarray(special, device="cpu"), special)
    short = rng.standard_normal(400)
    _check_bits(ra.asarray(short, device="cpu"), short)
    assert calls == []


@pytest.mark.parametrize("case", ["float32", "uint32", "float64"])
def test_buckets_path_long_lines(case):
    """Lines long enough for the MSD-first path at its own thresholds (no settings
    lowered): buckets of both digit widths, and 64-bit keys."""
    rng = np.random.default_rng(2113)
    if case == "uint32":  # buckets of 4096: wide digits
        a = rng.integers(0, 2**32, size=1 << 20, dtype=np.uint32)
    else:  # a few large buckets and many small ones
        a = rng.standard_normal(1 << 18).astype(case)
    x = ra.asarray(a, device="cpu")  # (the host's path, wherever the default device is)
    _check_bits(x, a)
    np.testing.assert_array_equal(x.get(), a)


def test_host_rows_kernel_any_layout():
    """The host's rows kernel on raw operands that are not 1-D (its second raw path;
    ``radix_sort`` passes 1-D ones): rows of every length class, keys and payload."""
    rng = np.random.default_rng(2106)
    for L in (40, 300):
        a = _data((4, L), np.float32, rng)
        keys = ra.asarray(a.copy(), device="cpu")
        idx = ra.asarray(np.tile(np.arange(L), (4, 1)), device="cpu")
        scratch = ra.empty((4, L), dtype=ra.float32, device="cpu")
        scratch_i = ra.empty((4, L), dtype=ra.int64, device="cpu")
        kernel = _radix._kernel("rows_host", np.dtype(np.float32), True)
        kernel(4, L, False, 0, _radix.key_digits(np.dtype(np.float32)), keys, idx, scratch, scratch_i, size=4)
        order = np.argsort(a, axis=1, kind="stable")
        np.testing.assert_array_equal(idx.get(), order)
        _same(keys.get(), np.take_along_axis(a, order, axis=1))
