import numpy as np, time
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=3):
    b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for name, a in [("half0 0..1000", np.maximum(rng.integers(-1000, 1001, n), 0)),
                ("half0 wide", np.where(rng.random(n) < 0.5, 0, rng.integers(0, 2**31, n))),
                ("10% zeros wide", np.where(rng.random(n) < 0.1, 0, rng.integers(-2**31, 2**31, n))),
                ("0..3", rng.integers(0, 4, n)),
                ("0..1", rng.integers(0, 2, n)),
                ("sorted", np.arange(n)), ("rev", np.arange(n)[::-1].copy())]:
    for dt in ("int32", "float32"):
        b = a.astype(dt)
        print(f"{name:16s} {dt:8s} sort {t(lambda: np.sort(b)):6.1f} " + " ".join(
            f"k={k:.2f}:{t(lambda: np.partition(b, int(k * n))):6.1f}" for k in (0.5, 0.25, 0.75)))
