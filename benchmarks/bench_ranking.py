"""A whole program built on sorting and searching -- ranking scores and counting labels --
rocarray beside its peers in the same run.

    python benchmarks/bench_ranking.py [--device cpu|cuda:0|hip:0] [--rows R] [--cols C]
                                       [--labels L] [--json PATH]

The program issue 21 names (argsort, sort, ``unique_counts`` and ``searchsorted`` on a
1000x256 score matrix and 200,000 labels), written as a NumPy user writes it:

1. each row's order of scores, highest first (a stable descending ``argsort`` of rows);
2. each row's ten best scores (``take_along_axis`` with the first ten of that order);
3. each row sorted (``sort`` of rows);
4. every score sorted, and where 1,000 thresholds fall among them (``sort``, ``searchsorted``);
5. the distinct labels and their counts (``unique_counts``);
6. each label's dense id and its label's count (``searchsorted``, ``take``).

Each library's results are checked against NumPy's before it is timed.  Reported: the first
run of the program in a new process (empty disk caches of compiled kernels: rocarray's and
CuPy's), and the warm run (best of 7, the libraries timed in turn round by round), on the
CPU beside NumPy and on a GPU beside CuPy and PyTorch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import machine  # noqa: E402  (sets the cache env)

os.environ.setdefault("CUPY_CACHE_DIR", tempfile.mkdtemp(prefix="cupy-bench-"))

import rocarray as ra  # noqa: E402
from bench_primitives import libraries, syncs, timed_round_robin  # noqa: E402

TOP = 10
THRESHOLDS = 1000


def program_rocarray(scores, labels, thresholds):
    order = ra.argsort(scores, axis=1, descending=True, stable=True)
    top = ra.take_along_axis(scores, order[:, :TOP], axis=1)
    rows = ra.sort(scores, axis=1)
    flat = ra.sort(ra.reshape(scores, (-1,)))
    where = ra.searchsorted(flat, thresholds)
    values, counts = ra.unique_counts(labels)
    ids = ra.searchsorted(values, labels)
    return order, top, rows, where, values, counts, ids, ra.take(counts, ids)


def program_numpy(scores, labels, thresholds):
    order = np.argsort(-scores, axis=1, kind="stable")
    top = np.take_along_axis(scores, order[:, :TOP], axis=1)
    rows = np.sort(scores, axis=1)
    flat = np.sort(scores.reshape(-1))
    where = np.searchsorted(flat, thresholds)
    values, counts = np.unique(labels, return_counts=True)
    ids = np.searchsorted(values, labels)
    return order, top, rows, where, values, counts, ids, np.take(counts, ids)


def program_cupy(scores, labels, thresholds):
    import cupy as cp

    order = cp.argsort(-scores, axis=1)  # (CuPy's argsort is stable)
    top = cp.take_along_axis(scores, order[:, :TOP], axis=1)
    rows = cp.sort(scores, axis=1)
    flat = cp.sort(scores.reshape(-1))
    where = cp.searchsorted(flat, thresholds)
    values, counts = cp.unique(labels, return_counts=True)
    ids = cp.searchsorted(values, labels)
    return order, top, rows, where, values, counts, ids, cp.take(counts, ids)


def program_torch(scores, labels, thresholds):
    import torch

    order = torch.argsort(scores, dim=1, descending=True, stable=True)
    top = torch.gather(scores, 1, order[:, :TOP])
    rows = torch.sort(scores, dim=1).values
    flat = torch.sort(scores.reshape(-1)).values
    where = torch.searchsorted(flat, thresholds)
    values, counts = torch.unique(labels, sorted=True, return_counts=True)
    ids = torch.searchsorted(values, labels)
    return order, top, rows, where, values, counts, ids, counts[ids]


PROGRAMS = {"rocarray": program_rocarray, "numpy": program_numpy, "cupy": program_cupy,
            "torch": program_torch}


def inputs(lib: str, host: tuple, dev):
    if lib == "rocarray":
        return tuple(ra.asarray(h, device=dev) for h in host)
    if lib == "cupy":
        import cupy as cp

        return tuple(cp.asarray(h) for h in host)
    if lib == "torch":
        import torch

        return tuple(torch.as_tensor(h, device="cuda") for h in host)
    return host


def to_numpy(lib: str, a):
    if lib == "rocarray":
        return ra.asnumpy(a)
    if lib == "cupy":
        return a.get()
    if lib == "torch":
        return a.cpu().numpy()
    return a


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--rows", type=int, default=1000)
    p.add_argument("--cols", type=int, default=256)
    p.add_argument("--labels", type=int, default=200_000)
    p.add_argument("--json", help="also write the report and the figures to this file")
    args = p.parse_args()
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    libs = libraries(dev)
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((args.rows, args.cols)).astype(np.float32)
    labels = rng.integers(0, 5000, args.labels)
    thresholds = np.sort(rng.standard_normal(THRESHOLDS).astype(np.float32))
    host = (scores, labels, thresholds)
    expected = program_numpy(*host)
    sync = syncs(dev, libs)
    data = {lib: inputs(lib, host, dev) for lib in libs}
    first, fns = {}, {}
    for lib in libs:
        prog, d = PROGRAMS[lib], data[lib]
        t0 = time.perf_counter()
        got = prog(*d)
        sync[lib]()
        first[lib] = time.perf_counter() - t0
        for i, (g, e) in enumerate(zip(got, expected)):
            g = to_numpy(lib, g)
            if g.shape != e.shape or not np.array_equal(g, e):
                raise SystemExit(f"{lib}: result {i} of the program differs from NumPy's")
        fns[lib] = lambda prog=prog, d=d: prog(*d)
    best = timed_round_robin(fns, sync)
    peers = [lib for lib in libs if lib != "rocarray"]
    rows = ["## rocarray ranking program (sorting and searching)", ""] + machine(dev) + [""]
    rows.append(f"{args.rows}x{args.cols} float32 scores, {args.labels:,} int64 labels (5,000 values), "
                f"{THRESHOLDS:,} thresholds; every library's results equal NumPy's. ratio: the fastest "
                "peer's time over rocarray's (>= 1: rocarray as fast or faster)\n")
    head = "| run | rocarray ms | " + " | ".join(f"{p_} ms" for p_ in peers) + " | ratio |"
    rows += [head, "|" + "---|" * (head.count("|") - 1)]
    for name, t in (("first (empty caches)", first), ("warm (best of 7)", best)):
        peer = min(t[p_] for p_ in peers)
        rows.append(f"| {name} | {t['rocarray'] * 1e3:.2f} | "
                    + " | ".join(f"{t[p_] * 1e3:.2f}" for p_ in peers) + f" | {peer / t['rocarray']:.2f} |")
    print("\n".join(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"report": rows, "first_ms": {k: v * 1e3 for k, v in first.items()},
                       "warm_ms": {k: v * 1e3 for k, v in best.items()}}, f, indent=1)


if __name__ == "__main__":
    main()
