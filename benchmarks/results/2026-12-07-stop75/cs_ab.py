import time, numpy as np, rocarray as ra
rng = np.random.default_rng(0)
out = []
for n in (1 << 20, 1 << 22, 1 << 24):
    h = rng.integers(-1000, 1001, n); x = ra.asarray(h); hf = rng.standard_normal(n).astype(np.float32); xf = ra.asarray(hf)
    for name, f in (("int64", lambda: ra.cumulative_sum(x)), ("f32", lambda: ra.cumulative_sum(xf))):
        for _ in range(3): f()
        ts = []
        for _ in range(25):
            t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
        ts.sort(); out.append(f"{name} 2^{n.bit_length()-1}: {ts[0]*1e3:.3f}/{ts[12]*1e3:.3f}")
print(" | ".join(out))
