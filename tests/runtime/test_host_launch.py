"""The host runtime's three launch paths: small (the GIL kept, parameters in a bytes
object), medium (the GIL released, one thread) and large (split across threads); and the
warm path's output allocation (``_Plan.run_contiguous``)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import rocarray as ra
from rocarray import _tiers
from rocarray.runtime.host import HostRuntime

from _isolated import run_python


@pytest.mark.parametrize("n", [1, 7, HostRuntime.small_launch - 1, HostRuntime.small_launch,
                               HostRuntime.small_launch + 3, HostRuntime.parallel_threshold + 129])
def test_each_launch_path_matches_numpy(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    x, y = ra.asarray(a, device="cpu"), ra.asarray(b, device="cpu")
    np.testing.assert_array_equal(ra.asnumpy(x * y), a * b)          # warm path (operator)
    np.testing.assert_array_equal(ra.asnumpy(ra.add(x, y)), a + b)
    np.testing.assert_array_equal(ra.asnumpy(ra.subtract(x[::2], 1.5)), a[::2] - np.float32(1.5))
    s = ra.asarray(a.reshape(-1, 1)[:, [0, 0]] if n < 1000 else a[: n - n % 4].reshape(-1, 4),
                   device="cpu")
    np.testing.assert_array_equal(ra.asnumpy(ra.negative(s.T)), -ra.asnumpy(s).T)


def test_warm_path_outputs_are_fresh_contiguous_arrays():
    a = ra.asarray(np.arange(12, dtype=np.int32).reshape(3, 4), device="cpu")
    r1 = a + a
    r2 = a + a
    assert r1.shape == (3, 4) and r1.dtype == ra.int32
    assert ra.asnumpy(r1).flags.c_contiguous
    r1[...] = 0  # distinct buffers
    np.testing.assert_array_equal(ra.asnumpy(r2), 2 * np.arange(12).reshape(3, 4))
    e = ra.asarray(np.zeros((0, 5), np.float32), device="cpu")
    assert (e + e).shape == (0, 5)


def _in_threads(work, n):
    """Run ``work(k)`` for k < n, each on its own thread; what they raised."""
    errors = []

    def guarded(k):
        try:
            work(k)
        except Exception as e:  # reported by the caller
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_small_launches_from_many_threads():
    a = np.arange(100, dtype=np.float64)
    x = ra.asarray(a, device="cpu")

    def work(k):
        for _ in range(200):
            assert np.array_equal(ra.asnumpy(x * float(k) + x), a * k + a), k

    assert not _in_threads(work, 4)


def test_direct_launches_from_many_threads_use_their_own_parameter_areas():
    """The warm path's small launches write the pointers into a parameter area taken off a
    list: threads racing on one op never see each other's pointers."""
    arrays = [np.arange(300, dtype=np.float32) * (k + 1) for k in range(4)]
    xs = [ra.asarray(a, device="cpu") for a in arrays]
    xs[0] + xs[0]  # compiled before the threads start
    areas = ra.add._plans[(ra.float32, ra.float32, xs[0].device)].run_contiguous.__self__.areas
    before = len(areas)  # (the plan is the process's: other tests' threads may have made areas)

    def work(k):
        for _ in range(300):
            assert np.array_equal(ra.asnumpy(xs[k] + xs[k]), 2 * arrays[k]), k

    assert not _in_threads(work, 4)
    assert 1 <= len(areas) <= max(before, 4)


def test_direct_launches_count_quick_tier_calls(monkeypatch):
    """A direct launch of quick-tier code counts towards its tier-up, like a packed one."""
    from rocarray.compiler.cache import drain_background

    x = ra.asarray(np.arange(50, dtype=np.int16), device="cpu")
    x - x
    drain_background()  # (compiled code in place, if the interpreter ran the first call)
    run = ra.subtract._plans[(ra.int16, ra.int16, x.device)].run_contiguous.__self__
    assert run.direct_below == HostRuntime.small_launch
    assert run.kernel.code.tier != "interpreted"
    counted = []
    quick = _tiers.QuickCode(run.kernel.code.functions, run.kernel.code.max_grid)
    quick.calls = 3  # as quick-tier code that has run 3 times
    monkeypatch.setattr(run.kernel, "code", quick)
    monkeypatch.setattr(_tiers.QuickCode, "count", lambda self, kernel, n: counted.append(n))
    np.testing.assert_array_equal(ra.asnumpy(x - x), np.zeros(50, np.int16))
    assert counted == [50]
    big = ra.asarray(np.ones(HostRuntime.small_launch, np.int16), device="cpu")
    np.testing.assert_array_equal(ra.asnumpy(big - big), np.zeros(HostRuntime.small_launch, np.int16))
    assert counted == [50, HostRuntime.small_launch]  # the packed launch counts too


class _Recorder:
    """Stands in for a HostFunction: records the ranges a parallel launch hands out."""

    def __init__(self, slow_thread=None):
        self.ranges = []
        self.threads = set()
        self.lock = threading.Lock()
        self.slow_thread = slow_thread

    def call(self, ptr, lo, hi):
        with self.lock:
            self.ranges.append((lo, hi))
            self.threads.add(threading.get_ident())


