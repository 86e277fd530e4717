"""``x[i] = y`` of 256 float32 (256 random int64 indices), best of 5 x 300 calls."""
import sys
import time
import timeit

import numpy as np

import rocarray as ra

rng = np.random.default_rng(0)
a = rng.standard_normal(256).astype(np.float32)
b = rng.standard_normal(256).astype(np.float32)
i = rng.integers(0, 256, 256)
A, B, I = ra.asarray(a), ra.asarray(b), ra.asarray(i)
g = dict(A=A, B=B, I=I, a=a, b=b, i=i)
for _ in range(300):
    A[I] = B
time.sleep(0.5)
for stmt in ("A[I] = B", "a[i] = b"):
    t = min(timeit.repeat(stmt, globals=g, number=300, repeat=5)) / 300 * 1e6
    print(sys.argv[1] if len(sys.argv) > 1 else "", f"{stmt:10s} {t:7.2f} us")
