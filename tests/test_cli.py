"""The command line: demo (the README's main job), info, cache, compile."""

import os
import subprocess
import sys

import pytest

from rocarray.targets import amdgpu, nvptx
from rocarray.targets.codeobject import check_code_object, read_code_object


def run(*args, env=None, check=True):
    e = dict(os.environ, **(env or {}))
    r = subprocess.run([sys.executable, "-m", "rocarray", *args], capture_output=True, text=True, env=e)
    if check and r.returncode != 0:
        raise AssertionError(f"rocarray {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}")
    return r


def test_demo_on_cpu(tmp_path):
    r = run("demo", "--device", "cpu", env={"ROCARRAY_CACHE_DIR": str(tmp_path)})
    out = r.stdout
    assert "on cpu" in out and "max |rocarray - NumPy|" in out
    assert "new compilations 0" in out  # a new shape compiled nothing
    # a second process loads every kernel from the disk cache
    again = run("demo", "--device", "cpu", env={"ROCARRAY_CACHE_DIR": str(tmp_path)}).stdout
    assert "kernels compiled 0" in again


def test_info_and_cache(tmp_path):
    env = {"ROCARRAY_CACHE_DIR": str(tmp_path)}
    info = run("info", env=env).stdout
    assert "device cpu" in info and "LLVM" in info and "NVPTX (CUDA) toolchain" in info
    assert "first-call interpreter: " in info
    assert str(tmp_path) in run("cache", env=env).stdout
    assert "cache cleared" in run("cache", "--clear", env=env).stdout


def test_interpreter_build(tmp_path):
    env = {"ROCARRAY_CACHE_DIR": str(tmp_path)}
    first = run("interpreter", "--target", "host", env=env).stdout
    assert "interpreter for host:" in first and "built in" in first
    assert "found in the disk cache" in run("interpreter", "--target", "host", env=env).stdout
    assert "first-call interpreter: built" in run("info", env=env).stdout
    bad = run("interpreter", "--target", "gfx942", env=env, check=False)
    assert bad.returncode == 2 and "no interpreter for target gfx942" in bad.stderr


def test_compile_host_llvm_and_object(tmp_path):
    ll = tmp_path / "add.ll"
    run("compile", "add", "--dtypes", "float32", "--target", "host", "--emit", "llvm", "-o", str(ll))
    assert "define" in ll.read_text()
    obj = tmp_path / "add.o"
    run("compile", "add", "--dtypes", "int8,float64", "--target", "host", "--emit", "obj", "-o", str(obj))
    assert obj.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.skipif(nvptx.find_libdevice() is None, reason="needs libdevice (CUDA toolkit or nvidia-nvvm)")
def test_compile_ptx_with_libdevice_linked(tmp_path):
    out = tmp_path / "exp.ptx"
    run("compile", "exp", "--dtypes", "float64", "--target", "sm_90", "--emit", "ptx", "-o", str(out))
    ptx = out.read_text()
    assert ".visible .entry" in ptx and ".target sm_90" in ptx
    assert "__nv_" not in ptx  # libdevice linked in and inlined


@pytest.mark.skipif(amdgpu.find_lld() is None or amdgpu.find_device_libs() is None,
                    reason="needs ld.lld >= 17 and ROCm device-libs (apt-get install lld-19 rocm-device-libs)")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_compile_hsaco(tmp_path, arch):
    out = tmp_path / "k.hsaco"
    r = run("compile", "exp", "--dtypes", "float64", "--target", arch, "--emit", "obj", "-o", str(out))
    assert "wrote" in r.stdout
    data = out.read_bytes()
    co = read_code_object(data)
    names = [k.get(".name") for k in co.kernels]
    assert len(names) == 1 and names[0].startswith("rk_exp_")
    assert check_code_object(data, arch, names) == []


def test_compile_errors(tmp_path):
    r = run("compile", "nosuchop", "--dtypes", "float32", "-o", str(tmp_path / "x"), check=False)
    assert r.returncode == 2 and "unknown op" in r.stderr
    r = run("compile", "add", "--dtypes", "float32,float32,float32", "-o", str(tmp_path / "x"), check=False)
    assert r.returncode == 2 and "takes 2 inputs" in r.stderr
