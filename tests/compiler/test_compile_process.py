"""The compile process (rocarray/compiler/compile_process.py): a child compiles the
background tier-ups to the bytes this process would make; whatever goes wrong there, the
compile is made here."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray.compiler import compile_process, network_host
from rocarray.compiler.cache import drain_background
from rocarray.targets import target_for
from rocarray.targets.host import host_config

from conftest import gpu_devices


@pytest.fixture
def fresh_child():
    """A child of its own for the test, and the process's counters back afterwards."""
    drain_background()
    compile_process.close()
    saved = dict(compile_process._stats)
    yield
    compile_process.close()
    compile_process._stats.update(saved)


def _module():
    t = target_for("host").configured(host_config(2))
    m = ir.Module("net")
    m.triple, m.data_layout = t.triple, t.data_layout
    network_host.build_network_module(m, t, "entry", "i4", False)
    return t, str(m)


def test_the_child_compiles_what_this_process_would(fresh_child):
    t, text = _module()
    before = compile_process.stats()
    made = compile_process.compile(t, text)
    assert made == bytes(t.compile(text))
    after = compile_process.stats()
    assert after["compiled"] == before["compiled"] + 1 and after["pid"] not in (None, os.getpid())
    assert set(t.last_timings) == {"parse_ms", "optimise_ms", "emit_ms"}


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="reads the scheduling priority (POSIX)")
def test_the_child_runs_at_the_lowest_priority(fresh_child):
    """The child yields the cores to the program: its niceness is ``NICENESS`` above this
    process's (capped at 19, the lowest priority)."""
    t, text = _module()
    assert compile_process.compile(t, text) is not None
    pid = compile_process.stats()["pid"]
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, mine + compile_process.NICENESS)


def test_a_compile_that_raises_there_is_made_here(fresh_child):
    t, text = _module()
    assert compile_process.compile(t, text) is not None
    pid = compile_process.stats()["pid"]
    errors = compile_process.stats()["errors"]
    assert compile_process.compile(t, "define i32 @broken( {") is None
    assert compile_process.stats()["errors"] == errors + 1
    assert compile_process.stats()["pid"] == pid  # (the child goes on)
    with pytest.raises(RuntimeError):
        t.compile("define i32 @broken( {")


def test_a_dead_child_is_replaced(fresh_child):
    t, text = _module()
    assert compile_process.compile(t, text) is not None
    stats = compile_process.stats()
    os.kill(stats["pid"], signal.SIGKILL)
    compile_process._child.wait(10)
    assert compile_process.compile(t, text) == bytes(t.compile(text))
    after = compile_process.stats()
    assert after["started"] == stats["started"] + 1 and after["pid"] != stats["pid"]


def test_broken_children_stop_being_started(fresh_child, monkeypatch):
    t, text = _module()
    compile_process._stats["failures"] = 0
    started = []

    def broken():
        started.append(1)
        return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdout.write('junk')"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    monkeypatch.setattr(compile_process, "_start", broken)
    for _ in range(compile_process.MAX_FAILURES + 2):
        assert compile_process.compile(t, text) is None
    assert len(started) == compile_process.MAX_FAILURES
    assert compile_process.stats()["failures"] == compile_process.MAX_FAILURES


def test_a_starting_child_is_not_waited_for(fresh_child, monkeypatch):
    """A compile a call waits for (``wait=False``) is made here while the child is still
    starting (here: a child slow to import), and the child goes on starting; once it has
    said it is ready such compiles go to it."""
    t, text = _module()
    start = compile_process._start

    def slow():
        child = start()
        slow.pids.append(child.pid)
        return child

    slow.pids = []
    monkeypatch.setattr(compile_process, "_start", slow)
    monkeypatch.setattr(compile_process, "_has_data", lambda stream: False)  # (it has not said it yet)
    before = compile_process.stats()
    compile_process.start()
    assert compile_process.compile(t, text, wait=False) is None
    after = compile_process.stats()
    assert after["not_ready"] == before["not_ready"] + 1 and after["failures"] == before["failures"]
    assert after["pid"] == slow.pids[0]  # (still starting, not replaced)
    monkeypatch.undo()
    assert compile_process.compile(t, text) == bytes(t.compile(text))  # (waits for it)
    assert compile_process.compile(t, text, wait=False) == bytes(t.compile(text))
    assert compile_process.stats()["pid"] == slow.pids[0] and len(slow.pids) == 1


