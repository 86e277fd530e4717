"""First runs in new processes (empty cache): the ranking program on the CPU and a sequence of
first elementwise/reduction/sort calls, with the worker's quiet moment at QUIET seconds."""
import os, subprocess, sys, tempfile
CHILD = r'''
import os, sys, time
import numpy as np
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
import rocarray as ra
from rocarray.compiler import cache as C
C.QUIET_SECONDS = float(os.environ["QUIET"])
from bench_ranking import program_rocarray
rng = np.random.default_rng(0)
scores = ra.asarray(rng.standard_normal((1000, 256)).astype(np.float32))
labels = ra.asarray(rng.integers(0, 5000, 200000))
thr = ra.asarray(np.linspace(-3, 3, 1000).astype(np.float32))
t0 = time.perf_counter(); program_rocarray(scores, labels, thr); t1 = time.perf_counter()
out = [(t1 - t0) * 1e3]
t0 = time.perf_counter()
for dt in (np.float32, np.float64, np.int32, np.int64):
    a = ra.asarray((rng.standard_normal(100000) * 50).astype(dt)); b = ra.asarray((rng.standard_normal(100000) * 50).astype(dt))
    for x in (a + b, a * b, ra.sum(a), ra.max(a), ra.cumulative_sum(a), a[a > 0], ra.sort(a), ra.abs(a), ra.where(a > b, a, b)):
        x.get()
out.append((time.perf_counter() - t0) * 1e3)
print("RESULT", *[f"{v:.0f}" for v in out])
'''
res = {}
for r in range(int(sys.argv[1])):
    for q in ("0.01", "0.1"):
        env = dict(os.environ, ROCARRAY_CACHE_DIR=tempfile.mkdtemp(), QUIET=q)
        p = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
        line = [l for l in p.stdout.splitlines() if l.startswith("RESULT")]
        print(q, line[0] if line else p.stderr[-1500:], flush=True)
