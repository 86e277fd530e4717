"""When the block module takes over from the ranks: 60 sorts of 1,000 int16, 30 ms apart."""
import time, sys
import numpy as np
import rocarray as ra
from rocarray import _radix_gpu
x = ra.asarray(np.random.default_rng(0).integers(-1000, 1000, 1000).astype("int16"), device="cuda:0")
y = ra.asarray(np.ones(1024), device="cuda:0")
ra.asnumpy(y + y)
t0 = time.perf_counter(); out = []
for i in range(60):
    t = time.perf_counter(); r = ra.sort(x); ra.asnumpy(r[:4]); ms = 1e3 * (time.perf_counter() - t)
    out.append(f"{ms:.1f}{'' if _radix_gpu.short_rows_ready(x.dtype, 1000, 0, x.device) else 'r'}")
    time.sleep(0.03)
print(" ".join(out), f"| {time.perf_counter() - t0:.2f} s")