@pytest.mark.skipif(not gpu_devices("cuda") and not gpu_devices("hip"), reason="needs a GPU (NVIDIA CUDA or AMD HIP)")
def test_a_gpus_first_use_starts_the_child(fresh_child):
    from rocarray import _launch

    device = (gpu_devices("cuda") + gpu_devices("hip"))[0]
    _launch._device_targets.pop((device, True), None)
    _launch._targets(device, True)
    assert compile_process.stats()["pid"] not in (None, os.getpid())


def test_a_child_of_other_code_is_a_broken_child(fresh_child, monkeypatch):
    """A child whose code generator is not this process's (rocarray installed again while
    the program runs) says so in its first message: nothing it would compile is taken."""
    from rocarray.compiler import generator

    t, text = _module()
    compile_process._stats["failures"] = failures = 0
    monkeypatch.setattr(generator, "_generator_hash", "0" * 32)  # (this process's, made other)
    assert compile_process.compile(t, text) is None
    assert compile_process.stats()["failures"] == failures + 1


def test_a_reply_out_of_step_breaks_the_child(fresh_child, monkeypatch):
    """A reply naming another request than the one sent is never taken for its answer."""
    t, text = _module()
    code = ("import sys; from rocarray.compiler import compile_process as cp; from rocarray.compiler.generator import "
            "generator_hash; out = sys.stdout.buffer; cp._send(out, (cp.READY, generator_hash()), 0); "
            "serial, _ = cp._read(sys.stdin.buffer); cp._send(out, ('ok', b'not this', None), serial + 1); "
            "sys.stdin.read()")

    def out_of_step():
        return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)

    monkeypatch.setattr(compile_process, "_start", out_of_step)
    compile_process._stats["failures"] = failures = 0
    assert compile_process.compile(t, text) is None
    assert compile_process.stats()["failures"] == failures + 1


def test_the_setting_keeps_compiles_here(fresh_child, monkeypatch):
    t, text = _module()
    monkeypatch.setenv("ROCARRAY_COMPILE_PROCESS", "0")
    started = compile_process.stats()["started"]
    assert compile_process.compile(t, text) is None
    assert compile_process.stats()["started"] == started
    assert compile_process.stats()["pid"] is None


def test_tier_ups_are_compiled_by_the_child(fresh_child):
    # a kernel no cache holds (its body names this run), launched until it tiers up
    k = float(time.time_ns() % 1_000_003)
    # (x * 2 is exact, so one rounding with or without a fused multiply-add)
    kernel = ra.ElementwiseKernel("T x", "T y", f"y = x * 2 + {k!r}", f"tier_up_{int(k)}")
    a = np.random.default_rng(0).standard_normal(1 << 16).astype(np.float32)
    x = ra.asarray(a, device="cpu")
    before = compile_process.stats()
    for _ in range(40):
        y = kernel(x)
    drain_background()
    after = compile_process.stats()
    assert after["compiled"] > before["compiled"]
    assert after["built"] > before["built"]  # (from the kernel's recipe: no IR built here)
    np.testing.assert_array_equal(ra.asnumpy(kernel(x)), a * np.float32(2) + np.float32(k))
    np.testing.assert_array_equal(ra.asnumpy(y), a * np.float32(2) + np.float32(k))


