"""Linear algebra and FFT benchmarks: rocarray's vendor-library backends beside their peers
measured in the same run.

    python benchmarks/bench_linalg_fft.py [--device cpu|cuda:0|hip:0] [--quick] [--json PATH]

Prints a Markdown report (machine, versions, figures, ratios): matmul (float32, float64,
float16 with float32 compute, a batch of 256 small products) in TFLOP/s, the solvers
(solve, cholesky, qr, svd, eigh) and the FFTs (complex 1-D and 2-D, real 1-D) in ms; on
the CPU beside NumPy, on a GPU beside CuPy and PyTorch.  Ratios are peer time / rocarray
time (above 1: rocarray faster).  Each round times every library once, in turn, so a
change of the machine's pace falls on all alike; the best round counts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import _try_import, machine  # noqa: E402  (sets the cache env)

import rocarray as ra  # noqa: E402
from rocarray.compiler.cache import drain_background  # noqa: E402


def cases(gpu: bool, quick: bool):
    """(label, flops or None, host inputs maker, op name) -- the op is looked up per library."""
    big = 4096 if gpu else 1024
    solver = 1024 if gpu else 512
    line = 2 ** (24 if gpu else 22)
    square = 4096 if gpu else 2048
    if quick:
        big, solver, line, square = big // 2, solver // 2, line // 4, square // 2
    rng = np.random.default_rng(0)

    def mats(n, dtype, batch=()):
        return lambda: [rng.standard_normal(batch + (n, n)).astype(dtype) for _ in range(2)]

    def spd(n):
        def make():
            a = rng.standard_normal((n, n))
            return [a @ a.T + n * np.eye(n), rng.standard_normal((n, 8))]
        return make

    def signal(shape, dtype):
        def make():
            x = rng.standard_normal(shape)
            if np.dtype(dtype).kind == "c":
                x = x + 1j * rng.standard_normal(shape)
            return [x.astype(dtype)]
        return make

    rows = [
        (f"matmul float32 {big}^2", 2 * big ** 3, mats(big, np.float32), "matmul"),
        (f"matmul float64 {big}^2", 2 * big ** 3, mats(big, np.float64), "matmul"),
        ("matmul float32 batched 256 x 64x64", 2 * 256 * 64 ** 3, mats(64, np.float32, (256,)), "matmul"),
    ]
    if gpu:
        rows.append((f"matmul float16 {big}^2 (float32 compute)", 2 * big ** 3, mats(big, np.float16), "matmul"))
    rows += [
        (f"solve float64 {solver}^2, 8 right-hand sides", None, spd(solver), "solve"),
        (f"cholesky float64 {solver}^2", None, spd(solver), "cholesky"),
        (f"qr float64 {solver}^2", None, spd(solver), "qr"),
        (f"svd float64 {solver}^2", None, spd(solver), "svd"),
        (f"eigh float64 {solver}^2", None, spd(solver), "eigh"),
        (f"fft complex64 2^{line.bit_length() - 1}", None, signal((line,), np.complex64), "fft"),
        ("fft complex64 2^20", None, signal((2 ** 20,), np.complex64), "fft"),
        (f"fft2 complex64 {square}^2", None, signal((square, square), np.complex64), "fft2"),
        (f"rfft float32 2^{line.bit_length() - 1}", None, signal((line,), np.float32), "rfft"),
        ("rfft float32 2^22", None, signal((2 ** 22,), np.float32), "rfft"),
    ]
    return rows


def ops(xp_linalg, xp_fft, matmul):
    return {
        "matmul": lambda a, b: matmul(a, b),
        "solve": lambda a, b: xp_linalg.solve(a, b),
        "cholesky": lambda a, b: xp_linalg.cholesky(a),
        "qr": lambda a, b: xp_linalg.qr(a),
        "svd": lambda a, b: xp_linalg.svd(a),
        "eigh": lambda a, b: xp_linalg.eigh(a),
        "fft": lambda x: xp_fft.fft(x),
        "fft2": lambda x: xp_fft.fftn(x) if hasattr(xp_fft, "fftn") else xp_fft.fft2(x),
        "rfft": lambda x: xp_fft.rfft(x),
    }


def libraries(dev):
    """(name, to-device, ops, sync) of rocarray and its peers on ``dev``."""
    libs = [("rocarray", lambda a: ra.asarray(a, device=dev), ops(ra.linalg, ra.fft, ra.matmul),
             dev.synchronize if dev.kind != "cpu" else (lambda: None))]
    if dev.kind == "cpu":
        libs.append(("NumPy", lambda a: a, ops(np.linalg, np.fft, np.matmul), lambda: None))
        return libs
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    if cp is not None:
        libs.append(("CuPy", cp.asarray, ops(cp.linalg, cp.fft, cp.matmul), cp.cuda.Device().synchronize))
    torch = _try_import("torch")
    if torch is not None and torch.cuda.is_available():
        libs.append(("PyTorch", lambda a: torch.as_tensor(a, device="cuda"),
                     ops(torch.linalg, torch.fft, torch.matmul), torch.cuda.synchronize))
    return libs


def measure(libs, inputs, op, repeat):
    """Best time (s) of each library's ``op`` on its copy of ``inputs``, rounds in turn."""
    prepared = []
    for name, to_dev, table, sync in libs:
        args = [to_dev(a) for a in inputs]
        fn = table[op]
        for _ in range(3):  # first calls: plans, handles, kernels (their first tier)
            fn(*args)
        sync()
        drain_background()  # the compiled code of rocarray's kernels takes over
        fn(*args)
        sync()
        prepared.append((fn, args, sync))
    best = [float("inf")] * len(prepared)
    for _ in range(repeat):
        for k, (fn, args, sync) in enumerate(prepared):
            t0 = time.perf_counter()
            fn(*args)
            sync()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json", help="also write the report's figures to this file")
    args = p.parse_args()
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    gpu = dev.kind != "cpu"
    libs = libraries(dev)
    names = [n for n, *_ in libs]
    out = ["## rocarray linear algebra and FFT benchmark", ""] + machine(dev) + [""]
    out.append("| case | " + " | ".join(f"{n} ms" for n in names) + " | rocarray TFLOP/s | "
               + " | ".join(f"{n} / rocarray" for n in names[1:]) + " |")
    out.append("|---" * (2 * len(names) + 1) + "|")
    rows = []
    for label, flops, make, op in cases(gpu, args.quick):
        times = measure(libs, make(), op, args.repeat)
        tflops = f"{flops / times[0] / 1e12:.2f}" if flops else ""
        ratios = [t / times[0] for t in times[1:]]
        out.append(f"| {label} | " + " | ".join(f"{t * 1e3:.3f}" for t in times) + f" | {tflops} | "
                   + " | ".join(f"{r:.2f}" for r in ratios) + " |")
        rows.append({"case": label, "ms": dict(zip(names, [t * 1e3 for t in times])),
                     "tflops": flops / times[0] / 1e12 if flops else None,
                     "peer_over_rocarray": dict(zip(names[1:], ratios))})
        print(out[-1], file=sys.stderr, flush=True)  # progress; the report goes to stdout
    print("\n".join(out))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(dev), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
