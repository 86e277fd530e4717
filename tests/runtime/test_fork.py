"""rocarray in a process forked after it ran (``multiprocessing``'s default start method on
Linux): the child makes its own host threads, tier-up worker and compile process instead
of waiting for its parent's, which it does not have."""

import os
import select
import signal
import time

import numpy as np
import pytest

import rocarray as ra
from rocarray.compiler.cache import drain_background

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")


def _in_child(fn, timeout=60.0) -> str:
    """Run ``fn`` (which returns a str) in a forked child; its answer, or fail when the
    child does not answer within ``timeout`` seconds (it is killed)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            answer = fn()
        except BaseException as exc:  # (the parent fails with what went wrong)
            answer = f"error {type(exc).__name__}: {exc}"
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], timeout)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the forked process did not answer in {timeout} s")
        return os.read(read, 1 << 16).decode()
    finally:
        os.close(read)
        os.waitpid(pid, 0)


def test_a_forked_process_launches_compiles_and_tiers_up():
    cpu = ra.Device("cpu")
    a = np.random.default_rng(0).standard_normal(1 << 21).astype(np.float32)
    x = ra.asarray(a, device=cpu)
    for _ in range(20):  # the parent's host threads and tier-up worker at work
        ra.sin(x) + 1
    drain_background()
    k = time.time_ns() % 1_000_003  # (a kernel no cache holds)
    # (x * 2 is exact, so one rounding with or without a fused multiply-add)
    kernel = ra.ElementwiseKernel("T x", "T y", f"y = x * 2.0f + {k}.0f", f"forked_{k}")

    def child():
        for _ in range(40):
            y = kernel(x)  # a new compile, multi-threaded launches, then its tier-up
        ok = np.array_equal(ra.asnumpy(y), a * np.float32(2) + np.float32(k))
        tiered = drain_background(timeout=30)
        s = float(ra.sum(x))
        return f"{ok} {tiered} {np.isclose(s, a.sum(dtype=np.float64), rtol=1e-3)}"

    assert _in_child(child) == "True True True"
    np.testing.assert_array_equal(ra.asnumpy(kernel(x)), a * np.float32(2) + np.float32(k))  # (the parent goes on)
