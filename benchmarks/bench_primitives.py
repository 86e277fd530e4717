"""Parallel-primitive benchmarks (issue 21): rocarray beside its peers measured in the same run.

    python benchmarks/bench_primitives.py [--device cpu|cuda:0|hip:0] [--quick] [--only NAME,...]
                                          [--json PATH]

One table of ops keyed by name (``OPS``): each row builds its inputs from a size and runs
the op in rocarray, NumPy, CuPy and PyTorch.  Sizes: 2^24 elements on a GPU, 2^22 on the
CPU (``--quick``: a quarter), rows 4096 x 1024.  On the CPU the report gives each op's time
beside NumPy's (a ratio > 1: rocarray faster); on a GPU beside CuPy's and PyTorch's, and
the ratio to the faster of the two.  Times are the best of several warm runs, each ended
by a device synchronization; every library's inputs are the same values.  ``--json``
writes the figures as a list of records.
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


def _line(n, rng):
    return {"f32": rng.standard_normal(n, dtype=np.float32),
            "i64": rng.integers(-2**31, 2**31, size=n, dtype=np.int64)}


def _search(n, rng):
    base = np.sort(rng.standard_normal(n, dtype=np.float32))
    return {"sorted": base, "q": rng.standard_normal(1 << 20, dtype=np.float32)}


def _rows(n, rng):
    return {"m": rng.standard_normal((4096, 1024), dtype=np.float32)}


def _isin(n, rng):
    return {"a": rng.integers(0, 1 << 22, size=n, dtype=np.int64),
            "b": rng.integers(0, 1 << 22, size=1 << 16, dtype=np.int64)}


#: name -> (inputs from (n, rng), rocarray, NumPy, CuPy, PyTorch); each op takes the dict
#: of its library's arrays
OPS = {
    "sort float32": (_line, lambda m: ra.sort(m["f32"]), lambda m: np.sort(m["f32"]),
                     lambda m: m["cp"].sort(m["f32"]), lambda m: m["torch"].sort(m["f32"], stable=True)),
    "sort int64": (_line, lambda m: ra.sort(m["i64"]), lambda m: np.sort(m["i64"]),
                   lambda m: m["cp"].sort(m["i64"]), lambda m: m["torch"].sort(m["i64"], stable=True)),
    "argsort float32 (stable)": (_line, lambda m: ra.argsort(m["f32"]),
                                 lambda m: np.argsort(m["f32"], kind="stable"),
                                 lambda m: m["cp"].argsort(m["f32"]),
                                 lambda m: m["torch"].argsort(m["f32"], stable=True)),
    "argsort int64 (stable)": (_line, lambda m: ra.argsort(m["i64"]),
                               lambda m: np.argsort(m["i64"], kind="stable"),
                               lambda m: m["cp"].argsort(m["i64"]),
                               lambda m: m["torch"].argsort(m["i64"], stable=True)),
    "unique_counts float32": (_line, lambda m: ra.unique_counts(m["f32"]),
                              lambda m: np.unique(m["f32"], return_counts=True, equal_nan=False),
                              lambda m: m["cp"].unique(m["f32"], return_counts=True),
                              lambda m: m["torch"].unique(m["f32"], sorted=True, return_counts=True)),
    "searchsorted, 2^20 queries": (_search, lambda m: ra.searchsorted(m["sorted"], m["q"]),
                                   lambda m: np.searchsorted(m["sorted"], m["q"]),
                                   lambda m: m["cp"].searchsorted(m["sorted"], m["q"]),
                                   lambda m: m["torch"].searchsorted(m["sorted"], m["q"])),
    "sort of 4096x1024 rows": (_rows, lambda m: ra.sort(m["m"], axis=1), lambda m: np.sort(m["m"], axis=1),
                               lambda m: m["cp"].sort(m["m"], axis=1),
                               lambda m: m["torch"].sort(m["m"], dim=1, stable=True)),
    "isin, 2^16 values": (_isin, lambda m: ra.isin(m["a"], m["b"]), lambda m: np.isin(m["a"], m["b"]),
                          lambda m: m["cp"].isin(m["a"], m["b"]), lambda m: m["torch"].isin(m["a"], m["b"])),
}


def _best(fn, sync, repeat):
    fn()
    sync()
    drain_background()  # a tier-up compile the first run started
    for _ in range(2):
        fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default=None, help="comma-separated op names (a prefix is enough)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args()
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    gpu = dev.kind != "cpu"
    n = (1 << 24) if gpu else (1 << 22)
    if args.quick:
        n //= 4
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    torch = _try_import("torch") if dev.kind == "cuda" else None
    if torch is not None and not torch.cuda.is_available():
        torch = None
    out = ["## rocarray parallel-primitive benchmark", ""] + machine(dev) + [""]
    out.append(f"{n:,} elements per line (float32 standard normal; int64 uniform in [-2^31, 2^31)); "
               "best of warm runs, synchronized\n")
    if gpu:
        out.append("| op | rocarray ms | CuPy ms | PyTorch ms | faster peer / rocarray (>1: rocarray faster) |")
        out.append("|---|---|---|---|---|")
    else:
        out.append("| op | rocarray ms | NumPy ms | NumPy / rocarray (>1: rocarray faster) |")
        out.append("|---|---|---|---|")
    records = []
    rng = np.random.default_rng(0)
    for name, (make, f, fnp, fcp, ft) in OPS.items():
        if args.only and not any(name.startswith(o.strip()) for o in args.only.split(",")):
            continue
        host = make(n, rng)
        mine = {k: ra.asarray(v, device=dev) for k, v in host.items()}
        t = _best(lambda: f(mine), dev.synchronize, args.repeat)
        rec = {"op": name, "n": n, "device": str(dev), "rocarray_s": t}
        if not gpu:
            tn = _best(lambda: fnp(host), lambda: None, args.repeat)
            rec["numpy_s"] = tn
            out.append(f"| {name} | {t * 1e3:.2f} | {tn * 1e3:.2f} | {tn / t:.2f} |")
        else:
            tc = tt = float("nan")
            if cp is not None:
                theirs = {k: cp.asarray(v) for k, v in host.items()}
                theirs["cp"] = cp
                tc = _best(lambda: fcp(theirs), cp.cuda.Device().synchronize, args.repeat)
            if torch is not None:
                theirs = {k: torch.as_tensor(v, device="cuda") for k, v in host.items()}
                theirs["torch"] = torch
                tt = _best(lambda: ft(theirs), torch.cuda.synchronize, args.repeat)
            peer = np.nanmin([tc, tt]) if not (np.isnan(tc) and np.isnan(tt)) else float("nan")
            rec.update(cupy_s=tc, torch_s=tt)
            out.append(f"| {name} | {t * 1e3:.2f} | {tc * 1e3:.2f} | {tt * 1e3:.2f} | {peer / t:.2f} |")
        records.append(rec)
        print(out[-1], flush=True)
    print("\n".join(out))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(dev), "records": records}, fh, indent=1)


if __name__ == "__main__":
    main()
