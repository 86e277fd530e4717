"""Warm times of the integer sort paths (best of 15, each call synced), for an A/B of two
trees run one after the other in separate processes: argv[1] names the tree."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
sys.path.insert(0, "benchmarks")
rng = np.random.default_rng(0)
dev = ra.Device("cuda:0")
L200 = ra.asarray(rng.integers(0, 5000, 200000), device=dev)
X24 = ra.asarray(rng.integers(-1000, 1000, 1 << 24), device=dev)
W24 = ra.asarray(rng.integers(-10**12, 10**12, 1 << 24), device=dev)
V = ra.asarray(rng.integers(-1000, 1000, 1 << 16), device=dev)
S = ra.asarray(rng.standard_normal((1000, 256)).astype(np.float32), device=dev)
T = ra.asarray(np.sort(rng.standard_normal(1000).astype(np.float32)), device=dev)
from bench_ranking import program_rocarray
F24 = ra.asarray(rng.standard_normal(1 << 24).astype(np.float32), device=dev)
cases = {"unique_counts int64 200k": lambda: ra.unique_counts(L200),
         "sort int64 200k": lambda: ra.sort(L200),
         "unique_counts int64 2^24": lambda: ra.unique_counts(X24),
         "sort int64 2^24 (2000 values)": lambda: ra.sort(X24),
         "sort int64 2^24 (wide)": lambda: ra.sort(W24),
         "isin int64 2^24": lambda: ra.isin(X24, V),
         "unique_counts float32 2^24": lambda: ra.unique_counts(F24),
         "sort float32 2^24": lambda: ra.sort(F24),
         "ranking program": lambda: program_rocarray(S, L200, T)}
for name, f in cases.items():
    for _ in range(3): f()
    dev.synchronize(); drain_background()
    ts = []
    for _ in range(15):
        t0 = time.perf_counter(); f(); dev.synchronize(); ts.append(time.perf_counter() - t0)
    print(f"{sys.argv[1]:5s} {name:30s} best {min(ts)*1e3:7.3f} ms  median {sorted(ts)[7]*1e3:7.3f}", flush=True)
