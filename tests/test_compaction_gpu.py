"""The GPU compaction kernels (compiler/compact_gpu.py) of ``x[mask]``, ``x[mask] = v`` and
``nonzero``, and of the runs of ``unique_values`` / ``unique_counts``: compile-only checks for sm_90,
gfx90a, gfx942 and gfx1100 on any machine; against NumPy on a GPU (every dtype, sizes
across tiles, masks of every density, views; runs within a tile and across many)."""

import concurrent.futures
import contextlib
import re
import threading

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray.compiler import compact_gpu
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.targets.codeobject import check_code_object
from conftest import ALL_DTYPES, gpu_devices, random_array
from test_gather_gpu import fake_gpu  # noqa: F401 (a fixture)

NEEDS_GPU = "needs a GPU (NVIDIA CUDA or AMD HIP)"
requires_gpu = pytest.mark.skipif(not gpu_devices("cuda") and not gpu_devices("hip"), reason=NEEDS_GPU)


def _compact_module(target, size, runs=None):
    module = ir.Module("compact")
    module.triple = target.triple
    module.data_layout = target.data_layout
    if runs is None:
        compact_gpu.build_compact_module(module, target, "rk_cg", size)
    else:
        compact_gpu.build_runs_module(module, target, "rk_cg", runs)
    return module


def _shared_bytes(ptx: str) -> int:
    """The bytes of all of a module's shared arrays: the driver's linker gives every entry
    all of them, so together they must fit a block's 48 KiB of static shared memory."""
    return sum(map(int, re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx)))


@pytest.mark.parametrize("size", compact_gpu.SIZES)
def test_nvptx_compaction(size):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_compact_module(target, size))
    for suffix in compact_gpu.entries(size):
        assert f".entry rk_cg{suffix}(" in ptx
    assert (".entry rk_cg_p(" in ptx) == (size != 0)  # (flat indices place nothing)
    assert "vote.sync.ballot.b32" in ptx and "popc.b32" in ptx and "ld.local" not in ptx
    assert _shared_bytes(ptx) <= 48 * 1024
    assert isinstance(target.compile(_compact_module(target, size)), bytes)


def _entry(ptx: str, name: str) -> str:
    return ptx.split(f".entry {name}(")[1].split(".entry ")[0]


@pytest.mark.parametrize("size", compact_gpu.SIZES)
def test_nvptx_register_caps_and_early_reads(size):
    """The count, write and place entries' register caps (blocks a multiprocessor holds at once),
    and the flat indices' write reading its tile's first slot (the scan's 64-bit word)
    before its first barrier, so that read's latency passes beside the mask's (the
    value writes read it after their ranks)."""
    target = target_for("sm_90")
    ptx = target.emit_ptx(_compact_module(target, size))
    caps = {0: compact_gpu.INDEX_WRITE_BLOCKS, 16: None}
    assert re.findall(r"\.minnctapersm (\d+)", _entry(ptx, "rk_cg")) == [str(compact_gpu.COUNT_BLOCKS)]
    write = _entry(ptx, "rk_cg_w")
    want = caps.get(size, compact_gpu.WRITE_BLOCKS)
    assert re.findall(r"\.minnctapersm (\d+)", write) == ([] if want is None else [str(want)])
    if size not in (0, 16):
        assert re.findall(r"\.minnctapersm (\d+)", _entry(ptx, "rk_cg_p")) == [str(compact_gpu.PLACE_BLOCKS)]
    if size <= 4:  # (no 64-bit value: the scan's word is the first 64-bit read)
        lines = write.splitlines()
        first_barrier = next(k for k, line in enumerate(lines) if "bar.sync" in line)
        first_word = next(k for k, line in enumerate(lines) if re.search(r"ld\.global[.\w]*\.[bsu]64", line))
        # (the value writes read it after their ranks: read first, float32 ``x[m]`` was slower)
        assert (first_word < first_barrier) == (size == 0)