def _specs():
    """One spec of each kind a recipe makes again: a user kernel, a catalogue elementwise
    op, a reduction and its scans, the host's sorting network, and the GPUs' hand-built
    modules (``gpu_...``: the sort's, a compaction, runs, a transpose, a scatter, the
    single-pass scan)."""
    import functools

    from rocarray import _gather_gpu, _launch, _masks, _radix, _radix_gpu
    from rocarray._elementwise import elementwise_spec
    from rocarray._reduction import ReductionDef
    from rocarray._user_kernels import _user_spec

    f4, i8 = np.dtype(np.float32), np.dtype(np.int64)
    red = ReductionDef("recipe_sum", [("x", f4)], [("a", "b", f4)], "a = 0;", "a = x;", "a = a + b;",
                       [("y", f4)], "y = a;")
    _, _, key, make = _radix._network_spec(np.dtype(np.int32), False)
    return {
        "user": _user_spec("recipe_user", "y = x * 2 + (T)n;", "", ("x", "n", "y"), ("in", "scalar", "out"),
                           (f4, i8, f4), {"T": f4}, (), True),
        "elementwise": elementwise_spec("add", "out0 = in0 + in1;", (f4, f4), "aa", (f4, f4), f4, f4),
        "reduction": red.spec(),
        "scan": red.scan_spec(),
        "network": _launch._full_spec(key, make),
        "gpu_sort": _launch._full_spec(*_radix_gpu._module("u32", 32, "passes")),
        "gpu_compact": _launch._full_spec(("compact",), functools.partial(_masks._compact_parts, 8)),
        "gpu_runs": _launch._full_spec(*_masks._runs_module("f4")),
        "gpu_transpose": _launch._full_spec(("transpose",), functools.partial(_gather_gpu._module_parts, "transpose",
                                                                              (4,))),
        "gpu_scatter": _launch._full_spec(("scatter",), functools.partial(_gather_gpu._module_parts, "scatter",
                                                                          (8, 64, True))),
        "gpu_chained_scan": _launch._full_spec(*red.chain_module()),
    }


def _targets():
    from rocarray.targets.amdgpu import find_device_libs, find_lld
    from rocarray.targets.nvptx import find_libdevice

    out = [pytest.param("host", id="host")]
    out.append(pytest.param("sm_90", marks=pytest.mark.skipif(find_libdevice() is None, reason="libdevice.10.bc "
                                                             "not found: install nvidia-nvvm or the CUDA toolkit")))
    out.append(pytest.param("gfx942", marks=pytest.mark.skipif(
        find_lld() is None or find_device_libs() is None, reason="ld.lld >= 17 and ROCm device-libs are needed")))
    return out


@pytest.mark.parametrize("target_name", _targets())
def test_the_child_builds_from_recipes_what_this_process_builds(fresh_child, target_name):
    """Every kind of spec's recipe pickles, and the module the child builds from it
    compiles to the bytes of the one built here (a GPU target's: compile only)."""
    t = target_for(target_name)
    for what, spec in _specs().items():
        if (what == "network" and target_name != "host") or (what.startswith("gpu_") and target_name == "host"):
            continue  # (the host's network, the GPUs' modules)
        target = t.heavy_tier if spec.heavy else t
        built = spec.build_module(target)
        here = bytes(target.compile(built if isinstance(built, str) else str(built)))
        before = compile_process.stats()
        assert compile_process.compile(target, None, spec.recipe) == here, what
        after = compile_process.stats()
        assert after["built"] == before["built"] + 1 and after["errors"] == before["errors"], what


def test_a_recipe_that_does_not_pickle_is_built_here(fresh_child):
    t = target_for("host")
    before = compile_process.stats()
    assert compile_process.compile(t, None, lambda: None) is None
    after = compile_process.stats()
    assert after["unpicklable"] == before["unpicklable"] + 1 and after["failures"] == before["failures"]


def test_a_forked_process_starts_a_child_of_its_own(fresh_child):
    t, text = _module()
    assert compile_process.compile(t, text) is not None
    parent_child = compile_process.stats()["pid"]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # (the forked process: report its child's pid and whether the bytes match)
        try:
            ok = compile_process.compile(t, text) == bytes(t.compile(text))
            os.write(write, f"{compile_process.stats()['pid']} {ok}".encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 100).decode().split()
    os.waitpid(pid, 0)
    os.close(read)
    assert answer[1] == "True" and int(answer[0]) not in (parent_child, 0)
    assert compile_process.stats()["pid"] == parent_child
    assert compile_process.compile(t, text) is not None  # (the parent's child still answers)


def test_only_a_python_interpreter_is_started(fresh_child, monkeypatch):
    t, text = _module()
    compile_process._stats["failures"] = 0
    monkeypatch.setattr(sys, "executable", "/usr/bin/some-app")
    assert compile_process.compile(t, text) is None
    assert compile_process.stats()["failures"] == 1 and compile_process.stats()["pid"] is None
    assert compile_process._PYTHON.match("python3.12") and compile_process._PYTHON.match("python.exe")
    assert not compile_process._PYTHON.match("uwsgi")
