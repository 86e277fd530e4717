"""Host objects name only symbols rocarray provides, in every process: its runtime helpers
(``rocarray.targets.hostrt``), the C math and C libraries opened by name, and the names it
registers -- never a library a process happens to have loaded (``libgcc_s``)."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rocarray.targets import hostrt
from rocarray.runtime.hostload import elf_symbols, load_host_object, object_file
from rocarray.targets.base import ToolchainError
from rocarray.targets.host import HostTarget

WORKLOAD = Path(__file__).with_name("_symbol_workload.py")


@pytest.fixture(scope="module")
def target():
    return HostTarget()


def _without_f16c(features: str) -> str:
    kept = [f for f in features.split(",") if f not in ("+f16c", "+avx512fp16")]
    return ",".join(kept + ["-f16c", "-avx512fp16"])


@pytest.mark.parametrize("strip", [False, True], ids=["this-cpu", "no-f16c"])
def test_the_runtime_helpers_need_no_library(target, strip):
    t = HostTarget(opt_level=2)
    if strip:
        t.features = _without_f16c(t.features)
    defined, undefined = elf_symbols(object_file(t.compile(hostrt.IR)))
    assert undefined == set()
    assert hostrt.NAMES <= defined


_CALLERS = r"""
declare half @__truncdfhf2(double)
declare half @__truncsfhf2(float)
declare float @__extendhfsf2(half)
declare double @__extendhfdf2(half)
declare i16 @__gnu_f2h_ieee(float)
declare float @__gnu_h2f_ieee(i16)
declare float @__powisf2(float, i32)
declare double @__powidf2(double, i32)
define i16 @t_d2h(double %x) {
  %h = call half @__truncdfhf2(double %x)
  %b = bitcast half %h to i16
  ret i16 %b
}
define i16 @t_f2h(float %x) {
  %h = call half @__truncsfhf2(float %x)
  %b = bitcast half %h to i16
  ret i16 %b
}
define i32 @t_h2f(i16 %b) {
  %h = bitcast i16 %b to half
  %f = call float @__extendhfsf2(half %h)
  %r = bitcast float %f to i32
  ret i32 %r
}
define i64 @t_h2d(i16 %b) {
  %h = bitcast i16 %b to half
  %d = call double @__extendhfdf2(half %h)
  %r = bitcast double %d to i64
  ret i64 %r
}
define i16 @t_gnu_f2h(float %x) {
  %b = call i16 @__gnu_f2h_ieee(float %x)
  ret i16 %b
}
define i32 @t_gnu_h2f(i16 %b) {
  %f = call float @__gnu_h2f_ieee(i16 %b)
  %r = bitcast float %f to i32
  ret i32 %r
}
define float @t_powif(float %x, i32 %n) {
  %r = call float @__powisf2(float %x, i32 %n)
  ret float %r
}
define double @t_powid(double %x, i32 %n) {
  %r = call double @__powidf2(double %x, i32 %n)
  ret double %r
}
"""


@pytest.fixture(scope="module")
def helpers(target):
    """The helpers, called through wrappers that take and give float16 as its bits (and
    give floats as theirs: a signalling NaN stays one)."""
    data = target.compile(_CALLERS)
    assert hostrt.NAMES <= elf_symbols(object_file(data))[1]  # calls, not instructions
    mod = load_host_object(data)
    c = ctypes
    sig = {"t_d2h": (c.c_uint16, c.c_double), "t_f2h": (c.c_uint16, c.c_float),
           "t_h2f": (c.c_uint32, c.c_uint16), "t_h2d": (c.c_uint64, c.c_uint16),
           "t_gnu_f2h": (c.c_uint16, c.c_float), "t_gnu_h2f": (c.c_uint32, c.c_uint16),
           "t_powif": (c.c_float, c.c_float, c.c_int32), "t_powid": (c.c_double, c.c_double, c.c_int32)}
    return {name: c.CFUNCTYPE(*types)(mod.address(name)) for name, types in sig.items()}


_ALL_HALVES = np.arange(1 << 16, dtype=np.uint16)


def test_float16_to_float_is_exact_for_every_value(helpers):
    want32 = _ALL_HALVES.view(np.float16).astype(np.float32).view(np.uint32)
    want64 = _ALL_HALVES.view(np.float16).astype(np.float64).view(np.uint64)
    for name in ("t_h2f", "t_gnu_h2f"):
        got = np.array([helpers[name](int(b)) for b in _ALL_HALVES], np.uint32)
        np.testing.assert_array_equal(got, want32, err_msg=name)
    got = np.array([helpers["t_h2d"](int(b)) for b in _ALL_HALVES], np.uint64)
    np.testing.assert_array_equal(got, want64)


def _rounding_cases(dtype) -> np.ndarray:
    """Every finite float16 value, the midpoints between neighbours (ties to even) and a
    step either side of each, random values from far below the smallest subnormal to far
    beyond the largest value, signed zeros, infinities and NaNs, as ``dtype``."""
    halves = _ALL_HALVES.view(np.float16).astype(np.float64)
    finite = np.sort(np.unique(halves[np.isfinite(halves)]))
    mid = (finite[:-1] + finite[1:]) / 2
    mid = mid.astype(dtype)
    cases = [finite.astype(dtype), mid, np.nextafter(mid, dtype(np.inf)), np.nextafter(mid, dtype(-np.inf)),
             np.array([65504, 65519.99, 65520, 65536, 1e300 if dtype == np.float64 else 3e38,
                       2.0 ** -24, 2.0 ** -25, 2.0 ** -26, 2.0 ** -14, 1e-300 if dtype == np.float64 else 1e-40,
                       0.0, -0.0, np.inf, -np.inf], dtype)]
    rng = np.random.default_rng(11)
    mag = 10.0 ** rng.uniform(-12, 8, 20000)
    cases.append((mag * rng.choice([-1.0, 1.0], mag.size)).astype(dtype))
    return np.concatenate(cases)


@pytest.mark.parametrize("dtype, names", [(np.float64, ["t_d2h"]), (np.float32, ["t_f2h", "t_gnu_f2h"])])
def test_float_to_float16_rounds_to_nearest_even(helpers, dtype, names):
    values = _rounding_cases(dtype)
    with np.errstate(over="ignore"):
        want = values.astype(np.float16).view(np.uint16)
    for name in names:
        got = np.array([helpers[name](float(v)) for v in values], np.uint16)
        np.testing.assert_array_equal(got, want, err_msg=name)
    nans = np.array([np.nan, -np.nan], dtype)
    for name in names:
        bits = [helpers[name](float(v)) for v in nans]
        assert all(np.isnan(np.uint16(b).view(np.float16)) for b in bits), name


def test_powi_is_repeated_squaring(helpers):
    rng = np.random.default_rng(3)
    for x in rng.uniform(-3, 3, 50):
        for n in range(-9, 10):
            want = float(x) ** n
            assert helpers["t_powid"](float(x), n) == pytest.approx(want, rel=1e-14, abs=1e-300), (x, n)
            assert helpers["t_powif"](float(x), n) == pytest.approx(want, rel=3e-6), (x, n)
    assert helpers["t_powid"](2.0, 0) == 1.0 and helpers["t_powid"](0.0, -1) == float("inf")


def test_a_symbol_rocarray_does_not_provide_is_refused_when_the_object_is_made(target):
    # fp128 division is a libgcc call (__divtf3) that rocarray does not provide
    stray = r"""