@pytest.mark.parametrize("kind", compact_gpu.RUN_KINDS)
def test_nvptx_runs(kind):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_compact_module(target, None, kind))
    for suffix in compact_gpu.RUN_ENTRIES:
        assert f".entry rk_cg{suffix}(" in ptx
    # (the max-scans of run starts: shuffles up; the comparisons: floats unordered)
    assert "shfl.sync.up.b32" in ptx and "ld.local" not in ptx
    assert _shared_bytes(ptx) <= 48 * 1024
    if kind[0] == "f":
        assert "setp.nan" in ptx or "setp.neu" in ptx
    assert isinstance(target.compile(_compact_module(target, None, kind)), bytes)


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_amdgpu_code_objects(arch):
    target = AMDGPUTarget(arch)
    for size in compact_gpu.SIZES:
        hsaco = target.compile(_compact_module(target, size))
        assert check_code_object(hsaco, arch, ["rk_cg" + s for s in compact_gpu.entries(size)]) == []
    for kind in ("i1", "f4", "c16"):
        hsaco = target.compile(_compact_module(target, None, kind))
        assert check_code_object(hsaco, arch, ["rk_cg" + s for s in compact_gpu.RUN_ENTRIES]) == []


def test_errors():
    host = target_for("host")
    with pytest.raises(ValueError, match="needs a GPU target"):
        _compact_module(host, 4)
    with pytest.raises(ValueError, match="bytes, not 3"):
        _compact_module(target_for("sm_90"), 3)
    with pytest.raises(ValueError, match="needs a GPU target|need a GPU target"):
        _compact_module(host, None, "f4")
    with pytest.raises(ValueError, match="not 'f16'"):
        _compact_module(target_for("sm_90"), None, "f16")
    assert compact_gpu.packer("_w").size == 8 * (1 + len(compact_gpu.PARAMS["_w"]))
    assert compact_gpu.packer("_w", True).size == 8 * (1 + len(compact_gpu.RUN_PARAMS["_w"]))


def _gpu(device):
    if device.kind == "cpu":
        pytest.skip(NEEDS_GPU)


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
    c = random_array((3 * tile + 9,), dtype, rng)
    mc = rng.random(c.size) < 0.5
    for lo in (1, 4, 8, 12):  # sources off and on their four elements' alignment, masks off 16 bytes
        xs, ms = ra.asarray(c, device=device)[lo:], ra.asarray(mc, device=device)[lo:]
        np.testing.assert_array_equal(xs[ms].get(), c[lo:][mc[lo:]])
        np.testing.assert_array_equal(ra.nonzero(ms)[0].get(), np.nonzero(mc[lo:])[0])


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_place_every_dtype(device, dtype):
    """``x[m] = v`` on a GPU (the place entry for a C-contiguous ``x``; the compaction's
    positions and a scatter for a view): every value size, sizes across tiles and their
    tails, every density, a mask off a 4-byte word, a destination off its alignment, a value
    that is a view of ``x``, and values too many or too few, which raise with nothing written
    (the place entry, queued before the count is read back, checks the count itself)."""
    _gpu(device)
    rng = np.random.default_rng(6)
    tile = compact_gpu.TILE
    for n in (1, 5, tile - 1, tile, 3 * tile + 5, 2 ** 20 + 3):
        a = random_array((n,), dtype, rng)
        for p in (0.0, 0.3, 1.0):
            m = rng.random(n) < p
            v = random_array((int(m.sum()),), dtype, rng)
            x, want = ra.asarray(a, device=device), a.copy()
            x[ra.asarray(m, device=device)] = ra.asarray(v, device=device)
            want[m] = v
            np.testing.assert_array_equal(x.get(), want)
            for k in {m.sum() + 2, max(m.sum() - 1, 2)} - {m.sum()}:  # (too many values, too few)
                with pytest.raises(ValueError, match=rf"value of shape \({k},\) into an index result"):
                    x[ra.asarray(m, device=device)] = ra.asarray(np.resize(v, k), device=device)
                np.testing.assert_array_equal(x.get(), want)  # (nothing written)
    a = random_array((37, 1001), dtype, rng)
    m = rng.random(a.shape) < 0.5
    for lo in (0, 1, 3):  # (a mask off a 4-byte word: copied for the kernels)
        x, want = ra.asarray(a, device=device), a.copy()
        mm = ra.asarray(np.concatenate([np.zeros(lo, bool), m.ravel()]), device=device)[lo:].reshape(a.shape)
        k = int(m.sum())
        x[mm] = x.reshape((-1,))[:k]  # (the value a view of the destination)
        want[m] = a.reshape(-1)[:k]
        np.testing.assert_array_equal(x.get(), want)
    b = random_array((3 * tile + 9,), dtype, rng)
    mb = rng.random(b.size - 1) < 0.5
    for lo in (0, 1):  # (a destination off its four elements' alignment: written one by one)
        x, want = ra.asarray(b, device=device), b.copy()
        v = random_array((int(mb.sum()),), dtype, rng)
        x[lo:lo + b.size - 1][ra.asarray(mb, device=device)] = ra.asarray(v, device=device)
        want[lo:lo + b.size - 1][mb] = v
        np.testing.assert_array_equal(x.get(), want)
    x, want = ra.asarray(a, device=device), a.copy()
    v = random_array((int(m[::-1, 3::2].sum()),), dtype, rng)
    x[::-1, 3::2][ra.asarray(m, device=device)[::-1, 3::2]] = ra.asarray(v, device=device)
    want[::-1, 3::2][m[::-1, 3::2]] = v
    np.testing.assert_array_equal(x.get(), want)


