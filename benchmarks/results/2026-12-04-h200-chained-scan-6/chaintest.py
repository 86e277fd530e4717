"""Single-pass scan on the GPU: correctness matrix, then timing against the passes and peers."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray import _reduction as R
from rocarray.compiler import reduction_chain as C
from rocarray.compiler.cache import drain_background

variant = dict(a.split("=") for a in sys.argv[1:] if "=" in a and not a.startswith("dtypes="))
only = [a[7:].split(",") for a in sys.argv[1:] if a.startswith("dtypes=")]
for k, v in variant.items():
    setattr(C, k, int(v)); setattr(R, k, int(v))
dev = ra.Device("cuda:0").check()
rng = np.random.default_rng(1)
fails = 0


def check(name, got, want, exact):
    global fails
    got = ra.asnumpy(got)
    if got.shape != want.shape:
        print("SHAPE", name, got.shape, want.shape); fails += 1; return
    if exact:
        bad = np.flatnonzero(got != want)
    else:
        scale = np.maximum(np.abs(np.cumsum(np.abs(want.astype(np.float64)))), 1)
        tol = {np.float16: 2e-2, np.float32: 2e-5, np.float64: 1e-12}[got.dtype.type]
        bad = np.flatnonzero(~(np.abs(got.astype(np.float64) - want) <= tol * scale + 1e-30))
    if bad.size:
        fails += 1
        k = bad[0]
        print(f"FAIL {name}: {bad.size} bad, first {k}: got {got[k]!r} want {want[k]!r} prev got {got[k-1]!r} want {want[k-1]!r}")
        if got.dtype == np.float64 and k:
            print("   hex got", got[k-1:k+2].view(np.uint64), "want", want[k-1:k+2].astype(np.float64).view(np.uint64))


def chained(fn):
    fn(); dev.synchronize(); drain_background(); out = fn(); dev.synchronize()
    return out


if "time" not in sys.argv:
    for dt in (only[0] if only else ["float32", "float64", "int32", "int64", "uint8", "bool", "int8", "int16", "uint32", "uint64", "float16"]):
        for n in [1 << 17, (1 << 20) + 777, (1 << 24) + 5]:
            h = (rng.random(n) < 0.5) if dt == "bool" else (rng.standard_normal(n) * 3).astype(dt) if dt[0] == "f" \
                else rng.integers(0 if dt[0] == "u" else -100, 100, n).astype(dt)
            x = ra.asarray(h, device=dev)
            want = np.cumsum(h.astype(np.float64) if dt[0] == "f" else h)
            exact = dt[0] != "f"
            if exact:
                want = np.cumsum(h, dtype=ra.asnumpy(ra.cumulative_sum(x[:2])).dtype)
            first = ra.asnumpy(ra.cumulative_sum(x)); dev.synchronize()
            if not exact and np.abs(first - want).max() > 1e-3 * np.abs(want).max():
                print("PASSES WRONG", dt, n)
            got = chained(lambda: ra.cumulative_sum(x))
            if dt == "float64" and n == 1 << 17:
                g = ra.asnumpy(got)
                for k in [0, 1, 511, 512, 513, 1023, 1024, 1535, 1536, 2047, 2048, 4095, 4096, 4097, 8192]:
                    print(f"  k {k} diff {g[k] - want[k]:.3e} got {g[k].view(np.uint64):016x} want {want[k].view(np.uint64):016x}")
            plan = next(p for p in R._scan_plans.values() if p.out_shape == (n,))
            if plan.chained is None:
                print("NOT CHAINED", dt, n); fails += 1
            check(f"cumsum {dt} {n}", got, want, exact)
            got = chained(lambda: ra.cumulative_sum(x, include_initial=True))
            check(f"cumsum+init {dt} {n}", got, np.concatenate([[0], want]).astype(want.dtype), exact)
            v = x[3:]
            got = chained(lambda: ra.cumulative_sum(v))
            check(f"cumsum view {dt} {n}", got, (np.cumsum(h[3:], dtype=want.dtype) if exact else np.cumsum(h[3:].astype(np.float64))), exact)
            if exact and dt != "bool":
                for r in range(20 if n > 1 << 20 else 3):
                    got = ra.cumulative_sum(x)
                    check(f"cumsum repeat {r} {dt} {n}", got, want, exact)
            R._scan_plans.clear()
        print("done", dt, "fails so far", fails, flush=True)
    # prod (order matters for rounding only) and max via ra scan primitives
    h = (1 + rng.standard_normal(1 << 20) * 1e-4).astype(np.float32)
    x = ra.asarray(h, device=dev)
    got = chained(lambda: ra.cumulative_prod(x))
    check("cumprod f32", got, np.cumprod(h.astype(np.float64)), False)
    h = rng.integers(-10**6, 10**6, (1 << 20) + 3)
    x = ra.asarray(h, device=dev)
    from rocarray import _primitives as P
    got = chained(lambda: P.scan(x, "max"))
    check("scan max int64", got, np.maximum.accumulate(h), True)
    print("CORRECTNESS fails:", fails, flush=True)
    if "notime" in sys.argv:
        sys.exit(0)

import torch
from torch.profiler import profile, ProfilerActivity
from torch.autograd import DeviceType


def kern(fn, sync):
    for _ in range(5):
        fn()
    sync(); drain_background()
    for _ in range(3):
        fn()
    sync()
    t = []
    for _ in range(20):
        t0 = time.perf_counter(); fn(); sync(); t.append(time.perf_counter() - t0)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            fn(); sync()
    ks = {}
    for e in prof.events():
        if e.device_type == DeviceType.CUDA:
            ks.setdefault(e.name[:90], []).append(e.time_range.end - e.time_range.start)
    return f"wall {min(t) * 1e6:6.1f} us  kernels " + ", ".join(f"{k} {np.median(v):.1f}" for k, v in ks.items())


for dt in ["float32", "int64", "int32"]:
    h = (rng.standard_normal(1 << 24)).astype(dt) if dt[0] == "f" else rng.integers(-1000, 1000, 1 << 24).astype(dt)
    x = ra.asarray(h, device=dev)
    tx = torch.as_tensor(h, device="cuda")
    R._scan_plans.clear()
    print(f"{dt} chained: {kern(lambda: ra.cumulative_sum(x), dev.synchronize)}")
    try:
        from cuda.bindings import driver
        plan = next(p for p in R._scan_plans.values() if getattr(p, "chained", None))
        h = plan.chained[0].code.functions[0].handle
        A = driver.CUfunction_attribute
        got = [driver.cuFuncGetAttribute(getattr(A, "CU_FUNC_ATTRIBUTE_" + a), h)[1] for a in ("NUM_REGS", "LOCAL_SIZE_BYTES", "SHARED_SIZE_BYTES")]
        print(f"{dt} attrs: regs {got[0]} local {got[1]} shared {got[2]} grid {plan.chained[2]} tiles {plan.chained[1]}")
    except Exception as e:
        print("attrs failed", type(e).__name__, e)
    keep = R.CHAIN_MIN
    R.CHAIN_MIN = 1 << 62
    R._scan_plans.clear()
    print(f"{dt} passes:  {kern(lambda: ra.cumulative_sum(x), dev.synchronize)}")
    R.CHAIN_MIN = keep
    R._scan_plans.clear()
    print(f"{dt} torch:   {kern(lambda: tx.cumsum(0), torch.cuda.synchronize)}", flush=True)
