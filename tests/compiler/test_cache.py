"""The compile cache: memory, then disk, then compile; damaged disk entries recompile;
threads and processes asking for the same new kernel; rocarray.cache.info()."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import threading
import time

import numpy as np
import pytest

import rocarray.cache
from rocarray.compiler import cache as cache_mod
from rocarray.compiler import diskcache
from rocarray.compiler.cache import CompileCache, support_key
from rocarray.compiler.diskcache import DiskCache
from rocarray.runtime import native
from rocarray.runtime.llvm import LLVM_LOCK
from rocarray.targets.base import llvm_facts_key
from rocarray.runtime.hostload import load_host_object
from rocarray.targets.host import HostTarget

# Offset of the first operand's data pointer in the kernel ABI: n, ndim, shape[8].
_OUT_OFFSET = 8 + 8 + 8 * 8


def scale_kernel_ir(target, name: str, factor: float) -> str:
    """A host-ABI kernel with one contiguous float64 output: ``out[i] = i * factor``."""
    return f"""
target triple = "{target.triple}"
target datalayout = "{target.data_layout}"

define void @"{name}"(ptr %args, i64 %start, i64 %stop) nounwind {{
entry:
  %slot = getelementptr inbounds i8, ptr %args, i64 {_OUT_OFFSET}
  %out = load ptr, ptr %slot
  %any = icmp slt i64 %start, %stop
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %x = sitofp i64 %i to double
  %y = fmul double %x, {float(factor)!r}
  %p = getelementptr double, ptr %out, i64 %i
  store double %y, ptr %p
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %stop
  br i1 %more, label %loop, label %done
done:
  ret void
}}
"""


def run_scale_kernel(data: bytes, name: str, n: int = 100) -> np.ndarray:
    out = np.zeros(n)
    args = (ctypes.c_int64 * (2 + 8 + 1 + 8))()
    args[0], args[1], args[2] = n, 1, n
    args[10] = out.ctypes.data
    args[11] = 8
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
        load_host_object(data).address(name))
    fn(ctypes.addressof(args), 0, n)
    return out


@pytest.fixture(scope="module")
def target():
    return HostTarget()


class Builder:
    """``build`` callable that counts its calls."""

    def __init__(self, text, delay=0.0):
        self.text, self.calls, self.delay = text, 0, delay

    def __call__(self):
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        return self.text


def test_memory_then_disk_then_compile(tmp_path, target):
    text = scale_kernel_ir(target, "scale_a", 2.0)
    cache = CompileCache(DiskCache(tmp_path))
    build = Builder(text)
    first = cache.get_or_compile(("scale", "f64", 2.0), build, target)
    again = cache.get_or_compile(("scale", "f64", 2.0), build, target)
    assert again is first and build.calls == 1
    s = cache.stats()
    assert (s["compiled"], s["memory_hits"], s["disk_hits"], s["disk_misses"]) == (1, 1, 0, 1)
    assert s["ir_ms"] > 0 and s["compile_ms"] > 0 and s["disk_ms"] > 0
    np.testing.assert_array_equal(run_scale_kernel(first, "scale_a"), np.arange(100) * 2.0)

    # A fresh process (a new cache on the same directory) reads the bytes back.
    fresh = CompileCache(DiskCache(tmp_path))
    data = fresh.get_or_compile(("scale", "f64", 2.0), Builder(text), target)
    assert data == first
    assert (fresh.stats()["compiled"], fresh.stats()["disk_hits"]) == (0, 1)


def test_disk_hit_builds_no_ir(tmp_path, target):
    text = scale_kernel_ir(target, "scale_b", 3.0)
    first = CompileCache(DiskCache(tmp_path))
    a = first.get_or_compile(("op1", "f64"), Builder(text), target)
    fresh = CompileCache(DiskCache(tmp_path))  # as a new process would
    build = Builder(text)
    b = fresh.get_or_compile(("op1", "f64"), build, target)
    assert a == b and fresh.stats()["disk_hits"] == 1 and fresh.stats()["compiled"] == 0
    assert build.calls == 0
    # another key is another entry, even with the same IR
    fresh.get_or_compile(("op2", "f64"), Builder(text), target)
    assert fresh.stats()["compiled"] == 1

def test_target_options_are_part_of_the_disk_key(tmp_path, target):
    text = scale_kernel_ir(target, "scale_c", 4.0)
    cache = CompileCache(DiskCache(tmp_path))
    cache.get_or_compile(("k",), Builder(text), target)
    cache.get_or_compile(("k",), Builder(text), HostTarget(opt_level=0))
    assert cache.stats()["compiled"] == 2 and cache.disk.info()["entries"] == 2
    assert CompileCache.disk_key(target, text) != CompileCache.disk_key(HostTarget(opt_level=0), text)
    assert CompileCache.disk_key(target, text) != CompileCache.disk_key(target, text + " ")


def _the_entry(tmp_path):
    (name,) = [n for n in os.listdir(tmp_path) if n.endswith(diskcache.SUFFIX)]
    return tmp_path / name


@pytest.mark.parametrize("damage", ["truncate", "flip_byte", "wrong_key"])
def test_damaged_disk_entry_is_recompiled(tmp_path, target, damage):
    text = scale_kernel_ir(target, "scale_d", 5.0)
    good = CompileCache(DiskCache(tmp_path)).get_or_compile(("d",), Builder(text), target)
    path = _the_entry(tmp_path)
    blob = bytearray(path.read_bytes())
    if damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "flip_byte":
        blob[len(blob) - 200] ^= 0xFF
    else:
        blob = bytearray(diskcache.encode_entry("some other key", bytes(blob)))
    path.write_bytes(bytes(blob))

    cache = CompileCache(DiskCache(tmp_path))
    data = cache.get_or_compile(("d",), Builder(text), target)
    assert cache.stats()["compiled"] == 1 and cache.stats()["disk_hits"] == 0
    assert data == good
    np.testing.assert_array_equal(run_scale_kernel(data, "scale_d"), np.arange(100) * 5.0)
    # the entry was rewritten: the next process hits
    again = CompileCache(DiskCache(tmp_path))
    assert again.get_or_compile(("d",), Builder(text), target) == good
    assert again.stats()["disk_hits"] == 1


def test_threads_asking_for_one_new_kernel_compile_it_once(tmp_path, target):
    text = scale_kernel_ir(target, "scale_e", 6.0)
    cache = CompileCache(DiskCache(tmp_path))
    build = Builder(text, delay=0.05)  # keeps the first thread busy while the others arrive
    results, errors = [], []
    barrier = threading.Barrier(8)

    def worker():
        try:
            barrier.wait()
            results.append(cache.get_or_compile(("e",), build, target))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 8 and len(set(results)) == 1
    s = cache.stats()
    assert build.calls == 1 and s["compiled"] == 1
    assert s["waits"] + s["memory_hits"] == 7


def test_a_caller_that_will_not_wait_makes_a_pending_entry_itself(tmp_path, target):
    """``here=True`` (a host call whose quick-tier code has run long enough, ``_tiers``): where
    another thread is making the entry -- a tier-up that may be waiting for the compile
    process -- this thread builds and compiles it too, without waiting, and both get the
    same bytes; the entry is then in memory for everyone."""
    text = scale_kernel_ir(target, "scale_h", 7.0)
    cache = CompileCache(DiskCache(tmp_path))
    release = threading.Event()

    class Slow(Builder):
        def __call__(self):
            if self.calls == 0:
                self.calls += 1
                release.wait(30)  # (the owner: held until the other caller is done)
                return self.text
            return super().__call__()

    build = Slow(text)
    owner_got = []
    owner = threading.Thread(target=lambda: owner_got.append(cache.get_or_compile(("h",), build, target)))
    owner.start()
    while build.calls == 0:
        time.sleep(0.001)
    here = cache.get_or_compile(("h",), build, target, here=True)  # (returns while the owner is held)
    assert build.calls == 2 and owner.is_alive()
    np.testing.assert_array_equal(run_scale_kernel(here, "scale_h"), np.arange(100) * 7.0)
    release.set()
    owner.join()
    assert owner_got == [here] or owner_got[0] == here
    assert cache.get_or_compile(("h",), Builder(text), target) == here and cache.stats()["waits"] == 0


def test_threads_compiling_different_kernels(tmp_path, target):
    cache = CompileCache(DiskCache(tmp_path))
    results, errors = {}, []

    def worker(k):
        try:
            name = f"scale_t{k}"
            data = cache.get_or_compile(("t", k), Builder(scale_kernel_ir(target, name, k)), target)
            results[k] = run_scale_kernel(data, name, 10)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(6):
        np.testing.assert_array_equal(results[k], np.arange(10) * float(k))
    assert cache.stats()["compiled"] == 6


class _AssemblingTarget(HostTarget):
    """A host target with a step after LLVM's, as an assembler is on a GPU target: there it
    records whether another thread could take ``LLVM_LOCK`` meanwhile."""

    def compile(self, module):
        data = super().compile(module)  # (which takes LLVM_LOCK around its LLVM steps)

        def other():
            got = LLVM_LOCK.acquire(timeout=2)
            if got:
                LLVM_LOCK.release()
            self.others_could_lock.append(got)

        t = threading.Thread(target=other)
        t.start()
        t.join()
        return data


def test_the_cache_leaves_a_targets_steps_outside_llvm_unlocked(tmp_path):
    """A GPU target's assembler (nvJitLink, ptxas) or linker runs outside LLVM: the cache
    does not hold ``LLVM_LOCK`` around a whole compile, so another thread's LLVM (a first
    call's, beside a tier-up's assembler) is not held up by it."""
    target = _AssemblingTarget()
    target.others_could_lock = []
    cache = CompileCache(DiskCache(tmp_path))
    data = cache.get_or_compile(("asm", 1), Builder(scale_kernel_ir(target, "scale_asm", 3.0)), target)
    np.testing.assert_array_equal(run_scale_kernel(data, "scale_asm", 10), np.arange(10) * 3.0)
    assert target.others_could_lock == [True]


def test_a_failing_build_reaches_every_waiter_and_is_retried(tmp_path, target):
    cache = CompileCache(DiskCache(tmp_path))
    gate = threading.Event()

    def bad_build():
        gate.wait(5)
        raise RuntimeError("codegen failed")

    caught = []

    def worker():
        try:
            cache.get_or_compile(("bad",), bad_build, target)
        except RuntimeError as exc:
            caught.append(str(exc))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    gate.set()
    for t in threads:
        t.join()
    assert caught == ["codegen failed"] * 3
    text = scale_kernel_ir(target, "scale_f", 1.5)
    assert cache.get_or_compile(("bad",), Builder(text), target)  # nothing stuck
    assert cache.stats()["compiled"] == 1


def test_memory_only_cache(target):
    cache = CompileCache(None)
    text = scale_kernel_ir(target, "scale_g", 7.0)
    cache.get_or_compile(("g",), Builder(text), target)
    cache.get_or_compile(("g",), Builder(text), target)
    s = cache.stats()
    assert (s["compiled"], s["memory_hits"], s["disk_hits"]) == (1, 1, 0)
    cache.clear()
    cache.get_or_compile(("g",), Builder(text), target)
    assert cache.stats()["compiled"] == 2


def _process_worker(directory: str, queue) -> None:
    target = HostTarget()
    cache = CompileCache(DiskCache(directory))
    out = []
    for rnd in range(3):
        for k in range(3):
            name = f"scale_p{k}"
            data = cache.get_or_compile(("p", k), lambda: scale_kernel_ir(target, name, k + 0.5), target)
            out.append(float(run_scale_kernel(data, name, 4)[3]))
            cache.clear(memory=True, disk=False)  # go back to disk every round
    s = cache.stats()
    queue.put((out, s["compiled"], s["disk_hits"]))


def _run_processes(ctx, queue, target, args, count=4):
    """Start ``count`` processes of ``target(*args)``; each puts one result on ``queue``:
    the results, once every process has exited cleanly."""
    procs = [ctx.Process(target=target, args=args) for _ in range(count)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return results


def test_processes_hammering_the_same_kernels(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    results = _run_processes(ctx, queue, _process_worker, (str(tmp_path), queue))
    expected = [3 * (k + 0.5) for k in range(3)] * 3
    for out, compiled, disk_hits in results:
        assert out == expected
        assert compiled + disk_hits == 9 and compiled <= 3
    assert DiskCache(tmp_path).info()["entries"] == 3


def test_public_info_clear_and_reset(tmp_path, monkeypatch, target):
    monkeypatch.setattr(cache_mod, "_default", CompileCache(DiskCache(tmp_path)))
    rocarray.cache.reset_counts()
    info = rocarray.cache.info()
    for key in ("compiled", "memory_hits", "disk_hits", "disk_entries", "disk_bytes", "directory"):
        assert key in info
    assert info["directory"] == str(tmp_path) and info["compiled"] == 0

    cache = cache_mod.default_cache()
    text = scale_kernel_ir(target, "scale_h", 8.0)
    cache.get_or_compile(("h",), Builder(text), target)
    cache.get_or_compile(("h",), Builder(text), target)
    info = rocarray.cache.info()
    assert (info["compiled"], info["memory_hits"], info["disk_entries"]) == (1, 1, 1)
    assert info["disk_bytes"] > 0

    rocarray.cache.clear(memory=True, disk=False)
    cache.get_or_compile(("h",), Builder(text), target)
    assert rocarray.cache.info()["disk_hits"] == 1

    rocarray.cache.clear()
    info = rocarray.cache.info()
    assert info["disk_entries"] == 0 and info["memory_entries"] == 0
    rocarray.cache.reset_counts()
    assert rocarray.cache.info()["compiled"] == 0


def test_default_cache_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "_default", None)
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "env"))
    assert cache_mod.default_cache().disk.directory == str(tmp_path / "env")
    assert cache_mod.default_cache() is cache_mod.default_cache()
    monkeypatch.setattr(cache_mod, "_default", None)
    monkeypatch.setenv("ROCARRAY_DISK_CACHE", "0")
    assert cache_mod.default_cache().disk is None
    assert rocarray.cache.info()["directory"] is None


def test_background_worker_at_exit_ends_the_job_in_hand_and_drops_the_rest(monkeypatch):
    # at exit the tier-up thread gets STOP_SECONDS for its queue; a job still running then
    # is waited for (LLVM must not run in a daemon thread while the interpreter finalises),
    # and the jobs not started are dropped
    import time

    from rocarray.compiler import cache as cache_module

    monkeypatch.setattr(cache_module, "STOP_SECONDS", 0.05)
    worker = cache_module._Background()
    ran = []
    worker.submit(lambda: (time.sleep(0.3), ran.append("long")), quiet=False)
    worker.submit(lambda: ran.append("queued"), quiet=False)
    time.sleep(0.02)  # the first job is in hand
    worker._stop()
    assert ran == ["long"]
    assert not worker._thread.is_alive()


# -- one disk entry per kernel for a target and its quick tier ------------------------------


@pytest.fixture(scope="module")
def tiers(target):
    quick = target.quick_tier
    if quick is None:
        pytest.skip("ROCARRAY_TIERED=0: no quick tier")
    assert quick.stands_in_for is target
    return target, quick


def _entries(tmp_path) -> list:
    return sorted(n for n in os.listdir(tmp_path) if n.endswith(diskcache.SUFFIX))


def test_disk_keys_hold_digests_of_the_kernel_key(target):
    long_key = ("ew", "add", "out0 = in0 + in1;\n" * 200, ("float32",) * 2)
    key = CompileCache.disk_key(target, long_key)
    assert len(key) < 120 and "in0" not in key
    assert key != CompileCache.disk_key(target, long_key[:-1] + (("float64",) * 2,))
    cache_mod._key_digests.clear()  # a memo: the digest is the same when made again
    assert CompileCache.disk_key(target, long_key) == key


def test_quick_and_full_tiers_share_one_entry(tmp_path, tiers):
    full, quick = tiers
    key = ("tiers", "shared")
    first = CompileCache(DiskCache(tmp_path))
    assert first.lookup(key, full, quick) is None
    q = first.get_or_compile(key, Builder(scale_kernel_ir(quick, "scale_q1", 2.0)), quick)
    assert len(_entries(tmp_path)) == 1

    # a new process: one read finds the quick tier's code, a disk hit
    fresh = CompileCache(DiskCache(tmp_path))
    data, tier = fresh.lookup(key, full, quick)
    assert data == q and tier is quick
    assert (fresh.stats()["disk_hits"], fresh.stats()["disk_misses"]) == (1, 0)
    # ... which is no hit for the full tier: compiled, written over it in the same entry
    f = fresh.get_or_compile(key, Builder(scale_kernel_ir(full, "scale_q1", 2.0)), full)
    assert (fresh.stats()["compiled"], fresh.stats()["disk_misses"]) == (1, 1)
    assert len(_entries(tmp_path)) == 1 and f != q

    again = CompileCache(DiskCache(tmp_path))
    assert again.lookup(key, full, quick) == (f, full)
    assert again.lookup(key, full) == (f, full)  # (from memory now)
    np.testing.assert_array_equal(run_scale_kernel(f, "scale_q1"), np.arange(100) * 2.0)

    # a process that compiles the quick tier now (it found nothing a moment ago) does not
    # replace the full tier's code
    late = CompileCache(DiskCache(tmp_path))
    late.get_or_compile(key, Builder(scale_kernel_ir(quick, "scale_q1", 2.0)), quick)
    assert late.stats()["compiled"] == 1
    assert CompileCache(DiskCache(tmp_path)).lookup(key, full, quick) == (f, full)
    assert len(_entries(tmp_path)) == 1


def test_an_entry_asked_for_one_tier_only(tmp_path, tiers):
    full, quick = tiers
    cache = CompileCache(DiskCache(tmp_path))
    q = cache.get_or_compile(("one",), Builder(scale_kernel_ir(quick, "scale_q2", 3.0)), quick)
    fresh = CompileCache(DiskCache(tmp_path))
    assert fresh.lookup(("one",), full) is None  # the full tier's code is not there
    assert fresh.stored(("one",), full) is None and fresh.stored(("one",), quick) == q
    assert fresh.stats()["disk_hits"] == 0  # (``stored`` counts nothing)
    assert fresh.get_or_compile(("one",), Builder("unused"), quick) == q
    assert fresh.stats()["disk_hits"] == 1


@pytest.mark.parametrize("damage", ["truncate", "flip_byte", "foreign_tag"])
def test_damaged_shared_entry_is_recompiled(tmp_path, tiers, damage):
    full, quick = tiers
    key = ("tiers", "damaged", damage)
    text = scale_kernel_ir(quick, "scale_q3", 4.0)
    good = CompileCache(DiskCache(tmp_path)).get_or_compile(key, Builder(text), quick)
    path = tmp_path / _entries(tmp_path)[0]
    disk_key = CompileCache.disk_key(quick, key)
    if damage == "foreign_tag":  # intact, but code of neither tier: another configuration's
        blob = diskcache.encode_entry(disk_key, b"\x07" * cache_mod.TAG_BYTES + good)
    else:
        blob = bytearray(path.read_bytes())
        if damage == "truncate":
            blob = blob[: len(blob) // 2]
        else:
            blob[len(blob) - 200] ^= 0xFF
    path.write_bytes(bytes(blob))

    cache = CompileCache(DiskCache(tmp_path))
    assert cache.lookup(key, full, quick) is None
    build = Builder(text)
    data = cache.get_or_compile(key, build, quick)
    assert build.calls == 1 and cache.stats()["compiled"] == 1 and cache.stats()["disk_hits"] == 0
    assert data == good
    np.testing.assert_array_equal(run_scale_kernel(data, "scale_q3"), np.arange(100) * 4.0)
    fresh = CompileCache(DiskCache(tmp_path))
    if damage == "foreign_tag":
        # an intact entry stays: the quick tier never replaces one, the full tier does
        assert fresh.lookup(key, full, quick) is None
        f = fresh.get_or_compile(key, Builder(scale_kernel_ir(full, "scale_q3", 4.0)), full)
        assert CompileCache(DiskCache(tmp_path)).lookup(key, full, quick) == (f, full)
    else:  # the damaged file was removed and the recompiled code written in its place
        assert fresh.lookup(key, full, quick) == (good, quick)


def _tier_worker(directory: str, barrier, queue) -> None:
    full = HostTarget()
    quick = full.quick_tier
    cache = CompileCache(DiskCache(directory))
    key = ("tiers", "processes")
    barrier.wait()
    found = cache.lookup(key, full, quick)
    if found is None:
        found = cache.get_or_compile(key, lambda: scale_kernel_ir(quick, "scale_qp", 1.25), quick), quick
    first = float(run_scale_kernel(found[0], "scale_qp", 8)[7])
    data = cache.get_or_compile(key, lambda: scale_kernel_ir(full, "scale_qp", 1.25), full)  # tier-up
    hot = float(run_scale_kernel(data, "scale_qp", 8)[7])
    s = cache.stats()
    queue.put((first, hot, found[1] is full, s["compiled"], s["disk_hits"], s["memory_hits"]))


def test_processes_sharing_tier_entries(tmp_path, tiers):
    """Processes meeting one kernel at once, each running its quick tier then tiering up:
    every one runs correct code, counts each tier once (compiled, disk hit, or memory hit
    when the first read found the full tier), and the one entry ends up with the full
    tier's code."""
    ctx = multiprocessing.get_context("spawn")
    queue, barrier = ctx.Queue(), ctx.Barrier(4)
    results = _run_processes(ctx, queue, _tier_worker, (str(tmp_path), barrier, queue))
    for first, hot, found_full, compiled, disk_hits, memory_hits in results:
        assert first == hot == 7 * 1.25
        assert compiled + disk_hits + memory_hits == 2
        assert memory_hits == (1 if found_full else 0)
    full, quick = tiers
    assert len(_entries(tmp_path)) == 1
    assert CompileCache(DiskCache(tmp_path)).lookup(("tiers", "processes"), full, quick)[1] is full


