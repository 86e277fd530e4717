"""First sorts on a GPU in new processes (empty rocarray cache, CUDA_CACHE_DISABLE=1), this
tree against the one in .devrun/old, alternating; then the network's warm speed beside the
radix sort's.  python .devrun/firstsort.py OUT"""
import json, os, subprocess, sys, tempfile, time

CASES = [("sort int16 1000", "ra.sort(x)", "np.arange(-500, 500, dtype=np.int16)[::-1].copy()"),
         ("argsort int16 1000", "ra.argsort(x)", "np.arange(-500, 500, dtype=np.int16)[::-1].copy()"),
         ("sort float32 1000", "ra.sort(x)", "rng.standard_normal(1000).astype(np.float32)"),
         ("sort float32 2^20", "ra.sort(x)", "rng.standard_normal(1 << 20).astype(np.float32)"),
         ("argsort float32 2^24", "ra.argsort(x)", "rng.standard_normal(1 << 24).astype(np.float32)"),
         ("sort int64 2^22", "ra.sort(x)", "rng.integers(-10**12, 10**12, 1 << 22)"),
         ("unique_counts int64 200k", "ra.unique_counts(x)", "rng.integers(0, 5000, 200000)"),
         ("argsort rows 1000x256 desc", "ra.argsort(x, axis=1, descending=True, stable=True)",
          "rng.standard_normal((1000, 256)).astype(np.float32)")]
CHILD = r'''
import time, numpy as np, sys
rng = np.random.default_rng(0)
h = {data}
import rocarray as ra
dev = ra.Device("cuda:0")
x = ra.asarray(h, device=dev)
dev.synchronize()
from rocarray.compiler.cache import drain_background
t0 = time.perf_counter(); r = {call}; dev.synchronize(); t1 = time.perf_counter()
t2 = time.perf_counter(); r = {call}; dev.synchronize(); t3 = time.perf_counter()
print("RESULT", (t1 - t0) * 1e3, (t3 - t2) * 1e3)
'''
out = sys.argv[1]
rows = []
only = os.environ.get("ONLY")
PREFIX = os.environ.get("PREFIX", "").split()
for name, call, data in CASES:
    if only and not any(w in name for w in only.split(",")):
        continue
    for rnd in range(2):
        for tree in ("new", "old"):
            env = dict(os.environ, ROCARRAY_CACHE_DIR=tempfile.mkdtemp(), CUDA_CACHE_DISABLE="1",
                       PYTHONPATH=os.getcwd() if tree == "new" else os.path.join(os.getcwd(), ".devrun/old"))
            p = subprocess.run(PREFIX + [sys.executable, "-c", CHILD.format(data=data, call=call)], env=env,
                               capture_output=True, text=True)
            line = [l for l in p.stdout.splitlines() if l.startswith("RESULT")]
            first, second = map(float, line[0].split()[1:]) if line else (float("nan"),) * 2
            if not line:
                print(p.stderr[-3000:])
            rows.append((name, tree, rnd, first, second))
            print(f"{name:30s} {tree} round {rnd}: first {first:8.1f} ms, second {second:8.1f} ms", flush=True)

if os.environ.get("NO_WARM"):
    with open(out, "w") as f:
        for r in rows:
            f.write(f"{r[0]:30s} {r[1]} round {r[2]}: first {r[3]:8.1f} ms, second {r[4]:8.1f} ms\n")
    sys.exit(0)
# warm: the network against the radix modules in one process
sys.path.insert(0, os.getcwd())
import numpy as np
import rocarray as ra
from rocarray import _radix_gpu
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
rng = np.random.default_rng(1)
real = _radix_gpu._radix_ready
lines = []
for shape, dt in (((1 << 24,), np.float32), ((1 << 20,), np.float32), ((1 << 22,), np.int64), ((1000, 256), np.float32),
                  ((1000,), np.int16)):
    h = rng.standard_normal(shape).astype(dt) if dt == np.float32 else rng.integers(-30000, 30000, shape).astype(dt)
    x = ra.asarray(h, device=dev)
    res = {}
    for tier in ("network", "radix"):
        _radix_gpu._radix_ready = (lambda *a: False) if tier == "network" else (lambda *a: True)
        for fn_name, fn in (("sort", lambda: ra.sort(x)), ("argsort", lambda: ra.argsort(x))):
            fn(); dev.synchronize(); drain_background()
            best = 1e9
            for _ in range(5):
                t0 = time.perf_counter(); fn(); dev.synchronize(); best = min(best, time.perf_counter() - t0)
            res[tier, fn_name] = best * 1e3
            got = fn().get()
            want = np.sort(h, axis=-1) if fn_name == "sort" else np.argsort(h, axis=-1, kind="stable")
            assert (got == want).all(), (tier, fn_name, shape)
    _radix_gpu._radix_ready = real
    line = (f"warm {shape} {np.dtype(dt).name}: network sort {res['network', 'sort']:.3f} ms argsort "
            f"{res['network', 'argsort']:.3f} | radix sort {res['radix', 'sort']:.3f} argsort {res['radix', 'argsort']:.3f}")
    print(line, flush=True)
    lines.append(line)
with open(out, "w") as f:
    for r in rows:
        f.write(f"{r[0]:30s} {r[1]} round {r[2]}: first {r[3]:8.1f} ms, second {r[4]:8.1f} ms\n")
    f.write("\n".join(lines) + "\n")