define void @rk_stray_kernel(ptr %p) {
  %a = load fp128, ptr %p
  %b = fdiv fp128 %a, %a
  store fp128 %b, ptr %p
  ret void
}
"""
    with pytest.raises(ToolchainError, match=r"rk_stray_kernel needs __divtf3, which rocarray does not provide"):
        target.compile(stray)


def _bare_python_resolves(names, cache_dir) -> dict:
    """Where each of ``names`` resolves in a new Python that skips site (``-S``) and has
    no environment but the cache directory: rocarray, llvmlite and numpy on its path."""
    import llvmlite

    import rocarray

    paths = [str(Path(m.__file__).resolve().parent.parent) for m in (rocarray, llvmlite, np)]
    code = f"""
import json, sys
sys.path[:0] = {paths!r}
from rocarray.runtime import native
from rocarray.runtime import hostload as host
import rocarray.targets.host  # lends the runtime helpers
host.register_symbols(native._python_symbols())
names = {sorted(names)!r}
host._check_resolvable(names)
maps = []
with open("/proc/self/maps") as f:
    for line in f:
        part = line.split(maxsplit=5)
        lo, hi = (int(v, 16) for v in part[0].split("-"))
        maps.append((lo, hi, part[5].strip() if len(part) > 5 else ""))
def where(addr):
    return next((p for lo, hi, p in maps if lo <= addr < hi), "?")
print(json.dumps({{n: where(host._resolve_symbol(n)) for n in names}}))
"""
    out = subprocess.run([sys.executable, "-S", "-c", code], env={"ROCARRAY_CACHE_DIR": str(cache_dir)},
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _allowed_home(path: str) -> bool:
    base = os.path.basename(path)
    return (base.startswith(("libc.so", "libc-", "libm.so", "libm-", "libpython"))
            or "rocarray-kernels" in path  # rocarray's code arena: the helpers
            or os.path.realpath(path) == os.path.realpath(sys.executable)  # the CPython API
            or base.startswith("python"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps (Linux)")
@pytest.mark.parametrize("tiered, no_f16c, dtypes", [
    ("1", False, None),   # the quick tier, every dtype
    ("1", True, None),    # the quick tier where float16 conversions are helper calls
    ("0", False, "bool,int64,uint64,float16,float32,float64,complex64"),  # the full tier
], ids=["quick", "quick-no-f16c", "full"])
def test_every_host_object_names_only_what_rocarray_provides(tmp_path, tiered, no_f16c, dtypes):
    out = tmp_path / "symbols.json"
    cmd = [sys.executable, str(WORKLOAD), str(out)] + (["--no-f16c"] if no_f16c else []) + (
        ["--dtypes", dtypes] if dtypes else [])
    env = {**os.environ, "ROCARRAY_CACHE_DIR": str(tmp_path / "cache"), "ROCARRAY_INTERPRETER": "0",
           "ROCARRAY_TIERED": tiered}
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    result = json.loads(out.read_text())
    assert result["wrong"] == [], "float16 results differ from NumPy"
    assert result["native"] is None, result["native"]
    if no_f16c:
        assert "+f16c" not in result["features"].split(",")
    names = set().union(*result["objects"].values())
    assert len(result["objects"]) > 200 and names  # the workload made what it should
    if no_f16c:  # float <-> float16 went through the helpers
        assert {"__extendhfsf2", "__truncsfhf2"} <= names
    homes = _bare_python_resolves(names, tmp_path / "cache")
    assert set(homes) == names
    strays = {n: p for n, p in homes.items() if not _allowed_home(p)}
    assert not strays, f"resolved outside libc, libm, rocarray and CPython: {strays}"
    helpers_used = names & hostrt.NAMES
    assert all("rocarray-kernels" in homes[n] for n in helpers_used)
