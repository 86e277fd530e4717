"""First GPU sort of 1,000 int16 with the block module's background compile started before
the ranks (now), after them (after), or never (none)."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray import _sorting_functions as S, _radix_gpu, _launch
variant = sys.argv[1]
real = _radix_gpu.short_rows_ready
asked = []
def loaded_only(dtype, L, pbits, device):
    asked.append((dtype, L, pbits, device))
    return False
if variant != "now":
    S.short_rows_ready = loaded_only
x = ra.asarray(np.random.default_rng(0).integers(-1000, 1000, 1000).astype(np.int16), device="cuda:0")
w = ra.asarray(np.ones(1000), device="cuda:0"); (w + w).get()
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
out = []
for name, fn in (("sort", ra.sort), ("argsort", ra.argsort)):
    t = time.perf_counter(); r = fn(x); r[:1].get(); dt = 1e3 * (time.perf_counter() - t)
    if variant == "after":
        for a in asked: real(*a)
        asked.clear()
    out.append(f"{name} {dt:.1f}")
print(variant, sys.argv[2:], " | ".join(out))
