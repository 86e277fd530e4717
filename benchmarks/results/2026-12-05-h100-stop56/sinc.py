import numpy as np, rocarray as ra
rng = np.random.default_rng(0)
vals = [0.0, -0.0, 1e-45, -1e-45, 1e-40, 1e-30, 1e-20, 1e-10, 0.5, 1.0, 2.0, 3.5, 1e5, 1e20, 1e38, 3e38,
        np.inf, -np.inf, np.nan, 5e-324, 1e-310, 1e-300, 1e300, 6e-8, 1e-5, 65504.0]
base = np.concatenate([vals, rng.standard_normal(500) * 10, rng.standard_normal(100) * 1e4, -np.array(vals)])
for dt in (np.float16, np.float32, np.float64, np.int8, np.int32, np.uint64, np.bool_):
    with np.errstate(all="ignore"):
        a = base.astype(dt)
    cpu = ra.sinc(ra.asarray(a)).get()
    got = ra.sinc(ra.asarray(a, device="cuda:0")).get()
    ok = (got == cpu) | (np.isnan(got) & np.isnan(cpu))
    rel = np.abs(got.astype(float) - cpu.astype(float)) / np.maximum(np.abs(cpu.astype(float)), 1e-300) / np.finfo(got.dtype).eps
    bad = ~ok & ~(rel <= 2)
    print(np.dtype(dt).name, got.dtype, "gpu vs cpu bad:", bad.sum(), list(zip(a[bad][:6], got[bad][:6], cpu[bad][:6])))
