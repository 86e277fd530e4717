"""How near a memory-bound op can come to the copy bandwidth on a GPU: the simplest kernel
of each access pattern in rocarray, CuPy and PyTorch, and the bounds they set.

    python benchmarks/bench_bounds.py [--device cuda:0] [--n N] [--json PATH]

``bench_primitives.py`` reports an op's bytes (those it must read and write) per second as
a fraction of a device copy's.  Some ops move more memory than those bytes whatever their
kernels do, and this benchmark measures by how much, beside each library's op itself:

* **Random gathers and scatters** (``take``, ``x[idx] = v``): a random 4- or 8-byte
  element is read or written as part of a 32-byte sector.  The simplest kernel of each
  library (``y = x[j]``, ``x[j] = v``: ``ElementwiseKernel`` in rocarray and CuPy, indexing
  in PyTorch) is timed with random indices and with the same indices sorted; the better
  fraction over the random ones bounds any gather or scatter of that pattern (measured).
* **Compactions of a mask made by another op** (``x[x > 0]``, ``nonzero(x > 0)``,
  ``x[x > 0] = v``): the mask is written and read again.  The least time of such an op
  is the fastest library's ``x > 0`` (measured) + the compaction's least bytes at the
  queued copy's rate, and, where its result's size is read back before its write is
  launched, + the least cost of a wait for the device between two launches (measured
  in each library, the smallest taken): its bytes over that time are the bound, with
  and without the wait (computed from the measured parts; optimistic, as every part is
  taken at its best).  The least bytes: the mask read once, the result written, and
  ``x`` in whole 32-byte sectors (counted from the data): a compaction reads every
  sector of ``x`` that holds a selected element; ``x[x > 0] = v`` reads its values and
  writes every such sector of ``x``, and reads those it does not write whole (the
  memory merges a partly written sector with its old bytes).
* ``x[m]`` with the mask made before: the same without the mask's op.

Times: ``QUEUED_CALLS`` calls queued before one wait (the device's time), except the
wait's cost (lone calls).  Data as ``bench_primitives.py``'s: 2^24 float32 and int64,
2^22 indices.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import machine, median_time  # noqa: E402  (sets the cache env)
from bench_primitives import (OPS, QUEUED_CALLS, TAKE_N, _cupy, _positive, copy_bandwidth, host_data,  # noqa: E402
                              libraries, library_data, report, syncs, timed_queued)

import rocarray as ra  # noqa: E402

#: Lone calls timed for a wait's cost (the median).
WAIT_CALLS = 200
#: Bytes a GPU's memory reads or writes at once (an NVIDIA sector; AMD's are 32 or 64).
SECTOR = 32


def sectors(mask: np.ndarray, size: int) -> tuple:
    """(the ``SECTOR``-byte sectors of an array of ``size``-byte elements laid out as
    ``mask`` that hold a true element, those of them that also hold a false one)."""
    per = max(1, SECTOR // size)
    flat = np.ravel(mask)
    whole = np.zeros(-(-flat.size // per) * per, bool)
    whole[:flat.size] = flat
    trues = whole.reshape(-1, per).sum(axis=1)
    real = np.full(trues.size, per)
    real[-1] = flat.size - (trues.size - 1) * per  # (the last sector's places past the end: none)
    return int((trues > 0).sum()), int(((trues > 0) & (trues < real)).sum())


def simplest_kernels(lib: str) -> dict:
    """``lib``'s simplest gather and scatter: name -> callable on (x, j, v)."""
    if lib == "rocarray":
        gather = ra.ElementwiseKernel("raw T x, int64 j", "T y", "y = x[j]", "bound_gather")
        scatter = ra.ElementwiseKernel("T v, int64 j", "raw T x", "x[j] = v", "bound_scatter")
        return {"gather": lambda x, j, v: gather(x, j), "scatter": lambda x, j, v: scatter(v, j, x)}
    if lib == "cupy":
        cp = _cupy()
        gather = cp.ElementwiseKernel("raw T x, int64 j", "T y", "y = x[j]", "bound_gather")
        scatter = cp.ElementwiseKernel("T v, int64 j", "raw T x", "x[j] = v", "bound_scatter")
        return {"gather": lambda x, j, v: gather(x, j), "scatter": lambda x, j, v: scatter(v, j, x)}
    return {"gather": lambda x, j, v: x[j], "scatter": lambda x, j, v: x.__setitem__(j, v)}


