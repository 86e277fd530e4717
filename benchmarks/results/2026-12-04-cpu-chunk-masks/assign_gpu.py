"""GPU x[m] = v, float32/int64 2^24 and 2^20, m = z > 0, v positive: best of 20, ms; beside CuPy and PyTorch."""
import sys, time, numpy as np, rocarray as ra
import cupy as cp, torch
dev = ra.Device("cuda:0")
rng = np.random.default_rng(0)
out = []
for n in (1 << 20, 1 << 24):
    for dt in (np.float32, np.int64):
        a = (rng.standard_normal(n) * 100).astype(dt)
        v = np.abs(rng.standard_normal(int((a > 0).sum())) * 100).astype(dt) + dt(1)
        libs = {"rocarray": (ra.asarray(a, device=dev), ra.asarray(v, device=dev), dev.synchronize),
                "cupy": (cp.asarray(a), cp.asarray(v), cp.cuda.Device().synchronize),
                "torch": (torch.as_tensor(a, device="cuda"), torch.as_tensor(v, device="cuda"), torch.cuda.synchronize)}
        res = {}
        for name, (z, vv, sync) in libs.items():
            def f():
                z[z > 0] = vv
            for _ in range(5): f()
            sync()
            best = 1e9
            for _ in range(20):
                t = time.perf_counter(); f(); sync(); best = min(best, time.perf_counter() - t)
            res[name] = best * 1e3
        got = ra.asnumpy(libs["rocarray"][0]); want = a.copy(); want[a > 0] = v
        assert np.array_equal(got, want)
        out.append(f"{sys.argv[1]} n={n} {np.dtype(dt).name}: " + ", ".join(f"{k} {t:.3f}" for k, t in res.items()))
print("\n".join(out))