@requires_gpu
def test_compaction_scan_of_many_tiles(device):
    """More tiles than the scan entry's block adds up in one round (its carry between
    rounds)."""
    _gpu(device)
    rng = np.random.default_rng(5)
    n = compact_gpu.TILE * compact_gpu.BLOCK * compact_gpu.SCAN_ITEMS * 2 + 12345
    m = rng.random(n) < 0.5
    a = rng.integers(-100, 100, n).astype(np.int16)
    mm, x = ra.asarray(m, device=device), ra.asarray(a, device=device)
    np.testing.assert_array_equal(x[mm].get(), a[m])
    np.testing.assert_array_equal(ra.nonzero(mm)[0].get(), np.nonzero(m)[0])


@requires_gpu
def test_compactions_in_threads_on_streams_of_their_own(device):
    """Threads selecting, finding and placing at once, half of them on a stream of their
    own: each reads its own count as its scan writes it (the host waits neither for the
    stream nor for the write) and gets its own result; every mapped word goes back."""
    _gpu(device)
    rng = np.random.default_rng(8)
    n = 3 * compact_gpu.TILE + 77
    data = [(rng.standard_normal(n).astype(np.float32), rng.random(n) < p) for p in (0.1, 0.5, 0.9, 0.0)]
    errors = []

    def work(t):
        try:
            a, m = data[t % len(data)]
            stream = device.runtime.stream_create(device.index) if t % 2 else None
            with stream if stream is not None else contextlib.nullcontext():
                x, mm = ra.asarray(a, device=device), ra.asarray(m, device=device)
                for r in range(20):
                    np.testing.assert_array_equal(x[mm].get(), a[m])
                    np.testing.assert_array_equal(ra.nonzero(mm)[0].get(), np.nonzero(m)[0])
                    z, want = ra.asarray(a, device=device), a.copy()
                    v = (a[m] + r).astype(np.float32)
                    z[mm] = ra.asarray(v, device=device)
                    want[m] = v
                    np.testing.assert_array_equal(z.get(), want)
        except BaseException as e:  # (reported by the test, not lost in the thread)
            errors.append(e)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert not errors, errors[0]
    assert device.runtime.mapped_words(device.index).lent == 0