def wait_cost(d: dict, sync) -> float:
    """What a wait for the device between two launches adds (s): two small kernels with a
    wait between them, less the same two queued before one wait (medians) -- the least a
    compaction pays between its count and its write, whose size it must know first."""
    one = d["x"][:1]

    def apart():
        one + 1
        sync()
        one + 1

    def together():
        one + 1
        one + 1

    return max(0.0, median_time(apart, sync, WAIT_CALLS) - median_time(together, sync, WAIT_CALLS))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--dtypes", default="float32,int64")
    p.add_argument("--json", help="also write the report and the figures to this file")
    args = p.parse_args()
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    if dev.kind == "cpu":
        raise SystemExit("bench_bounds.py measures a GPU's memory: give --device cuda:0 or hip:0")
    libs = libraries(dev)
    sync = syncs(dev, libs)
    n = args.n
    copy_lone, copy_q = copy_bandwidth(dev, n)
    rows = ["## rocarray: how near memory-bound ops can come to the copy bandwidth", ""] + machine(dev) + [""]
    rows.append(f"{n:,} elements, {TAKE_N:,} indices; device copy {copy_lone / 1e9:.1f} GB/s lone, "
                f"{copy_q / 1e9:.1f} GB/s with {QUEUED_CALLS} calls queued (read + write); fractions are of "
                "the queued copy's rate\n")
    figures = []
    kernels = {lib: simplest_kernels(lib) for lib in libs}
    rng = np.random.default_rng(0)
    for dt in args.dtypes.split(","):
        host = host_data(n, dt, rng)
        host["idx_sorted"] = np.sort(host["idx"])
        size = np.dtype(dt).itemsize
        count = int(_positive(host["x"]).sum())
        data = {lib: library_data(lib, host, dev) for lib in libs}
        rows.append(f"### {dt} ({count:,} elements > 0)\n")
        # the simplest kernels
        rows.append("| simplest kernel | bytes counted | " + " | ".join(f"{lib} fraction" for lib in libs) + " |")
        rows.append("|---|---|" + "---|" * len(libs))
        access = {}
        for kind in ("gather", "scatter"):
            for order in ("idx", "idx_sorted"):
                fns = {lib: (lambda k=kernels[lib][kind], d=data[lib], a="x" if kind == "gather" else "s",
                                    o=order: k(d[a], d[o], d["w"])) for lib in libs}
                t = timed_queued(fns, sync)
                moved = TAKE_N * (8 + 2 * size)
                fr = {lib: moved / t[lib] / copy_q for lib in libs}
                access[kind, order] = max(fr.values())
                name = f"{'y = x[j]' if kind == 'gather' else 'x[j] = v'}, j {'random' if order == 'idx' else 'sorted'}"
                rows.append(f"| {name} | {moved:,} | " + " | ".join(f"{fr[lib]:.2f}" for lib in libs) + " |")
                figures.append({"dtype": dt, "kernel": name, "bytes": moved, **{f"{lib}_fraction": fr[lib] for lib in libs}})
        mask_fns = {lib: (lambda d=data[lib]: _positive(d["x"], host["x"])) for lib in libs}
        t_mask = timed_queued(mask_fns, sync)
        mask_bytes = n * (size + 1)
        rows.append(f"| mask x > 0 | {mask_bytes:,} | "
                    + " | ".join(f"{mask_bytes / t_mask[lib] / copy_q:.2f}" for lib in libs) + " |")
        t_back = {lib: wait_cost(data[lib], sync[lib]) for lib in libs}
        rows.append("")
        rows.append("a wait between two launches (two one-element ops with a wait between, less the two queued "
                    f"before one wait; medians of {WAIT_CALLS}): "
                    + ", ".join(f"{lib} {t_back[lib] * 1e6:.1f} us" for lib in libs) + "\n")
        best_mask, best_back = min(t_mask.values()), min(t_back.values())

        def op_row(name, bound, how):
            """The fraction of ``OPS[name]`` in each library (its bytes as bench_primitives counts them)."""
            nbytes, impl = OPS[name]
            counted = nbytes(data["rocarray"])
            t = timed_queued({lib: (lambda f=impl[lib], d=data[lib]: f(d)) for lib in libs}, sync)
            fr = {lib: counted / t[lib] / copy_q for lib in libs}
            free, waited = bound(counted)
            rows.append(f"| {name} | {free:.2f} | {waited:.2f} | {how} | "
                        + " | ".join(f"{fr[lib]:.2f}" for lib in libs) + " |")
            figures.append({"dtype": dt, "op": name, "bound": free, "bound_with_wait": waited,
                            **{f"{lib}_fraction": fr[lib] for lib in libs}})

        touched, partial = sectors(_positive(host["x"]), size)
        rows.append(f"sectors of x: {touched:,} of {-(-n * size // SECTOR):,} hold an element > 0, {partial:,} of "
                    "them also one that is not\n")
        rows.append("| op | bound, no wait | bound, with the wait | how | "
                    + " | ".join(f"{lib} fraction" for lib in libs) + " |")
        rows.append("|---|---|---|---|" + "---|" * len(libs))
        # (the op, the least bytes of its compaction once the mask is made, whether the op makes the mask)
        read_x = touched * SECTOR
        for name, least, made in (("x[x > 0]", n + read_x + count * size, True),
                                  ("nonzero", n + count * 8, True),
                                  ("x[x > 0] = v", n + count * size + read_x + partial * SECTOR, True),
                                  ("x[m], mask made before", n + read_x + count * size, False)):
            t_least = (best_mask if made else 0.0) + least / copy_q
            how = ((f"mask {best_mask * 1e6:.1f} us + " if made else "")
                   + f"{least / 1e6:.1f} MB, {least / copy_q * 1e6:.1f} us (+ a wait {best_back * 1e6:.1f} us)")
            op_row(name, lambda counted, t=t_least: (counted / t / copy_q, counted / (t + best_back) / copy_q), how)
        for name, kind in ((f"take, {TAKE_N:,} indices", "gather"), (f"x[idx] = v, {TAKE_N:,} indices", "scatter")):
            op_row(name, lambda counted, k=kind: (access[k, "idx"],) * 2, f"the best simplest {kind} of random j above")
        rows.append("")
        del data
    report(rows, args.json, figures, copy_lone, copy_q)


if __name__ == "__main__":
    main()