@pytest.mark.parametrize("n", [2, 3, 9, 1000, 4096 * 7 + 13, (1 << 20) + 1])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_parallel_launch_hands_out_every_index_once(n, threads):
    from rocarray.runtime.host import PIECES_PER_THREAD

    rt = HostRuntime()
    rt._threads = threads
    f = _Recorder()
    rt._parallel(f, 0, n)
    ranges = sorted(f.ranges)
    assert ranges[0][0] == 0 and ranges[-1][1] == n
    assert all(hi > lo for lo, hi in ranges)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))  # no gap, no overlap
    assert len(ranges) <= PIECES_PER_THREAD * threads
    if n >= 1024 * PIECES_PER_THREAD * threads:
        assert len(ranges) >= PIECES_PER_THREAD * threads - 1  # pieces to hand out, not one per thread


def test_parallel_launch_lets_a_free_thread_take_a_stalled_threads_pieces():
    # a worker that stalls on its first piece (a busy core) does not hold up the call: the
    # calling thread takes the pieces left, instead of waiting to do its fixed share
    import time

    rt = HostRuntime()
    rt._threads = 2
    caller = threading.get_ident()
    done_by = []

    class Stall(_Recorder):
        def call(self, ptr, lo, hi):
            super().call(ptr, lo, hi)
            done_by.append(threading.get_ident())
            if threading.get_ident() != caller:
                time.sleep(0.2)

    f = Stall()
    rt._parallel(f, 0, 1 << 20)
    assert len(f.ranges) == len(done_by) >= 7
    assert done_by.count(caller) >= len(done_by) - 2


def test_large_host_blocks_are_aligned_for_huge_pages():
    from rocarray.runtime.host import HUGE_PAGE, HUGE_PAGE_MIN_BYTES

    n = HUGE_PAGE_MIN_BYTES // 4 + 3
    x = ra.empty(n, dtype=ra.float32, device="cpu")  # from the pool (not NumPy's memory)
    assert x._buf.pool is not None
    if x._buf.pool.api._madvise is not None:
        assert x._buf.ptr % HUGE_PAGE == 0
    x[...] = 1.5
    x[-1] = 2.5
    h = ra.asnumpy(x)
    assert (h[:-1] == 1.5).all() and h[-1] == 2.5
    small = ra.empty(100, dtype=ra.float32, device="cpu")
    assert small._buf.ptr % 64 == 0


def test_host_allocation_beyond_ssize_t_is_a_memory_error():
    # ctypes passes a size_t modulo 2**64: 2**64 + 4096 bytes would give a 4096-byte block
    rt = ra.Device("cpu").runtime
    for nbytes in (2**64 + 4096, 2**63):
        with pytest.raises(MemoryError, match="largest possible allocation"):
            ptr = rt.alloc(0, nbytes)
            rt.free(0, ptr)
    with pytest.raises(MemoryError, match="out of memory allocating"):
        rt.alloc(0, 2**62)


def test_a_few_items_of_much_work_are_split_over_threads(monkeypatch):
    """A kernel call of a few items that each work on many elements (``_work``: rocarray's
    own chunk kernels) leaves the interpreter and is split over the host's threads as
    elementwise work of that size would be; the same items without it run on one thread."""
    from rocarray.runtime import host

    k = ra.ElementwiseKernel("int64 n", "raw int64 out", "long s = 0; for (long j = 0; j < n; j++) s += j ^ i; "
                             "out[i] = s;", "rk_test_items_of_work", _heavy=True)
    rt = ra.Device("cpu").runtime
    monkeypatch.setattr(rt, "_threads", 2)
    split = []
    real = host.HostRuntime._parallel
    monkeypatch.setattr(host.HostRuntime, "_parallel",
                        lambda self, f, ptr, n: (split.append(n), real(self, f, ptr, n)))
    n, items = 5000, 8
    want = np.array([sum(j ^ i for j in range(n)) for i in range(items)])
    for work, parallel in ((0, False), (rt.parallel_threshold, True)):
        split.clear()
        out = ra.zeros((items,), dtype=ra.int64, device="cpu")
        k(n, out, size=items, _work=work)
        np.testing.assert_array_equal(out.get(), want)
        assert split == ([items] if parallel else [])  # (the interpreter would not split them)


INTERRUPTED_LAUNCHES = """
import os, signal, threading, numpy as np, rocarray as ra
signal.signal(signal.SIGINT, signal.default_int_handler)  # (a background job starts with SIGINT ignored)
a = np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32)
x = ra.asarray(a, device="cpu")
ra.exp(x) * 2
hits = 0
for _ in range(20):
    try:
        threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT)).start()
        while True:  # (until the signal comes)
            y = ra.exp(x) * 2 + 1  # (launches on both threads; the arrays freed as it unwinds)
    except KeyboardInterrupt:
        hits += 1
ok = np.allclose(ra.asnumpy(ra.exp(x) * 2 + 1), np.exp(a) * 2 + 1, rtol=1e-5)
print(hits, ok)
"""


def test_ctrl_c_during_threaded_launches_is_a_keyboard_interrupt():
    # Interrupted while the pool's threads ran pieces of a launch, the main thread used to
    # free their argument buffer and arrays under them (a bus error or a segfault).
    r = run_python(INTERRUPTED_LAUNCHES, {"ROCARRAY_NUM_THREADS": "2"}, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["20", "True"]
