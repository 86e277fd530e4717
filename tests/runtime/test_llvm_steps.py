"""``llvm_step``: LLVM's lock taken a compile step at a time, foreground threads before the
background compile worker (rocarray/runtime/llvm.py)."""

import threading
import time

from rocarray.runtime import llvm
from rocarray.runtime.llvm import LLVM_LOCK, llvm_step, yield_to_foreground


def _waiting_for(n, timeout=5.0):
    end = time.monotonic() + timeout
    while llvm._foreground["waiting"] != n:
        assert time.monotonic() < end, "the foreground thread never waited for the lock"
        time.sleep(0.001)


def test_a_waiting_foreground_step_goes_before_the_worker():
    order = []

    def step(name, yielding):
        if yielding:
            yield_to_foreground()
        with llvm_step():
            order.append(name)
            time.sleep(0.02)

    LLVM_LOCK.acquire()  # (a step in progress)
    try:
        fg = threading.Thread(target=step, args=("foreground", False))
        fg.start()
        _waiting_for(1)
        bg = threading.Thread(target=step, args=("worker", True))
        bg.start()
        time.sleep(0.05)
        assert order == []
    finally:
        LLVM_LOCK.release()
    fg.join(5)
    bg.join(5)
    assert order == ["foreground", "worker"]


def test_the_worker_waits_a_quiet_moment_after_a_foreground_step(monkeypatch):
    monkeypatch.setattr(llvm, "YIELD_QUIET_SECONDS", 0.3)
    times = {}

    def worker():
        yield_to_foreground()
        with llvm_step():
            times["worker"] = time.perf_counter()

    with llvm_step():
        pass
    times["foreground"] = time.perf_counter()
    t = threading.Thread(target=worker)
    t.start()
    t.join(5)
    assert times["worker"] - times["foreground"] >= 0.25


def test_the_worker_holding_the_lock_takes_its_steps_at_once():
    # A worker inside a section that holds the lock across several steps must not wait for
    # a foreground thread that waits for that very lock.
    ready, done = threading.Event(), threading.Event()
    entered = []

    def worker():
        yield_to_foreground()
        with LLVM_LOCK:
            ready.set()
            _waiting_for(1)
            with llvm_step():
                entered.append("worker")
        done.set()

    def foreground():
        ready.wait(5)
        with llvm_step():
            entered.append("foreground")

    threads = [threading.Thread(target=worker, daemon=True), threading.Thread(target=foreground, daemon=True)]
    for t in threads:
        t.start()
    assert done.wait(5), "the worker waited for the foreground inside its own hold of the lock"
    for t in threads:
        t.join(5)
    assert entered == ["worker", "foreground"]


def test_a_foreground_step_takes_the_lock_and_gives_it_back():
    with llvm_step():
        assert LLVM_LOCK._is_owned()
        with llvm_step():  # (re-entrant, as the lock)
            assert LLVM_LOCK._is_owned()
    assert not LLVM_LOCK._is_owned()
    assert llvm._foreground["waiting"] == 0
