import numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
import sys
dt = sys.argv[1] if len(sys.argv) > 1 else "float32"
x = ra.asarray(np.random.default_rng(0).integers(-1000, 1000, 1 << 24).astype(dt), device=dev)
for _ in range(4):
    ra.cumulative_sum(x); dev.synchronize(); drain_background()
for _ in range(3):
    ra.cumulative_sum(x)
dev.synchronize()
print("done")
