"""The compactions' bounds of bench_bounds.py as of 4b6a819 (least bytes in whole sectors),
recomputed from the parts stop 66 measured on an H100 (bounds_a9b5afb.md there: the queued
copy, the fastest ``x > 0``, the least wait), over the benchmark's own data.

    python benchmarks/results/2026-12-07-stop77/bounds_recomputed.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from bench_bounds import SECTOR, sectors  # noqa: E402
from bench_primitives import host_data  # noqa: E402

N = 1 << 24
COPY_Q = 2797.6e9  # bytes/s, queued (read + write)
PARTS = {"float32": (30.7e-6, 5.0e-6), "int64": (52.6e-6, 5.0e-6)}  # (fastest x > 0, least wait)
OLD = {"float32": {"x[x > 0]": 0.46, "nonzero": 0.73, "x[x > 0] = v": 0.73, "x[m]": 0.89},
       "int64": {"x[x > 0]": 0.53, "nonzero": 0.82, "x[x > 0] = v": 0.86, "x[m]": 0.94}}

rng = np.random.default_rng(0)  # (as bench_bounds.py draws: one generator, float32 first)
print("| dtype | op | bytes counted | least bytes | bound, no wait | with the wait | stop 66 (with the wait) |")
print("|---|---|---|---|---|---|---|")
for dt, (mask_t, wait_t) in PARTS.items():
    x = host_data(N, dt, rng)["x"]
    size, m = x.itemsize, x > 0
    count = int(m.sum())
    touched, partial = sectors(m, size)
    rows = {"x[x > 0]": (N * size + count * size, N + touched * SECTOR + count * size, True),
            "nonzero": (N * size + count * 8, N + count * 8, True),
            "x[x > 0] = v": (N * size + 2 * count * size, N + count * size + (touched + partial) * SECTOR, True),
            "x[m]": (N + N * size + count * size, N + touched * SECTOR + count * size, False)}
    for op, (counted, least, made) in rows.items():
        t = (mask_t if made else 0.0) + least / COPY_Q
        print(f"| {dt} | `{op}` | {counted:,} | {least:,} | {counted / t / COPY_Q:.2f} | "
              f"{counted / (t + wait_t) / COPY_Q:.2f} | {OLD[dt][op]:.2f} |")
    print(f"| {dt} | sectors of x | {-(-N * size // SECTOR):,} | {touched:,} hold an element > 0, "
          f"{partial:,} of them also one that is not | | | |")
