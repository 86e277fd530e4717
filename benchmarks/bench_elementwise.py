"""Elementwise benchmarks: rocarray beside its peers measured in the same run.

    python benchmarks/bench_elementwise.py [--device cpu|cuda:0|hip:0] [--quick] [--json PATH]

Prints, as a Markdown report (machine, versions, figures, ratios):
 1. cold cost of a new dtype signature with an empty disk cache, split into phases;
    on a GPU beside CuPy's ElementwiseKernel (NVRTC) compiling a new kernel;
 2. a disk-cache hit in a fresh process (and a new shape of a known signature: compiles nothing);
 3. warm per-call host time of ``a + b`` on 1,000 float32, and of calls on views and
    broadcasts (the general path), (GPU: with and without a sync);
 4. throughput of large ``a + b``, ``a * b + c`` and ``exp(a)``: on the CPU as a ratio to
    NumPy (with views, broadcasts and ops in place), on a GPU as a fraction of the device
    copy bandwidth measured in the same run, beside CuPy and PyTorch.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
from report import write_json

# An empty disk cache for this run (unless the caller chose one), and no help from the
# CUDA driver's own JIT cache, so "cold" means cold (CuPy's NVRTC compile is measured with
# a kernel text never seen before, which no cache can answer either).
os.environ.setdefault("ROCARRAY_CACHE_DIR", tempfile.mkdtemp(prefix="rocarray-bench-"))
os.environ.setdefault("CUDA_CACHE_DISABLE", "1")

import rocarray as ra  # noqa: E402
from rocarray import cache  # noqa: E402


def _try_import(name):
    try:
        return __import__(name)
    except Exception:
        return None


def best_of(fn, repeat=5, number=1):
    """Best mean time of ``number`` calls over ``repeat`` rounds, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def median_time(call, sync, repeat=7) -> float:
    """The median wall time (s) of ``call(); sync()`` over ``repeat`` lone calls, after one
    not counted."""
    call()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def best_of_each(fns, repeat=7, number=1):
    """``best_of`` for several callables measured in turn, round by round (each round times
    ``number`` calls of every one), so a change of the machine's pace during the run -- a
    shared host, a clock going up or down -- falls on all of them alike: best mean time
    of each, in seconds, in the order given."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / number)
    return best


def machine(dev) -> list:
    lines = [
        f"- date: {time.strftime('%Y-%m-%d %H:%M %Z')}",
        f"- command: `python {' '.join(sys.argv)}`",
        f"- host: {platform.machine()}, {os.cpu_count()} cores, {platform.processor() or platform.platform()}",
        f"- device: {dev} ({dev.runtime.device_name(dev.index)}, target {dev.runtime.target_name(dev.index)})",
        f"- python {platform.python_version()}, numpy {np.__version__}, rocarray {ra.__version__}",
    ]
    import llvmlite

    lines.append(f"- llvmlite {llvmlite.__version__}")
    for name in ("cupy", "torch"):
        m = _try_import(name)
        if m is not None:
            lines.append(f"- {name} {m.__version__}")
    return lines


# -- 1. cold new signature -------------------------------------------------------------

COLD_CASES = [
    ("add", "int16"), ("multiply", "uint32"), ("subtract", "float32"), ("hypot", "float64"),
    ("maximum", "int8"), ("exp", "float32"), ("less", "uint16"), ("remainder", "int64"),
]


#: first calls with the interpreter off, on signatures section 1 does not use
COLD_CASES_COMPILED = [
    ("add", "uint16"), ("multiply", "int8"), ("subtract", "float64"), ("exp", "float64"),
]


def prepare_interpreter(dev, rows) -> None:
    """Build (or find) the device's interpreter kernel before the cold figures: it is
    compiled once per machine and kept in the disk cache, like a part of the install."""
    from rocarray import _interpreter

    if dev.kind == "cpu" and not _interpreter.ON_HOST:
        rows.append("- interpreter tier: not used on the host (`ROCARRAY_INTERPRETER=gpu`)\n")
        return
    cache.reset_counts()
    t0 = time.perf_counter()
    ready = _interpreter.prepare(dev) is not None and _interpreter.ENABLED
    ms = (time.perf_counter() - t0) * 1e3
    built = cache.info()["interpreter"]
    if not ready:
        rows.append("- interpreter tier: off for this device (first calls are compiled)\n")
    else:
        rows.append(f"- interpreter tier: its kernel {'built' if built else 'read from the disk cache'} "
                    f"in {ms:.0f} ms (once per machine: `python -m rocarray interpreter --target "
                    f"{dev.runtime.target_name(dev.index)}`)\n")


def code_that_ran(before) -> str:
    """Which code ran a first call: the tier of the kernels loaded since ``before`` (the
    keys of ``rocarray._launch._loaded`` taken just before the call)."""
    from rocarray import _launch

    new = [k for key, k in list(_launch._loaded.items()) if key not in before]
    if not new:
        return "?"
    if any(k.code.tier == "interpreted" for k in new):
        return "interpreter"
    return "quick" if any(k.code.calls >= 0 for k in new) else "full"


def cold_signatures(dev, rows, cases=COLD_CASES, title="### 1. Cold new dtype signature (empty disk cache)\n"):
    """First call of ops on dtypes this process has not seen, empty disk cache."""
    from rocarray import _launch
    from rocarray.compiler.cache import default_cache, drain_background

    # The first kernel of a process also pays for starting LLVM and the runtime: measured
    # apart, so the table shows the steady per-signature cost.
    t0 = time.perf_counter()
    ra.negative(ra.asarray(np.arange(3, dtype=np.float16), device=dev))
    dev.synchronize()
    start = (time.perf_counter() - t0) * 1e3
    out = []
    upgrades = []
    for name, dt in cases:
        drain_background()  # no tier-up compile of an earlier kernel running meanwhile
        fn = getattr(ra, name)
        a = ra.asarray(np.arange(1, 1001).astype(dt), device=dev)
        nin = fn.nin
        cache.reset_counts()
        before = set(_launch._loaded)
        t0 = time.perf_counter()
        r = fn(*([a] * nin))
        dev.synchronize()
        first = time.perf_counter() - t0
        tier = code_that_ran(before)
        s = default_cache().stats()  # (``cache.info()`` would wait for the background first)
        warm = best_of(lambda: (fn(*([a] * nin)), dev.synchronize()), 5, 20)
        cache.reset_counts()
        drain_background()  # the compiled code (interpreter) or the hot kernel's upgrade
        u = default_cache().stats()
        if u["upgraded"] or u["compiled"]:
            upgrades.append(u["compile_ms"] + u["ir_ms"])
        out.append((f"{name}({dt})", first * 1e3, s["ir_ms"], s["compile_ms"], s["disk_ms"],
                    (first - warm) * 1e3 - s["ir_ms"] - s["compile_ms"] - s["disk_ms"], s["compiled"], tier))
        del r
    rows.append(title)
    rows.append("| signature | first call ms | code that ran it | IR build ms | optimise+emit+link ms | disk ms | load, resolution, launch ms | kernels compiled |")
    rows.append("|---|---|---|---|---|---|---|---|")
    for name, first, ir_ms, comp, disk, rest, n, tier in out:
        rows.append(f"| {name} | {first:.1f} | {tier} | {ir_ms:.1f} | {comp:.1f} | {disk:.2f} | {rest:.1f} | {n} |")
    med = float(np.median([o[1] for o in out]))
    rows.append(f"\nrocarray median first call: **{med:.1f} ms** (the first kernel of a process "
                f"also starts LLVM and the runtime: {start:.1f} ms)")
    if upgrades:
        rows.append(f"\nTiered: a first call runs the interpreter (or quick-tier code); the compiled "
                    f"kernel is made on a background thread (median {float(np.median(upgrades)):.1f} ms, "
                    f"off the calling thread) and replaces it.")
    return med


def cold_compiled(dev, rows) -> None:
    """Section 1 with the interpreter off: what a first call costs when it waits for code."""
    from rocarray import _interpreter

    from rocarray.targets import target_for

    if not _interpreter.ENABLED or (dev.kind == "cpu" and not _interpreter.ON_HOST) or \
            _interpreter.image_target(target_for(dev.runtime.target_name(dev.index))) is None:
        return
    _interpreter.ENABLED = False
    try:
        med = cold_signatures(dev, rows, COLD_CASES_COMPILED,
                              "\n#### 1b. The same with the interpreter off (`ROCARRAY_INTERPRETER=0`), other signatures\n")
    finally:
        _interpreter.ENABLED = True
    rows.append(f"\n(median with the interpreter off: {med:.1f} ms)")


def cupy_cold(rows, med):
    c = cupy_cold_ms("z = x + y * {salt}", 5)
    if c is not None:
        rows.append(f"CuPy ElementwiseKernel, new kernel (NVRTC), median first call: **{c:.1f} ms**; "
                    f"rocarray / CuPy = **{med / c:.3f}**")


def cupy_cold_ms(body: str, runs: int):
    """Median first call (ms) of CuPy ElementwiseKernels ``T x, T y -> T z`` whose ``body``
    gets a number never seen before in place of ``{salt}``, so NVRTC compiles each one (no
    cache can answer); None without CuPy."""
    cp = _try_import("cupy")
    if cp is None:
        return None
    times = []
    for k in range(runs):
        salt = f"{k + 0.123456789 * time.time():.9f}"
        kern = cp.ElementwiseKernel("T x, T y", "T z", body.format(salt=salt), f"bench_cold_{os.getpid()}_{k}")
        x = cp.arange(1000, dtype=cp.float32)
        t0 = time.perf_counter()
        kern(x, x)
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


# -- 2. disk hit in a fresh process, and a new shape ------------------------------------

_CHILD = r"""
import time, numpy as np, rocarray as ra
from rocarray import cache
dev = ra.Device({dev!r})
a = ra.asarray(np.arange(10, dtype=np.float32), device=dev)
ra.negative(a); dev.synchronize()       # starts LLVM / the driver (not what we measure)
b = ra.asarray(np.arange(10, dtype=np.int16), device=dev)
cache.reset_counts()
t0 = time.perf_counter(); ra.add(b, b); dev.synchronize(); t = time.perf_counter() - t0
print(t * 1e3, cache.info()["disk_hits"], cache.info()["compiled"])
"""


DISK_HIT_RUNS = 7


def disk_hit(dev, rows):
    code = _CHILD.format(dev=str(dev))
    # the parent already compiled add(int16) and negative(float32) into the disk cache
    a = ra.asarray(np.arange(10, dtype=np.float32), device=dev)
    ra.negative(a)
    vals = []
    for _ in range(DISK_HIT_RUNS):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)
        if r.returncode:
            rows.append(f"disk-hit child failed: {r.stderr[-500:]}")
            return
        ms, hits, compiled = r.stdout.split()
        vals.append((float(ms), int(hits), int(compiled)))
    ms = sorted(v[0] for v in vals)
    rows.append("\n### 2. Disk-cache hit in a fresh process; new shape of a known signature\n")
    rows.append(f"- first call of add(int16) in a fresh process: **{float(np.median(ms)):.2f} ms** "
                f"median of {len(ms)} processes (fastest {ms[0]:.2f}, slowest {ms[-1]:.2f}; "
                f"disk hits {vals[0][1]}, compilations {vals[0][2]})")
    x = ra.asarray(np.ones((37, 53), dtype=np.int16), device=dev)
    cache.reset_counts()
    ra.add(x, x)
    ra.add(x.T, x[::-1].T)
    ra.add(x[:, :1], x)
    rows.append(f"- add(int16) on three new shapes/stride patterns: kernels compiled "
                f"**{cache.info()['compiled']}**, disk hits {cache.info()['disk_hits']}")


# -- 3. warm per-call host time -------------------------------------------------------------

def warm_calls(dev, rows):
    n = 1000
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    x = ra.asarray(a, device=dev)
    y = ra.asarray(a, device=dev)
    _warm_table(dev, rows, "`a + b`, 1,000 float32", a, lambda v: v + v, x, lambda: x + y)
    # views and broadcasts: the general path (each operand's strides), not one contiguous run
    for title, host, op in (("`a.T * 2`, 25x40 float32", a.reshape(25, 40), lambda v: v.T * 2),
                            ("`a[::2] * 2`, 500 of 1,000 float32", a, lambda v: v[::2] * 2),
                            ("`a[:, None] + a[None, :25]`, 40x25 float32", a[:40].copy(),
                             lambda v: v[:, None] + v[None, :25])):
        xs = ra.asarray(host, device=dev)
        _warm_table(dev, rows, title, host, op, xs, lambda xs=xs, op=op: op(xs))


def _warm_table(dev, rows, title, a, op, x, call):
    """A table of the warm per-call host time of ``op`` (``call`` on rocarray's ``x``,
    ``op`` on NumPy's ``a`` and on CuPy's and PyTorch's copies of it)."""
    for _ in range(20):  # hot: the full-tier kernel, as in a long-running program
        call()
    _steady(call)
    dev.synchronize()
    # every library's calls timed in turn, round after round (best_of_each)
    calls = [("rocarray", call)]
    if dev.kind != "cpu":
        calls.append(("rocarray + sync", lambda: (call(), dev.synchronize())))
    calls.append(("NumPy (host)", lambda: op(a)))
    if dev.kind == "cuda":
        cp = _try_import("cupy")
        if cp is not None:
            ca = cp.asarray(a)
            op(ca)
            calls.append(("CuPy", lambda: op(ca)))
            calls.append(("CuPy + sync", lambda: (op(ca), cp.cuda.Device().synchronize())))
        torch = _try_import("torch")
        if torch is not None and torch.cuda.is_available():
            ta = torch.as_tensor(a, device="cuda")
            op(ta)
            calls.append(("PyTorch", lambda: op(ta)))
            calls.append(("PyTorch + sync", lambda: (op(ta), torch.cuda.synchronize())))
    times = best_of_each([fn for _, fn in calls], 11, 2000)
    rows.append(f"\n### 3. Warm per-call host time of {title}\n")
    rows.append("| library | us per call | rocarray / it |")
    rows.append("|---|---|---|")
    base = times[0]
    for (name, _), v in zip(calls, times):
        rows.append(f"| {name} | {v * 1e6:.2f} | {base / v:.2f} |")


# -- 4. throughput ------------------------------------------------------------------------

def _steady(fn):
    """Run once, then wait for the tier-up compile that run may have started, so what is
    timed next is the kernel a long-running program uses."""
    from rocarray.compiler.cache import drain_background

    fn()
    dev_sync = getattr(fn, "sync", None)
    if dev_sync:
        dev_sync()
    drain_background()


def throughput(dev, rows, quick):
    n = (1 << 24) if dev.kind == "cpu" else (1 << 28)
    if quick:
        n >>= 2
    rng = np.random.default_rng(1)
    h = [rng.random(n, dtype=np.float32) for _ in range(3)]
    x, y, z = (ra.asarray(v, device=dev) for v in h)
    ops = {
        "a + b": (lambda: x + y, 3),
        "a * b + c": (lambda: x * y + z, None),
        "exp(a)": (lambda: ra.exp(x), 2),
    }
    rows.append(f"\n### 4. Throughput, {n:,} float32\n")
    if dev.kind == "cpu":
        npops = {"a + b": lambda: h[0] + h[1], "a * b + c": lambda: h[0] * h[1] + h[2], "exp(a)": lambda: np.exp(h[0])}
        # views and broadcasts: loops with strided or stride-0 operands (square matrices of
        # the same size; ``a.T * 2`` is written in the input's order, as NumPy writes it)
        side = 1 << ((n.bit_length() - 1) // 2)
        m, hm = x[:side * side].reshape((side, side)), h[0][:side * side].reshape(side, side)
        col, hcol = x[:side], h[0][:side]
        views = {
            "a.T + a": (lambda: m.T + m, lambda: hm.T + hm),
            "a - c[:, None]": (lambda: m - col[:, None], lambda: hm - hcol[:, None]),
            "c[:, None] * c[None, :]": (lambda: col[:, None] * col[None, :], lambda: hcol[:, None] * hcol[None, :]),
            "a[:, ::2] * 2": (lambda: m[:, ::2] * 2, lambda: hm[:, ::2] * 2),
            "a.T * 2": (lambda: m.T * 2, lambda: hm.T * 2),
        }
        # in place (the output an input): arrays of their own, of values from 1 (squared
        # again and again they reach inf, never the subnormals that slow a CPU down)
        ia, ib, ha, hb = *(ra.asarray(1 + v, device=dev) for v in h[:2]), 1 + h[0], 1 + h[1]
        in_place = {
            "a += b": (lambda: ra.add(ia, ib, out=ia), lambda: np.add(ha, hb, out=ha)),
            "a *= a": (lambda: ra.multiply(ia, ia, out=ia), lambda: np.multiply(ha, ha, out=ha)),
            "a += 1": (lambda: ra.add(ia, 1, out=ia), lambda: np.add(ha, 1, out=ha)),
        }
        rows.append("| op | rocarray ms | NumPy ms | NumPy / rocarray (>1: rocarray faster) |")
        rows.append("|---|---|---|---|")
        for name, (fn, npfn) in ([(k, (f, npops[k])) for k, (f, _) in ops.items()] + list(views.items())
                                 + list(in_place.items())):
            _steady(fn)
            t = best_of(fn, 5)
            tn = best_of(npfn, 5)
            label = name if name in ops or name in in_place else f"{name} ({side}x{side})"
            rows.append(f"| {label} | {t * 1e3:.2f} | {tn * 1e3:.2f} | {tn / t:.2f} |")
        return
    # GPU: bytes moved per op, against the copy bandwidth measured now
    def sync():
        dev.synchronize()

    def timed(fn):
        _steady(fn)
        sync()
        best = float("inf")
        for _ in range(10):
            t0 = time.perf_counter()
            fn()
            sync()
            best = min(best, time.perf_counter() - t0)
        return best

    rt = dev.runtime
    dst = ra.empty(n, dtype=ra.float32, device=dev)
    tc = timed(lambda: rt.copy_device_to_device(dev.index, dst.data_ptr, x.data_ptr, 4 * n))
    copy_bw = 8 * n / tc
    rows.append(f"device copy (read + write): **{copy_bw / 1e12:.2f} TB/s**\n")
    rows.append("| op | rocarray TB/s | fraction of copy | CuPy TB/s | PyTorch TB/s |")
    rows.append("|---|---|---|---|---|")
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    torch = _try_import("torch") if dev.kind == "cuda" else None
    if cp is not None:
        cx, cy, cz = (cp.asarray(v) for v in h)
    if torch is not None and torch.cuda.is_available():
        tx, ty, tz = (torch.as_tensor(v, device="cuda") for v in h)
    else:
        torch = None
    bytes_of = {"a + b": 12, "a * b + c": 16 + 12, "exp(a)": 8}
    peers = {
        "a + b": (lambda: cx + cy, lambda: tx + ty),
        "a * b + c": (lambda: cx * cy + cz, lambda: tx * ty + tz),
        "exp(a)": (lambda: cp.exp(cx), lambda: torch.exp(tx)),
    }

    def row(name, nbytes, fn, cp_fn, torch_fn):
        """A table row: ``nbytes`` over each library's best time, as TB/s (NaN: no peer)."""
        bw = nbytes / timed(fn)
        c = t_ = float("nan")
        if cp is not None:
            c = nbytes / timed(lambda: (cp_fn(), cp.cuda.Device().synchronize()))
        if torch is not None:
            t_ = nbytes / timed(lambda: (torch_fn(), torch.cuda.synchronize()))
        rows.append(f"| {name} | {bw / 1e12:.2f} | {bw / copy_bw:.2f} | {c / 1e12:.2f} | {t_ / 1e12:.2f} |")

    for name, (fn, _) in ops.items():
        row(name, bytes_of[name] * n, fn, *peers[name])
    rows.append("\n(`a * b + c` is two kernels in all three libraries: 28 bytes per element moved.)")
    # transposed views of a square matrix: an op of one transposed operand (its result
    # written in that operand's order) and one of two operands in two orders
    side = 1 << ((n.bit_length() - 1) // 2)
    m = x[:side * side].reshape((side, side))
    views = {"a.T * 2": (lambda v: v.T * 2, 8), "a.T + a": (lambda v: v.T + v, 12)}
    peer_m = [cx[:side * side].reshape(side, side) if cp is not None else None,
              tx[:side * side].reshape(side, side) if torch is not None else None]
    rows.append(f"\n{side}x{side} float32, bytes read and written per second:\n")
    rows.append("| op | rocarray TB/s | fraction of copy | CuPy TB/s | PyTorch TB/s |")
    rows.append("|---|---|---|---|---|")
    for name, (op, nbytes) in views.items():
        row(name, nbytes * side * side, lambda: op(m), lambda: op(peer_m[0]), lambda: op(peer_m[1]))


def report_main(title: str, sections) -> None:
    """A benchmark's command line (``--device``, ``--quick``, ``--json``): the report's
    title and machine lines, then ``sections(dev, rows, quick)`` appending its own; print
    it, and write the lines as JSON when asked."""
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON (benchmarks/report.py)")
    args = p.parse_args()
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    rows = [title, ""] + machine(dev) + [""]
    sections(dev, rows, args.quick)
    print("\n".join(rows))
    if args.json:
        write_json(args.json, rows)


def _sections(dev, rows, quick):
    prepare_interpreter(dev, rows)
    med = cold_signatures(dev, rows)
    if dev.kind == "cuda":
        cupy_cold(rows, med)
    cold_compiled(dev, rows)
    disk_hit(dev, rows)
    warm_calls(dev, rows)
    throughput(dev, rows, quick)


def main():
    report_main("## rocarray elementwise benchmark", _sections)


if __name__ == "__main__":
    main()