_FIRST_CALL = """
import sys, numpy as np, rocarray as ra
from rocarray import _launch, cache
from rocarray.compiler import diskcache
reads = []
get = diskcache.DiskCache.get
# (the compile cache's reads: they name their entry; the native calls' module is read once
# per process without one, rocarray/runtime/native.py)
diskcache.DiskCache.get = lambda self, key, name=None, check=None: (name and reads.append(key), get(self, key, name, check))[1]
x = ra.asarray(np.arange(7, dtype=np.int16), device="cpu")
cache.reset_counts()
for _ in range(int(sys.argv[1])):
    assert (np.asarray(ra.add(x, x)) == 2 * np.arange(7)).all()
from rocarray.compiler.cache import drain_background
drain_background()  # (info() waits 2 s at most: a loaded machine's tier-up can take longer)
info = cache.info()  # (after the writes and tier-ups queued so far)
(kernel,) = [k for k in _launch._loaded.values() if k.spec.name == "add"]
print(len(reads), info["disk_hits"], info["disk_misses"], info["compiled"], info["upgraded"],
      "quick" if kernel.code.calls >= 0 else "full")
"""


def test_a_fresh_process_finds_either_tier_with_one_read(tmp_path):
    """A first call in a new process: one disk read whichever tier an earlier process
    left, counted as one disk hit, nothing compiled."""
    import subprocess
    import sys

    if HostTarget().quick_tier is None:
        pytest.skip("ROCARRAY_TIERED=0: no quick tier")
    env = dict(os.environ, ROCARRAY_CACHE_DIR=str(tmp_path), ROCARRAY_INTERPRETER="0")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")

    def process(calls: int) -> list:
        r = subprocess.run([sys.executable, "-c", _FIRST_CALL, str(calls)], capture_output=True, text=True,
                           env=env, cwd=str(tmp_path))
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout.split()

    # nothing on disk: the look-up finds nothing (and the compile looks once more, as it
    # always does), the quick tier is compiled
    assert process(1) == ["2", "0", "1", "1", "0", "quick"]
    assert process(1) == ["1", "1", "0", "0", "0", "quick"]  # the quick tier's code, one read
    # hot: the full tier is compiled in the background and written over it
    out = process(40)
    assert out[3:] == ["0", "1", "full"], out
    assert process(1) == ["1", "1", "0", "0", "0", "full"]  # the full tier's code, one read
    # the add kernel's entry (both tiers in one), beside the native calls' module and the
    # facts of LLVM
    native_entry = diskcache._file_name(support_key(HostTarget(), "rocarray.runtime.native", native._IR))
    facts_entry = diskcache._file_name(llvm_facts_key())
    assert len(set(_entries(tmp_path)) - {native_entry, facts_entry}) == 1


_TIER_UP_AT_EXIT = r"""
import sys
from rocarray.compiler.cache import CompileCache, compile_in_background
from rocarray.compiler.diskcache import DiskCache
from rocarray.targets.host import HostTarget
sys.path.insert(0, sys.argv[2])
from test_cache import scale_kernel_ir
target = HostTarget()
cache = CompileCache(DiskCache(sys.argv[1]), write_behind=True)
text = scale_kernel_ir(target, "scale_at_exit", 3.0)
# a tier-up on the worker, queued just before the process ends (a short program)
compile_in_background(lambda: cache.get_or_compile(("at-exit",), lambda: text, target), quiet=False)
"""


def test_a_tier_up_at_exit_still_writes_its_entry(tmp_path):
    """A compile on the background worker writes its entry at once: a write queued behind
    the worker's exit was lost, so every short process missed the entry again."""
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, "-c", _TIER_UP_AT_EXIT, str(tmp_path), here],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    cache = CompileCache(DiskCache(tmp_path))
    assert cache.stored(("at-exit",), HostTarget()) is not None
