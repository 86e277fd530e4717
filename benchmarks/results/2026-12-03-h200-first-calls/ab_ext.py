"""In-process A/B of the integer sort's key range: one reduction and one read-back
(``key_extremes``, new) against ``min`` and ``max`` read back one after the other (old),
the two taking turns call by call."""
import sys, time
import numpy as np
import rocarray as ra
import rocarray._radix_gpu as RG
from rocarray._statistical_functions import min as _min, max as _max
from rocarray.compiler.cache import drain_background
sys.path.insert(0, "benchmarks")
from bench_ranking import program_rocarray
new = RG.key_extremes
def old(keys):
    lo, hi = int(_min(keys).get()), int(_max(keys).get())
    bits = 8 * keys.dtype.itemsize
    off = 1 << (bits - 1) if keys.dtype.kind == "i" else 0
    w = (1 << bits) - 1
    return (lo + off) & w, (hi + off) & w
rng = np.random.default_rng(0)
dev = ra.Device("cuda:0")
L200 = ra.asarray(rng.integers(0, 5000, 200000), device=dev)
X24 = ra.asarray(rng.integers(-1000, 1000, 1 << 24), device=dev)
W24 = ra.asarray(rng.integers(-10**12, 10**12, 1 << 24), device=dev)
S = ra.asarray(rng.standard_normal((1000, 256)).astype(np.float32), device=dev)
T = ra.asarray(np.sort(rng.standard_normal(1000).astype(np.float32)), device=dev)
cases = {"unique_counts int64 200k": lambda: ra.unique_counts(L200), "sort int64 200k": lambda: ra.sort(L200),
         "unique_counts int64 2^24": lambda: ra.unique_counts(X24), "sort int64 2^24 (2000 values)": lambda: ra.sort(X24),
         "sort int64 2^24 (wide)": lambda: ra.sort(W24), "ranking program": lambda: program_rocarray(S, L200, T),
         "key range alone 2^24": lambda: RG.key_extremes(X24)}
for name, f in cases.items():
    for impl in (new, old, new, old):
        RG.key_extremes = impl
        for _ in range(3): f()
    dev.synchronize(); drain_background()
    ts = {"new": [], "old": []}
    for _ in range(20):
        for tag, impl in (("new", new), ("old", old)):
            RG.key_extremes = impl
            t0 = time.perf_counter(); f(); dev.synchronize(); ts[tag].append(time.perf_counter() - t0)
    print(f"{name:30s} " + "  ".join(f"{k} best {min(v)*1e3:7.3f} median {sorted(v)[10]*1e3:7.3f} ms" for k, v in ts.items()), flush=True)
RG.key_extremes = new
