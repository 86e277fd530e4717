"""x[m] and nonzero of float32 masks (x > 0.3 on normal data), best of five rounds:
python masks_ab.py LABEL (PYTHONPATH picks the tree)."""
import sys, time, numpy as np, rocarray as ra
rng = np.random.default_rng(1)
res = []
for n in (256, 65536, 200000, 262144, 1 << 20, 1 << 22):
    a = rng.standard_normal(n).astype(np.float32)
    x = ra.asarray(a); m = x > 0.3
    for f, name in ((lambda: x[m], "x[m]"), (lambda: ra.nonzero(m), "nonzero")):
        for _ in range(3): f()
        from rocarray.compiler.cache import drain_background; drain_background()
        reps = max(5, min(2000, int(2e6 // n)))
        best = []
        for r in range(5):
            t = time.perf_counter()
            for _ in range(reps): f()
            best.append((time.perf_counter() - t) / reps * 1e6)
        res.append(f"{name} {n}: {min(best):.1f} us")
print(sys.argv[1], " | ".join(res))
