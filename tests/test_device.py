import os
import subprocess
import sys

import numpy as np
import pytest

import rocarray as ra


def test_device_parsing():
    assert ra.Device("cpu") is ra.Device("CPU")
    assert str(ra.Device("cuda")) == "cuda:0"
    assert ra.Device("hip:1").index == 1 and ra.Device("hip:1").kind == "hip"
    assert ra.Device("cuda", 2) == "cuda:2"
    assert repr(ra.Device("cpu")) == "Device('cpu')"
    assert ra.Device(ra.Device("cpu")) is ra.Device("cpu")
    assert len({ra.Device("cpu"), ra.Device("cpu")}) == 1


@pytest.mark.parametrize("spec", ["tpu", "cuda:x", "cpu:1", "", "hip:-1"])
def test_bad_device(spec):
    with pytest.raises(ValueError, match="device"):
        ra.Device(spec)


def test_bad_device_type():
    with pytest.raises(TypeError, match="device must be"):
        ra.Device(3)


def test_missing_device_is_clear():
    with pytest.raises(ValueError, match="not available"):
        ra.zeros(3, device="hip:7")


def test_with_device_changes_default():
    cpu = ra.Device("cpu")
    with cpu:
        assert ra.default_device() is cpu
        assert ra.zeros(2).device is cpu
    assert ra.available_devices()[0] is cpu


def test_env_override():
    code = "import rocarray as ra; print(ra.default_device(), ra.zeros(1).device)"
    env = dict(os.environ, ROCARRAY_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["cpu", "cpu"]
    env["ROCARRAY_DEVICE"] = "nonsense"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert bad.returncode != 0 and "unknown device 'nonsense'" in bad.stderr


def test_to_device_roundtrip(device):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = ra.asarray(a, device=device)
    assert x.device == device
    y = x.to_device("cpu")
    assert y.device == ra.Device("cpu")
    np.testing.assert_array_equal(y.get(), a)
    z = y.to_device(device)
    assert z.device is device
    np.testing.assert_array_equal(ra.asnumpy(z), a)
    assert x.to_device(device) is x
    # a non-contiguous view travels too
    np.testing.assert_array_equal(x[:, ::-2].to_device("cpu").get(), a[:, ::-2])


def test_mixing_devices_is_an_error():
    gpus = [d for d in ra.available_devices() if d.kind != "cpu"]
    if not gpus:
        pytest.skip("needs a GPU (NVIDIA with CUDA or AMD with ROCm) to mix devices")
    x = ra.zeros(3, device="cpu")
    y = ra.zeros(3, device=gpus[0])
    with pytest.raises(TypeError, match="cannot"):
        x[...] = y