def _runs_of(a):
    """NumPy's unique values and counts of ``a`` (NaNs distinct, as the standard asks)."""
    return np.unique(a, return_counts=True, equal_nan=False)


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_runs_every_dtype(device, dtype):
    """``unique_values`` / ``unique_counts`` through the runs module: few values (runs over
    many tiles), many (runs within a tile), one value, lengths around the tile."""
    _gpu(device)
    rng = np.random.default_rng(6)
    tile = compact_gpu.TILE
    for n in (1, 2, 7, tile - 1, tile, tile + 1, 5 * tile + 3, 2 ** 20 + 11):
        for span in (2, 60, 10 ** 6):
            a = random_array((n,), dtype, rng, low=-span, high=span)
            if np.dtype(dtype).kind in "fc":
                a = np.round(a)  # (whole values: runs of equal floats)
                if n > 8:
                    a[rng.integers(0, n, 3)] = np.nan
                    a[rng.integers(0, n, 2)] = -0.0
                    if np.dtype(dtype).kind == "c":
                        a[rng.integers(0, n, 2)] = complex(1, np.nan)
            x = ra.asarray(a, device=device)
            v, c = _runs_of(a)
            r = ra.unique_counts(x)
            np.testing.assert_array_equal(r.values.get(), v)
            np.testing.assert_array_equal(r.counts.get(), c)
            assert r.counts.dtype == ra.int64 and int(r.counts.sum()) == n
            np.testing.assert_array_equal(ra.unique_values(x).get(), v)
    a = np.full(3 * tile + 5, 7, dtype=dtype)  # one run over every tile
    r = ra.unique_counts(ra.asarray(a, device=device))
    np.testing.assert_array_equal(r.values.get(), a[:1])
    np.testing.assert_array_equal(r.counts.get(), [a.size])


