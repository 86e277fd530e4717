import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
X = rng.standard_normal(1 << 22).astype(np.float32); I = rng.integers(0, 1 << 22, 1 << 22)
x, i = ra.asarray(X), ra.asarray(I)
f = lambda: ra.take(x, i)
for _ in range(10): f()
drain_background()
for _ in range(3): f()
ts = []
for _ in range(15):
    t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
tn = []
for _ in range(15):
    t0 = time.perf_counter(); np.take(X, I); tn.append(time.perf_counter() - t0)
print(f"take ra best {min(ts)*1e3:.2f} med {sorted(ts)[7]*1e3:.2f} ms   numpy best {min(tn)*1e3:.2f} med {sorted(tn)[7]*1e3:.2f}")
