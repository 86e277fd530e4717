"""Several GPUs in one process (copies between them, ``with Device``, mixing devices) and
Dask with one worker process per device (examples/dask_multi_gpu.py).

The tests that need two GPUs skip, naming the hardware, where fewer are present; the peer
path's decisions are tested on any machine in tests/runtime/test_peer.py (fake hook
tables), and the Dask example runs here with CPU workers.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ALL_DTYPES, random_array
import rocarray as ra
from rocarray._device import gpu_count, get_runtime
from rocarray.runtime.streams import Stream

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "dask_multi_gpu.py")

needs_two = {
    "cuda": pytest.mark.skipif(gpu_count("cuda") < 2, reason="needs two NVIDIA GPUs (CUDA)"),
    "hip": pytest.mark.skipif(gpu_count("hip") < 2, reason="needs two AMD GPUs (ROCm)"),
}
KINDS = [pytest.param(kind, marks=mark) for kind, mark in needs_two.items()]
needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None,
    reason="needs dask and distributed (pip install 'dask[distributed]')")


# -- two GPUs in one process ----------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_to_device_between_two_gpus(kind, dtype):
    a = random_array((129, 33), dtype)
    x = ra.asarray(a, device=f"{kind}:0")
    y = x.to_device(f"{kind}:1")
    assert y.device == ra.Device(f"{kind}:1")
    np.testing.assert_array_equal(y.get(), a)
    np.testing.assert_array_equal(y.to_device(f"{kind}:0").get(), a)
    strided = x[::3, 1::2].to_device(f"{kind}:1")  # made contiguous on cuda:0 first
    np.testing.assert_array_equal(strided.get(), a[::3, 1::2])


@pytest.mark.parametrize("kind", KINDS)
def test_copy_waits_for_the_source_and_later_work_waits_for_the_copy(kind):
    # A large kernel on device 0, the copy at once, a kernel on device 1 at once: with
    # the events missing, the copy would read the source before the kernel wrote it.
    a = random_array((1 << 24,), ra.float32)
    x = ra.asarray(a, device=f"{kind}:0")
    runtime = get_runtime(kind)
    for streams in (False, True):  # the null streams, then a stream of each device
        with contextlib.ExitStack() as entered:
            if streams:
                entered.enter_context(Stream(runtime, 0))
                entered.enter_context(Stream(runtime, 1))
            y = ((x * 3 + 1) * 2).to_device(f"{kind}:1") - 1
            np.testing.assert_allclose(y.get(), (a * 3 + 1) * 2 - 1, rtol=1e-6)
    print(kind, "route 1 <- 0:", runtime.peer_route(1, 0))


@pytest.mark.parametrize("kind", KINDS)
def test_staged_copy_between_two_gpus(kind):
    # A runtime of its own with peer access off: the pinned relay, in several chunks.
    runtime = type(get_runtime(kind))()
    runtime.peer_access = False
    runtime.staging_chunk = 1 << 20
    data = np.random.default_rng(3).integers(1, 256, (5 << 20) + 77, dtype=np.uint8)
    src = runtime.alloc(0, data.nbytes)
    dst = runtime.alloc(1, data.nbytes)
    runtime.copy_host_to_device(0, src, data.ctypes.data, data.nbytes)
    runtime.copy_peer(1, dst, 0, src, data.nbytes)
    out = np.empty_like(data)
    runtime.copy_device_to_host(1, out.ctypes.data, dst, data.nbytes)
    np.testing.assert_array_equal(out, data)
    assert runtime.peer_route(1, 0).startswith("staged")
    runtime.free(0, src), runtime.free(1, dst)


@pytest.mark.parametrize("kind", KINDS)
def test_with_device_and_mixing_devices_on_two_gpus(kind):
    a = random_array((1000,), ra.float64)
    x = ra.asarray(a, device=f"{kind}:0")
    with ra.Device(f"{kind}:1"):
        z = ra.exp(ra.asarray(a) / 100)  # created and computed on device 1
        assert z.device == ra.Device(f"{kind}:1")
    np.testing.assert_allclose(z.get(), np.exp(a / 100), rtol=1e-12)
    with pytest.raises(TypeError, match=f"cannot mix devices {kind}:0 and {kind}:1; move arrays with"):
        x + z
    np.testing.assert_allclose((x.to_device(f"{kind}:1") + z).get(), a + np.exp(a / 100), rtol=1e-12)
    assert ra.asarray(a, device=f"{kind}:1").device == ra.Device(f"{kind}:1")
    free0, _ = get_runtime(kind).mem_info(0)
    assert free0 > 0  # each device keeps its own context: both answer


# -- Dask, one worker per device --------------------------------------------------------------


def _run_example(*args, env=None):
    return subprocess.run([sys.executable, EXAMPLE, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": ROOT, **(env or {})}, cwd=ROOT)


@needs_dask
def test_dask_example_with_cpu_workers():
    result = _run_example("--cpu", "2", "--size", "20000")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "2 cpu worker(s):"
    assert sum(" ok" in line for line in lines) == 3
    assert "WRONG" not in result.stdout
    pids = {line.rsplit("pid ", 1)[1] for line in lines if "pid " in line}
    assert len(pids) == 2  # two worker processes


@needs_dask
def test_dask_example_rejects_bad_arguments():
    result = _run_example("--cpu", "0")
    assert result.returncode == 2 and "--cpu must be at least 1" in result.stderr
    result = _run_example("--size", "0")
    assert result.returncode == 2 and "--size must be at least 1" in result.stderr


@needs_dask
@pytest.mark.parametrize("kind", KINDS)
def test_dask_example_with_one_worker_per_gpu(kind):
    if kind == "hip" and gpu_count("cuda"):
        pytest.skip("the example takes the NVIDIA GPUs where both kinds are present")
    result = _run_example("--size", "2000000", env={"ROCARRAY_DEVICE": ""})
    assert result.returncode == 0, result.stdout + result.stderr
    count = gpu_count(kind)
    assert result.stdout.splitlines()[0] == f"{count} {kind} worker(s):"
    for i in range(count):  # worker i sees GPU i of the machine as its device 0
        assert f"{kind}-{i}: {kind}:0 (" in result.stdout
        assert f"visible devices: {i};" in result.stdout
    assert "WRONG" not in result.stdout
