"""Every state of the disk cache a user meets, each in new processes: a known signature's
first call and a new one's give NumPy's answer, and so does the run after it on the cache
that run left (a user's second run)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from rocarray.compiler import diskcache

ROOT = Path(__file__).resolve().parent.parent

# A user's program: the "known" part is what the states below put in the cache, the "new"
# part is never there before the check runs (each check uses signatures of its own).
_PROGRAM = r"""
import json, sys
import numpy as np
import rocarray as ra
from rocarray import cache

part, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed)
dev = ra.Device("cpu")
wrong = []

def check(name, got, want, exact=True):
    got = ra.asnumpy(got)
    ok = got.dtype == want.dtype and got.shape == want.shape and (
        np.array_equal(got, want) if exact else np.allclose(got, want, rtol=2e-6))
    if not ok:
        wrong.append(name)

a = rng.uniform(-5, 5, 1000).astype(np.float32)
b = rng.uniform(-5, 5, 1000).astype(np.float32)
x, y = ra.asarray(a, device=dev), ra.asarray(b, device=dev)
if part in ("known", "both"):
    check("a*2.5+b", x * 2.5 + y, a * np.float32(2.5) + b)
    check("sum f64", ra.sum(ra.astype(x, ra.float64)), np.sum(a.astype(np.float64)), exact=False)
    check("mask", x[x > 1.0], a[a > 1.0])
if part in ("new", "both"):
    # signatures of their own per seed: int16 with a seed-dependent op, float16, complex64
    i = rng.integers(-100, 100, 500).astype(np.int16)
    xi = ra.asarray(i, device=dev)
    ops = [("bitwise_xor", np.bitwise_xor), ("maximum", np.maximum), ("minimum", np.minimum),
           ("bitwise_or", np.bitwise_or), ("bitwise_and", np.bitwise_and)]
    name, ref = ops[seed % len(ops)]
    check(name, getattr(ra, name)(xi, xi[::-1]), ref(i, i[::-1]))
    h = rng.uniform(-4, 4, 300).astype(np.float16)
    check("f16 divide", ra.divide(ra.asarray(h, device=dev), 3.0), h / np.float16(3.0))
    c = (rng.uniform(-2, 2, 200) + 1j * rng.uniform(-2, 2, 200)).astype(np.complex64)
    check("c64 exp", ra.exp(ra.asarray(c, device=dev)), np.exp(c), exact=False)
    check("i16 cumsum", ra.cumulative_sum(xi), np.cumsum(i))  # to the default integer dtype
print(json.dumps({"wrong": wrong, "stats": cache.info()}))
"""


def _run(cache_dir: Path, part: str, seed: int = 0, **env) -> dict:
    full_env = {**os.environ, "ROCARRAY_CACHE_DIR": str(cache_dir), **env}
    full_env.pop("ROCARRAY_DEVICE", None)
    out = subprocess.run([sys.executable, "-c", _PROGRAM, part, str(seed)], env=full_env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-4000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["wrong"] == [], result
    return result


def _entries(cache_dir: Path) -> list:
    return sorted(p for p in cache_dir.glob("*" + diskcache.SUFFIX) if p.is_file())


def _check_new_and_known(cache_dir: Path, seed: int) -> None:
    """A known signature's and a new one's first calls, then the same program again on
    the cache that left: NumPy's answers each time."""
    _run(cache_dir, "both", seed)
    _run(cache_dir, "both", seed)
    _run(cache_dir, "new", seed + 100)


def test_empty_cache(tmp_path):
    _check_new_and_known(tmp_path / "c", 1)


def test_interpreter_built_and_no_kernel(tmp_path):
    cache_dir = tmp_path / "c"
    env = {**os.environ, "ROCARRAY_CACHE_DIR": str(cache_dir)}
    subprocess.run([sys.executable, "-m", "rocarray", "interpreter", "--target", "host"], env=env,
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    assert len(_entries(cache_dir)) >= 1
    _check_new_and_known(cache_dir, 2)


def test_quick_tier_code_only(tmp_path):
    cache_dir = tmp_path / "c"
    # first calls compiled by the quick tier, never hot enough to tier up
    _run(cache_dir, "known", ROCARRAY_INTERPRETER="0")
    assert _entries(cache_dir)
    _check_new_and_known(cache_dir, 3)


def test_full_tier_code(tmp_path):
    cache_dir = tmp_path / "c"
    _run(cache_dir, "known", ROCARRAY_INTERPRETER="0", ROCARRAY_TIERED="0")
    assert _entries(cache_dir)
    _check_new_and_known(cache_dir, 4)


_OTHER_VERSION = r"""
import sys
import rocarray.compiler.generator as g
import rocarray.targets.base as b
g._generator_hash = "another-rocarray"   # entries of another rocarray ...
b.CODEGEN_VERSION = "another-codegen"
real_facts = b.llvm_facts
b.llvm_facts = lambda: {**real_facts(), "version": (99, 0, 0)}   # ... and another LLVM
path = sys.argv[1]
sys.argv = ["program"] + sys.argv[2:]
exec(compile(open(path).read(), "program", "exec"))
"""


def test_entries_of_another_rocarray_or_llvm(tmp_path):
    cache_dir = tmp_path / "c"
    program = tmp_path / "program.py"
    program.write_text(_PROGRAM)
    env = {**os.environ, "ROCARRAY_CACHE_DIR": str(cache_dir)}
    for part in ("both", "new"):
        subprocess.run([sys.executable, "-c", _OTHER_VERSION, str(program), part, "5"], env=env, cwd=ROOT,
                       check=True, capture_output=True, timeout=300)
    foreign = _entries(cache_dir)
    assert foreign
    # ... and entries of another entry format at this version's own paths
    _run(tmp_path / "d", "both", 6)
    for p in _entries(tmp_path / "d"):
        data = bytearray(p.read_bytes())
        struct.pack_into("<I", data, 8, diskcache.FORMAT_VERSION + 1)
        p.write_bytes(bytes(data))
    _check_new_and_known(cache_dir, 5)
    _check_new_and_known(tmp_path / "d", 6)


@pytest.mark.parametrize("damage", ["flipped", "truncated", "valid-checksum-garbage", "empty"])
def test_corrupt_entries(tmp_path, damage):
    cache_dir = tmp_path / "c"
    _run(cache_dir, "both", 7)
    entries = _entries(cache_dir)
    assert entries
    for k, p in enumerate(entries):
        data = bytearray(p.read_bytes())
        if damage == "flipped":
            data[len(data) // 2 + k % 7] ^= 0x5A
        elif damage == "truncated":
            del data[len(data) * 2 // 3:]
        elif damage == "empty":
            data = bytearray()
        else:  # the payload replaced by bytes of the same length under a checksum that verifies
            header = diskcache._HEADER
            magic, version, klen, plen, _ = header.unpack_from(data)
            key = bytes(data[header.size:header.size + klen])
            payload = bytes((i * 131 + k) % 251 for i in range(plen))
            data = bytearray(header.pack(magic, version, klen, plen, zlib.crc32(key + payload)) + key + payload)
        p.write_bytes(bytes(data))
    _check_new_and_known(cache_dir, 7)