@requires_gpu
@pytest.mark.parametrize("write_first", [True, False])
def test_runs_results_sized_before_or_after_the_write(device, monkeypatch, write_first):
    """The runs' write queued before the read-back of their number (results of the input's
    length, their blocks then cut to the runs) or after it (``WRITE_FIRST_BYTES``
    passed): the same results, each in a block of its own size."""
    import rocarray._masks as ai

    _gpu(device)
    if not write_first:
        monkeypatch.setattr(ai, "WRITE_FIRST_BYTES", 0)
    rng = np.random.default_rng(8)
    n = 3 * compact_gpu.TILE + 77
    for a in (rng.permutation(n).astype(np.float32),                    # every element a run
              rng.integers(-3, 4, n).astype(np.int32),                  # seven runs
              np.repeat(np.arange(n // 3, dtype=np.int64), 3)[:n - 5]):  # a third of the elements
        r = ra.unique_counts(ra.asarray(a, device=device))
        want, counts = np.unique(a, return_counts=True)
        np.testing.assert_array_equal(r.values.get(), want)
        np.testing.assert_array_equal(r.counts.get(), counts)
        np.testing.assert_array_equal(ra.unique_values(ra.asarray(a, device=device)).get(), want)
        assert r.values._buf.nbytes == want.nbytes and r.counts._buf.nbytes == 8 * want.size


@requires_gpu
@pytest.mark.parametrize("write_first", [True, False])
def test_compactions_sized_before_or_after_the_write(device, monkeypatch, write_first):
    """``x[mask]`` and ``nonzero`` written before the read-back of their count, into blocks
    of the mask's length cut to the count, or after it (``WRITE_FIRST_BYTES`` passed);
    a block cut joins again once its result is freed, so a loop of them settles on the
    pool's blocks (no new driver allocations)."""
    import rocarray._masks as ai

    _gpu(device)
    if not write_first:
        monkeypatch.setattr(ai, "WRITE_FIRST_BYTES", 0)
    rng = np.random.default_rng(9)
    n = 64 * compact_gpu.TILE + 5
    pool = device.runtime.memory_pool(device.index)
    for dtype in (np.float32, np.int64, np.complex128, np.int8):
        a = (rng.standard_normal(n) * 10).astype(dtype)
        x = ra.asarray(a, device=device)
        for fraction in (0.0, 0.003, 0.5, 1.0):
            m = rng.random(n) < fraction
            mm = ra.asarray(m, device=device)
            got = x[mm]
            np.testing.assert_array_equal(got.get(), a[m])
            assert got._buf.nbytes == a[m].nbytes
            np.testing.assert_array_equal(ra.nonzero(mm)[0].get(), np.nonzero(m)[0])
        m = a.real > 0
        mm = ra.asarray(m, device=device)
        before = None
        for step in range(6):
            r = x[mm]
            if step == 3:
                before = pool.driver_allocations()
        assert pool.driver_allocations() == before
        np.testing.assert_array_equal(r.get(), a[m])


@requires_gpu
def test_runs_scan_of_many_tiles(device):
    """More tiles than the scan entry's block takes in one round, with runs longer than a
    round of tiles (the last tile holding a start carried between rounds)."""
    _gpu(device)
    rng = np.random.default_rng(7)
    round_ = compact_gpu.TILE * compact_gpu.BLOCK * compact_gpu.SCAN_ITEMS
    n = 2 * round_ + 12345
    # values 0..9 with runs of very different lengths: 5 covers more than a round
    lengths = np.array([1, 3, compact_gpu.TILE * 3 + 1, 17, 1, round_ + 999, 2, 5, 40, 0])
    lengths[-1] = n - lengths.sum()
    a = np.repeat(np.arange(10, dtype=np.int16), lengths)
    r = ra.unique_counts(ra.asarray(a[rng.permutation(n)], device=device))
    np.testing.assert_array_equal(r.values.get(), np.arange(10))
    np.testing.assert_array_equal(r.counts.get(), lengths)


def test_a_compactions_block_written_first_is_freed_when_its_wait_fails(fake_gpu, monkeypatch):
    """On the fake runtime (launches recorded, not run): ``x[mask]`` and ``nonzero`` queue
    their write into a block of the mask's length before the count is back; a wait for
    the count that raises (a Ctrl-C) leaves no block in use, and a longest result that
    does not fit is written once it is sized, into a block of the count's size."""
    import gc

    import rocarray._masks as ai

    _, device = fake_gpu
    pool = device.runtime.memory_pool(device.index)
    rng = np.random.default_rng(10)
    n = 40 * compact_gpu.TILE + 3
    x = ra.asarray(rng.standard_normal(n).astype(np.float32), device=device)
    mask = ra.asarray(rng.random(n) < 0.5, device=device)
    asked = []

    def interrupted(kernel, device, scan, then=None):
        scan(0)
        asked.append(then())
        raise KeyboardInterrupt

    monkeypatch.setattr(ai, "_counted", interrupted)
    for op in (lambda: x[mask], lambda: ra.nonzero(mask)):
        for _ in range(2):  # (the first call also makes the stream's status words, which stay)
            used = pool.used_bytes()
            with pytest.raises(KeyboardInterrupt):
                op()
            assert asked.pop()[3].nbytes >= 4 * n  # (the write was queued first)
            gc.collect()
        assert pool.used_bytes() == used

    sizes = []
    real_write = ai._write

    def no_room(kernel, tiles, area, nbytes, device):
        sizes.append(nbytes)
        if nbytes == 4 * n:
            raise MemoryError("no room for the longest result")
        return real_write(kernel, tiles, area, nbytes, device)

    monkeypatch.setattr(ai, "_counted", lambda kernel, device, scan, then=None: (scan(0), then())[1:] + (1234,))
    monkeypatch.setattr(ai, "_write", no_room)
    got = x[mask]
    assert got.shape == (1234,) and got._buf.nbytes == 4 * 1234 and sizes == [4 * n, 4 * 1234]


def test_count_entry_scans_in_its_last_block():
    """The count entry publishes each tile's count as one relaxed 64-bit write (no fence,
    no atomic add) and its last block reads the status words as relaxed loads, so no scan
    entry is left; the runs module's count is capped for its own blocks."""
    target = target_for("sm_90")
    ptx = target.emit_ptx(_compact_module(target, 4))
    count = _entry(ptx, "rk_cg")
    assert ".entry rk_cg_s(" not in ptx and "atom." not in count and "membar" not in count and "fence" not in count
    assert len(re.findall(r"st\.relaxed\.\w+\.global\.b64", count)) == 1
    assert len(re.findall(r"ld\.relaxed\.\w+\.global\.b64", count)) >= compact_gpu.SCAN_ITEMS
    runs = target.emit_ptx(_compact_module(target, None, "f4"))
    assert re.findall(r"\.minnctapersm (\d+)", _entry(runs, "rk_cg")) == [str(compact_gpu.RUNS_COUNT_BLOCKS)]
    assert compact_gpu.status_words(1) == compact_gpu.status_words(compact_gpu.BLOCK * compact_gpu.SCAN_ITEMS) \
        == compact_gpu.BLOCK * compact_gpu.SCAN_ITEMS


@requires_gpu
def test_compactions_share_the_streams_status_words(device, monkeypatch):
    """Compactions, places, runs and single-pass scans one after another on one stream
    take their tags from the stream's status words, and no call reads a count another
    left: every result exact against NumPy, then with the tags running out every few
    calls (the words zeroed), on a stream of the test's own and from four threads."""
    from rocarray import _chain_status
    from rocarray.runtime.streams import Stream
    from test_scan_chained import _single_pass

    _gpu(device)
    rng = np.random.default_rng(21)
    sizes = (compact_gpu.TILE * 3 + 7, 2 ** 20 + 5, compact_gpu.TILE * compact_gpu.BLOCK * compact_gpu.SCAN_ITEMS + 9)
    hs = [rng.integers(-50, 50, n).astype(np.int32) for n in sizes]
    xs = [ra.asarray(h, device=device) for h in hs]
    ms = [ra.asarray(h > 0, device=device) for h in hs]
    sorted_ = [ra.asarray(np.sort(h), device=device) for h in hs]
    _single_pass(lambda: ra.cumulative_sum(xs[1]))

    def calls(k):
        h = hs[k]
        placed = ra.asarray(h, device=device)
        placed[ms[k]] = ra.arange(int((h > 0).sum()), dtype=ra.int32, device=device)
        want_placed = h.copy()
        want_placed[h > 0] = np.arange((h > 0).sum())
        values, counts = ra.unique_counts(sorted_[k])
        want_values, want_counts = np.unique(h, return_counts=True)
        return [(xs[k][ms[k]], h[h > 0]), (ra.nonzero(ms[k])[0], np.nonzero(h > 0)[0]),
                (ra.cumulative_sum(xs[k]), np.cumsum(h)), (placed, want_placed), (values, want_values),
                (counts, want_counts)]

    def check(pairs):
        for got, want in pairs:
            np.testing.assert_array_equal(got.get(), want)

    status = _chain_status.chain_status(device)
    for rounds in range(2):
        got = [pair for _ in range(3) for k in range(len(hs)) for pair in calls(k)]
        check(got)
        monkeypatch.setattr(_chain_status, "TAGS", 7)  # (zeroed every sixth call)
    with Stream(device.runtime, device.index) as own:
        got = [pair for k in range(len(hs)) for pair in calls(k)]
        assert _chain_status.chain_status(device) is not status
    own.synchronize()
    check(got)

    def work(k):
        for _ in range(3):
            check(calls(k % len(hs)))

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))  # (a thread's failure raises here)
