import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def t(f, r=7):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for n in (1 << 12, 1 << 16, 1 << 18, 1 << 19, 1 << 20, 1 << 22):
    s = rng.standard_normal(n).astype(np.float32); idx = rng.integers(0, n, 1 << 22); w = rng.standard_normal(1 << 22).astype(np.float32)
    S, I, W = ra.asarray(s), ra.asarray(idx), ra.asarray(w)
    def put(): S[I] = W
    def nput(): s[idx] = w
    print(f"target {n:8d}: numpy {t(nput):6.2f} rocarray {t(put):6.2f} ms", flush=True)
