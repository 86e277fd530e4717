"""Tests of the native built-ins (rocarray/runtime/native.py): the C calls at the end of every
launch, made by code rocarray compiles itself for the host."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import rocarray as ra
from rocarray.compiler.cache import support_image
from rocarray.compiler.diskcache import DiskCache
from rocarray.runtime import native
from rocarray.runtime.host import HostFunction

pytestmark = pytest.mark.skipif(native.unavailable_reason() is not None,
                                reason=f"native calls unavailable here: {native.unavailable_reason()}")

_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p,
                           ctypes.c_void_p, ctypes.c_void_p)
_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


def _address(cfunc) -> int:
    return ctypes.cast(cfunc, ctypes.c_void_p).value


def test_launch_passes_its_arguments_in_the_drivers_order_and_returns_the_code():
    seen = []

    def driver(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        seen.append((f, gx, gy, gz, bx, by, bz, shared, stream, params, extra))
        return 700 + len(seen)

    c_driver = _LAUNCH(driver)
    launch = native.builtin("launch", _address(c_driver))
    rng = np.random.default_rng(1)
    for _ in range(20):
        f, stream, extra = (int(x) for x in rng.integers(1, 2**47, 3))
        grid, block, shared = (int(x) for x in rng.integers(0, 2**31, 3))
        assert launch(f, grid, block, shared, stream, extra) == 700 + len(seen)
        assert seen[-1] == (f, grid, 1, 1, block, 1, 1, shared, stream, None, extra)
    assert launch(5, 1, 1, 0, 0, 9) == 721
    assert seen[-1][8] is None  # stream 0: NULL, the legacy default stream


@pytest.mark.parametrize("args, error, message", [
    ((1, 2, 3, 4, 5), TypeError, "bad argument type"),
    ((1, 2, 3, 4, 5, 6, 7), TypeError, "bad argument type"),
    ((1, 2, 3, 4, 5, "6"), TypeError, "an integer is required"),
    ((1, 2.0, 3, 4, 5, 6), TypeError, "an integer is required"),
    ((1, 2, 3, 4, -5, 6), OverflowError, "negative"),
    ((1, 2, 3, 4, 2**64, 6), OverflowError, "too big"),
])
def test_launch_rejects_bad_arguments_before_calling(args, error, message):
    calls = []
    c_driver = _LAUNCH(lambda *a: calls.append(a) or 0)
    launch = native.builtin("launch", _address(c_driver))
    with pytest.raises(error, match=message):
        launch(*args)
    assert calls == []


def test_call_hands_an_address_or_bytes_and_a_range_to_the_entry():
    seen = []

    def entry(args, start, stop):
        seen.append((args, start, stop, ctypes.string_at(args, 4) if args else None))

    c_entry = _ENTRY(entry)
    for name in ("call", "call_nogil"):
        call = native.builtin(name, _address(c_entry))
        buf = ctypes.create_string_buffer(b"wxyz")
        assert call(ctypes.addressof(buf), 3, 2**40) is None
        assert seen[-1] == (ctypes.addressof(buf), 3, 2**40, b"wxyz")
        assert call(b"abcd", 0, 7) is None  # bytes: the kernel reads their data
        assert seen[-1][1:] == (0, 7, b"abcd")
        assert call(0, 1, 2) is None
        assert seen[-1] == (None, 1, 2, None)
        with pytest.raises(TypeError, match="expected bytes, str found"):
            call("abcd", 0, 1)
        with pytest.raises(TypeError, match="bad argument type"):
            call(0, 1)
        with pytest.raises(OverflowError):
            call(0, -1, 2)
    assert len(seen) == 6


def test_a_builtin_for_address_zero_is_refused():
    with pytest.raises(ValueError, match="address of the C function to call is 0"):
        native.builtin("launch", 0)


def _c_function(name: str) -> int:
    try:
        return _address(getattr(ctypes.CDLL(None), name))
    except (OSError, AttributeError):
        pytest.skip(f"no C library function {name} here")


@pytest.mark.parametrize("name, releases", [("call", False), ("call_nogil", True)])
def test_call_nogil_lets_other_threads_run_and_call_keeps_them_waiting(name, releases):
    # the entry is the C library's usleep(args): 0.3 s in C with the GIL released or kept;
    # another thread, woken just before, notes the time it gets the GIL
    sleep = native.builtin(name, _c_function("usleep"))
    go = threading.Event()
    noted = []
    other = threading.Thread(target=lambda: (go.wait(), noted.append(time.perf_counter())))
    other.start()
    started = time.perf_counter()
    go.set()
    sleep(300_000, 0, 0)
    other.join()
    # (kept: the other thread runs once the call has returned, 0.3 s on)
    assert (noted[0] - started < 0.25) == releases


def test_launch_releases_the_gil_during_the_driver_call():
    # a driver that blocks until another Python thread has run: only possible without the GIL
    ran = threading.Event()

    def driver(*args):
        return 0 if ran.wait(10) else 1

    c_driver = _LAUNCH(driver)
    launch = native.builtin("launch", _address(c_driver))
    other = threading.Thread(target=ran.set)
    other.start()
    assert launch(1, 1, 1, 0, 0, 1) == 0
    other.join()


def test_host_functions_call_kernels_through_the_builtins():
    x = ra.asarray(np.random.default_rng(2).random(1000).astype(np.float32))
    for _ in range(3):  # past the first call: the warm path's parameter area
        y = x + x
    np.testing.assert_array_equal(ra.asnumpy(y), ra.asnumpy(x) * 2)
    function = HostFunction(None, "k", _c_function("usleep"))
    assert type(function.call_small).__name__ == "builtin_function_or_method"
    assert type(function.call).__name__ == "builtin_function_or_method"


def test_the_module_is_compiled_once_and_read_back_from_the_disk_cache(tmp_path):
    from rocarray.targets.host import default_host as _default_host

    class Counting:
        def __init__(self, target):
            self.target, self.compiles = target, 0

        def __getattr__(self, name):  # (the cache reads the target's configuration)
            return getattr(self.target, name)

        def compile(self, text):
            self.compiles += 1
            return self.target.compile(text)

    target = Counting(_default_host())
    disk = DiskCache(str(tmp_path))
    def image(disk):
        return support_image(target, "rocarray.runtime.native", native._IR, disk)

    first = image(disk)
    assert image(disk) == first and target.compiles == 1
    # a damaged entry is compiled again, not fatal
    (entry,) = [p for p in tmp_path.rglob("*") if p.is_file()]
    entry.write_bytes(entry.read_bytes()[:-9] + b"corrupted")
    assert image(disk) == first and target.compiles == 2
    assert image(None) == first and target.compiles == 3


@pytest.mark.parametrize("prelude, reason", [
    # the built-ins cannot be had (as on PyPy): ctypes makes the calls
    ("from rocarray.runtime import native\nnative._state['reason'] = 'unavailable for this test'\n",
     "unavailable for this test"),
    # the module loaded by MCJIT, not the mapper (the loader's fallback, driven directly)
    ("from rocarray.runtime import hostload\nhostload._mapper[:] = [None]\n", "None"),
], ids=["builtins-unavailable", "mcjit-loader"])
def test_kernels_run_with_the_builtins_off_and_on_the_fallback_loader(prelude, reason):
    code = prelude + (
        "import numpy as np, rocarray as ra\n"
        "from rocarray.runtime import native\n"
        "x = ra.asarray(np.random.default_rng(4).random(1000).astype(np.float32))\n"
        "for _ in range(3): y = x * 2 + 1\n"
        "assert (ra.asnumpy(y) == ra.asnumpy(x) * np.float32(2) + np.float32(1)).all()\n"
        "print(native.unavailable_reason())\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == reason
