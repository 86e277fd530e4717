"""User-kernel benchmarks: ElementwiseKernel, ReductionKernel and fuse beside their peers.

    python benchmarks/bench_user_kernels.py [--device cpu|cuda:0|hip:0] [--quick] [--json PATH]

Prints a Markdown report (machine, versions, figures, ratios):
 1. first call of a user kernel on a dtype this process has not seen, with an empty disk
    cache (cold), split into phases; on a CUDA GPU beside CuPy compiling the same kernels;
 2. the same first call in a fresh process whose disk cache holds the kernel (a disk hit),
    and a new shape of a known signature (must compile nothing);
 3. warm per-call host time of small calls (contiguous, on views, with a raw argument),
    beside NumPy (and CuPy on a GPU);
 4. throughput of large calls: fused ``x * y + z`` against the unfused ops and NumPy, the
    user squared difference, a user kernel that reads its output (``y += x``), and a user
    L2-norm reduction.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# bench_elementwise gives the house helpers; importing it first also points
# ROCARRAY_CACHE_DIR at a fresh empty directory for this run (unless the caller chose one)
from bench_elementwise import (_steady, _try_import, best_of, best_of_each, code_that_ran,  # noqa: E402
                               cupy_cold_ms, prepare_interpreter, report_main)

import rocarray as ra  # noqa: E402
from rocarray import cache  # noqa: E402
from rocarray.compiler.cache import default_cache, drain_background  # noqa: E402

SQDIFF = ("T x, T y", "T z", "z = (x - y) * (x - y)")
ACCUMULATE = ("T x", "T y", "y += x")
L2NORM = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0")
REVERSE = ("raw T x, int64 n", "T y", "y = x[n - 1 - i]")
COLD_DTYPES = ["int16", "uint32", "float32", "float64", "int8", "complex64"]


def _has_reduction_kernel() -> bool:
    from rocarray import _reduction

    return hasattr(ra, "ReductionKernel") and hasattr(_reduction, "ReductionDef")


def _fused_fma():
    @ra.fuse(kernel_name="bench_fma")
    def fma(x, y, z):
        return x * y + z
    return fma


# -- 1. cold ---------------------------------------------------------------------------------

def _first_call(fn, dev):
    from rocarray import _launch

    drain_background()
    cache.reset_counts()
    before = set(_launch._loaded)
    t0 = time.perf_counter()
    fn()
    dev.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    tier = code_that_ran(before)
    s = default_cache().stats()  # (``cache.info()`` would wait for the background first)
    s["tier"] = tier
    return ms, s


def cold(dev, rows):
    # the first kernel of a process also starts LLVM and the runtime: measured apart
    t0 = time.perf_counter()
    ra.negative(ra.asarray(np.arange(3, dtype=np.float16), device=dev))
    dev.synchronize()
    start = (time.perf_counter() - t0) * 1e3
    kern = ra.ElementwiseKernel(*SQDIFF, name="bench_sqdiff")
    fused = _fused_fma()
    cases = []
    for dt in COLD_DTYPES:
        a = ra.asarray(np.arange(1, 1001).astype(dt), device=dev)
        cases.append((f"ElementwiseKernel sqdiff({dt})", lambda a=a: kern(a, a)))
    for dt in COLD_DTYPES[:4]:
        a = ra.asarray(np.arange(1, 1001).astype(dt), device=dev)
        cases.append((f"fuse x*y+z ({dt})", lambda a=a: fused(a, a, a)))
    if _has_reduction_kernel():
        red = ra.ReductionKernel(*L2NORM, name="bench_l2norm")
        for dt in ("float16", "float32", "float64"):
            a = ra.asarray(np.arange(1, 1001).astype(dt).reshape(10, 100), device=dev)
            cases.append((f"ReductionKernel l2norm({dt})", lambda a=a: red(a, axis=1)))

        @ra.fuse(kernel_name="bench_sumsq")
        def sumsq(x, y):
            return ((x - y) * (x - y)).sum(axis=1)
        for dt in ("float32", "float64"):
            a = ra.asarray(np.arange(1, 1001).astype(dt).reshape(10, 100), device=dev)
            cases.append((f"fuse sum((x-y)^2) ({dt})", lambda a=a: sumsq(a, a)))
    rows.append("### 1. First call on a new dtype (empty disk cache)\n")
    prepare_interpreter(dev, rows)
    rows.append("| call | first call ms | code that ran it | IR build ms | optimise+emit+link ms | disk ms | rest (resolution, trace, load, launch) ms | kernels compiled |")
    rows.append("|---|---|---|---|---|---|---|---|")
    firsts = []
    elementwise = []
    reductions = []
    for name, fn in cases:
        ms, s = _first_call(fn, dev)
        rest = ms - s["ir_ms"] - s["compile_ms"] - s["disk_ms"]
        firsts.append(ms)
        if "ElementwiseKernel" in name or "x*y+z" in name:
            elementwise.append(ms)
        else:
            reductions.append(ms)
        rows.append(f"| {name} | {ms:.1f} | {s['tier']} | {s['ir_ms']:.1f} | {s['compile_ms']:.1f} | "
                    f"{s['disk_ms']:.2f} | {rest:.1f} | {s['compiled']} |")
    med = float(np.median(firsts))
    med_ew = float(np.median(elementwise))
    med_red = float(np.median(reductions)) if reductions else None
    red_text = "" if med_red is None else f"; **{med_red:.1f} ms** over the reduction rows"
    rows.append(f"\nrocarray median first call: **{med:.1f} ms** over every row; "
                f"**{med_ew:.1f} ms** over the elementwise rows (`ElementwiseKernel`, `fuse` without a "
                f"reduction){red_text}. The first kernel of "
                f"the process also started LLVM and the runtime: {start:.1f} ms")
    return med_ew, med_red


def cupy_cold(rows, meds):
    med, med_red = meds
    c = cupy_cold_ms("z = (x - y) * (x - y) + (T){salt}", 4)
    if c is None:
        return
    f = cupy_fuse_cold_ms(4)
    rows.append(f"\nCuPy ElementwiseKernel, new kernel text (NVRTC), median first call: **{c:.1f} ms**; "
                f"CuPy `fuse` x*y+z with a new constant: **{f:.1f} ms**; rocarray (elementwise rows) / "
                f"CuPy ElementwiseKernel = **{med / c:.3f}**, / CuPy fuse = **{med / f:.3f}**")
    if med_red is not None:
        r = cupy_reduction_cold_ms(4)
        rows.append(f"\nCuPy ReductionKernel l2norm (10x100 float32, axis=1) under a new name (NVRTC), "
                    f"median first call: **{r:.1f} ms**; rocarray (reduction rows) / CuPy ReductionKernel "
                    f"= **{med_red / r:.3f}**")


def cupy_reduction_cold_ms(runs: int) -> float:
    """Median first call (ms) of CuPy ``ReductionKernel`` L2NORM under a kernel name never
    used before (the name is part of the generated source, so NVRTC compiles it)."""
    import cupy as cp

    times = []
    x = cp.arange(1, 1001, dtype=cp.float32).reshape(10, 100)
    for k in range(runs):
        name = f"bench_red_cold_{os.getpid()}_{int(time.time() * 1e3) % 10**9}_{k}"
        kern = cp.ReductionKernel(*L2NORM, name)
        t0 = time.perf_counter()
        kern(x, axis=1)
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def cupy_fuse_cold_ms(runs: int) -> float:
    """Median first call (ms) of a new CuPy ``fuse`` function ``x * y + z`` under a kernel
    name never used before (the name is part of the generated source, so NVRTC compiles it)."""
    import cupy as cp

    times = []
    for k in range(runs):
        name = f"bench_fuse_cold_{os.getpid()}_{int(time.time() * 1e3) % 10**9}_{k}"
        fused = cp.fuse(kernel_name=name)(lambda x, y, z: x * y + z)
        x = cp.arange(1000, dtype=cp.float32)
        t0 = time.perf_counter()
        fused(x, x, x)
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


# -- 2. disk hit in a fresh process --------------------------------------------------------------

_CHILD = r"""
import time, numpy as np, rocarray as ra
from rocarray import cache
dev = ra.Device({dev!r})
ra.negative(ra.asarray(np.arange(10, dtype=np.float16), device=dev)); dev.synchronize()
kern = ra.ElementwiseKernel({sq!r}[0], {sq!r}[1], {sq!r}[2], name="bench_sqdiff")
@ra.fuse(kernel_name="bench_fma")
def fma(x, y, z):
    return x * y + z
