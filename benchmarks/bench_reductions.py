"""Reduction benchmarks: rocarray beside its peers measured in the same run.

    python benchmarks/bench_reductions.py [--device cpu|cuda:0|hip:0] [--quick] [--json PATH]

Prints a Markdown report (machine, versions, figures, ratios): full sum, sum over the last
and over the first axis of a large 2-D array, max, argmax and a cumulative sum; on the CPU
beside NumPy (time ratios), on a GPU as bytes read per second and as a fraction of the
device copy bandwidth measured in the same run, beside CuPy and PyTorch.  Also the first
call of a new reduction signature (compile included) and the warm per-call time of a
small sum.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import (_try_import, best_of, code_that_ran, machine,  # noqa: E402  (sets the cache env)
                               prepare_interpreter)
from report import write_json  # noqa: E402

import rocarray as ra  # noqa: E402
from rocarray.compiler.cache import drain_background  # noqa: E402


def cases(n_1d, rows, cols):
    """(label, rocarray fn, numpy fn, cupy fn, torch fn, input name, bytes read)."""
    return [
        ("sum, full", lambda m: ra.sum(m["v"]), lambda m: np.sum(m["v"]), lambda m: m["v"].sum(),
         lambda m: m["v"].sum(), "v", 4 * n_1d),
        (f"sum, last axis of {rows}x{cols}", lambda m: ra.sum(m["m"], axis=1), lambda m: np.sum(m["m"], axis=1),
         lambda m: m["m"].sum(axis=1), lambda m: m["m"].sum(dim=1), "m", 4 * rows * cols),
        (f"sum, first axis of {rows}x{cols}", lambda m: ra.sum(m["m"], axis=0), lambda m: np.sum(m["m"], axis=0),
         lambda m: m["m"].sum(axis=0), lambda m: m["m"].sum(dim=0), "m", 4 * rows * cols),
        ("max, full", lambda m: ra.max(m["v"]), lambda m: np.max(m["v"]), lambda m: m["v"].max(),
         lambda m: m["v"].max(), "v", 4 * n_1d),
        ("argmax, full", lambda m: ra.argmax(m["v"]), lambda m: np.argmax(m["v"]), lambda m: m["v"].argmax(),
         lambda m: m["v"].argmax(), "v", 4 * n_1d),
        (f"argmax, last axis of {rows}x{cols}", lambda m: ra.argmax(m["m"], axis=1),
         lambda m: np.argmax(m["m"], axis=1), lambda m: m["m"].argmax(axis=1), lambda m: m["m"].argmax(dim=1),
         "m", 4 * rows * cols),
        ("cumulative_sum, full", lambda m: ra.cumulative_sum(m["v"]), lambda m: np.cumsum(m["v"]),
         lambda m: m["v"].cumsum(), lambda m: m["v"].cumsum(0), "v", 8 * n_1d),
    ]


def first_calls(dev, out):
    """First call of a reduction signature not yet seen (empty disk cache), and warm calls."""
    x = ra.asarray(np.arange(1, 1001, dtype=np.float32), device=dev)
    ra.sum(x)  # starts LLVM and the runtime
    dev.synchronize()
    drain_background()
    out.append("### First call of a new reduction signature (empty disk cache)\n")
    prepare_interpreter(dev, out)
    out.append("| call | first call ms | code that ran it |")
    out.append("|---|---|---|")
    from rocarray import _launch

    firsts = []
    for label, fn, dt in (("sum(int16)", ra.sum, "int16"), ("argmax(float64)", ra.argmax, "float64"),
                          ("prod(complex64)", ra.prod, "complex64"), ("max(uint32)", ra.max, "uint32"),
                          ("cumulative_sum(uint8)", ra.cumulative_sum, "uint8"),
                          ("cumulative_prod(float32)", ra.cumulative_prod, "float32")):
        drain_background()
        y = ra.asarray(np.arange(1, 1001).astype(dt), device=dev)
        before = set(_launch._loaded)
        t0 = time.perf_counter()
        fn(y)
        dev.synchronize()
        firsts.append((time.perf_counter() - t0) * 1e3)
        out.append(f"| {label} | {firsts[-1]:.1f} | {code_that_ran(before)} |")
    out.append(f"\nmedian first call: **{float(np.median(firsts)):.1f} ms** (the compiled kernel is made in "
               "the background meanwhile)")
    for _ in range(20):  # hot: the optimised kernel is compiled (in the background) and loaded
        ra.sum(x)
    dev.synchronize()
    drain_background()
    w = best_of(lambda: ra.sum(x), 7, 500)
    line = f"\nwarm `sum` of 1,000 float32: rocarray {w * 1e6:.1f} us per call"
    a = np.arange(1000, dtype=np.float32)
    line += f", NumPy {best_of(lambda: np.sum(a), 7, 500) * 1e6:.1f} us"
    if dev.kind == "cuda":
        cp = _try_import("cupy")
        torch = _try_import("torch")
        if cp is not None:
            c = cp.asarray(a)
            c.sum()
            line += f", CuPy {best_of(lambda: c.sum(), 7, 500) * 1e6:.1f} us"
        if torch is not None and torch.cuda.is_available():
            t = torch.as_tensor(a, device="cuda")
            t.sum()
            line += f", PyTorch {best_of(lambda: t.sum(), 7, 500) * 1e6:.1f} us"
    out.append(line + " (no sync per call)\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON (benchmarks/report.py)")
    args = p.parse_args()
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    gpu = dev.kind != "cpu"
    rows_, cols_ = (16384, 16384) if gpu else (4096, 4096)
    n = rows_ * cols_
    if args.quick:
        rows_ //= 2
        n //= 4
    out = ["## rocarray reduction benchmark", ""] + machine(dev) + [""]
    first_calls(dev, out)
    rng = np.random.default_rng(0)
    host = {"v": rng.standard_normal(n, dtype=np.float32),
            "m": rng.standard_normal((rows_, cols_), dtype=np.float32)}
    mine = {k: ra.asarray(v, device=dev) for k, v in host.items()}

    def timed(fn, sync, repeat=10):
        fn()
        sync()
        drain_background()  # a tier-up compile the first runs started
        fn()
        sync()
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            sync()
            best = min(best, time.perf_counter() - t0)
        return best

    table = cases(n, rows_, cols_)
    if not gpu:
        out.append(f"### Throughput, float32 ({n:,} elements; 2-D {rows_}x{cols_})\n")
        out.append("| reduction | rocarray ms | NumPy ms | NumPy / rocarray (>1: rocarray faster) |")
        out.append("|---|---|---|---|")
        for label, f, fnp, _, _, key, _ in table:
            t = timed(lambda: f(mine), lambda: None, 7)
            tn = timed(lambda: fnp(host), lambda: None, 7)
            out.append(f"| {label} | {t * 1e3:.2f} | {tn * 1e3:.2f} | {tn / t:.2f} |")
        _report(out, args.json)
        return

    def sync():
        dev.synchronize()

    rt = dev.runtime
    dst = ra.empty(n, dtype=ra.float32, device=dev)
    src = mine["v"]
    tc = timed(lambda: rt.copy_device_to_device(dev.index, dst.data_ptr, src.data_ptr, 4 * n), sync)
    copy_bw = 8 * n / tc
    out.append(f"### Throughput, float32 ({n:,} elements; 2-D {rows_}x{cols_})\n")
    out.append(f"device copy (read + write): **{copy_bw / 1e12:.2f} TB/s**; a reduction's bandwidth is "
               "the bytes it reads (a cumulative sum: reads and writes) per second\n")
    out.append("| reduction | rocarray TB/s | fraction of copy | CuPy TB/s | PyTorch TB/s |")
    out.append("|---|---|---|---|---|")
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    torch = _try_import("torch") if dev.kind == "cuda" else None
    if torch is not None and not torch.cuda.is_available():
        torch = None
    theirs_cp = {k: cp.asarray(v) for k, v in host.items()} if cp is not None else None
    theirs_t = {k: torch.as_tensor(v, device="cuda") for k, v in host.items()} if torch is not None else None
    for label, f, _, fcp, ft, key, nbytes in table:
        t = timed(lambda: f(mine), sync)
        c = tt = float("nan")
        if cp is not None:
            c = nbytes / timed(lambda: fcp(theirs_cp), cp.cuda.Device().synchronize)
        if torch is not None:
            tt = nbytes / timed(lambda: ft(theirs_t), torch.cuda.synchronize)
        bw = nbytes / t
        out.append(f"| {label} | {bw / 1e12:.2f} | {bw / copy_bw:.2f} | {c / 1e12:.2f} | {tt / 1e12:.2f} |")
    _report(out, args.json)


def _report(out: list, json_path) -> None:
    print("\n".join(out))
    if json_path:
        write_json(json_path, out)


if __name__ == "__main__":
    main()