a = ra.asarray(np.arange(1, 1001).astype("int16"), device=dev)
b = ra.asarray(np.arange(1, 1001).astype("float32"), device=dev)
out = []
for fn in (lambda: kern(a, a), lambda: fma(b, b, b)):
    cache.reset_counts()
    t0 = time.perf_counter(); fn(); dev.synchronize(); t = time.perf_counter() - t0
    i = cache.info()
    out.append("%f %d %d" % (t * 1e3, i["disk_hits"], i["compiled"]))
print(";".join(out))
"""


def disk_hit(dev, rows):
    code = _CHILD.format(dev=str(dev), sq=SQDIFF)
    vals = []
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)
        if r.returncode:
            rows.append(f"disk-hit child failed: {r.stderr[-800:]}")
            return
        vals.append([tuple(float(v) for v in part.split()) for part in r.stdout.strip().split(";")])
    rows.append("\n### 2. Disk-cache hit in a fresh process; new shape of a known signature\n")
    for k, label in enumerate(("ElementwiseKernel sqdiff(int16)", "fuse x*y+z (float32)")):
        ms = min(v[k][0] for v in vals)
        rows.append(f"- first call of {label} in a fresh process: **{ms:.2f} ms** "
                    f"(disk hits {int(vals[0][k][1])}, compilations {int(vals[0][k][2])})")
    kern = ra.ElementwiseKernel(*SQDIFF, name="bench_sqdiff")
    fused = _fused_fma()
    x = ra.asarray(np.ones((37, 53), dtype=np.int16), device=dev)
    f = ra.asarray(np.ones((37, 53), dtype=np.float32), device=dev)
    kern(x[0], x[0])
    fused(f[0], f[0], f[0])
    cache.reset_counts()
    kern(x, x)
    kern(x.T, x[::-1].T)
    kern(x[:, :1], x)
    fused(f, f.T.T, f[:1])
    fused(f[::2], f[::2], f[::-2])
    rows.append(f"- sqdiff(int16) and fused x*y+z (float32) on five new shapes/stride patterns: "
                f"kernels compiled **{cache.info()['compiled']}**, disk hits {cache.info()['disk_hits']}")


# -- 3. warm per-call ------------------------------------------------------------------------------

def warm(dev, rows):
    n = 1000
    h = np.random.default_rng(0).random(n, dtype=np.float32)
    x = ra.asarray(h, device=dev)
    kern = ra.ElementwiseKernel(*SQDIFF, name="bench_sqdiff")
    rev = ra.ElementwiseKernel(*REVERSE, name="bench_rev")
    ht = h.reshape(25, 40).T
    xt = ra.reshape(x, (25, 40)).T
    fused = _fused_fma()
    sync = dev.synchronize
    cases = [
        ("ElementwiseKernel sqdiff(x, y)", lambda: kern(x, x), lambda: (h - h) * (h - h)),
        ("ElementwiseKernel sqdiff(x, 2.0)", lambda: kern(x, 2.0), lambda: (h - 2.0) * (h - 2.0)),
        ("fuse x*y+z", lambda: fused(x, x, x), lambda: h * h + h),
        ("unfused rocarray x*y+z", lambda: x * x + x, None),
        # the general path: views (25x40, transposed) and a raw argument
        ("ElementwiseKernel sqdiff(x.T, y.T)", lambda: kern(xt, xt), lambda: (ht - ht) * (ht - ht)),
        ("ElementwiseKernel raw x[n - 1 - i]", lambda: rev(x, n, size=n), lambda: h[::-1].copy()),
    ]
    if _has_reduction_kernel():
        red = ra.ReductionKernel(*L2NORM, name="bench_l2norm")
        cases.append(("ReductionKernel l2norm(x)", lambda: red(x), lambda: np.sqrt((h * h).sum())))
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    if cp is not None:
        cx = cp.asarray(h)
        ck = cp.ElementwiseKernel(*SQDIFF, "bench_sqdiff")
        cf = cp.fuse(kernel_name="bench_fma")(lambda a, b, c: a * b + c)
        cpeers = {"ElementwiseKernel sqdiff(x, y)": lambda: ck(cx, cx),
                  "ElementwiseKernel sqdiff(x, 2.0)": lambda: ck(cx, 2.0),
                  "fuse x*y+z": lambda: cf(cx, cx, cx),
                  "unfused rocarray x*y+z": lambda: cx * cx + cx}
        cxt, crev = cx.reshape(25, 40).T, cp.ElementwiseKernel(*REVERSE, "bench_rev")
        cpeers["ElementwiseKernel sqdiff(x.T, y.T)"] = lambda: ck(cxt, cxt)
        cpeers["ElementwiseKernel raw x[n - 1 - i]"] = lambda: crev(cx, n, size=n)
        if _has_reduction_kernel():
            cr = cp.ReductionKernel(*L2NORM, "bench_l2norm")
            cpeers["ReductionKernel l2norm(x)"] = lambda: cr(cx)
    rows.append("\n### 3. Warm per-call time, 1,000 float32 (us per call)\n")
    head = "| call | rocarray | NumPy (host) | rocarray / NumPy |"
    sep = "|---|---|---|---|"
    if dev.kind != "cpu":
        head = "| call | rocarray | rocarray + sync | NumPy (host) | CuPy | CuPy + sync | rocarray / CuPy |"
        sep = "|---|---|---|---|---|---|---|"
    rows.append(head)
    rows.append(sep)
    for name, fn, npfn in cases:
        for _ in range(20):
            fn()
        _steady(fn)
        # rocarray's calls and its peers' timed in turn, round after round (best_of_each)
        fns = [fn, npfn if npfn is not None else (lambda: None)]
        if dev.kind != "cpu":
            fns.append(lambda: (fn(), sync()))
            if cp is not None:
                pf = cpeers[name]
                pf()
                fns += [pf, lambda: (pf(), cp.cuda.Device().synchronize())]
        times = best_of_each(fns, 11, 1000) + [float("nan")] * 2
        t, tn = times[0], (times[1] if npfn is not None else float("nan"))
        if dev.kind == "cpu":
            rows.append(f"| {name} | {t * 1e6:.2f} | {tn * 1e6:.2f} | {t / tn:.2f} |")
            continue
        ts, c, cs = times[2], times[3], times[4]
        rows.append(f"| {name} | {t * 1e6:.2f} | {ts * 1e6:.2f} | {tn * 1e6:.2f} | {c * 1e6:.2f} | "
                    f"{cs * 1e6:.2f} | {t / c:.2f} |")


# -- 4. throughput --------------------------------------------------------------------------------

def throughput(dev, rows, quick):
    n = (1 << 24) if dev.kind == "cpu" else (1 << 28)
    if quick:
        n >>= 2
    rng = np.random.default_rng(1)
    h = [rng.random(n, dtype=np.float32) for _ in range(3)]
    x, y, z = (ra.asarray(v, device=dev) for v in h)
    kern = ra.ElementwiseKernel(*SQDIFF, name="bench_sqdiff")
    acc = ra.ElementwiseKernel(*ACCUMULATE, name="bench_acc")
    fused = _fused_fma()
    # (the accumulations write arrays of their own: the other calls keep their data)
    acc_y, acc_h = ra.asarray(h[2].copy(), device=dev), h[2].copy()
    cases = [
        ("fuse x*y+z", lambda: fused(x, y, z), lambda: h[0] * h[1] + h[2], 16),
        ("unfused rocarray x*y+z", lambda: x * y + z, lambda: h[0] * h[1] + h[2], 28),
        ("ElementwiseKernel sqdiff", lambda: kern(x, y), lambda: (h[0] - h[1]) * (h[0] - h[1]), 12),
        ("ElementwiseKernel y += x (reads its output)", lambda: acc(x, acc_y), lambda: np.add(acc_h, h[0], out=acc_h),
         12),
    ]
    if _has_reduction_kernel():
        red = ra.ReductionKernel(*L2NORM, name="bench_l2norm")
        x2 = ra.reshape(x, (n // 1024, 1024))
        h2 = h[0].reshape(n // 1024, 1024)
        cases.append(("ReductionKernel l2norm(axis=1)", lambda: red(x2, axis=1),
                      lambda: np.sqrt((h2 * h2).sum(axis=1)), 4))
        cases.append(("ReductionKernel l2norm(all)", lambda: red(x), lambda: np.sqrt((h[0] * h[0]).sum()), 4))

        @ra.fuse(kernel_name="bench_sumsq")
        def sumsq(a, b):
            return ((a - b) * (a - b)).sum()
        cases.append(("fuse sum((x-y)^2)", lambda: sumsq(x, y),
                      lambda: ((h[0] - h[1]) * (h[0] - h[1])).sum(), 8))

    def timed(fn):
        _steady(fn)
        dev.synchronize()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            dev.synchronize()
            best = min(best, time.perf_counter() - t0)
        return best

    rows.append(f"\n### 4. Throughput, {n:,} float32\n")
    if dev.kind == "cpu":
        rows.append("| call | rocarray ms | NumPy ms | NumPy / rocarray (>1: rocarray faster) |")
        rows.append("|---|---|---|---|")
        for name, fn, npfn, _ in cases:
            t = timed(fn)
            tn = best_of(npfn, 5)
            rows.append(f"| {name} | {t * 1e3:.2f} | {tn * 1e3:.2f} | {tn / t:.2f} |")
        return
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    rows.append("| call | rocarray ms | GB/s | CuPy ms | CuPy / rocarray |")
    rows.append("|---|---|---|---|---|")
    if cp is not None:
        cx, cy, cz = (cp.asarray(v) for v in h)
        ck = cp.ElementwiseKernel(*SQDIFF, "bench_sqdiff")
        cf = cp.fuse(kernel_name="bench_fma")(lambda a, b, c: a * b + c)
        cacc, cacc_y = cp.ElementwiseKernel(*ACCUMULATE, "bench_acc"), cp.asarray(h[2])
        cpeers = {"fuse x*y+z": lambda: cf(cx, cy, cz), "unfused rocarray x*y+z": lambda: cx * cy + cz,
                  "ElementwiseKernel sqdiff": lambda: ck(cx, cy),
                  "ElementwiseKernel y += x (reads its output)": lambda: cacc(cx, cacc_y)}
        if _has_reduction_kernel():
            cr = cp.ReductionKernel(*L2NORM, "bench_l2norm")
            cx2 = cx.reshape(n // 1024, 1024)
            cpeers["ReductionKernel l2norm(axis=1)"] = lambda: cr(cx2, axis=1)
            cpeers["ReductionKernel l2norm(all)"] = lambda: cr(cx)
            cs = cp.fuse(kernel_name="bench_sumsq")(lambda a, b: cp.sum((a - b) * (a - b)))
            cpeers["fuse sum((x-y)^2)"] = lambda: cs(cx, cy)
    for name, fn, _, nbytes in cases:
        t = timed(fn)
        c = float("nan")
        if cp is not None:
            pf = cpeers[name]
            pf()
            cp.cuda.Device().synchronize()
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                pf()
                cp.cuda.Device().synchronize()
                best = min(best, time.perf_counter() - t0)
            c = best
        rows.append(f"| {name} | {t * 1e3:.3f} | {nbytes * n / t / 1e9:.0f} | {c * 1e3:.3f} | {c / t:.2f} |")


def _sections(dev, rows, quick):
    if not _has_reduction_kernel():
        rows.append("(ReductionKernel is not in this build: its rows are left out)\n")
    med = cold(dev, rows)
    if dev.kind == "cuda":
        cupy_cold(rows, med)
    disk_hit(dev, rows)
    warm(dev, rows)
    throughput(dev, rows, quick)


def main():
    report_main("## rocarray user-kernel benchmark (ElementwiseKernel, ReductionKernel, fuse)", _sections)


if __name__ == "__main__":
    main()
